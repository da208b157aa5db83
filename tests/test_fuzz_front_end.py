"""A bounded run of the front-end fuzzer (``tests/fuzz_front_end.py``) in CI: a few dozen mutants
of the corpus programs, each translated in a child process.  Each must translate to code g++
accepts, or fail with a located error and exit 1: never a signal, a traceback, an internal error
or a translation g++ rejects.  The long run is ``python -m tests.fuzz_front_end --minutes 60``."""

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzz_front_end import CORPUS, FINDINGS, MUTATIONS, check, mutate


@settings(max_examples=20, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(origin=st.sampled_from(CORPUS), mutation=st.sampled_from(sorted(MUTATIONS)), seed=st.integers(0, 2**32 - 1))
def test_a_mutant_translates_or_is_a_located_error(tmp_path, origin, mutation, seed):
    rng = random.Random(seed)
    mutant = MUTATIONS[mutation](origin.read_text(errors="surrogateescape"), rng)
    if rng.random() < 0.3:
        mutant, _ = mutate(mutant, rng)
    outcome = check(mutant, origin, tmp_path)
    assert outcome.kind not in FINDINGS, f"{origin.name} after {mutation} (seed {seed}): {outcome.kind}\n{outcome.detail}"
