"""What every launch site of a kernel in the translation unit proves about its arguments.

The barrier analyses (``barrier.effects``) need two facts that only the host code can give:

* **distinct pointers**: two pointer parameters never alias when, at *every* launch
  ``k<<<g, b>>>(..., x, ..., y, ...)`` of the kernel, the arguments are based on two different
  *allocation variables*.  An allocation variable is a local (or ``static``) pointer variable
  whose address is only ever given to ``cudaMalloc``/``cudaMallocManaged`` (first argument),
  that has no initializer other than a null pointer, and that is otherwise only read (never
  assigned, incremented, bound to a reference or had its address taken).  Each such variable
  holds its own allocation, so two of them (plus any pointer arithmetic on them, which stays
  inside the allocation) cannot overlap.
* **block extents**: the block size in x, y, z when every launch site gives the same constant
  (``<<<g, 256>>>`` gives 256, 1, 1; ``dim3 threads(16, 16)`` gives 16, 16, 1), else unknown.

A kernel with no launch site in the translation unit, or whose name is used other than as the
callee of a launch (its address taken, e.g. for ``cudaLaunchKernel``), proves nothing.  The
translation unit is taken to hold every launch of the kernels it defines (the rule the barrier
analyses document).  A kernel with external linkage can also be launched from another file
through a prototype: the translated kernel then checks, at each launch, the block size and the
distinct allocations these facts gave (``moccuda::check_assumed_block``,
``moccuda::check_distinct_allocations``), and stops with a located message where they fail.

Before (host code)::

    float *a, *b;  cudaMalloc(&a, n);  cudaMalloc(&b, n);
    dim3 threads(16, 16);
    k<<<grid, threads>>>(a, b + 1, n);

After (facts)::

    {"k": LaunchFacts(launches=1, distinct={{"x", "y"}}, block_extent=(16, 16, 1))}
"""

from __future__ import annotations

from dataclasses import dataclass

import clang.cindex as ci

from cuda_front import clang_ext

K = ci.CursorKind

ALLOCATORS = frozenset({"cudaMalloc", "cudaMallocManaged"})
_TRANSPARENT = (K.UNEXPOSED_EXPR, K.PAREN_EXPR)
_CASTS = (K.CSTYLE_CAST_EXPR, K.CXX_STATIC_CAST_EXPR, K.CXX_REINTERPRET_CAST_EXPR, K.CXX_CONST_CAST_EXPR,
          K.CXX_FUNCTIONAL_CAST_EXPR)


@dataclass(frozen=True)
class LaunchFacts:
    """What all launch sites of one kernel prove: ``distinct`` holds pairs of parameter names
    never aliasing; ``block_extent`` the block's x, y, z sizes (None where not one constant)."""

    launches: int
    distinct: frozenset[frozenset[str]] = frozenset()
    block_extent: tuple[int | None, int | None, int | None] = (None, None, None)


NO_FACTS = LaunchFacts(0)


def _strip(c: ci.Cursor, casts: bool = False) -> ci.Cursor:
    while True:
        kids = [k for k in c.get_children() if k.kind not in (K.TYPE_REF, K.TEMPLATE_REF, K.NAMESPACE_REF)]
        if (c.kind in _TRANSPARENT or (casts and c.kind in _CASTS)) and len(kids) == 1:
            c = kids[0]
        else:
            return c


class _Scan:
    """One walk over the user's code, collecting launches and how variables are used."""

    def __init__(self, kernel_names: set[str]) -> None:
        self.kernel_names = kernel_names
        self.launches: dict[str, list[ci.Cursor]] = {}
        self.escaped: set[str] = set()
        self.ok_refs: set[int] = set()  # DECL_REFs known harmless: launch callees, &v to an allocator
        self.allocated: set[int] = set()  # variables passed as &v to an allocator
        self.initialized: set[int] = set()  # variables with an initializer other than null
        self.spoiled: set[int] = set()  # variables used in a way that may change or leak them
        self.kernel_refs: list[tuple[str, int]] = []

    def walk(self, c: ci.Cursor, parent: ci.Cursor | None, grand: list[ci.Cursor]) -> None:
        kind = c.kind
        if kind in (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE) and _device_only(c):
            return  # device code launches nothing (no dynamic parallelism)
        if kind == K.CALL_EXPR:
            self.call(c)
        elif kind in (K.DECL_REF_EXPR, K.OVERLOADED_DECL_REF):
            self.reference(c, parent, grand)
        elif kind == K.VAR_DECL:
            init = clang_ext.var_decl_initializer(c)
            if init is not None and not _is_null(init):
                self.initialized.add(clang_ext.identity(c))
        grand.append(c)
        for child in c.get_children():
            self.walk(child, c, grand)
        grand.pop()

    def call(self, c: ci.Cursor) -> None:
        kids = list(c.get_children())
        if len(kids) >= 2 and kids[1].kind == K.CALL_EXPR and kids[1].spelling == "__cudaPushCallConfiguration":
            callee = _strip(kids[0])
            name = callee.spelling if callee.kind in (K.DECL_REF_EXPR, K.OVERLOADED_DECL_REF) else ""
            if name in self.kernel_names:
                self.launches.setdefault(name, []).append(c)
                self.ok_refs.add(clang_ext.identity(callee))
            return
        if c.spelling in ALLOCATORS and len(kids) >= 2:
            first = _strip(kids[1], casts=True)
            if first.kind == K.UNARY_OPERATOR and clang_ext.unary_operator(first) == "&":
                target = _strip(list(first.get_children())[0])
                if target.kind == K.DECL_REF_EXPR and target.referenced is not None:
                    self.allocated.add(clang_ext.identity(target.referenced))
                    self.ok_refs.add(clang_ext.identity(target))  # this use is the allocation itself

    def reference(self, c: ci.Cursor, parent: ci.Cursor | None, grand: list[ci.Cursor]) -> None:
        ref = c.referenced
        if c.spelling in self.kernel_names:
            self.kernel_refs.append((c.spelling, clang_ext.identity(c)))
            return
        if ref is None or ref.kind != K.VAR_DECL:
            return
        # An rvalue use is wrapped in an implicit conversion (UNEXPOSED_EXPR); sizeof is harmless.
        if parent is not None and parent.kind in (K.UNEXPOSED_EXPR, K.CXX_UNARY_EXPR):
            return
        if parent is not None and parent.kind == K.MEMBER_REF_EXPR and not _assigned_member(parent, grand):
            return
        if clang_ext.identity(c) in self.ok_refs:
            return
        self.spoiled.add(clang_ext.identity(ref))

    def finish(self) -> None:
        for name, h in self.kernel_refs:
            if h not in self.ok_refs:
                self.escaped.add(name)


def _device_only(fn: ci.Cursor) -> bool:
    attrs = {c.kind for c in fn.get_children() if c.kind.is_attribute()}
    return K.CUDAGLOBAL_ATTR in attrs or (K.CUDADEVICE_ATTR in attrs and K.CUDAHOST_ATTR not in attrs)


def _assigned_member(member: ci.Cursor, grand: list[ci.Cursor]) -> bool:
    """Is ``member`` (a ``v.x`` whose parent chain is ``grand``) written?"""
    owner = grand[-2] if len(grand) >= 2 else None
    if owner is None:
        return True
    if owner.kind == K.UNEXPOSED_EXPR:
        return False  # read through an implicit conversion
    if owner.kind in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR):
        op = clang_ext.binary_operator(owner)
        first = next(iter(owner.get_children()), None)
        return op.endswith("=") and op not in ("==", "!=", "<=", ">=") and first is not None and first == member
    return True


def _is_null(init: ci.Cursor) -> bool:
    c = _strip(init, casts=True)
    if c.kind in (K.CXX_NULL_PTR_LITERAL_EXPR, K.GNU_NULL_EXPR):
        return True
    return c.kind == K.INTEGER_LITERAL and clang_ext.evaluate(c) == 0


def _pointer_root(arg: ci.Cursor, scan: _Scan) -> int | None:
    """The allocation variable an argument is based on (``v``, ``v + k``, ``(T *)v``), or None."""
    c = _strip(arg, casts=True)
    while c.kind == K.BINARY_OPERATOR and clang_ext.binary_operator(c) in ("+", "-"):
        lhs = list(c.get_children())[0]
        if lhs.type.get_canonical().kind != ci.TypeKind.POINTER:
            if clang_ext.binary_operator(c) == "-":
                return None
            lhs = list(c.get_children())[1]
        c = _strip(lhs, casts=True)
    if c.kind != K.DECL_REF_EXPR or c.referenced is None or c.referenced.kind != K.VAR_DECL:
        return None
    if c.referenced.linkage not in (ci.LinkageKind.NO_LINKAGE, ci.LinkageKind.INTERNAL):
        return None  # another translation unit could assign it
    h = clang_ext.identity(c.referenced)
    if h in scan.allocated and h not in scan.spoiled and h not in scan.initialized:
        return h
    return None


def _block_extent(config: ci.Cursor, scan: _Scan, depth: int = 0) -> tuple[int | None, ...]:
    """The x, y, z sizes an expression of type dim3 (or an integer) gives, None where unknown."""
    unknown = (None, None, None)
    if depth > 8:
        return unknown
    c = _strip(config)
    canonical = c.type.get_canonical()
    if canonical.kind in (ci.TypeKind.INT, ci.TypeKind.UINT, ci.TypeKind.LONG, ci.TypeKind.ULONG,
                          ci.TypeKind.LONGLONG, ci.TypeKind.ULONGLONG, ci.TypeKind.SHORT, ci.TypeKind.USHORT):
        value = clang_ext.evaluate(c)
        return (value if isinstance(value, int) and value > 0 else None, 1, 1)
    if c.kind == K.CALL_EXPR and c.spelling == "dim3":
        args = [a for a in c.get_children() if a.kind not in (K.TYPE_REF, K.TEMPLATE_REF, K.NAMESPACE_REF)]
        if len(args) == 1 and "dim3" in args[0].type.get_canonical().spelling:
            return _block_extent(args[0], scan, depth + 1)
        if len(args) != 3:
            return unknown
        # Each size is what clang evaluates, a defaulted argument (dim3's `= 1`) included, and
        # unknown otherwise.  Nothing is read from source extents: inside a macro argument (a
        # launch in PyTorch's AT_DISPATCH lambda) a written argument's extent is empty too, and
        # taking it for a default made blockDim 1, so every thread looked like thread 0 to the
        # barrier analyses.  An extent of 1 is the strongest fact there is; only a proof gives it.
        dims = []
        for a in args:
            value = clang_ext.evaluate(_strip(a))
            dims.append(value if isinstance(value, int) and value > 0 else None)
        return tuple(dims)
    if c.kind == K.DECL_REF_EXPR and c.referenced is not None and c.referenced.kind == K.VAR_DECL:
        var = c.referenced
        if (clang_ext.identity(var) in scan.spoiled
                or var.linkage not in (ci.LinkageKind.NO_LINKAGE, ci.LinkageKind.INTERNAL)):
            return unknown
        init = clang_ext.var_decl_initializer(var)
        if init is None:
            return unknown
        return _block_extent(init, scan, depth + 1)
    return unknown


def analyze(user_top_level: list[ci.Cursor], kernels: list[ci.Cursor]) -> dict[str, LaunchFacts]:
    """Facts for each kernel (by name) from every launch site in the user's top-level declarations
    (``ParsedUnit.user_top_level``)."""
    names = {k.spelling for k in kernels}
    scan = _Scan(names)
    for top in user_top_level:
        scan.walk(top, None, [])
    scan.finish()
    result: dict[str, LaunchFacts] = {}
    params_by_kernel: dict[str, list[tuple[str, bool]]] = {}
    for k in kernels:
        params = [(p.spelling, p.type.get_canonical().kind == ci.TypeKind.POINTER)
                  for p in k.get_children() if p.kind == K.PARM_DECL]
        if k.spelling in params_by_kernel and params_by_kernel[k.spelling] != params:
            scan.escaped.add(k.spelling)  # overloads: the launches cannot be told apart here
        params_by_kernel[k.spelling] = params
    for name in names:
        launches = scan.launches.get(name, [])
        if not launches or name in scan.escaped:
            result[name] = NO_FACTS
            continue
        params = params_by_kernel[name]
        pointer_positions = [i for i, (_, is_ptr) in enumerate(params) if is_ptr]
        distinct: set[frozenset[str]] | None = None
        extent: list[int | None] | None = None
        for launch in launches:
            kids = list(launch.get_children())
            config = [a for a in kids[1].get_children()][1:]
            args = kids[2:]
            roots = [_pointer_root(a, scan) if i < len(params) else None for i, a in enumerate(args)]
            here = set()
            for i in pointer_positions:
                for j in pointer_positions:
                    if i < j < len(roots) and roots[i] is not None and roots[j] is not None and roots[i] != roots[j]:
                        here.add(frozenset((params[i][0], params[j][0])))
            distinct = here if distinct is None else distinct & here
            block = _block_extent(config[1], scan) if len(config) >= 2 else (None, None, None)
            if extent is None:
                extent = list(block)
            else:
                extent = [a if a == b else None for a, b in zip(extent, block)]
        result[name] = LaunchFacts(len(launches), frozenset(distinct or ()), tuple(extent or (None, None, None)))
    return result
