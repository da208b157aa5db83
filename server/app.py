"""The cuda2cpu HTTP service: translate uploaded CUDA to C++/OpenMP, over an API and a page.

``create_app(Settings(...))`` builds the FastAPI app; ``cuda2cpu serve`` (``server.cli``) runs it
under uvicorn.  Each request gets its own temporary directory (removed afterwards) and its own
worker process (``server.worker``) with CPU, memory and wall-clock limits, so no input can hang
or kill the server.  Uploads are plain basenames; include directives that could reach outside
the upload are refused before any file is opened (``server.includes``).
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import os
import re
import multiprocessing
import shutil
import signal
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from openmp_emit.schedule import SCHEDULES
from server import includes, worker
from transpiler import __version__

STATIC_DIR = Path(__file__).resolve().parent / "static"
# The examples of a checkout (an installed wheel has none: then the page shows no menu).
EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "examples"
_NAME = re.compile(r"[A-Za-z0-9_+\-][A-Za-z0-9_+.\-]*")
_SOURCE_SUFFIXES = (".cu",)
access_log = logging.getLogger("cuda2cpu.access")


@dataclass(frozen=True)
class Settings:
    """Limits of one service instance.  The defaults are safe for a shared machine."""

    max_upload_kb: int = 512       # the whole request body
    timeout_s: float = 30.0        # wall clock per translation (and per check)
    token: str | None = None       # when set, /v1/* needs "Authorization: Bearer <token>"
    max_files: int = 16            # files in one upload
    memory_mb: int = 2048          # address space of one worker process
    max_jobs: int = max(1, os.cpu_count() or 1)  # worker processes at once
    quick_s: float = 2.0           # CPU time after which a translation is "long" (see Lanes)
    long_jobs: int = 1             # long translations that run at once; the others wait, stopped


class RequestError(Exception):
    """A client mistake answered with ``status`` and one diagnostic, never a traceback."""

    def __init__(self, status: int, message: str, file: str = "", line: int = 0, column: int = 0) -> None:
        super().__init__(message)
        self.status = status
        self.body = answer("", [diag("error", message, file, line, column)])


def diag(severity: str, message: str, file: str = "", line: int = 0, column: int = 0) -> dict:
    return {"severity": severity, "file": file, "line": line, "column": column, "message": message}


def answer(source: str, diagnostics: list[dict], explain: dict | None = None, **extra) -> dict:
    return {"openmp_source": source, "diagnostics": diagnostics, "explain": explain or {}, **extra}


# ---------------------------------------------------------------------------- request parsing

@dataclass
class Job:
    files: dict[str, bytes]
    main: str
    pipeline: str | None
    schedule: str
    disable: list[str]
    lowering: str
    explain: bool


def _flag(value) -> bool:
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in ("1", "true", "yes", "on")


def _names(value) -> list[str]:
    """A pass list given as a JSON list, repeated form fields or one comma-separated string."""
    items = value if isinstance(value, list) else [value]
    out = []
    for item in items:
        if not isinstance(item, str):
            raise RequestError(400, "'disable' must be a list of pass names")
        out.extend(n.strip() for n in item.split(",") if n.strip())
    return out


def _text(options: dict, key: str) -> str | None:
    value = options.get(key)
    if value is not None and not isinstance(value, str):
        raise RequestError(400, f"'{key}' must be a string")
    return value


def check_name(name: str) -> str:
    if not name or "/" in name or "\\" in name or name in (".", "..") or not _NAME.fullmatch(name):
        raise RequestError(400, f"file name {name!r} is refused: upload plain file names "
                           "(letters, digits, '_', '-', '+', '.'; no directories)")
    return name


async def read_job(request: Request, settings: Settings) -> Job:
    ctype = request.headers.get("content-type", "")
    files: dict[str, bytes] = {}
    if ctype.startswith("application/json"):
        try:
            data = json.loads(await request.body())
        except (ValueError, UnicodeDecodeError):
            raise RequestError(400, "the body is not valid JSON") from None
        if not isinstance(data, dict) or not isinstance(data.get("source"), str):
            raise RequestError(400, "JSON body must be {\"source\": str, \"filename\": str, ...}")
        name = check_name(_text(data, "filename") or "input.cu")
        files[name] = data["source"].encode("utf-8", errors="replace")
        extra = data.get("headers") or {}
        if not isinstance(extra, dict) or not all(isinstance(t, str) for t in extra.values()):
            raise RequestError(400, "'headers' must map file names to their text")
        for extra_name, text in extra.items():
            files[check_name(extra_name)] = text.encode("utf-8", errors="replace")
        options = data
        disable = _names(data.get("disable") or [])
    elif ctype.startswith("multipart/form-data"):
        try:
            form = await request.form(max_files=1000, max_fields=1000)  # the body limit bounds both
        except StarletteHTTPException as exc:  # Starlette's answer to a malformed body: ours instead
            raise RequestError(400, f"the multipart body is malformed: {exc.detail}") from None
        for upload in form.getlist("file"):
            if isinstance(upload, str):
                raise RequestError(400, "field 'file' must be a file upload")
            name = check_name(upload.filename or "")
            if name in files:
                raise RequestError(400, f"file '{name}' is uploaded twice")
            files[name] = await upload.read()
        options = {k: form.get(k) for k in ("pipeline", "schedule", "lowering", "explain", "main") if k in form}
        disable = _names(form.getlist("disable"))
    else:
        raise RequestError(415, "send multipart/form-data (field 'file') or application/json")
    if not files:
        raise RequestError(400, "no file uploaded (multipart field 'file', or JSON 'source')")
    if len(files) > settings.max_files:
        raise RequestError(413, f"{len(files)} files uploaded; the limit is {settings.max_files}")
    for key in ("main", "pipeline", "schedule", "lowering"):
        _text(options, key)
    if not isinstance(options.get("explain", False), (bool, str)):
        raise RequestError(400, "'explain' must be true or false")
    main = options.get("main") or next((n for n in files if n.endswith(_SOURCE_SUFFIXES)), None)
    if main not in files:
        raise RequestError(400, "no .cu file among the uploads (or 'main' names no uploaded file)")
    lowering = options.get("lowering") or "auto"
    if lowering not in ("auto", "split", "fallback"):
        raise RequestError(400, "'lowering' must be auto, split or fallback")
    schedule = options.get("schedule") or "auto"
    if schedule not in SCHEDULES:
        raise RequestError(400, f"'schedule' must be one of {', '.join(SCHEDULES)}")
    pipeline = options.get("pipeline") or None
    return Job(files, main, pipeline, schedule, disable, lowering, _flag(options.get("explain") or False))


def refusals(job: Job) -> list[dict]:
    """Located diagnostics for uploads that are not text or include outside the upload."""
    out = []
    for name, data in job.files.items():
        if b"\0" in data:
            out.append(diag("error", "the file is binary, not source text", name))
            continue
        text = data.decode("utf-8", errors="replace")
        out.extend(diag("error", r.message, name, r.line, r.column) for r in includes.scan(text))
    return out


# ---------------------------------------------------------------------------- worker processes

_context = None


def _processes():
    """The fork server that starts workers with ``server.worker`` (libclang, passes) already imported."""
    global _context
    if _context is None:
        _context = multiprocessing.get_context("forkserver")
        _context.set_forkserver_preload(["server.worker"])
    return _context


class Lanes:
    """Two lanes, so that a few slow requests cannot make every other request wait.

    Every translation starts in the quick lane (``max_jobs`` at once).  One that has used
    ``quick_s`` seconds of CPU time leaves it for the long lane, where only ``long_jobs`` run at once: the
    others are stopped (SIGSTOP to the worker's process group) until a long slot frees, then go on
    where they were.  So macro or include bombs queue behind each other, while a normal request
    soon finds a quick slot.  The wall-clock limit counts running time only.
    """

    def __init__(self, settings: Settings) -> None:
        self.quick = asyncio.Semaphore(settings.max_jobs)
        self.long = asyncio.Semaphore(settings.long_jobs)
        self.quick_s = min(settings.quick_s, settings.timeout_s)


def _answer_within(conn, seconds: float):
    """The worker's answer if it comes within ``seconds``; ``_PENDING`` if not; None if it died."""
    try:
        if conn.poll(max(seconds, 0.0)):
            return conn.recv()
        return _PENDING
    except (EOFError, OSError):
        return None


def _quick_answer(conn, pid: int, quick_s: float):
    """The worker's answer while it is quick: ``_PENDING`` once it has used ``quick_s`` of CPU time
    (or five times that of wall time, however busy the machine).  CPU time, so that a normal
    translation on a loaded machine is not taken for a slow one."""
    start = time.monotonic()
    while True:
        result = _answer_within(conn, 0.05)
        if result is not _PENDING:
            return result
        if _cpu_seconds(pid) >= quick_s or time.monotonic() - start >= 5 * quick_s:
            return _PENDING


def _cpu_seconds(pid: int) -> float:
    """CPU time used by a process and its waited-for children (g++), from /proc."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    # utime, stime, cutime, cstime: fields 14-17 of stat(5), 12-15 after the name.
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


_PENDING = object()


def _end(proc, conn) -> None:
    if proc.is_alive():
        _kill(proc.pid)
    proc.join()
    conn.close()


async def run_worker(job: Job, check: bool, settings: Settings, lanes: Lanes,
                     timings: dict[str, float]) -> tuple[int, dict]:
    """Translate ``job`` in a sandboxed worker; ``timings`` gets the seconds spent waiting for a
    slot (queue), starting the worker (start) and, from the worker, translating and checking."""
    root = os.path.realpath(tempfile.mkdtemp(prefix="cuda2cpu-req-"))
    mount_point = tempfile.mkdtemp(prefix="cuda2cpu-sandbox-")  # the worker's empty new root (server.sandbox)
    proc = ours = None
    try:
        for name, data in job.files.items():
            fd = os.open(os.path.join(root, name), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
        request = {"main": job.main, "pipeline": job.pipeline, "schedule": job.schedule, "disable": job.disable,
                   "lowering": job.lowering, "explain": job.explain, "check": check}
        arrived = time.monotonic()
        async with lanes.quick:
            timings["queue"] = time.monotonic() - arrived
            ctx = _processes()
            ours, theirs = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=worker.serve, daemon=True,
                               args=(theirs, root, mount_point, request, int(settings.timeout_s) + 2,
                                     settings.memory_mb << 20))
            await asyncio.to_thread(proc.start)
            theirs.close()
            started = time.monotonic()
            timings["start"] = started - arrived - timings["queue"]
            result = await asyncio.to_thread(_quick_answer, ours, proc.pid, lanes.quick_s)
            ran_s = time.monotonic() - started
            if result is _PENDING:
                _signal_group(proc.pid, signal.SIGSTOP)  # waits for a long slot, using no CPU
        if result is _PENDING:
            stopped = time.monotonic()
            async with lanes.long:
                timings["long_queue"] = time.monotonic() - stopped
                _signal_group(proc.pid, signal.SIGCONT)
                result = await asyncio.to_thread(_answer_within, ours, settings.timeout_s - ran_s)
        if result is _PENDING:
            await asyncio.to_thread(_end, proc, ours)
            return 422, answer("", [diag("error", f"translation took longer than the time limit of "
                                                  f"{settings.timeout_s:g} s and was stopped", job.main)])
        await asyncio.to_thread(_end, proc, ours)
        if isinstance(result, dict):
            timings.update(result.get("timings", {}))
        return _interpret(proc.exitcode, result, job, settings)
    finally:
        if proc is not None and proc.is_alive():  # the client went away, or the service is stopping
            _kill(proc.pid)
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(mount_point, ignore_errors=True)


def _signal_group(pid: int, signum: int) -> None:
    try:
        os.killpg(pid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def _kill(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _interpret(returncode: int | None, result: dict | None, job: Job, settings: Settings) -> tuple[int, dict]:
    if result is not None and "failure" not in result:
        status = 200 if result["ok"] else 422
        return status, answer(result["openmp_source"], result["diagnostics"], result.get("explain"))
    failure = (result or {}).get("failure")
    if failure == "memory":
        message = f"translation ran out of memory (limit {settings.memory_mb} MiB) and was stopped"
    elif failure == "recursion":
        message = "the input nests too deeply to translate"
    elif returncode == -signal.SIGXCPU:
        message = f"translation used more CPU time than its limit of {int(settings.timeout_s) + 2} s and was stopped"
    elif failure is None and returncode is not None and returncode < 0:
        return _died(-returncode, job, settings)
    elif failure == "sandbox":
        return 500, answer("", [diag("error", "the translation could not be confined to its sandbox "
                                              f"({result.get('detail', '')}); nothing was translated", job.main)])
    else:
        return 500, answer("", [diag("error", "internal error in cuda2cpu while translating this input "
                                              f"({(result or {}).get('detail', 'worker failed')})", job.main)])
    return 422, answer("", [diag("error", message, job.main)])


def _died(signum: int, job: Job, settings: Settings) -> tuple[int, dict]:
    """The answer for a worker that a signal ended (not the service's own time-limit kill)."""
    try:
        name = f"{signal.Signals(signum).name} ({signal.strsignal(signum)})"
    except ValueError:
        name = f"signal {signum}"
    if signum in (signal.SIGABRT, signal.SIGSEGV, signal.SIGKILL, signal.SIGBUS):
        # Under an address-space limit a failed allocation in libclang aborts or faults, and the
        # kernel's OOM killer sends SIGKILL: say what happened, and what it may mean.
        return 422, answer("", [diag("error", f"the translation worker was ended by {name}; it may have "
                                              f"reached the memory limit of {settings.memory_mb} MiB", job.main)])
    return 500, answer("", [diag("error", f"the translation worker was ended by {name}", job.main)])


# ---------------------------------------------------------------------------- the app

class BodyLimit:
    """ASGI middleware: answer 413 for request bodies over the limit, before any parsing."""

    def __init__(self, app, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            return await self.app(scope, receive, send)
        too_big = JSONResponse(answer("", [diag("error", f"the request is larger than the limit of "
                                                          f"{self.limit // 1024} KiB")]), status_code=413)
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            return await too_big(scope, receive, send)
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.limit:
                return await too_big(scope, receive, send)
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        sent = False

        async def replay():
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()
        return await self.app(scope, replay, send)


_BODY_DOC = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {"schema": {
                "type": "object", "required": ["source"],
                "properties": {
                    "source": {"type": "string"}, "filename": {"type": "string", "default": "input.cu"},
                    "headers": {"type": "object", "additionalProperties": {"type": "string"}},
                    "pipeline": {"type": "string", "description": "pass pipeline, e.g. parallel-loops,barrier-split"},
                    "schedule": {"type": "string", "enum": list(SCHEDULES), "description": "OpenMP schedule"},
                    "disable": {"type": "array", "items": {"type": "string"}},
                    "lowering": {"type": "string", "enum": ["auto", "split", "fallback"]},
                    "explain": {"type": "boolean"}}}},
            "multipart/form-data": {"schema": {
                "type": "object", "required": ["file"],
                "properties": {
                    "file": {"type": "array", "items": {"type": "string", "format": "binary"}},
                    "main": {"type": "string"}, "pipeline": {"type": "string"},
                    "schedule": {"type": "string", "enum": list(SCHEDULES)},
                    "disable": {"type": "array", "items": {"type": "string"}},
                    "lowering": {"type": "string", "enum": ["auto", "split", "fallback"]},
                    "explain": {"type": "boolean"}}}},
        },
    },
    "responses": {"422": {"description": "the source does not translate (or compile); see diagnostics"},
                  "413": {"description": "request too large or too many files"},
                  "401": {"description": "missing or wrong bearer token"}},
}


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()
    app = FastAPI(title="cuda2cpu", version=__version__,
                  description="Translate CUDA C++ to C++ with OpenMP that runs on the MocCUDA runtime.")
    lanes = Lanes(settings)

    async def handle(request: Request, check: bool) -> JSONResponse:
        try:
            job = await read_job(request, settings)
        except RequestError as exc:
            return JSONResponse(exc.body, status_code=exc.status)
        refused = refusals(job)
        if refused:
            return JSONResponse(answer("", refused), status_code=422)
        timings: dict[str, float] = {}
        status, body = await run_worker(job, check, settings, lanes, timings)
        # Where the time went, for clients and load tests (the Server-Timing header, in ms).
        server_timing = ", ".join(f"{stage};dur={seconds * 1000:.1f}" for stage, seconds in timings.items())
        return JSONResponse(body, status_code=status, headers={"Server-Timing": server_timing})

    @app.post("/v1/transpile", openapi_extra=_BODY_DOC, summary="Translate CUDA to C++/OpenMP")
    async def transpile(request: Request):
        return await handle(request, check=False)

    @app.post("/v1/check", openapi_extra=_BODY_DOC, summary="Translate, then compile with g++ -fsyntax-only")
    async def check(request: Request):
        return await handle(request, check=True)

    @app.get("/healthz")
    async def healthz():
        return {"status": "ok"}

    @app.get("/version")
    async def version():
        return {"cuda2cpu": __version__, "api": "v1"}

    @app.get("/v1/examples", summary="The bundled example programs (for the page's menu)")
    async def examples():
        return {"examples": sorted(p.name for p in EXAMPLES_DIR.glob("*.cu"))} if EXAMPLES_DIR.is_dir() else \
            {"examples": []}

    @app.get("/v1/examples/{name}", summary="One bundled example's source",
             response_class=PlainTextResponse)
    async def example(name: str):
        path = EXAMPLES_DIR / name
        if not _NAME.fullmatch(name) or not name.endswith(".cu") or not path.is_file():
            raise StarletteHTTPException(404, f"no example named {name!r}")
        return PlainTextResponse(path.read_text(errors="replace"))

    @app.get("/", include_in_schema=False)
    async def page():
        return FileResponse(STATIC_DIR / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException):  # 404, 405, ...: the API's shape
        return JSONResponse(answer("", [diag("error", str(exc.detail))]), status_code=exc.status_code,
                            headers=getattr(exc, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError):
        return JSONResponse(answer("", [diag("error", "invalid request: " + "; ".join(
            str(e.get("msg")) for e in exc.errors()))]), status_code=422)

    @app.exception_handler(Exception)
    async def crashed(request: Request, exc: Exception):
        return JSONResponse(answer("", [diag("error", f"internal error ({type(exc).__name__}); request id "
                                                      f"{request.state.request_id}")]), status_code=500)

    @app.middleware("http")
    async def guard_and_log(request: Request, call_next):
        request_id = request.headers.get("x-request-id", "")[:64] or uuid.uuid4().hex[:16]
        if not re.fullmatch(r"[A-Za-z0-9_.\-]+", request_id):
            request_id = uuid.uuid4().hex[:16]
        request.state.request_id = request_id
        start = time.perf_counter()
        if settings.token and request.url.path.startswith("/v1/") and not _authorized(request, settings.token):
            response = JSONResponse(answer("", [diag("error", "missing or wrong token: send "
                                                              "'Authorization: Bearer <token>'")]),
                                    status_code=401, headers={"WWW-Authenticate": "Bearer"})
        else:
            try:
                response = await call_next(request)
            except Exception as exc:
                response = JSONResponse(answer("", [diag("error", f"internal error ({type(exc).__name__}); "
                                                                  f"request id {request_id}")]), status_code=500)
        response.headers["X-Request-ID"] = request_id
        access_log.info(json.dumps({
            "ts": round(time.time(), 3), "request_id": request_id, "method": request.method,
            "path": request.url.path, "status": response.status_code,
            "duration_ms": round((time.perf_counter() - start) * 1000, 1),
            "client": request.client.host if request.client else None}))
        return response

    app.add_middleware(BodyLimit, limit=settings.max_upload_kb * 1024)  # outermost: before any parsing
    return app


def _authorized(request: Request, token: str) -> bool:
    header = request.headers.get("authorization", "")
    scheme, _, given = header.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode())


def app_from_env() -> FastAPI:
    """Factory for ``uvicorn --factory server.app:app_from_env`` (used by ``cuda2cpu serve``)."""
    raw = os.environ.get("CUDA2CPU_SERVER_SETTINGS")
    settings = Settings(**json.loads(raw)) if raw else Settings()
    if not access_log.handlers:  # one JSON line per request on stderr, in every uvicorn worker
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        access_log.addHandler(handler)
        access_log.setLevel(logging.INFO)
        access_log.propagate = False
    return create_app(settings)
