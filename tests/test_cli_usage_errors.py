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
