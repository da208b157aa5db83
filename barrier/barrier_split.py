"""Pass ``barrier-split``: split the thread loop at each barrier standing at its top level.

Requires: ``parallel-loops``.  Guarantees: no thread loop contains a top-level barrier; the code
between two barriers becomes its own thread loop, run for all threads of the block before the
next one starts, which is exactly the ordering ``__syncthreads()`` promises.  A variable declared
before a barrier and used after it is kept per thread, in per-block storage indexed by the flat
thread id, and each thread loop binds the variable's name to its thread's element.  A thread that
returns before a barrier is marked, and later thread loops skip it.

Before::

    ThreadLoop { int v = a[threadIdx.x]; s[threadIdx.x] = v; Barrier; b[threadIdx.x] = v + s[0]; }

After::

    int v_per_thread[1024];
    ThreadLoop(kept v) { v = a[threadIdx.x]; s[threadIdx.x] = v; }
    ThreadLoop(kept v) { b[threadIdx.x] = v + s[0]; }

Barriers nested in control flow are left for ``barrier-interchange``; whatever barrier remains
after the pipeline is an error at that barrier.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from barrier.liveness import contains_return, per_thread_array_type, top_level_decls, used_symbols
from transpiler import ir
from transpiler.diagnostics import unsupported
from transpiler.passes import KernelReport, PassContext, map_kernels, register

#: CUDA's limit on threads per block; per-thread storage is sized for it.
MAX_THREADS_PER_BLOCK = 1024


def split_segments(stmts: tuple[ir.Stmt, ...]) -> tuple[list[list[ir.Stmt]], list[ir.Barrier]]:
    segments: list[list[ir.Stmt]] = [[]]
    barriers: list[ir.Barrier] = []
    for s in stmts:
        if isinstance(s, ir.Barrier):
            barriers.append(s)
            segments.append([])
        else:
            segments[-1].append(s)
    return segments, barriers


def _declared_names(kernel_body: ir.Node) -> set[str]:
    names = set()
    for n in kernel_body.walk():
        if isinstance(n, (ir.VarDecl, ir.Param)):
            names.add(n.name)
        elif isinstance(n, ir.Name):
            names.add(n.name)
    return names


@register
@dataclass(frozen=True)
class BarrierSplit:
    name = "barrier-split"
    required = True

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program:
        return map_kernels(program, lambda k: self.kernel(k, ctx))

    def kernel(self, kernel: ir.Kernel, ctx: PassContext) -> ir.Kernel:
        grid = ir.grid_loop(kernel)
        assert grid is not None, "barrier-split runs after parallel-loops"
        used_names = _declared_names(kernel)
        for p in kernel.params:
            used_names.add(p.name)
        report = ctx.report(kernel)
        new_stmts: list[ir.Stmt] = []
        for s in grid.body.stmts:
            if isinstance(s, ir.ThreadLoop) and ir.contains(s, ir.Barrier):
                new_stmts.extend(self.split(s, ctx, report, used_names))
            else:
                new_stmts.append(s)
        return ir.replace_grid_loop(kernel, replace(grid, body=replace(grid.body, stmts=tuple(new_stmts))))

    def split(self, loop: ir.ThreadLoop, ctx: PassContext, report: KernelReport,
              used_names: set[str]) -> list[ir.Stmt]:
        segments, barriers = split_segments(loop.body.stmts)
        for seg in segments:
            for s in seg:
                nested = next((n for n in s.walk() if isinstance(n, ir.Barrier)), None)
                if nested is not None:
                    raise unsupported(nested.loc, "__syncthreads() inside control flow")
        declared_in = {}
        for i, seg in enumerate(segments):
            for sym, decl in top_level_decls(seg).items():
                declared_in[sym] = (i, decl)
        uses = [used_symbols(ir.Block(tuple(seg))) for seg in segments]

        kept: dict[int, ir.KeptVar] = {}
        storage_decls: list[ir.Stmt] = []
        for sym, (i, decl) in declared_in.items():
            if not any(sym in uses[j] for j in range(i + 1, len(segments))):
                continue
            if decl.type.endswith("&") or "&&" in decl.type:
                raise unsupported(decl.loc, "a reference variable that lives across __syncthreads()")
            storage_name = _fresh(f"{decl.name}_per_thread", used_names)
            storage_type = per_thread_array_type(decl.type, MAX_THREADS_PER_BLOCK)
            storage_sym = ctx.fresh_sym(storage_name, storage_type, "local", decl.loc)
            storage_decls.append(ir.VarDecl(storage_sym, storage_name, storage_type, loc=decl.loc))
            kept[sym] = ir.KeptVar(sym, decl.name, decl.type, storage_name, loc=decl.loc)

        for k, barrier in enumerate(barriers):
            live = sorted({kv.name for sym, kv in kept.items()
                           if declared_in[sym][0] <= k and any(sym in uses[j] for j in range(k + 1, len(segments)))})
            report.barriers.append({"line": barrier.loc.line, "column": barrier.loc.column,
                                    "action": "kept", "reason": "lowered by splitting the thread loop"})
            report.kept_values.append({"barrier_line": barrier.loc.line, "names": live})

        returns = [contains_return(seg) for seg in segments]
        first_return = next((i for i, r in enumerate(returns[:-1]) if r), None)
        exit_flag = ""
        if first_return is not None:
            exit_flag = _fresh("exited", used_names)
            flag_sym = ctx.fresh_sym(exit_flag, f"bool[{MAX_THREADS_PER_BLOCK}]", "local", loop.loc)
            storage_decls.append(ir.VarDecl(flag_sym, exit_flag, f"bool[{MAX_THREADS_PER_BLOCK}]",
                                            ir.InitList(()), loc=loop.loc))

        loops: list[ir.Stmt] = []
        for j, seg in enumerate(segments):
            body = [self._rewrite_kept_decl(s, kept) for s in seg]
            body = [s for s in body if s is not None]
            if not body:
                continue
            touched = tuple(kv for sym, kv in kept.items() if sym in uses[j] or declared_in[sym][0] == j)
            loops.append(ir.ThreadLoop(
                ir.Block(tuple(body), loc=loop.body.loc), touched,
                exit_flag=exit_flag,
                marks_exit=bool(exit_flag) and returns[j] and j < len(segments) - 1,
                skip_exited=first_return is not None and j > first_return,
                loc=(seg[0].loc if seg else loop.loc)))
        return storage_decls + loops

    @staticmethod
    def _rewrite_kept_decl(s: ir.Stmt, kept: dict[int, ir.KeptVar]) -> ir.Stmt | None:
        if not (isinstance(s, ir.VarDecl) and s.sym in kept):
            return s
        if s.init is None:
            return None
        if isinstance(s.init, ir.InitList):
            raise unsupported(s.loc, "an initializer list on a variable that lives across __syncthreads()")
        return ir.ExprStmt(ir.Assign("=", ir.Name(s.name, s.sym, loc=s.loc), s.init, loc=s.loc), loc=s.loc)


def _fresh(base: str, used: set[str]) -> str:
    name = base
    while name in used:
        name += "_"
    used.add(name)
    return name
