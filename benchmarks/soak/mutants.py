"""Corpus mutants: the test programs and examples with one ``__syncthreads()`` inserted at a random
statement boundary of a kernel.

A barrier that every thread of the block reaches changes nothing in a race-free program; one that
only some reach is undefined behaviour.  So cuda2cpu must either reject a mutant with a located
error (``file:line:col: error: ...``) or build a program that prints what the original prints.
Anything else (a different output, a crash, an internal error, a translation g++ rejects) is a
failure, saved under the failures directory with the mutant and the command that shows it.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import clang.cindex as ci

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from support import compile_cpp  # noqa: E402
from foundation.diagnostics import CompileError  # noqa: E402
from transpiler.translate import translate_file  # noqa: E402

#: The corpus: self-checking programs that build from the .cu file alone (the PyTorch programs
#: and the nvcc-built ones need more than that).
SKIP_DIRS = ("torch", "nvcc")
THREADS = 3
TIMEOUT = 120


def corpus() -> list[Path]:
    files = sorted((ROOT / "tests" / "programs").rglob("*.cu")) + sorted((ROOT / "examples").glob("*.cu"))
    return [f for f in files if not any(part in SKIP_DIRS for part in f.relative_to(ROOT).parts)]


def boundaries(cu: Path) -> list[tuple[int, int]]:
    """Byte offsets (and lines) in ``cu`` where a statement of a kernel body begins or a block of
    one ends: the places a ``__syncthreads();`` can go."""
    from cuda_front.parse import parse_file
    from foundation.options import TranslateOptions

    tu = parse_file(cu, TranslateOptions()).tu
    main = str(cu.resolve())
    spots: list[tuple[int, int]] = []

    def is_kernel(c) -> bool:
        return any(ch.kind == ci.CursorKind.CUDAGLOBAL_ATTR for ch in c.get_children())

    stack = [c for c in tu.cursor.get_children() if c.location.file and str(Path(c.location.file.name).resolve()) == main]
    while stack:
        c = stack.pop()
        if c.kind in (ci.CursorKind.FUNCTION_DECL, ci.CursorKind.FUNCTION_TEMPLATE) and is_kernel(c):
            body = [ch for ch in c.get_children() if ch.kind == ci.CursorKind.COMPOUND_STMT]
            inner = list(body)
            while inner:
                block = inner.pop()
                for st in block.get_children():
                    spots.append((st.extent.start.offset, st.extent.start.line))
                end = block.extent.end
                spots.append((end.offset - 1, end.line))  # before the closing brace
                inner += [n for n in block.walk_preorder() if n.kind == ci.CursorKind.COMPOUND_STMT and n != block
                          and n.kind != ci.CursorKind.LAMBDA_EXPR]
        elif c.kind in (ci.CursorKind.NAMESPACE, ci.CursorKind.UNEXPOSED_DECL, ci.CursorKind.LINKAGE_SPEC):
            stack += list(c.get_children())
    text = cu.read_bytes()
    # Only places spelled in the file as a statement starts (not inside a macro's expansion).
    return sorted({(o, line) for o, line in spots if 0 <= o < len(text) and text[o:o + 1] not in (b"#",)})


@dataclass
class Outcome:
    kind: str  # same, rejected, different, crash, unlocated, internal, build
    file: str
    line: int
    detail: str = ""
    saved: str | None = None


class Checker:
    def __init__(self, opt: str, failures: Path) -> None:
        self.opt, self.failures = opt, failures
        self.scratch = Path(tempfile.mkdtemp(prefix="cuda2cpu-mutants-"))
        self.originals: dict[Path, tuple[int, str] | None] = {}

    def build_run(self, cu: Path, tag: str):
        result = translate_file(cu)
        cpp, exe = self.scratch / f"{tag}.cpp", self.scratch / tag
        cpp.write_text(result.source)
        built = compile_cpp(cpp, exe, [f"-I{d}" for d in result.include_dirs], opt=self.opt)
        if built.returncode != 0:
            return None, built.stderr[-2000:]
        env = dict(os.environ, OMP_NUM_THREADS=str(THREADS), OMP_WAIT_POLICY="passive")
        try:
            run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=TIMEOUT, env=env, cwd=cu.parent)
        except subprocess.TimeoutExpired:
            return (None, "timeout"), ""
        finally:
            cpp.unlink(missing_ok=True)
            exe.unlink(missing_ok=True)
        return (run.returncode, run.stdout), ""

    def original(self, cu: Path):
        if cu not in self.originals:
            out, _ = self.build_run(cu, "original")
            self.originals[cu] = out if out and out[0] == 0 else None  # a program that fails alone is skipped
        return self.originals[cu]

    def check(self, cu: Path, offset: int, line: int, index: int) -> Outcome:
        original = self.original(cu)
        name = str(cu.relative_to(ROOT))
        if original is None:
            return Outcome("skipped", name, line, "the original does not build and pass")
        text = cu.read_bytes()
        mutant = self.scratch / f"m{index}" / cu.name
        mutant.parent.mkdir(exist_ok=True)
        mutant.write_bytes(text[:offset] + b"__syncthreads(); " + text[offset:])
        for sibling in cu.parent.iterdir():  # the program's own headers and data files
            if sibling.is_file() and sibling.suffix != ".cu" and not (mutant.parent / sibling.name).exists():
                (mutant.parent / sibling.name).symlink_to(sibling)
        try:
            got, err = self.build_run(mutant, f"mutant{index}")
        except CompileError as e:
            d = e.diagnostics[0] if e.diagnostics else None
            if d is not None and d.loc is not None and d.loc.line > 0:
                return Outcome("rejected", name, line, d.message)
            return self._fail("unlocated", cu, mutant, line, e.render(with_source=False))
        except Exception as e:  # noqa: BLE001 -- an internal error is a finding
            return self._fail("internal", cu, mutant, line, f"{type(e).__name__}: {e}")
        if got is None:
            return self._fail("build", cu, mutant, line, err)
        # Device printf lines of different blocks come in no defined order: compare them as sets.
        if got[0] != original[0] or sorted(got[1].splitlines()) != sorted(original[1].splitlines()):
            kind = "crash" if got[0] != 0 else "different"
            return self._fail(kind, cu, mutant, line, f"expected exit {original[0]} {original[1][-300:]!r}; "
                                                      f"got exit {got[0]} {got[1][-300:]!r}")
        return Outcome("same", name, line)

    def _fail(self, kind, cu, mutant, line, detail) -> Outcome:
        d = self.failures / "mutants" / f"{cu.stem}-line{line}"
        d.mkdir(parents=True, exist_ok=True)
        (d / cu.name).write_bytes(mutant.read_bytes())
        (d / "README").write_text(
            f"{cu.relative_to(ROOT)} with __syncthreads(); inserted on line {line}: {kind}\n{detail}\n\n"
            f"Reproduce (from the cuda2cpu checkout; the original prints what the mutant must print, or the\n"
            f"mutant must be rejected with a located error):\n"
            f"  python -m transpiler.cli {self.opt} {d / cu.name} -o mutant && OMP_NUM_THREADS={THREADS} ./mutant\n"
            f"  python -m transpiler.cli {self.opt} {cu.relative_to(ROOT)} -o original && "
            f"OMP_NUM_THREADS={THREADS} ./original\n")
        return Outcome(kind, str(cu.relative_to(ROOT)), line, detail, str(d))


_checker: Checker | None = None


def _init(opt, failures):
    global _checker
    _checker = Checker(opt, failures)


def _check(job):
    cu, offset, line, index = job
    return _checker.check(cu, offset, line, index)


def mutants(count: int, seed: int) -> list[tuple[Path, int, int, int]]:
    """``count`` (file, offset, line, index) picks, spread over the corpus's kernels' boundaries."""
    rng = random.Random(seed)
    spots = [(cu, o, line) for cu in corpus() for o, line in boundaries(cu)]
    picks = rng.sample(spots, min(count, len(spots)))
    picks.sort(key=lambda p: (str(p[0]), p[1]))  # one file's mutants together: its original built once
    return [(cu, o, line, j) for j, (cu, o, line) in enumerate(picks)]


def run(count: int, seed: int, jobs: int, opt: str, failures: Path) -> int:
    import time

    start = time.monotonic()
    picks = mutants(count, seed)
    print(f"mutants: {len(picks)} (a __syncthreads() at a random statement boundary of a kernel) over "
          f"{len(corpus())} programs, {opt}, {THREADS} threads, seed {seed}", flush=True)
    kinds: Counter = Counter()
    ctx = multiprocessing.get_context("spawn")
    # Contiguous chunks, so that each worker builds a file's original once.
    with ctx.Pool(jobs, _init, (opt, failures)) as pool:
        for out in pool.imap(_check, picks, chunksize=max(1, len(picks) // (4 * jobs) or 1)):
            kinds[out.kind] += 1
            if out.kind not in ("same", "rejected", "skipped"):
                print(f"  {out.kind}: {out.file}:{out.line}: {out.detail.splitlines()[0] if out.detail else ''} "
                      f"-> {out.saved}", flush=True)
    elapsed = time.monotonic() - start
    summary = ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))
    print(f"mutants: {len(picks)} in {elapsed:.0f} s: {summary}", flush=True)
    return sum(v for k, v in kinds.items() if k not in ("same", "rejected", "skipped"))
