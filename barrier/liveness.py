"""Which variables a statement list declares and uses: the data the barrier passes split on."""

from __future__ import annotations

from transpiler import ir


def used_symbols(node: ir.Node) -> set[int]:
    return {n.sym for n in node.walk() if isinstance(n, ir.Name) and n.sym}


def top_level_decls(stmts: tuple[ir.Stmt, ...] | list[ir.Stmt]) -> dict[int, ir.VarDecl]:
    return {s.sym: s for s in stmts if isinstance(s, ir.VarDecl) and s.storage == "auto"}


def contains_return(stmts) -> bool:
    return any(isinstance(n, ir.Return) for s in stmts for n in s.walk())


def per_thread_array_type(type_spelling: str, threads: int) -> str:
    """The type of per-block storage holding one ``type_spelling`` per thread."""
    base = type_spelling
    for qualifier in ("const ", "volatile "):
        if base.startswith(qualifier):
            base = base[len(qualifier):]
    if base.endswith("]") and "[" in base:
        i = base.index("[")
        return f"{base[:i].rstrip()}[{threads}]{base[i:]}"
    return f"{base}[{threads}]"


def assigned_variable(n: ir.Node) -> int | None:
    """The variable ``n`` assigns, increments or takes the address of, if ``n`` does: ``v = e``,
    ``v.x += e`` and ``&v.y`` all change (or may change) ``v``."""
    if isinstance(n, ir.Assign):
        target = n.target
    elif isinstance(n, ir.Unary) and n.op in ("++", "--", "&"):
        target = n.operand
    else:
        return None
    while isinstance(target, ir.Member) and not target.arrow:
        target = target.base
    return target.sym if isinstance(target, ir.Name) and target.sym else None


def assigned_symbols(node: ir.Node) -> set[int]:
    """Variables assigned, incremented or whose address is taken anywhere in ``node``."""
    return {sym for n in node.walk() if (sym := assigned_variable(n)) is not None}


def without_unused_decls(stmts: tuple[ir.Stmt, ...], removable: set[int]) -> tuple[ir.Stmt, ...]:
    """``stmts`` less the declarations of ``removable`` (effect-free) variables that nothing in
    ``stmts`` names any more, to a fixpoint (a dead declaration may be all that read another).
    Generated code must not leave them: g++ -Wall warns in the user's build."""
    while True:
        used = set().union(*(used_symbols(s) for s in stmts)) if stmts else set()
        kept = tuple(s for s in stmts if not (isinstance(s, ir.VarDecl) and s.sym in removable and s.sym not in used))
        if len(kept) == len(stmts):
            return stmts
        stmts = kept


def fresh_name(base: str, used: set[str]) -> str:
    """``base``, with ``_`` appended until it is not in ``used``; the name is then added to it."""
    name = base
    while name in used:
        name += "_"
    used.add(name)
    return name
