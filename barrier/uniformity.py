"""Which barriers every thread of a block reaches: a thread-uniformity analysis, as data.

CUDA requires every thread of a block to reach each ``__syncthreads()``.  The split lowering
(``barrier-interchange``) relies on it: it runs the control flow around a barrier once per block,
with a condition the threads computed, so a condition that differs between the threads of a
block gives wrong results silently.  This module says, for each barrier, whether the conditions
that lead to it can differ between threads.

Requires: a kernel in parallel-loop form (``parallel-loops``).  Produces: :class:`Uniformity`
(for each barrier, the :class:`Divergence` of the control flow around it).

Values are abstracted to three levels (:class:`Level`):

* ``UNIFORM``: the same in every thread of the block (literals, ``blockIdx``/``blockDim``/
  ``gridDim``, parameters, loads from a block-uniform address, ``__syncthreads_count``);
* ``UNKNOWN``: may differ, undecided: a load from an address that differs between threads
  (``a[threadIdx.x]`` may hold one value everywhere), a warp collective's result, a call the
  analysis cannot see into, a variable whose address escaped;
* ``VARYING``: differs between threads: computed from ``threadIdx`` or from an atomic's result.

The analysis is an abstract interpretation of the structured body, flow-sensitive (an assignment
under uniform control replaces a variable's level: ``for (i = blockDim.x / 2; ...)`` is uniform
even where ``i`` held ``threadIdx.x`` before), with control dependence (a variable assigned under
a condition that may differ, or in a loop some threads leave early, takes the condition's level),
loops to a fixpoint (levels only rise, so it ends), through calls (``__device__`` bodies are
analysed with the arguments' levels; a call it cannot see into is ``UNKNOWN`` and may change the
variables passed to it), through pointers to per-thread variables (``f(&v)`` where ``f`` only
reads and writes what its parameter points to: ``v`` holds what ``f`` stores there; any other
``&v`` makes ``v`` undecided), through memory (a per-thread array is one variable; memory shared by
the block is read by address: a uniform address gives a uniform value, as CUDA's race-freedom
promises, ``volatile`` global memory excepted), and through atomics (``VARYING``).

A barrier under ``VARYING`` control is an error in CUDA; under ``UNKNOWN`` control only the
fallback lowering (fibers) is certainly right.  The analysis never answers ``UNIFORM`` for what
it does not understand (a ``goto``, an indirect call, an unknown expression kind).

Example::

    __device__ int gid() { return blockIdx.x * blockDim.x + threadIdx.x; }
    int i = gid();                 // VARYING (threadIdx, through the call)
    if (i < n) {                   // control: VARYING, caused by this condition
        __syncthreads();           // -> Divergence(VARYING, "threadIdx", the if)
    }
    for (i = blockDim.x / 2; i > 0; i >>= 1) {   // i: UNIFORM again
        __syncthreads();           // -> not divergent
    }
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import IntEnum

from barrier.accesses import ATOMICS_PREFIX, BY_VALUE_LIBRARY, READ_ONLY_LOADS, is_pure_function
from foundation import ir


class Level(IntEnum):
    UNIFORM = 0
    UNKNOWN = 1
    VARYING = 2


@dataclass(frozen=True)
class Value:
    """The level of a value and, when it is not uniform, what makes it differ (for messages)."""

    level: Level = Level.UNIFORM
    why: str = ""

    def join(self, other: "Value") -> "Value":
        return self if self.level >= other.level else other


UNIFORM = Value()


@dataclass(frozen=True)
class Divergence:
    """Why some threads of a block may not reach a point: the construct (``node``: an ``if``, a
    loop, a ``switch``, or the ``break``/``continue``/``return`` some threads take) whose
    condition is at ``level``, and what makes it differ (``why``)."""

    level: Level = Level.UNIFORM
    why: str = ""
    node: ir.Node | None = None

    def join(self, other: "Divergence") -> "Divergence":
        return self if self.level >= other.level else other

    def under(self, value: Value, node: ir.Node) -> "Divergence":
        """This control, further conditioned on ``value`` (the condition of ``node``)."""
        if value.level > self.level:
            return Divergence(value.level, value.why, node)
        return self


UNDIVIDED = Divergence()


def _join_values(values) -> Value:
    out = UNIFORM
    for v in values:
        out = out.join(v)
    return out


def _join_envs(a: dict[int, Value], b: dict[int, Value]) -> dict[int, Value]:
    out = dict(a)
    for sym, v in b.items():
        out[sym] = out[sym].join(v) if sym in out else v
    return out


def _root(e: ir.Expr) -> tuple[ir.Name | None, list[ir.Expr], bool]:
    """The variable an lvalue ``e`` is part of (``v``, ``v[i]``, ``v.f[j]``), the index
    expressions on the way, and whether the way dereferences a pointer (``->``, ``*``)."""
    indices: list[ir.Expr] = []
    through_pointer = False
    while True:
        if isinstance(e, ir.Index):
            indices.append(e.index)
            e = e.base
        elif isinstance(e, ir.Member):
            through_pointer |= e.arrow
            e = e.base
        elif isinstance(e, ir.Unary) and e.op == "*":
            through_pointer = True
            e = e.operand
        elif isinstance(e, ir.Cast):
            e = e.operand
        else:
            break
    return (e if isinstance(e, ir.Name) else None), indices, through_pointer


def _is_array(type_: str) -> bool:
    return "[" in type_


def _is_reference(type_: str) -> bool:
    return "&" in type_.replace("&&", "&")


#: Types whose values cannot hold a pointer (what a value read from a per-thread variable's
#: storage may be kept in without the storage's address escaping with it).
_ARITHMETIC = re.compile(r"^(const\s+)?(volatile\s+)?((un)?signed\s+)?"
                         r"(bool|char|short|int|long|long\s+long|float|double|half|__half|"
                         r"(u)?int(8|16|32)_t|unsigned|signed)(\s+int)?$")
_POINTER_WIDE = ("long", "size_t", "ptr", "64")


def _arithmetic(type_: str) -> bool:
    return bool(_ARITHMETIC.match(type_.strip()))


def _paths(node: ir.Node):
    """Every node below ``node`` with its ancestors, innermost first."""
    pending = [(node, ())]
    while pending:
        n, up = pending.pop()
        yield n, up
        pending.extend((c, (n,) + up) for c in n.children())


def _pointer_stays_local(fn: ir.DeviceFunction, index: int, bodies: dict[str, ir.DeviceFunction],
                         visiting: frozenset = frozenset()) -> bool:
    """Whether ``fn`` only reads and writes the storage its pointer parameter ``index`` points to:
    the pointer is only dereferenced (``p->f``, ``*p``, ``p[i]``) or passed on to such a parameter,
    and what is reached through it is only stored to, tested, computed with into a number, or
    returned as a number, never has its address kept (``&p->f``, a reference, an array member
    decaying to a pointer that is kept or passed).  Then a caller's ``f(&v)``, ``v`` a per-thread
    variable, lets no other pointer to ``v`` exist: ``v`` holds what is stored there, and the
    analysis follows the stores (:meth:`_Interpreter.call`).  Undecided is ``False``."""
    if index >= len(fn.params) or (fn.name, index) in visiting:
        return False
    param = fn.params[index]
    if param.type.count("*") != 1 or _is_reference(param.type) or _is_array(param.type):
        return False
    visiting = visiting | {(fn.name, index)}
    for n, up in _paths(fn.body):
        if not (isinstance(n, ir.Name) and n.sym == param.sym):
            continue
        parent = up[0] if up else None
        if isinstance(parent, ir.Call):
            callee = bodies.get(ir.callee_name(parent.func))
            position = next(i for i, a in enumerate(parent.args) if a is n)
            skip = max(len(parent.args) - len(callee.params), 0) if callee is not None else 0
            if callee is None or not _pointer_stays_local(callee, position - skip, bodies, visiting):
                return False
            continue
        dereferenced = (isinstance(parent, ir.Member) and parent.arrow and parent.base is n) \
            or (isinstance(parent, ir.Unary) and parent.op == "*") \
            or (isinstance(parent, ir.Index) and parent.base is n)
        if not dereferenced or not _used_as_number(n, up, fn):
            return False
    return True


def _used_as_number(root: ir.Name, up: tuple, fn: ir.DeviceFunction) -> bool:
    """Whether what is reached through ``root`` (with ancestors ``up``) is used only as
    :func:`_pointer_stays_local` allows."""
    child: ir.Node = root
    for parent in up:
        if isinstance(parent, ir.Index) and child is parent.index and isinstance(parent.base, ir.Name) \
                and _indexable(fn, parent.base.sym):
            return True  # an index into other memory
        if isinstance(parent, (ir.Member, ir.Index)) or (
                isinstance(parent, ir.Unary) and parent.op in ("*", "+", "-", "~")):
            child = parent
        elif isinstance(parent, ir.Binary):
            if parent.op in ("==", "!=", "<", "<=", ">", ">=", "&&", "||"):
                return True  # a truth value
            if parent.op == "," and child is parent.lhs:
                return True  # discarded
            child = parent
        elif isinstance(parent, ir.Unary) and parent.op == "!":
            return True
        elif isinstance(parent, ir.Unary) and parent.op in ("++", "--"):
            return _same_variable(_root(parent.operand)[0], root)
        elif isinstance(parent, ir.Conditional):
            if child is parent.cond:
                return True
            child = parent
        elif isinstance(parent, ir.Cast):
            if not _arithmetic(parent.type) or any(w in parent.type for w in _POINTER_WIDE):
                return False
            child = parent
        elif isinstance(parent, ir.Assign):
            # a store into the storage itself (followed as such), or a number kept in a variable
            target = _root(parent.target)[0]
            if _same_variable(target, root):
                return True
            return child is parent.value and parent.op == "=" and target is not None \
                and parent.target is target and _arithmetic(_declared_type(fn, target.sym))
        elif isinstance(parent, ir.VarDecl):
            return _arithmetic(parent.type)
        elif isinstance(parent, (ir.If, ir.While, ir.DoWhile, ir.Switch)):
            return child is parent.cond
        elif isinstance(parent, ir.For):
            return child is parent.cond or child is parent.step
        elif isinstance(parent, ir.ExprStmt):
            return True
        elif isinstance(parent, ir.Return):
            return _arithmetic(fn.return_type)
        elif isinstance(parent, ir.Call):
            return is_pure_function(parent.func)
        else:
            return False
    return False


def _same_variable(a: ir.Name | None, b: ir.Name) -> bool:
    return a is not None and a.sym == b.sym


def _indexable(fn: ir.DeviceFunction, sym: int) -> bool:
    type_ = _declared_type(fn, sym)
    return "*" in type_ or _is_array(type_)


def _declared_type(fn: ir.DeviceFunction, sym: int) -> str:
    for n in fn.body.walk():
        if isinstance(n, ir.VarDecl) and n.sym == sym:
            return n.type
    return next((p.type for p in fn.params if p.sym == sym), "")


@dataclass
class _Loop:
    """What a loop (or ``switch``) being interpreted collects from its ``break``/``continue``."""

    is_switch: bool
    entry_env: dict[int, Value] = field(default_factory=dict)  # a switch: the variables at its cases
    exits: Divergence = UNDIVIDED  # control at the break/continue statements (a loop)
    break_env: dict[int, Value] | None = None
    continue_env: dict[int, Value] | None = None


@dataclass
class Uniformity:
    """The analysis' answer for one kernel: the control around each barrier (by id: each
    ``Barrier`` statement and each block vote, a ``WarpCollective`` of block scope)."""

    barriers: dict[int, Divergence] = field(default_factory=dict)
    #: the control around each warp collective (by id), counting threads that exited before it
    #: (a lane that returned does not take part in a later shuffle)
    collectives: dict[int, Divergence] = field(default_factory=dict)

    def at(self, barrier: ir.Barrier) -> Divergence:
        return self.barriers.get(id(barrier), Divergence(Level.UNKNOWN, "code the analysis did not see", barrier))


class _Interpreter:
    """Abstract interpretation of one function body (a kernel's thread loops, or a device
    function) over :class:`Value` levels."""

    def __init__(self, symbols: dict[int, ir.Symbol], bodies: dict[str, ir.DeviceFunction],
                 summaries: dict, in_progress: set[str], threads_exit: bool) -> None:
        self.symbols = symbols
        self.bodies = bodies
        self.summaries = summaries
        self.in_progress = in_progress
        #: a kernel's ``return`` ends the thread (it reaches nothing after); a function returns to
        #: its caller, where the threads that returned early meet the others again
        self.threads_exit = threads_exit
        self.tracked: dict[int, str] = {}  # per-thread variables (locals, parameters): symbol -> type
        self.params: set[int] = set()
        self.escaped: set[int] = set()  # per-thread variables whose address is taken
        self.alias: dict[int, int] = {}  # a reference -> the per-thread variable it names
        #: pointer parameters whose target only this function reads and writes (the caller's
        #: per-thread variable, :func:`_pointer_stays_local`): the parameter's level is the level
        #: of what it points to, and stores through it change that
        self.cells: set[int] = set()
        #: ``&v`` arguments (by id) passed to such a parameter: ``v`` does not escape there
        self.cell_args: set[int] = set()
        self.env: dict[int, Value] = {}
        self.ctx = UNDIVIDED
        self.returned = UNDIVIDED  # a function: control at returns some threads took early
        self.result = UNIFORM  # a function: the join of its returned values
        self.exit_env: dict[int, Value] | None = None
        self.loops: list[_Loop] = []
        self.barriers: dict[int, Divergence] = {}
        self.collectives: dict[int, Divergence] = {}
        #: a kernel: control at the returns some threads took (they reach no later collective)
        self.exited = UNDIVIDED
        #: control flow the interpretation does not follow was met (a goto may jump back before
        #: what was already interpreted): then nothing of the body is known to be uniform
        self.unstructured: Value | None = None

    # ----------------------------------------------------------------------------- set-up

    def declare_param(self, p: ir.Param, value: Value) -> None:
        self.tracked[p.sym] = p.type
        self.params.add(p.sym)
        self.env[p.sym] = value

    def per_thread(self, sym: int) -> bool:
        return sym in self.tracked or sym in self.alias

    def local_array(self, sym: int) -> bool:
        return _is_array(self.tracked.get(sym, "")) and sym not in self.params

    def prescan(self, node: ir.Node) -> None:
        """Per-thread variables of ``node`` and those whose address escapes."""
        for n in node.walk():
            if isinstance(n, ir.VarDecl) and n.storage == "auto":
                self.tracked[n.sym] = n.type
        for n in node.walk():
            if isinstance(n, ir.Call):  # before its arguments (pre-order)
                self.cell_args |= {id(a) for _, a, _ in self.cell_arguments(n)}
            if isinstance(n, ir.Unary) and n.op == "&" and id(n) in self.cell_args:
                pass
            elif isinstance(n, ir.Unary) and n.op == "&":
                root = _root(n.operand)[0]
                if root is not None and self.per_thread(root.sym):
                    self.escaped.add(self.var(root.sym))
            elif isinstance(n, ir.VarDecl) and n.storage == "auto" and _is_reference(n.type) and n.init is not None:
                if isinstance(n.init, ir.Name) and self.per_thread(n.init.sym):
                    self.alias[n.sym] = self.var(n.init.sym)
                else:
                    self.escaped.add(n.sym)
                    root = _root(n.init)[0]
                    if root is not None and self.per_thread(root.sym):
                        self.escaped.add(self.var(root.sym))
            for child in n.children():
                # a per-thread array used as a pointer (passed, assigned, offset) escapes
                if isinstance(child, ir.Name) and self.local_array(child.sym) \
                        and not (isinstance(n, (ir.Index, ir.Member)) and child is n.base) \
                        and not isinstance(n, ir.SizeOf):
                    self.escaped.add(child.sym)

    # ------------------------------------------------------------------------- variables

    def var(self, sym: int) -> int:
        return self.alias.get(sym, sym)

    def cell_arguments(self, call: ir.Call) -> list[tuple[int, ir.Expr, int]]:
        """The arguments of ``call`` that pass a per-thread variable's address to a parameter
        that only reads and writes its target (:func:`_pointer_stays_local`): (position among
        the callee's parameters, the argument, the variable)."""
        fn = self.bodies.get(ir.callee_name(call.func))
        if fn is None:
            return []
        skip = max(len(call.args) - len(fn.params), 0)
        found = []
        for position, arg in enumerate(call.args[skip:]):
            if isinstance(arg, ir.Unary) and arg.op == "&" and isinstance(arg.operand, ir.Name):
                sym = arg.operand.sym
                if not self.per_thread(sym) or self.local_array(self.var(sym)):
                    continue
            elif isinstance(arg, ir.Name) and self.var(arg.sym) in self.cells:
                sym = arg.sym
            else:
                continue
            if _pointer_stays_local(fn, position, self.bodies):
                found.append((position, arg, self.var(sym)))
        return found

    def read_var(self, sym: int) -> Value:
        sym = self.var(sym)
        v = self.env.get(sym, UNIFORM)
        if sym in self.escaped:
            v = v.join(Value(Level.UNKNOWN, "a variable whose address is taken"))
        return v

    def control_value(self) -> Value:
        c = self.ctx.join(self.returned)
        return Value(c.level, c.why)

    def write_var(self, sym: int, value: Value, whole: bool) -> None:
        """Assign ``value`` to variable ``sym`` (all of it when ``whole``, else a part of it)
        under the current control: where not every thread assigns, the old value stays too."""
        sym = self.var(sym)
        value = value.join(self.control_value())
        if whole and self.ctx.level == Level.UNIFORM and self.returned.level == Level.UNIFORM:
            self.env[sym] = value
        else:
            self.env[sym] = self.env.get(sym, UNIFORM).join(value)

    def fork(self, fn) -> None:
        """Run ``fn`` on a copy of the variables; after it, either may hold."""
        before = dict(self.env)
        fn()
        self.env = _join_envs(before, self.env)

    def under(self, cond: Value, node: ir.Node, fn):
        outer = self.ctx
        self.ctx = outer.under(cond, node)
        try:
            return fn()
        finally:
            self.ctx = outer

    # ------------------------------------------------------------------------ statements

    def stmt(self, s: ir.Stmt) -> None:
        if isinstance(s, ir.Block):
            for inner in s.stmts:
                self.stmt(inner)
        elif isinstance(s, ir.VarDecl):
            self.var_decl(s)
        elif isinstance(s, ir.ExprStmt):
            self.value(s.expr)
        elif isinstance(s, ir.If):
            self.if_stmt(s)
        elif isinstance(s, (ir.For, ir.While, ir.DoWhile)):
            self.loop(s)
        elif isinstance(s, ir.Switch):
            self.switch(s)
        elif isinstance(s, ir.Case):
            switch = next((st for st in reversed(self.loops) if st.is_switch), None)
            if switch is not None:
                self.env = _join_envs(self.env, switch.entry_env)  # jumped to from the switch
            self.value(s.value)
            self.stmt(s.body)
        elif isinstance(s, (ir.Break, ir.Continue)):
            self.jump(s)
        elif isinstance(s, (ir.Return, ir.NextThread)):
            self.ret(s)
        elif isinstance(s, ir.Barrier):
            self.reach(s)
        elif isinstance(s, ir.ThreadLoop):
            self.stmt(s.body)
        elif isinstance(s, (ir.Empty, ir.WarpSync, ir.FiberBarrier)):
            pass
        else:
            self.give_up(s)  # goto, labels, anything unforeseen

    def reach(self, sync: ir.Node) -> None:
        """Record the control at a barrier (a statement, or a block vote)."""
        here = self.ctx.join(self.returned)
        old = self.barriers.get(id(sync))
        self.barriers[id(sync)] = here if old is None else old.join(here)

    def give_up(self, s: ir.Node) -> None:
        """Control flow the analysis does not follow: nothing is uniform (see ``finish``)."""
        unknown = Value(Level.UNKNOWN, f"control flow the analysis does not follow (line {s.loc.line})")
        self.unstructured = self.unstructured or unknown
        for sym in list(self.env):
            self.env[sym] = self.env[sym].join(unknown)
        self.returned = self.returned.under(unknown, s)
        for state in self.loops:
            state.exits = state.exits.under(unknown, s)

    def var_decl(self, s: ir.VarDecl) -> None:
        if s.storage != "auto" or s.sym in self.alias:
            return
        value = self.value(s.init) if s.init is not None else UNIFORM
        self.env[s.sym] = value.join(self.control_value())

    def if_stmt(self, s: ir.If) -> None:
        # An `if constexpr` condition is a constant expression: the same in every thread, whatever
        # names it (a template's `Traits::kN`) the analysis cannot read.
        cond = UNIFORM if s.constexpr else self.value(s.cond)
        before = dict(self.env)
        self.under(cond, s, lambda: self.stmt(s.then))
        after_then = self.env
        self.env = before
        if s.otherwise is not None:
            self.under(cond, s, lambda: self.stmt(s.otherwise))
        self.env = _join_envs(after_then, self.env)

    def loop(self, s: ir.Stmt) -> None:
        """A loop, to a fixpoint: the variables at its head only grow, as does the control in
        its body (its condition, and the break/continue statements some threads take)."""
        if isinstance(s, ir.For) and s.init is not None:
            self.stmt(s.init)
        outer = self.ctx
        state = _Loop(is_switch=False)
        self.loops.append(state)
        head = dict(self.env)
        repeat = UNIFORM  # a do/while: the condition that brings the threads back
        while True:
            self.env = dict(head)
            cond = repeat
            if isinstance(s, (ir.For, ir.While)) and s.cond is not None:
                cond = self.under(state.exits, s, lambda: self.value(s.cond))
            control = outer.under(cond, s).join(state.exits)
            at_exit = dict(self.env)
            exits_before = state.exits.level
            exited_before = self.exited.level
            self.ctx = control
            self.stmt(s.body)
            if state.continue_env is not None:
                self.env = _join_envs(self.env, state.continue_env)
            if isinstance(s, ir.For) and s.step is not None:
                self.value(s.step)
            if isinstance(s, ir.DoWhile):
                again = self.value(s.cond)
                at_exit = dict(self.env)
                repeat = repeat.join(again)
            self.ctx = outer
            new_head = _join_envs(head, self.env)
            settled = outer.under(cond, s).join(state.exits)
            if new_head == head and state.exits.level == exits_before and settled.level == control.level \
                    and self.exited.level == exited_before \
                    and (not isinstance(s, ir.DoWhile) or repeat.level <= cond.level):
                break
            head = new_head
        self.loops.pop()
        exit_env = at_exit if state.break_env is None else _join_envs(at_exit, state.break_env)
        # Threads leave the loop at different iterations when its condition or a break differs
        # between them: what the loop assigns may differ after it.
        if control.level > outer.level:
            spread = Value(control.level, control.why)
            for sym in _assigned_in(s, self):
                exit_env[sym] = exit_env.get(sym, UNIFORM).join(spread)
        self.env = exit_env

    def switch(self, s: ir.Switch) -> None:
        cond = self.value(s.cond)
        state = _Loop(is_switch=True, entry_env=dict(self.env))
        self.loops.append(state)
        self.under(cond, s, lambda: self.stmt(s.body))
        self.loops.pop()
        self.env = _join_envs(_join_envs(state.entry_env, self.env), state.break_env or {})

    def jump(self, s: ir.Stmt) -> None:
        target = next((st for st in reversed(self.loops) if isinstance(s, ir.Break) or not st.is_switch), None)
        if target is None:
            return
        if isinstance(s, ir.Break):
            target.break_env = dict(self.env) if target.break_env is None else _join_envs(target.break_env, self.env)
        else:
            target.continue_env = dict(self.env) if target.continue_env is None else _join_envs(
                target.continue_env, self.env)
        here = self.ctx.join(self.returned)
        if not target.is_switch and here.level > target.exits.level:
            target.exits = Divergence(here.level, here.why, s)

    def ret(self, s: ir.Stmt) -> None:
        value = self.value(s.value) if isinstance(s, ir.Return) else UNIFORM
        here = self.ctx.join(self.returned)
        self.result = self.result.join(value).join(Value(here.level, here.why))
        self.exit_env = dict(self.env) if self.exit_env is None else _join_envs(self.exit_env, self.env)
        self.exited = self.exited.join(here)
        if not self.threads_exit:
            # the threads that return here meet the others again in the caller
            self.returned = self.returned.join(here)
            for state in self.loops:
                if here.level > state.exits.level:
                    state.exits = Divergence(here.level, here.why, s)

    def finish(self) -> None:
        """After the body: where it held control flow the analysis does not follow, every
        barrier and the result are at least undecided."""
        if self.unstructured is None:
            return
        for found in (self.barriers, self.collectives):
            for key, d in found.items():
                if d.level < Level.UNKNOWN:
                    found[key] = Divergence(Level.UNKNOWN, self.unstructured.why, None)
        self.result = self.result.join(self.unstructured)
        if self.exit_env is not None:
            self.exit_env = {sym: v.join(self.unstructured) for sym, v in self.exit_env.items()}
        self.env = {sym: v.join(self.unstructured) for sym, v in self.env.items()}

    # ----------------------------------------------------------------------- expressions

    def value(self, e: ir.Expr | None) -> Value:
        if e is None or isinstance(e, (ir.Literal, ir.SizeOf)):
            return UNIFORM
        if isinstance(e, (ir.Builtin, ir.BuiltinVector)):
            return Value(Level.VARYING, "threadIdx") if e.var == "threadIdx" else UNIFORM
        if isinstance(e, ir.Name):
            return self.name(e)
        if isinstance(e, (ir.Index, ir.Member)) or (isinstance(e, ir.Unary) and e.op == "*"):
            return self.load(e)
        if isinstance(e, ir.Unary):
            if e.op == "&":
                return self.address(e.operand)
            if e.op in ("++", "--"):
                return self.assign(e.operand, self.value(e.operand))
            return self.value(e.operand)
        if isinstance(e, ir.Binary):
            lhs = self.value(e.lhs)
            if e.op in ("&&", "||"):
                found = []
                self.fork(lambda: found.append(self.under(lhs, e, lambda: self.value(e.rhs))))
                return lhs.join(found[0])
            rhs = self.value(e.rhs)
            return rhs if e.op == "," else lhs.join(rhs)
        if isinstance(e, ir.Assign):
            value = self.value(e.value)
            if e.op != "=":
                value = value.join(self.value(e.target))
            return self.assign(e.target, value)
        if isinstance(e, ir.Conditional):
            cond = self.value(e.cond)
            before = dict(self.env)
            then = self.under(cond, e, lambda: self.value(e.then))
            after_then = self.env
            self.env = before
            other = self.under(cond, e, lambda: self.value(e.otherwise))
            self.env = _join_envs(after_then, self.env)
            return cond.join(then).join(other)
        if isinstance(e, ir.Cast):
            return self.value(e.operand)
        if isinstance(e, ir.Construct):
            return _join_values([self.value(a) for a in e.args])
        if isinstance(e, ir.InitList):
            return _join_values([self.value(a) for a in e.elements])
        if isinstance(e, ir.Call):
            return self.call(e)
        if isinstance(e, ir.WarpCollective):
            for part in (e.mask, e.value, e.operand, e.width):
                self.value(part)
            if e.scope != "block":
                here = self.ctx.join(self.returned).join(self.exited)
                old = self.collectives.get(id(e))
                self.collectives[id(e)] = here if old is None else old.join(here)
                return Value(Level.UNKNOWN, "a warp collective's result")
            self.reach(e)  # __syncthreads_count/and/or: a barrier too
            if e.op == "reduce":  # cg::reduce over a tile of several warps: the same within the tile only
                return Value(Level.UNKNOWN, "a tile's reduction")
            return UNIFORM
        if isinstance(e, ir.IndirectCall):
            self.value(e.callee)
            self.arguments(e.args, by_reference=True)
            return Value(Level.UNKNOWN, "the result of an indirect call")
        for child in e.children():
            if isinstance(child, ir.Expr):
                self.value(child)
        return Value(Level.UNKNOWN, f"an expression the analysis does not know (line {e.loc.line})")

    def name(self, e: ir.Name) -> Value:
        if self.per_thread(e.sym):
            if self.local_array(self.var(e.sym)):
                return Value(Level.UNKNOWN, "the address of a per-thread array")
            return self.read_var(e.sym)
        info = self.symbols.get(e.sym)
        if info is None:
            return Value(Level.UNKNOWN, f"'{e.name}', which the analysis does not know")
        if info.kind in ("function", "constant", "other"):
            return UNIFORM
        if "volatile" in info.type and info.kind != "shared":
            return Value(Level.UNKNOWN, f"the volatile variable '{e.name}'")
        return UNIFORM  # block-shared or global memory at a fixed address: one value for the block

    def load(self, e: ir.Expr) -> Value:
        """The value of an lvalue: a per-thread variable's level, or a load from memory."""
        if isinstance(e, ir.Member) and not e.arrow and _root(e)[0] is None:
            return self.value(e.base)  # a member of a value: (a + b).x, f().y
        root, indices, through_pointer = _root(e)
        index = _join_values([self.value(i) for i in indices])
        if root is not None and self.per_thread(root.sym):
            sym = self.var(root.sym)
            own = self.read_var(sym)
            if through_pointer or (indices and not self.local_array(sym)):
                return self.memory(own.join(index), volatile="volatile" in self.tracked.get(sym, ""))
            return own.join(index)
        if root is not None:
            info = self.symbols.get(root.sym)
            if info is None:
                return Value(Level.UNKNOWN, f"'{root.name}', which the analysis does not know")
            return self.memory(index, volatile="volatile" in info.type and info.kind != "shared")
        return self.memory(self.pointer_value(e).join(index), volatile=False)

    def pointer_value(self, e: ir.Expr) -> Value:
        """The level of the pointer an lvalue not rooted at a variable is reached through."""
        while isinstance(e, (ir.Index, ir.Member, ir.Cast)) or (isinstance(e, ir.Unary) and e.op == "*"):
            e = e.base if isinstance(e, (ir.Index, ir.Member)) else e.operand
        return self.value(e)

    @staticmethod
    def memory(address: Value, volatile: bool) -> Value:
        if volatile:
            return Value(Level.UNKNOWN, "a volatile load")
        if address.level == Level.UNIFORM:
            return UNIFORM
        return Value(Level.UNKNOWN, "a load from an address that differs between threads")

    def address(self, e: ir.Expr) -> Value:
        root, indices, through_pointer = _root(e)
        index = _join_values([self.value(i) for i in indices])
        if root is not None and self.per_thread(root.sym):
            if through_pointer or (indices and not self.local_array(self.var(root.sym))):
                return self.read_var(root.sym).join(index)  # &p[i]: pointer arithmetic
            return Value(Level.UNKNOWN, "the address of a per-thread variable")
        if root is not None:
            return index
        return self.pointer_value(e).join(index)

    def assign(self, target: ir.Expr, value: Value) -> Value:
        root, indices, through_pointer = _root(target)
        index = _join_values([self.value(i) for i in indices])
        if root is None:
            self.pointer_value(target)
            return value
        if not self.per_thread(root.sym):
            return value  # a store to memory: loads are judged by their address
        sym = self.var(root.sym)
        if sym in self.cells:  # a store to the caller's variable the parameter points to
            self.write_var(sym, value.join(index), whole=False)
            return value
        if through_pointer or (indices and not self.local_array(sym)):
            return value  # a store through a per-thread pointer: its target escaped, if per-thread
        self.write_var(sym, value.join(index), whole=target is root)
        return value

    # ------------------------------------------------------------------------------ calls

    def arguments(self, args, by_reference: bool) -> list[Value]:
        """The arguments' values; with ``by_reference``, the callee may change a variable passed
        as it is (a C++ reference parameter)."""
        values = [self.value(a) for a in args]
        if by_reference:
            changed = Value(Level.UNKNOWN, "a variable passed to a function the analysis does not see into")
            for a in args:
                if isinstance(a, ir.Name) and self.per_thread(a.sym):
                    self.write_var(a.sym, changed, whole=False)
        return values

    def call(self, e: ir.Call) -> Value:
        name = ir.callee_name(e.func)
        if name.startswith(ATOMICS_PREFIX) or name.startswith("__nv_atomic"):
            self.arguments(e.args, by_reference=False)
            return Value(Level.VARYING, f"the result of {name}()")
        if name in READ_ONLY_LOADS and e.args:
            address = self.value(e.args[0])
            self.arguments(e.args[1:], by_reference=False)
            return self.memory(address, volatile=False)
        if is_pure_function(e.func):
            return _join_values(self.arguments(e.args, by_reference=False))
        if e.func.startswith("moccuda::warp::block_"):
            self.arguments(e.args, by_reference=False)
            return UNIFORM  # __syncthreads_count/and/or: one result for the block
        if e.func.startswith("moccuda::warp::"):
            self.arguments(e.args, by_reference=False)
            return Value(Level.UNKNOWN, "a warp collective's result")
        fn = self.bodies.get(name)
        if fn is None and e.func.split("<", 1)[0] in _SAME_GROUP_FOR_THE_BLOCK:
            self.arguments(e.args, by_reference=False)
            return UNIFORM
        if fn is None:
            self.arguments(e.args, by_reference=name not in BY_VALUE_LIBRARY)
            return Value(Level.UNKNOWN, f"the result of {e.func}(), which the analysis does not see into")
        skip = max(len(e.args) - len(fn.params), 0)  # leading builtin vectors (translated functions)
        values = self.arguments(e.args, by_reference=False)[skip:]
        values += [UNIFORM] * (len(fn.params) - len(values))  # defaulted arguments: constants
        cells = self.cell_arguments(e)
        for position, _, sym in cells:
            values[position] = self.read_var(sym)  # what the pointer points to
        result, out = self.summary(fn, tuple(values), frozenset(position for position, _, _ in cells))
        for position, _, sym in cells:
            self.write_var(sym, out[position], whole=False)
        for i, param in enumerate(fn.params):
            arg = e.args[skip + i] if skip + i < len(e.args) else None
            if _is_reference(param.type) and "const" not in param.type and isinstance(arg, ir.Name) \
                    and self.per_thread(arg.sym):
                self.write_var(arg.sym, out.get(i, Value(Level.UNKNOWN, "a reference parameter")), whole=True)
        return result

    def summary(self, fn: ir.DeviceFunction, args: tuple[Value, ...],
                cells: frozenset[int] = frozenset()) -> tuple[Value, dict[int, Value]]:
        """The level of ``fn``'s result for arguments at ``args``, and the levels its reference
        parameters hold when it returns; for the pointer parameters at positions ``cells``, the
        argument is the level of what it points to, and so is what comes back."""
        key = (fn.name, args, cells)
        if key in self.summaries:
            return self.summaries[key]
        if fn.name in self.in_progress:
            return Value(Level.UNKNOWN, f"the result of the recursive function {fn.name}()"), {}
        self.in_progress.add(fn.name)
        try:
            inner = _Interpreter(self.symbols, self.bodies, self.summaries, self.in_progress, threads_exit=False)
            for p, v in zip(fn.params, args):
                inner.declare_param(p, v)
            inner.cells = {fn.params[i].sym for i in cells}
            inner.prescan(fn.body)
            inner.stmt(fn.body)
            inner.finish()
            end = inner.env if inner.exit_env is None else _join_envs(inner.exit_env, inner.env)
            out = {i: end.get(p.sym, UNIFORM) for i, p in enumerate(fn.params) if _is_reference(p.type) or i in cells}
            result = inner.result
            if result.level > Level.UNIFORM and "through" not in result.why:
                result = Value(result.level, f"{result.why}, through {fn.name}()")
        finally:
            self.in_progress.discard(fn.name)
        self.summaries[key] = (result, out)
        return result, out


#: Library functions that take no C++ references: a variable passed to them stays as it was.
#: The cooperative-groups functions whose group is the same value in every thread of a block
#: (the block, or a tile size): the front end spells them fully qualified
#: (``cuda_front.warp_front``), so no user function of the same name is taken for one.
_SAME_GROUP_FOR_THE_BLOCK = frozenset({"cooperative_groups::this_thread_block", "cooperative_groups::tiled_partition"})



def _assigned_in(node: ir.Node, interp: _Interpreter) -> set[int]:
    """Per-thread variables that ``node`` may change."""
    found = set()
    for n in node.walk():
        target = None
        if isinstance(n, ir.Assign):
            target = n.target
        elif isinstance(n, ir.Unary) and n.op in ("++", "--"):
            target = n.operand
        elif isinstance(n, ir.VarDecl):
            found.add(n.sym)
        elif isinstance(n, (ir.Call, ir.IndirectCall)):
            found |= {interp.var(a.sym) for a in n.args if isinstance(a, ir.Name) and a.sym in interp.tracked}
            found |= {interp.var(a.operand.sym) for a in n.args if isinstance(a, ir.Unary) and a.op == "&"
                      and isinstance(a.operand, ir.Name) and interp.per_thread(a.operand.sym)}
        if target is not None:
            root = _root(target)[0]
            if root is not None and interp.per_thread(root.sym):
                found.add(interp.var(root.sym))
    return found


def kernel_uniformity(kernel: ir.Kernel, symbols: dict[int, ir.Symbol],
                      bodies: dict[str, ir.DeviceFunction] | None = None) -> Uniformity:
    """The control around every barrier of ``kernel`` (in parallel-loop form)."""
    interp = _Interpreter(symbols, bodies or {}, {}, set(), threads_exit=True)
    for p in kernel.params:
        interp.declare_param(p, UNIFORM)
    grid = ir.grid_loop(kernel)
    body = grid.body if grid is not None else kernel.body
    # A block's threads: thread loops, or (the fallback lowering's kernels) fibers.
    for s in (body.stmts if isinstance(body, ir.Block) else (body,)):
        if isinstance(s, (ir.ThreadLoop, ir.FiberLoop)):
            interp.prescan(s)
    for s in (body.stmts if isinstance(body, ir.Block) else (body,)):
        if isinstance(s, (ir.ThreadLoop, ir.FiberLoop)):
            interp.stmt(s.body)
        elif isinstance(s, (ir.VarDecl, ir.Empty)):
            continue  # block-level storage: memory of the block
        elif ir.contains(s, ir.Barrier) or ir.contains(s, ir.WarpCollective):
            interp.stmt(s)
    interp.finish()
    return Uniformity(interp.barriers, interp.collectives)


def for_kernel(kernel: ir.Kernel, ctx) -> Uniformity:
    """:func:`kernel_uniformity` with a pass context's symbols and device function bodies."""
    return kernel_uniformity(kernel, ctx.symbols, getattr(ctx, "device_bodies", None) or {})
