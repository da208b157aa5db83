"""Random race-free CUDA kernels for the differential soak (``python -m benchmarks.soak``).

Every kernel is race-free under CUDA's rules by construction, so that CUDA fixes its result:

- block exchanges go through ``s``: each starts with a barrier (the previous phase's readers are
  done), a thread writes only its own slot ``s[t]``, a second barrier, then it reads any slot;
- tree reductions over ``s``: in the round of stride ``st`` a writer ``t`` is a multiple of
  ``2 st`` and reads ``t + st``, which nobody writes in that round;
- a shared counter is written by thread 0 or by ``atomicAdd`` (commutative: the sum does not
  depend on the order) between barriers, and read only after the next barrier;
- warp exchanges go through ``w``, where a warp touches only its own 32 slots, between
  ``__syncwarp()``s;
- conditions around barriers are uniform over the block (block index, ``rounds``, loop counters,
  a shared counter read after a barrier); warp collectives (full mask) only in kernels whose
  blocks are whole warps, under conditions uniform over the warp, with no early return that could
  leave a warp partly exited;
- arithmetic is unsigned (wraparound is defined), so no floating-point reassociation.

A kernel is a list of source lines plus its launch shape; a program (:func:`program`) runs each
kernel of a list once and prints a hash of each one's output array, one line per kernel.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

#: The largest block (the shared arrays have one slot per thread).
MAX_THREADS = 256
#: Blocks of whole warps (warp collectives allowed) and blocks that are not.
WARP_SHAPES = [(64, 1, 1), (32, 2, 1), (16, 4, 1), (8, 8, 1), (128, 2, 1), (96, 1, 1), (8, 4, 2), (256, 1, 1),
               (32, 1, 1)]
OTHER_SHAPES = [(48, 1, 1), (7, 3, 1), (5, 5, 3), (100, 1, 1), (1, 1, 1), (17, 2, 1), (3, 4, 5)]

#: ``__device__`` helpers every program defines; kernels call them.  ``flat_tid`` and ``mix``
#: read ``threadIdx``; ``block_exchange`` synchronizes the block; ``warp_sum`` the warp.
HELPERS = r"""
__device__ unsigned flat_tid()
{
    return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}

__device__ unsigned mix(unsigned x, unsigned k)
{
    return x * k + threadIdx.x + 3u * blockIdx.x;
}

__device__ unsigned block_exchange(unsigned *s, unsigned x, unsigned k)
{
    __syncthreads();
    s[flat_tid()] = x;
    __syncthreads();
    return s[(flat_tid() + k) % (blockDim.x * blockDim.y * blockDim.z)];
}

__device__ unsigned warp_sum(unsigned x)
{
    for (unsigned o = 16; o > 0; o >>= 1)
        x += __shfl_xor_sync(0xffffffffu, x, o);
    return x;
}
"""


@dataclass
class Kernel:
    name: str
    lines: list[str]
    block: tuple[int, int, int]
    grid: int
    n: int
    rounds: int

    @property
    def source(self) -> str:
        return "\n".join(self.lines)

    @property
    def threads(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]


@dataclass
class _Scope:
    """What a statement may use: unsigned locals, the innermost loop counter, whether it is at the
    top (early returns allowed) and whether warp collectives are allowed."""

    names: tuple[str, ...]
    loop_var: str | None
    top: bool
    depth: int


@dataclass
class _Gen:
    rng: random.Random
    warps: bool  # the block is whole warps: warp collectives allowed
    count: int = 0
    counters: list[str] = field(default_factory=list)

    def fresh(self, base: str) -> str:
        self.count += 1
        return f"{base}{self.count}"

    def value(self, scope: _Scope) -> str:
        """An unsigned expression of the thread's values (no memory reads)."""
        r = self.rng
        a = r.choice(("v",) + scope.names)
        b = r.choice(("v", "t", "i", "blockIdx.x", "flat_tid()") + scope.names)
        k = r.randint(1, 9)
        form = r.choice(("{a} * {k}u + {b}", "({a} ^ {b}) + {k}u", "({a} >> 1) + {b} * {k}u", "{a} + ({b} & {k}u)",
                         "mix({a}, {k}u) + {b}", "({a} << ({b} & 7u)) | {k}u"))
        return form.format(a=a, b=b, k=k)

    def uniform(self, scope: _Scope) -> str:
        """A condition uniform over the block."""
        options = ["blockIdx.x % 2u == 0", "rounds > 1", "blockIdx.x + rounds < 3u", "gridDim.x > 2u"]
        if scope.loop_var:
            options += [f"{scope.loop_var} % 2u == 1u", f"{scope.loop_var} + blockIdx.x < 2u"]
        return self.rng.choice(options)

    def warp_uniform(self) -> str:
        """A condition uniform over each warp (not over the block)."""
        k = self.rng.randint(0, 3)
        return self.rng.choice((f"(t / 32u) % 2u == {k % 2}u", f"t / 32u != {k}u", f"(t >> 5) + blockIdx.x > {k}u",
                                f"(flat_tid() / 32u) % 3u == {k % 3}u"))

    def statements(self, scope: _Scope) -> list[str]:
        out: list[str] = []
        r = self.rng
        for _ in range(r.randint(1, 3)):
            kinds = ["exchange", "exchange", "local", "divergent", "array", "helper_exchange", "atomic"]
            if scope.depth < 2:
                kinds += ["for", "if", "while", "do", "reduce"]
            if self.warps:
                kinds += ["warp", "warp", "warp_exchange", "warp_helper"]
            if scope.loop_var is not None:
                kinds += ["jump"]
            if scope.top:
                kinds += ["return"]
            out += getattr(self, "_" + r.choice(kinds))(scope)
            if out and out[-1].startswith("unsigned "):
                name = out[-1].split()[1]
                scope = _Scope(scope.names + (name,), scope.loop_var, scope.top, scope.depth)
        return out

    # Statement kinds -------------------------------------------------------------------------

    def _exchange(self, scope):
        k = self.rng.randint(0, 5)
        read = self.rng.choice((f"s[(t + {k}u) % nt]", "s[nt - 1u - t]", f"s[(t * {2 * k + 1}u) % nt]"))
        return ["__syncthreads();", f"s[t] = {self.value(scope)};", "__syncthreads();", f"v = v * 3u + {read};"]

    def _helper_exchange(self, scope):
        return [f"v = v * 5u + block_exchange(s, {self.value(scope)}, {self.rng.randint(0, 7)}u);"]

    def _reduce(self, scope):
        st = self.fresh("st")
        return ["__syncthreads();", f"s[t] = {self.value(scope)};", "__syncthreads();",
                f"for (unsigned {st} = 1; {st} < nt; {st} *= 2u) {{",
                f"    if (t % (2u * {st}) == 0 && t + {st} < nt) {{",
                f"        s[t] += s[t + {st}];", "    }", "    __syncthreads();", "}", "v += s[0];"]

    def _atomic(self, scope):
        c = self.fresh("a")
        self.counters.append(c)
        return ["__syncthreads();", f"if (t == 0) {{", f"    {c} = 0;", "}", "__syncthreads();",
                f"atomicAdd(&{c}, ({self.value(scope)}) & 15u);", "__syncthreads();", f"v ^= {c};"]

    def _local(self, scope):
        return [f"unsigned {self.fresh('w')} = {self.value(scope)};"]

    def _array(self, scope):
        arr, j = self.fresh("arr"), self.fresh("j")
        size = self.rng.randint(2, 5)
        return [f"unsigned {arr}[{size}];", f"for (unsigned {j} = 0; {j} < {size}u; ++{j}) {{",
                f"    {arr}[{j}] = {self.value(scope)} + {j};", "}", "__syncthreads();",
                f"v += {arr}[(t + v) % {size}u] * 7u + {arr}[{size - 1}];"]

    def _divergent(self, scope):
        m = self.rng.randint(2, 4)
        tid = self.rng.choice(("t", "flat_tid()", "threadIdx.x"))
        return [f"if ({tid} % {m}u == {self.rng.randint(0, m - 1)}u) {{", f"    v = {self.value(scope)};", "}"]

    def _for(self, scope):
        r = self.fresh("r")
        bound = self.rng.choice(("rounds", "2u", "3u", "rounds + 1u"))
        body = self.statements(_Scope(scope.names + (r,), r, False, scope.depth + 1))
        return [f"for (unsigned {r} = 0; {r} < {bound}; ++{r}) {{"] + _indent(body) + ["}"]

    def _if(self, scope):
        inner = _Scope(scope.names, scope.loop_var, scope.top, scope.depth + 1)
        then, other = self.statements(inner), self.statements(inner)
        return [f"if ({self.uniform(scope)}) {{"] + _indent(then) + ["} else {"] + _indent(other) + ["}"]

    def _while(self, scope):
        it = self.fresh("it")
        body = self.statements(_Scope(scope.names, None, False, scope.depth + 1))
        return [f"unsigned {it} = 0;", f"while ({it} < rounds) {{"] + _indent(body + [f"++{it};"]) + ["}"]

    def _do(self, scope):
        c = self.fresh("c")
        self.counters.append(c)
        body = self.statements(_Scope(scope.names, None, False, scope.depth + 1))
        return (["__syncthreads();", f"if (t == 0) {{", f"    {c} = 0;", "}", "__syncthreads();", "do {"]
                + _indent(body + ["__syncthreads();", "if (t == 0) {", f"    {c} += 1;", "}", "__syncthreads();"])
                + [f"}} while ({c} < rounds);"])

    def _jump(self, scope):
        jump = self.rng.choice(("break", "continue"))
        return [f"if ({scope.loop_var} == {self.rng.randint(0, 2)}u) {{", f"    {jump};", "}"]

    def _return(self, scope):
        if self.warps:  # whole warps leave, or none: full-mask collectives stay defined
            cond = self.rng.choice(("blockIdx.x == 1u", "t / 32u == 1u", "blockIdx.x + 1u == gridDim.x"))
        else:
            cond = self.rng.choice(("i >= n", "t % 5u == 3u", "blockIdx.x == 1u", "flat_tid() == 2u"))
        return [f"if ({cond}) {{", "    return;", "}"]

    def _warp(self, scope):
        r = self.rng
        k = r.randint(1, 31)
        op = r.choice((f"__shfl_xor_sync(0xffffffffu, v, {1 << r.randint(0, 4)}u)",
                       f"__shfl_down_sync(0xffffffffu, v, {k}u)", f"__shfl_up_sync(0xffffffffu, v, {k}u)",
                       f"__shfl_sync(0xffffffffu, v, {k}u)", f"__shfl_sync(0xffffffffu, v, (t + {k}u) % 32u)",
                       f"__popc(__ballot_sync(0xffffffffu, (v & {k}u) != 0))",
                       f"(unsigned)__any_sync(0xffffffffu, v % {k + 2}u == 0)",
                       f"(unsigned)__all_sync(0xffffffffu, v % {k + 2}u != 0)",
                       "__reduce_add_sync(0xffffffffu, v)", "__reduce_max_sync(0xffffffffu, v)",
                       "__shfl_xor_sync(0xffffffffu, v, 4u, 8)"))
        stmt = f"v = v * 7u + {op};"
        if r.random() < 0.6:
            return [f"if ({self.warp_uniform()}) {{", "    " + stmt, "}"]
        return [stmt]

    def _warp_helper(self, scope):
        stmt = f"v += warp_sum({self.value(scope)});"
        if self.rng.random() < 0.5:
            return [f"if ({self.warp_uniform()}) {{", "    " + stmt, "}"]
        return [stmt]

    def _warp_exchange(self, scope):
        k = self.rng.randint(1, 31)
        lines = ["__syncwarp();", f"w[t] = {self.value(scope)};", "__syncwarp();",
                 f"v = v * 11u + w[(t & ~31u) | ((t + {k}u) & 31u)];"]
        if self.rng.random() < 0.5:
            return [f"if ({self.warp_uniform()}) {{"] + _indent(lines) + ["}"]
        return lines


def _indent(lines: list[str]) -> list[str]:
    return ["    " + line for line in lines]


def kernel(rng: random.Random, name: str) -> Kernel:
    """One random kernel called ``name``."""
    warps = rng.random() < 0.5
    bx, by, bz = rng.choice(WARP_SHAPES if warps else OTHER_SHAPES)
    threads = bx * by * bz
    gen = _Gen(rng, warps and threads % 32 == 0)
    tid = rng.choice(("flat_tid()", "(threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x"))
    body = gen.statements(_Scope((), None, True, 0))
    n = rng.randint(1, 3 * threads + 5)
    grid = (n + threads - 1) // threads + rng.randint(0, 1)
    lines = [f"__global__ void {name}(const unsigned *in, unsigned *out, unsigned n, unsigned rounds)", "{",
             f"    __shared__ unsigned s[{MAX_THREADS}];"]
    if gen.warps:
        lines.append(f"    __shared__ unsigned w[{MAX_THREADS}];")
    lines += [f"    __shared__ unsigned {c};" for c in gen.counters]
    lines += ["    unsigned nt = blockDim.x * blockDim.y * blockDim.z;",
              f"    unsigned t = {tid};",
              "    unsigned i = blockIdx.x * nt + t;",
              "    unsigned v = i < n ? in[i] : 7u * t;",
              "    s[t] = t;  // every slot is written before any thread can return",
              "    __syncthreads();"]
    lines += _indent(body)
    lines += ["    if (i < n) {", "        out[i] = v;", "    }", "}"]
    return Kernel(name, lines, (bx, by, bz), grid, n, rng.randint(1, 3))


def kernels(seed: int, count: int, prefix: str = "k") -> list[Kernel]:
    """``count`` kernels drawn from ``seed`` (the same seed gives the same kernels)."""
    rng = random.Random(seed)
    return [kernel(rng, f"{prefix}{j}") for j in range(count)]


def program(ks: list[Kernel]) -> str:
    """The helpers, the kernels and a main that runs each once and prints a hash of its output."""
    size = max(k.grid * k.threads for k in ks)
    main = ["int main()", "{",
            f"    static unsigned in[{size}], out[{size}];",
            f"    for (unsigned j = 0; j < {size}u; ++j) in[j] = j * 2654435761u + 12345u;",
            "    unsigned *din, *dout;",
            "    cudaMalloc(&din, sizeof in);",
            "    cudaMalloc(&dout, sizeof out);",
            "    cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice);"]
    for k in ks:
        bx, by, bz = k.block
        main += ["    for (unsigned j = 0; j < sizeof out / sizeof *out; ++j) out[j] = 0xdeadbeefu;",
                 "    cudaMemcpy(dout, out, sizeof out, cudaMemcpyHostToDevice);",
                 f"    {k.name}<<<{k.grid}, dim3({bx}, {by}, {bz})>>>(din, dout, {k.n}u, {k.rounds}u);",
                 "    cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);",
                 "    {",
                 "        unsigned long long h = 1469598103934665603ull;",
                 "        for (unsigned j = 0; j < sizeof out / sizeof *out; ++j) h = (h ^ out[j]) * 1099511628211ull;",
                 f"        printf(\"{k.name} %016llx %u\\n\", h, out[{k.n - 1}]);",
                 "    }"]
    main += ["    return 0;", "}"]
    head = ["#include <cstdio>", "#include <cuda_runtime.h>", HELPERS]
    return "\n".join(head + ["\n\n".join(k.source for k in ks), ""] + main) + "\n"
