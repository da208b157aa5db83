"""One translation (and optionally a syntax check), run in its own process by the service.

The service forks one process per request from a fork server that has imported this module (so
libclang and the passes are loaded once, not per request); ``serve`` sets CPU and memory limits
(``resource.setrlimit``), works in the request's temporary directory and sends one answer back
over a pipe, and the service kills it at its wall-clock limit.  ``python -m server.worker`` does
the same for JSON jobs on stdin (one a line), for debugging.  A pathological input can exhaust the worker; it
cannot exhaust or hang the server.  Nothing here executes uploaded code: ``check`` only runs
``g++ -fsyntax-only`` on the translated C++.

Job: ``{"main": "app.cu", "pipeline": str|null, "schedule": str, "disable": [str], "lowering": str,
"explain": bool, "check": bool}``.  Answer: ``{"ok": bool, "openmp_source": str,
"diagnostics": [...], "explain": {...}}``; file names in it are relative to the upload directory.
"""

from __future__ import annotations

import errno
import functools
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from clang.cindex import LibclangError, conf

from server.sandbox import SandboxUnavailable, Tree, compiler_trees, confine, python_trees

from cuda_front.parse import FRONT_INCLUDE_DIR, MOCCUDA_INCLUDE_DIR
from moccuda.build import header_library_dirs, include_dir
from foundation.diagnostics import CompileError
from foundation.options import TranslateOptions
from transpiler.pipeline import default_pipeline
from transpiler.translate import translate_file

default_pipeline()  # registers every pass now, in the fork server, instead of once per request
conf.lib  # loads libclang (and the libraries it needs) now: a confined worker could not open them

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


@functools.cache
def system_include_dirs() -> tuple[str, ...]:
    """The host C++ compiler's ``#include <...>`` directories (libclang finds the same GCC
    installation), with the front end's and MocCUDA's headers and the header libraries (Thrust,
    NVTX): where a translation may read headers that were not uploaded."""
    cxx = os.environ.get("CXX", "g++")
    try:
        probe = subprocess.run([cxx, "-E", "-x", "c++", "-v", os.devnull, "-o", os.devnull],
                               capture_output=True, text=True, timeout=30)
        listing = probe.stderr.split("#include <...> search starts here:", 1)[1].split("End of search list.")[0]
        found = [line.strip() for line in listing.splitlines() if line.strip()]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        found = []  # no compiler: only cuda2cpu's own headers (translations that need more are refused)
    return tuple(os.path.realpath(d) for d in (FRONT_INCLUDE_DIR, MOCCUDA_INCLUDE_DIR, *header_library_dirs(), *found))


system_include_dirs()  # asked once, in the fork server, like the pass registry above


def may_read(path: str, root: str) -> bool:
    """Whether a translation may have read ``path``: an upload, or a system or CUDA header."""
    real = os.path.realpath(path)
    return any(real == d or real.startswith(d + os.sep) for d in (root, *system_include_dirs()))


def refusal(path: str, root: str) -> dict:
    """The one diagnostic for a translation that reached a file it may not read (never its text)."""
    return {"severity": "error", "file": "", "line": 0, "column": 0,
            "message": f"refused: the input reached '{public_name(path, root)}', which is neither an uploaded "
                       "file nor a system or CUDA header"}


def scrub(text: str, root: str) -> str:
    return text.replace(root + os.sep, "").replace(root, ".")


def diagnostic_json(d, root: str) -> dict:
    return {"severity": d.severity, "file": public_name(d.loc.file, root), "line": d.loc.line,
            "column": d.loc.column, "message": scrub(d.message, root)}


def host_compiler() -> str:
    """The host C++ compiler as a full path: inside the sandbox ``PATH`` holds nothing to search."""
    cxx = os.environ.get("CXX", "g++")
    return shutil.which(cxx) or cxx


compiler_trees(host_compiler())  # likewise
python_trees()  # and the modules every worker has: not a walk over sys.modules per request


def sandbox_trees(root: str) -> list[Tree]:
    """What a worker translating in ``root`` may see (``server.sandbox``)."""
    return [Tree(root, writable=True), Tree(os.devnull, writable=True),
            *(Tree(d) for d in system_include_dirs()), *(Tree(p) for p in python_trees()),
            *(Tree(p) for p in compiler_trees(host_compiler()))]


def syntax_check(source: str, main: str, root: str) -> tuple[bool, list[dict]]:
    """Compile the translated C++ with ``-fsyntax-only``; return (ok, compiler diagnostics)."""
    out = Path(root) / (Path(main).stem + ".openmp.cpp")
    out.write_text(source, errors="surrogateescape")  # bytes of the upload that are not UTF-8, as they were
    cxx = host_compiler()
    cmd = [cxx, "-fsyntax-only", "-fopenmp", "-std=c++17", "-fdiagnostics-plain-output", "-w",
           "-I", str(include_dir()), "-I", root, out.name]
    proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True, errors="replace",
                          env=dict(os.environ, TMPDIR=root))
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


def _failed(diagnostics: list[dict]) -> dict:
    return {"ok": False, "openmp_source": "", "explain": {}, "diagnostics": diagnostics}


def run(job: dict, root: str) -> dict:
    options = TranslateOptions(pipeline=job.get("pipeline") or None,
                               disabled_passes=tuple(job.get("disable") or ()),
                               lowering=job.get("lowering") or "auto",
                               schedule=job.get("schedule") or "auto")
    started = time.perf_counter()
    try:
        result = translate_file(os.path.join(root, job["main"]), options)
    except CompileError as exc:
        # A diagnostic inside a file outside the upload could quote it: say only that it was reached.
        outside = [d.loc.file for d in exc.diagnostics if os.path.isabs(d.loc.file) and not may_read(d.loc.file, root)]
        diagnostics = [refusal(outside[0], root)] if outside else [diagnostic_json(d, root) for d in exc.diagnostics]
        return _failed(diagnostics)
    # The upload was checked before translation (server.includes); this checks what was really read.
    outside = [f for f in result.included_files if not may_read(f, root)]
    if outside:
        return _failed([refusal(outside[0], root)])
    translated = time.perf_counter()
    # JSON text is Unicode: bytes of the upload that are not UTF-8 are shown as U+FFFD here.
    answer = {"ok": True, "openmp_source": scrub(result.source_bytes().decode("utf-8", "replace"), root),
              "diagnostics": [diagnostic_json(d, root) for d in result.warnings],
              "explain": result.explain if job.get("explain") else {},
              "timings": {"translate": translated - started}}
    if job.get("check"):
        ok, diags = syntax_check(result.source, job["main"], root)
        answer["ok"] = ok
        answer["diagnostics"].extend(diags)
        answer["timings"]["check"] = time.perf_counter() - translated
    return answer


def guarded_run(job: dict, root: str) -> dict:
    """``run``, with the failures a pathological input can cause turned into answers."""
    try:
        return run(job, root)
    except MemoryError:
        return {"ok": False, "failure": "memory"}
    except RecursionError:
        return {"ok": False, "failure": "recursion"}
    except OSError as exc:  # under the address-space limit, mmap and starting g++ fail with ENOMEM
        if exc.errno == errno.ENOMEM:
            return {"ok": False, "failure": "memory"}
        return {"ok": False, "failure": "internal", "detail": type(exc).__name__}
    except LibclangError as exc:  # libclang is loaded on first use: under the limit it cannot be mapped
        if "failed to map" in str(exc) or "Cannot allocate memory" in str(exc):
            return {"ok": False, "failure": "memory"}
        return {"ok": False, "failure": "internal", "detail": type(exc).__name__}
    except Exception as exc:  # a bug in cuda2cpu: reported by type, no traceback to the client
        return {"ok": False, "failure": "internal", "detail": type(exc).__name__}


def serve(conn, root: str, mount_point: str, job: dict, cpu_s: int, memory_bytes: int) -> None:
    """Process target: confine this process to what it may see (``server.sandbox``; an empty
    directory ``mount_point`` holds the new root), limit it (and the compiler it may start), run,
    send the answer."""
    os.setsid()  # its own process group: the service kills the group, g++ included
    try:
        confine(sandbox_trees(root), mount_point)
    except (SandboxUnavailable, OSError) as exc:
        conn.send({"ok": False, "failure": "sandbox", "detail": str(exc)})
        conn.close()
        return
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 20, 64 << 20))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.chdir(root)
    conn.send(guarded_run(job, root))
    conn.close()


def main() -> int:
    """Translate the JSON jobs on stdin (one a line) in the current directory, confined as the
    service does, and print one JSON answer a line."""
    root = os.path.realpath(os.getcwd())
    jobs = [json.loads(line) for line in sys.stdin.read().splitlines() if line.strip()]
    mount_point = tempfile.mkdtemp(prefix="cuda2cpu-sandbox-")
    reader, writer = os.pipe()
    child = os.fork()
    if child == 0:  # confined in a child, so that the parent can remove the mount point afterwards
        os.close(reader)
        with os.fdopen(writer, "w") as out:
            try:
                confine(sandbox_trees(root), mount_point)
            except (SandboxUnavailable, OSError) as exc:
                out.write(json.dumps({"ok": False, "failure": "sandbox", "detail": str(exc)}) + "\n")
                os._exit(1)
            for job in jobs:
                out.write(json.dumps(guarded_run(job, root)) + "\n")
        os._exit(0)
    os.close(writer)
    with os.fdopen(reader) as answers:
        text = answers.read()
    _, status = os.waitpid(child, 0)
    os.rmdir(mount_point)
    sys.stdout.write(text)
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main())
