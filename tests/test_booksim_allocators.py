"""Each allocator of the booksim router against its naive reference (tests/reference/
allocators_naive.py, written from docs/booksim-router.md section 7), over many random request
sets with the allocator state carried from one to the next as in a router."""

from __future__ import annotations

import numpy as np
import pytest

from tests.reference import allocators_naive as ref


class Scratch:
    """The fields of the booksim state the allocators use (BkState's allocation scratch)."""

    def __init__(self, n):
        i4, i8 = np.int32, np.int64
        self.in_req, self.in_pri, self.in_n = np.zeros((n, n), i4), np.zeros((n, n), i8), np.zeros(n, i4)
        self.out_req, self.out_pri, self.out_n = np.zeros((n, n), i4), np.zeros((n, n), i8), np.zeros(n, i4)
        self.dense, self.dpin, self.dpout = np.zeros((n, n), np.int8), np.zeros((n, n), i8), np.zeros((n, n), i8)
        self.pairs = np.zeros((n * n, 2), i8)
        self.fwd, self.fwd_pri, self.fwd_n = np.zeros((n, n), i4), np.zeros((n, n), i8), np.zeros(n, i4)
        self.choice, self.grant, self.xgrant, self.match = (np.zeros(n, i4) for _ in range(4))
        self.rng = np.array([7], np.uint64)


def _tuple(sc):
    from netsim_fast.flit.booksim.state import BkState

    return BkState(**{f: getattr(sc, f, np.zeros(1, np.int32)) for f in BkState._fields})


def fill(sc, req, rng=None):
    """The request lists of ``req``; returns the inputs and the outputs with requests (as the
    router lists them for the allocator), shuffled when given ``rng``: the order must not matter."""
    n_in, n_out = len(req), len(req[0])
    sc.in_n[:] = 0
    sc.out_n[:] = 0
    for i in range(n_in):
        for o in range(n_out):
            if req[i][o]:
                sc.in_req[i, sc.in_n[i]], sc.in_pri[i, sc.in_n[i]] = o, req[i][o][0]
                sc.in_n[i] += 1
    for o in range(n_out):
        for i in range(n_in):
            if req[i][o]:
                sc.out_req[o, sc.out_n[o]], sc.out_pri[o, sc.out_n[o]] = i, req[i][o][1]
                sc.out_n[o] += 1
    ins, outs = np.flatnonzero(sc.in_n).astype(np.int32), np.flatnonzero(sc.out_n).astype(np.int32)
    if rng is not None:
        rng.shuffle(ins)
        rng.shuffle(outs)
    sc.match[:] = -1  # only the requesting inputs' entries are written
    return ins, len(ins), outs, len(outs)


def random_requests(rng, n_in, n_out, density, priorities):
    return [[(int(rng.choice(priorities)), int(rng.choice(priorities))) if rng.random() < density else None
             for _ in range(n_out)] for _ in range(n_in)]


CASES = {
    "separable_input_first": lambda req, st: ref.separable(req, st, True),
    "separable_output_first": lambda req, st: ref.separable(req, st, False),
    "wavefront": lambda req, st: ref.wavefront(req, st, False),
    "rr_wavefront": lambda req, st: ref.wavefront(req, st, True),
    "loa": ref.loa,
    "select": ref.select,
}


@pytest.mark.parametrize("arb", ["round_robin", "matrix"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_allocator_matches_reference(name, arb):
    from netsim_fast.flit.booksim.allocators.dispatch import ARBITERS, KINDS, allocate
    from netsim_fast.flit.booksim.state import _matrices

    if arb == "matrix" and not name.startswith("separable"):
        pytest.skip("only the separable allocators have arbiters")
    n = 6
    rng = np.random.default_rng(11)
    sc = Scratch(n)
    b = _tuple(sc)
    gptr, aptr, scal = np.zeros((1, n), np.int32), np.zeros((1, n), np.int32), np.zeros(1, np.int64)
    mat_in, mat_out = _matrices(n, n), _matrices(n, n)
    st = ref.new_state(n, n, arb)
    for _ in range(200):
        req = random_requests(rng, n, n, rng.choice([0.05, 0.3, 0.7]), [0, 0, 1, -(1 << 31)])
        lists = fill(sc, req, rng)
        allocate(KINDS[name], 1, ARBITERS[arb], n, n, *lists, b, gptr, aptr, scal, mat_in, mat_out, 0, False)
        assert b.match[:n].tolist() == CASES[name](req, st)


def test_max_size_finds_a_maximum_matching():
    from netsim_fast.flit.booksim.allocators.dispatch import KINDS, allocate

    n = 7
    rng = np.random.default_rng(3)
    sc = Scratch(n)
    b = _tuple(sc)
    z = np.zeros((1, n), np.int32)
    scal = np.zeros(1, np.int64)
    for _ in range(200):
        req = random_requests(rng, n, n, 0.3, [0])
        lists = fill(sc, req)
        allocate(KINDS["max_size"], 1, 0, n, n, *lists, b, z, z, scal, np.zeros((0, 1, 1), np.int8),
                 np.zeros((0, 1, 1), np.int8), 0, False)
        got = [o for o in b.match[:n].tolist() if o >= 0]
        assert len(got) == len(set(got)) == ref.max_size_count(req)
        assert all(req[i][o] for i, o in enumerate(b.match[:n].tolist()) if o >= 0)


def test_pim_matches_only_requests_and_is_maximal_after_enough_iterations():
    from netsim_fast.flit.booksim.allocators.dispatch import KINDS, allocate

    n = 6
    rng = np.random.default_rng(4)
    sc = Scratch(n)
    b = _tuple(sc)
    z = np.zeros((1, n), np.int32)
    for _ in range(100):
        req = random_requests(rng, n, n, 0.4, [0])
        lists = fill(sc, req)
        allocate(KINDS["pim"], 2 * n, 0, n, n, *lists, b, z, z, np.zeros(1, np.int64), np.zeros((0, 1, 1), np.int8),
                 np.zeros((0, 1, 1), np.int8), 0, False)
        match = b.match[:n].tolist()
        taken = {o for o in match if o >= 0}
        assert len(taken) == sum(o >= 0 for o in match)
        assert all(req[i][o] for i, o in enumerate(match) if o >= 0)
        assert not any(req[i][o] and match[i] < 0 and o not in taken for i in range(n) for o in range(n))
