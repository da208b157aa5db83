"""Mutation fuzzing of the front end: cuda2cpu either translates or says where and why it cannot.

Each input is a program of the corpus (``tests/programs``, ``examples``) with one mutation: deep
nesting inserted (nested ``if``s, braces, parentheses, unary operators, casts, long sums and
comma chains), a token deleted or duplicated, a statement spliced in from elsewhere in the file.
``cuda2cpu --emit=openmp`` runs on it in a child process, and the outcome must be one of

* ``translated``: exit 0, and ``g++ -fsyntax-only`` accepts the translation;
* ``error``: exit 1 with a located diagnostic (``file:line:col: error: ...``) first;
* ``timeout``: the front end ran past the time limit (reported, not a failure: clang's own
  parse of some deeply nested inputs is slow).

Anything else is a finding: ``crash`` (killed by a signal), ``internal-error`` (exit 2, a traceback,
"internal error"), ``unlocated-error`` (exit 1 without ``file:line:col``), ``gxx-rejected`` (exit
0 and g++ rejects the translation), ``bad-exit`` (any other status).

The long run is a command::

    nice -n 15 python -m tests.fuzz_front_end --minutes 60 --seed 1 --keep /tmp/fuzz-findings

which prints one line per finding and a summary (inputs tried, and the count of each outcome).
``tests/test_fuzz_front_end.py`` runs a few dozen inputs with hypothesis in CI.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Programs that need only cuda2cpu and MocCUDA (the PyTorch ones need torch's headers).
CORPUS = sorted(p for p in [*(ROOT / "tests" / "programs").rglob("*.cu"), *(ROOT / "examples").glob("*.cu")]
                if "torch" not in p.parts)
FINDINGS = ("crash", "internal-error", "unlocated-error", "gxx-rejected", "bad-exit")
TRANSLATE_TIMEOUT_S = 120
_LOCATED = re.compile(r"^[^\s:][^:]*:\d+:\d+: error: ", re.M)
_TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|::|->|<<|>>|[^\s\w]")


@dataclass(frozen=True)
class Outcome:
    kind: str  # translated | error | timeout | one of FINDINGS
    detail: str = ""


# ------------------------------------------------------------------------------------ mutations


def _statement_ends(text: str) -> list[int]:
    """Offsets just after a ';' that ends a line inside a function (a place for a statement)."""
    return [m.end() for m in re.finditer(r";[ \t]*\n", text) if text[:m.start()].count("{") > text[:m.start()].count("}")]


def _nesting(rng: random.Random) -> str:
    """A statement with deep nesting of one shape."""
    depth = rng.choice([2, 50, 300, 1000, 3000, 10000, 40000])
    shape = rng.choice(["if", "for", "else", "braces", "parens", "not", "minus", "cast", "sum", "comma", "ternary",
                        "assign", "index"])
    if shape in ("if", "for", "else"):
        depth = min(depth, 3000)  # clang's own parse of nested statements is quadratic in depth
    return {
        "if": lambda: "if (threadIdx.x >= 0) " * depth + "{ }",
        "for": lambda: "for (int q = 0; q < 1; ++q) " * depth + ";",
        "else": lambda: "if (threadIdx.x == 7) { } else " * depth + "{ }",
        "braces": lambda: "{" * depth + "}" * depth,
        "parens": lambda: "{ int q = " + "(" * depth + "1" + ")" * depth + "; (void)q; }",
        "not": lambda: "{ bool q = " + "!" * depth + "true; (void)q; }",
        "minus": lambda: "{ int q = " + "- " * depth + "1; (void)q; }",
        "cast": lambda: "{ int q = " + "(int)" * depth + "1; (void)q; }",
        "sum": lambda: "{ int q = " + " + ".join(["0"] + ["1"] * depth) + "; (void)q; }",
        "comma": lambda: "{ int q = 0; q = (" + ", ".join(["q"] * depth) + "); (void)q; }",
        "ternary": lambda: "{ int q = " + "threadIdx.x ? 1 : " * depth + "0; (void)q; }",
        "assign": lambda: "{ int q; q = " + "q = " * depth + "1; (void)q; }",
        "index": lambda: "{ int q[1] = {0}; int r = " + "q[" * depth + "0" + "]" * depth + "; (void)r; }",
    }[shape]()


def insert_nesting(text: str, rng: random.Random) -> str:
    ends = _statement_ends(text)
    if not ends:
        return text
    at = rng.choice(ends)
    return text[:at] + _nesting(rng) + "\n" + text[at:]


def _tokens(text: str) -> list[re.Match]:
    return list(_TOKEN.finditer(text))


def delete_token(text: str, rng: random.Random) -> str:
    tokens = _tokens(text)
    t = rng.choice(tokens)
    return text[:t.start()] + text[t.end():]


def duplicate_token(text: str, rng: random.Random) -> str:
    tokens = _tokens(text)
    t = rng.choice(tokens)
    return text[:t.end()] + " " + t.group() + text[t.end():]


def swap_tokens(text: str, rng: random.Random) -> str:
    tokens = _tokens(text)
    i = rng.randrange(len(tokens) - 1)
    a, b = tokens[i], tokens[i + 1]
    return text[:a.start()] + b.group() + text[a.end():b.start()] + a.group() + text[b.end():]


def splice_statement(text: str, rng: random.Random) -> str:
    """Copy one line that ends a statement to another statement boundary of the file."""
    lines = [m for m in re.finditer(r"^[^\n#]*;[ \t]*$", text, re.M)]
    ends = _statement_ends(text)
    if not lines or not ends:
        return text
    line = rng.choice(lines).group().strip()
    at = rng.choice(ends)
    return text[:at] + line + "\n" + text[at:]


MUTATIONS = {
    "insert-nesting": insert_nesting,
    "delete-token": delete_token,
    "duplicate-token": duplicate_token,
    "swap-tokens": swap_tokens,
    "splice-statement": splice_statement,
}


def mutate(text: str, rng: random.Random, count: int = 1) -> tuple[str, list[str]]:
    names = []
    for _ in range(count):
        name = rng.choice(sorted(MUTATIONS))
        text = MUTATIONS[name](text, rng)
        names.append(name)
    return text, names


# -------------------------------------------------------------------------------------- oracle


def _moccuda_include() -> str:
    return str(ROOT / "moccuda" / "include")


def check(source: str, origin: Path, workdir: Path, timeout: float = TRANSLATE_TIMEOUT_S) -> Outcome:
    """Translate ``source`` (a mutant of ``origin``, whose directory is on the include path) with
    the CLI in a child process and classify what happened."""
    cu = workdir / origin.name
    cu.write_text(source, errors="surrogateescape")  # a corpus program may hold bytes that are not UTF-8
    cpp = workdir / (origin.stem + ".cpp")
    cpp.unlink(missing_ok=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("CUDA2CPU_DEBUG", None)
    cmd = [sys.executable, "-m", "transpiler.cli", "--emit=openmp", "-std=c++17", f"-I{origin.parent}", str(cu),
           "-o", str(cpp)]
    try:
        run = subprocess.run(cmd, capture_output=True, text=True, errors="replace", env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return Outcome("timeout")
    err = run.stderr
    if run.returncode < 0:
        return Outcome("crash", f"signal {-run.returncode}: {err[-500:]}")
    if "internal error" in err or "Traceback" in err or "Exception ignored" in err:
        return Outcome("internal-error", err[-1500:])
    if run.returncode == 1:
        return Outcome("error", err[:300]) if _LOCATED.search(err) else Outcome("unlocated-error", err[-1500:])
    if run.returncode != 0:
        return Outcome("bad-exit", f"exit {run.returncode}: {err[-1500:]}")
    cxx = os.environ.get("CXX", "g++")
    syntax = subprocess.run([cxx, "-std=c++17", "-fopenmp", "-fsyntax-only", "-w", f"-I{_moccuda_include()}",
                             f"-I{origin.parent}", str(cpp)], capture_output=True, text=True, errors="replace")
    if syntax.returncode != 0:
        return Outcome("gxx-rejected", syntax.stderr[:1500])
    return Outcome("translated")


# ------------------------------------------------------------------------------------ the run


def run(minutes: float, seed: int, keep: Path | None, log=print) -> Counter:
    rng = random.Random(seed)
    counts: Counter = Counter()
    deadline = time.monotonic() + minutes * 60
    with tempfile.TemporaryDirectory(prefix="cuda2cpu-fuzz-") as tmp:
        workdir = Path(tmp)
        while time.monotonic() < deadline:
            origin = rng.choice(CORPUS)
            mutant, names = mutate(origin.read_text(errors="surrogateescape"), rng, count=rng.choice([1, 1, 1, 2, 3]))
            outcome = check(mutant, origin, workdir)
            counts["inputs"] += 1
            counts[outcome.kind] += 1
            if outcome.kind in FINDINGS:
                name = f"{outcome.kind}-{counts['inputs']:05d}-{origin.stem}.cu"
                log(f"{outcome.kind}: {origin.relative_to(ROOT)} after {'+'.join(names)}"
                    + (f" (kept as {keep / name})" if keep else "") + f"\n    {outcome.detail[:400]}")
                if keep:
                    keep.mkdir(parents=True, exist_ok=True)
                    (keep / name).write_text(mutant, errors="surrogateescape")
            if counts["inputs"] % 100 == 0:
                log(f"... {summary(counts)}")
    return counts


def replay(kept: Path, log=print) -> Counter:
    """Check again every input a run kept (``--keep``), as from the corpus program it was made of."""
    by_stem = {p.stem: p for p in CORPUS}
    counts: Counter = Counter()
    with tempfile.TemporaryDirectory(prefix="cuda2cpu-fuzz-") as tmp:
        for path in sorted(kept.glob("*.cu")):
            origin = by_stem[re.search(r"-\d{5}-(.+)$", path.stem).group(1)]
            outcome = check(path.read_text(errors="surrogateescape"), origin, Path(tmp))
            counts["inputs"] += 1
            counts[outcome.kind] += 1
            log(f"{path.name}: {outcome.kind}" + (f"\n    {outcome.detail[:400]}" if outcome.kind in FINDINGS else ""))
    return counts


def summary(counts: Counter) -> str:
    kinds = ["translated", "error", "timeout", *FINDINGS]
    return f"{counts['inputs']} inputs: " + ", ".join(f"{k} {counts[k]}" for k in kinds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz_front_end", description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=5.0, help="how long to run (default 5)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", type=Path, default=None, help="a directory to keep the findings' inputs in")
    parser.add_argument("--replay", type=Path, default=None, help="check again the inputs kept in this directory")
    args = parser.parse_args(argv)
    log = lambda s: print(s, flush=True)  # noqa: E731
    counts = replay(args.replay, log) if args.replay else run(args.minutes, args.seed, args.keep, log)
    print(summary(counts), flush=True)
    return 1 if any(counts[k] for k in FINDINGS) else 0


if __name__ == "__main__":
    raise SystemExit(main())
