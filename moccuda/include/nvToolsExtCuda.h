/* MocCUDA: NVTX 2's <nvToolsExtCuda.h> (older toolkits had it, with a library: -lnvToolsExt), as NVTX 3's
 * header-only one from the nvidia-nvtx-cu12 package, whose calls do nothing unless a tool is
 * attached (NVTX_INJECTION64_PATH).  -lnvToolsExt is dropped from the link. */
#include <nvtx3/nvToolsExtCuda.h>
