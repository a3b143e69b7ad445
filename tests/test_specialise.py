"""Kernels specialised for a configuration (flit/specialise.py): the same results as the generic
kernel, and really compiled with the run's scalars as constants (the mechanism itself, a Fixed
member as a constant: tests/test_kernel_features.py)."""

import json

import pytest
from typer.testing import CliRunner

from netsim_fast._stage import FixedInt, python_twin
from netsim_fast.cli import app
from netsim_fast.config import Config
from netsim_fast.flit import specialise
from netsim_fast.summary_keys import WALL_CLOCK_KEYS


def test_auto_specialises_runs_that_plan_enough_router_cycles():
    big = Config(topology="torus", k=64, rate=0.03, cycles=specialise.AUTO_ROUTER_CYCLES["lanes"] // 4096 + 1)
    assert specialise.specialises(big, 4096, specialise.planned_cycles(big, 4096, None))
    booksim = Config(topology="torus", k=64, rate=0.03, router="booksim", routing="dim_order", cycles=big.cycles)
    assert not specialise.specialises(booksim, 4096, big.cycles)  # its compilation costs five times as much
    small = Config(topology="torus", k=64, rate=0.03, cycles=1000)
    assert not specialise.specialises(small, 4096, specialise.planned_cycles(small, 4096, None))
    assert specialise.specialises(Config(topology="torus", k=4, rate=0.1, cycles=10, specialise="on"), 16, 10)
    assert not specialise.specialises(Config(topology="torus", k=64, rate=0.03, specialise="off"), 4096, 10**9)
    window = Config(topology="torus", k=4, rate=0.1, warmup=100, measure=300)
    assert specialise.planned_cycles(window, 16, None) == 400
    assert specialise.planned_cycles(window, 16, finite_flits=1601) == 101  # a finite workload: flits per terminal
    sampled = Config(topology="torus", k=4, rate=0.1, measurement="booksim", sample_period=500, max_samples=4)
    assert specialise.planned_cycles(sampled, 16, None) == 2000


def _json(args):
    result = CliRunner().invoke(app, ["run", *args, "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    return {k: v for k, v in out.items() if k not in WALL_CLOCK_KEYS}


def _advance_signatures(module_name):
    import importlib

    return python_twin(importlib.import_module(module_name).advance).signatures


BOOKSIM_MESH = ["--topology", "mesh", "--k", "4", "--router", "booksim", "--routing", "dim_order", "--rate", "0.3",
                "--vcs", "2", "--cycles", "600"]
SETUPS = [  # a specialised compilation each (some 15 s for lanes, 40 s for the booksim router): few by default
    ["--topology", "torus", "--k", "4", "--routing", "duato", "--rate", "0.4", "--cycles", "600"],
    BOOKSIM_MESH,
]
SLOW_SETUPS = [
    ["--topology", "dragonfly", "--group-routers", "4", "--global-links", "2", "--routing", "ugal-l", "--vcs", "3",
     "--rate", "0.3", "--cycles", "500", "--threads", "2"],
    ["--topology", "torus", "--k", "4", "--router", "iq", "--switching", "vct", "--rate", "0.5", "--cycles", "600"],
    ["--topology", "torus", "--k", "4", "--routing", "dor", "--pattern", "random-te", "--cycles", "3000"],
    ["--topology", "hyperx", "--dims", "3,3", "--routing", "min-adaptive", "--vcs", "2", "--rate", "0.4",
     "--cycles", "600", "--classes", "2"],
    ["--topology", "torus", "--k", "4", "--router", "booksim", "--routing", "min_adapt", "--rate", "0.2",
     "--measurement", "booksim", "--sample-period", "200", "--max-samples", "4"],
]


@pytest.mark.parametrize("args", SETUPS + [pytest.param(a, marks=pytest.mark.slow) for a in SLOW_SETUPS])
def test_a_specialised_kernel_gives_the_same_json(args):
    assert _json([*args, "--specialise", "on"]) == _json([*args, "--specialise", "off"])


def test_on_passes_the_run_scalars_as_constants():
    _json([*BOOKSIM_MESH, "--specialise", "on"])  # the kernel of the test above, if it ran
    flit, booksim = [sig for sig in _advance_signatures("netsim_fast.flit.booksim.kernel")
                     if isinstance(sig[2].types[sig[2].fields.index("n_vcs")], FixedInt)][0][2:4]
    assert flit.types[flit.fields.index("n_vcs")] == FixedInt(2)
    assert booksim.types[booksim.fields.index("va_kind")].__class__ is FixedInt


@pytest.mark.parametrize("args, message", [
    (["--specialise", "sometimes"], "--specialise sometimes: unknown; choose one of auto, on, off"),
    (["--engine", "packet", "--specialise", "on"], "--specialise on: applies to the flit engine only"),
])
def test_a_bad_specialise_is_refused(args, message):
    result = CliRunner().invoke(app, ["run", "--topology", "torus", "--k", "4", "--rate", "0.1", *args])
    assert result.exit_code == 2
    assert message in result.output


@pytest.mark.nojit
def test_on_runs_under_disable_jit_too():
    args = ["--topology", "torus", "--k", "4", "--rate", "0.2", "--cycles", "40"]
    assert _json([*args, "--specialise", "on"]) == _json([*args, "--specialise", "off"])
