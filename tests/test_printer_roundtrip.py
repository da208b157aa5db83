"""Every node kind the printer prints, with every kind of type spelling put where it goes, compiles.

The printer writes types as the front end spells them (``unsigned int``, ``const float4``,
``float *``, a template parameter): functional notation ``T(x)`` takes only a one-word type, so
``unsigned int(n)`` and ``const float4(p)`` were printed and g++ rejected them.  Here each
expression kind is printed with each type, inside a function that holds each statement kind,
and g++ compiles the result; where the value is known, a ``static_assert`` written by hand
checks that the printed expression means what the node says.
"""

import subprocess

import pytest

from foundation.expression_printer import print_expr
from openmp_emit.printer import StmtPrinter
from support import CXX, moccuda_compile_flags
from foundation import ir
from foundation.diagnostics import CompileError

#: Scalar types as libclang spells them, with the value that converting 5 to each gives.
SCALAR_TYPES = ["int", "unsigned int", "unsigned", "long long", "unsigned long long", "signed char",
                "const int", "const unsigned int", "volatile long", "short", "unsigned short", "double",
                "const double", "long double", "std::size_t", "::size_t", "bool"]
#: Class and pointer types, and a template parameter.
OTHER_TYPES = ["float4", "const float4", "__half", "const __half", "float *", "const float *", "float *const",
               "std::pair<int, float>", "const std::pair<int, float>", "T", "const T"]
ARRAY_TYPES = ["__half[4]", "float4[2]", "const int[3]", "unsigned int[2][3]"]


def _lit(text: str) -> ir.Literal:
    return ir.Literal(text)


def _name(name: str) -> ir.Name:
    return ir.Name(name, 1)


def _compile(source: str, tmp_path) -> subprocess.CompletedProcess:
    cpp = tmp_path / "printed.cpp"
    cpp.write_text(source)
    return subprocess.run([CXX, "-std=c++17", "-fsyntax-only", "-Wall", "-Wno-unused", *moccuda_compile_flags(),
                           str(cpp)], capture_output=True, text=True)


PRELUDE = """#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cstddef>
#include <utility>
struct Dim { unsigned x, y, z; };
"""


def test_casts_and_constructions_of_every_scalar_type_compile_and_convert(tmp_path):
    lines = [PRELUDE, "constexpr int five = 5;"]
    for i, t in enumerate(SCALAR_TYPES):
        value = "true" if t == "bool" else "5"
        for style in ("c", "functional", "static"):
            printed = print_expr(ir.Cast(t, _name("five"), style))
            lines.append(f"static_assert({printed} == {value}, \"{style} cast to {t}\");")
            # as an operand of a postfix and a binary operator
            lines.append(f"static_assert(({print_expr(ir.Binary('*', ir.Cast(t, _name('five'), style), _lit('1')))})"
                         f" == {value}, \"{t}\");")
        lines.append(f"static_assert({print_expr(ir.Construct(t, (_name('five'),)))} == {value}, \"{t}(5)\");")
        lines.append(f"static_assert({print_expr(ir.Construct(t, ()))} == 0, \"{t}()\");")
        lines.append(f"static_assert({print_expr(ir.Construct(t, (_name('five'),), braces=True))} == {value},"
                     f" \"{t}{{5}}\");" if t not in ("bool", "signed char", "short", "unsigned short") else "")
        lines.append(f"static_assert({print_expr(ir.SizeOf('sizeof', type=t))} == sizeof({t}), \"sizeof\");")
    done = _compile("\n".join(lines) + "\n", tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.parametrize("type_spelling", OTHER_TYPES)
def test_casts_constructions_and_declarations_of_class_and_pointer_types_compile(tmp_path, type_spelling):
    t = type_spelling
    pointer = t.replace("const ", "").rstrip().endswith(("*", "*const"))
    value = _name("p") if pointer else _name("v")
    exprs = [ir.Cast(t, value, "c"), ir.Cast(t, value, "functional"), ir.Cast(t, value, "static"),
             ir.Construct(t, (value,)), ir.Construct(t, ()), ir.SizeOf("sizeof", type=t),
             ir.SizeOf("alignof", type=t)]
    if not pointer:
        exprs.append(ir.Construct(t, (value,), braces=True))
    printer = StmtPrinter()
    body = [ir.VarDecl(10 + i, f"x{i}", t, e) for i, e in enumerate(exprs) if not isinstance(e, ir.SizeOf)]
    body += [ir.ExprStmt(ir.Cast("void", e, "c")) for e in exprs]
    body.append(ir.VarDecl(2, "plain", t.replace("const", "").strip()))
    for s in body:
        printer.stmt(s)
    base = "float4" if "float4" in t else "__half" if "__half" in t else "std::pair<int, float>" if "pair" in t else "float"
    source = (PRELUDE + f"template <typename T> void f({base} v, {base} *p) {{\n" + printer.text() + "\n}\n"
              f"template void f<{base}>({base}, {base} *);\n")
    done = _compile(source, tmp_path)
    assert done.returncode == 0, source + done.stderr[-3000:]


@pytest.mark.parametrize("type_spelling", ARRAY_TYPES)
def test_array_declarations_compile(tmp_path, type_spelling):
    printer = StmtPrinter()
    init = ir.InitList((_lit("1"),)) if type_spelling.startswith("const") else None
    printer.stmt(ir.VarDecl(1, "a", type_spelling, init))
    printer.stmt(ir.ExprStmt(ir.Cast("void", ir.Index(ir.Name("a", 1), _lit("0")), "c")))
    done = _compile(PRELUDE + "void f() {\n" + printer.text() + "\n}\n", tmp_path)
    assert done.returncode == 0, printer.text() + done.stderr[-3000:]


def _every_node_kind() -> tuple[list[ir.Expr], list[ir.Stmt]]:
    a, b, s = _name("a"), _name("b"), _name("s")
    exprs = [
        _lit("1"), a, ir.Builtin("threadIdx", "x"), ir.Builtin("warpSize", ""), ir.BuiltinVector("blockDim"),
        ir.Unary("-", a), ir.Unary("++", a, postfix=True), ir.Unary("!", ir.Unary("!", a)), ir.Unary("-", ir.Unary("-", a)),
        ir.Binary("+", a, ir.Binary("*", b, _lit("2"))), ir.Binary(",", a, b),
        ir.Assign("+=", a, ir.Conditional(b, _lit("1"), _lit("2"))),
        ir.Call("g", (a, ir.Binary(",", a, b))), ir.IndirectCall(_name("fp"), (a,)),
        ir.Index(_name("arr"), a), ir.Member(s, "x"), ir.Member(_name("sp"), "y", arrow=True),
        ir.Cast("unsigned int", ir.Binary("+", a, b), "functional"),
        ir.Member(ir.Construct("const Dim", (s,)), "x"), ir.Member(ir.Cast("const Dim", s, "functional"), "x"),
        ir.Construct("Dim", (a, b, _lit("3")), braces=True),
        ir.SizeOf("sizeof", operand=a), ir.SizeOf("alignof", type="unsigned long long"),
    ]
    stmts = [
        ir.Block((ir.Empty(),)),
        ir.VarDecl(20, "d", "unsigned int", ir.Cast("unsigned int", a, "functional")),
        ir.VarDecl(21, "lst", "int[2]", ir.InitList((a, b))),
        ir.While(a, ir.If(a, ir.ExprStmt(a), ir.If(b, ir.Break(), ir.Block(())))),
        ir.For(ir.VarDecl(22, "i", "int", _lit("0")), ir.Binary("<", _name("i"), _lit("3")),
               ir.Unary("++", _name("i")), ir.Block((ir.If(a, ir.Continue()),))),
        ir.For(None, None, None, ir.Break()),
        ir.While(ir.Assign("=", a, b), ir.Break()),
        ir.DoWhile(ir.Block((ir.Continue(),)), _lit("false")),
        ir.Switch(a, ir.Block((ir.Case(_lit("1"), ir.Break()), ir.Case(None, ir.Break())))),
        ir.SimdReduction(ir.For(ir.VarDecl(23, "k", "int", _lit("0")), ir.Binary("<", _name("k"), _lit("4")),
                                ir.Unary("++", _name("k")),
                                ir.ExprStmt(ir.Assign("+=", _name("a"), _name("k")))), "+", _name("a")),
        ir.Goto("done"), ir.Label("done"),
        ir.Return(None),
    ]
    return exprs, stmts


def test_every_expression_and_statement_kind_prints_code_that_compiles(tmp_path):
    exprs, stmts = _every_node_kind()
    printer = StmtPrinter()
    for e in exprs:
        printer.stmt(ir.ExprStmt(ir.Cast("void", e, "c")))
    for s in stmts:
        printer.stmt(s)
    source = PRELUDE + """Dim threadIdx, blockDim;
int g(int, int);
void f(int a, int b, Dim s, Dim *sp, int *arr, int (*fp)(int)) {
""" + printer.text() + "\n}\n"
    done = _compile(source, tmp_path)
    assert done.returncode == 0, source + done.stderr[-3000:]

    printable_exprs = {ir.Literal, ir.Name, ir.Builtin, ir.BuiltinVector, ir.Unary, ir.Binary, ir.Assign,
                       ir.Conditional, ir.Call, ir.IndirectCall, ir.Index, ir.Member, ir.Cast, ir.Construct,
                       ir.InitList, ir.SizeOf}
    assert {type(n) for node in [*exprs, *stmts] for n in node.walk()} >= printable_exprs
    statement_kinds = {name[len("stmt_"):] for name in dir(StmtPrinter) if name.startswith("stmt_")}
    printed_kinds = {type(n).__name__ for s in stmts for n in s.walk() if isinstance(n, ir.Stmt)}
    # A barrier never reaches the printer; NextThread only inside a thread loop (test_barrier_lowering).
    assert statement_kinds - printed_kinds == {"Barrier", "NextThread"}


def test_a_construction_no_spelling_can_express_is_a_located_error():
    e = ir.Construct("unsigned long long", (_lit("1"), _lit("2")), loc=ir.SourceLoc("t.cu", 3, 9))
    with pytest.raises(CompileError) as info:
        print_expr(e)
    assert "t.cu:3:9: error: constructing a 'unsigned long long' from 2 values" in info.value.render(False)
