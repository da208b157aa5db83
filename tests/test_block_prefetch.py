"""Pass block-prefetch: which reads are prefetched for the next block, and that the programs
that prefetch (one reading right up to an inaccessible page) still give the host's results."""

from __future__ import annotations

import os
import subprocess

from support import PROGRAMS, compile_cpp
from foundation.options import TranslateOptions
from transpiler.translate import translate_file

PREFETCHING = PROGRAMS / "openmp" / "block_prefetch.cu"


def _prefetched(result) -> dict[str, list[str]]:
    return {k["name"]: [p["pointer"] for p in k["prefetched"]] for k in result.explain["kernels"]}


def test_prefetching_kernels_give_the_host_results(tmp_path):
    result = translate_file(PREFETCHING)
    # reduce512's integer tree is summed as the loads go (reassociate-reductions), and then one
    # thread stores the sum; its block reads two halves of its span at once, which the hardware
    # prefetcher does not follow, so their next block's lines are prefetched anyway.
    assert _prefetched(result) == {"reduce512": ["in", "in"], "rows_reversed": ["in"], "planes": ["in"],
                                   "early_exit": ["in"], "guarded_at_page_end": ["in"]}
    assert _prefetched(translate_file(PREFETCHING, TranslateOptions(disabled_passes=("reassociate-reductions",)))) \
        ["reduce512"] == ["in", "in"]
    # One prefetch per row of a 2-D block.
    assert "for (unsigned prefetch_ty = 0u; prefetch_ty < blockDim.y; ++prefetch_ty)" in result.source
    cpp = tmp_path / "block_prefetch.cpp"
    cpp.write_text(result.source)
    built = compile_cpp(cpp, tmp_path / "block_prefetch", ["-Werror"], opt="-O3")
    assert built.returncode == 0, built.stderr[-3000:]
    for threads in ("1", "3"):
        run = subprocess.run([str(tmp_path / "block_prefetch")], capture_output=True, text=True, timeout=60,
                             env=dict(os.environ, OMP_NUM_THREADS=threads))
        assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout + run.stderr


def test_reads_whose_index_could_overflow_or_vary_are_not_prefetched(tmp_path):
    cu = tmp_path / "kinds.cu"
    cu.write_text("""
__global__ void signed_under_guard(const float *in, float *out, int n)
{   // 2 * i + 1 may overflow for a block past the data: only threads below n compute it
    __shared__ float s[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = 0.0f;
    if (i < n) v = in[2 * i + 1];
    s[threadIdx.x] = v;
    __syncthreads();
    if (i < n) out[i] = s[127 - threadIdx.x];
}
__global__ void divided(const float *in, float *out, unsigned n, unsigned k)
{   // k may be 0 where no thread divides
    __shared__ float s[128];
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? in[i / k] : 0.0f;
    __syncthreads();
    if (i < n) out[i] = s[127 - threadIdx.x];
}
__global__ void same_for_every_block(const float *in, float *out)
{   // the lines are cached after the first block
    __shared__ float s[128];
    s[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[blockIdx.x * 128 + threadIdx.x] = s[127 - threadIdx.x];
}
__global__ void varying_index(const float *in, float *out, int steps)
{   // the index changes in a loop
    __shared__ float s[128];
    unsigned i = blockIdx.x * 128u + threadIdx.x;
    float v = 0.0f;
    for (int k = 0; k < steps; ++k) { v += in[i]; i += 7u; }
    s[threadIdx.x] = v;
    __syncthreads();
    out[blockIdx.x * 128 + threadIdx.x] = s[127 - threadIdx.x];
}
__global__ void unsigned_stream(const float *in, float *out)
{   // prefetched: the control
    __shared__ float s[128];
    unsigned i = blockIdx.x * 128u + threadIdx.x;
    s[threadIdx.x] = in[i];
    __syncthreads();
    out[i] = s[127 - threadIdx.x];
}
__global__ void no_shared(const float *in, float *out)
{   // auto schedules it flat: no block body to prefetch from
    unsigned i = blockIdx.x * 128u + threadIdx.x;
    out[i] = in[i] * 2.0f;
}
""")
    expected = {"signed_under_guard": [], "divided": [], "same_for_every_block": [], "varying_index": [],
                "unsigned_stream": ["in"], "no_shared": []}
    assert _prefetched(translate_file(cu)) == expected
    # Under the blocks schedule the flat kernel's block body only streams, with no work after its
    # loads: nothing to prefetch either.  Nested and the pass turned off prefetch nothing.
    assert _prefetched(translate_file(cu, TranslateOptions(schedule="blocks"))) == expected
    nested = translate_file(cu, TranslateOptions(schedule="nested"))
    assert not any(_prefetched(nested).values()) and "prefetch_span" not in nested.source
    off = translate_file(cu, TranslateOptions(disabled_passes=("block-prefetch",)))
    assert not any(_prefetched(off).values()) and "prefetch_span" not in off.source


def test_one_stream_summed_as_it_loads_is_left_to_the_hardware_prefetcher(tmp_path):
    # The SDK's integer tree: reassociate-reductions sums it as the one stream loads, one thread
    # stores the sum, and the next block's loads follow in the same stream: nothing to prefetch.
    # Kept as a tree (the pass off), the block works on shared memory after its loads.
    cu = tmp_path / "sdk.cu"
    cu.write_text("""
__global__ void sdk_tree(const int *g, int *out, int n)
{
    __shared__ int sdata[256];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < unsigned(n)) ? g[i] : 0;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}
int main() { sdk_tree<<<4, 256>>>(nullptr, nullptr, 0); return 0; }
""")
    assert _prefetched(translate_file(cu)) == {"sdk_tree": []}
    assert _prefetched(translate_file(cu, TranslateOptions(disabled_passes=("reassociate-reductions",)))) \
        == {"sdk_tree": ["g"]}
