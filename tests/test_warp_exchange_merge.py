"""Pass warp-exchange-merge: warp collectives whose operands do not depend on each other's results
exchange at one warp sync point.  Precision and soundness of where it merges (the sync points
left in each kernel of tests/programs/warp/exchange_merge.cu), and the program's results, checked
by its host model, with the pass, without it and under the fiber fallback, at 1, 3 and 16 OpenMP
threads."""

from __future__ import annotations

import pytest

from coverage_table import covers
from support import PROGRAMS, build_run, run_built
from test_barrier_effects import analysis_ir
from foundation import ir
from foundation.options import TranslateOptions
from transpiler.translate import translate_file

PROGRAM = PROGRAMS / "warp" / "exchange_merge.cu"
LOWERED = "parallel-loops,inline-device,fiber-lowering,warp-collectives"

#: Sync points left in each kernel: (without the pass: one per collective, with it).
SYNC_POINTS = {
    "independent_pair": (2, 1),
    "dependent_pair": (2, 2),  # the second operand is the first result plus one
    "store_between": (2, 2),  # the neighbour lane's store is read after the second shuffle
    "read_between": (2, 2),  # the neighbour lane's slot is read before the second shuffle, stored after
    "four_keys": (4, 3),  # the second half's first shuffle is written at the first half's
    "three_in_one": (3, 1),
    "loop_pairs": (2, 1),
    "mask_from_ballot": (3, 2),  # the ballot reads the first result; the third shuffle's operand does not
    "through_pointer": (3, 3),  # the operand changes through a pointer before the second's sync point
    "operand_from_memory": (2, 2),
    "return_between": (2, 2),  # the lanes that return must not take part in the second shuffle
    "half_warp_masks": (2, 1),
}


def sync_points(pipeline: str, tmp_path) -> dict[str, int]:
    program, _ = analysis_ir(PROGRAM.read_text(), tmp_path, pipeline=pipeline)
    return {k.name: sum(isinstance(n, ir.WarpSync) for n in k.walk()) for k in program.kernels}


def test_collectives_exchange_together_where_their_operands_are_independent(tmp_path):
    assert sync_points(LOWERED, tmp_path) == {k: before for k, (before, _) in SYNC_POINTS.items()}
    assert sync_points(LOWERED + ",warp-exchange-merge", tmp_path) == {
        k: after for k, (_, after) in SYNC_POINTS.items()}


@covers("Warp shuffles", "independent shuffles exchanged at one warp sync point",
        note="a collective whose operand is pure arithmetic on the thread's own variables, unchanged since an "
        "earlier collective, is written at that one's sync point (warp-exchange-merge)")
@pytest.mark.parametrize("options", [TranslateOptions(), TranslateOptions(disabled_passes=("warp-exchange-merge",)),
                                     TranslateOptions(lowering="fallback")],
                         ids=["merged", "unmerged", "fallback"])
def test_results_match_the_host_model(options, tmp_path):
    _, run, _ = build_run(translate_file(PROGRAM, options), PROGRAM, tmp_path, threads=1)
    assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout[-3000:] + run.stderr[-2000:]
    for threads in (3, 16):
        again = run_built(PROGRAM, tmp_path, threads)
        assert again.returncode == 0 and again.stdout == run.stdout, f"{threads} threads:\n" + again.stdout[-3000:]
