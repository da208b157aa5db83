"""Golden tests: each tests/golden/NAME.cu translates to exactly NAME.expected.cpp.

Regenerate with ``pytest tests/test_golden.py --update-golden`` and review the diff like code.
The goldens pin readability (layout, names, what is kept verbatim); the run-and-check tests pin
behaviour, including that each golden's translation compiles and runs.
"""

from pathlib import Path

import pytest

from support import compile_cpp
from foundation.options import TranslateOptions
from transpiler.translate import translate_file

GOLDEN = Path(__file__).resolve().parent / "golden"
CASES = sorted(GOLDEN.glob("*.cu"))


def _translate(cu: Path, monkeypatch, options: TranslateOptions | None = None) -> str:
    """The translation of ``cu`` named as a user names it, from its own directory: its #line
    directives then say "NAME.cu", wherever the checkout is."""
    monkeypatch.chdir(cu.parent)
    return translate_file(Path(cu.name), options).source


@pytest.mark.parametrize("cu", CASES, ids=[c.stem for c in CASES])
def test_golden(cu: Path, request, tmp_path, monkeypatch):
    expected_path = cu.with_suffix(".expected.cpp")
    actual = _translate(cu, monkeypatch)
    if request.config.getoption("--update-golden"):
        expected_path.write_text(actual)
    assert expected_path.exists(), f"no golden for {cu.name}: run with --update-golden"
    assert actual == expected_path.read_text(), f"{cu.name} translates differently from its golden"


#: Cases translated under a non-default schedule too (golden NAME.SCHEDULE.expected.cpp): the
#: blocks form of a kernel auto makes flat, and the nested form with its fused inner region.
SCHEDULE_CASES = [("vecadd", "blocks"), ("vecadd", "nested"), ("reverse_shared", "nested"),
                  ("dynamic_shared_2d", "nested"), ("launch_regions", "blocks")]


@pytest.mark.parametrize("name, schedule", SCHEDULE_CASES, ids=[f"{n}-{s}" for n, s in SCHEDULE_CASES])
def test_golden_schedule(name: str, schedule: str, request, tmp_path, monkeypatch):
    cu = GOLDEN / f"{name}.cu"
    expected_path = GOLDEN / f"{name}.{schedule}.expected.cpp"
    actual = _translate(cu, monkeypatch, TranslateOptions(schedule=schedule))
    if request.config.getoption("--update-golden"):
        expected_path.write_text(actual)
    assert expected_path.exists(), f"no golden for {cu.name} under {schedule}: run with --update-golden"
    assert actual == expected_path.read_text(), f"{cu.name} translates differently from its golden"
    cpp = tmp_path / f"{name}.cpp"
    cpp.write_text(actual)
    built = compile_cpp(cpp, tmp_path / name, ["-Werror"])
    assert built.returncode == 0, built.stderr


@pytest.mark.parametrize("cu", CASES, ids=[c.stem for c in CASES])
def test_golden_compiles_without_warnings(cu: Path, tmp_path, monkeypatch):
    cpp = tmp_path / (cu.stem + ".cpp")
    cpp.write_text(_translate(cu, monkeypatch))
    built = compile_cpp(cpp, tmp_path / cu.stem, ["-Werror"])
    assert built.returncode == 0, built.stderr
