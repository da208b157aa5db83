"""Host-side CUDA device checks of PyTorch extensions, rewritten to accept CPU tensors.

A PyTorch CUDA extension checks, in its host code, that its tensors live on a CUDA device
(``CHECK_CUDA(x)`` is usually ``TORCH_CHECK(x.device().is_cuda(), ...)``).  On the CPU build of
PyTorch, the tensors that stand in for CUDA tensors are CPU tensors, whose memory is what the
translated kernels read, so the check that keeps the kernels' preconditions is ``is_cpu()``.  This
module finds, by tokens in the user's own files (so uses inside the user's macros are found
where the macro is written), and only when ``TranslateOptions.torch_host`` is on (moccuda.torch
builds turn it on):

    x.is_cuda()            ->  x.is_cpu()
    x->is_cuda()           ->  x->is_cpu()
    torch::kCUDA           ->  torch::kCPU       (also at::, c10::; tensor options and comparisons)
    at::DeviceType::CUDA   ->  at::DeviceType::CPU

Each rewrite is reported with its location (``--explain``; ``moccuda.torch.load(verbose=True)``).
A method of the user's own named ``is_cuda`` would be rewritten too, and then fails to compile
(no ``is_cpu``): an error, never a silent change.
"""

from __future__ import annotations

from dataclasses import dataclass

import clang.cindex as ci

from foundation.diagnostics import SourceLoc

_TORCH_NAMESPACES = ("torch", "at", "c10")


@dataclass(frozen=True)
class HostRewrite:
    """One token replaced: bytes ``start:end`` of the file become ``new``."""

    loc: SourceLoc
    start: int
    end: int
    old: str
    new: str

    def as_json(self) -> dict:
        return {"file": self.loc.file, "line": self.loc.line, "column": self.loc.column,
                "from": self.old, "to": self.new}


def _spellings(tokens: list, i: int, count: int) -> list[str]:
    return [t.spelling for t in tokens[i:i + count]]


def _rewrite(tok, new: str) -> HostRewrite:
    loc = tok.location
    return HostRewrite(SourceLoc(loc.file.name, loc.line, loc.column), tok.extent.start.offset,
                       tok.extent.end.offset, tok.spelling, new)


def device_check_rewrites(tu: ci.TranslationUnit, name: str, data: bytes) -> list[HostRewrite]:
    """The rewrites of one user file (``data`` its bytes, as the offsets count them)."""
    if b"is_cuda" not in data and b"CUDA" not in data:
        return []
    file = tu.get_file(name)
    extent = ci.SourceRange.from_locations(ci.SourceLocation.from_offset(tu, file, 0),
                                           ci.SourceLocation.from_offset(tu, file, len(data)))
    tokens = [t for t in tu.get_tokens(extent=extent) if t.kind != ci.TokenKind.COMMENT]
    found = []
    for i, tok in enumerate(tokens):
        if tok.kind != ci.TokenKind.IDENTIFIER or i == 0:
            continue
        before = tokens[i - 1].spelling
        if tok.spelling == "is_cuda" and before in (".", "->") and _spellings(tokens, i + 1, 2) == ["(", ")"]:
            found.append(_rewrite(tok, "is_cpu"))
        elif tok.spelling == "kCUDA" and before == "::" and i >= 2 and tokens[i - 2].spelling in _TORCH_NAMESPACES:
            found.append(_rewrite(tok, "kCPU"))
        elif (tok.spelling == "CUDA" and before == "::" and i >= 2 and tokens[i - 2].spelling == "DeviceType"):
            found.append(_rewrite(tok, "CPU"))
    return found
