"""The service under load: slow requests cannot hold up quick ones, idle sockets are closed, and
nothing is left behind in the temporary directory."""

from __future__ import annotations

import concurrent.futures
import os
import shutil
import socket
import time

import httpx

from test_server import VECADD, _start, _stop, post


def macro_bomb(levels: int = 23) -> str:
    """A macro that expands to 2**levels tokens: seconds of preprocessing for libclang."""
    lines = ["#define A0 1 +"] + [f"#define A{i} A{i - 1} A{i - 1}" for i in range(1, levels + 1)]
    return "\n".join(lines) + f"\nint x = A{levels} 1;\n__global__ void k(int *a) {{ a[0] = 1; }}\n"


def test_quick_request_is_answered_while_bombs_hold_the_slots():
    proc, url, log = _start("--timeout-s", "20", "--quick-s", "2", "--long-jobs", "1")
    try:
        finished = {}
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            def send(name: str, source: str):
                r = post(url, "/v1/transpile", source, f"{name}.cu")
                finished[name] = time.monotonic()
                return r

            bombs = [pool.submit(send, f"bomb{i}", macro_bomb()) for i in range(4)]
            time.sleep(3)  # the bombs have left the quick lane by now
            start = time.monotonic()
            normal = send("normal", VECADD)
            latency = time.monotonic() - start
            assert normal.status_code == 200, normal.text
            still_running = [b for b in bombs if not b.done()]
            results = [b.result() for b in bombs]
        # Bombs run one at a time in the long lane, so at least three were still queued or running
        # when the normal request was answered: it did not wait for them.
        assert len(still_running) >= 3, (latency, finished)
        assert all(r.status_code in (200, 422) for r in results)
        print(f"normal request answered in {latency:.2f} s while 4 macro bombs ran")
    finally:
        _stop(proc, log)


def test_idle_and_slow_header_connections_are_closed():
    proc, url, log = _start("--header-timeout-s", "1")
    port = int(url.rsplit(":", 1)[1])
    sockets = []
    try:
        for i in range(30):
            s = socket.create_connection(("127.0.0.1", port))
            if i % 2:
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # headers never finished
            sockets.append(s)
        deadline = time.monotonic() + 30
        closed = 0
        for s in sockets:
            s.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                if s.recv(1024) == b"":
                    closed += 1
            except (socket.timeout, ConnectionResetError):
                pass
        assert closed == len(sockets)
        # A normal client is still served, on a kept-alive connection too.
        with httpx.Client(base_url=url) as client:
            assert client.get("/healthz").status_code == 200
            assert client.get("/healthz").status_code == 200
    finally:
        for s in sockets:
            s.close()
        _stop(proc, log)


def test_nothing_is_left_in_the_temporary_directory():
    proc, url, log = _start()
    try:
        assert post(url, "/v1/transpile", VECADD, "vecadd.cu").status_code == 200
    finally:
        _stop(proc, log, keep_tmpdir=True)  # kept for the look below
    try:
        assert os.listdir(proc.tmpdir) == []
    finally:
        shutil.rmtree(proc.tmpdir, ignore_errors=True)
