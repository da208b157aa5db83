"""``cuda2cpu``: a drop-in for ``nvcc`` that builds CUDA programs for the CPU.

The command line is nvcc's, parsed by :mod:`transpiler.nvcc_flags` (which also writes
``--help``); building is :mod:`transpiler.driver`; ``cuda2cpu serve`` is :mod:`server.cli`.
"""

from __future__ import annotations

import json
import os
import sys

from moccuda import build as moccuda_build
from transpiler import toolkit
from transpiler.nvcc_flags import UsageError, help_text, parse_args


#: The modules of the 'server' extra (pyproject.toml) that `cuda2cpu serve` imports.
SERVER_MODULES = {"fastapi", "uvicorn", "starlette", "multipart", "python_multipart", "pydantic"}


def _explain_text(explain: dict) -> str:
    lines = []
    for k in explain.get("kernels", []):
        schedule = f", schedule {k['schedule']}" if k.get("schedule") else ""
        lines.append(f"kernel {k['name']} (line {k['line']}): lowering {k['lowering']}{schedule}")
        for b in k["barriers"]:
            lines.append(f"  barrier at {b['line']}:{b['column']}: {b['action']} ({b['reason']})")
        moved = {m["line"] for m in k.get("interchanged", [])}
        for kv in k["kept_values"]:
            names = ", ".join(kv["names"]) or "none"
            where = "the loop moved" if kv["barrier_line"] in moved else "the barrier"
            lines.append(f"  values kept across {where} at line {kv['barrier_line']}: {names}")
        for h in k["hoisted"]:
            when = ", computed by the first thread of each block that needs it" if h.get("on_first_use") else ""
            lines.append(f"  hoisted to {h['to']} level from line {h['line']}{when}: {h['text']}")
        for m in k.get("inlined", []):
            lines.append(f"  call of {m['function']} at line {m['line']} inlined: the loop at line {m['loop_line']} "
                         "moves outside the thread loop")
        for m in k.get("interchanged", []):
            indices = ", ".join(m["closed_form"])
            closed = f" (running indices in closed form: {indices})" if indices else ""
            lines.append(f"  loop at line {m['line']} moved outside the thread loop{closed}")
        for p in k.get("prefetched", []):
            lines.append(f"  next block's reads of {p['pointer']} (line {p['line']}) prefetched")
        for w in k.get("widened", []):
            lines.append(f"  subscript {w['subscript']} (line {w['line']}) computed in 64 bits where it does not wrap")
    for r in explain.get("regions", []):
        lines.append(f"line {r['line']}: one parallel region ({r['kind']}) for {r['launches']} kernel launches")
    for r in explain.get("host_rewrites", []):
        lines.append(f"{r['file']}:{r['line']}:{r['column']}: host check rewritten for CPU tensors: "
                     f"{r['from']} -> {r['to']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    try:
        status = _run(argv)
    except OSError as exc:  # --help or --version to a full disk or a closed pipe
        print(f"cuda2cpu: error: cannot write standard output: {exc.strerror or exc}", file=sys.stderr)
        status = 1
    return _flush_stdout(report=status == 0) or status


def _run(argv: list[str] | None) -> int:
    from transpiler import build_steps, driver
    from foundation.diagnostics import CompileError

    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["serve"]:
        try:
            from server.cli import main as serve
            return serve(argv[1:])
        except ModuleNotFoundError as exc:  # installed without the service's dependencies
            missing = (exc.name or "").split(".")[0]
            if missing not in SERVER_MODULES:
                raise
            print(f"cuda2cpu serve: error: the HTTP service needs the 'server' extra (no module '{missing}'): "
                  "pip install 'cuda2cpu[server]' (or, in a checkout, pip install -e '.[server]')", file=sys.stderr)
            return 1
    try:
        inv = parse_args(argv)
    except UsageError as exc:
        print(f"cuda2cpu: error: {exc}", file=sys.stderr)
        return 1
    if inv.show_help:
        sys.stdout.write(help_text())
        return 0
    if inv.show_version:
        print("\n".join(toolkit.version_lines()))
        return 0
    if inv.show_toolkit_dir:
        try:
            print(toolkit.toolkit_dir())
        except moccuda_build.BuildError as exc:
            print(f"cuda2cpu: error: {exc}", file=sys.stderr)
            return 1
        return 0
    try:
        explains = driver.run(inv)
    except CompileError as exc:
        print(exc.render(), file=sys.stderr)
        return 1
    except (build_steps.BuildError, moccuda_build.BuildError) as exc:
        print(f"cuda2cpu: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except OSError as exc:  # the file system refused (a file the driver did not name itself)
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"cuda2cpu: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # a bug in cuda2cpu: say so, without a traceback unless asked
        if os.environ.get("CUDA2CPU_DEBUG"):
            raise
        print(f"cuda2cpu: internal error: {type(exc).__name__}: {exc} (set CUDA2CPU_DEBUG=1 for a traceback)",
              file=sys.stderr)
        return 2
    try:
        _print_explain(inv, explains)
    except OSError as exc:
        print(f"cuda2cpu: error: cannot write standard output: {exc.strerror or exc}", file=sys.stderr)
        return 1
    return 0


def _print_explain(inv, explains: list[dict]) -> None:
    if inv.explain == "json":
        merged = {"kernels": [k for e in explains for k in e.get("kernels", [])],
                  "regions": [r for e in explains for r in e.get("regions", [])]}
        rewrites = [r for e in explains for r in e.get("host_rewrites", [])]
        if rewrites:
            merged["host_rewrites"] = rewrites
        print(json.dumps(merged, indent=2))
    elif inv.explain == "text":
        print("\n".join(_explain_text(e) for e in explains), file=sys.stderr)


def _flush_stdout(report: bool) -> int:
    """0 once what was written to standard output is out, else 1, with a message if ``report``
    (a full disk, a closed pipe).  Standard output then points at /dev/null, so that Python's own
    flush at exit does not fail again with a traceback."""
    try:
        sys.stdout.flush()
        return 0
    except OSError as exc:
        if report:
            print(f"cuda2cpu: error: cannot write standard output: {exc.strerror or exc}", file=sys.stderr)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
