"""workloads/bernoulli.py against the numpy form it replaces: the same creations, in the same
order, and the generator left in the same state (the next draws agree, float32 and integer)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from netsim_fast.workloads import bernoulli
from netsim_fast.workloads.bernoulli import threshold


def _numpy_form(rng, cycles, senders, prob):
    made = rng.random((cycles, senders.size), dtype=np.float32) < np.float32(prob)
    return np.nonzero(made & senders[None, :])


def _same(n, cycles, prob, seed, before, every):
    """``before`` float32 draws first (an odd count leaves a half in the generator's buffer)."""
    senders = np.arange(n) % every != 0 if every > 1 else np.ones(n, bool)
    a, b = (np.random.default_rng(np.random.SeedSequence([seed, 1])) for _ in range(2))
    a.random(before, dtype=np.float32)
    b.random(before, dtype=np.float32)
    want, got = _numpy_form(a, cycles, senders, prob), bernoulli.created(b, cycles, senders, prob)
    for w, g in zip(want, got):
        np.testing.assert_array_equal(g, w)
    assert b.random(3, dtype=np.float32).tolist() == a.random(3, dtype=np.float32).tolist()
    np.testing.assert_array_equal(b.integers(0, 1000, 7), a.integers(0, 1000, 7))
    assert b.bit_generator.state == a.bit_generator.state
    return want[0].size


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 40), cycles=st.integers(0, 30), prob=st.floats(0.0, 1.0), seed=st.integers(0, 2**32),
       before=st.integers(0, 3), every=st.integers(1, 4))
def test_same_creations_and_state_as_numpy(n, cycles, prob, seed, before, every):
    _same(n, cycles, prob, seed, before, every)


@pytest.mark.parametrize("n, cycles, prob", [(256, 1024, 0.15 / 8), (4096, 64, 0.003 * 8 / 64 / 8), (64, 1024, 1.0),
                                             (33, 1024, 0.5)])
def test_chunk_sized_draws(n, cycles, prob):
    assert _same(n, cycles, prob, 5, 0, 1) > 0


def test_threshold_is_exact_at_the_boundary():
    # p * 2**24 an integer: x >> 8 equal to it is not below p
    assert threshold(0.25) == 1 << 22
    assert threshold(np.float32(0.1)) == int(np.ceil(float(np.float32(0.1)) * 2**24))
    assert threshold(0.0) == 0 and threshold(1.0) == 1 << 24


def test_more_creations_than_room_are_drawn_again(monkeypatch):
    monkeypatch.setattr(bernoulli, "initial_room", lambda draws, prob: 1)
    assert _same(1000, 2, 0.5, 9, 1, 1) > 500
