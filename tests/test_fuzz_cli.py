"""Property-based fuzzing of the command line and the file readers (issue 19, item 3).

Every generated input must end with exit 0, 1 (a simulation failure) or 2 (bad input, one
line) within a time bound, and never with a traceback. ``run`` is fuzzed with the simulation
replaced by the validation, topology and workload building it starts with (the engines are
tested elsewhere; this keeps each example short). The readers get arbitrary bytes, text built
from the tokens of their format (numbers of every size and sign, keywords, separators, digits
int() would take or refuse), and byte-level mutations of valid files: edge lists (``topo
--file``), message files (``run --messages-file``), run configs (``run --config``), sweep specs
(``sweep SPEC --dry-run``), traces and sweep results (``plot``). A small sample runs by
default; under ``-m slow`` the ``run`` fuzz takes 10,000 examples and each reader thousands.
"""

from __future__ import annotations

import math
import signal
import time
from pathlib import Path

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
    "--measurement": st.sampled_from(["window", "booksim", "batch"]),
    "--sim-type": st.sampled_from(["latency", "throughput", "batch"]), "--warmup-periods": SMALL_INT,
    "--max-samples": SMALL_INT, "--warmup-thres": RATE, "--stopping-thres": RATE,
    "--injection": st.sampled_from(["bernoulli", "onoff", "poisson"]), "--burst-length": RATE, "--duty-cycle": RATE,
    "--packet-sizes": st.sampled_from(["1,8", "4", "0,2", "1,x", ""]), "--packet-mix": st.sampled_from(["0.8,0.2", "1", "-1,2", "0,0"]),
    "--batch": SMALL_INT, "--report": st.sampled_from(["table", "booksim", "csv"]), "--source-queue": SMALL_INT,
    "--link-failures": SMALL_INT, "--fault-seed": SMALL_INT, "--fixed-points": st.sampled_from(["idle", "self", "x"]),
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
        if cfg.pattern in ("random", "total-exchange", "permutation", "file"):
            build_messages(cfg, topo.n_nodes)
        return {"cycles": 0, "accepted_load": 0.0, "latency_mean": None, "saturated": False, "rate": cfg.rate,
                "capacity": 1.0, "offered_load": 0.0, "capacity_fraction": 0.0, "latency_p99": None}

    monkeypatch.setattr(experiment, "simulate", inputs_only)


TIME_LIMIT = 30.0  # seconds one input may take (the first example of a kind loads the kernels)


class Hang(BaseException):
    """Raised into a command that exceeds TIME_LIMIT (a BaseException: no handler swallows it)."""


class Outcome:
    """What one command line did: exit code, stderr, and the exception if it was not an exit."""

    def __init__(self, argv: list[str], limit: float = TIME_LIMIT):
        import contextlib
        import io

        def expire(signum, frame):
            raise Hang(f"no answer within {limit:g} s")

        err, out = io.StringIO(), io.StringIO()
        self.exception = None
        previous = signal.signal(signal.SIGALRM, expire)
        signal.setitimer(signal.ITIMER_REAL, limit)
        start = time.perf_counter()
        try:
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
                try:
                    main(argv)  # the console script itself: its usage errors are cut to one line there
                    self.exit_code = 0
                except SystemExit as exc:
                    self.exit_code = exc.code if isinstance(exc.code, int) else 0
                except BaseException as exc:  # noqa: BLE001 - a traceback (or a hang) is what the fuzzer hunts
                    self.exit_code, self.exception = None, exc
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        self.seconds = time.perf_counter() - start
        self.stderr, self.output = err.getvalue(), out.getvalue()


def _check(result) -> None:
    if isinstance(result.exception, Hang):
        raise AssertionError(f"hang: {result.exception}")
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


# -- the file readers ----------------------------------------------------------------------------
# Each reader gets a small sample by default and LARGE_SAMPLE examples under -m slow.

SMALL_SAMPLE, LARGE_SAMPLE = 25, 3000
READER_SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                                             HealthCheck.data_too_large])

# Tokens of the line formats (edge lists, message files): numbers of every size and sign, the
# keywords, separators, digits int() takes ('٣', '1_0', '+1') or refuses ('²', '1e3'), and
# integers past Python's 4300-digit conversion limit.
LINE_TOKENS = st.sampled_from([
    "0", "1", "2", "3", "5", "7", "8", "15", "-1", "+1", "01", "1_0", "1.0", "1e3", "0x10", "٣", "²", "nan",
    "1048575", "1048576", "4611686018427387903", "4611686018427387904", "9" * 25, "1" * 4400,
    "nodes", "NODES", "src", "dst", "release_cycle", "#", "# note", "é", "\t", "\x00", "\ufeff", ""])


@st.composite
def line_files(draw) -> bytes:
    """An edge list or message file: mostly lines of LINE_TOKENS, sometimes arbitrary bytes."""
    if draw(st.integers(0, 3)) == 0:
        return draw(st.binary(max_size=300))
    sep = draw(st.sampled_from([" ", ",", "\t", ", ", "  "]))
    lines = draw(st.lists(st.lists(LINE_TOKENS, max_size=5).map(sep.join), max_size=12))
    end = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    text = end.join(lines) + draw(st.sampled_from(["", end]))
    return text.encode(draw(st.sampled_from(["utf-8", "utf-8", "utf-8", "utf-16", "latin-1"])), errors="replace")


# TOML: keys of a run (some spelled with '-', some unknown or output-only) and values of every type.
TOML_KEYS = st.sampled_from([
    "topology", "k", "n", "dims", "nodes", "degree", "base", "jumps", "engine", "router", "routing", "vcs", "buf",
    "pattern", "rate", "packet_flits", "packet-flits", "messages", "cycles", "warmup", "measure", "window", "seed",
    "graph_seed", "memory_limit", "trace", "json", "sweep_rates", "bogus", "repeats", "", '"quoted key"'])
TOML_VALUES = st.sampled_from([
    '"torus"', '"mesh"', '"ring"', '"rrg"', '"packet"', '"flit"', '"uniform"', '"random"', '"dor"', '"minimal"',
    '"4,4"', '"8 8"', "[4, 4]", "[]", '["4", 4]', "[[1]]", "4", "8", "3", "16", "0", "-1", "0.1", "0.5", "1.5",
    "nan", "inf", "-inf", "true", "false", '"é"', '""', "1979-05-27", "07:32:00", "1e400", "9" * 30, "1" * 4400,
    "{ a = 1 }", '"/proc/netsim-fuzz/t.h5"', "0x10", "1_000", "'lit'", '"""multi\nline"""', "= ="])
GRID_VALUES = st.sampled_from([
    "[0.1, 0.2]", "[4, 8]", '["dor", "duato"]', '["torus", "mesh"]', "[]", "[1, 1]", "[0.1, nan]", "[[1], [2]]",
    '["4,4", "2,2,2"]', "4", '"x"', "[true]"])
SWEEP_KEYS = st.sampled_from(["repeats", "seed", "graph_seed", "repeat", "workers"])


@st.composite
def toml_lines(draw, keys=TOML_KEYS, values=TOML_VALUES, size=8) -> list[str]:
    return [f"{draw(keys)} = {draw(values)}" for _ in range(draw(st.integers(0, size)))]


@st.composite
def config_files(draw) -> bytes:
    """A run's TOML file: key = value lines, sometimes a table or a garbled line, or arbitrary bytes."""
    if draw(st.integers(0, 3)) == 0:
        return draw(st.binary(max_size=300))
    lines = draw(toml_lines())
    if draw(st.booleans()):
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(["[base]", "[[points]]", "x", "k ="])))
    return "\n".join(lines).encode()


@st.composite
def spec_files(draw) -> bytes:
    """A sweep spec: tables [base], [grid], [[points]], [sweep] (and unknown ones) with their keys."""
    if draw(st.integers(0, 5)) == 0:
        return draw(st.binary(max_size=300))
    parts = []
    for _ in range(draw(st.integers(0, 5))):
        table = draw(st.sampled_from(["[base]", "[grid]", "[[points]]", "[sweep]", "[bogus]", "[base.x]"]))
        if table == "[grid]":
            body = draw(toml_lines(values=GRID_VALUES, size=3))
        elif table == "[sweep]":
            body = draw(toml_lines(keys=SWEEP_KEYS, values=st.sampled_from(["1", "2", "0", "-1", "3", '"2"', "1.5",
                                                                            "9" * 30]), size=3))
        else:
            body = draw(toml_lines(size=5))
        parts.append("\n".join([table, *body]))
    return "\n".join(parts).encode()


@st.composite
def mutated(draw, seed: bytes, cells=False) -> bytes:
    """``seed`` with 1-4 byte-level edits (flip, overwrite, truncate, insert, delete) and, for text
    tables, cells replaced by hostile values."""
    data = bytearray(seed)
    ops = ["flip", "set", "truncate", "insert", "delete"] + (["cell", "cell"] if cells else [])
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(ops))
        pos = draw(st.integers(0, max(len(data) - 1, 0)))
        if op == "flip" and data:
            data[pos] ^= 1 << draw(st.integers(0, 7))
        elif op == "set" and data:
            data[pos] = draw(st.integers(0, 255))
        elif op == "truncate":
            del data[pos:]
        elif op == "insert":
            data[pos:pos] = draw(st.binary(min_size=1, max_size=16))
        elif op == "delete":
            del data[pos:pos + draw(st.integers(1, 64))]
        elif op == "cell":
            end = data.find(b",", pos)
            start = data.rfind(b",", 0, pos) + 1
            if end > start:
                value = draw(st.sampled_from(["", "nan", "inf", "-1", "1e309", "True", "x", '"', '""', "é", "9" * 30]))
                data[start:end] = value.encode()
    return bytes(data)


class _Seeds(dict):
    """The valid files, shown short when hypothesis reports a falsifying example."""

    def __repr__(self) -> str:
        return f"<valid files: {', '.join(f'{k} ({len(v)} bytes)' for k, v in self.items())}>"


@pytest.fixture(scope="module")
def valid_files(tmp_path_factory) -> dict:
    """A trace and a sweep's results.csv to mutate (two rates, so the load curve is drawn)."""
    import netsim_fast as nf
    from netsim_fast.sweep import load_spec
    from netsim_fast.sweep.execute import _tasks
    from netsim_fast.sweep.table import ResultsWriter
    from netsim_fast.sweep.worker import run_point

    folder = tmp_path_factory.mktemp("valid")
    trace = folder / "run.h5"
    nf.simulate(nf.Config(topology="torus", k=4, rate=0.1, warmup=50, measure=200, trace=str(trace)))
    spec = load_spec(base={"topology": "torus", "k": 4, "cycles": 100}, grid={"rate": [0.1, 0.3]})
    with ResultsWriter(folder / "results.csv") as writer:
        for task in _tasks(spec, list(spec.tasks()), folder, False, None):
            writer.write(run_point(task))
    return _Seeds(trace=trace.read_bytes(), results=(folder / "results.csv").read_bytes())


@pytest.fixture(scope="module")
def fuzz_folder(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


def _fuzz_edge_list(folder, data: bytes) -> None:
    path = folder / "graph.txt"
    path.write_bytes(data)
    _check(Outcome(["topo", "--topology", "edgelist", "--file", str(path), "--json"]))


def _fuzz_messages(folder, data: bytes, engine: str) -> None:
    path = folder / "messages.txt"
    path.write_bytes(data)
    _check(Outcome(["run", "--engine", engine, "--topology", "ring", "--nodes", "8", "--pattern", "file",
                    "--messages-file", str(path), "--json", "--quiet"]))


def _fuzz_config(folder, data: bytes) -> None:
    path = folder / "run.toml"
    path.write_bytes(data)
    _check(Outcome(["run", "--config", str(path), "--cycles", "10", "--quiet", "--json", "--memory-limit", "2000"]))


BOOKSIM_TOKENS = st.sampled_from([
    "topology", "k", "n", "mesh", "torus", "anynet", "network_file", "routing_function", "dim_order", "min_adapt",
    "num_vcs", "vc_buf_size", "buf_size", "injection_rate", "injection_rate_uses_flits", "traffic", "uniform",
    "transpose", "packet_size", "packet_size_rate", "{{1,2}}", "{4,8}", "{", "}", ",", "sim_type", "latency",
    "throughput", "batch", "seed", "time", "injection_process", "on_off", "on_off(0.1,0.2)", "burst_alpha",
    "burst_r1", "vc_allocator", "islip(2)", "separable_input_first(matrix)", "router", "iq", "routing_delay",
    "sample_period", "max_samples", "latency_thres", "sim_count", "watch_out", "-", "=", ";", "//", "0", "1", "-1",
    "0.5", "8", "1e400", "2147483648", ".5", "x", "\n", " "])


@st.composite
def booksim_files(draw) -> bytes:
    """A BookSim2 configuration: statements of BOOKSIM_TOKENS, or a mutated example file."""
    if draw(st.booleans()):
        statements = draw(st.lists(st.lists(BOOKSIM_TOKENS, min_size=1, max_size=5).map(" ".join), max_size=10))
        return "\n".join(statements).encode()
    seeds = sorted(Path(__file__).parent.joinpath("booksim_cases").glob("*.cfg"))
    return draw(mutated(draw(st.sampled_from(seeds)).read_bytes()))


def _fuzz_booksim(folder, data: bytes) -> None:
    path = folder / "run.cfg"
    path.write_bytes(data)
    _check(Outcome(["run", "--booksim-config", str(path), "--quiet", "--json", "--memory-limit", "2000"]))


@settings(max_examples=SMALL_SAMPLE, **READER_SETTINGS)
@given(data=booksim_files())
def test_booksim_configs_are_read_or_refused(no_engines, fuzz_folder, data):
    _fuzz_booksim(fuzz_folder, data)


@pytest.mark.slow
@settings(max_examples=LARGE_SAMPLE, **READER_SETTINGS)
@given(data=booksim_files())
def test_thousands_of_booksim_configs_are_read_or_refused(no_engines, fuzz_folder, data):
    _fuzz_booksim(fuzz_folder, data)


def _fuzz_spec(folder, data: bytes) -> None:
    path = folder / "spec.toml"
    path.write_bytes(data)
    _check(Outcome(["sweep", str(path), "--out", str(folder / "sweep"), "--dry-run", "--json"]))


def _fuzz_trace(folder, data: bytes) -> None:
    path = folder / "run.h5"
    path.write_bytes(data)
    _check(Outcome(["plot", str(path), "--out", str(folder / "trace.png")]))


def _fuzz_results(folder, data: bytes) -> None:
    sweep = folder / "results"
    sweep.mkdir(exist_ok=True)
    (sweep / "results.csv").write_bytes(data)
    _check(Outcome(["plot", str(sweep), "--out", str(folder / "sweep.png")]))


@settings(max_examples=SMALL_SAMPLE, **READER_SETTINGS)
@given(data=line_files())
def test_edge_lists_are_read_or_refused(fuzz_folder, data):
    _fuzz_edge_list(fuzz_folder, data)


@pytest.mark.slow
@settings(max_examples=LARGE_SAMPLE, **READER_SETTINGS)
@given(data=line_files())
def test_thousands_of_edge_lists_are_read_or_refused(fuzz_folder, data):
    _fuzz_edge_list(fuzz_folder, data)


@settings(max_examples=SMALL_SAMPLE, **READER_SETTINGS)
@given(data=line_files(), engine=st.sampled_from(["packet", "flit"]))
def test_message_files_are_read_or_refused(no_engines, fuzz_folder, data, engine):
    _fuzz_messages(fuzz_folder, data, engine)


@pytest.mark.slow
@settings(max_examples=LARGE_SAMPLE, **READER_SETTINGS)
@given(data=line_files(), engine=st.sampled_from(["packet", "flit"]))
def test_thousands_of_message_files_are_read_or_refused(no_engines, fuzz_folder, data, engine):
    _fuzz_messages(fuzz_folder, data, engine)


@settings(max_examples=SMALL_SAMPLE, **READER_SETTINGS)
@given(data=config_files())
def test_run_configs_are_read_or_refused(no_engines, fuzz_folder, data):
    _fuzz_config(fuzz_folder, data)


@pytest.mark.slow
@settings(max_examples=LARGE_SAMPLE, **READER_SETTINGS)
@given(data=config_files())
def test_thousands_of_run_configs_are_read_or_refused(no_engines, fuzz_folder, data):
    _fuzz_config(fuzz_folder, data)


@settings(max_examples=SMALL_SAMPLE, **READER_SETTINGS)
@given(data=spec_files())
def test_sweep_specs_are_read_or_refused(fuzz_folder, data):
    _fuzz_spec(fuzz_folder, data)


@pytest.mark.slow
@settings(max_examples=LARGE_SAMPLE, **READER_SETTINGS)
@given(data=spec_files())
def test_thousands_of_sweep_specs_are_read_or_refused(fuzz_folder, data):
    _fuzz_spec(fuzz_folder, data)


@settings(max_examples=SMALL_SAMPLE, **READER_SETTINGS)
@given(data=st.data())
def test_damaged_traces_and_results_are_drawn_or_refused(valid_files, fuzz_folder, data):
    if data.draw(st.booleans()):
        _fuzz_trace(fuzz_folder, data.draw(st.one_of(st.binary(max_size=300), mutated(valid_files["trace"]))))
    else:
        _fuzz_results(fuzz_folder, data.draw(mutated(valid_files["results"], cells=True)))


@pytest.mark.slow
@settings(max_examples=LARGE_SAMPLE, **READER_SETTINGS)
@given(data=st.data())
def test_thousands_of_damaged_traces_are_drawn_or_refused(valid_files, fuzz_folder, data):
    _fuzz_trace(fuzz_folder, data.draw(st.one_of(st.binary(max_size=300), mutated(valid_files["trace"]))))


@pytest.mark.slow
@settings(max_examples=LARGE_SAMPLE, **READER_SETTINGS)
@given(data=st.data())
def test_thousands_of_damaged_results_are_drawn_or_refused(valid_files, fuzz_folder, data):
    _fuzz_results(fuzz_folder, data.draw(mutated(valid_files["results"], cells=True)))


def test_the_fuzzer_would_see_a_traceback():
    # the checker itself: an exception that is not SystemExit must fail it
    class Fake:
        exit_code, output, stderr = 1, "", ""
        exception = ZeroDivisionError("boom")

    with pytest.raises(AssertionError, match="traceback"):
        _check(Fake())
    assert math.isfinite(1.0)
