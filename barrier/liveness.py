"""Which variables a statement list declares and uses: the data the barrier passes split on."""

from __future__ import annotations

from barrier.accesses import by_reference_arguments
from foundation import ir
from foundation.expression_printer import declarator_group


def used_symbols(node: ir.Node) -> set[int]:
    return {n.sym for n in node.walk() if isinstance(n, ir.Name) and n.sym}


def top_level_decls(stmts: tuple[ir.Stmt, ...] | list[ir.Stmt]) -> dict[int, ir.VarDecl]:
    return {s.sym: s for s in stmts if isinstance(s, ir.VarDecl) and s.storage == "auto"}


def contains_return(stmts) -> bool:
    return any(isinstance(n, ir.Return) for s in stmts for n in s.walk())


def without_top_level_cv(type_spelling: str) -> str:
    """``type_spelling`` without its own ``const``/``volatile`` (``const float`` and
    ``float *const`` lose it; ``const float *``, a pointer to const, keeps it): kept storage is
    assigned where the variable was initialized."""
    base = type_spelling.strip()
    if any(c in base for c in "*&("):
        while base.endswith((" const", "*const", " volatile", "*volatile")):
            base = base[:base.rindex("const" if base.endswith("const") else "volatile")].rstrip()
        return base
    words = base.split()
    return " ".join(w for w in words if w not in ("const", "volatile"))


def per_thread_array_type(type_spelling: str, threads: int) -> str:
    """The type of per-block storage holding one ``type_spelling`` per thread."""
    base = without_top_level_cv(type_spelling)
    group = declarator_group(base)
    if group is not None:  # a pointer to an array or function: T (*[threads])[4]
        return f"{base[:group]}[{threads}]{base[group:]}"
    if base.endswith("]") and "[" in base:
        i = base.index("[")
        return f"{base[:i].rstrip()}[{threads}]{base[i:]}"
    return f"{base}[{threads}]"


#: Bytes of the types whose size the translation knows without the C++ compiler.
_KNOWN_SIZES = {
    "bool": 1, "char": 1, "signed char": 1, "unsigned char": 1, "short": 2, "unsigned short": 2, "int": 4,
    "unsigned int": 4, "unsigned": 4, "long": 8, "unsigned long": 8, "long long": 8, "unsigned long long": 8,
    "float": 4, "double": 8, "size_t": 8, "__half": 2, "__nv_bfloat16": 2, "__half2": 4, "__nv_bfloat162": 4,
}
for _base, _size in (("char", 1), ("short", 2), ("int", 4), ("long", 8), ("longlong", 8), ("float", 4), ("double", 8)):
    for _n in (1, 2, 3, 4):
        _KNOWN_SIZES[f"{_base}{_n}"] = _KNOWN_SIZES[f"u{_base}{_n}"] = _size * _n

#: Per-thread storage up to this many bytes per thread is a plain array in the block's stack
#: frame; above (or where the size is not known here), ``moccuda::PerThread`` decides with the
#: C++ compiler's ``sizeof`` and puts more than 64 KiB per block on the heap.  64 bytes x 1024
#: threads = 64 KiB: a kernel keeping a dozen such values stays far below the smallest usual
#: thread stack (2 MiB), and scalars, pointers and vectors up to ``double4`` stay plain arrays
#: that gcc vectorizes through.  The same limit is MOCCUDA_KEPT_STACK_BYTES in cuda2cpu_device.h.
SMALL_PER_THREAD_BYTES = 64


def known_size(type_spelling: str) -> int | None:
    """``sizeof`` of a type spelled with builtin, vector and pointer types and constant array
    extents (``float[4]``: 16), or None."""
    base = without_top_level_cv(type_spelling).replace("const ", "").replace("volatile ", "").strip()
    if "(*" in base or base.endswith("*"):
        return 8  # a pointer (to an array, a function)
    count = 1
    while base.endswith("]") and "[" in base:
        i = base.rindex("[")
        extent = base[i + 1:-1].strip()
        if not extent.isdigit():
            return None
        count *= int(extent)
        base = base[:i].rstrip()
    if base.endswith("*"):
        return 8 * count  # an array of pointers
    size = _KNOWN_SIZES.get(base)
    return None if size is None else size * count


def per_thread_storage_type(type_spelling: str, threads: int) -> str:
    """The type of per-block storage holding one ``type_spelling`` per thread: a plain array when
    the type is known to be small (:data:`SMALL_PER_THREAD_BYTES`), else ``moccuda::PerThread``,
    which keeps large storage off the stack."""
    size = known_size(type_spelling)
    if size is not None and size <= SMALL_PER_THREAD_BYTES:
        return per_thread_array_type(type_spelling, threads)
    return f"moccuda::PerThread<{without_top_level_cv(type_spelling)}, {threads}>"


def changed_variable(target: ir.Expr) -> int | None:
    """The variable a store to the lvalue ``target`` changes, if it is one: ``v``, ``v.x`` and
    ``v.a[i]`` (an array member, or a pointer member: counted as a change of ``v`` too) all
    change ``v``; ``p->x`` and ``p[i]`` change what ``p`` points to, not ``p``."""
    while True:
        if isinstance(target, ir.Member) and not target.arrow:
            target = target.base
            continue
        inner = target
        while isinstance(inner, ir.Index):
            inner = inner.base
        if inner is not target and isinstance(inner, ir.Member) and not inner.arrow:
            target = inner
            continue
        break
    return target.sym if isinstance(target, ir.Name) and target.sym else None


def assigned_variable(n: ir.Node) -> int | None:
    """The variable ``n`` assigns, increments or takes the address of, if ``n`` does: ``v = e``,
    ``v.x += e``, ``v.a[i] = e`` and ``&v.y`` all change (or may change) ``v``."""
    if isinstance(n, ir.Assign):
        return changed_variable(n.target)
    if isinstance(n, ir.Unary) and n.op in ("++", "--", "&"):
        return changed_variable(n.operand)
    return None


def assigned_symbols(node: ir.Node, device_bodies: dict[str, ir.DeviceFunction]) -> set[int]:
    """Variables assigned, incremented or whose address is taken anywhere in ``node``, and those
    passed to a parameter that may be a non-const reference (``f(v)`` with ``f(float &)``, of a
    ``__device__`` function in ``device_bodies`` or of a function the analysis does not know),
    which the call may change."""
    assigned = {sym for n in node.walk() if (sym := assigned_variable(n)) is not None}
    for n in node.walk():
        if isinstance(n, (ir.Call, ir.IndirectCall)):
            assigned.update(by_reference_arguments(n, device_bodies))
    return assigned


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
