"""`run --seeds N`: N seeds of one configuration, each figure's mean and 95 % confidence interval."""

import json
import math

import pytest
from scipy import stats
from typer.testing import CliRunner

from netsim_fast.cli import app
from netsim_fast.experiment import aggregate_seeds
from netsim_fast.summary_keys import WALL_CLOCK_KEYS

runner = CliRunner()
SMALL = ["--topology", "torus", "--k", "4", "--warmup", "200", "--measure", "1000", "--rate", "0.2"]


def test_aggregate_takes_means_and_student_t_half_widths():
    runs = [{"latency_mean": x, "saturated": sat, "completed": True, "stop_reason": "completed", "latency_p99": p}
            for x, sat, p in ((10.0, False, 20.0), (12.0, True, None), (14.0, False, 22.0))]
    out = aggregate_seeds(runs, [1, 2, 3])
    assert out["latency_mean"] == 12.0
    assert out["ci95"]["latency_mean"] == pytest.approx(stats.t.ppf(0.975, 2) * 2.0 / math.sqrt(3))
    assert out["saturated"] is True and out["completed"] is True and out["stop_reason"] == "completed"
    assert out["latency_p99"] is None, "a figure missing in one seed has no mean"
    assert out["seed"] == [1, 2, 3] and out["seed_count"] == 3 and out["per_seed"] == runs


def test_seeds_report_the_same_runs_as_single_seeds():
    res = runner.invoke(app, ["run", *SMALL, "--seed", "5", "--seeds", "3", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["seed"] == [5, 6, 7]
    means = []
    for i, seed in enumerate((5, 6, 7)):
        alone = json.loads(runner.invoke(app, ["run", *SMALL, "--seed", str(seed), "--json"]).stdout)
        for key, value in alone.items():
            if key not in WALL_CLOCK_KEYS and key != "estimated_mib":
                assert data["per_seed"][i][key] == value, key
        means.append(alone["accepted_load"])
    assert data["accepted_load"] == pytest.approx(sum(means) / 3)
    assert data["ci95"]["accepted_load"] > 0


def test_seeds_print_the_spread_table():
    res = runner.invoke(app, ["run", *SMALL, "--seeds", "2"])
    assert res.exit_code == 0, res.output
    assert "95% confidence interval over 2 seeds" in res.stdout and "±" in res.stdout


@pytest.mark.parametrize("extra, fragment", [
    (["--seeds", "0"], "--seeds 0: must be >= 1"),
    (["--seeds", "2", "--trace", "/tmp/never.h5"], "writes one run's trace"),
    (["--seeds", "2", "--sweep-rates", "0.1,0.2"], "does not combine with --sweep-rates"),
])
def test_seeds_refuse_what_they_cannot_do(extra, fragment):
    res = runner.invoke(app, ["run", *SMALL, *extra])
    assert res.exit_code == 2
    assert fragment in res.output


def test_seeds_refuse_fixed_forwarding_rules():
    res = runner.invoke(app, ["run", "--engine", "packet", "--topology", "torus", "--dims", "4,4",
                              "--pattern", "gossip-one", "--seeds", "2"])
    assert res.exit_code == 2 and "fixed forwarding rules" in res.output
