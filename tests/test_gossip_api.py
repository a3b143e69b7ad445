"""The API the run command wires: contract keys, JSON output, errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from netsim_fast.studies.gossip import simulate_gossip
from netsim_fast.errors import ConfigError
from netsim_fast.workloads.gossip import naive, parse_algorithm

CONTRACT = {"steps", "theorem_steps", "lower_bound_steps", "packets_per_pu"}


def test_result_has_the_contract_keys_and_is_json():
    r = simulate_gossip((8, 8), "gossip-one")
    assert CONTRACT <= set(r)
    assert r["steps"] == 20 and r["theorem_steps"] == 21 and r["lower_bound_steps"] == 16
    assert r["theorem1_bound"] == 17 and r["packets_per_pu"] == 1
    assert len(r["link_utilisation"]) == r["steps"]
    assert 0 < r["mean_link_utilisation"] <= 1
    assert r["useful_receives"] == 64 * 63
    assert json.loads(json.dumps(r))["steps"] == 20


def test_short_names_and_close_matches():
    assert parse_algorithm("ham") == "gossip-ham"
    with pytest.raises(ConfigError, match="did you mean 'gossip-one'"):
        parse_algorithm("gossip-onw")


def test_naive_is_not_a_forwarding_rule_plan():
    with pytest.raises(ConfigError, match="packet/flit engines"):
        simulate_gossip((4, 4), "gossip-naive")


def test_naive_messages_are_shift_order_all_pairs():
    m = naive.messages(5)
    assert m["src"].size == 20
    pairs = set(zip(m["src"].tolist(), m["dst"].tolist()))
    assert pairs == {(i, j) for i in range(5) for j in range(5) if i != j}
    first_round = m["phase"] == 0
    assert np.array_equal(m["dst"][first_round], (m["src"][first_round] + 1) % 5)


def test_time_independent_flag_is_reported():
    r = simulate_gossip((8, 8), "gossip-one", time_independent=True)
    assert r["time_independent"] is True
    r = simulate_gossip((8, 8), "gossip-one")
    assert r["time_independent"] is False
