"""The option audit of the commands other than ``run`` (issue "every input answered"): each
fixed problem has its test here. A bad input ends with one line on stderr naming the option and
its value, exit code 2, no traceback, and nothing written."""

from __future__ import annotations

import pytest

from netsim_fast.cli import main


def answer(argv, capsys):
    """Exit code and stderr lines of the console script on ``argv``."""
    with pytest.raises(SystemExit) as exit_:
        main([str(a) for a in argv])
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    return exit_.value.code, err


def refused(argv, capsys, *needles):
    code, err = answer(argv, capsys)
    assert code == 2 and len(err) == 1 and err[0].startswith("error: "), (code, err)
    for needle in needles:
        assert needle in err[0], err[0]
    return err[0]


def test_a_config_file_with_an_integer_past_pythons_digit_limit_is_refused(tmp_path, capsys):
    # was: run --config FILE with k = <5000 digits> -> ValueError traceback from tomllib's int()
    path = tmp_path / "big.toml"
    path.write_text("k = " + "1" * 5000 + "\n")
    refused(["run", "--config", path, "--cycles", "10", "--quiet"], capsys, "--config", "more than 4300 digits")
