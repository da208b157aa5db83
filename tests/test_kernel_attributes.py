"""MOCCUDA_KERNEL, before each function holding a kernel's thread loops: g++ keeps a copy over a
row of threads a loop (no memcpy call for 16 floats), and host code still gets its memset."""

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
