"""The translation worker's kernel-enforced sandbox (``server.sandbox``).

Three ways were found to make libclang open server files past the include scanner: a macro-built
``__has_include`` operand, a ``GCC dependency`` pragma built with ``_Pragma``, and a raw-string
desync of the scanner.  These tests show that, whatever the scanner misses, (1) the answer for a
file that exists outside the upload is the same as for one that does not, and (2) under strace, the
worker opens nothing outside the trees it is given.  ``CUDA2CPU_INCLUDE_FUZZ=N`` sets how many hostile
include spellings the strace test tries (default 40; the recorded run used 1,000).
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from test_server import _start, _stop, post

ROOT = Path(__file__).resolve().parent.parent
KERNEL = "__global__ void k(int *a) { a[0] = 1; }\n"

BYPASSES = {
    "has_include_of_a_macro": '#define P "{path}"\n#if __has_include(P)\n#error is there\n#else\n'
                              '#error is not there\n#endif\n',
    "pragma_dependency_through__Pragma": '#define STR(x) #x\n#define DEP(f) _Pragma(STR(GCC dependency f))\n'
                                         'DEP("{path}")\n',
    "scanner_desync_by_raw_string_prefix": '#define FOOR\nconst char *s = FOOR"(";\n#include "{path}"\n',
}


@pytest.fixture(scope="module")
def service():
    proc, url, log = _start("--timeout-s", "60")
    yield url
    _stop(proc, log)


def _normal(answer: dict, *paths: str) -> str:
    text = json.dumps(answer, sort_keys=True)
    for p in paths:
        text = text.replace(p, "PATH").replace(os.path.basename(p), "NAME")
    return text


@pytest.mark.parametrize("bypass", sorted(BYPASSES))
def test_bypass_answers_the_same_for_a_file_that_exists_and_one_that_does_not(service, tmp_path, bypass):
    present = tmp_path / "present-secret.txt"
    present.write_text("root:x:0:0:cuda2cpu-test-secret\n")
    absent = tmp_path / "absent-secret.txt"
    answers = []
    for path in (present, absent):
        r = post(service, "/v1/transpile", BYPASSES[bypass].format(path=path) + KERNEL, "app.cu")
        assert "cuda2cpu-test-secret" not in r.text
        answers.append((r.status_code, _normal(r.json(), str(path))))
    assert answers[0] == answers[1]
    # The file the server can read is as good as missing to the translation.
    assert answers[0][0] in (200, 422)


# ------------------------------------------------------------------ strace: what the worker opens

_SPELLINGS = [
    '#include "{p}"', "#include <{p}>", '#define P "{p}"\n#include P', "#define Q(x) #x\n#include Q({p})",
    '#if __has_include("{p}")\n#error there\n#endif', "#if __has_include(<{p}>)\n#error there\n#endif",
    '#define P "{p}"\n#if __has_include(P)\n#error there\n#endif', '#pragma GCC dependency "{p}"',
    '_Pragma("GCC dependency \\"{p}\\"")', '#include_next "{p}"', '#import "{p}"',
    '#if __has_include_next("{p}")\n#error there\n#endif', '#define FOOR\nconst char *s = FOOR"(";\n#include "{p}"',
    '#inc\\\nlude "{p}"', '%:include "{p}"', '# /* c */ include "{p}"', '#line 1 "{p}"\n#include "{p}"',
    "#define H(x) __has_include(x)\n#if H(<{p}>)\n#error there\n#endif",
    'const char *r = R"x(\n#include "{p}"\n)x";', "#define E\n#include E\"{p}\"",
]
_TARGETS = ["/etc/passwd", "/etc/shadow", "/proc/self/environ", "/dev/zero", "//etc//passwd", "/etc/./passwd",
            "/proc/1/root/etc/passwd", "../../../../../../etc/passwd", "/root/.bashrc", "/etc/hostname",
            "{secret}", "{secret_dir}/../{secret_name}"]


def hostile_sources(count: int, secret: Path, seed: int = 17) -> list[str]:
    rng = random.Random(seed)
    sources = []
    for _ in range(count):
        target = rng.choice(_TARGETS).format(secret=secret, secret_dir=secret.parent, secret_name=secret.name)
        lines = [rng.choice(_SPELLINGS).format(p=target) for _ in range(rng.randint(1, 3))]
        sources.append("\n".join(lines) + "\n" + KERNEL)
    return sources


def _allowed(path: str, trees: list[str]) -> bool:
    # The sandbox shows every tree at its own path and recreates the links on the way, so a path
    # the worker opened resolves here, outside, to the file it got.
    path = os.path.realpath(path)
    for tree in trees:
        if path == tree or path.startswith(tree.rstrip("/") + "/") or tree.startswith(path.rstrip("/") + "/"):
            return True  # in a tree, or a directory on the way to one (an empty directory of the new root)
    return path == "/"


_CALL = re.compile(r'^\d+\s+(?P<call>\w+)\((?:AT_FDCWD, )?"(?P<path>[^"]*)".*\) = (?P<result>-?\d+)')


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed (.ci/run installs Debian's 'strace')")
def test_confined_worker_opens_nothing_outside_its_trees(tmp_path):
    from server import worker

    upload = tmp_path / "upload"
    upload.mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("cuda2cpu-test-secret\n")
    count = int(os.environ.get("CUDA2CPU_INCLUDE_FUZZ", "40"))
    sources = [body.format(path=secret) + KERNEL for body in BYPASSES.values()] + hostile_sources(count, secret)
    jobs = []
    for i, source in enumerate(sources):
        (upload / f"t{i}.cu").write_text(source)
        jobs.append(json.dumps({"main": f"t{i}.cu", "check": i % 10 == 0}))  # some run g++ -fsyntax-only too
    trace = tmp_path / "trace"
    proc = subprocess.run(["strace", "-f", "-qq", "-e", "trace=%file,pivot_root", "-o", str(trace),
                           sys.executable, "-m", "server.worker"], input="\n".join(jobs), capture_output=True,
                          text=True, cwd=upload, env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=3000)
    assert proc.returncode == 0, proc.stderr[-2000:]
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(answers) == len(jobs)
    assert all(a.get("failure") not in ("sandbox", "internal") for a in answers), answers
    assert "cuda2cpu-test-secret" not in proc.stdout

    lines = trace.read_text().splitlines()
    confined_at = next(i for i, line in enumerate(lines) if "pivot_root(" in line and line.endswith("= 0"))
    given = [t.path for t in worker.sandbox_trees(os.path.realpath(upload))]
    # The trees the worker was given, and the links recreated on the way to them (/lib64/ld.so is
    # a link in the directory /usr/lib64, whose other entries are not there).
    trees = [os.path.realpath(p) for p in given] + [
        os.path.join(os.path.realpath(os.path.dirname(p)), os.path.basename(p)) for p in given]
    outside = []
    for line in lines[confined_at + 1:]:
        m = _CALL.match(line)
        if not m or int(m["result"]) < 0 or m["call"] in ("umount2", "rmdir", "chdir"):
            continue
        path = m["path"]
        if not os.path.isabs(path):
            continue  # relative to the upload directory (the worker's working directory)
        if not _allowed(path, trees):
            outside.append(line)
    assert outside == [], "\n".join(outside[:20])
    # And the secret was asked for, and not found: the probe ran into the sandbox's wall.
    assert any(str(secret) in line and "ENOENT" in line for line in lines[confined_at:])


def test_confined_worker_translates_and_checks_a_launch(tmp_path):
    """Inside the sandbox no CUDA toolkit is visible, so clang takes the old launch API
    (cudaConfigureCall): the parse must work either way, and g++ must run confined."""
    shutil.copyfile(ROOT / "examples" / "vecadd.cu", tmp_path / "vecadd.cu")
    proc = subprocess.run([sys.executable, "-m", "server.worker"], input='{"main": "vecadd.cu", "check": true}',
                          capture_output=True, text=True, cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                          timeout=600)
    answer = json.loads(proc.stdout)
    assert answer["ok"] is True, answer
    assert "vecadd(moccuda::LaunchConfig(" in answer["openmp_source"] or "LaunchConfig" in answer["openmp_source"]
