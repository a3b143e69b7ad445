"""Configuration files: ``run --config FILE.toml`` and ``run --save-config FILE.toml``.

A file holds one flat TOML table whose keys are ``Config`` fields (``packet_flits``; the
option spelling ``packet-flits`` is accepted too), the same names a sweep spec uses. Lists
such as ``dims = [8, 8]`` and strings ``"8,8"`` are both read. ``save_config`` writes the
resolved configuration of a run: every field that applies to it, defaults included, and no
field that does not (the packet engine's options on a flit run, the window of an open-loop run
on a finite workload), so ``run --config`` of the saved file repeats the run exactly.
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

from netsim_fast.checks import bad, unknown_choice


def toml_module():
    """tomllib (Python >= 3.11) or its backport tomli, which pyproject requires on 3.10."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: the backport pyproject requires there
        import tomli as tomllib
    return tomllib


def read_config_file(path) -> dict:
    """The ``Config`` fields a TOML file sets (keys checked, values left to ``Config``)."""
    from netsim_fast.config.core import Config

    path = Path(path)
    try:
        data = toml_module().loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise bad("config", str(path), "no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise bad("config", str(path), f"cannot be read as text ({type(exc).__name__})") from None
    except toml_module().TOMLDecodeError as exc:
        raise bad("config", str(path), f"is not valid TOML ({exc})") from None
    except ValueError:  # tomllib's int() of an integer over Python's 4300-digit limit
        raise bad("config", str(path), "holds an integer of more than 4300 digits") from None
    known = {f.name for f in fields(Config)}
    out = {}
    for key, value in data.items():
        name = key.replace("-", "_")
        if isinstance(value, dict):
            raise bad("config", str(path), f"has a table [{key}]; a run's file is one flat table of options")
        if name not in known:
            raise unknown_choice("config key", key, sorted(known))
        out[name] = tuple(value) if isinstance(value, list) else value
    return out


def applicable_fields(cfg) -> dict:
    """The fields of a normalised ``Config`` that apply to its run (None-valued ones do not)."""
    from netsim_fast.config.packet import PACKET_ONLY_OPTIONS
    from netsim_fast.config.router import FLIT_ONLY_OPTIONS
    from netsim_fast.config.run_control import BOOKSIM_MEASUREMENT_OPTIONS
    from netsim_fast.config.workload import OPEN_LOOP_OPTIONS, is_open_loop

    skip = set()
    if cfg.engine != "flit":
        skip |= set(FLIT_ONLY_OPTIONS) | {"router", "vc_alloc", "vc_realloc", "out_buf"}
    else:
        skip |= set(PACKET_ONLY_OPTIONS)
    if not is_open_loop(cfg):
        skip |= set(OPEN_LOOP_OPTIONS)
    elif cfg.cycles is not None:
        skip |= {"warmup", "measure", "drain", "latency_limit", "sample_period", "measurement"}
    if cfg.measurement == "booksim":
        skip |= {"warmup", "measure"}
    else:
        skip |= set(BOOKSIM_MEASUREMENT_OPTIONS)
    if cfg.topology != "rrg":
        skip.add("graph_seed")
    if cfg.routing != "bmg-equiclass":
        skip.add("loops")
    return {k: v for k, v in cfg.to_dict().items() if v is not None and k not in skip}


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'


def save_config(cfg, path) -> Path:
    """Write the fields that apply to ``cfg``'s run as a TOML file ``run --config`` reads."""
    path = Path(path)
    lines = ["# netsim-fast run configuration (run --config FILE to repeat it)"]
    lines += [f"{key} = {_toml_value(value)}" for key, value in applicable_fields(cfg).items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
