"""Property-based fuzzing of the command line and the file readers (issue 19, item 3).

Every generated input must end with exit 0, 1 (a simulation failure) or 2 (bad input, one
line) and never with a traceback. ``run`` is fuzzed with the simulation replaced by the
validation, topology and workload building it starts with (the engines are tested
elsewhere; this keeps each example short). A small sample runs by default; the ``slow`` test
runs 10,000 examples.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from netsim_fast.cli import main

# Values that are wrong in every way an option can be: types, signs, sizes, floats, encodings.
NASTY = st.sampled_from(["", "-1", "0", "1e9", "10**12", "999999999999999999999", "nan", "inf", "-inf", "1.5",
                         "abc", "8 8", "8,,8", ",", "3,-2", "0x10", "é", "None", "true", "1;2"])
SMALL_INT = st.integers(min_value=-3, max_value=12).map(str)
RATE = st.sampled_from(["0.05", "0.1", "0.3", "1", "1.0001", "-0.1", "nan", "0"])

RUN_OPTIONS = {
    "--topology": st.sampled_from(["torus", "mesh", "hypercube", "rrg", "debruijn", "bmg", "circulant", "ring",
                                   "complete", "edgelist", "tors", "dragonfly"]),
    "--k": SMALL_INT, "--n": SMALL_INT, "--dims": st.sampled_from(["4,4", "3,3,2", "2", "4", "8 8", "1,4"]),
    "--nodes": st.sampled_from(["8", "16", "12", "3", "2", "1"]), "--degree": SMALL_INT, "--base": SMALL_INT,
    "--jumps": st.sampled_from(["1,2", "2,4", "1", "0"]),
    "--engine": st.sampled_from(["flit", "packet", "quantum"]),
    "--router": st.sampled_from(["lanes", "iq", "booksim"]),
    "--routing": st.sampled_from(["dor", "duato", "dor-nodateline", "minimal", "bmg-cbe", "valiant"]),
    "--switching": st.sampled_from(["wormhole", "vct", "saf"]),
    "--vcs": SMALL_INT, "--buf": SMALL_INT, "--packet-flits": SMALL_INT, "--packet-bytes": SMALL_INT,
    "--pattern": st.sampled_from(["uniform", "transpose", "hotspot", "random", "total-exchange", "random-te",
                                  "gossip-one", "bitrev", "worst-case"]),
    "--rate": RATE, "--messages": SMALL_INT, "--warmup": SMALL_INT, "--measure": SMALL_INT, "--cycles": SMALL_INT,
    "--seed": SMALL_INT, "--inject-vcs": st.sampled_from(["0", "2,3", "9", "a"]),
    "--hotspot-fraction": RATE, "--policy": st.sampled_from(["fifo", "lrpf", "lifo"]),
    "--latency-limit": SMALL_INT, "--sample-period": SMALL_INT, "--memory-limit": SMALL_INT,
    "--sweep-rates": st.sampled_from(["0.1,0.2", "0:1:0", "0:1:1e-9", "0.1:0.05:0.1", "nan"]),
    "--grain-bytes": SMALL_INT, "--sync": st.sampled_from(["none", "local", "global", "never"]),
}


def _argv(draw_options: dict) -> list[str]:
    argv = []
    for option, value in draw_options.items():
        argv += [option, value]
    return argv


@st.composite
def run_args(draw):
    names = draw(st.lists(st.sampled_from(sorted(RUN_OPTIONS)), max_size=6, unique=True))
    options = {}
    for name in names:
        options[name] = draw(st.one_of(RUN_OPTIONS[name], NASTY))
    return _argv(options)


@pytest.fixture
def no_engines(monkeypatch):
    """``simulate`` that validates and builds the inputs but runs no engine (fast examples)."""
    import netsim_fast.experiment as experiment

    def inputs_only(cfg, progress=None, topology=None):
        from netsim_fast.topologies import build_topology
        from netsim_fast.workloads.finite import build_messages

        topo = topology if topology is not None else build_topology(cfg)
        if cfg.pattern in ("random", "total-exchange", "permutation"):
            build_messages(cfg, topo.n_nodes)
        return {"cycles": 0, "accepted_load": 0.0, "latency_mean": None, "saturated": False, "rate": cfg.rate,
                "capacity": 1.0, "offered_load": 0.0, "capacity_fraction": 0.0, "latency_p99": None}

    monkeypatch.setattr(experiment, "simulate", inputs_only)


class Outcome:
    """What one command line did: exit code, stderr, and the exception if it was not an exit."""

    def __init__(self, argv: list[str]):
        import contextlib
        import io

        err, out = io.StringIO(), io.StringIO()
        self.exception = None
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            try:
                main(argv)  # the console script itself: its usage errors are cut to one line there
                self.exit_code = 0
            except SystemExit as exc:
                self.exit_code = exc.code if isinstance(exc.code, int) else 0
            except BaseException as exc:  # noqa: BLE001 - a traceback is what the fuzzer hunts
                self.exit_code, self.exception = None, exc
        self.stderr, self.output = err.getvalue(), out.getvalue()


def _check(result) -> None:
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"traceback: {type(result.exception).__name__}: {result.exception}") from result.exception
    assert result.exit_code in (0, 1, 2), (result.exit_code, result.output)
    if result.exit_code == 2:
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error:"), result.stderr


def _fuzz_run(args):
    _check(Outcome(["run", *args, "--json", "--quiet", "--memory-limit", "2000"]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(args=run_args())
def test_run_answers_every_input_cleanly(no_engines, args):
    _fuzz_run(args)


@pytest.mark.slow
@settings(max_examples=10_000, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(args=run_args())
def test_run_answers_ten_thousand_inputs_cleanly(no_engines, args):
    _fuzz_run(args)


@settings(max_examples=40, deadline=None)
@given(data=st.binary(max_size=200))
def test_edge_list_and_message_files_of_any_bytes_are_read_or_refused(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fuzz") / "input.txt"
    path.write_bytes(data)
    _check(Outcome(["topo", "--topology", "edgelist", "--file", str(path), "--json"]))


@settings(max_examples=20, deadline=None)
@given(data=st.binary(max_size=300))
def test_traces_and_configs_of_any_bytes_are_refused_cleanly(tmp_path_factory, data):
    folder = tmp_path_factory.mktemp("fuzz")
    trace = folder / "run.h5"
    trace.write_bytes(data)
    _check(Outcome(["plot", str(trace), "--out", str(folder / "p.png")]))
    config = folder / "run.toml"
    config.write_bytes(data)
    _check(Outcome(["run", "--config", str(config), "--cycles", "10", "--quiet"]))


def test_the_fuzzer_would_see_a_traceback():
    # the checker itself: an exception that is not SystemExit must fail it
    class Fake:
        exit_code, output, stderr = 1, "", ""
        exception = ZeroDivisionError("boom")

    with pytest.raises(AssertionError, match="traceback"):
        _check(Fake())
    assert math.isfinite(1.0)
