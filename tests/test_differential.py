"""Differential test of the barrier lowerings: random structured kernels with barriers (hypothesis)
translated with the split lowering (every optimization on) and with the fiber fallback lowering
(the reference: optimizations off) must print the same results.

The generated kernels are race-free by construction, so that CUDA fixes their results: a thread
writes only its own slot of the shared array between two barriers and reads its neighbours' only
in the next phase; conditions around barriers are uniform over the block (block index, launch
parameters, loop counters, a shared counter); values stay live across barriers; threads return
early (before any barrier of a loop); block shapes do and do not divide the problem size, with
blocks entirely past its end.  Arithmetic is unsigned (wraparound is defined).  Several kernels go
into one program, so one g++ build serves several examples.  A failing example's CUDA source is in
the assertion message, ready for tests/programs/barriers.
"""

from __future__ import annotations

import os
import subprocess

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from support import compile_cpp
from foundation.options import TranslateOptions
from transpiler.translate import translate_file

#: The largest block the generator uses (the shared array has one slot per thread).
MAX_THREADS = 256
BLOCK_SHAPES = [(64, 1), (32, 2), (48, 1), (16, 4), (8, 8), (96, 1), (128, 2), (7, 3)]
KERNELS_PER_PROGRAM = 3
OPTIMIZATIONS = ("barrier-elim", "barrier-motion", "store-forward", "parallel-licm")


class Names:
    """Fresh names for one kernel, and the ``__shared__`` counters it declares."""

    def __init__(self) -> None:
        self.count = 0
        self.shared: list[str] = []

    def fresh(self, base: str) -> str:
        self.count += 1
        return f"{base}{self.count}"


def _indent(lines: list[str]) -> list[str]:
    return ["    " + line for line in lines]


@st.composite
def value(draw, scope: tuple[str, ...]) -> str:
    """An unsigned expression of the thread's values (no memory reads)."""
    a = draw(st.sampled_from(("v",) + scope))
    b = draw(st.sampled_from(("v", "t", "i", "blockIdx.x") + scope))
    k = draw(st.integers(1, 9))
    form = draw(st.sampled_from(("{a} * {k}u + {b}", "({a} ^ {b}) + {k}u", "({a} >> 1) + {b} * {k}u",
                                 "{a} + ({b} & {k}u)")))
    return form.format(a=a, b=b, k=k)


@st.composite
def statements(draw, names: Names, scope: tuple[str, ...], depth: int, loop_var: str | None,
               top: bool) -> list[str]:
    """A list of statements; ``loop_var`` is the counter of the innermost ``for`` (break and
    continue may test it), ``top`` says no loop encloses them (early returns allowed)."""
    out: list[str] = []
    scope = tuple(scope)
    for _ in range(draw(st.integers(1, 3))):
        kinds = ["exchange", "exchange", "local", "divergent"]
        if depth < 2:
            kinds += ["for", "if", "while", "do"]
        if loop_var is not None:
            kinds += ["jump"]
        if top:
            kinds += ["return"]
        kind = draw(st.sampled_from(kinds))
        if kind == "exchange":
            k = draw(st.integers(0, 5))
            out += ["__syncthreads();",
                    f"s[t] = {draw(value(scope))};",
                    "__syncthreads();",
                    f"v = v * 3u + s[(t + {k}u) % nt];"]
        elif kind == "local":
            name = names.fresh("w")
            out.append(f"unsigned {name} = {draw(value(scope))};")
            scope += (name,)
        elif kind == "divergent":
            m = draw(st.integers(2, 4))
            out += [f"if (t % {m}u == {draw(st.integers(0, m - 1))}u) {{",
                    f"    v = {draw(value(scope))};", "}"]
        elif kind == "for":
            r = names.fresh("r")
            bound = draw(st.sampled_from(("rounds", "2", "3", "rounds + 1")))
            body = draw(statements(names, scope + (r,), depth + 1, r, False))
            out += [f"for (unsigned {r} = 0; {r} < {bound}; ++{r}) {{"] + _indent(body) + ["}"]
        elif kind == "if":
            cond = draw(st.sampled_from(("blockIdx.x % 2u == 0", "rounds > 1", "blockIdx.x + rounds < 3u")))
            then = draw(statements(names, scope, depth + 1, loop_var, top))
            other = draw(statements(names, scope, depth + 1, loop_var, top))
            out += [f"if ({cond}) {{"] + _indent(then) + ["} else {"] + _indent(other) + ["}"]
        elif kind == "while":
            it = names.fresh("it")
            body = draw(statements(names, scope, depth + 1, None, False))
            out += [f"unsigned {it} = 0;", f"while ({it} < rounds) {{"] + _indent(body + [f"++{it};"]) + ["}"]
        elif kind == "do":
            c = names.fresh("c")
            names.shared.append(c)
            body = draw(statements(names, scope, depth + 1, None, False))
            out += ["__syncthreads();", f"if (t == 0) {c} = 0;", "__syncthreads();", "do {"]
            out += _indent(body + ["__syncthreads();", f"if (t == 0) {c} += 1;", "__syncthreads();"])
            out += [f"}} while ({c} < rounds);"]
        elif kind == "jump":
            jump = draw(st.sampled_from(("break", "continue")))
            out += [f"if ({loop_var} == {draw(st.integers(0, 2))}u) {{", f"    {jump};", "}"]
        else:
            cond = draw(st.sampled_from(("i >= n", "t % 5u == 3u", "blockIdx.x == 1u")))
            out += [f"if ({cond}) {{", "    return;", "}"]
    return out


@st.composite
def kernels(draw, index: int) -> dict:
    names = Names()
    body = draw(statements(names, (), 0, None, True))
    bx, by = draw(st.sampled_from(BLOCK_SHAPES))
    threads = bx * by
    n = draw(st.integers(1, 3 * threads + 5))
    grid = (n + threads - 1) // threads + draw(st.integers(0, 1))
    rounds = draw(st.integers(1, 3))
    lines = [f"__global__ void gen{index}(const unsigned *in, unsigned *out, unsigned n, unsigned rounds)", "{",
             f"    __shared__ unsigned s[{MAX_THREADS}];"]
    lines += [f"    __shared__ unsigned {c};" for c in names.shared]
    lines += ["    unsigned nt = blockDim.x * blockDim.y;",
              "    unsigned t = threadIdx.y * blockDim.x + threadIdx.x;",
              "    unsigned i = blockIdx.x * nt + t;",
              "    unsigned v = i < n ? in[i] : 7u * t;",
              "    s[t] = t;  // every slot is written before any thread can return",
              "    __syncthreads();"]
    lines += _indent(body)
    lines += ["    if (i < n) {", "        out[i] = v;", "    }", "}"]
    return {"name": f"gen{index}", "source": "\n".join(lines), "block": (bx, by), "grid": grid, "n": n,
            "rounds": rounds}


def program(ks: list[dict]) -> str:
    """The kernels and a main that runs each once and prints a hash of its output array."""
    size = max(k["grid"] * k["block"][0] * k["block"][1] for k in ks)
    main = ["int main()", "{",
            f"    static unsigned in[{size}], out[{size}];",
            f"    for (unsigned j = 0; j < {size}; ++j) in[j] = j * 2654435761u + 12345u;",
            "    unsigned *din, *dout;",
            "    cudaMalloc(&din, sizeof in);",
            "    cudaMalloc(&dout, sizeof out);",
            "    cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice);"]
    for k in ks:
        bx, by = k["block"]
        main += ["    for (unsigned j = 0; j < sizeof out / sizeof *out; ++j) out[j] = 0xdeadbeefu;",
                 "    cudaMemcpy(dout, out, sizeof out, cudaMemcpyHostToDevice);",
                 f"    {k['name']}<<<{k['grid']}, dim3({bx}, {by})>>>(din, dout, {k['n']}u, {k['rounds']}u);",
                 "    cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);",
                 "    {",
                 "        unsigned long long h = 1469598103934665603ull;",
                 "        for (unsigned j = 0; j < sizeof out / sizeof *out; ++j) h = (h ^ out[j]) * 1099511628211ull;",
                 f"        printf(\"{k['name']} %llx %u %u\\n\", h, out[0], out[{k['n'] - 1}]);",
                 "    }"]
    main += ["    return 0;", "}"]
    head = ["#include <cstdio>", "#include <cuda_runtime.h>", ""]
    return "\n".join(head + ["\n\n".join(k["source"] for k in ks), ""] + main) + "\n"


def build_and_run(cu, workdir, options: TranslateOptions, tag: str) -> str:
    result = translate_file(cu, options)
    cpp = workdir / f"{tag}.cpp"
    cpp.write_text(result.source)
    exe = workdir / tag
    built = compile_cpp(cpp, exe, opt="-O0")
    assert built.returncode == 0, built.stderr[-3000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, OMP_NUM_THREADS="2"))
    assert run.returncode == 0, run.stderr
    return run.stdout


@settings(max_examples=5, derandomize=True, deadline=None, database=None,
          phases=(Phase.explicit, Phase.generate),  # no shrinking: each example costs two g++ builds
          suppress_health_check=list(HealthCheck))
@given(st.tuples(*(kernels(j) for j in range(KERNELS_PER_PROGRAM))))
def test_split_lowering_matches_the_fiber_fallback(tmp_path_factory, ks):
    workdir = tmp_path_factory.mktemp("differential")
    source = program(list(ks))
    cu = workdir / "generated.cu"
    cu.write_text(source)
    try:
        split = build_and_run(cu, workdir, TranslateOptions(lowering="split"), "split")
        reference = build_and_run(cu, workdir, TranslateOptions(lowering="fallback", disabled_passes=OPTIMIZATIONS),
                                  "fallback")
    except Exception as exc:  # the source is what a reader needs to reproduce it
        pytest.fail(f"{type(exc).__name__}: {exc}\n--- generated CUDA source ---\n{source}")
    assert split == reference, f"--- generated CUDA source ---\n{source}"
    assert split.count("\n") == KERNELS_PER_PROGRAM
