"""The C++ text of IR expressions: parentheses from one table, GPU shifts, declarators.

The emitter prints with this, and analyses quote expressions with it in their reasons and
reports (``--explain``), so it lives below both.  Parentheses are placed by precedence
(``PRECEDENCE``), plus a few the C++ compiler would ask for under ``-Wall -Wparentheses``
(``&&`` inside ``||``, arithmetic inside shifts and bitwise operators, an assignment used as a
condition), so the generated code compiles without warnings.  A shift whose count may reach the
operand's width prints as MocCUDA's GPU shift (``GPU_SHIFTS``).
"""

from __future__ import annotations

import re

from foundation import ir
from foundation.diagnostics import CompileError, error
from foundation.integer_types import int_literal

#: A member named as a template-id: `size<0>` (not `operator<`).
_MEMBER_TEMPLATE_ID = re.compile(r"(?!operator\b)[A-Za-z_]\w*\s*<")

# Higher binds tighter.
PRECEDENCE = {
    ",": 1,
    "=": 3, "+=": 3, "-=": 3, "*=": 3, "/=": 3, "%=": 3, "<<=": 3, ">>=": 3, "&=": 3, "|=": 3, "^=": 3,
    "?:": 3,
    "||": 4, "&&": 5, "|": 6, "^": 7, "&": 8,
    "==": 9, "!=": 9,
    "<": 10, "<=": 10, ">": 10, ">=": 10,
    "<<": 11, ">>": 11,
    "+": 12, "-": 12,
    "*": 13, "/": 13, "%": 13,
}
PREFIX = 15
POSTFIX = 16
PRIMARY = 17

_BITWISE = {"&", "|", "^"}
_SHIFT = {"<<", ">>"}
_ARITH = {"+", "-", "*", "/", "%"}
_COMPARE = {"==", "!=", "<", "<=", ">", ">="}


#: Shifts whose count may reach the operand's width print as MocCUDA's GPU shifts
#: (``cuda2cpu_device.h``): a GPU shifts every bit out (0, or -1 for ``>>`` of a negative value)
#: where x86 masks the count.
GPU_SHIFTS = {"<<": "moccuda::shl", ">>": "moccuda::shr", "<<=": "moccuda::shl_assign", ">>=": "moccuda::shr_assign"}


def count_below_width(count: ir.Expr) -> bool:
    """Whether the shift count ``count`` is provably below the width of any (promoted) integer
    operand, 32 bits at least: a literal below 32, or ``n & K`` with a literal ``K`` below 32."""
    if isinstance(count, ir.Binary) and count.op == "&":
        return count_below_width(count.rhs) or count_below_width(count.lhs)
    value = int_literal(count.text) if isinstance(count, ir.Literal) else None
    return value is not None and 0 <= value < 32


def is_gpu_shift(e: ir.Node) -> bool:
    """Whether ``e`` is a shift the printer writes as a GPU shift (its count may reach the width)."""
    if isinstance(e, ir.Binary):
        return e.op in GPU_SHIFTS and not count_below_width(e.rhs)
    return isinstance(e, ir.Assign) and e.op in GPU_SHIFTS and not count_below_width(e.value)


def precedence(e: ir.Expr) -> int:
    if is_gpu_shift(e):
        return POSTFIX
    if isinstance(e, ir.Binary):
        return PRECEDENCE[e.op]
    if isinstance(e, (ir.Assign, ir.Conditional)):
        return 3
    if isinstance(e, ir.Cast) and (e.style == "c" or _written_as_c_cast(e)):
        return PREFIX
    if isinstance(e, ir.Construct) and not is_simple_type(_TOP_CV.sub("", e.type.strip())):
        return PREFIX
    if isinstance(e, ir.Unary):
        return POSTFIX if e.postfix else PREFIX
    if isinstance(e, (ir.Index, ir.Member, ir.Call, ir.IndirectCall, ir.Builtin)):
        return POSTFIX
    if isinstance(e, ir.Literal) and e.text.startswith("-"):
        return PREFIX
    return PRIMARY


def _needs_clarity(parent: str, child: ir.Expr) -> bool:
    """Parentheses gcc's -Wparentheses asks for, though precedence does not need them."""
    if parent in _BITWISE and isinstance(child, ir.Unary) and child.op == "!":
        return True
    if not isinstance(child, ir.Binary) or is_gpu_shift(child):
        return False
    if parent in _COMPARE and child.op in _COMPARE:
        return True
    if child.op == parent:
        return False
    if parent == "||" and child.op == "&&":
        return True
    if parent in _SHIFT and child.op in _ARITH:
        return True
    if parent in _BITWISE and (child.op in _ARITH or child.op in _COMPARE or child.op in _BITWISE or child.op in _SHIFT):
        return True
    if parent in _COMPARE and child.op in _COMPARE:
        return True
    return False


def declarator_group(type_spelling: str) -> int | None:
    """Where the name goes in a type with a parenthesized declarator outside template arguments
    (``float (*)[4]``, ``float (*[8])[4]``, ``void (&)(int)``): just after its ``*`` or ``&``."""
    depth = 0
    for i, ch in enumerate(type_spelling):
        depth += {"<": 1, ">": -1}.get(ch, 0)
        if depth == 0 and ch == "(" and type_spelling[i + 1:i + 2] in ("*", "&"):
            return i + 2
    return None


def declare(type_spelling: str, name: str) -> str:
    """A declarator: ``declare('float[16][17]', 's')`` is ``float s[16][17]``, and
    ``declare('float (*[8])[4]', 'p')`` is ``float (*p[8])[4]``."""
    group = declarator_group(type_spelling)
    if group is not None:
        return f"{type_spelling[:group]}{name}{type_spelling[group:]}"
    if type_spelling.endswith("]") and "[" in type_spelling:
        i = type_spelling.index("[")
        return f"{type_spelling[:i].rstrip()} {name}{type_spelling[i:]}"
    sep = "" if type_spelling.endswith(("*", "&")) else " "
    return f"{type_spelling}{sep}{name}"


def pointer_to_element(array_type: str) -> str:
    """``float[]`` -> ``float *``: the dynamic shared array seen as a pointer to its elements."""
    i = array_type.index("[")
    rest = array_type[i:]
    base = array_type[:i].rstrip()
    inner = rest[rest.index("]") + 1:]
    if inner:
        return f"{base} (*){inner}"
    return f"{base} *"


def print_expr(e: ir.Expr, ctx: int = 0) -> str:
    text = _expr(e)
    return f"({text})" if precedence(e) < ctx else text


def _operand(child: ir.Expr, ctx: int, parent_op: str) -> str:
    text = _expr(child)
    if precedence(child) < ctx or _needs_clarity(parent_op, child):
        return f"({text})"
    return text


def _expr(e: ir.Expr) -> str:
    if isinstance(e, ir.Literal):
        return e.text
    if isinstance(e, ir.Name):
        return e.name
    if isinstance(e, ir.Builtin):
        if e.var == "warpSize":
            return "32"  # a constant of the CUDA model (lanes of the lowered warp collectives)
        return e.var if not e.dim else f"{e.var}.{e.dim}"
    if isinstance(e, ir.BuiltinVector):
        return e.var
    if is_gpu_shift(e):
        operands = (e.lhs, e.rhs) if isinstance(e, ir.Binary) else (e.target, e.value)
        return f"{GPU_SHIFTS[e.op]}({print_expr(operands[0], 2)}, {print_expr(operands[1], 2)})"
    if isinstance(e, ir.Binary):
        p = PRECEDENCE[e.op]
        sep = ", " if e.op == "," else f" {e.op} "
        return _operand(e.lhs, p, e.op) + sep + _operand(e.rhs, p + 1, e.op)
    if isinstance(e, ir.Assign):
        return f"{print_expr(e.target, 4)} {e.op} {print_expr(e.value, 3)}"
    if isinstance(e, ir.Conditional):
        return f"{print_expr(e.cond, 4)} ? {print_expr(e.then, 3)} : {print_expr(e.otherwise, 3)}"
    if isinstance(e, ir.Unary):
        if e.postfix:
            return print_expr(e.operand, POSTFIX) + e.op
        inner = print_expr(e.operand, PREFIX)
        if inner[:1] in ("+", "-", "&") and inner[:1] == e.op[-1:]:
            inner = f"({inner})"
        return e.op + inner
    if isinstance(e, ir.Call):
        return f"{e.func}({', '.join(print_expr(a, 2) for a in e.args)})"
    if isinstance(e, ir.IndirectCall):
        return f"{print_expr(e.callee, POSTFIX)}({', '.join(print_expr(a, 2) for a in e.args)})"
    if isinstance(e, ir.Index):
        return f"{print_expr(e.base, POSTFIX)}[{print_expr(e.index)}]"
    if isinstance(e, ir.Member):
        # A member template named with its arguments (`a.size<0>`) takes `template` after the
        # access: required where the object's type is dependent, allowed everywhere since C++11.
        keyword = "template " if _MEMBER_TEMPLATE_ID.match(e.member) else ""
        return f"{print_expr(e.base, POSTFIX)}{'->' if e.arrow else '.'}{keyword}{e.member}"
    if isinstance(e, ir.Cast):
        if e.style == "c" or _written_as_c_cast(e):
            return f"({e.type}){print_expr(e.operand, PREFIX)}"
        if e.style == "functional":
            return f"{e.type}({print_expr(e.operand)})"
        return f"{e.style}_cast<{e.type}>({print_expr(e.operand)})"
    if isinstance(e, ir.Construct):
        return _construct(e)
    if isinstance(e, ir.InitList):
        return "{" + ", ".join(print_expr(a, 2) for a in e.elements) + "}"
    if isinstance(e, ir.SizeOf):
        if e.type is not None:
            return f"{e.op}({e.type})"
        return f"{e.op}({print_expr(e.operand)})"
    raise TypeError(f"cannot print {type(e).__name__}")


#: A type that functional notation ``T(x)`` / ``T{x}`` accepts: one (possibly qualified, possibly
#: templated) name.  ``unsigned int(n)``, ``const float4(p)`` and ``float *(q)`` are not C++.
_SIMPLE_TYPE = re.compile(r"(?:::)?\w+(?:<.*>)?(?:::\w+(?:<.*>)?)*")
_TOP_CV = re.compile(r"^(?:(?:const|volatile)\s+)+|(?:\s+(?:const|volatile))+$")


def is_simple_type(type_spelling: str) -> bool:
    return _SIMPLE_TYPE.fullmatch(type_spelling.strip()) is not None


def _written_as_c_cast(e: ir.Expr) -> bool:
    """A functional cast to a type functional notation cannot spell: printed ``(T)(x)``."""
    return isinstance(e, ir.Cast) and e.style == "functional" and not is_simple_type(e.type)


def _construct(e: ir.Construct) -> str:
    """``T(args)`` or ``T{args}``.  A top-level const/volatile is dropped (the value is a prvalue
    either way); a type functional notation still cannot spell takes its one argument as a cast."""
    args = ", ".join(print_expr(a, 2) for a in e.args)
    type_spelling = _TOP_CV.sub("", e.type.strip())
    # `typename C<T>::Item(args)`: a typename-specifier is a functional notation's type too
    typename = type_spelling.startswith("typename ") and is_simple_type(type_spelling[len("typename "):])
    if not is_simple_type(type_spelling) and not typename:
        if len(e.args) == 1:
            return f"({type_spelling})({args})"
        if not e.args:  # `unsigned int()`, `T *()`: a value-initialized scalar
            return f"({type_spelling})0"
        raise CompileError([error(e.loc, f"constructing a '{e.type}' from {len(e.args)} values is not supported")])
    return f"{type_spelling}{{{args}}}" if e.braces else f"{type_spelling}({args})"


def print_condition(e: ir.Expr) -> str:
    text = print_expr(e)
    return f"({text})" if isinstance(e, ir.Assign) else text


def var_decl_text(s: ir.VarDecl) -> str:
    text = ("constexpr " if s.constexpr else "") + declare(s.type, s.name)
    if s.init is not None:
        text += " = " + print_expr(s.init, 2)
    return text


def for_init_text(init: ir.Stmt | None) -> str:
    if init is None:
        return ""
    if isinstance(init, ir.ExprStmt):
        return print_expr(init.expr)
    if isinstance(init, ir.VarDecl):
        return var_decl_text(init)
    if isinstance(init, ir.Block) and all(isinstance(d, ir.VarDecl) for d in init.stmts):
        decls = list(init.stmts)
        base = decls[0].type
        parts = [var_decl_text(decls[0])]
        for d in decls[1:]:
            if d.type != base or "[" in base or base.endswith(("*", "&")):
                raise ValueError("for-init declarations of different types")
            parts.append(d.name + (" = " + print_expr(d.init, 2) if d.init is not None else ""))
        return ", ".join(parts)
    raise ValueError(f"unexpected for-init {type(init).__name__}")
