"""Pass texture-span: a thread loop's fetches at first + threadIdx.x read the texels as one array
when all are in range (tested once per loop), and fetch as before otherwise; same results."""

from __future__ import annotations

import re

import pytest

from coverage_table import covers
from support import MANY_THREADS, PROGRAMS, run_built, translate_build_run
from foundation.options import TranslateOptions
from transpiler.translate import translate_file

TEXTURE_SPAN = PROGRAMS / "openmp" / "texture_span.cu"


def _spans(options: TranslateOptions | None = None) -> dict[str, int]:
    """Kernel name -> how many fetches of it read through a span."""
    source = translate_file(TEXTURE_SPAN, options).source
    found: dict[str, int] = {}
    kernel = ""
    for line in source.splitlines():
        defined = re.match(r"void (\w+)\(moccuda::LaunchConfig", line)
        if defined:
            kernel = defined.group(1)
            found[kernel] = 0
        if "moccuda::texture::linear_span(" in line:
            found[kernel] += 1
    return found


def test_fetches_at_first_plus_thread_index_read_a_span():
    assert _spans() == {"column_sums": 1, "shifted": 1, "wrapped": 1, "not_spans": 0}


@covers("Textures and surfaces", "tex1Dfetch at first + threadIdx.x in a thread loop: one range test per loop, then vector loads (texture-span)")
@pytest.mark.parametrize("schedule", ["auto", "blocks", "nested"])
def test_spans_give_the_host_results(schedule, tmp_path):
    """In range, past either end (zero), a partial last block, an unsigned index that wraps."""
    _, run, _ = translate_build_run(TEXTURE_SPAN, tmp_path, TranslateOptions(schedule=schedule))
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr
    again = run_built(TEXTURE_SPAN, tmp_path, MANY_THREADS)
    assert again.returncode == 0 and again.stdout.strip().endswith("PASS"), again.stdout + again.stderr


def test_without_the_pass_no_span_and_the_same_results(tmp_path):
    options = TranslateOptions(disabled_passes=("texture-span",))
    assert not any(_spans(options).values())
    _, run, _ = translate_build_run(TEXTURE_SPAN, tmp_path, options)
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr
