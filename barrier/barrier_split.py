"""Pass ``barrier-split``: give values that cross a split point a home (paper Sec. III-B, Fig. 6).

Requires: ``barrier-interchange`` (the block body is block-level code and thread loops with no
barriers left).  A variable declared in one thread loop and used in another lives across a split
point: all threads finish the first loop before the second starts, so each thread's value must
survive.  It is either

* **kept**: stored in per-block storage indexed by the flat thread id (one array per variable,
  sized for the largest block, declared once per block: no allocation per launch), and each
  thread loop that touches it binds its name to the thread's element by reference; or
* **recomputed**: its declaration is repeated at the top of the thread loops that use it.

A minimum cut (networkx) over the graph of these values chooses: a value that cannot be
recomputed (it loads memory that may have been written in between, calls a function that is
not pure, or is assigned after its declaration) is joined to the source, a use in a later thread
loop to the sink, and each value costs one stored array; the cut stores the fewest.  For the
paper's Fig. 6, where ``x`` and ``y`` are loads and ``a``, ``b``, ``c`` computed from them are used
after the barrier, it keeps ``x`` and ``y`` and recomputes ``a``, ``b`` and ``c``.

A thread that returns early is marked in a per-block flag array, and later thread loops skip it.

Before::

    ThreadLoop { int v = a[threadIdx.x]; int w = v * 2; s[threadIdx.x] = v; }
    ThreadLoop { b[threadIdx.x] = w + s[0]; }

After::

    int v_per_thread[1024];
    ThreadLoop(kept v) { v = a[threadIdx.x]; int w = v * 2; s[threadIdx.x] = v; }
    ThreadLoop(kept v) { int w = v * 2; b[threadIdx.x] = w + s[0]; }
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace


from barrier.accesses import reads_memory_or_changes_state
from barrier.kernel_facts import kernel_facts
from barrier.liveness import assigned_symbols, fresh_name, per_thread_storage_type, used_symbols, without_unused_decls
from foundation import ir
from foundation.diagnostics import CompileError, error
from foundation.passes import PassContext, map_kernels, register, split_unsupported

#: CUDA's limit on threads per block; per-thread storage is sized for it.
MAX_THREADS_PER_BLOCK = 1024


def thread_loops(node: ir.Node) -> list[ir.ThreadLoop]:
    """The thread loops of a block body, in program order."""
    return [n for n in node.walk() if isinstance(n, ir.ThreadLoop)]


def recomputable(init: ir.Expr, values: set[int], params: set[int]) -> bool:
    """Can ``init`` be evaluated again in a later thread loop with the same result?  It reads no
    memory, calls only pure functions, and reads only builtins, parameters never assigned, and
    ``values`` (immutable locals, themselves kept or recomputed)."""
    for n in init.walk():
        if reads_memory_or_changes_state(n):
            return False
        if isinstance(n, ir.Name) and n.sym not in values and n.sym not in params:
            return False
    return True


def choose_kept(values: dict[int, ir.VarDecl], sources: set[int], operands: dict[int, set[int]],
                live: set[int]) -> set[int]:
    """The values to store so that every value in ``live`` can be had after the split: a minimum
    vertex cut between the values that cannot be recomputed and the live ones (each value is an
    edge ``in -> out`` of capacity 1; dependencies and the source and sink edges are unbounded)."""
    # Imported here, when a split has values to keep: importing networkx costs about 0.1 s of
    # CPU, paid by every translation when it was imported with this module.
    import networkx as nx

    graph = nx.DiGraph()
    graph.add_node("source")
    graph.add_node("sink")
    for v in values:
        graph.add_edge(("in", v), ("out", v), capacity=1)
        if v in sources:
            graph.add_edge("source", ("in", v))
        if v in live:
            graph.add_edge(("out", v), "sink")
        for w in operands.get(v, ()):
            graph.add_edge(("out", w), ("in", v))
    # Of the minimum cuts, take the one nearest the source (the residual graph's reach from it):
    # on ties the loaded values are stored and what is computed from them is recomputed.
    residual = nx.algorithms.flow.preflow_push(graph, "source", "sink")
    source_side = {"source"}
    stack = ["source"]
    while stack:
        u = stack.pop()
        for v, edge in residual[u].items():
            if v not in source_side and edge["flow"] < edge["capacity"]:
                source_side.add(v)
                stack.append(v)
    return {v for v in values if ("in", v) in source_side and ("out", v) not in source_side}


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
        barrier = next((n for n in grid.walk() if isinstance(n, ir.Barrier)), None)
        if barrier is not None:
            raise CompileError([error(barrier.loc, "__syncthreads() is still here: the pipeline must run "
                                      "barrier-interchange before barrier-split")])
        loops = thread_loops(grid.body)
        if len(loops) < 2:
            return kernel
        report = ctx.report(kernel)
        used_names = {n.name for n in kernel.walk() if isinstance(n, (ir.Name, ir.VarDecl, ir.Param))}
        used_names |= {n.storage for n in kernel.walk() if isinstance(n, ir.KeptVar)}

        declared_in: dict[int, int] = {}
        decls: dict[int, ir.VarDecl] = {}
        top_level: set[int] = set()
        for i, loop in enumerate(loops):
            for n in loop.body.walk():
                if isinstance(n, ir.VarDecl) and n.storage == "auto":
                    declared_in[n.sym] = i
                    decls[n.sym] = n
            top_level |= {s.sym for s in loop.body.stmts if isinstance(s, ir.VarDecl)}
        program_order = {sym: i for i, sym in enumerate(decls)}
        uses = [used_symbols(loop.body) for loop in loops]
        # The loops that use each variable, gathered in one pass: asking every loop about every
        # variable is quadratic, and a kernel split at each of hundreds of warp shuffles has
        # hundreds of loops and thousands of variables.
        using: dict[int, set[int]] = {}
        for j, u in enumerate(uses):
            for sym in u:
                using.setdefault(sym, set()).add(j)
        crossing = {sym for sym, i in declared_in.items() if using.get(sym, set()) - {i}}
        crossing |= _pointed_to_across(grid.body, decls, crossing)
        if not crossing and not any(ir.contains(loop, ir.Return) for loop in loops[:-1]):
            return kernel

        # Values: immutable scalars declared at the top of their thread loop (not assigned, and not
        # changed by a call: passed to a reference parameter, or the object of a member call).
        assigned = assigned_symbols(kernel.body, ctx.device_bodies) | kernel_facts(kernel, ctx).mutable
        params = {p.sym for p in kernel.params} - assigned
        values = {sym: d for sym, d in decls.items()
                  if sym in top_level and sym not in assigned and d.init is not None
                  and "&" not in d.type and "[" not in d.type and not isinstance(d.init, ir.InitList)}
        operands = {sym: used_symbols(d.init) & set(values) for sym, d in values.items()}
        # A constexpr value is a constant expression: always recomputed, never kept (a kept copy
        # is no longer usable in a static_assert or an array extent).
        sources = {sym for sym, d in values.items()
                   if not d.constexpr and not recomputable(d.init, set(values), params)}
        live_values = crossing & set(values)
        chosen = choose_kept(values, sources, operands, live_values) if ctx.min_cut else set(live_values)
        kept = chosen | (crossing - set(values))
        recomputed = {sym for sym in crossing if sym not in kept}
        # Declarations whose initializers have no effect: dead ones may go (an operand of a
        # recomputed value is dead where it was declared once that value is recomputed later).
        pure_values = set(values) - sources

        storage: dict[int, ir.KeptVar] = {}
        storage_decls: list[ir.Stmt] = []
        for sym in sorted(kept, key=lambda s: (decls[s].loc.line, decls[s].loc.column, s)):
            decl = decls[sym]
            if decl.type.endswith("&") or "&&" in decl.type:
                raise split_unsupported(decl.loc, "a reference variable that lives across __syncthreads()")
            if re.search(r"\bauto\b", decl.type):
                # In a template clang leaves the deduced type unknown, and the per-block storage
                # is declared where the initializer's names are not in scope.
                raise split_unsupported(decl.loc, "an 'auto' variable of a type that depends on a template "
                                                  "parameter, living across __syncthreads() (write its type)")
            name = fresh_name(f"{decl.name}_per_thread", used_names)
            type_ = per_thread_storage_type(decl.type, MAX_THREADS_PER_BLOCK)
            storage_sym = ctx.fresh_sym(name, type_, "local", decl.loc)
            storage_decls.append(ir.VarDecl(storage_sym, name, type_, loc=decl.loc))
            storage[sym] = ir.KeptVar(sym, decl.name, decl.type, name, loc=decl.loc)

        entries = {}
        for e in report.kept_values:
            entries.setdefault(e["barrier_line"], e)  # the first entry of a line, as a search finds it
        for sym in sorted(kept | recomputed, key=lambda s: (declared_in[s], decls[s].loc.line, decls[s].loc.column)):
            i = declared_in[sym]
            after = loops[i + 1] if i + 1 < len(loops) else loops[i]
            entry = entries.get(after.loc.line)
            if entry is None:
                entry = entries[after.loc.line] = {"barrier_line": after.loc.line, "names": [], "recomputed": []}
                report.kept_values.append(entry)
            entry["names" if sym in kept else "recomputed"].append(decls[sym].name)

        repeated = _loops_in_block_loops(grid.body)
        has_exit = any(ir.contains(loop, ir.Return) for loop in loops[:-1]) or any(
            ir.contains(loop, ir.Return) for loop in loops if id(loop) in repeated)
        exit_flag = ""
        if has_exit:
            exit_flag = fresh_name("exited", used_names)
            flag_type = f"bool[{MAX_THREADS_PER_BLOCK}]"
            flag_sym = ctx.fresh_sym(exit_flag, flag_type, "local", kernel.loc)
            storage_decls.append(ir.VarDecl(flag_sym, exit_flag, flag_type, ir.InitList(()), loc=kernel.loc))
        first_exit = next((i for i, loop in enumerate(loops) if ir.contains(loop, ir.Return)), len(loops))

        counter = iter(range(len(loops)))
        storage_order = {sym: i for i, sym in enumerate(storage)}

        def rewrite(node: ir.Node) -> ir.Node:
            if not isinstance(node, ir.ThreadLoop):
                return node
            j = next(counter)
            body = _rewrite_kept_decls(node.body, storage)
            needed = _needed_recomputations(uses[j], recomputed, kept, operands, declared_in, j)
            # In program order, so each value follows its operands (source lines do not say it:
            # an inlined function's parameter is declared at the call, after the function's lines).
            prologue = tuple(decls[s] for s in sorted(needed, key=program_order.__getitem__))
            body = replace(body, stmts=without_unused_decls(prologue + body.stmts, recomputed | pure_values))
            # Only what the body names: the loop that declared a value without initializer and
            # does not use it needs no binding (-Wall: unused variable).
            touched_syms = used_symbols(body)
            touched = tuple(storage[s] for s in sorted(touched_syms & storage.keys(), key=storage_order.__getitem__))
            _check_distinct_names(touched)
            return replace(node, body=body, kept=node.kept + touched, exit_flag=exit_flag,
                           marks_exit=bool(exit_flag) and ir.contains(node, ir.Return),
                           skip_exited=bool(exit_flag) and (j > first_exit or id(loops[j]) in repeated))

        new_body = ir.transform(ir.transform(grid.body, rewrite), _without_empty_thread_loops)
        new_body = replace(new_body, stmts=tuple(storage_decls) + new_body.stmts)
        return ir.replace_grid_loop(kernel, replace(grid, body=new_body))


def _without_empty_thread_loops(node: ir.Node) -> ir.Node:
    """A block less the thread loops left with nothing to do (every declaration in them was a
    value recomputed where it is used)."""
    if not isinstance(node, ir.Block):
        return node
    stmts = tuple(s for s in node.stmts if not (isinstance(s, ir.ThreadLoop) and not s.body.stmts and not s.marks_exit))
    return node if len(stmts) == len(node.stmts) else replace(node, stmts=stmts)


def _pointed_to_across(body: ir.Block, decls: dict[int, ir.VarDecl], crossing: set[int]) -> set[int]:
    """The thread loops' locals that a pointer living across a split may point into: such a local
    lives across it too (``S s; S *p = &s; __syncthreads(); p->x``, or ``self = &object`` of an
    inlined member function), else the pointer would outlive it.  A pointer is followed through
    the variables assigned from it; a local's address is ``&v`` (``&v.m``, ``&v[i]``) or an
    array's name."""
    holders: dict[int, set[int]] = {}  # a variable -> the variables that may hold its address
    flows: dict[int, set[int]] = {}  # a pointer variable -> the pointer variables assigned from it

    def addresses(e: ir.Expr) -> set[int]:
        found = set()
        for n in e.walk():
            if isinstance(n, ir.Unary) and n.op == "&":
                root = n.operand
                while isinstance(root, (ir.Member, ir.Index)) and not (isinstance(root, ir.Member) and root.arrow):
                    root = root.base
                if isinstance(root, ir.Name) and root.sym in decls:
                    found.add(root.sym)
            elif isinstance(n, ir.Name) and n.sym in decls and "[" in decls[n.sym].type:
                found.add(n.sym)  # an array decays to a pointer (as an index's base too: harmless)
        return found

    for n in body.walk():
        if isinstance(n, ir.VarDecl) and n.init is not None:
            target, value = n.sym, n.init
        elif isinstance(n, ir.Assign) and n.op == "=" and isinstance(n.target, ir.Name):
            target, value = n.target.sym, n.value
        else:
            continue
        for v in addresses(value):
            holders.setdefault(v, set()).add(target)
        if target in decls and ("*" in decls[target].type or "[" in decls[target].type):
            for m in value.walk():
                if isinstance(m, ir.Name) and m.sym in decls and "*" in decls[m.sym].type:
                    flows.setdefault(m.sym, set()).add(target)
    found: set[int] = set()
    for v, direct in holders.items():
        reach, stack = set(direct), list(direct)
        while stack:
            for w in flows.get(stack.pop(), ()):
                if w not in reach:
                    reach.add(w)
                    stack.append(w)
        if reach & crossing and v in decls:
            found.add(v)
    return found


def _loops_in_block_loops(body: ir.Block) -> set[int]:
    """Ids of the thread loops inside block-level loops (they run again after later thread loops)."""
    return {id(n) for s in body.walk() if isinstance(s, (ir.For, ir.While, ir.DoWhile))
            for n in s.walk() if isinstance(n, ir.ThreadLoop)}


def _needed_recomputations(used: set[int], recomputed: set[int], kept: set[int],
                           operands: dict[int, set[int]], declared_in: dict[int, int], here: int) -> set[int]:
    """The values a thread loop must recompute: those it uses, and their operands not kept."""
    need: set[int] = set()
    stack = [s for s in used if s in recomputed and declared_in[s] != here]
    while stack:
        s = stack.pop()
        if s not in need:
            need.add(s)
            stack.extend(w for w in operands.get(s, ()) if w not in kept)
    return need


#: Type spellings whose default construction does nothing: a kept declaration of one without an
#: initializer leaves nothing to run.
_NOTHING_TO_CONSTRUCT = re.compile(r"^(const |volatile |signed |unsigned |short |long )*(bool|char|short|int|long|"
                                   r"float|double|size_t|ptrdiff_t|u?int(8|16|32|64)_t|"
                                   r"u?(char|short|int|long|longlong)[1-4]|(float|double)[1-4])?"
                                   r"(\s*\[[^]]*\])*$|\*")


def _rewrite_kept_decls(body: ir.Block, storage: dict[int, ir.KeptVar]) -> ir.Block:
    """Declarations of kept variables become assignments to the bound storage (of a type that may
    be a class, ``moccuda::kept_init``: an assignment where the class has one, else a
    construction in place).  One without an
    initializer, of a type that may be a class, default-constructs its thread's element again
    (``moccuda::default_construct``): the constructor runs in each thread, where the declaration
    is (it may read ``threadIdx`` through ``moccuda::ambient()``), not when the block's storage
    is made."""
    def rewrite(node: ir.Node) -> ir.Node:
        if isinstance(node, ir.Block) and any(isinstance(s, ir.VarDecl) and s.sym in storage for s in node.stmts):
            stmts = []
            for s in node.stmts:
                if isinstance(s, ir.VarDecl) and s.sym in storage:
                    if s.init is None:
                        if not _NOTHING_TO_CONSTRUCT.search(s.type.strip()):
                            stmts.append(ir.ExprStmt(ir.Call("moccuda::default_construct",
                                                             (ir.Name(s.name, s.sym, loc=s.loc),), loc=s.loc),
                                                     loc=s.loc))
                        continue
                    if isinstance(s.init, ir.InitList):
                        raise split_unsupported(s.loc, "an initializer list on a variable that lives across "
                                          "__syncthreads()")
                    target = ir.Name(s.name, s.sym, loc=s.loc)
                    if _NOTHING_TO_CONSTRUCT.search(s.type.strip()):
                        s = ir.ExprStmt(ir.Assign("=", target, s.init, loc=s.loc), loc=s.loc)
                    else:  # a class may have no assignment (a reference member): made in place
                        s = ir.ExprStmt(ir.Call("moccuda::kept_init", (target, s.init), loc=s.loc), loc=s.loc)
                stmts.append(s)
            return replace(node, stmts=tuple(stmts))
        if isinstance(node, ir.For) and isinstance(node.init, ir.VarDecl) and node.init.sym in storage:
            d = node.init
            init = None if d.init is None else ir.ExprStmt(ir.Assign("=", ir.Name(d.name, d.sym, loc=d.loc), d.init,
                                                                     loc=d.loc), loc=d.loc)
            return replace(node, init=init)
        return node
    return ir.transform(body, rewrite)


def _check_distinct_names(kept: tuple[ir.KeptVar, ...]) -> None:
    seen: dict[str, ir.KeptVar] = {}
    for kv in kept:
        if kv.name in seen:
            raise split_unsupported(kv.loc, f"two variables named '{kv.name}' that both live across __syncthreads() "
                              "(rename one)")
        seen[kv.name] = kv
