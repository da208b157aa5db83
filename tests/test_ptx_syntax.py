"""The parser of inline-PTX templates (cuda_front/ptx_syntax.py), on its own."""

from __future__ import annotations

import pytest

from cuda_front.ptx_syntax import (Address, Guard, Imm, Instruction, Not, Pair, PtxSyntaxError, Ref, Reg,
                                   RegisterDecl, ScopeClose, ScopeOpen, Sink, Vector, immediate_integer, parse_ptx)


def _instructions(text: str, names=None) -> list[Instruction]:
    return [s for s in parse_ptx(text, names) if isinstance(s, Instruction)]


def test_opcode_modifiers_and_operands():
    (ins,) = _instructions("cp.async.cg.shared.global.L2::128B [%0], [%1+16], %2, %3;")
    assert ins.opcode == "cp" and ins.modifiers == ("async", "cg", "shared", "global", "L2::128B")
    assert ins.name == "cp.async.cg.shared.global.L2::128B"
    assert ins.operands == (Address(Ref(0)), Address(Ref(1), 16), Ref(2), Ref(3))


def test_scopes_register_declarations_and_guards():
    statements = parse_ptx("{\n .reg .pred p;\n .reg .b32 %%r<3>, t;\n setp.ne.b32 p, %0, 0;\n @!p mov.u32 %%r1, 5;\n}\n")
    assert statements[0] == ScopeOpen(0) and isinstance(statements[-1], ScopeClose)
    assert [s for s in statements if isinstance(s, RegisterDecl)] == [
        RegisterDecl("pred", ("p",), 3), RegisterDecl("b32", ("%r0", "%r1", "%r2", "t"), 18)]
    setp, mov = (s for s in statements if isinstance(s, Instruction))
    assert setp.guard is None and setp.operands == (Reg("p"), Ref(0), Imm("0"))
    assert mov.guard == Guard(Reg("p"), True) and mov.operands == (Reg("%r1"), Imm("5"))


def test_special_registers_are_written_with_two_percent_signs():
    (ins,) = _instructions("mov.u32 %0, %%laneid; // the lane")
    assert ins.operands == (Ref(0), Reg("%laneid"))
    (ins,) = _instructions("mov.u32 %0, %%tid.y;")
    assert ins.operands[1] == Reg("%tid.y")


def test_named_operands_vectors_pairs_negations_sinks():
    (ld,) = _instructions("ld.global.v4.b32 {%[a], _, %1, %2}, [%[p]];", {"a": 0, "p": 3})
    assert ld.operands == (Vector((Ref(0), Sink(), Ref(1), Ref(2))), Address(Ref(3)))
    (shfl,) = _instructions("shfl.sync.up.b32 %0|p, %1, 1, 0x0, -1;")
    assert shfl.operands == (Pair(Ref(0), Reg("p")), Ref(1), Imm("1"), Imm("0x0"), Imm("-1"))
    (vote,) = _instructions("vote.sync.any.pred %0, !q, 0xffffffff;")
    assert vote.operands[1] == Not(Reg("q"))


def test_several_instructions_per_line_and_per_template_line():
    names = [i.name for i in _instructions("add.s32 %0, %1, 1; mul.lo.s32 %0, %0, 3\n sub.s32 %0, %0, 2")]
    assert names == ["add.s32", "mul.lo.s32", "sub.s32"]


def test_immediates():
    (ins,) = _instructions("mov.f32 %0, 0f3F800000;")
    assert ins.operands[1] == Imm("0f3F800000")
    (ins,) = _instructions("ld.shared.u32 %0, [%1 + -8];")
    assert ins.operands[1] == Address(Ref(1), -8)
    assert [immediate_integer(t) for t in ("16", "0x1f", "-4", "0b101", "017", "42U")] == [16, 31, -4, 5, 15, 42]


@pytest.mark.parametrize("text, message", [
    ("L1: bra L1;", "the label 'L1'"),
    ("mov.u32 %0, %laneid;", "a '%' that is neither an operand"),
    ("{ add.s32 %0, %0, 1;", "a '{' without its '}'"),
    ("add.s32 %0, %0, 1; }", "a '}' without its '{'"),
    ("ld.u32 %0, [0x100];", "an absolute address"),
    ("ld.u32 %0, [%1+%2];", "registers are not added in a PTX address"),
    (".global .u32 g;", "the directive '.global'"),
    ("add.s32 %[nope], %0, 1;", "'%[nope]' names no operand"),
    (".reg .v4 .b32 v;", "a vector register declaration"),
])
def test_what_the_parser_does_not_read_is_an_error_with_its_offset(text, message):
    with pytest.raises(PtxSyntaxError) as caught:
        parse_ptx(text, {"a": 0})
    assert message in str(caught.value)
    assert 0 <= caught.value.at < len(text)
