"""``cuda2cpu serve``: run the HTTP service under uvicorn."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys

from server.app import Settings
from server.protocol import HeaderDeadlineProtocol


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="cuda2cpu serve",
                                description="Serve CUDA-to-OpenMP translation over HTTP (API under /v1, page at /).")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: loopback only)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--workers", type=int, default=1, help="uvicorn worker processes (default 1)")
    p.add_argument("--max-upload-kb", type=int, default=Settings.max_upload_kb, help="request body limit in KiB")
    p.add_argument("--max-files", type=int, default=Settings.max_files, help="files per upload")
    p.add_argument("--timeout-s", type=float, default=Settings.timeout_s, help="time limit per translation")
    p.add_argument("--memory-mb", type=int, default=Settings.memory_mb, help="memory limit per translation")
    p.add_argument("--quick-s", type=float, default=Settings.quick_s,
                   help="a translation that has used this many seconds of CPU moves to the long lane, where "
                        "--long-jobs run at once and the rest wait (so slow requests cannot block quick ones)")
    p.add_argument("--long-jobs", type=int, default=Settings.long_jobs, help="long translations run at once")
    p.add_argument("--header-timeout-s", type=float, default=10.0,
                   help="close a connection that has not sent a request's headers within this time")
    p.add_argument("--token", default=os.environ.get("CUDA2CPU_TOKEN"),
                   help="require 'Authorization: Bearer TOKEN' on /v1 (default: $CUDA2CPU_TOKEN)")
    args = p.parse_args(argv)
    for name in ("port", "workers", "max_upload_kb", "max_files", "timeout_s", "memory_mb", "quick_s", "long_jobs",
                 "header_timeout_s"):
        if getattr(args, name) <= 0:
            p.error(f"--{name.replace('_', '-')} must be positive")
    return args


def main(argv: list[str] | None = None) -> int:
    import uvicorn

    args = parse_args(sys.argv[1:] if argv is None else argv)
    from server.sandbox import probe

    problem = probe()
    if problem:  # never translate unconfined: the include scanner alone can be bypassed
        print(f"cuda2cpu serve: error: translations cannot be sandboxed on this machine ({problem}); "
              "the service needs mount namespaces (run as root, or allow unprivileged user namespaces: "
              "sysctl kernel.unprivileged_userns_clone=1)", file=sys.stderr)
        return 1
    settings = {"max_upload_kb": args.max_upload_kb, "max_files": args.max_files, "timeout_s": args.timeout_s,
                "memory_mb": args.memory_mb, "token": args.token or None, "quick_s": args.quick_s,
                "long_jobs": args.long_jobs}
    os.environ["CUDA2CPU_SERVER_SETTINGS"] = json.dumps(settings)  # read by every uvicorn worker
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    os.environ["CUDA2CPU_HEADER_TIMEOUT_S"] = str(args.header_timeout_s)  # read by HeaderDeadlineProtocol
    uvicorn.run("server.app:app_from_env", factory=True, http=HeaderDeadlineProtocol, host=args.host,
                port=args.port, workers=args.workers, access_log=False,
                timeout_graceful_shutdown=args.timeout_s + 5, log_level="info")
    return 0


if __name__ == "__main__":
    sys.exit(main())
