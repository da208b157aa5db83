"""Diagnostics as values: severity, location, message, notes.

Every error a user can cause is one of these, rendered as ``file:line:col: error: message``
followed by the source line and a caret, the way clang and gcc print theirs.  Passes raise
:class:`CompileError`; the CLI and the server render it and exit with status 1 (or answer 400).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class SourceLoc:
    """A position in a source file; line and column count from 1, as in compilers' messages."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


UNKNOWN_LOC = SourceLoc("<unknown>", 0, 0)


@dataclass(frozen=True)
class Diagnostic:
    severity: str  # "error" | "warning" | "note"
    loc: SourceLoc
    message: str
    notes: tuple["Diagnostic", ...] = ()

    def render(self, with_source: bool = True) -> str:
        head = f"{self.loc}: {self.severity}: {self.message}" if self.loc.line else f"cuda2cpu: {self.severity}: {self.message}"
        lines = [head]
        if with_source:
            lines.extend(_source_excerpt(self.loc))
        for note in self.notes:
            lines.append(note.render(with_source and note.loc != self.loc))  # the excerpt once
        return "\n".join(lines)


def _source_excerpt(loc: SourceLoc) -> list[str]:
    if loc.line <= 0:
        return []
    try:
        text = Path(loc.file).read_text(errors="replace").splitlines()
    except OSError:
        return []
    if loc.line > len(text):
        return []
    line = text[loc.line - 1].expandtabs(1)
    caret = " " * max(loc.column - 1, 0) + "^"
    return [line, caret]


def error(loc: SourceLoc, message: str) -> Diagnostic:
    return Diagnostic("error", loc, message)


def warning(loc: SourceLoc, message: str) -> Diagnostic:
    return Diagnostic("warning", loc, message)


@dataclass
class CompileError(Exception):
    """Raised when translation cannot continue; carries every error found so far."""

    diagnostics: list[Diagnostic] = field(default_factory=list)

    def __post_init__(self) -> None:
        super().__init__(self.render(with_source=False))

    def render(self, with_source: bool = True) -> str:
        return "\n".join(d.render(with_source) for d in self.diagnostics)


def unsupported(loc: SourceLoc, what: str) -> CompileError:
    """The standard error for a construct cuda2cpu cannot translate faithfully."""
    return CompileError([error(loc, f"{what} is not supported")])
