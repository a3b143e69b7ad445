"""run --config / --save-config: a saved run repeats exactly; options on the command line win."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from netsim_fast.cli import app
from netsim_fast.config import Config, ConfigError
from netsim_fast.config.files import applicable_fields, read_config_file, save_config

runner = CliRunner()


@pytest.mark.parametrize("fields", [
    dict(topology="torus", k=4, rate=0.2, packet_flits=4, warmup=100, measure=400),
    dict(topology="torus", k=4, rate=0.3, cycles=500, routing="duato"),
    dict(topology="mesh", dims="4,3", pattern="random", messages=3, packet_flits=2),
    dict(engine="packet", topology="rrg", nodes=32, degree=4, pattern="random", messages=2, policy="lrpf"),
    dict(topology="bmg", nodes=32, routing="bmg-equiclass", vcs=4, loops=2, rate=0.1),
    dict(topology="hypercube", n=4, pattern="shift-te", grain_bytes=64),
])
def test_a_saved_configuration_reads_back_as_the_same_config(tmp_path, fields):
    cfg = Config(**fields)
    path = save_config(cfg, tmp_path / "run.toml")
    assert Config(**read_config_file(path)) == cfg


def test_only_options_that_apply_are_saved():
    saved = applicable_fields(Config(engine="packet", topology="rrg", nodes=32, degree=4, pattern="random"))
    assert "vcs" not in saved and "router" not in saved and "rate" not in saved and saved["policy"] == "fifo"
    saved = applicable_fields(Config(topology="torus", k=4, pattern="random"))
    assert "rate" not in saved and "policy" not in saved and "warmup" not in saved and "vcs" in saved


def test_command_line_options_override_the_file(tmp_path):
    path = tmp_path / "run.toml"
    path.write_text('topology = "torus"\ndims = [4, 4]\nrate = 0.2\npacket-flits = 4\ncycles = 300\n')
    out = json.loads(runner.invoke(app, ["run", "--config", str(path), "--rate", "0.1", "--json", "--quiet"]).stdout)
    assert out["rate"] == 0.1 and out["cycles"] == 300


def test_bad_files_are_one_line_errors(tmp_path):
    path = tmp_path / "run.toml"
    path.write_text("rate = [\n")
    res = runner.invoke(app, ["run", "--config", str(path)])
    assert res.exit_code == 2 and "is not valid TOML" in res.stderr
    path.write_text("[grid]\nrate = [0.1]\n")
    with pytest.raises(ConfigError, match="one flat table"):
        read_config_file(path)
