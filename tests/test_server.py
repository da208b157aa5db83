"""The HTTP service against real uvicorn servers on loopback ports (``cuda2cpu serve``)."""

from __future__ import annotations

import concurrent.futures
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parent.parent
VECADD = (ROOT / "examples" / "vecadd.cu").read_text()
TOKEN = "s3cret-token"
SECRET = "cuda2cpu-test-secret-4711"
BROKEN = "__global__ void k(float *a) {\n    a[0] = ;\n}\n"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(*flags: str):
    port = _free_port()
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen([sys.executable, "-m", "transpiler.cli", "serve", "--port", str(port), *flags],
                            cwd=ROOT, stdout=log, stderr=log, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            log.seek(0)
            pytest.fail(f"server exited: {log.read().decode(errors='replace')}")
        try:
            if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                return proc, url, log
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    pytest.fail("server did not start within 30 s")


def _stop(proc, log) -> str:
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    log.seek(0)
    return log.read().decode(errors="replace")


@pytest.fixture(scope="module")
def server():
    proc, url, log = _start("--max-upload-kb", "64", "--timeout-s", "60")
    yield url
    text = _stop(proc, log)
    assert proc.returncode == 0, text


@pytest.fixture(scope="module")
def guarded():
    """A second server: a token, and a time limit no translation can meet."""
    proc, url, log = _start("--token", TOKEN, "--timeout-s", "0.05")
    yield url
    _stop(proc, log)


def post(url: str, path: str, source: str, filename: str = "app.cu", **options) -> httpx.Response:
    return httpx.post(url + path, json={"source": source, "filename": filename, **options}, timeout=120)


def test_transpile_vecadd_multipart(server):
    r = httpx.post(server + "/v1/transpile", files={"file": ("vecadd.cu", VECADD)}, data={"explain": "true"},
                   timeout=120)
    assert r.status_code == 200, r.text
    body = r.json()
    assert "#pragma omp parallel for" in body["openmp_source"]
    assert "moccuda::LaunchConfig" in body["openmp_source"]
    assert [d for d in body["diagnostics"] if d["severity"] == "error"] == []
    assert [k["name"] for k in body["explain"]["kernels"]] == ["vecadd"]
    assert r.headers["x-request-id"]
    assert tempfile.gettempdir() not in r.text


def test_transpile_json_with_uploaded_header(server):
    header = "#define SCALE 3.0f\n"
    source = '#include "scale.h"\n__global__ void k(float *a) { a[threadIdx.x] *= SCALE; }\n'
    r = httpx.post(server + "/v1/transpile", files=[("file", ("k.cu", source)), ("file", ("scale.h", header))],
                   timeout=120)
    assert r.status_code == 200, r.text
    assert "void k(" in r.json()["openmp_source"]


def test_translation_error_is_422_with_location(server):
    r = post(server, "/v1/transpile", BROKEN, "broken.cu")
    assert r.status_code == 422
    errors = [d for d in r.json()["diagnostics"] if d["severity"] == "error"]
    assert errors and errors[0]["file"] == "broken.cu"
    assert (errors[0]["line"], errors[0]["column"]) == (2, 12)
    assert "Traceback" not in r.text


def test_unknown_pass_is_422(server):
    r = post(server, "/v1/transpile", VECADD, "vecadd.cu", disable=["no-such-pass"])
    assert r.status_code == 422
    assert "unknown pass 'no-such-pass'" in r.json()["diagnostics"][0]["message"]


def test_check_compiles_the_translation(server):
    r = post(server, "/v1/check", VECADD, "vecadd.cu")
    assert r.status_code == 200, r.text
    assert not [d for d in r.json()["diagnostics"] if d["severity"] == "error"]


def test_check_reports_compiler_errors(server):
    # Translates (host code is kept as written) but does not compile: g++'s error comes back.
    source = VECADD + "\nint broken_host() { return undeclared_name; }\n"
    r = post(server, "/v1/check", source, "bad.cu")
    assert r.status_code == 422
    errors = [d for d in r.json()["diagnostics"] if d["severity"] == "error"]
    assert any("undeclared_name" in d["message"] and d["line"] > 0 for d in errors), r.text


def test_oversize_is_413(server):
    r = post(server, "/v1/transpile", VECADD + "//" + "x" * 70_000 + "\n", "big.cu")
    assert r.status_code == 413
    assert "64 KiB" in r.json()["diagnostics"][0]["message"]


@pytest.mark.parametrize("name", ["../evil.cu", "/etc/passwd", "a/b.cu", "..", ".hidden"])
def test_unsafe_upload_names_refused(server, name):
    r = httpx.post(server + "/v1/transpile", files={"file": (name, VECADD)}, timeout=60)
    assert r.status_code == 400, r.text
    assert "refused" in r.json()["diagnostics"][0]["message"]


@pytest.fixture(scope="module")
def secret_file():
    d = tempfile.mkdtemp(prefix="cuda2cpu-secret-")
    path = Path(d) / "secret.h"
    path.write_text(f"{SECRET} is the secret;\n")
    yield path
    shutil.rmtree(d)


HOSTILE = [
    ('#include "/etc/passwd"\n', 1, 1),
    ('#include "../x.h"\n', 1, 1),
    ('#include <../../../../../../etc/passwd>\n', 1, 1),
    ('int a;\n#/* hidden */include "{secret}"\n', 2, 1),
    ('const char *s = "/*";\n#include "{secret}"\n// */\n', 2, 1),
    ('#define F "{secret}"\n#include F\n', 2, 1),
    ('%:include "{secret}"\n', 1, 1),
    ('#if __has_include("{secret}")\n#endif\n', 1, 5),
]


@pytest.mark.parametrize("source, line, column", HOSTILE)
def test_hostile_includes_refused_without_leaking(server, secret_file, source, line, column):
    source = source.replace("{secret}", str(secret_file)) + "__global__ void k() {}\n"
    for path in ("/v1/transpile", "/v1/check"):
        r = post(server, path, source, "evil.cu")
        assert r.status_code == 422, r.text
        first = r.json()["diagnostics"][0]
        assert (first["file"], first["line"], first["column"]) == ("evil.cu", line, column)
        assert "refused" in first["message"] or "not allowed" in first["message"]
        assert SECRET not in r.text and "root:x:0" not in r.text


def test_wrong_or_missing_token_is_401(guarded):
    assert post(guarded, "/v1/transpile", VECADD).status_code == 401
    r = httpx.post(guarded + "/v1/transpile", json={"source": VECADD}, headers={"Authorization": "Bearer nope"})
    assert r.status_code == 401
    assert r.headers["www-authenticate"] == "Bearer"
    assert httpx.get(guarded + "/healthz").status_code == 200


def test_time_limit_ends_with_clear_error(guarded):
    r = httpx.post(guarded + "/v1/transpile", json={"source": VECADD, "filename": "vecadd.cu"},
                   headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60)
    assert r.status_code == 422, r.text
    assert "time limit of 0.05 s" in r.json()["diagnostics"][0]["message"]
    assert httpx.get(guarded + "/healthz").status_code == 200


def test_version_and_openapi(server):
    assert httpx.get(server + "/version").json()["api"] == "v1"
    schema = httpx.get(server + "/openapi.json").json()
    assert {"/v1/transpile", "/v1/check", "/healthz", "/version"} <= set(schema["paths"])


def test_twenty_concurrent_uploads(server):
    def one(i: int):
        kernel = f"__global__ void kernel_{i}(float *a) {{ a[threadIdx.x] += {i}.0f; }}\n"
        r = post(server, "/v1/transpile", kernel, f"k{i}.cu")
        return i, r.status_code, r.json()["openmp_source"]

    with concurrent.futures.ThreadPoolExecutor(20) as pool:
        results = list(pool.map(one, range(20)))
    for i, status, source in results:
        assert status == 200
        assert f"kernel_{i}(" in source
        others = [j for j in range(20) if j != i and f"kernel_{j}(" in source]
        assert others == []
    assert httpx.get(server + "/healthz").json() == {"status": "ok"}
    leftovers = [p for p in os.listdir(tempfile.gettempdir()) if p.startswith("cuda2cpu-req-")]
    assert leftovers == []


def test_page_is_served(server):
    r = httpx.get(server + "/")
    assert r.status_code == 200 and "<textarea" in r.text
    assert "http://" not in r.text and "https://" not in r.text  # nothing from the network
