"""Sweep specs: grid expansion, validation errors that name the key, stable ids, derived seeds.
No simulation runs here."""

import dataclasses

import numpy as np
import pytest

from netsim_fast.config import Config
from netsim_fast.errors import ConfigError
from netsim_fast.sweep import derive_seed, load_spec, point_id, spec_from_dict
from netsim_fast.sweep.spec import parse_assignment

ISSUE_EXAMPLE = """
[base]
topology = "torus"
k = 8
pattern = "uniform"
packet_flits = 4
[grid]
routing = ["dor", "duato"]
rate = [0.1, 0.2, 0.3]
[sweep]
repeats = 2
"""


def test_issue_example_expands_to_the_cartesian_product(tmp_path):
    path = tmp_path / "spec.toml"
    path.write_text(ISSUE_EXAMPLE)
    spec = load_spec(path)
    assert len(spec.points) == 6 and spec.repeats == 2
    pairs = [(p.config.routing, p.config.rate) for p in spec.points]
    assert pairs == [(r, x) for r in ("dor", "duato") for x in (0.1, 0.2, 0.3)]
    for p in spec.points:
        assert p.config.dims == (8, 8) and p.config.packet_flits == 4
    assert spec.varied == ("routing", "rate")
    assert len(list(spec.tasks())) == 12


def test_explicit_points_are_crossed_with_the_grid():
    spec = spec_from_dict({
        "base": {"pattern": "uniform"},
        "points": [{"topology": "torus", "k": 4}, {"topology": "mesh", "dims": "4,2"}, {"topology": "hypercube", "n": 3}],
        "grid": {"rate": [0.1, 0.2]},
    })
    assert [(p.config.topology, p.config.rate) for p in spec.points] == [
        ("torus", 0.1), ("torus", 0.2), ("mesh", 0.1), ("mesh", 0.2), ("hypercube", 0.1), ("hypercube", 0.2)]
    assert spec.points[2].config.dims == (4, 2)


def test_every_config_field_is_sweepable():
    """Grid keys come from dataclasses.fields(Config): options added later are sweepable too."""
    for f in dataclasses.fields(Config):
        if f.name in ("seed", "graph_seed", "trace"):
            continue
        with pytest.raises(ConfigError) as err:
            spec_from_dict({"grid": {f.name: "not a list"}})
        assert "non-empty list" in str(err.value) and f.name in str(err.value)


def test_dashed_names_are_accepted():
    spec = spec_from_dict({"base": {"topology": "torus", "k": 4, "packet-flits": 2}, "grid": {"rate": [0.1]}})
    assert spec.points[0].config.packet_flits == 2


@pytest.mark.parametrize("data,needle", [
    ({"base": {"trace": "x.h5"}}, "[base] trace: output options"),
    ({"base": {"json": True}}, "[base] json: output options"),
    ({"grid": {"quiet": [True]}}, "[grid] quiet: output options"),
    ({"base": {"seed": 3}}, "[base] seed: seeds are set only in [sweep]"),
    ({"grid": {"graph_seed": [1, 2]}}, "[grid] graph_seed: seeds"),
    ({"base": {"ratee": 0.1}}, "[base] ratee: not a netsim-fast run option (did you mean 'rate'?)"),
    ({"grid": {"rate": 0.1}}, "[grid] rate: expected a non-empty list"),
    ({"grid": {"rate": []}}, "[grid] rate: the list is empty; a grid list needs at least one value"),
    ({"base": {"rate": 0.1}, "grid": {"rate": [0.2]}}, "[grid] rate: also set in [base]"),
    ({"base": {"vcs": 4.0}}, "[base] vcs: expected an integer, found 4.0"),
    ({"base": {"check_invariants": "yes"}}, "[base] check_invariants: expected true or false"),
    ({"grid": {"rate": ["fast"]}}, "[grid] rate: expected a number, found 'fast'"),
    ({"sweep": {"repeat": 2}}, "[sweep] repeat: unknown; [sweep] takes repeats, seed, graph_seed (did you mean 'repeats'?)"),
    ({"sweep": {"repeats": 0}}, "[sweep] repeats: expected an integer >= 1"),
    ({"sweep": {"seed": -1}}, "[sweep] seed: expected an integer >= 0"),
    ({"bsae": {}}, "[bsae]: unknown table"),
    ({"points": {"k": 4}}, "[[points]]: expected one or more tables"),
])
def test_spec_errors_name_the_table_and_key(data, needle):
    with pytest.raises(ConfigError) as err:
        spec_from_dict(data)
    assert needle in str(err.value)


def test_an_empty_grid_list_is_called_empty_not_given_a_list_hint(tmp_path):
    # The hint for a scalar ("write rate = [0.1]") would read "write rate = [[]]" here.
    path = tmp_path / "spec.toml"
    path.write_text('[base]\ntopology = "torus"\nk = 4\n[grid]\nrate = []\n')
    with pytest.raises(ConfigError) as err:
        load_spec(path)
    assert str(err.value) == ("spec [grid] rate: the list is empty; a grid list needs at least one value "
                              "(or move rate to [base])")
    assert "[[]]" not in str(err.value)


def test_an_invalid_point_is_named_with_its_values():
    with pytest.raises(ConfigError) as err:
        spec_from_dict({"base": {"topology": "torus", "k": 4}, "grid": {"rate": [0.5, 9.5]}})
    message = str(err.value)
    assert message.startswith("spec point 2 (rate=9.5): --rate 9.5")


def test_duplicate_points_are_rejected():
    with pytest.raises(ConfigError) as err:
        spec_from_dict({"points": [{"topology": "torus", "k": 4}, {"topology": "torus", "dims": "4,4"}]})
    assert "describe the same experiment" in str(err.value)


def test_invalid_toml_names_the_file(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("[grid]\nrate = [0.1,\n")
    with pytest.raises(ConfigError) as err:
        load_spec(path)
    assert "bad.toml" in str(err.value) and "not valid TOML" in str(err.value)
    with pytest.raises(ConfigError, match="cannot be read"):
        load_spec(tmp_path / "missing.toml")


def test_point_ids_ignore_seeds_spelling_and_order():
    a = Config(topology="torus", k=8, rate=0.2, seed=1)
    b = Config(topology="torus", dims="8,8", rate=0.2, seed=99)
    assert point_id(a) == point_id(b)
    graph = dict(topology="rrg", nodes=16, degree=4, rate=0.2)
    assert point_id(Config(**graph, seed=1)) == point_id(Config(**graph, seed=99, graph_seed=5))
    assert point_id(a) != point_id(a.replace(rate=0.3))
    forward = spec_from_dict({"base": {"k": 4}, "grid": {"rate": [0.1, 0.2], "routing": ["dor", "duato"]}})
    backward = spec_from_dict({"base": {"k": 4}, "grid": {"routing": ["duato", "dor"], "rate": [0.2, 0.1]}})
    assert {p.point_id for p in forward.points} == {p.point_id for p in backward.points}
    assert forward.fingerprint == backward.fingerprint


def test_fingerprint_follows_what_results_depend_on():
    base = {"base": {"k": 4}, "grid": {"rate": [0.1, 0.2]}}
    fp = spec_from_dict(base).fingerprint
    assert spec_from_dict({**base, "sweep": {"repeats": 2}}).fingerprint != fp
    assert spec_from_dict({**base, "sweep": {"seed": 7}}).fingerprint != fp
    assert spec_from_dict({"base": {"k": 4, "vcs": 2}, "grid": {"rate": [0.1, 0.2]}}).fingerprint != fp


def test_seeds_come_from_base_seed_and_repeat_alone():
    spec = spec_from_dict({"base": {"k": 4}, "grid": {"rate": [0.1, 0.2, 0.3]}, "sweep": {"repeats": 3, "seed": 42}})
    children = np.random.SeedSequence(42).spawn(3)
    for repeat in range(3):
        expected = int(children[repeat].generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))
        assert spec.seed_of(repeat) == derive_seed(42, repeat) == expected
        seeds = {spec.config_for(p, repeat).seed for p in spec.points}
        assert seeds == {expected}, "common random numbers: one seed per repeat across the grid"
        assert {spec.config_for(p, repeat).graph_seed for p in spec.points} == {None}  # a torus has no graph seed
    assert len({spec.seed_of(r) for r in range(3)}) == 3
    assert all(0 <= spec.seed_of(r) < 2**63 for r in range(3))


def test_fixed_graph_seed_holds_the_graph_across_repeats():
    spec = spec_from_dict({"base": {"topology": "rrg", "nodes": 16, "degree": 4}, "grid": {"rate": [0.1]},
                           "sweep": {"repeats": 2, "graph_seed": 5}})
    cfgs = [spec.config_for(spec.points[0], r) for r in range(2)]
    assert [c.graph_seed for c in cfgs] == [5, 5] and cfgs[0].seed != cfgs[1].seed
    # on a topology that is not random there is no graph seed
    spec = spec_from_dict({"base": {"k": 4}, "grid": {"rate": [0.1]}, "sweep": {"repeats": 2, "graph_seed": 5}})
    assert all(c.graph_seed is None for c in (spec.config_for(spec.points[0], r) for r in range(2)))


@pytest.mark.parametrize("text,as_list,expected", [
    ("topology=torus", False, ("topology", "torus")),
    ("k=8", False, ("k", 8)),
    ("dims=8,8,4", False, ("dims", "8,8,4")),
    ("check_invariants=true", False, ("check_invariants", True)),
    ("rate=0.1,0.2,0.3", True, ("rate", [0.1, 0.2, 0.3])),
    ("routing=dor,duato", True, ("routing", ["dor", "duato"])),
    ('dims=["8,8","4,4,4"]', True, ("dims", ["8,8", "4,4,4"])),
    ("rate=0.5", True, ("rate", [0.5])),
])
def test_command_line_assignments(text, as_list, expected):
    assert parse_assignment(text, "grid" if as_list else "set", as_list) == expected


def test_command_line_tables_override_the_file(tmp_path):
    path = tmp_path / "spec.toml"
    path.write_text(ISSUE_EXAMPLE)
    spec = load_spec(path, base={"rate": 0.05, "k": 4}, grid={"packet_flits": [2, 8]}, sweep={"repeats": 1})
    assert {p.config.rate for p in spec.points} == {0.05}
    assert {p.config.packet_flits for p in spec.points} == {2, 8}
    assert {p.config.dims for p in spec.points} == {(4, 4)}
    assert len(spec.points) == 4 and spec.repeats == 1
    with pytest.raises(ConfigError, match="expected KEY=VALUE"):
        parse_assignment("rate", "set")
