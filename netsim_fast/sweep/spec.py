"""Sweep specs: a grid of validated ``Config`` points, each with stable id and derived seeds.

A spec (TOML, or the same tables built from command-line options) has four tables::

    [base]        run options shared by every point (names of ``netsim-fast run`` options, ``_`` for ``-``)
    [grid]        option = [v1, v2, ...]: the cartesian product of these lists is swept
    [[points]]    optional explicit points (tables of options), each crossed with the grid
    [sweep]       repeats = R, seed = S, optionally graph_seed = G (the only place seeds appear)

Every option name is a field of ``netsim_fast.config.Config`` (read with ``dataclasses.fields``),
so options other helpers add become sweepable without a change here. Every mistake is a
``ConfigError`` that names the table and key (``[grid] rate``) or the point and its values.

Identity and seeds. A point's id is a hash of its validated, normalised configuration without
the seeds and the trace path, so ``--k 8`` and ``--dims 8,8`` are one point and ids survive
reordering the spec. Repeat ``r`` runs with the seed derived from ``(S, r)`` by numpy's
``SeedSequence`` and nothing else: every point of one repeat sees the same random graph and
traffic stream (common random numbers), and a result never depends on the worker or the order.
"""

from __future__ import annotations

import difflib
import hashlib
import itertools
import json
import math
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np

from netsim_fast.config import Config
from netsim_fast.config.files import toml_module
from netsim_fast.errors import ConfigError

TABLES = ("base", "grid", "points", "sweep")
SWEEP_KEYS = ("repeats", "seed", "graph_seed")
# Options of `netsim-fast run` that shape its output, not the experiment.
OUTPUT_ONLY = ("json", "trace", "quiet", "sweep_rates", "plot")
SEED_KEYS = ("seed", "graph_seed")
IDENTITY_EXCLUDED = ("seed", "graph_seed", "trace", "threads", "specialise")  # threads, specialise: same result  # what a point's id ignores
MAX_POINTS = 1_000_000


@dataclass(frozen=True)
class Point:
    """One grid point: its position in the spec, stable id, the options the spec set, the Config.

    ``config`` carries a placeholder seed; ``SweepSpec.config_for(point, repeat)`` gives the run's.
    """

    index: int
    point_id: str
    params: dict
    config: Config


@dataclass(frozen=True)
class SweepSpec:
    """A validated sweep: its points, repeats and seeds, and the tables it was built from."""

    points: tuple[Point, ...]
    repeats: int
    seed: int
    graph_seed: int | None
    tables: dict

    @property
    def fingerprint(self) -> str:
        """Hash of what the results depend on (point ids, repeats, seeds), not of their order."""
        ident = {"points": sorted(p.point_id for p in self.points), "repeats": self.repeats,
                 "seed": self.seed, "graph_seed": self.graph_seed}
        return hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:16]

    @property
    def varied(self) -> tuple[str, ...]:
        """Config fields whose value differs between points (in Config field order)."""
        names = [f.name for f in fields(Config) if f.name not in IDENTITY_EXCLUDED]
        dicts = [p.config.to_dict() for p in self.points]
        return tuple(n for n in names if len({json.dumps(d[n]) for d in dicts}) > 1)

    def seed_of(self, repeat: int) -> int:
        return derive_seed(self.seed, repeat)

    def config_for(self, point: Point, repeat: int) -> Config:
        """The Config of ``point`` in repeat ``repeat`` (its derived seed, the graph seed)."""
        seed = self.seed_of(repeat)
        random_graph = point.config.topology == "rrg"  # graph_seed means nothing elsewhere (Config refuses it)
        fixed = self.graph_seed is not None and random_graph
        return point.config.replace(seed=seed, graph_seed=(self.graph_seed if fixed else seed) if random_graph else None)

    def tasks(self):
        """(point, repeat) pairs, repeat-major so that early rows cover the whole grid."""
        for repeat in range(self.repeats):
            for point in self.points:
                yield point, repeat


def derive_seed(base_seed: int, repeat: int) -> int:
    """The seed of repeat ``repeat``: ``SeedSequence(base_seed, spawn_key=(repeat,))``, 63 bits.

    Equal to the state of ``SeedSequence(base_seed).spawn(R)[repeat]``, so repeats are
    statistically independent streams; the grid point plays no part (common random numbers).
    """
    state = np.random.SeedSequence(base_seed, spawn_key=(repeat,)).generate_state(1, dtype=np.uint64)
    return int(state[0] >> np.uint64(1))


def point_id(cfg: Config) -> str:
    """12 hex digits of the hash of the normalised config without seeds and trace path."""
    ident = {k: v for k, v in cfg.to_dict().items() if k not in IDENTITY_EXCLUDED}
    return hashlib.sha256(json.dumps(ident, sort_keys=True, default=str).encode()).hexdigest()[:12]


# -- reading -----------------------------------------------------------------------------------


def read_spec_file(path) -> dict:
    """The tables of a TOML spec file (no validation yet)."""
    tomllib = toml_module()

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"spec {str(path)!r} cannot be read ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise ConfigError(f"spec {str(path)!r} is not UTF-8 text; a spec is a TOML file") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"spec {str(path)!r} is not valid TOML: {exc}") from None
    except ValueError:  # tomllib's int() of an integer over Python's 4300-digit limit
        raise ConfigError(f"spec {str(path)!r} holds an integer of more than 4300 digits") from None


def load_spec(path=None, *, base: dict | None = None, grid: dict | None = None, sweep: dict | None = None) -> SweepSpec:
    """Read a spec file (optional) and apply command-line tables on top, then validate.

    A key given in ``base`` leaves the file's ``[grid]`` and a key given in ``grid`` leaves the
    file's ``[base]``: the command line wins.
    """
    data = read_spec_file(path) if path is not None else {}
    for name in ("base", "grid", "sweep"):
        if name in data and not isinstance(data[name], dict):
            raise ConfigError(f"spec [{name}]: expected a table, found {data[name]!r}")
    data = {key: (dict(value) if isinstance(value, dict) else value) for key, value in data.items()}
    for key, value in (base or {}).items():
        data.setdefault("base", {})[key] = value
        data.get("grid", {}).pop(key, None)
    for key, value in (grid or {}).items():
        data.setdefault("grid", {})[key] = value
        data.get("base", {}).pop(key, None)
    for key, value in (sweep or {}).items():
        data.setdefault("sweep", {})[key] = value
    return spec_from_dict(data)


def parse_assignment(text: str, option: str, as_list: bool = False) -> tuple[str, object]:
    """``KEY=VALUE`` of ``--set``/``--grid``; VALUE is read as TOML, else as a plain string.

    With ``as_list`` a VALUE that is not a TOML list is split on commas (``rate=0.1,0.2``);
    write a TOML list for values that contain commas (``'dims=["8,8","4,4,4"]'``).
    """
    tomllib = toml_module()

    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ConfigError(f"--{option} {text}: expected KEY=VALUE such as rate=0.1")

    def value_of(item: str):
        try:
            return tomllib.loads(f"v = {item}")["v"]
        except ValueError:  # not TOML (TOMLDecodeError), or an integer of over 4300 digits
            return item.strip()

    value = value_of(raw)
    if as_list and not isinstance(value, list):
        value = [value_of(item) for item in raw.split(",") if item.strip()]
    return key, value


# -- validation --------------------------------------------------------------------------------


def _config_fields() -> dict:
    return {f.name: f for f in fields(Config)}


def _check_key(table: str, key: str, known: dict) -> str:
    name = key.replace("-", "_")
    if name in OUTPUT_ONLY:
        raise ConfigError(f"spec [{table}] {key}: output options do not belong in a spec "
                          "(the sweep writes results.csv; per-point traces come with --traces)")
    if name in SEED_KEYS:
        raise ConfigError(f"spec [{table}] {key}: seeds are set only in [sweep] (seed = S, graph_seed = G); "
                          "each repeat derives its seed from S")
    if name not in known:
        close = difflib.get_close_matches(name, list(known), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ConfigError(f"spec [{table}] {key}: not a netsim-fast run option{hint}")
    return name


_TYPE_WORDS = {
    "int": (int,), "float": (int, float), "str": (str,), "bool": (bool,),
    "tuple": (str, list, tuple, int),  # list-valued options: "8,8,4", [8, 8, 4] or one integer
}


def _check_type(where: str, name: str, value, known: dict) -> None:
    """Reject values whose TOML type the field cannot take (before Config sees them)."""
    annotation = str(known[name].type).replace(" ", "")
    words = [w.split("[")[0] for w in annotation.split("|") if w != "None"]
    if not words or any(w not in _TYPE_WORDS for w in words):
        return  # an annotation this check does not know: leave it to Config
    allowed = tuple(t for w in words for t in _TYPE_WORDS[w])
    ok = isinstance(value, allowed) and not (isinstance(value, bool) and bool not in allowed)
    if not ok:
        expected = " or ".join("a comma-separated string such as \"8,8,4\"" if w == "tuple" else
                               {"int": "an integer", "float": "a number", "str": "a string",
                                "bool": "true or false"}[w] for w in words)
        raise ConfigError(f"spec {where} {name}: expected {expected}, found {value!r}")


def _options(table: str, items: dict, known: dict) -> dict:
    out = {}
    for key, value in items.items():
        name = _check_key(table, key, known)
        if name in out:
            raise ConfigError(f"spec [{table}] {key}: given twice (as {name} too)")
        _check_type(f"[{table}]", name, value, known)
        out[name] = value
    return out


def _grid(items: dict, known: dict) -> dict:
    out = {}
    for key, values in items.items():
        name = _check_key("grid", key, known)
        if isinstance(values, list) and not values:
            raise ConfigError(f"spec [grid] {key}: the list is empty; a grid list needs at least one value "
                              f"(or move {key} to [base])")
        if not isinstance(values, list):
            raise ConfigError(f"spec [grid] {key}: expected a non-empty list of values, found {values!r} "
                              f"(write {key} = [{values!r}] or move it to [base])")
        for value in values:
            _check_type("[grid]", name, value, known)
        out[name] = values
    return out


def _sweep_settings(items: dict) -> tuple[int, int, int | None]:
    for key in items:
        if key not in SWEEP_KEYS:
            close = difflib.get_close_matches(key, SWEEP_KEYS, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(f"spec [sweep] {key}: unknown; [sweep] takes {', '.join(SWEEP_KEYS)}{hint}")
    repeats, seed, graph_seed = items.get("repeats", 1), items.get("seed", 1), items.get("graph_seed")
    for key, value, low in (("repeats", repeats, 1), ("seed", seed, 0), ("graph_seed", graph_seed, 0)):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= 2**63 - 1:
            raise ConfigError(f"spec [sweep] {key}: expected an integer >= {low}, found {value!r}")
    return repeats, seed, graph_seed


def _label(params: dict) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in params.items()) or "the [base] point"


def spec_from_dict(data: dict) -> SweepSpec:
    """Validate spec tables (as read from TOML) into a ``SweepSpec`` of Configs."""
    for key in data:
        if key not in TABLES:
            close = difflib.get_close_matches(key, TABLES, n=1)
            hint = f" (did you mean [{close[0]}]?)" if close else ""
            raise ConfigError(f"spec [{key}]: unknown table; a spec has {', '.join(f'[{t}]' for t in TABLES)}{hint}")
    known = _config_fields()
    base = _options("base", data.get("base", {}), known)
    grid = _grid(data.get("grid", {}), known)
    cases = data.get("points", [{}])
    if not isinstance(cases, list) or not cases or not all(isinstance(c, dict) for c in cases):
        raise ConfigError("spec [[points]]: expected one or more tables, each written [[points]] followed by options")
    cases = [_options(f"[points] #{i + 1}", case, known) for i, case in enumerate(cases)]
    for name in grid:
        if name in base:
            raise ConfigError(f"spec [grid] {name}: also set in [base]; keep it in one of them")
        for i, case in enumerate(cases):
            if name in case:
                raise ConfigError(f"spec [grid] {name}: also set in [[points]] #{i + 1}; keep it in one of them")
    repeats, seed, graph_seed = _sweep_settings(data.get("sweep", {}))
    count = len(cases) * math.prod(len(v) for v in grid.values())
    if count * repeats > MAX_POINTS:
        raise ConfigError(f"spec [grid]: {count} points x {repeats} repeats exceed the limit of {MAX_POINTS} runs")

    points, seen = [], {}
    for case in cases:
        for combo in itertools.product(*grid.values()):
            params = {**case, **dict(zip(grid, combo))}
            try:
                cfg = Config(**{**base, **params, "seed": 0})
            except ConfigError as exc:
                raise ConfigError(f"spec point {len(points) + 1} ({_label(params)}): {exc}") from None
            pid = point_id(cfg)
            if pid in seen:
                raise ConfigError(f"spec points {seen[pid]} and {len(points) + 1} ({_label(params)}) describe the "
                                  "same experiment; remove one")
            seen[pid] = len(points) + 1
            points.append(Point(index=len(points), point_id=pid, params=params, config=cfg))
    tables = {"base": base, "grid": grid, "sweep": {"repeats": repeats, "seed": seed, "graph_seed": graph_seed}}
    if "points" in data:
        tables["points"] = cases
    return SweepSpec(points=tuple(points), repeats=repeats, seed=seed, graph_seed=graph_seed, tables=tables)
