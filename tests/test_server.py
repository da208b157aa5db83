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
    tmp = tempfile.mkdtemp(prefix="cuda2cpu-server-test-")  # its own TMPDIR: request dirs are countable
    proc = subprocess.Popen([sys.executable, "-m", "transpiler.cli", "serve", "--port", str(port), *flags],
                            cwd=ROOT, stdout=log, stderr=log, start_new_session=True, env=dict(os.environ, TMPDIR=tmp))
    proc.tmpdir = tmp
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


def _stop(proc, log, keep_tmpdir: bool = False) -> str:
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    if not keep_tmpdir:
        shutil.rmtree(proc.tmpdir, ignore_errors=True)
    log.seek(0)
    return log.read().decode(errors="replace")


@pytest.fixture(scope="module")
def running():
    proc, url, log = _start("--max-upload-kb", "64", "--timeout-s", "60")
    yield url, log, proc.tmpdir
    text = _stop(proc, log)
    assert proc.returncode == 0, text  # a graceful shutdown on SIGINT


@pytest.fixture(scope="module")
def server(running):
    return running[0]


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


def test_schedule_and_pipeline_options(server):
    # `schedule` is the OpenMP schedule; `pipeline` the pass list (both as the CLI's flags).
    r = post(server, "/v1/transpile", VECADD, "vecadd.cu", schedule="nested", explain=True)
    assert r.status_code == 200, r.text
    assert "omp parallel for collapse(3) schedule(static) num_threads(" in r.json()["openmp_source"]
    assert r.json()["explain"]["kernels"][0]["schedule"] == "nested"
    r = post(server, "/v1/transpile", VECADD, "vecadd.cu", pipeline="parallel-loops,barrier-interchange,barrier-split")
    assert r.status_code == 200, r.text
    assert "threads_below" not in r.json()["openmp_source"]  # no guard-folding in that pipeline
    r = post(server, "/v1/transpile", VECADD, "vecadd.cu", schedule="fastest")
    assert r.status_code == 400 and "'schedule' must be one of" in r.text


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
    ('#pragma GCC dependency "{secret}"\n', 1, 9),
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


def test_worker_refuses_a_translation_that_read_outside_the_upload(tmp_path):
    """The check after translation, behind server.includes: libclang's include list must name only
    uploads and system or CUDA headers.  The worker is run without the service's scan before it."""
    from server import worker

    root = os.path.realpath(tmp_path / "upload")
    outside = tmp_path / "outside"
    os.mkdir(root)
    outside.mkdir()
    (outside / "valid.h").write_text(f"int secret_value = 4711; // {SECRET}\n")
    (outside / "invalid.h").write_text(f"{SECRET} is the secret;\n")
    for header in ("valid.h", "invalid.h"):
        Path(root, "evil.cu").write_text(f'#include "{outside / header}"\n__global__ void k(int *a) {{ a[0] = 1; }}\n')
        answer = worker.run({"main": "evil.cu"}, root)
        assert answer["ok"] is False and answer["openmp_source"] == ""
        assert [d["message"] for d in answer["diagnostics"]] == [
            f"refused: the input reached '<system>/{header}', which is neither an uploaded file nor a system "
            "or CUDA header"]
        assert SECRET not in json.dumps(answer) and str(outside) not in json.dumps(answer)
    # Uploads, system headers and MocCUDA's are fine.
    Path(root, "scale.h").write_text("#define SCALE 3\n")
    Path(root, "good.cu").write_text('#include "scale.h"\n#include <cstdio>\n#include <cuda_runtime.h>\n'
                                     "__global__ void k(int *a) { a[0] = SCALE; }\n")
    assert worker.run({"main": "good.cu"}, root)["ok"] is True


def test_worker_reports_other_os_errors_as_internal_not_memory(tmp_path, monkeypatch):
    from server import worker

    shutil.copyfile(ROOT / "examples" / "vecadd.cu", tmp_path / "vecadd.cu")
    monkeypatch.setenv("CXX", str(tmp_path / "no-such-compiler"))  # /v1/check cannot start g++
    assert worker.guarded_run({"main": "vecadd.cu", "check": True}, os.path.realpath(tmp_path)) == {
        "ok": False, "failure": "internal", "detail": "FileNotFoundError"}


@pytest.mark.parametrize("content_type, body, message", [
    ("multipart/form-data", b"no boundary", "Missing boundary"),
    ("multipart/form-data; boundary=XYZ",
     b'--XYZ\r\nContent-Disposition: form-data; filename="a.cu"\r\n\r\nint x;\r\n--XYZ--\r\n', '"name"'),
])
def test_malformed_multipart_answers_in_the_api_shape(server, content_type, body, message):
    r = httpx.post(server + "/v1/transpile", content=body, headers={"Content-Type": content_type}, timeout=60)
    assert r.status_code == 400, r.text
    assert set(r.json()) == {"openmp_source", "diagnostics", "explain"}
    (only,) = r.json()["diagnostics"]
    assert only["message"].startswith("the multipart body is malformed: ") and message in only["message"]


def test_http_errors_answer_in_the_api_shape(server):
    r = httpx.get(server + "/v1/transpile")
    assert r.status_code == 405 and r.json()["diagnostics"][0]["message"] == "Method Not Allowed"
    assert r.headers["allow"] == "POST"
    r = httpx.get(server + "/v1/no-such-endpoint")
    assert r.status_code == 404 and set(r.json()) == {"openmp_source", "diagnostics", "explain"}


def test_include_loop_and_line_directive_end_with_located_errors(server, secret_file):
    r = post(server, "/v1/transpile", '#include "loop.cu"\n__global__ void k() {}\n', "loop.cu")
    assert r.status_code == 422
    assert r.json()["diagnostics"][0] == {"severity": "error", "file": "loop.cu", "line": 1, "column": 10,
                                          "message": "#include nested too deeply"}
    # #line cannot make the service read (and quote) another file.
    r = post(server, "/v1/transpile", f'#line 1 "{secret_file}"\n__global__ void k() {{ int x = ; }}\n', "line.cu")
    assert r.status_code == 422
    assert r.json()["diagnostics"][0]["file"] == "line.cu"
    assert SECRET not in r.text and str(secret_file.parent) not in r.text


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


def test_memory_limit_ends_with_clear_error():
    proc, url, log = _start("--memory-mb", "40")
    try:
        r = post(url, "/v1/transpile", VECADD, "vecadd.cu")
        assert r.status_code == 422, r.text
        message = r.json()["diagnostics"][0]["message"]
        assert "memory" in message and "40 MiB" in message, message
        assert httpx.get(url + "/healthz").status_code == 200
    finally:
        _stop(proc, log)


def test_version_and_openapi(server):
    assert httpx.get(server + "/version").json()["api"] == "v1"
    schema = httpx.get(server + "/openapi.json").json()
    assert {"/v1/transpile", "/v1/check", "/healthz", "/version"} <= set(schema["paths"])


def test_twenty_concurrent_uploads(running):
    server, _, tmpdir = running
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
    assert [p for p in os.listdir(tmpdir) if p.startswith("cuda2cpu-req-")] == []  # all removed


def test_access_log_is_one_json_line_per_request(running):
    url, log, _ = running
    r = httpx.get(url + "/version", headers={"X-Request-ID": "trace-me-42"})
    assert r.headers["x-request-id"] == "trace-me-42"
    r = post(url, "/v1/transpile", BROKEN, "broken.cu")
    generated = r.headers["x-request-id"]
    deadline = time.monotonic() + 10
    entries = []
    while time.monotonic() < deadline:
        log.seek(0)
        entries = [json.loads(line) for line in log.read().decode().splitlines() if line.startswith("{")]
        if any(e["request_id"] == generated for e in entries):
            break
        time.sleep(0.1)
    by_id = {e["request_id"]: e for e in entries}
    assert by_id["trace-me-42"]["path"] == "/version" and by_id["trace-me-42"]["status"] == 200
    assert by_id[generated]["status"] == 422 and by_id[generated]["method"] == "POST"
    assert by_id[generated]["duration_ms"] >= 0


def test_page_is_served(server):
    r = httpx.get(server + "/")
    assert r.status_code == 200 and "source-pane" in r.text
    assert "http://" not in r.text and "https://" not in r.text  # nothing from the network


class _Chromium:
    """Headless Chromium driven over the DevTools protocol on a pipe (fds 3 and 4), stdlib only."""

    def __init__(self, exe: str) -> None:
        self.profile = tempfile.mkdtemp(prefix="cuda2cpu-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def fds() -> None:  # chromium reads commands on fd 3 and answers on fd 4
            commands, answers = os.dup(to_browser_r), os.dup(from_browser_w)
            os.dup2(commands, 3)
            os.dup2(answers, 4)

        flags = ["--headless", "--remote-debugging-pipe", "--no-first-run", "--disable-gpu",
                 "--disable-dev-shm-usage", f"--user-data-dir={self.profile}", "about:blank"]
        if os.geteuid() == 0:
            flags.insert(0, "--no-sandbox")
        self.proc = subprocess.Popen([exe, *flags], preexec_fn=fds, pass_fds=(3, 4),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self.session = None

    def call(self, method: str, **params):
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if self.session:
            message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self._buffer:
                chunk = os.read(self._from_browser, 1 << 16)
                if not chunk:
                    raise RuntimeError("chromium closed the DevTools pipe")
                self._buffer += chunk
            raw, self._buffer = self._buffer.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]

    def open(self, url: str) -> None:
        target = self.call("Target.createTarget", url=url)["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]

    def eval(self, expression: str):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        return result["result"].get("value")

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)
        shutil.rmtree(self.profile, ignore_errors=True)


def _wait_for(browser: _Chromium, expression: str, limit_s: float = 60):
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        value = browser.eval(expression)
        if value:
            return value
        time.sleep(0.2)
    return browser.eval(expression)


def _chromium_or_skip() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        pytest.skip("chromium is not installed (.ci/run installs Debian's 'chromium' when it runs as root)")
    return exe


def _screenshot(browser: _Chromium, path: Path) -> None:
    import base64
    path.write_bytes(base64.b64decode(browser.call("Page.captureScreenshot", format="png")["data"]))


def _hover(browser: _Chromium, pane: str, text: str) -> None:
    """Move the mouse (a real input event) over the first line of ``pane`` holding ``text``."""
    box = browser.eval(f"""(() => {{
        const line = [...document.querySelectorAll('#{pane} .cm-line')].find((e) => e.textContent.includes({json.dumps(text)}));
        line.scrollIntoView({{block: 'center'}});
        const r = line.getBoundingClientRect();
        return {{x: r.left + 20, y: r.top + r.height / 2}};
    }})()""")
    browser.call("Input.dispatchMouseEvent", type="mouseMoved", x=box["x"], y=box["y"])


ARTIFACTS = Path(os.environ.get("CUDA2CPU_TEST_ARTIFACTS", tempfile.gettempdir())) / "cuda2cpu-page-screenshots"


def test_page_with_the_editor_in_headless_chromium(server):
    """Pick an example, translate it, hover a CUDA line and see the OpenMP lines it became, see an
    error marker in the source and the per-kernel explain view; screenshots go to ARTIFACTS."""
    if not (ROOT / "server" / "static" / "editor.bundle.js").is_file():
        pytest.skip("the editor bundle is not built (python -m server.build_editor; .ci/run builds it)")
    browser = _Chromium(_chromium_or_skip())
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    try:
        browser.open(server + "/")
        browser.call("Emulation.setDeviceMetricsOverride", width=1400, height=1000, deviceScaleFactor=1, mobile=False)
        assert _wait_for(browser, "!!window.cuda2cpuPage && !document.getElementById('examples-box').hidden")
        assert browser.eval("document.body.classList.contains('with-editor')") is True
        browser.eval("""(() => { const s = document.getElementById('examples'); s.value = 'vecadd.cu';
                                 s.dispatchEvent(new Event('change')); })()""")
        assert _wait_for(browser, "window.cuda2cpuPage.source.getText().includes('__global__')")
        assert browser.eval("document.getElementById('filename').value") == "vecadd.cu"
        browser.eval("document.getElementById('translate').click()")
        assert _wait_for(browser, "window.cuda2cpuPage.output.getText().includes('omp parallel for')")
        output = browser.eval("window.cuda2cpuPage.output.getText()")
        assert "moccuda::LaunchConfig" in output and "#line" not in output  # directives read, not shown
        assert "not compiled" in browser.eval("document.getElementById('status').textContent")
        # Syntax highlighting: CodeMirror's C++ mode styles the keywords.
        assert browser.eval("document.querySelectorAll('#source-pane .cm-line span[class]').length") > 10
        # Hover the kernel's statement: the OpenMP lines made from it light up, and only those.
        _hover(browser, "source-pane", "c[i] = a[i] + b[i];")
        mapped = _wait_for(browser, "[...document.querySelectorAll('#output-pane .cm-mapped')].map((e) => e.textContent)")
        assert mapped and any("c[i] = a[i] + b[i];" in line for line in mapped), mapped
        assert not any("int main" in line for line in mapped)
        _hover(browser, "source-pane", "int main()")
        mapped = _wait_for(browser, "[...document.querySelectorAll('#output-pane .cm-mapped')].map((e) => e.textContent)"
                                    ".filter((t) => t.includes('int main')).length")
        assert mapped == 1
        _screenshot(browser, ARTIFACTS / "translated.png")
        # Translated and checked: g++ accepted it, and the page says so.
        browser.eval("document.getElementById('check').click()")
        assert _wait_for(browser, "document.getElementById('status').textContent.includes('g++ accepted')")
        # The explain view: one card per kernel, each barrier with its decision and a line link.
        browser.eval("""(() => { const s = document.getElementById('examples'); s.value = 'reduction.cu';
                                 s.dispatchEvent(new Event('change')); })()""")
        assert _wait_for(browser, "window.cuda2cpuPage.source.getText().includes('__syncthreads')")
        browser.eval("document.getElementById('translate').click()")
        assert _wait_for(browser, "document.querySelectorAll('#explain-out .kernel .badge.kept').length > 0")
        assert "threads conflict" in browser.eval("document.getElementById('explain-out').textContent")
        browser.eval("document.querySelector('#explain-out .barrier .line-link').click()")
        assert "__syncthreads" in browser.eval("""(() => { const v = window.cuda2cpuPage.source.view;
            return v.state.doc.lineAt(v.state.selection.main.head).text; })()""")
        _screenshot(browser, ARTIFACTS / "explain.png")
        # A broken kernel: an error marker in the source pane at its line, and the list entry.
        browser.eval(f"""(() => {{
            window.cuda2cpuPage.source.setText({json.dumps(BROKEN)});
            document.getElementById("filename").value = "broken.cu";
            document.getElementById("translate").click();
        }})()""")
        assert _wait_for(browser, "document.querySelectorAll('#source-pane .cm-lintRange-error').length > 0")
        assert _wait_for(browser, "document.querySelectorAll('#source-pane .cm-lint-marker-error').length > 0")
        assert browser.eval("(document.querySelector('#diagnostics li.error a') || {}).textContent") == "broken.cu:2:12"
        assert "Translation failed" in browser.eval("document.getElementById('status').textContent")
        _screenshot(browser, ARTIFACTS / "error.png")
    finally:
        browser.close()


def test_page_without_the_editor_in_headless_chromium(server):
    """Without the editor bundle (blocked here) the page works with plain text areas."""
    browser = _Chromium(_chromium_or_skip())
    try:
        browser.call("Target.setDiscoverTargets", discover=False)
        browser.open("about:blank")
        browser.call("Network.enable")
        browser.call("Network.setBlockedURLs", urls=["*editor.bundle.js"])
        browser.call("Page.navigate", url=server + "/")
        assert _wait_for(browser, "document.readyState === 'complete' && !!window.cuda2cpuPage")
        assert browser.eval("document.body.classList.contains('without-editor')") is True
        assert browser.eval("document.getElementById('editor-note').hidden") is False
        # Upload the example the way a user drops a file: a File on the file input, then Translate.
        browser.eval(f"""(async () => {{
            const dt = new DataTransfer();
            dt.items.add(new File([{json.dumps(VECADD)}], "vecadd.cu"));
            const input = document.getElementById("files");
            input.files = dt.files;
            input.dispatchEvent(new Event("change"));
            await new Promise((r) => setTimeout(r, 100));
            document.getElementById("translate").click();
        }})()""")
        output = _wait_for(browser, "window.cuda2cpuPage.output.getText().includes('omp parallel for') "
                                    "&& window.cuda2cpuPage.output.getText()")
        assert output and "moccuda::LaunchConfig" in output
        assert browser.eval("document.getElementById('filename').value") == "vecadd.cu"
        assert browser.eval("document.getElementById('download').disabled") is False
        # A broken kernel: the diagnostic is listed, marked in the gutter, and links to its line.
        browser.eval(f"""(() => {{
            window.cuda2cpuPage.source.setText({json.dumps(BROKEN)});
            document.getElementById("filename").value = "broken.cu";
            document.getElementById("translate").click();
        }})()""")
        link = _wait_for(browser, "(document.querySelector('#diagnostics li.error a') || {}).textContent")
        assert link == "broken.cu:2:12"
        assert browser.eval("document.querySelector('#source-pane .gutter .marked').dataset.line") == "2"
    finally:
        browser.close()
