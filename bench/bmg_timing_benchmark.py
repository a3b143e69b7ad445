"""pytest-benchmark suite of BMG next-hop times (Fig. 11 of papers/001).

Each benchmark is one compiled loop of ``CALLS`` next-hop calls over random (n, cur, dst), n
uniform in 16..4096; divide the reported times by ``CALLS`` (the ``extra_info`` field
``calls``) for the time per call. bench/bmg_timing.py gives the same numbers per call, per size
band and against the loop's own cost. Run:
``PYTHONPATH=. /work/venv/bin/python -m pytest bench/bmg_timing_benchmark.py -p no:cacheprovider``
"""

import numpy as np
import pytest

from bmg_timing import LITERAL, ROUTERS, next_hop_batch, triples
from netsim_fast.routing import bmg as r

CALLS = 20_000
BFS_CALLS = 200


@pytest.fixture(scope="module")
def triples_16_4096():
    return triples(np.random.default_rng(1), CALLS, 16, 4096)


@pytest.mark.parametrize("name", ROUTERS + list(LITERAL))
def test_next_hop(benchmark, triples_16_4096, name):
    ns, curs, dsts = triples_16_4096
    code = LITERAL[name] if name in LITERAL else r.CODES[name]
    if code == r.BFS:  # Algorithm 1: one breadth-first search per call
        ns, curs, dsts = ns[:BFS_CALLS], curs[:BFS_CALLS], dsts[:BFS_CALLS]
    next_hop_batch(code, 4, ns[:2], curs[:2], dsts[:2], r.NO_TABLE)
    benchmark.extra_info["calls"] = int(ns.size)
    benchmark(next_hop_batch, code, 4, ns, curs, dsts, r.NO_TABLE)


@pytest.mark.parametrize("full", [True, False], ids=["n_x_n_table", "offset_table"])
def test_bfs_table_lookup_4096(benchmark, full):
    n = 4096
    rng = np.random.default_rng(2)
    ns = np.full(CALLS, n, np.int64)
    curs = rng.integers(0, n, CALLS)
    dsts = rng.integers(0, n, CALLS)
    table = r.bfs_table(n, full=full)
    next_hop_batch(r.BFS, 4, ns[:2], curs[:2], dsts[:2], table)
    benchmark.extra_info["calls"] = CALLS
    benchmark(next_hop_batch, r.BFS, 4, ns, curs, dsts, table)
