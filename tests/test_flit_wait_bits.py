"""The lanes and iq routers' waiting-lane bits (flit/flits.py ``next_waiting_in_round``): the
lanes a round-robin pass visits are those a scan of every lane from the pointer would find
waiting, in the same order, for routers of one or several 64-lane words."""

from __future__ import annotations

import numpy as np
import pytest

from netsim_fast.flit.flits import next_waiting_in_round
from netsim_fast.flit.state import NONE


def _visited(wait_bits, node, per_node, start):
    seen = []
    k, li = next_waiting_in_round(wait_bits, node, per_node, start, 0)
    while k != NONE:
        assert (start + k) % per_node == li  # the step and the lane agree
        seen.append(li)
        k, li = next_waiting_in_round(wait_bits, node, per_node, start, k + 1)
    return seen


@pytest.mark.nojit
@pytest.mark.parametrize("per_node", [5, 20, 63, 64, 65, 130])
def test_a_round_visits_the_waiting_lanes_in_scan_order(per_node):
    rng = np.random.default_rng(per_node)
    routers = 3
    words = -(-per_node // 64)
    for _ in range(40):
        waiting = rng.random((routers, per_node)) < rng.choice([0.05, 0.3, 0.9])
        wait_bits = np.zeros((routers, words), np.int64)
        for node, li in zip(*np.nonzero(waiting)):
            wait_bits[node, li >> 6] |= np.int64(1) << np.int64(li & 63)
        for node in range(routers):
            start = int(rng.integers(per_node))
            scan = [(start + j) % per_node for j in range(per_node) if waiting[node, (start + j) % per_node]]
            assert _visited(wait_bits, node, per_node, start) == scan
