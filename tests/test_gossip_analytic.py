"""Closed forms of papers/003: lower bounds, theorem counts, Table 2's cost model."""

from __future__ import annotations

import pytest

from netsim_fast.analytic import gossip as model


def test_volume_lower_bound():
    assert model.lower_bound_steps(64, 2, 2) == 32        # ceil(2*63/4)
    assert model.lower_bound_steps(64, 2, 1) == 16        # ceil(63/4)
    assert model.lower_bound_steps(25, 2, 2) == 12
    assert model.lower_bound_steps(216, 3, 1) == 36       # ceil(215/6)


def test_theorem_1_bound():
    assert model.theorem1_bound(40) == 10                 # 11 - 1
    assert model.theorem1_bound(64) == 17                 # ceil(17.6 - 1)


@pytest.mark.parametrize("dims, algorithm, ti, steps, label", [
    ((8, 8), "gossip-ham", False, 32, "Theorem 2"),
    ((6, 7), "gossip-ham", False, 21, "Theorem 3"),
    ((5, 5), "gossip-ham", False, 13, "Theorem 4"),
    ((6, 7), "gossip-ham", True, None, "remark"),
    ((8, 8), "gossip-one", False, 21, "Theorem 5"),
    ((6, 5), "gossip-one", False, 11.5, "Theorem 5"),
    ((8, 8), "gossip-one", True, 30, "n2 + 1"),
    ((6, 6, 6), "gossip-one", False, 55, "Theorem 6"),
    ((6, 6, 6), "gossip-one", True, 135, "Theorem 7"),
    ((4, 4, 4, 4), "gossip-one", False, 66, "Theorem 7"),
    ((4, 4, 4, 4), "gossip-one", True, 256, "Theorem 7"),
    ((8, 8), "gossip-naive", False, None, "unicast"),
])
def test_theorem_counts(dims, algorithm, ti, steps, label):
    value, text = model.theorem_steps(dims, algorithm, ti)
    assert value == steps and label in text


def test_summary_has_the_contract_keys_for_every_algorithm():
    for alg in ("gossip-ham", "gossip-one", "gossip-naive"):
        s = model.summary((8, 8), alg)
        assert {"theorem_steps", "lower_bound_steps", "packets_per_pu"} <= set(s)
    assert model.summary((8, 8), "gossip-naive")["lower_bound_steps"] == 16


def _table2_mismatches(paper_constants):
    out = []
    for (n, r), row in model.PAPER_TABLE2.items():
        for alg, cells in row.items():
            for d, paper in zip((2, 3), cells):
                value = model.TABLE2_MODELS[alg](n, d, r, paper_constants=paper_constants)
                if round(value) != paper:
                    out.append((alg, n, r, d))
    return out


def test_table2_paper_cells_come_from_truncated_thirds_and_sixths():
    assert _table2_mismatches(paper_constants=True) == []


def test_table2_exact_formulas_differ_only_in_14_3d_cells():
    differ = _table2_mismatches(paper_constants=False)
    assert len(differ) == 14 and all(d == 3 for *_, d in differ)
    assert ("opt", 16, 0.01, 3) in differ                 # 703.15 by eq. (5), 702 printed


def test_cost_model_eq_5():
    assert model.cost(32, 1 / 2, 0.1) == pytest.approx(32 * 0.6)
