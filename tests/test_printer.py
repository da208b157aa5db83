"""The one expression printer: precedence, the clarity parentheses, declarators.

The differential test builds random expression trees, prints each twice (minimal parentheses,
and with every subexpression parenthesized), and lets g++ evaluate both: the values must agree,
and the minimal form must compile without -Wparentheses warnings.
"""

import random
import subprocess

from foundation.expression_printer import declare, print_expr
from support import CXX
from foundation import ir

OPS = ["+", "-", "*", "/", "%", "<<", ">>", "<", "<=", "==", "!=", "&", "^", "|", "&&", "||"]


def _full(e: ir.Expr) -> str:
    if isinstance(e, ir.Literal) or isinstance(e, ir.Name):
        return print_expr(e)
    if isinstance(e, ir.Binary):
        return f"({_full(e.lhs)} {e.op} {_full(e.rhs)})"
    if isinstance(e, ir.Unary):
        return f"({e.op}{_full(e.operand)})"
    if isinstance(e, ir.Conditional):
        return f"({_full(e.cond)} ? {_full(e.then)} : {_full(e.otherwise)})"
    raise TypeError(e)


def _random_expr(rng: random.Random, depth: int) -> ir.Expr:
    if depth == 0 or rng.random() < 0.2:
        if rng.random() < 0.5:
            return ir.Literal(str(rng.randint(1, 7)))
        return ir.Name(rng.choice(["a", "b", "c"]))
    r = rng.random()
    if r < 0.1:
        return ir.Unary(rng.choice(["-", "~", "!"]), _random_expr(rng, depth - 1))
    if r < 0.2:
        return ir.Conditional(_random_expr(rng, depth - 1), _random_expr(rng, depth - 1), _random_expr(rng, depth - 1))
    op = rng.choice(OPS)
    rhs = _random_expr(rng, depth - 1)
    if op in ("/", "%"):
        rhs = ir.Binary("|", rhs, ir.Literal("1"))  # never divide by zero
    if op in ("<<", ">>"):
        rhs = ir.Binary("&", rhs, ir.Literal("7"))  # shift counts stay in range
    return ir.Binary(op, _random_expr(rng, depth - 1), rhs)


def test_precedence_matches_full_parenthesization(tmp_path):
    rng = random.Random(20261123)
    exprs = [_random_expr(rng, 4) for _ in range(300)]
    lines = []
    for i, e in enumerate(exprs):
        lines.append(f"  if ((long)({print_expr(e)}) != (long)({_full(e)})) {{ printf(\"MISMATCH {i}\\n\"); bad = 1; }}")
    program = ("#include <cstdio>\nint main(int argc, char **) {\n  unsigned a = argc + 4, b = argc + 1, c = argc * 3;\n"
               "  int bad = 0;\n" + "\n".join(lines) + "\n  printf(bad ? \"FAIL\\n\" : \"PASS\\n\");\n  return bad;\n}\n")
    src = tmp_path / "prec.cpp"
    src.write_text(program)
    exe = tmp_path / "prec"
    built = subprocess.run([CXX, "-O0", "-Wparentheses", "-Werror=parentheses", str(src), "-o", str(exe)],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-3000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True)
    assert run.stdout.strip() == "PASS", run.stdout[-2000:]


def test_minimal_parentheses():
    a, b, c = ir.Name("a"), ir.Name("b"), ir.Name("c")
    assert print_expr(ir.Binary("*", ir.Binary("+", a, b), c)) == "(a + b) * c"
    assert print_expr(ir.Binary("+", a, ir.Binary("*", b, c))) == "a + b * c"
    assert print_expr(ir.Binary("-", a, ir.Binary("-", b, c))) == "a - (b - c)"
    assert print_expr(ir.Binary("-", ir.Binary("-", a, b), c)) == "a - b - c"
    assert print_expr(ir.Unary("-", ir.Unary("-", a))) == "-(-a)"
    assert print_expr(ir.Assign("=", a, ir.Assign("=", b, c))) == "a = b = c"
    assert print_expr(ir.Index(ir.Unary("*", a), b)) == "(*a)[b]"
    assert print_expr(ir.Member(ir.Unary("*", a), "x")) == "(*a).x"
    assert print_expr(ir.Cast("float", ir.Binary("+", a, b))) == "(float)(a + b)"


def test_clarity_parentheses_for_gcc():
    a, b, c = ir.Name("a"), ir.Name("b"), ir.Name("c")
    assert print_expr(ir.Binary("||", ir.Binary("&&", a, b), c)) == "(a && b) || c"
    assert print_expr(ir.Binary("<<", ir.Binary("+", a, b), ir.Literal("3"))) == "(a + b) << 3"
    assert print_expr(ir.Binary("&", ir.Binary("==", a, b), c)) == "(a == b) & c"


def test_shifts_by_counts_that_may_reach_the_width_print_as_gpu_shifts():
    # Issue 18.7: a GPU shifts every bit out where x86 masks the count; counts provably below 32
    # (a literal, or masked by one) print as written.
    a, b, c = ir.Name("a"), ir.Name("b"), ir.Name("c")
    assert print_expr(ir.Binary("<<", a, ir.Literal("31"))) == "a << 31"
    assert print_expr(ir.Binary(">>", a, ir.Binary("&", c, ir.Literal("0x1f")))) == "a >> (c & 0x1f)"
    assert print_expr(ir.Binary("<<", a, ir.Literal("32"))) == "moccuda::shl(a, 32)"
    assert print_expr(ir.Binary(">>", ir.Binary("+", a, b), c)) == "moccuda::shr(a + b, c)"
    assert print_expr(ir.Binary("|", ir.Binary("<<", a, c), b)) == "moccuda::shl(a, c) | b"
    assert print_expr(ir.Binary("*", ir.Binary("<<", a, ir.Binary("-", b, c)), c)) == "moccuda::shl(a, b - c) * c"
    assert print_expr(ir.Assign("<<=", a, c)) == "moccuda::shl_assign(a, c)"
    assert print_expr(ir.Assign(">>=", ir.Index(a, b), ir.Binary(",", b, c))) == "moccuda::shr_assign(a[b], (b, c))"
    assert print_expr(ir.Assign(">>=", a, ir.Literal("1"))) == "a >>= 1"


def test_declarators():
    assert declare("float[16][17]", "s") == "float s[16][17]"
    assert declare("float *", "p") == "float *p"
    assert declare("const int", "n") == "const int n"
    assert declare("float (*)[16]", "row") == "float (*row)[16]"
