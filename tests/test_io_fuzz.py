"""Short fuzz run over the parsers (hostile input, docs/reliability.md): mutated real files give a Collection or an
InputError - nothing else - within a time and memory bound. The long run is
benchmarks/fuzz_io.py (cases and results in docs/reliability.md)."""
from __future__ import annotations

import pytest
from fuzz_io_cases import MUTATIONS, Case, cases, check
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

MiB = 1 << 20
_FAST = {"deadline": None, "derandomize": True,
         "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large]}


@settings(max_examples=25, **_FAST)
@given(cases())
def test_mutated_real_files_give_a_collection_or_an_input_error(case: Case):
    check(case, max_seconds=20, max_peak=256 * MiB + 4 * case.size())


@pytest.mark.parametrize("kind", sorted(MUTATIONS))
@settings(max_examples=1, **_FAST)
@given(data=st.data())
def test_every_mutation_class(kind, data):
    """Every class at least once in the suite, whatever hypothesis picks above."""
    case = data.draw(cases(only=kind))
    check(case, max_seconds=20, max_peak=256 * MiB + 4 * case.size())
