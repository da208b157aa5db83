"""A bounded schemathesis run against the service's OpenAPI schema, on a real uvicorn server.

Every generated request must be answered without a server error (no 5xx), and the server must
be alive afterwards.  Skipped, saying why, where schemathesis is not installed.
"""

from __future__ import annotations

import shutil
import subprocess

import httpx
import pytest
from test_server import _start, _stop


def test_schemathesis_finds_no_server_errors():
    pytest.importorskip("schemathesis", reason="schemathesis is not installed (it is in the 'test' extra)")
    exe = shutil.which("schemathesis") or shutil.which("st")
    if exe is None:
        pytest.skip("the schemathesis command is not on PATH")
    proc, url, log = _start("--timeout-s", "20", "--max-upload-kb", "64")
    try:
        run = subprocess.run([exe, "run", url + "/openapi.json", "--max-examples", "8", "--phases", "fuzzing",
                              "--checks", "not_a_server_error", "--workers", "2", "--no-color"],
                             capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
        assert httpx.get(url + "/healthz").json() == {"status": "ok"}
    finally:
        _stop(proc, log)
