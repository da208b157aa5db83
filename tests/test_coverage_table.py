"""docs/COVERAGE.md is the table tests/coverage_table.py generates from the tests' @covers
records: regenerate it with `python -m tests.coverage_table` when this fails."""

from coverage_table import CORPUS, TABLE, collect, render


def test_committed_coverage_table_is_current():
    expected = render(collect())
    assert TABLE.exists() and TABLE.read_text() == expected, \
        "docs/COVERAGE.md is out of date: run `python -m tests.coverage_table` and commit the result"


def test_every_record_names_a_test_and_a_known_status():
    entries = collect()
    assert entries
    for entry in entries:
        assert entry.test.startswith("test_") and "::test_" in entry.test, entry
        assert entry.status in ("supported", "partial", "not supported"), entry
        assert entry.status != "partial" or entry.note, f"a partial entry says what differs: {entry}"


def test_the_linked_corpus_results_exist():
    assert CORPUS.exists() and CORPUS.name in TABLE.read_text()
