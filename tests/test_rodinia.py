"""The Rodinia-style suite: each benchmark's translated CUDA agrees with its OpenMP version (on the
small ``test`` size), and the runner's table and JSON.  Timings are never asserted."""

import json

import pytest

from rodinia_suite.__main__ import main
from rodinia_suite.benchmarks import BENCHMARKS, BY_NAME
from rodinia_suite.runner import Benchmark, compare_outputs, run_benchmark, run_suite

#: Benchmarks whose CUDA version cuda2cpu does not build yet, with the first diagnostic.  Strict
#: xfails: when the translator learns the construct, the test fails until the entry is removed.
KNOWN_FAILURES: dict[str, str] = {
}


def _params():
    for b in BENCHMARKS:
        marks = [pytest.mark.xfail(reason=KNOWN_FAILURES[b.name], strict=True)] if b.name in KNOWN_FAILURES else []
        yield pytest.param(b, id=b.name, marks=marks)


@pytest.mark.parametrize("bench", _params())
def test_translated_equals_openmp(bench, tmp_path):
    (result,) = run_benchmark(bench, "test", [2], 1, tmp_path, [])
    assert result.verified, result.status


def test_compare_outputs_integers_exact_floats_within_tolerance(tmp_path):
    bench = Benchmark("x", {}, rtol=1e-3, atol=0.0)
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_text("1 2.0005\n")
    b.write_text("1 2.0\n")
    assert compare_outputs(bench, a, b) is None
    a.write_text("2 2.0\n")
    assert "value 0" in compare_outputs(bench, a, b)
    a.write_text("1 2.01\n")
    assert "value 1" in compare_outputs(bench, a, b)
    a.write_text("1\n")
    assert "lengths differ" in compare_outputs(bench, a, b)


def test_runner_table_and_json(tmp_path):
    lines = []
    out = tmp_path / "out.json"
    data = run_suite([BY_NAME["nn"], BY_NAME["bfs"]], "test", [1], 1, False, str(out), "test",
                     log=lambda *a, **k: lines.append(" ".join(map(str, a))))
    text = "\n".join(lines)
    assert "| benchmark | threads | verified | barriers |" in text
    assert "| nn | 1 | yes | 0 |" in text and "| bfs | 1 | yes | 0 |" in text
    assert "geomean speedup (translated over OpenMP), 1 thread(s), 2 verified benchmark(s)" in text
    written = json.loads(out.read_text())
    assert written == json.loads(json.dumps(data))
    assert [r["benchmark"] for r in written["results"]] == ["nn", "bfs"]
    assert all(r["verified"] and r["translated"]["median"] > 0 for r in written["results"])
    assert written["geomean"]["1"] > 0


def test_translation_failure_is_reported_not_raised(tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "bad.cu").write_text("__global__ void k() { undeclared_thing(); }\nint main() { return 0; }\n")
    (bad / "bad_omp.cpp").write_text("int main() { return 0; }\n")

    class Bad(Benchmark):
        @property
        def directory(self):
            return bad

    (result,) = run_benchmark(Bad("bad", {"test": ()}), "test", [1], 1, tmp_path, [])
    assert not result.verified
    assert result.status.startswith("translate failed: ") and "error" in result.status


def test_unknown_benchmark_is_an_error(capsys):
    assert main(["run", "--only", "nosuch"]) == 2
    assert "unknown benchmark 'nosuch'" in capsys.readouterr().err
