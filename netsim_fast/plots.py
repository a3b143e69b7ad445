"""The standard pictures of a run's trace or a sweep's results (matplotlib, Agg backend).

``plot_path(path)`` recognises what ``path`` holds by content, not by name: an HDF5 file (its
signature) is a trace; a folder with ``results.csv``/``results.parquet``, a CSV whose header has
``point_id`` and ``status``, or a parquet file is a sweep.

- trace: offered and accepted load over time (measurement window shaded), link utilisation and
  flits in flight over time, and the latency histogram of the measured packets;
- sweep: latency vs offered load and accepted vs offered load, one line per combination of the
  other swept parameters (colour = ``hue``, default the routing), saturated points marked with
  ``x`` at the top of the latency panel because their latency is unbounded (null in the table),
  failed runs that still report their offered load (a deadlock) marked ``+`` there too;
- sweep with ``x`` and ``y``: any metric or parameter against any other, mean over repeats with
  the standard deviation as error bars.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import numpy as np

from netsim_fast.errors import ConfigError

HDF5_MAGIC = b"\x89HDF\r\n\x1a\n"
TRACE_MARK = b"netsim-fast trace\n"  # the user block of a trace (trace/writer.py), before its HDF5
PARQUET_MAGIC = b"PAR1"
_IGNORED = ("seed", "graph_seed", "trace")  # parameters that vary without defining a curve
_STYLES = ["-", "--", ":", "-."]
_MARKERS = ["o", "s", "^", "D", "v", "P"]


def detect(path) -> tuple[str, Path]:
    """``("trace", file)`` or ``("sweep", file)`` for what ``path`` holds; ConfigError otherwise."""
    path = Path(path)
    if path.is_dir():
        for name in ("results.csv", "results.parquet"):
            if (path / name).exists():
                return "sweep", path / name
        raise ConfigError(f"plot {str(path)!r}: a folder, but without results.csv of a sweep")
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError as exc:
        raise ConfigError(f"plot {str(path)!r}: cannot be read ({exc.strerror or exc})") from None
    if head.startswith(HDF5_MAGIC) or head.startswith(TRACE_MARK):
        return "trace", path
    if head.startswith(PARQUET_MAGIC):
        return "sweep", path
    first = head.split(b"\n", 1)[0].decode("utf-8", "replace").split(",")
    if "point_id" in first and "status" in head.decode("utf-8", "replace"):
        return "sweep", path
    raise ConfigError(f"plot {str(path)!r}: neither a netsim-fast trace (HDF5) nor sweep results "
                      "(a folder or CSV with point_id and status columns)")


# What ``save`` writes by the file name's suffix (matplotlib's Agg formats that need nothing more).
IMAGE_FORMATS = ("png", "pdf", "svg", "svgz", "eps", "ps", "jpg", "jpeg", "tif", "tiff", "webp")


def check_image_path(option: str, path) -> str:
    """``path`` once it is known that a picture can be written there: a writable file whose
    suffix names a format ``save`` writes (matplotlib would refuse another after the work,
    and append ``.png`` to a name without one)."""
    from netsim_fast.checks import bad, check_writable_file

    path = check_writable_file(option, path)
    if Path(path).suffix.lower().lstrip(".") not in IMAGE_FORMATS:
        others = ", ".join(f".{f}" for f in IMAGE_FORMATS[1:])
        raise bad(option, path, f"give a file name ending in .png (or {others})")
    return path


def plot_path(path, *, out=None, x: str | None = None, y: str | None = None, hue: str | None = None) -> Path:
    """Draw the standard picture of ``path`` (trace or sweep) and return the PNG written."""
    from netsim_fast.checks import bad

    if not str(path).strip():
        raise ConfigError("plot '': expected a trace file, or a sweep's folder or results.csv")
    for option, value in (("x", x), ("y", y), ("hue", hue)):
        if value is not None and not str(value).strip():
            raise bad(option, value, "expected a column name of the sweep's results")
    if out is not None:
        check_image_path("out", out)
    kind, source = detect(path)
    if (x is None) != (y is None):
        raise ConfigError("plot: give --x and --y together (a metric against a parameter or metric)")
    if kind == "trace":
        if x is not None or hue is not None:
            raise ConfigError("plot: --x/--y/--hue apply to sweep results, not to a trace")
        from netsim_fast.trace import open_trace

        target = _target(out, source.with_suffix(".png"))
        return save(draw_trace(open_trace(source)), target)
    from netsim_fast.sweep.table import load_results

    folder = source.parent
    target = _target(out, folder / ("latency_load.png" if x is None else f"{y}_vs_{x}.png"))
    frame = load_results(source)
    if x is None:
        return save(draw_sweep(frame, hue=hue), target)
    return save(draw_metric(frame, x, y, hue=hue), target)


def _target(out, default: Path) -> Path:
    """``--out``, or the default beside the input once it is known to be writable."""
    if out is not None:
        return Path(out)
    from netsim_fast.checks import check_writable_file

    try:
        check_writable_file("out", default)
    except ConfigError:
        raise ConfigError(f"plot: cannot write {default} beside the input; give --out FILE.png") from None
    return default


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save(fig, out: Path) -> Path:
    """Write ``fig`` as a PNG at ``out`` and close it."""
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    _pyplot().close(fig)
    return out


# -- traces ---------------------------------------------------------------------------------------


def _node_count(trace) -> int:
    cfg = trace.config
    if cfg.get("dims"):
        return int(np.prod([int(v) for v in str(cfg["dims"]).split(",")]))
    if cfg.get("nodes"):
        return int(cfg["nodes"])
    links = trace.arrays("links")
    return int(max(links["src"].max(initial=0), links["dst"].max(initial=0)) + 1)


def draw_trace(trace):
    """Loads and utilisation over time and the latency histogram of one run."""
    plt = _pyplot()
    ts, pk = trace.arrays("timeseries"), trace.arrays("packets")
    n, w = _node_count(trace), trace.window_cycles
    window = trace.summary.get("measure_window")
    fig, (ax_load, ax_util, ax_hist) = plt.subplots(3, 1, figsize=(7, 9))
    cycle = ts["cycle"]
    for name, label in (("injected_flits", "injected"), ("accepted_flits", "accepted")):
        if name in ts:
            ax_load.plot(cycle, ts[name] / (n * w), label=label, lw=1)
    if trace.config.get("rate") is not None:
        ax_load.axhline(float(trace.config["rate"]), color="gray", ls=":", lw=1, label="offered rate")
    if window:
        ax_load.axvspan(window[0], window[1], color="tab:green", alpha=0.08, label="measurement window")
    ax_load.set(xlabel="cycle", ylabel="flits/node/cycle", title=f"{trace.path.name}: load over time")
    ax_load.legend(fontsize="small")

    util = ts.get("link_utilization")
    if util is not None:
        ax_util.plot(cycle, util, color="tab:purple", lw=1, label="link utilisation")
    ax_util.set(xlabel="cycle", ylabel="fraction of links busy")
    if "in_flight" in ts:
        twin = ax_util.twinx()
        twin.plot(cycle, ts["in_flight"], color="tab:orange", lw=1, label="flits in flight")
        twin.set_ylabel("flits in flight")
        twin.legend(loc="upper right", fontsize="small")
    ax_util.legend(loc="upper left", fontsize="small")

    delivered = pk["tail_arrival_cycle"] >= 0
    what = "delivered packets"
    if window:
        delivered &= (pk["created_cycle"] >= window[0]) & (pk["created_cycle"] < window[1])
        what = "packets of the measurement window"
    latency = (pk["tail_arrival_cycle"] - pk["created_cycle"])[delivered]
    if latency.size:
        bins = np.histogram_bin_edges(latency, bins=min(60, max(1, int(latency.max() - latency.min()) + 1)))
        if "class" in pk:  # traffic classes (schema 5): one histogram and mean per class
            _class_histograms(ax_hist, latency, pk["class"][delivered], bins, trace.config.get("class_priority"))
        else:
            ax_hist.hist(latency, bins=bins, color="tab:blue")
            ax_hist.axvline(latency.mean(), color="k", ls="--", lw=1, label=f"mean {latency.mean():.1f}")
        ax_hist.legend(fontsize="small")
    ax_hist.set(xlabel="latency (cycles, creation to tail delivery)", ylabel="packets",
                title=f"latency of {latency.size} {what}")
    return fig


def _class_histograms(ax, latency, cls, bins, priorities) -> None:
    """Overlaid latency histograms of the traffic classes, each with its mean."""
    pri = [int(x) for x in str(priorities).split(",")] if priorities else None
    for c in np.unique(cls):
        mine = latency[cls == c]
        color = f"C{int(c) % 10}"
        label = f"class {int(c)}" + (f" (priority {pri[c]})" if pri and c < len(pri) else "")
        ax.hist(mine, bins=bins, color=color, alpha=0.5, label=f"{label}: {mine.size} packets")
        ax.axvline(mine.mean(), color=color, ls="--", lw=1, label=f"{label} mean {mine.mean():.1f}")


# -- sweeps ---------------------------------------------------------------------------------------


def _column(frame, name: str, option: str) -> str:
    if name not in frame.columns:
        close = difflib.get_close_matches(name, list(frame.columns), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ConfigError(f"--{option} {name}: not a column of the sweep's results{hint}")
    return name


def _is_number(value) -> bool:
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def _numbers(frame, names, option: str) -> None:
    """Refuse a damaged table: a plotted column must hold numbers, and no infinity (NaN is a
    missing value, e.g. the latency of a saturated run, and is left out of the lines)."""
    for name in names:
        column = frame[name]
        if not _numeric(column):
            shown = next((v for v in column if not _is_number(v)), None)
            raise ConfigError(f"--{option} {name}: the column holds values that are not numbers (such as {shown!r}); "
                              "is the results table damaged?")
        if np.isinf(column.to_numpy(dtype=float)).any():
            raise ConfigError(f"--{option} {name}: the column holds an infinite value; is the results table damaged?")


def _ok_rows(frame):
    if "status" in frame.columns:
        frame = frame[frame["status"] == "ok"]
    if frame.empty:
        raise ConfigError("plot: the sweep has no successful runs to draw")
    return frame


def _failed_rows(frame):
    """Failed or timed-out rows that still know their offered load (a deadlocked run's summary)."""
    if "status" not in frame.columns:
        return frame.iloc[:0]
    return frame[(frame["status"] != "ok") & frame["offered_load"].notna()]


def varied_parameters(frame) -> list[str]:
    """Config columns whose value differs between the rows (seeds and trace paths aside)."""
    from netsim_fast.sweep.table import config_columns

    names = [c for c in config_columns() if c in frame.columns and c not in _IGNORED]
    return [c for c in names if frame[c].astype(str).nunique() > 1]


def _numeric(series) -> bool:
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    return is_numeric_dtype(series) and not is_bool_dtype(series)


def _per_point(frame, y_columns):
    """One row per point: parameters, the mean (and std) of numeric columns over repeats."""
    frame = frame.copy()
    key = "point_id" if "point_id" in frame.columns else None
    if "saturated" in frame.columns:
        frame["saturated"] = frame["saturated"].map({True: 1.0, False: 0.0, "True": 1.0, "False": 0.0})
    if key is None:
        return frame
    from netsim_fast.sweep.table import lead_columns

    params = set(lead_columns())  # constant within a point (seed aside): kept, not averaged
    numeric = [c for c in frame.columns if c not in params and _numeric(frame[c])]
    means = frame.groupby(key)[numeric].mean()
    stds = frame.groupby(key)[[c for c in y_columns if c in numeric]].std(ddof=1).add_suffix("_std")
    firsts = frame.groupby(key)[[c for c in frame.columns if c not in numeric and c != key]].first()
    return firsts.join(means).join(stds).reset_index()


def _curves(points, x: str, params: list[str], hue: str | None):
    """Yield (label, colour, style, marker, rows sorted by x) per combination of ``params``."""
    plt = _pyplot()
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    others = [p for p in params if p != hue]
    hue_values = sorted(points[hue].astype(str).unique()) if hue else [None]
    other_values = sorted({tuple(str(v) for v in row) for row in points[others].itertuples(index=False)}) if others else [()]
    groups = points.groupby([*([hue] if hue else []), *others], dropna=False, sort=True) if params else [((), points)]
    for keys, rows in groups:
        keys = keys if isinstance(keys, tuple) else (keys,)
        values = dict(zip([*([hue] if hue else []), *others], keys))
        colour = colours[hue_values.index(str(values[hue])) % len(colours)] if hue else colours[0]
        style_index = other_values.index(tuple(str(values[o]) for o in others)) if others else 0
        label = ", ".join(f"{k}={v}" for k, v in values.items()) or None
        yield (label, colour, _STYLES[style_index % len(_STYLES)], _MARKERS[style_index % len(_MARKERS)],
               rows.sort_values(x))


def _default_hue(params: list[str]) -> str | None:
    return "routing" if "routing" in params else (params[0] if params else None)


def draw_sweep(frame, hue: str | None = None):
    """Latency vs offered load (saturation marked) and accepted vs offered load, per curve."""
    for name in ("rate", "offered_load", "accepted_load", "latency_mean"):
        _column(frame, name, "y" if name != "rate" else "x")
        _numbers(frame, [name], "y" if name != "rate" else "x")
    failed = _failed_rows(frame)
    frame = _ok_rows(frame)
    params = varied_parameters(frame)
    if "rate" not in params:
        raise ConfigError("plot: this sweep does not vary rate, so there is no load curve; "
                          "draw one metric against a parameter with --x PARAM --y METRIC")
    if hue is not None:
        _column(frame, hue, "hue")
    curves = [p for p in params if p != "rate"]
    hue = hue if hue is not None else _default_hue(curves)
    if hue is not None and hue not in curves:
        curves.insert(0, hue)
    points = _per_point(frame, ["latency_mean", "accepted_load"])
    plt = _pyplot()
    fig, (ax_lat, ax_acc) = plt.subplots(1, 2, figsize=(12, 4.8))
    if len(failed):
        ax_lat.scatter(failed["offered_load"], np.full(len(failed), 0.97), marker="+", s=70, color="k",
                       transform=ax_lat.get_xaxis_transform(), clip_on=False, label="failed run (see results.csv)")
    marked = False
    top = ax_lat.get_xaxis_transform()
    for label, colour, style, marker, rows in _curves(points, "offered_load", curves, hue):
        sat = rows["saturated"].fillna(0) > 0 if "saturated" in rows else np.zeros(len(rows), bool)
        fine = rows[~sat & rows["latency_mean"].notna()]
        ax_lat.plot(fine["offered_load"], fine["latency_mean"], ls=style, marker=marker, color=colour, label=label)
        ax_acc.plot(rows["offered_load"], rows["accepted_load"], ls=style, marker=marker, color=colour, label=label)
        if sat.any():
            over = rows[sat]
            ax_lat.scatter(over["offered_load"], np.full(len(over), 0.97), marker="x", color=colour, transform=top,
                           clip_on=False)
            if not marked:  # one neutral legend entry for the marks of every curve
                ax_lat.scatter([], [], marker="x", color="k", label="saturated (latency unbounded)")
            ax_lat.axvline(over["offered_load"].min(), color=colour, ls=":", lw=1)
            ax_acc.scatter(over["offered_load"], over["accepted_load"], marker="x", s=60, color=colour, zorder=3)
            marked = True
    lim = float(np.nanmax(points["offered_load"])) if len(points) else 1.0
    ax_acc.plot([0, lim], [0, lim], color="gray", ls="--", lw=1, label="accepted = offered")
    ax_lat.set(xlabel="offered load (flits/node/cycle)", ylabel="mean latency (cycles)", title="latency vs offered load")
    ax_acc.set(xlabel="offered load (flits/node/cycle)", ylabel="accepted load (flits/node/cycle)",
               title="accepted vs offered load (x = saturated)")
    if ax_lat.get_legend_handles_labels()[0]:  # one unlabelled curve: no legend, and no warning on stderr
        ax_lat.legend(fontsize="small")
    ax_acc.legend(fontsize="small")
    return fig


def draw_metric(frame, x: str, y: str, hue: str | None = None):
    """``y`` against ``x`` (any columns), one curve per combination of the other swept parameters."""
    _column(frame, x, "x")
    _column(frame, y, "y")
    if hue is not None:
        _column(frame, hue, "hue")
    frame = _ok_rows(frame)
    points = _per_point(frame, [y])
    if not _numeric(points[y]):
        raise ConfigError(f"--y {y}: not a numeric column (found values such as {points[y].iloc[0]!r})")
    _numbers(points, [y], "y")
    if _numeric(points[x]):
        _numbers(points, [x], "x")
    curves = [p for p in varied_parameters(frame) if p != x]
    hue = hue if hue is not None else _default_hue(curves)
    if hue is not None and hue not in curves:
        curves.insert(0, hue)
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.8))
    for label, colour, style, marker, rows in _curves(points, x, curves, hue):
        xs = rows[x] if _numeric(rows[x]) else rows[x].astype(str)
        err = rows.get(f"{y}_std")
        ax.errorbar(xs, rows[y], yerr=None if err is None or err.isna().all() else err, ls=style, marker=marker,
                    color=colour, label=label, capsize=3)
    ax.set(xlabel=x, ylabel=y, title=f"{y} vs {x}" + (" (mean ± std over repeats)" if points.get(f"{y}_std") is not None
                                                      and points[f"{y}_std"].notna().any() else ""))
    if curves:
        ax.legend(fontsize="small")
    return fig
