"""One translation (and optionally a syntax check), run in its own process by the service.

The service forks one process per request from a fork server that has imported this module (so
libclang and the passes are loaded once, not per request); ``serve`` sets CPU and memory limits
(``resource.setrlimit``), works in the request's temporary directory and sends one answer back
over a pipe, and the service kills it at its wall-clock limit.  ``python -m server.worker`` does
the same for a JSON job on stdin, for debugging.  A pathological input can exhaust the worker; it
cannot exhaust or hang the server.  Nothing here executes uploaded code: ``check`` only runs
``g++ -fsyntax-only`` on the translated C++.

Job: ``{"main": "app.cu", "pipeline": str|null, "disable": [str], "lowering": str,
"explain": bool, "check": bool}``.  Answer: ``{"ok": bool, "openmp_source": str,
"diagnostics": [...], "explain": {...}}``; file names in it are relative to the upload directory.
"""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
from pathlib import Path

from moccuda.build import include_dir
from transpiler.diagnostics import CompileError
from transpiler.options import TranslateOptions
from transpiler.passes import default_pipeline
from transpiler.translate import translate_file

default_pipeline()  # registers every pass now, in the fork server, instead of once per request

_GCC_DIAG = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<column>\d+): (?P<sev>fatal error|error|warning|note): "
                       r"(?P<msg>.*)$")


def public_name(path: str, root: str) -> str:
    """A file name as the client may see it: relative inside the upload, a bare name outside."""
    path = str(path)
    if path.startswith(root + os.sep):
        return path[len(root) + 1:]
    if path.startswith("<"):
        return path
    return "<system>/" + os.path.basename(path) if path else ""


def scrub(text: str, root: str) -> str:
    return text.replace(root + os.sep, "").replace(root, ".")


def diagnostic_json(d, root: str) -> dict:
    return {"severity": d.severity, "file": public_name(d.loc.file, root), "line": d.loc.line,
            "column": d.loc.column, "message": scrub(d.message, root)}


def syntax_check(source: str, main: str, root: str) -> tuple[bool, list[dict]]:
    """Compile the translated C++ with ``-fsyntax-only``; return (ok, compiler diagnostics)."""
    out = Path(root) / (Path(main).stem + ".openmp.cpp")
    out.write_text(source)
    cxx = os.environ.get("CXX", "g++")
    cmd = [cxx, "-fsyntax-only", "-fopenmp", "-std=c++17", "-fdiagnostics-plain-output", "-w",
           "-I", str(include_dir()), "-I", root, out.name]
    proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True, errors="replace")
    diags = []
    for line in proc.stderr.splitlines():
        m = _GCC_DIAG.match(line)
        if not m:
            continue
        sev = "error" if m["sev"] == "fatal error" else m["sev"]
        diags.append({"severity": sev, "file": public_name(os.path.join(root, m["file"]), root),
                      "line": int(m["line"]), "column": int(m["column"]), "message": scrub(m["msg"], root)})
    if proc.returncode != 0 and not any(d["severity"] == "error" for d in diags):
        diags.append({"severity": "error", "file": out.name, "line": 0, "column": 0,
                      "message": f"{cxx} failed with status {proc.returncode}"})
    return proc.returncode == 0, diags


def run(job: dict, root: str) -> dict:
    options = TranslateOptions(pipeline=job.get("pipeline") or None,
                               disabled_passes=tuple(job.get("disable") or ()),
                               lowering=job.get("lowering") or "auto")
    try:
        result = translate_file(os.path.join(root, job["main"]), options)
    except CompileError as exc:
        return {"ok": False, "openmp_source": "", "explain": {},
                "diagnostics": [diagnostic_json(d, root) for d in exc.diagnostics]}
    answer = {"ok": True, "openmp_source": scrub(result.source, root),
              "diagnostics": [diagnostic_json(d, root) for d in result.warnings],
              "explain": result.explain if job.get("explain") else {}}
    if job.get("check"):
        ok, diags = syntax_check(result.source, job["main"], root)
        answer["ok"] = ok
        answer["diagnostics"].extend(diags)
    return answer


def guarded_run(job: dict, root: str) -> dict:
    """``run``, with the failures a pathological input can cause turned into answers."""
    try:
        return run(job, root)
    except MemoryError:
        return {"ok": False, "failure": "memory"}
    except RecursionError:
        return {"ok": False, "failure": "recursion"}
    except Exception as exc:
        # Under the address-space limit, mapping libclang or a large file fails this way.
        if isinstance(exc, OSError) or type(exc).__name__ == "LibclangError":
            return {"ok": False, "failure": "memory"}  # a bug in cuda2cpu: report it by type, no traceback to the client
        return {"ok": False, "failure": "internal", "detail": type(exc).__name__}


def serve(conn, root: str, job: dict, cpu_s: int, memory_bytes: int) -> None:
    """Process target: limit this process (and the compiler it may start), run, send the answer."""
    os.setsid()  # its own process group: the service kills the group, g++ included
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 20, 64 << 20))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.chdir(root)
    conn.send(guarded_run(job, root))
    conn.close()


def main() -> int:
    root = os.path.realpath(os.getcwd())
    sys.stdout.write(json.dumps(guarded_run(json.loads(sys.stdin.read()), root)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
