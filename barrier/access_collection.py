"""The accesses an expression makes: :class:`AccessCollector` walks an expression and records
each shared, global or unknown memory access with its object and affine index, following where
pointers and references point (a :class:`~barrier.accesses.Place`).  What it cannot trace
reads as "unknown", never as private.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from barrier.accesses import (ATOMICS_PREFIX, FORMAL, GLOBAL, PARAM, PRIVATE, READ_ONLY_LOADS, SHARED, UNKNOWN_OBJ,
                              UNKNOWN_PLACE, Access, Place, callee_name, is_pure_function, is_reference_type)
from barrier.affine_forms import Affine
from foundation import ir

if TYPE_CHECKING:  # the facts are handed in; kernel_facts builds collectors
    from barrier.kernel_facts import KernelFacts


class AccessCollector:
    """Walks one expression, recording the memory accesses it makes."""

    def __init__(self, facts: KernelFacts) -> None:
        self.facts = facts
        self.found: list[Access] = []
        self._binding: set[int] = set()  # references being resolved (a guard against cycles)

    def record(self, kind: str, place: Place, e: ir.Expr, communicates: bool = False) -> None:
        if place.obj[0] == PRIVATE:
            return
        self.found.append(Access(kind, place.obj, place.index, e, "", e.loc,
                                 communicates=communicates and place.obj[0] != SHARED))

    def touch(self, place: Place, e: ir.Expr, mode: str, communicates: bool = False) -> None:
        if mode in ("read", "rw"):
            self.record("read", place, e, communicates)
        if mode in ("write", "rw"):
            self.record("write", place, e, communicates)

    def visit(self, e: ir.Expr | None, mode: str) -> None:
        if e is None:
            return
        if _is_lvalue_shape(e):
            place = self.place(e)
            if isinstance(place, _AsPointer):
                if place.loads is not None and mode != "addr":
                    self.touch(place.loads, e, mode, self.through_volatile(e))
            elif isinstance(place, Place) and place.is_element and mode != "addr":
                self.touch(place, e, mode, self.through_volatile(e))
            return
        if isinstance(e, ir.Assign):
            self.visit(e.value, "read")
            self.visit(e.target, "write" if e.op == "=" else "rw")
        elif isinstance(e, ir.Unary) and e.op in ("++", "--"):
            self.visit(e.operand, "rw")
        elif isinstance(e, ir.Unary) and e.op == "&":
            self.visit(e.operand, "addr")
        elif isinstance(e, ir.Call):
            self.call(e)
        elif isinstance(e, ir.IndirectCall):
            self.visit(e.callee, "read")
            for a in e.args:
                self.visit(a, "read")
            self.touch(UNKNOWN_PLACE, e, "rw")
        elif not isinstance(e, ir.SizeOf):
            for child in e.children():
                self.visit(child, "read")

    def through_volatile(self, e: ir.Expr) -> bool:
        """Is the lvalue ``e`` reached through a ``volatile`` pointer or array (``flag[b]`` of a
        ``volatile int *flag``, ``*(volatile int *)p``)?"""
        if isinstance(e, ir.Cast):
            return "volatile" in e.type
        if isinstance(e, ir.Name):
            info = self.facts.symbols.get(e.sym)
            return info is not None and "volatile" in info.type
        if isinstance(e, (ir.Index, ir.Member)):
            return self.through_volatile(e.base)
        if isinstance(e, ir.Unary) and e.op == "*":
            return self.through_volatile(e.operand)
        if isinstance(e, ir.Binary) and e.op in ("+", "-"):  # pointer arithmetic, either side
            return self.through_volatile(e.lhs) or self.through_volatile(e.rhs)
        return False

    # ------------------------------------------------------------------------ places

    def place(self, e: ir.Expr):
        """The location an lvalue-shaped ``e`` designates, visiting the reads its
        subexpressions make: a :class:`Place`, an :class:`_AsPointer` for a pointer variable,
        or None for no memory at all (an rvalue, an enumerator)."""
        if isinstance(e, ir.Name):
            return self.name_place(e)
        if isinstance(e, ir.Index):
            base = self.pointer(e.base)
            self.visit(e.index, "read")
            return base.subscript(self.facts.affine(e.index))
        if isinstance(e, ir.Unary) and e.op == "*":
            return self.pointer(e.operand).subscript(Affine())
        if isinstance(e, ir.Member):
            if e.arrow:
                return self.pointer(e.base).subscript(Affine())
            if _is_lvalue_shape(e.base):
                inner = self.place(e.base)
                return inner if not isinstance(inner, _AsPointer) else None
            self.visit(e.base, "read")
            return None
        self.visit(e, "read")
        return None

    def name_place(self, e: ir.Name):
        f = self.facts
        sym = e.sym
        info = f.symbols.get(sym)
        kind = info.kind if info else ""
        if sym in f.shared:
            t = f.shared[sym].type
            return Place((SHARED, sym), _rank(t), elem_is_pointer=_elem_pointer(t))
        if sym in f.params:
            t = f.params[sym].type
            if is_reference_type(t) and "*" not in t.split("&")[0]:
                # a reference parameter names the caller's lvalue: an object of the call site
                return Place((FORMAL, f.formals[sym]) if sym in f.formals else UNKNOWN_OBJ, 0)
            if not _is_pointer_type(t):
                return Place((PRIVATE, sym), 0)
            obj = (FORMAL, f.formals[sym]) if sym in f.formals else (PARAM, sym)
            target = Place(obj, _param_rank(t), elem_is_pointer=_param_elem_pointer(t))
            if sym in f.mutable:
                target = target.unknown_position() if obj[0] == FORMAL else UNKNOWN_PLACE
            return _AsPointer(target)
        if sym in f.local_type:
            t = f.local_type[sym]
            if is_reference_type(t):
                return self.reference_place(sym)
            if "[" in t:
                return Place((PRIVATE, sym), _rank(t), elem_is_pointer=_elem_pointer(t))
            if "*" not in t:
                return Place((PRIVATE, sym), 0)
            if sym in f.local_init and sym not in f.mutable:
                return _AsPointer(self.pointer(f.local_init[sym], visit=False))
            return _AsPointer(UNKNOWN_PLACE)
        if kind == "global":
            t = info.type
            if "[" in t:
                return Place((GLOBAL, sym), _rank(t), elem_is_pointer=_elem_pointer(t))
            if "*" in t:
                return _AsPointer(UNKNOWN_PLACE, loads=Place((GLOBAL, sym), 0))
            return Place((GLOBAL, sym), 0)
        if kind == "local":
            return Place((PRIVATE, sym), 0)
        return None

    def reference_place(self, sym: int):
        """What a local reference names: the place of the lvalue it is bound to, or an unknown
        location (never the reference's own storage: it has none)."""
        bound = self.facts.local_ref.get(sym)
        if bound is None or sym in self._binding:
            return Place(UNKNOWN_OBJ, 0, 0, None, None)
        self._binding.add(sym)
        saved, self.found = self.found, []  # the binding's own reads happened at the declaration
        try:
            place = self.place(bound) if _is_lvalue_shape(bound) else None
        finally:
            self.found = saved
            self._binding.discard(sym)
        if place is None:
            return Place((PRIVATE, sym), 0)  # bound to a temporary
        return place

    def pointer(self, e: ir.Expr, visit: bool = True) -> Place:
        """The place a pointer-valued (or array-valued) expression points to."""
        if visit:
            return self._pointer(e)
        saved, self.found = self.found, []
        try:
            return self._pointer(e)
        finally:
            self.found = saved

    def _pointer(self, e: ir.Expr) -> Place:
        f = self.facts
        if _is_lvalue_shape(e):
            p = self.place(e)
            if isinstance(p, _AsPointer):
                if p.loads is not None:
                    self.record("read", p.loads, e)
                return p.place
            if isinstance(p, Place) and not p.is_element:
                return p  # an array, or a row of a multi-dimensional array
            if isinstance(p, Place):
                self.record("read", p, e)  # load the pointer stored there
            return UNKNOWN_PLACE
        if isinstance(e, ir.Cast):
            return self._pointer(e.operand).unknown_position()
        if isinstance(e, ir.Binary) and e.op in ("+", "-") and _pointerish(e.lhs, f):
            base = self._pointer(e.lhs)
            self.visit(e.rhs, "read")
            k = f.affine(e.rhs)
            return base.offset(k if e.op == "+" or k is None else -k)
        if isinstance(e, ir.Binary) and e.op == "+" and _pointerish(e.rhs, f):
            base = self._pointer(e.rhs)
            self.visit(e.lhs, "read")
            return base.offset(f.affine(e.lhs))
        if isinstance(e, ir.Unary) and e.op == "&":
            inner = self.place(e.operand)
            if isinstance(inner, Place):
                return inner.address_of_element() if inner.is_element else inner.unknown_position()
            return UNKNOWN_PLACE
        if isinstance(e, ir.Conditional):
            self.visit(e.cond, "read")
            a, b = self._pointer(e.then), self._pointer(e.otherwise)
            if a == b:
                return a
            if a.obj == b.obj:
                return a.unknown_position()
            return UNKNOWN_PLACE
        if isinstance(e, ir.Literal):
            return Place((PRIVATE, 0), 1)  # nullptr and friends point nowhere
        self.visit(e, "read")
        return UNKNOWN_PLACE

    # ------------------------------------------------------------------------- calls

    def call(self, e: ir.Call) -> None:
        f = self.facts
        name = callee_name(e.func)
        if name.startswith(ATOMICS_PREFIX) and e.args:
            target = self.pointer(e.args[0])
            for a in e.args[1:]:
                self.visit(a, "read")
            self.touch(target.subscript(Affine()), e, "rw", communicates=True)
            return
        if name in READ_ONLY_LOADS and e.args:
            self.touch(self.pointer(e.args[0]).subscript(Affine()), e, "read")
            return
        if is_pure_function(e.func):
            for a in e.args:
                self.visit(a, "read")
            return
        fn = f.device_bodies.get(name)
        effects = f.call_effects(name) if fn is not None else None
        if effects is None:
            for a in e.args:
                if _pointerish(a, f):
                    target = self.pointer(a)
                    self.touch(target.unknown_position().subscript(None), e, "rw")
                else:
                    self.visit(a, "read")
            self.touch(UNKNOWN_PLACE, e, "rw")
            return
        skip = max(len(e.args) - len(fn.params), 0)  # leading builtin vectors (translated functions)
        targets: dict[int, Place] = {}
        for i, a in enumerate(e.args[skip:]):
            t = fn.params[i].type if i < len(fn.params) else ""
            if is_reference_type(t) and "*" not in t.split("&")[0]:
                targets[i] = self.argument_place(a)
            elif _is_pointer_type(t):
                targets[i] = self.pointer(a)
            else:
                self.visit(a, "read")
        for access in effects:
            obj = access.obj
            if obj[0] == FORMAL:
                obj = targets[obj[1]].obj if obj[1] in targets else UNKNOWN_OBJ
            if obj[0] == PRIVATE:
                continue
            self.found.append(Access(access.kind, obj, None, e, f": {access.text}", e.loc,
                                     communicates=access.communicates and obj[0] != SHARED))


def _argument_place(collector: "AccessCollector", a: ir.Expr) -> Place:
    """The object an argument bound to a reference parameter is: its lvalue's place (the reads
    computing its address are recorded), a temporary (an rvalue), or unknown."""
    if not _is_lvalue_shape(a):
        collector.visit(a, "read")
        return Place((PRIVATE, 0), 0)
    place = collector.place(a)
    if isinstance(place, _AsPointer):
        return place.loads if place.loads is not None else Place((PRIVATE, 0), 0)
    return place if isinstance(place, Place) else Place((PRIVATE, 0), 0)


AccessCollector.argument_place = _argument_place


@dataclass(frozen=True)
class _AsPointer:
    """A variable whose value is a pointer to ``place`` (``loads``: the variable's own storage
    when reading it is a memory access, as for a ``__device__`` pointer variable)."""

    place: Place
    loads: Place | None = None


def _is_lvalue_shape(e: ir.Expr) -> bool:
    return isinstance(e, (ir.Index, ir.Member, ir.Name)) or (isinstance(e, ir.Unary) and e.op == "*")


def _is_pointer_type(t: str) -> bool:
    return "*" in t or "[" in t


def _rank(array_type: str) -> int:
    return array_type.count("[")


def _elem_pointer(array_type: str) -> bool:
    return "*" in array_type


def _param_rank(t: str) -> int:
    if "(*)" in t:
        return 1 + t.count("[")
    return 1 if "*" in t or "[" in t else 0


def _param_elem_pointer(t: str) -> bool:
    return "(*)" not in t and t.count("*") > 1


def _pointerish(e: ir.Expr, facts: KernelFacts) -> bool:
    if isinstance(e, ir.Name):
        sym_info = facts.symbols.get(e.sym)
        t = facts.local_type.get(e.sym) or (facts.params[e.sym].type if e.sym in facts.params else "") or (
            sym_info.type if sym_info else "")
        return _is_pointer_type(t)
    if isinstance(e, ir.Cast):
        return "*" in e.type
    if isinstance(e, ir.Unary) and e.op == "&":
        return True
    if isinstance(e, ir.Binary) and e.op == "+":
        return _pointerish(e.lhs, facts) or _pointerish(e.rhs, facts)
    if isinstance(e, ir.Binary) and e.op == "-":
        return _pointerish(e.lhs, facts) and not _pointerish(e.rhs, facts)
    if isinstance(e, ir.Conditional):
        return _pointerish(e.then, facts)
    if isinstance(e, ir.Index):
        base = e.base
        depth = 1
        while isinstance(base, ir.Index):
            base, depth = base.base, depth + 1
        if isinstance(base, ir.Name):
            sym = base.sym
            if sym in facts.shared:
                return _rank(facts.shared[sym].type) > depth or _elem_pointer(facts.shared[sym].type)
            if sym in facts.params:
                t = facts.params[sym].type
                return _param_rank(t) > depth or _param_elem_pointer(t)
        return False
    return False
