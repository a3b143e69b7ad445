"""run --booksim-config FILE [key=value ...]: a BookSim2 file run end to end."""

import json

import pytest
from typer.testing import CliRunner

from netsim_fast.cli import app
from netsim_fast.config.booksim_import import booksim_config_fields
from tests._refusals import assert_refused

CASES = "tests/booksim_cases"
SMALL = f"{CASES}/mesh2x2_1flit.cfg"


def _run(*args):
    return CliRunner().invoke(app, ["run", *args])


def test_a_booksim_file_runs_with_the_booksim_router_and_measurement():
    res = _run("--booksim-config", SMALL, "--json", "--quiet")
    assert res.exit_code == 0, res.output
    s = json.loads(res.stdout)
    control = s["booksim_control"]
    assert control["sim_type"] == "latency" and control["warmed_up_at"] == 200  # warmup_periods = 1, 200 cycles
    assert s["offered_load"] == pytest.approx(0.001, rel=0.9) and not s["saturated"]


def test_overrides_and_command_line_options_win_over_the_file():
    fields = booksim_config_fields(SMALL, ["injection_rate=0.02", "num_vcs=4;vc_buf_size=2"])
    assert fields["rate"] == 0.02 and fields["vcs"] == 4 and fields["buf"] == 2
    assert fields["router"] == "booksim" and fields["measurement"] == "booksim"
    res = _run("--booksim-config", SMALL, "injection_rate=0.02", "--rate", "0.05", "--json", "--quiet",
               "--save-config", "/dev/null")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["rate"] == 0.05


def test_size_mixes_become_packet_sizes():
    fields = booksim_config_fields(SMALL, ["packet_size={{1,8}}", "packet_size_rate={{3,1}}"])
    assert fields["packet_sizes"] == (1, 8) and fields["packet_mix"] == (3.0, 1.0)


@pytest.mark.parametrize("args, words", [
    (["--booksim-config", SMALL, "--config", "x.toml"], ["--booksim-config", "give one of them"]),
    (["k=4"], ["--booksim-config", "'k=4'"]),
    (["--booksim-config", f"{CASES}/missing.cfg"], ["--booksim-config", "no such file"]),
    (["--booksim-config", SMALL, "sim_count=2"], ["sim_count", "--seeds"]),
    (["--booksim-config", SMALL, "include_queuing=0"], ["include_queuing", "source queueing"]),
    (["--booksim-config", SMALL, "perm_seed=3"], ["perm_seed", "seed"]),
    (["--booksim-config", SMALL, "num_vcs"], ["--booksim-config", "key=value"]),
    (["--booksim-config", SMALL, "topology=qtree"], ["topology", "qtree"]),
])
def test_bad_booksim_runs_are_refused_in_one_line(args, words):
    res = _run(*args)
    assert_refused(res, words)


def test_output_only_keys_are_named_once_on_stderr():
    res = _run("--booksim-config", SMALL, "print_csv_results=1", "--quiet", "--json")
    assert res.exit_code == 0, res.output
    notes = [line for line in res.stderr.splitlines() if line.startswith("note: BookSim2 output keys")]
    assert len(notes) == 1 and "print_csv_results" in notes[0]


def test_on_off_injection_maps_to_the_same_chain():
    from netsim_fast.workloads.injection import onoff_probabilities

    fields = booksim_config_fields(SMALL, ["injection_process=on_off", "burst_alpha=0.1", "burst_beta=0.3",
                                           "injection_rate=0.05"])
    assert fields["injection"] == "onoff"
    alpha, beta, r1 = onoff_probabilities(0.05, fields["burst_length"], fields["duty_cycle"])
    assert (alpha, beta, r1) == pytest.approx((0.1, 0.3, 0.05 * 0.4 / 0.1))
    same = booksim_config_fields(SMALL, ["injection_process=on_off(0.1,0.3)", "injection_rate=0.05"])
    assert same["duty_cycle"] == fields["duty_cycle"] and same["burst_length"] == fields["burst_length"]
    with pytest.raises(Exception, match="exactly two"):
        booksim_config_fields(SMALL, ["injection_process=on_off", "burst_r1=0.5"])
