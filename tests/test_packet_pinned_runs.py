"""Pinned packet-engine runs: speed work on the packet kernel must not change a single result.

Digests of every per-packet and per-cycle array and the summary (timing keys left out) of
runs large enough to hold long queues (a 256-node random 4-regular graph, 24 messages per
node), for every policy and the options that change the kernel's paths (random paths, one
port, bounded buffers). The digests were written by the engine before the speed work of
issue 18 (``python tests/test_packet_pinned_runs.py`` prints them).
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from netsim_fast.errors import DeadlockError
from netsim_fast.packet.run import simulate_packets
from netsim_fast.topologies.rrg import random_regular
from netsim_fast.workloads.messages import random_messages

RUNS = {
    "fifo": dict(policy="fifo"),
    "srpf": dict(policy="srpf"),
    "lrpf": dict(policy="lrpf"),
    "random": dict(policy="random"),
    "lrpf_random_path": dict(policy="lrpf", path_choice="random", seed=3),
    "srpf_one_port": dict(policy="srpf", one_port=True, seed=4),
    "fifo_capacity_2": dict(policy="fifo", queue_capacity=2, path_choice="random", seed=5),
    "lrpf_capacity_3_batch_7": dict(policy="lrpf", queue_capacity=3, batch_cycles=7, seed=6),
    "srpf_capacity_40": dict(policy="srpf", queue_capacity=40, seed=7),
}

PINNED = {
    'fifo': '18902432da918de3ac2b429c558776ca',
    'srpf': 'e4762c491910a46f9af9d7cdad0d72e2',
    'lrpf': '35f75f5f82d44a518c76d5f6a664b0e9',
    'random': '07b85192ad8eb6c5dd68317dc767638b',
    'lrpf_random_path': 'cbfa9e88bf197ee00fd7b58a9331b578',
    'srpf_one_port': 'badb9b7ad3eebb43d665babd0738c177',
    'fifo_capacity_2': '3068d9a24e7f38868b573a769d362603',
    'lrpf_capacity_3_batch_7': 'ac3c9a93631b99163233bec0eb128293',
    'srpf_capacity_40': '408ada30d592a08f1321486608c38850',
}


def run_digest(opts: dict) -> str:
    topo = random_regular(256, 4, 1)
    msgs = random_messages(256, 24, np.random.default_rng(7))
    try:
        res = simulate_packets(topo, msgs, **opts)
    except DeadlockError as err:  # bounded buffers on a graph may deadlock: pin that run too
        res = err.result
    h = hashlib.sha256()
    for arr in (res.delivered_cycle, res.hops, res.link_packets, res.delivered_per_cycle,
                res.queued_per_cycle, res.sent_per_cycle):
        h.update(np.ascontiguousarray(arr, np.int64).tobytes())
    summary = {k: v for k, v in res.summary().items() if not k.endswith("_seconds")
               and not k.endswith("_per_second")}
    h.update(json.dumps(summary, sort_keys=True).encode())
    return h.hexdigest()[:32]


@pytest.mark.parametrize("name", sorted(RUNS))
def test_packet_run_matches_its_pinned_digest(name):
    assert run_digest(RUNS[name]) == PINNED[name]


if __name__ == "__main__":
    for name, opts in RUNS.items():
        print(f"    {name!r}: {run_digest(opts)!r},")
