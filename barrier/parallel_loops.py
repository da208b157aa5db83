"""Pass ``parallel-loops``: a kernel becomes a parallel loop over blocks around a loop over threads.

Requires: a kernel straight from the front end.  Guarantees: the kernel body is one
:class:`~foundation.ir.GridLoop` whose body holds the per-block ``__shared__`` declarations
(hoisted from wherever they were written: they exist once per block; so do those declared at
namespace scope that the kernel names) and then one
:class:`~foundation.ir.ThreadLoop` with the rest of the body, barriers still in place.

Before::

    __global__ void k(float *a) {
        __shared__ float s[64];
        s[threadIdx.x] = a[threadIdx.x];
        __syncthreads();
        a[threadIdx.x] = s[63 - threadIdx.x];
    }

After::

    k: GridLoop {
        float s[64];
        ThreadLoop { s[threadIdx.x] = a[threadIdx.x]; Barrier; a[threadIdx.x] = s[63 - threadIdx.x]; }
    }
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from barrier.liveness import assigned_symbols, fresh_name
from foundation import ir
from foundation.diagnostics import CompileError, error
from foundation.passes import PassContext, map_kernels, register


def _is_shared(node: ir.Node) -> bool:
    return isinstance(node, ir.VarDecl) and node.storage in ("shared", "shared_dynamic")


def split_shared(body: ir.Stmt) -> tuple[ir.Stmt, list[ir.VarDecl]]:
    """Remove every ``__shared__`` declaration from ``body``; return the rest and the decls."""
    found: list[ir.VarDecl] = []
    removed = ir.Empty()

    def strip(node: ir.Node) -> ir.Node:
        if _is_shared(node):
            found.append(node)
            return removed
        if isinstance(node, ir.Block) and any(s is removed for s in node.stmts):
            return replace(node, stmts=tuple(s for s in node.stmts if s is not removed))
        return node

    stripped = ir.transform(body, strip)
    if stripped is removed:
        stripped = ir.Empty(loc=body.loc)
    names: dict[str, ir.VarDecl] = {}
    for decl in found:
        other = names.get(decl.name)
        if other is not None:
            raise CompileError([error(decl.loc, f"two __shared__ variables named '{decl.name}' in one "
                                      "kernel are not supported (rename one)")])
        names[decl.name] = decl
    return stripped, found


def with_namespace_shared(grid: ir.GridLoop, ctx: PassContext) -> ir.GridLoop:
    """``grid`` with a per-block declaration of each namespace-scope ``__shared__`` variable its
    body names and does not declare yet (static ones first in the body, ``extern`` ones bound to
    the launch's dynamic buffer): one copy per block, as CUDA has it, not one global shared by
    the OpenMP threads."""
    declared = {d.sym for d in grid.dynamic_shared} | {s.sym for s in grid.body.stmts if isinstance(s, ir.VarDecl)}
    used = [n.sym for n in grid.walk() if isinstance(n, ir.Name) and n.sym in ctx.namespace_shared]
    missing = [ctx.namespace_shared[sym] for sym in dict.fromkeys(used) if sym not in declared]
    if not missing:
        return grid
    # A kernel's own variable of the same name (`float buf = ns::buf[0];`) keeps its name; the
    # per-block one gets a fresh name.
    names = {n.name for n in grid.walk() if isinstance(n, (ir.Name, ir.VarDecl, ir.Param))
             and n.sym not in ctx.namespace_shared}
    renamed = {}
    for d in missing:
        if d.name in names:
            renamed[d.sym] = fresh_name(d.name, names)
    if renamed:
        missing = [replace(d, name=renamed.get(d.sym, d.name)) for d in missing]
        grid = ir.transform(grid, lambda n: replace(n, name=renamed[n.sym])
                            if isinstance(n, ir.Name) and n.sym in renamed else n)
    static = tuple(d for d in missing if d.storage == "shared")
    dynamic = tuple(d for d in missing if d.storage == "shared_dynamic")
    return replace(grid, body=replace(grid.body, stmts=static + grid.body.stmts),
                   dynamic_shared=grid.dynamic_shared + dynamic)


def _thread_copies_of_assigned_params(kernel: ir.Kernel, ctx: PassContext) -> ir.Stmt:
    """The kernel body, where each parameter the body assigns (or takes the address of) is a
    local copy of it: in CUDA every thread has its own parameters, while the lowered kernel's
    parameters are shared by the threads (and blocks) that run in one call, so a thread swapping
    its ``src``/``dst`` pointers would swap them for all."""
    assigned = assigned_symbols(kernel.body, ctx.device_bodies)
    params = [p for p in kernel.params if p.sym in assigned and "&" not in p.type]
    if not params:
        return kernel.body
    used = {n.name for n in kernel.walk() if isinstance(n, (ir.Name, ir.VarDecl, ir.Param))}
    copies: dict[int, ir.Name] = {}
    decls: list[ir.Stmt] = []
    for p in params:
        name = fresh_name(f"{p.name}_thread", used)
        copy = ir.Name(name, ctx.fresh_sym(name, p.type, "local", p.loc), loc=p.loc)
        copies[p.sym] = copy
        decls.append(ir.VarDecl(copy.sym, name, p.type, ir.Name(p.name, p.sym, loc=p.loc), loc=p.loc))

    def rename(n: ir.Node) -> ir.Node:
        if isinstance(n, ir.Name) and n.sym in copies:
            return replace(copies[n.sym], loc=n.loc)
        return n

    body = ir.as_block(ir.transform(kernel.body, rename))
    return replace(body, stmts=tuple(decls) + body.stmts)


@register
@dataclass(frozen=True)
class ParallelLoops:
    name = "parallel-loops"
    required = True

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program:
        return map_kernels(program, lambda k: self.kernel(k, ctx))

    def kernel(self, kernel: ir.Kernel, ctx: PassContext) -> ir.Kernel:
        ctx.report(kernel)
        if isinstance(kernel.body, ir.GridLoop):
            return kernel
        body, shared = split_shared(_thread_copies_of_assigned_params(kernel, ctx))
        static = tuple(d for d in shared if d.storage == "shared")
        dynamic = tuple(d for d in shared if d.storage == "shared_dynamic")
        thread_loop = ir.ThreadLoop(ir.as_block(body), loc=kernel.loc)
        grid = ir.GridLoop(ir.Block(static + (thread_loop,), loc=kernel.loc), dynamic,
                           binds_dynamic_shared=ctx.binds_dynamic_shared,
                           sets_ambient_index=ctx.sets_ambient_index, loc=kernel.loc)
        return replace(kernel, body=with_namespace_shared(grid, ctx))
