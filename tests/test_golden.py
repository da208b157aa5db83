"""Golden tests: each tests/golden/NAME.cu translates to exactly NAME.expected.cpp.

Regenerate with ``pytest tests/test_golden.py --update-golden`` and review the diff like code.
The goldens pin readability (layout, names, what is kept verbatim); the run-and-check tests pin
behaviour, including that each golden's translation compiles and runs.
"""

from pathlib import Path

import pytest

from support import compile_cpp
from transpiler.translate import translate_file

GOLDEN = Path(__file__).resolve().parent / "golden"
CASES = sorted(GOLDEN.glob("*.cu"))


@pytest.mark.parametrize("cu", CASES, ids=[c.stem for c in CASES])
def test_golden(cu: Path, request, tmp_path):
    expected_path = cu.with_suffix(".expected.cpp")
    actual = translate_file(cu).source
    if request.config.getoption("--update-golden"):
        expected_path.write_text(actual)
    assert expected_path.exists(), f"no golden for {cu.name}: run with --update-golden"
    assert actual == expected_path.read_text(), f"{cu.name} translates differently from its golden"


@pytest.mark.parametrize("cu", CASES, ids=[c.stem for c in CASES])
def test_golden_compiles_without_warnings(cu: Path, tmp_path):
    cpp = tmp_path / (cu.stem + ".cpp")
    cpp.write_text(translate_file(cu).source)
    built = compile_cpp(cpp, tmp_path / cu.stem, ["-Werror"])
    assert built.returncode == 0, built.stderr
