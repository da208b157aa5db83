"""Random kernels through every configuration: the default pipeline, ``--lowering=fallback`` and
each ``--schedule``, each build run at several OpenMP thread counts; every run must print what
the fallback prints with one thread (the reference: threads as fibers, one at a time).

Many kernels share one translation unit, so one translation and one g++ build serve them all.
A unit's results are cached under the hash of the cuda2cpu sources, the configuration and the
unit's source, so a rerun after no change costs nothing.  A kernel that disagrees is saved alone
(with the shared helpers and a main) as a self-contained .cu with the commands to reproduce it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from benchmarks.soak import generator  # noqa: E402
from support import compile_cpp  # noqa: E402
from foundation.diagnostics import CompileError  # noqa: E402
from foundation.options import TranslateOptions  # noqa: E402
from transpiler.translate import translate_file  # noqa: E402

#: Each configuration: its cuda2cpu flags.  The reference is REFERENCE at one thread.
CONFIGS = {
    "default": (),
    "fallback": ("--lowering=fallback",),
    "blocks": ("--schedule=blocks",),
    "flat": ("--schedule=flat",),
    "nested": ("--schedule=nested",),
}
REFERENCE = "fallback"
THREADS = (1, 3, 16)
RUN_TIMEOUT = 300


def translate_options(config: str) -> TranslateOptions:
    opts = {}
    for flag in CONFIGS[config]:
        key, value = flag[2:].split("=")
        opts[{"lowering": "lowering", "schedule": "schedule"}[key]] = value
    return TranslateOptions(**opts)


def _tool_fingerprint() -> str:
    """A hash of everything that decides a translation's behaviour: cuda2cpu's sources and the
    MocCUDA runtime's."""
    h = hashlib.sha256()
    for d in ("transpiler", "cuda_front", "barrier", "openmp_emit", "moccuda/include", "moccuda/src"):
        for p in sorted((ROOT / d).rglob("*")):
            if p.is_file() and p.suffix in (".py", ".h", ".c", ".cpp", ".cuh", ".j2"):
                h.update(str(p.relative_to(ROOT)).encode())
                h.update(p.read_bytes())
    return h.hexdigest()[:16]


@dataclass
class Failure:
    """A kernel (or a whole unit, ``kernel`` None) that went wrong in one configuration."""

    kind: str  # mismatch, rejected, build, crash
    config: str
    threads: int | None
    kernel: str | None
    detail: str
    saved: str | None = None


@dataclass
class UnitResult:
    kernels: int = 0
    split: int = 0  # kernels the default pipeline lowered by splitting (not by fibers)
    failures: list[Failure] = field(default_factory=list)
    seconds: float = 0.0
    cached: bool = False


class Runner:
    """Builds and runs units under each configuration, with a cache and a scratch directory."""

    def __init__(self, opt: str = "-O1", threads: tuple[int, ...] = THREADS, configs: tuple[str, ...] = tuple(CONFIGS),
                 cache: Path | None = None, failures: Path = Path("/tmp/soak-failures"),
                 scratch: Path | None = None) -> None:
        self.opt, self.threads, self.configs = opt, threads, configs
        self.cache = cache
        self.failures = failures
        self.scratch = scratch or Path(tempfile.mkdtemp(prefix="cuda2cpu-soak-"))
        self.scratch.mkdir(parents=True, exist_ok=True)
        self.fingerprint = _tool_fingerprint()
        self.built: dict[str, dict] = {}  # translated source's hash -> its build's outputs (this process)

    # One configuration of one program ---------------------------------------------------------

    def outputs(self, source: str, config: str, tag: str) -> dict:
        """Translate, build and run ``source`` under ``config``: {"runs": {threads: stdout}, "split":
        kernels split} or {"error": kind, "detail": text, "line": line of a translation error}."""
        key = hashlib.sha256(f"{self.fingerprint}\0{config}\0{self.opt}\0{self.threads}\0{source}".encode()).hexdigest()
        cached = self.cache / key[:2] / f"{key}.json" if self.cache else None
        if cached and cached.exists():
            return json.loads(cached.read_text())
        result = self._outputs(source, config, tag)
        if cached:
            cached.parent.mkdir(parents=True, exist_ok=True)
            cached.write_text(json.dumps(result))
        return result

    def _outputs(self, source: str, config: str, tag: str) -> dict:
        cu = self.scratch / f"{tag}.cu"
        cu.write_text(source)
        try:
            result = translate_file(cu, translate_options(config))
        except CompileError as err:
            line = err.diagnostics[0].loc.line if err.diagnostics and err.diagnostics[0].loc else None
            return {"error": "rejected", "detail": err.render(with_source=False)[:2000], "line": line}
        except Exception as err:  # noqa: BLE001 -- an internal error is a finding, not a crash of the soak
            return {"error": "rejected", "detail": f"internal error: {type(err).__name__}: {err}"[:2000], "line": None}
        split = sum(1 for k in result.explain.get("kernels", []) if k.get("lowering") == "split")
        # Configurations that translate alike (--schedule=blocks is what auto picks for kernels with
        # shared memory) share one build and its runs.
        built_key = hashlib.sha256(result.source.encode()).hexdigest()
        if built_key in self.built:
            return dict(self.built[built_key], split=split)
        self.built[built_key] = self._build_run(result, tag)
        return dict(self.built[built_key], split=split)

    def _build_run(self, result, tag: str) -> dict:
        cpp, exe = self.scratch / f"{tag}.cpp", self.scratch / tag
        cpp.write_text(result.source)
        built = compile_cpp(cpp, exe, [f"-I{d}" for d in result.include_dirs], opt=self.opt)
        if built.returncode != 0:
            return {"error": "build", "detail": built.stderr[-3000:], "line": None}
        runs = {}
        for t in self.threads:
            env = dict(os.environ, OMP_NUM_THREADS=str(t), OMP_WAIT_POLICY="passive")
            try:
                run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=RUN_TIMEOUT, env=env)
            except subprocess.TimeoutExpired:
                return {"error": "crash", "detail": f"timed out after {RUN_TIMEOUT} s at {t} threads", "line": None,
                        "threads": t}
            if run.returncode != 0:
                return {"error": "crash", "detail": f"exit {run.returncode} at {t} threads: {run.stderr[-1500:]}",
                        "line": None, "threads": t, "partial": run.stdout}
            runs[str(t)] = run.stdout
        for p in (cpp, exe):
            p.unlink(missing_ok=True)
        return {"runs": runs}

    # A unit of kernels ------------------------------------------------------------------------

    def unit(self, kernels: list[generator.Kernel], tag: str) -> UnitResult:
        start = time.monotonic()
        self.built = {}
        out = UnitResult()
        kernels = list(kernels)
        results: dict[str, dict] = {}
        config_order = (REFERENCE,) + tuple(c for c in self.configs if c != REFERENCE)
        while kernels:
            source = generator.program(kernels)
            results = {}
            bad = None
            for config in config_order:
                results[config] = self.outputs(source, config, f"{tag}-{config}")
                if "error" in results[config]:
                    bad = config
                    break
            if bad is None:
                break
            # One kernel that cannot go through: find it, report it alone, go on without it.
            culprits = self._culprits(kernels, source, bad, results[bad])
            for k, failure in culprits:
                out.failures.append(failure)
                kernels.remove(k)
            if not culprits:  # the unit fails but no kernel alone does: report the unit
                out.failures.append(Failure(results[bad]["error"], bad, results[bad].get("threads"), None,
                                            results[bad]["detail"], self._save(kernels, tag, bad, results[bad])))
                kernels = []
        out.kernels = len(kernels)
        if kernels:
            out.split = results["default"]["split"] if "default" in results else 0
            out.failures += self._compare(kernels, results, tag)
        out.seconds = time.monotonic() - start
        return out

    def _culprits(self, kernels, source, config, error) -> list:
        """The kernels that fail under ``config`` alone (located by the error's line when it has
        one, else by trying each kernel alone)."""
        line = error.get("line")
        if line:
            span = _kernel_spans(source)
            for k in kernels:
                first, last = span[k.name]
                if first <= line <= last:
                    return [(k, Failure(error["error"], config, error.get("threads"), k.name, error["detail"],
                                        self._save([k], k.name, config, error)))]
        found = []
        for k in kernels:
            alone = self.outputs(generator.program([k]), config, f"alone-{k.name}-{config}")
            if "error" in alone:
                found.append((k, Failure(alone["error"], config, alone.get("threads"), k.name, alone["detail"],
                                         self._save([k], k.name, config, alone))))
        return found

    def _compare(self, kernels, results, tag) -> list[Failure]:
        reference = _lines(results[REFERENCE]["runs"][str(self.threads[0])])
        failures = []
        for k in kernels:
            expected = reference.get(k.name)
            for config, res in results.items():
                for t, stdout in res["runs"].items():
                    got = _lines(stdout).get(k.name)
                    if got != expected:
                        detail = f"expected ({REFERENCE}, {self.threads[0]} thread): {expected}; got: {got}"
                        failures.append(Failure("mismatch", config, int(t), k.name, detail,
                                                self._save([k], k.name, config, {"detail": detail}, int(t))))
                        break
                else:
                    continue
        return failures

    def recheck(self, source: str, tag: str) -> list[str]:
        """What still goes wrong with a saved program (after a fix): one line per configuration and
        thread count whose output is not the reference's, or that fails."""
        results = {config: self.outputs(source, config, f"{tag}-{config}") for config in self.configs}
        if "error" in results[REFERENCE]:
            return [f"{REFERENCE}: {results[REFERENCE]['error']}: {results[REFERENCE]['detail'][:300]}"]
        expected = results[REFERENCE]["runs"][str(self.threads[0])]
        problems = []
        for config, res in results.items():
            if "error" in res:
                problems.append(f"{config}: {res['error']}: {res['detail'][:300]}")
                continue
            problems += [f"{config}, {t} threads: expected {expected.strip()!r}, got {out.strip()!r}"
                         for t, out in res["runs"].items() if out != expected]
        return problems

    def _save(self, kernels, name, config, error, threads=None) -> str:
        """Write the kernels alone as a self-contained program with the commands that show the failure."""
        d = self.failures / f"{name}-{config}" if threads is None else self.failures / f"{name}-{config}-{threads}"
        d.mkdir(parents=True, exist_ok=True)
        (d / "kernel.cu").write_text(generator.program(kernels))
        flags = " ".join(CONFIGS[config])
        t = threads or error.get("threads") or 1
        ref_flags = " ".join(CONFIGS[REFERENCE])
        (d / "README").write_text(
            f"cuda2cpu configuration: {config} ({flags or 'no flags'}), {t} OpenMP thread(s), {self.opt}\n"
            f"{error.get('detail', '')}\n\n"
            "Reproduce (from the cuda2cpu checkout):\n"
            f"  python -m transpiler.cli {self.opt} {ref_flags} kernel.cu -o ref && OMP_NUM_THREADS=1 ./ref\n"
            f"  python -m transpiler.cli {self.opt} {flags} kernel.cu -o got && OMP_NUM_THREADS={t} ./got\n"
            "The two must print the same lines.\n")
        return str(d)


def _lines(stdout: str) -> dict[str, str]:
    return {line.split(" ", 1)[0]: line for line in stdout.splitlines() if line.strip()}


def _kernel_spans(source: str) -> dict[str, tuple[int, int]]:
    """Each kernel's first and last line in a program (1-based)."""
    spans = {}
    lines = source.splitlines()
    for j, line in enumerate(lines):
        m = re.match(r"__global__ void (\w+)\(", line)
        if m:
            end = next(e for e in range(j, len(lines)) if lines[e] == "}")
            spans[m.group(1)] = (j + 1, end + 1)
    return spans


# Pool workers (``python -m benchmarks.soak`` runs units in parallel) ----------------------------

_runner: Runner | None = None


def init_worker(opt, threads, configs, cache, failures) -> None:
    global _runner
    _runner = Runner(opt, threads, configs, cache, failures)


def unit_job(job: tuple[int, int, int]) -> tuple[int, UnitResult]:
    """Unit ``index`` of ``seed``: ``count`` kernels named after both (unique within a soak)."""
    seed, index, count = job
    ks = generator.kernels(seed * 1_000_003 + index, count, prefix=f"s{seed}u{index}k")
    return index, _runner.unit(ks, f"s{seed}u{index}")
