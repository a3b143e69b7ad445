"""``run --booksim-config FILE [key=value ...]``: a BookSim2 run as ``Config`` fields.

``config/booksim_file.py`` reads the file and maps BookSim2's keys; this module reads the file
from disk, lays the command-line overrides over it, and turns the mapped keys into ``Config``
fields: the booksim router with BookSim2's defaults, BookSim2's sampled measurement
(``--measurement booksim``: warm-up, sample periods, convergence, latency threshold), its
traffic (a size mix becomes ``--packet-sizes``/``--packet-mix``). Keys with no counterpart are
refused here with the reason, never dropped: ``sim_count`` > 1 (use ``--seeds``),
``include_queuing = 0`` (netsim-fast's latency always includes source queueing;
``network_latency_mean`` is the other figure) and a ``perm_seed`` other than 0 (``randperm``
is drawn from ``seed``).
"""

from __future__ import annotations

from pathlib import Path

from netsim_fast.checks import bad


def booksim_config_fields(path, overrides: list[str] | tuple[str, ...] = ()) -> dict:
    """``Config`` fields of the BookSim2 file at ``path`` with ``key=value`` overrides applied."""
    return read_booksim_run(path, overrides)[0]


def read_booksim_run(path, overrides: list[str] | tuple[str, ...] = ()) -> tuple[dict, list[str]]:
    """The ``Config`` fields, and the keys given that only shape BookSim2's output (ignored)."""
    from netsim_fast.config.booksim_file import classify, merge, parse_booksim, parse_overrides, to_config_fields

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise bad("booksim-config", str(path), "no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise bad("booksim-config", str(path), f"cannot be read as text ({type(exc).__name__})") from None
    parsed = merge(parse_booksim(text, str(path)), parse_overrides(list(overrides)))
    mapped = to_config_fields(parsed)
    sim_count = mapped.pop("sim_count", 1)
    if sim_count != 1:
        raise bad("booksim-config", f"sim_count = {sim_count}",
                  "netsim-fast runs one simulation per seed: use sim_count = 1 and --seeds N for repeated runs")
    if not mapped.pop("include_queuing", True):
        raise bad("booksim-config", "include_queuing = 0",
                  "netsim-fast's latency always includes source queueing (network_latency_mean leaves it out)")
    perm_seed = mapped.pop("perm_seed", 0)
    if perm_seed != 0:
        raise bad("booksim-config", f"perm_seed = {perm_seed}", "randperm is drawn from seed in netsim-fast; "
                  "remove perm_seed and set seed")
    mix = mapped.pop("packet_size_mix", None)
    if mix is not None:
        mapped["packet_sizes"] = tuple(size for size, _ in mix)
        mapped["packet_mix"] = tuple(float(weight) for _, weight in mix)
    if mapped["sim_type"] == "batch":  # run to completion: no sampled measurement
        for key in BATCH_DROPS:
            mapped.pop(key, None)
    else:
        mapped["measurement"] = "booksim"
    return mapped, classify(parsed)[1]


# The sampled measurement's keys, which BookSim2's batch mode does not read either.
BATCH_DROPS = ("sim_type", "warmup_periods", "sample_period", "max_samples", "warmup_thres", "acc_warmup_thres",
               "stopping_thres", "acc_stopping_thres", "latency_limit")
