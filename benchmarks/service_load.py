"""Latency of the HTTP service under load: ``python benchmarks/service_load.py``.

Starts ``cuda2cpu serve`` on a loopback port, sends ``--requests`` translations of an example at
each ``--concurrency`` (a bounded client: threads over httpx, each request waits for its answer),
and prints p50/p99 latency, throughput, and the median of each stage the service reports in its
``Server-Timing`` header (queue: waiting for a worker slot; start: forking the worker; translate;
check: g++ -fsyntax-only).  A benchmark, not a test: record its output with the machine in
docs/PERFORMANCE.md.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def _stages(header: str) -> dict[str, float]:
    stages = {}
    for part in filter(None, (p.strip() for p in header.split(","))):
        name, _, dur = part.partition(";dur=")
        stages[name] = float(dur)
    return stages


def run(url: str, source: str, requests: int, concurrency: int, path: str) -> dict:
    latencies, stages = [], {}

    def one(_):
        start = time.perf_counter()
        r = httpx.post(url + path, json={"source": source, "filename": "app.cu"}, timeout=600)
        latencies.append(time.perf_counter() - start)
        if r.status_code != 200:
            raise RuntimeError(f"{r.status_code}: {r.text[:300]}")
        for name, ms in _stages(r.headers.get("server-timing", "")).items():
            stages.setdefault(name, []).append(ms)

    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(one, range(requests)))
    wall = time.perf_counter() - start
    return {"p50": _percentile(latencies, 0.5), "p99": _percentile(latencies, 0.99), "rps": requests / wall,
            "stages": {name: statistics.median(v) for name, v in stages.items()}}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--example", default=str(ROOT / "examples" / "vecadd.cu"))
    p.add_argument("--concurrency", default="1,10,50")
    p.add_argument("--requests", type=int, default=100, help="requests at each concurrency")
    p.add_argument("--check", action="store_true", help="use /v1/check (translate, then g++ -fsyntax-only)")
    args = p.parse_args()
    port = _port()
    tmp = tempfile.mkdtemp(prefix="cuda2cpu-load-")
    server = subprocess.Popen([sys.executable, "-m", "transpiler.cli", "serve", "--port", str(port),
                               "--timeout-s", "600"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env=dict(os.environ, TMPDIR=tmp, PYTHONPATH=str(ROOT)), start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        source = Path(args.example).read_text()
        path = "/v1/check" if args.check else "/v1/transpile"
        run(url, source, 2, 1, path)  # warm the fork server
        print(f"{path} of {Path(args.example).name}, {args.requests} requests each, {os.cpu_count()} cores")
        print("| concurrency | p50 (s) | p99 (s) | requests/s | stage medians (ms) |")
        print("| --- | --- | --- | --- | --- |")
        for c in (int(x) for x in args.concurrency.split(",")):
            r = run(url, source, args.requests, c, path)
            stages = ", ".join(f"{k} {v:.0f}" for k, v in r["stages"].items())
            print(f"| {c} | {r['p50']:.2f} | {r['p99']:.2f} | {r['rps']:.2f} | {stages} |", flush=True)
    finally:
        os.killpg(server.pid, signal.SIGINT)
        server.wait(timeout=60)
    return 0


if __name__ == "__main__":
    sys.exit(main())
