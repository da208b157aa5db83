"""Pass ``launch-regions``: one OpenMP parallel region around several kernel launches.

Each launch of a translated kernel opens its own ``#pragma omp parallel`` (waking the thread team
costs microseconds; iterative solvers launch thousands of kernels).  This pass finds, in the
host code, (paper Fig. 10 and 11)

* runs of two or more consecutive launch statements: they share one region (*fused*);
* ``for``/``while`` loops whose body launches kernels and otherwise does host work that can run
  on one thread (swapping pointers, copying a flag back, printing): one region around the loop
  (*hoisted*), the host work in ``#pragma omp single`` (whose barrier publishes what it wrote),
  the loop header evaluated by every thread;

and launches the kernels there as work-sharing loops (``NAME__team``, see
``openmp_emit.emit.emit_kernel``): the team's threads share the grid's blocks, and the implicit
barrier at the end of the loop orders the launches as the stream would.

It is conservative: a region is formed only when every launch in it is of a kernel that can run
as a work-sharing loop, takes no stream, and has arguments without side effects; the loop's
header changes only variables it declares and calls nothing; no ``break``, ``continue``,
``return``, ``goto``, ``throw`` or ``try`` is in the body; declarations in host work are not used
outside it; and each statement starts and ends its own lines (regions are edits of the user's
text).  Host work that calls a function which itself launches a kernel stays correct (that launch
opens a nested region, which OpenMP runs on one thread) but gains nothing.  When the
loop condition reads a variable the host work may write, every iteration starts with a barrier,
so that no thread writes it before all have read it.  Anything else is left as written.

The pass itself only switches the analysis on (``--no-launch-regions`` turns it off); the work is
on the host source, after the kernels are lowered: :func:`find_regions`.

Before::

    for (int t = 0; t < steps; ++t) {
        step<<<grid, block>>>(src, dst, n);
        std::swap(src, dst);
    }

After::

    #pragma omp parallel
    for (int t = 0; t < steps; ++t) {
        step__team(moccuda::LaunchConfig(grid, block), src, dst, n);
        #pragma omp single
        {
        std::swap(src, dst);
        }
    }
"""

from __future__ import annotations

from dataclasses import dataclass, field

import clang.cindex as ci

from cuda_front import clang_ext
from foundation import ir
from foundation.passes import PassContext, register

K = ci.CursorKind

_LOOPS = (K.FOR_STMT, K.WHILE_STMT)
#: Control that must not leave (or enter) a parallel region: jumps, and exceptions.
_JUMPS = (K.BREAK_STMT, K.CONTINUE_STMT, K.RETURN_STMT, K.GOTO_STMT, K.INDIRECT_GOTO_STMT, K.LABEL_STMT,
          K.CXX_THROW_EXPR, K.CXX_TRY_STMT)
#: Expression kinds that read values without changing anything.
_PURE = {K.DECL_REF_EXPR, K.INTEGER_LITERAL, K.FLOATING_LITERAL, K.CXX_BOOL_LITERAL_EXPR,
         K.CXX_NULL_PTR_LITERAL_EXPR, K.CHARACTER_LITERAL, K.PAREN_EXPR, K.UNEXPOSED_EXPR,
         K.MEMBER_REF_EXPR, K.ARRAY_SUBSCRIPT_EXPR, K.CSTYLE_CAST_EXPR, K.CXX_STATIC_CAST_EXPR,
         K.CXX_FUNCTIONAL_CAST_EXPR, K.CXX_REINTERPRET_CAST_EXPR, K.CXX_CONST_CAST_EXPR, K.TYPE_REF,
         K.CONDITIONAL_OPERATOR, K.CXX_UNARY_EXPR, K.NAMESPACE_REF, K.TEMPLATE_REF, K.INIT_LIST_EXPR}
_ASSIGNING = {"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="}


@register
@dataclass(frozen=True)
class LaunchRegions:
    name: str = "launch-regions"
    required: bool = False

    def run(self, program: ir.Program, ctx: PassContext) -> ir.Program:
        ctx.launch_regions = True
        return program


@dataclass
class Region:
    kind: str  # "fused" | "hoisted"
    file: str
    line: int
    launches: list[ci.Cursor]
    #: (offset, text) insertions into ``file``.
    insertions: list[tuple[int, str]] = field(default_factory=list)

    def as_json(self) -> dict:
        return {"kind": self.kind, "line": self.line, "launches": len(self.launches)}


def is_launch(c: ci.Cursor) -> bool:
    if c.kind != K.CALL_EXPR:
        return False
    kids = list(c.get_children())
    return len(kids) >= 2 and kids[1].kind == K.CALL_EXPR and kids[1].spelling == "__cudaPushCallConfiguration"


def launched_kernel(c: ci.Cursor) -> str:
    callee = next(iter(c.get_children()))
    while callee.kind == K.UNEXPOSED_EXPR and len(list(callee.get_children())) == 1:
        callee = next(iter(callee.get_children()))
    return callee.spelling


def callee_end(launch: ci.Cursor) -> int:
    """The offset just past the launched kernel's name (where ``__team`` goes): before its
    template arguments, if any (``axpy<float, 2>`` -> ``axpy__team<float, 2>``)."""
    callee = next(iter(launch.get_children()))
    name_end = callee.extent.end.offset
    for token in callee.get_tokens():
        if token.spelling == "<":
            break
        if token.kind == ci.TokenKind.IDENTIFIER:
            name_end = token.extent.end.offset
    return name_end


def find_regions(top_level: list[ci.Cursor], files: dict[str, bytes], team_kernels: set[str]) -> list[Region]:
    """Regions in the user's files (``files``: name -> text) around launches of ``team_kernels``,
    found in the unit's top-level declarations ``top_level`` written in those files."""
    finder = _Finder(files, team_kernels)
    for c in top_level:
        finder.top(c)
    return finder.regions


@dataclass
class _Finder:
    files: dict[str, bytes]
    team_kernels: set[str]
    regions: list[Region] = field(default_factory=list)

    def top(self, c: ci.Cursor) -> None:
        if c.location.file is None or c.location.file.name not in self.files:
            return
        if c.kind in (K.NAMESPACE, K.LINKAGE_SPEC):
            for child in c.get_children():
                self.top(child)
        elif c.kind in (K.FUNCTION_DECL, K.CXX_METHOD) and c.is_definition():
            body = next((k for k in c.get_children() if k.kind == K.COMPOUND_STMT), None)
            if body is not None:
                self.compound(body)

    def compound(self, block: ci.Cursor) -> None:
        stmts = list(block.get_children())
        i = 0
        while i < len(stmts):
            s = stmts[i]
            if self.launch_ok(s):
                j = i
                while j < len(stmts) and self.launch_ok(stmts[j]):
                    j += 1
                if j - i >= 2:
                    self.fuse(stmts[i:j])
                i = j
                continue
            self.statement(s)
            i += 1

    def statement(self, s: ci.Cursor) -> None:
        """A region around ``s`` if it is a hoistable loop, else regions inside it."""
        if s.kind in _LOOPS and self.hoist(s):
            return
        for child in s.get_children():
            if child.kind == K.COMPOUND_STMT:
                self.compound(child)
            elif child.kind in _LOOPS or child.kind in (K.IF_STMT, K.DO_STMT, K.SWITCH_STMT):
                self.statement(child)

    # ---------------------------------------------------------------------------- the checks

    def launch_ok(self, s: ci.Cursor) -> bool:
        """A launch statement of a team kernel, without stream, with arguments that only read."""
        if not is_launch(s) or launched_kernel(s) not in self.team_kernels:
            return False
        kids = list(s.get_children())
        # The configuration call's children: the `<<<` callee, grid, block, shared bytes, stream.
        config = [a for a in kids[1].get_children()]
        if len(config) > 4 and not _is_default(config[4]):
            return False  # a stream: its work has its own order
        return all(_only_reads(a) for a in config + kids[2:]) and self.own_lines(s)

    def own_lines(self, s: ci.Cursor) -> bool:
        """``s`` is the first thing on its first line and only ``;`` (and a comment) follow it."""
        ext = s.extent
        if ext.start.file is None or ext.end.file is None or clang_ext.from_macro(s):
            return False
        data = self.files.get(ext.start.file.name)
        if data is None:
            return False
        line_start = data.rfind(b"\n", 0, ext.start.offset) + 1
        if data[line_start:ext.start.offset].strip():
            return False
        rest = data[ext.end.offset:_line_end(data, ext.end.offset)].strip()
        return rest in (b"", b";") or rest.startswith((b";//", b"; //", b"//"))

    def hoist(self, loop: ci.Cursor) -> bool:
        kids = list(loop.get_children())
        body = kids[-1] if kids else None
        if body is None or body.kind != K.COMPOUND_STMT or not self.own_lines_block(loop):
            return False
        stmts = list(body.get_children())
        if not any(self.launch_ok(s) for s in stmts):
            return False
        if any(n.kind in _JUMPS for s in stmts for n in s.walk_preorder()):
            return False
        if any(not self.launch_ok(s) and any(is_launch(n) for n in s.walk_preorder()) for s in stmts):
            return False  # a launch not fit for the region, or inside other statements
        header_vars: set[int] = set()
        if loop.kind == K.FOR_STMT:
            try:
                init, cond, inc = _for_parts(loop)
            except ValueError:  # a range-based for, or a header we do not understand
                return False
            if init is not None:
                if init.kind != K.DECL_STMT:
                    return False
                header_vars = {clang_ext.identity(d) for d in init.get_children() if d.kind == K.VAR_DECL}
                if not all(_only_reads(e) for d in init.get_children() for e in d.get_children()):
                    return False
            if cond is not None and not _only_reads(cond):
                return False
            if inc is not None and not _changes_only(inc, header_vars):
                return False
        else:
            cond = kids[0]
            if not _only_reads(cond):
                return False
        groups = _host_groups(stmts, self.launch_ok)
        if any(not self.own_lines(s) for g in groups for s in g):
            return False
        for g in groups:  # declarations in host work must not be used outside it
            declared = {clang_ext.identity(d) for s in g if s.kind == K.DECL_STMT for d in s.get_children()}
            outside = [s for s in stmts if s not in g]
            if declared and any(_refers(s, declared) for s in outside):
                return False
        written = {clang_ext.identity(r.referenced) for g in groups for s in g for r in s.walk_preorder()
                   if r.kind == K.DECL_REF_EXPR and r.referenced is not None}
        read_by_cond = {clang_ext.identity(r.referenced) for r in (cond.walk_preorder() if cond is not None else ())
                        if r.kind == K.DECL_REF_EXPR and r.referenced is not None} - header_vars
        region = Region("hoisted", loop.location.file.name, loop.location.line,
                        [s for s in stmts if self.launch_ok(s)])
        data = self.files[region.file]
        start = loop.extent.start.offset
        indent = _indent(data, start)
        region.insertions.append((_line_start(data, start), f"{indent}#pragma omp parallel  // launch-regions: hoisted\n"))
        if read_by_cond & written:
            brace = body.extent.start.offset + 1
            region.insertions.append((brace, f"\n{indent}    #pragma omp barrier  // all threads have read the condition"))
        for g in groups:
            first, last = g[0].extent.start.offset, g[-1].extent.end.offset
            g_indent = _indent(data, first)
            region.insertions.append((_line_start(data, first), f"{g_indent}#pragma omp single\n{g_indent}{{\n"))
            end = _line_end(data, last)
            region.insertions.append((end, f"\n{g_indent}}}"))
        self.regions.append(region)
        return True

    def own_lines_block(self, loop: ci.Cursor) -> bool:
        ext = loop.extent
        if ext.start.file is None or clang_ext.from_macro(loop):
            return False
        data = self.files.get(ext.start.file.name)
        return data is not None and not data[_line_start(data, ext.start.offset):ext.start.offset].strip()

    def fuse(self, launches: list[ci.Cursor]) -> None:
        first = launches[0]
        data = self.files[first.extent.start.file.name]
        start = first.extent.start.offset
        indent = _indent(data, start)
        region = Region("fused", first.location.file.name, first.location.line, launches)
        region.insertions.append((_line_start(data, start),
                                  f"{indent}#pragma omp parallel  // launch-regions: fused\n{indent}{{\n"))
        region.insertions.append((_line_end(data, launches[-1].extent.end.offset), f"\n{indent}}}"))
        self.regions.append(region)


def _host_groups(stmts: list[ci.Cursor], is_team_launch) -> list[list[ci.Cursor]]:
    """Maximal runs of statements that are not team launches."""
    groups, current = [], []
    for s in stmts:
        if is_team_launch(s):
            if current:
                groups.append(current)
            current = []
        else:
            current.append(s)
    if current:
        groups.append(current)
    return groups


def _for_parts(loop: ci.Cursor) -> tuple[ci.Cursor | None, ci.Cursor | None, ci.Cursor | None]:
    """``for (init; cond; inc)``'s parts, None where absent (libclang lists only those present,
    so the header's two semicolons tell which)."""
    tokens = [t.spelling for t in loop.get_tokens()]
    depth, semis, close = 0, [], len(tokens)
    for i, t in enumerate(tokens):
        if t in ("(", "[", "{"):
            depth += 1
        elif t in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                close = i
                break
        elif t == ";" and depth == 1:
            semis.append(i)
    if len(semis) != 2:
        raise ValueError("not a classic for statement")
    present = (semis[0] > 2, semis[1] > semis[0] + 1, close > semis[1] + 1)
    parts = iter(list(loop.get_children())[:-1])
    init, cond, inc = (next(parts, None) if p else None for p in present)
    return init, cond, inc


def _only_reads(e: ci.Cursor) -> bool:
    for n in e.walk_preorder():
        if n.kind in _PURE:
            continue
        if n.kind == K.BINARY_OPERATOR and clang_ext.binary_operator(n) not in _ASSIGNING:
            continue
        if n.kind == K.UNARY_OPERATOR and clang_ext.unary_operator(n) not in ("++", "--"):
            continue
        if n.kind in (K.CALL_EXPR, K.CXX_FUNCTIONAL_CAST_EXPR) and n.spelling in ("dim3", "data", "size"):
            continue
        if n.kind == K.CALL_EXPR and n.spelling == "__cudaPushCallConfiguration":
            continue
        return False
    return True


def _changes_only(e: ci.Cursor, variables: set[int]) -> bool:
    """``++t``, ``t += 2``, ``t = t + 1``, ... changing only ``variables``."""
    if e.kind == K.UNARY_OPERATOR and clang_ext.unary_operator(e) in ("++", "--"):
        target = list(e.get_children())[0]
    elif e.kind in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR) and clang_ext.binary_operator(e) in _ASSIGNING:
        target, value = list(e.get_children())
        if not _only_reads(value):
            return False
    else:
        return False
    while target.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR):
        target = list(target.get_children())[0]
    return (target.kind == K.DECL_REF_EXPR and target.referenced is not None
            and clang_ext.identity(target.referenced) in variables)


def _refers(s: ci.Cursor, decls: set[int]) -> bool:
    return any(n.kind == K.DECL_REF_EXPR and n.referenced is not None and clang_ext.identity(n.referenced) in decls
               for n in s.walk_preorder())


def _is_default(e: ci.Cursor) -> bool:
    text = "".join(t.spelling for t in e.get_tokens())
    return text in ("0", "nullptr", "NULL", "0L", "cudaStreamLegacy", "")


def _line_start(data: bytes, offset: int) -> int:
    return data.rfind(b"\n", 0, offset) + 1


def _line_end(data: bytes, offset: int) -> int:
    end = data.find(b"\n", offset)
    return len(data) if end < 0 else end


def _indent(data: bytes, offset: int) -> str:
    start = _line_start(data, offset)
    line = data[start:offset]
    return line[:len(line) - len(line.lstrip())].decode(errors="replace")
