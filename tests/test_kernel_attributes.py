"""MOCCUDA_KERNEL, before each function holding a kernel's thread loops: g++ keeps a copy over a
row of threads a loop (no memcpy call for 16 floats), and host code still gets its memset.
MOCCUDA_SUMMING_KERNEL, before one that sums a block as it loads it: g++ also unrolls that loop."""

from __future__ import annotations

import re

from support import compile_cpp, without_line_markers
from transpiler.translate import translate_file

SOURCE = """
#define TILE 16
__global__ void stage(const float *in, float *out, int n, int width)
{
    __shared__ float tile[TILE][TILE];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    if (x < width && y < n)
        tile[threadIdx.y][threadIdx.x] = in[y * width + x];
    __syncthreads();
    if (x < width && y < n)
        out[y * width + x] = tile[TILE - 1 - threadIdx.y][threadIdx.x];
}

void host_clear(float *dst, int n)
{
    for (int i = 0; i < n; i++)
        dst[i] = 0.0f;
}

int main()
{
    stage<<<dim3(4, 4), dim3(TILE, TILE)>>>(nullptr, nullptr, 64, 64);
    return 0;
}
"""


def _library_call_lines(source: str, tmp_path, extra: tuple[str, ...] = ()) -> set[int]:
    """The lines of the loops that g++ -O3 turns into memcpy or memset calls."""
    cpp = tmp_path / "rows.cpp"
    cpp.write_text(source)
    built = compile_cpp(cpp, tmp_path / "rows", ["-fopt-info-loop-optimized", *extra], opt="-O3")
    assert built.returncode == 0, built.stderr[-3000:]
    return {int(m.group(1)) for m in re.finditer(r"rows\.cpp:(\d+):\d+: optimized: Loop \d+ distributed: "
                                                 r"split to \d+ loops and [1-9]\d* library calls", built.stderr)}


def test_thread_loops_stay_loops_and_host_loops_call_memset(tmp_path):
    cu = tmp_path / "rows.cu"
    cu.write_text(SOURCE)
    source = without_line_markers(translate_file(cu).source)
    assert "MOCCUDA_KERNEL\nvoid stage(" in source
    lines = source.split("\n")
    kernel = next(i for i, line in enumerate(lines) if line.startswith("void stage(")) + 1
    host = next(i for i, line in enumerate(lines) if line.startswith("void host_clear(")) + 1

    def in_kernel(line: int) -> bool:
        return kernel <= line < host

    with_attribute = _library_call_lines(source, tmp_path)
    assert any(line > host for line in with_attribute), "the host loop should still be a memset call"
    assert not any(in_kernel(line) for line in with_attribute)
    # Without the attribute (-DMOCCUDA_KERNEL= opts out) g++ turns the tile's load into a call:
    # the test above can fail.
    without = _library_call_lines(source, tmp_path, ("-DMOCCUDA_KERNEL=",))
    assert any(in_kernel(line) for line in without)


BLOCK_SUM = """
__global__ void block_sum(const int *in, int *partial, int n)
{
    __shared__ int s[256];
    unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
    s[tid] = i < unsigned(n) ? in[i] : 0;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride)
            s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0)
        partial[blockIdx.x] = s[0];
}

__global__ void scale(const int *in, int *out, int n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < unsigned(n))
        out[i] = 3 * in[i];
}

long long host_sum(const int *partial, int blocks)
{
    long long total = 0;
    for (int b = 0; b < blocks; b++)
        total += partial[b];
    return total;
}

int main()
{
    block_sum<<<64, 256>>>(nullptr, nullptr, 64 * 256);
    scale<<<64, 256>>>(nullptr, nullptr, 64 * 256);
    return 0;
}
"""


def _unrolled_lines(source: str, tmp_path, opt: str = "-O3", extra: tuple[str, ...] = ()) -> set[int]:
    """The lines of the loops that g++ unrolls (a number of times, not completely)."""
    cpp = tmp_path / "sum.cpp"
    cpp.write_text(source)
    built = compile_cpp(cpp, tmp_path / "sum", ["-fopt-info-loop-optimized", *extra], opt=opt)
    assert built.returncode == 0, built.stderr[-3000:]
    return {int(m.group(1)) for m in re.finditer(r"sum\.cpp:(\d+):\d+: optimized: loop unrolled \d+ times", built.stderr)}


def test_block_sums_are_unrolled_and_other_loops_are_not(tmp_path):
    """A block's sum over its 256 threads (one load and one addition each) is unrolled, as nvcc
    unrolls device code: rolled, each block pays a mispredicted loop exit and the loop's place in
    the fetch lines decides its speed.  Other kernels and host code are compiled as before."""
    cu = tmp_path / "sum.cu"
    cu.write_text(BLOCK_SUM)
    source = without_line_markers(translate_file(cu).source)
    # The attribute goes before the function holding the thread loops (block_sum__team, where
    # launch-regions puts the two launches in one parallel region).
    assert re.search(r"MOCCUDA_SUMMING_KERNEL\n(static )?void block_sum(__team)?\(", source)
    assert re.search(r"MOCCUDA_KERNEL\n(static )?void scale(__team)?\(", source)
    lines = source.split("\n")
    summing = lines.index("MOCCUDA_SUMMING_KERNEL") + 1
    scaling = lines.index("MOCCUDA_KERNEL") + 1
    host = next(i for i, line in enumerate(lines) if line.startswith("long long host_sum(")) + 1
    assert summing < scaling < host
    unrolled = _unrolled_lines(source, tmp_path)
    assert any(summing <= line < scaling for line in unrolled), unrolled
    assert not any(line >= scaling for line in unrolled), unrolled
    # -DMOCCUDA_SUMMING_KERNEL= opts out, and -Os does not unroll: the test above can fail.
    assert not _unrolled_lines(source, tmp_path, extra=("-DMOCCUDA_SUMMING_KERNEL=",))
    assert not _unrolled_lines(source, tmp_path, opt="-Os")
