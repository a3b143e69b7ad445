"""`netsim-fast logp`: JSON contract and exit code 2 outside max(2, o) <= G <= L."""

import json

import pytest
from typer.testing import CliRunner

from netsim_fast.cli import app

runner = CliRunner()


@pytest.mark.parametrize("protocol", ["deterministic", "randomized", "cb"])
def test_logp_json_has_the_contract_keys(protocol):
    h = [] if protocol == "cb" else ["--h", "3"]  # cb routes no h-relation: --h is refused there
    res = runner.invoke(app, ["logp", "--L", "16", "--o", "1", "--G", "4", "--p", "8",
                              "--protocol", protocol, *h, "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    for key in ("time", "stall_time", "stall_time_max", "stalled", "bound"):
        assert key in out
    assert isinstance(out["stalled"], bool) and out["time"] > 0


@pytest.mark.parametrize("args,word", [(["--G", "1", "--o", "1"], "--G 1"),
                                       (["--G", "2", "--o", "3"], "--G 2"),
                                       (["--G", "20", "--L", "16"], "--G 20")])
def test_logp_rejects_parameters_outside_the_paper_rule_with_exit_2(args, word):
    res = runner.invoke(app, ["logp", "--p", "8", "--protocol", "cb", *args])
    assert res.exit_code == 2
    assert word in res.output and "max(2, o) <= G <= L" in res.output
    assert len(res.output.strip().splitlines()) == 1


def test_logp_unknown_protocol_exits_2():
    res = runner.invoke(app, ["logp", "--protocol", "bogus"])
    assert res.exit_code == 2
