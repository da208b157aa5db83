"""Pass wide-subscripts: which subscripts are computed in 64 bits, that the programs still give
the host's results (also where an unsigned subscript really wraps, and the block's test sends
the loop back to 32-bit arithmetic), and that gcc vectorizes the loops it makes."""

from __future__ import annotations

import re

from support import PROGRAMS, assert_passes_per_schedule, compile_cpp, without_line_markers
from foundation.options import TranslateOptions
from transpiler.translate import translate_file

WIDE = PROGRAMS / "openmp" / "wide_subscripts.cu"


def _widened(result) -> dict[str, list[str]]:
    return {k["name"]: sorted(w["subscript"] for w in k["widened"]) for k in result.explain["kernels"]}


def test_subscripts_through_unsigned_arithmetic_are_widened():
    widened = _widened(translate_file(WIDE))
    assert widened["tile_update"] == sorted(["(offset + threadIdx.y) * n + global_col + threadIdx.x",
                                             "(global_row + threadIdx.y) * n + offset + threadIdx.x",
                                             "(global_row + threadIdx.y) * n + global_col + threadIdx.x"])
    assert widened["wrapped"] == widened["wrapped_inside"] == ["base + threadIdx.x"]
    assert widened["previous"] == ["i", "i - 1u"]
    # int arithmetic on what unsigned arithmetic computed: gcc does not follow it either
    assert widened["shifted_signed"] == sorted(["i", "(int)(blockIdx.x * 64u + threadIdx.x) - shift"])
    assert widened["pairs"] == ["2u * i", "2u * i + 1u", "i"]
    # The shared tiles' own subscripts are the thread index itself: nothing to widen.
    assert not any("row[" in s or "col[" in s for s in widened["tile_update"])
    off = translate_file(WIDE, TranslateOptions(disabled_passes=("wide-subscripts",)))
    assert not any(_widened(off).values()) and "subscript_exact" not in off.source


def test_programs_give_the_host_results_also_where_a_subscript_wraps(tmp_path):
    for result in assert_passes_per_schedule(WIDE, tmp_path, ("auto", "blocks")).values():
        assert result.source.count("moccuda::subscript_exact<") >= 5


def test_gcc_vectorizes_the_widened_loops(tmp_path):
    # Without the pass gcc leaves these loops scalar ("evolution of base is not affine": the
    # unsigned subscript may wrap between threads); each copy the pass makes must vectorize.
    source = without_line_markers(translate_file(WIDE, TranslateOptions(schedule="blocks")).source)
    cpp = tmp_path / "wide.cpp"
    cpp.write_text(source)
    built = compile_cpp(cpp, tmp_path / "wide", ["-fopt-info-vec-optimized"], opt="-O3")
    assert built.returncode == 0, built.stderr
    vectorized = {int(m.group(1)) for m in re.finditer(r"wide\.cpp:(\d+):\d+: optimized: loop vectorized",
                                                       built.stderr)}
    lines = source.split("\n")
    copies = [i + 1 for i, line in enumerate(lines) if "the same loop, whose subscripts gcc follows" in line]
    kernels = {}
    for copy in copies:
        kernel = next(line for line in reversed(lines[:copy]) if line.startswith("void "))
        end = next(j for j in range(copy, len(lines)) if lines[j].strip() == "} else {")
        kernels[kernel.split("(")[0].removeprefix("void ")] = any(copy <= n <= end + 1 for n in vectorized)
    # wrapped's one store per thread is scalar in either copy (16 of 32 threads), as is
    # wrapped_inside's behind a guard read from memory.
    assert {k: v for k, v in kernels.items() if not k.startswith("wrapped")} == \
        {"tile_update": True, "previous": True, "shifted_signed": True, "pairs": True}, built.stderr[-3000:]


def test_subscripts_whose_exact_value_could_outgrow_the_test_are_left(tmp_path):
    # The block's test computes on 128-bit integers: a thread index times three variables, or a
    # 64-bit part, could leave that range, so those subscripts stay as written.
    cu = tmp_path / "deep.cu"
    cu.write_text("""
__global__ void deep(float *a, unsigned p, unsigned q, unsigned r)
{
    a[threadIdx.y * p * q * r + threadIdx.x] = 1.0f;
    a[threadIdx.y * p * q + threadIdx.x + 7u] = 2.0f;
}
__global__ void wide_part(float *a, long long big)
{
    a[(unsigned)(big + threadIdx.x)] = 1.0f;
    a[(unsigned)big + threadIdx.x] = 2.0f;
}
int main() { return 0; }
""")
    assert _widened(translate_file(cu)) == {"deep": ["threadIdx.y * p * q + threadIdx.x + 7u"],
                                            "wide_part": ["(unsigned int)big + threadIdx.x"]}


def test_an_arm_that_a_folded_guard_decides_is_evaluated_by_every_thread(tmp_path):
    # In the blocks where every thread passes `i < n`, guard-folding leaves `true ? g[i] : 0`:
    # every thread of that version reads g[i], which is widened there (the SDK reduction's load).
    # A subscript in an arm left undecided is not: a thread that skips it need not compute it.
    cu = tmp_path / "load.cu"
    cu.write_text("""
__global__ void load(const int *g, int *out, unsigned n)
{
    __shared__ int s[256];
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = (i < n) ? g[i] : 0;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[255 - threadIdx.x];
}
__global__ void undecided(const int *g, int *out, const int *take)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[threadIdx.x] = take[threadIdx.x] ? g[i] : 0;
}
int main() { load<<<4, 256>>>(nullptr, nullptr, 0); undecided<<<4, 256>>>(nullptr, nullptr, nullptr); return 0; }
""")
    result = translate_file(cu, TranslateOptions(schedule="blocks"))
    widened = _widened(result)
    assert "i" in widened["load"]
    assert "i" not in widened["undecided"]
