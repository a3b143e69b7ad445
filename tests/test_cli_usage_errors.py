"""Typer's own parse errors (bad types, unknown options) leave the console script as one line, exit 2."""

import pytest

from netsim_fast.cli import main


@pytest.mark.parametrize("argv,expect", [
    (["topo", "--k", "abc"], ["--k", "'abc'", "topo --help"]),
    (["run", "--rate=abc"], ["--rate", "'abc'"]),
    (["run", "--bogus", "1"], ["--bogus"]),
    (["topo", "--topology"], ["--topology", "requires an argument"]),
    (["bmg", "route", "--nodes", "x1"], ["--nodes", "'x1'"]),
])
def test_parse_errors_are_one_line_naming_the_option_and_value(argv, expect, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2
    assert err.count("\n") == 1 and err.startswith("error: ") and "Traceback" not in err
    for text in expect:
        assert text in err


def test_validation_errors_and_success_keep_their_exit_codes(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["topo", "--topology", "torus", "--k", "1"])
    assert exit_.value.code == 2 and capsys.readouterr().err.startswith("error: --k 1")
    with pytest.raises(SystemExit) as exit_:
        main(["topo", "--topology", "ring", "--nodes", "5", "--json"])
    assert exit_.value.code == 0 and '"nodes": 5' in capsys.readouterr().out


def test_bare_command_prints_the_help(capsys):
    with pytest.raises(SystemExit):
        main([])
    out = capsys.readouterr()
    assert "Usage" in out.out + out.err and "run" in out.out + out.err


def test_huge_rate_ranges_are_refused_by_their_count_before_any_allocation():
    from typer.testing import CliRunner

    from netsim_fast.cli import app

    res = CliRunner().invoke(app, ["run", "--topology", "torus", "--k", "4", "--sweep-rates", "0:1:1e-9"])
    assert res.exit_code == 2 and "gives 1000000001 rates" in res.stderr


def test_dims_separated_by_spaces_are_two_dimensions_not_one_glued_radix():
    from netsim_fast.config import Config

    assert Config(topology="torus", dims="8 8").dims == (8, 8)


def test_trace_paths_are_checked_before_the_run(tmp_path):
    from pathlib import Path

    import pytest

    from netsim_fast.config import Config
    from netsim_fast.errors import ConfigError

    assert Config(topology="torus", k=4, trace=Path(tmp_path / "new" / "run.h5")).trace == str(tmp_path / "new" / "run.h5")
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("x")
    with pytest.raises(ConfigError, match="not a writable folder"):
        Config(topology="torus", k=4, trace=str(not_a_folder / "run.h5"))
    with pytest.raises(ConfigError, match="is a folder"):
        Config(topology="torus", k=4, trace=str(tmp_path))


def test_runs_estimated_over_the_memory_limit_are_refused_before_they_start():
    import time

    from typer.testing import CliRunner

    from netsim_fast.cli import app

    start = time.perf_counter()
    res = CliRunner().invoke(app, ["run", "--topology", "torus", "--k", "16", "--memory-limit", "1"])
    assert res.exit_code == 2 and "needs about" in res.stderr and "--memory-limit (1 MiB)" in res.stderr
    res = CliRunner().invoke(app, ["run", "--topology", "hypercube", "--n", "20", "--routing", "minimal", "--vcs", "21",
                                   "--memory-limit", "24000"])
    assert res.exit_code == 2 and "needs about" in res.stderr
    assert time.perf_counter() - start < 5  # refused from the estimate, nothing allocated


def test_the_estimate_is_in_the_summary_and_grows_with_the_network():
    import netsim_fast as nf
    from netsim_fast.config.memory import estimated_mib

    small, large = nf.Config(topology="torus", k=8, cycles=100), nf.Config(topology="torus", k=64, cycles=100)
    assert 0 < estimated_mib(small) < estimated_mib(large)
    assert nf.simulate(small)["estimated_mib"] == round(estimated_mib(small), 1)


@pytest.mark.parametrize("args,needle", [
    (["--topology", "torus", "--k", "4", "--loops", "3"], "--loops 3: applies to --routing bmg-equiclass only"),
    (["--engine", "packet", "--topology", "rrg", "--nodes", "32", "--degree", "4", "--vc-alloc", "rr"], "--vc-alloc rr"),
    (["--topology", "torus", "--k", "4", "--hotspot-fraction", "0.3"], "applies to --pattern hotspot only"),
    (["--topology", "torus", "--k", "4", "--hotspot-nodes", "3"], "applies to --pattern hotspot only"),
    (["--engine", "packet", "--topology", "torus", "--dims", "8,8", "--pattern", "gossip-one", "--seed", "5"],
     "--seed 5: does not apply to --pattern gossip-one"),
    (["--topology", "torus", "--k", "4", "--sweep-rates", "0.1,0.2", "--trace", "x.h5"], "--trace x.h5"),
])
def test_options_that_do_not_apply_are_refused_not_ignored(args, needle):
    from typer.testing import CliRunner

    from netsim_fast.cli import app

    res = CliRunner().invoke(app, ["run", *args])
    assert res.exit_code == 2 and needle in res.stderr, res.stderr


def test_an_absurd_number_of_dimensions_is_refused_at_once():
    # found by the fuzzer: k ** n was computed before n was bounded, and never finished
    import time

    from netsim_fast.config import Config, ConfigError

    start = time.perf_counter()
    with pytest.raises(ConfigError, match="exceed the limit"):
        Config(topology="torus", k=3, n=10**20)
    assert time.perf_counter() - start < 1
