"""The pieces of PyTorch-extension support that need no PyTorch: the host device-check rewrite
(``transpiler.torch_host``) and template kernels whose operators and members libclang leaves
unresolved.  Each program is translated, built with g++ and MocCUDA, run, and prints PASS."""

from __future__ import annotations

from pathlib import Path

import os
import subprocess

from support import PROGRAMS, compile_cpp, translate_build_run
from foundation.options import TranslateOptions
from transpiler.translate import translate_file

TORCH_PROGRAMS = PROGRAMS / "torch"
#: Where the stand-in for PyTorch's headers is: a system directory, as PyTorch's are in real builds.
STANDIN = (str(TORCH_PROGRAMS / "standin"),)


def _translate_build_run_standin(cu: Path, workdir: Path, torch_host: bool):
    """Translate with the stand-in headers as system headers, build, run."""
    result = translate_file(cu, TranslateOptions(torch_host=torch_host, system_include_dirs=STANDIN))
    cpp = workdir / (cu.stem + ".cpp")
    cpp.write_text(result.source)
    built = compile_cpp(cpp, workdir / cu.stem, [f"-I{STANDIN[0]}", *[f"-I{d}" for d in result.include_dirs]])
    assert built.returncode == 0, built.stderr[-4000:]
    run = subprocess.run([str(workdir / cu.stem)], capture_output=True, text=True, timeout=60,
                         env=dict(os.environ, OMP_NUM_THREADS="2"))
    return result, run


def _lines(path: Path, needle: str) -> list[int]:
    return [i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line]


def test_device_checks_accept_cpu_tensors_and_are_reported(tmp_path):
    cu = TORCH_PROGRAMS / "host_checks.cu"
    result, run = _translate_build_run_standin(cu, tmp_path, torch_host=True)
    assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout + run.stderr
    reported = {(r["line"], r["from"], r["to"]) for r in result.explain["host_rewrites"]}
    macro_line = _lines(cu, "#define CHECK_CUDA")[0]
    check_line = _lines(cu, "if (!p->is_cuda()")[0]
    # The macro is rewritten where it is written (once), not at each use.
    assert reported == {(macro_line, "is_cuda", "is_cpu"), (check_line, "is_cuda", "is_cpu"),
                        (check_line, "kCUDA", "kCPU"), (check_line, "CUDA", "CPU")}
    # The stand-in "PyTorch" headers are system headers: never rewritten.
    assert all(r["file"].endswith("host_checks.cu") for r in result.explain["host_rewrites"])


def test_without_the_option_the_checks_are_kept(tmp_path):
    cu = TORCH_PROGRAMS / "host_checks.cu"
    result, run = _translate_build_run_standin(cu, tmp_path, torch_host=False)
    assert "host_rewrites" not in result.explain
    assert run.returncode == 1 and "must be a CUDA tensor" in run.stdout


def test_dependent_operators_and_members_in_template_kernels(tmp_path):
    result, run, _ = translate_build_run(TORCH_PROGRAMS / "dependent_operators.cu", tmp_path)
    assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout + run.stderr
    assert "in.size(0)" in result.source and "T b = a++;" in result.source and "T c = ++a;" in result.source


def test_member_template_called_on_a_dependent_object_keeps_the_template_keyword(tmp_path):
    # `a.template size<3>()` in a kernel template: printed without `template`, g++ rejected it.
    _, run, _ = translate_build_run(PROGRAMS / "others_code" / "dependent_member_template_call.cu", tmp_path)
    assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout + run.stderr


def test_torch_missing_is_an_actionable_error():
    """Without PyTorch (hidden from the import system here), importing moccuda.torch says what to
    install instead of failing deep inside a build."""
    import sys

    hide = "import sys; sys.modules['torch'] = None\n"  # what Python records for a failed import
    done = subprocess.run([sys.executable, "-c", hide + "import moccuda.torch"], capture_output=True, text=True,
                          cwd=PROGRAMS.parent.parent)
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()
    assert any("TorchMissingError: PyTorch is not installed" in line for line in last), done.stderr
    assert "pip install torch --index-url https://download.pytorch.org/whl/cpu" in done.stderr


def test_cli_flag_rewrites_and_explains(tmp_path):
    """cuda2cpu --torch-host-checks: the same rewrite from the command line, listed by --explain."""
    import json

    from support import run_cli

    cu = TORCH_PROGRAMS / "host_checks.cu"
    exe = tmp_path / "host_checks"
    built = run_cli("--torch-host-checks", "--explain=json", "-I", STANDIN[0], cu, "-o", exe)
    assert built.returncode == 0, built.stderr
    rewrites = json.loads(built.stdout)["host_rewrites"]
    check_line = _lines(cu, "if (!p->is_cuda()")[0]
    assert {(r["line"], r["to"]) for r in rewrites if r["file"].endswith("host_checks.cu")} >= {
        (check_line, "is_cpu"), (check_line, "kCPU"), (check_line, "CPU")}
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, env=dict(os.environ, OMP_NUM_THREADS="2"))
    assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout + run.stderr
