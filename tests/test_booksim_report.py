"""--report booksim and the booksim_stats of the JSON (flit/booksim_stats.py)."""

import json
import re

import numpy as np
import pytest
from typer.testing import CliRunner

from netsim_fast.cli import app
from netsim_fast.flit.booksim_stats import booksim_statistics
from tests._refusals import assert_refused

RUN = ["run", "--topology", "mesh", "--k", "4", "--vcs", "2", "--packet-flits", "4", "--rate", "0.2",
       "--measurement", "booksim", "--sample-period", "300", "--quiet"]

# BookSim2's DisplayOverallStats block, line by line (docs/booksim-router.md, section 9.3)
NUMBER = r"(-?[0-9.e+-]+|nan)"
LAYOUT = [r"Time taken is \S+ cycles", "====== Overall Traffic Statistics ======", "====== Traffic class 0 ======"]
for title in ("Packet latency", "Network latency", "Flit latency", "Fragmentation", "Injected packet rate",
              "Accepted packet rate", "Injected flit rate", "Accepted flit rate"):
    LAYOUT += [rf"{title} average = {NUMBER} \(S samples\)", rf"\tminimum = {NUMBER} \(S samples\)",
               rf"\tmaximum = {NUMBER} \(S samples\)"]
LAYOUT += [rf"Injected packet size average = {NUMBER} \(S samples\)",
           rf"Accepted packet size average = {NUMBER} \(S samples\)", rf"Hops average = {NUMBER} \(S samples\)",
           rf"Total run time {NUMBER}"]


def _report(*extra, samples=1):
    res = CliRunner().invoke(app, [*RUN, "--report", "booksim", *extra])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert len(lines) == len(LAYOUT)
    for line, pattern in zip(lines, LAYOUT):
        assert re.fullmatch(pattern.replace("S samples", f"{samples} samples"), line), (line, pattern)
    return lines


def test_the_report_is_booksims_block_line_for_line_and_agrees_with_the_json():
    lines = _report()
    s = json.loads(CliRunner().invoke(app, [*RUN, "--json"]).stdout)
    b = s["booksim_stats"]
    assert lines[3] == f"Packet latency average = {b['packet_latency']['average']:g} (1 samples)"
    assert lines[-2] == f"Hops average = {s['hops_mean'] + 1:g} (1 samples)"  # routers, as BookSim2 counts
    assert b["accepted_flit_rate"]["average"] == pytest.approx(s["accepted_load"], rel=0.02)
    assert sum(s["latency_histogram"]["counts"]) == s["packets_delivered"]


def test_seeds_average_the_figures_and_count_the_samples():
    _report("--seeds", "2", samples=2)


def test_an_unstable_run_prints_booksims_line_and_no_block():
    res = CliRunner().invoke(app, [*RUN, "--rate", "1.0", "--latency-limit", "60", "--report", "booksim"])
    assert res.exit_code == 0 and res.stdout.strip() == "Simulation unstable, ending ..."


def test_statistics_of_a_hand_made_table():
    # two 4-flit packets in the window [10, 30): one contiguous, sent at 11-14; one whose flits
    # are sent at 13, 14, 15, 17 (gaps 0+1+2+4 = 7) and arrive at 20, 21, 25, 26 (gaps
    # 0+1+5+6 = 12, fragmentation 6 - 3 = 3); one packet created before it
    pk = {"src": np.array([0, 1, 0]), "dst": np.array([1, 0, 1]), "size_flits": np.array([4, 4, 4]),
          "created_cycle": np.array([10, 12, 2]), "injected_cycle": np.array([11, 13, 3]),
          "head_arrival_cycle": np.array([15, 20, 8]), "tail_arrival_cycle": np.array([18, 26, 11]),
          "hops": np.array([2, 3, 2]), "flit_gap_sum": np.array([6, 12, 6]),
          "flit_inject_gap_sum": np.array([6, 7, 6])}
    b = booksim_statistics(pk, 10, 30, 2)
    assert b["packet_latency"] == {"average": 11.0, "minimum": 8.0, "maximum": 14.0}
    assert b["network_latency"]["average"] == 10.0
    assert b["fragmentation"] == {"average": 1.5, "minimum": 0.0, "maximum": 3.0}
    # BookSim2's flit latency, each flit's arrival minus its own send cycle, of the flits of the
    # two packets whose heads arrived from 10 on: (4+4+4+4) + (7+7+10+9); min and max of the heads
    assert b["flit_latency"] == {"average": 49 / 8, "minimum": 4.0, "maximum": 7.0}
    assert b["hops_average"] == 3.5
    assert b["injected_flit_rate"] == {"average": 0.2, "minimum": 0.2, "maximum": 0.2}
    assert b["accepted_packet_rate"]["average"] == pytest.approx(0.075) and b["accepted_packet_size"] == 4  # tails at 18, 26, 11


@pytest.mark.parametrize("args, words", [
    (["--report", "booksim", "--json"], ["--report", "booksim_stats"]),
    (["--report", "booksim", "--sweep-rates", "0.1,0.2"], ["--report", "--sweep-rates"]),
    (["--report", "csv"], ["--report", "table, booksim"]),
])
def test_bad_reports_are_refused_in_one_line(args, words):
    res = CliRunner().invoke(app, [*RUN, *args])
    assert_refused(res, words)


def test_a_finite_workload_has_no_booksim_report():
    res = CliRunner().invoke(app, ["run", "--topology", "mesh", "--k", "4", "--pattern", "random-te", "--report",
                                   "booksim", "--quiet"])
    assert res.exit_code == 2 and "open-loop" in res.stderr


def test_a_batch_reports_every_packet_over_its_duration_and_booksims_batch_lines():
    res = CliRunner().invoke(app, ["run", "--booksim-config", "tests/booksim_cases/batch_torus4.cfg", "batch_size=5",
                                   "--report", "booksim", "--quiet"])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    batch = [line for line in lines if line.startswith("Overall min batch duration")]
    assert len(batch) == 3 and len(set(batch)) == 1  # BookSim2 labels min, average and max alike
    duration = float(re.search(r"= (\S+) ", batch[0]).group(1))
    js = json.loads(CliRunner().invoke(app, ["run", "--booksim-config", "tests/booksim_cases/batch_torus4.cfg",
                                             "batch_size=5", "--json", "--quiet"]).stdout)
    assert duration == js["completion_cycles"] + 1  # BookSim2's clock has stepped past the last arrival
    injected = float(re.search(r"Injected packet rate average = (\S+)", res.stdout).group(1))
    assert injected == pytest.approx(5 / duration, rel=1e-5)  # 5 packets per node over the batch
    assert js["packets"] == 16 * 5 and js["booksim_stats"]["batch_duration"] == duration
