"""The results table of a sweep: ``results.csv``, one row per (point, repeat), appended as runs finish.

Columns: ``point_id``, ``repeat``, ``seed``, every ``Config`` field (same names as the run
options), every metric of ``netsim-fast run --json``, then ``worker``, ``wall_seconds``,
``status`` (ok, failed, timeout) and ``error``. A metric whose name is also a config field gets
the prefix ``sim_`` (``cycles`` simulated becomes ``sim_cycles``; the config's ``cycles`` stays
the option; the summary's ``error`` is the row's ``error``); ``per_class`` (traffic classes)
becomes the columns ``class<c>_<figure>``. Nested metrics (``latency_histogram``, ``measure_window``) are stored as JSON text
in their cell, so nothing is lost and the column set does not depend on the run.

Durability: every row is one line (text cells never hold a newline), written and flushed as it
arrives. A crash can leave at most a partial last line; readers drop a last line that lacks its
newline. When a row brings metrics the header lacks (another workload's extras), the file is
rewritten under a new header (temporary file, then rename) and appending resumes.
"""

from __future__ import annotations

import csv
import json
import math
import os
from dataclasses import fields
from pathlib import Path

from netsim_fast.config import Config

RESULTS_NAME = "results.csv"
META_NAME = "sweep.json"
KEY_COLUMNS = ("point_id", "repeat", "seed")
TAIL_COLUMNS = ("worker", "wall_seconds", "status", "error")
STATUSES = ("ok", "failed", "timeout")


def config_columns() -> list[str]:
    return [f.name for f in fields(Config) if f.name != "seed"]


def lead_columns() -> list[str]:
    return [*KEY_COLUMNS, *config_columns()]


def given_values(config: dict, params: dict) -> dict:
    """``config`` (``Config.to_dict()``) with the values the spec gave where normalisation left
    None: ``k = 16`` on a torus becomes ``dims = 16,16`` and ``k = None`` in the Config, but a
    sweep over ``k`` needs its ``k`` column."""
    out = dict(config)
    for key, value in params.items():
        if out.get(key) is None and value is not None:
            out[key] = ",".join(map(str, value)) if isinstance(value, (list, tuple)) else value
    return out


def make_row(*, point_id: str, repeat: int, config: dict, metrics: dict, worker: str, wall_seconds: float,
             status: str, error: str | None) -> dict:
    """One table row from a run's config dict (``Config.to_dict()``) and summary."""
    taken = set(config) | set(KEY_COLUMNS) | set(TAIL_COLUMNS)
    row = {"point_id": point_id, "repeat": repeat, "seed": config.get("seed")}
    row.update({k: v for k, v in config.items() if k != "seed"})
    for key, value in metrics.items():
        if key == "error":
            continue  # the summary's own error message: the row's error column records it
        if key == "per_class" and isinstance(value, list):  # traffic classes: plottable columns
            row.update(class_columns(value))
            continue
        row[f"sim_{key}" if key in taken else key] = value
    row.update(worker=worker, wall_seconds=wall_seconds, status=status, error=error)
    return row


def class_columns(per_class: list[dict]) -> dict:
    """``per_class`` of a summary as flat columns ``class<c>_<figure>`` (``class1_latency_mean``),
    so that ``netsim-fast plot DIR --y class1_latency_mean`` draws a class's curve; the class's
    BookSim2 block stays in the run's own output."""
    return {f"class{entry['class']}_{key}": value for entry in per_class for key, value in entry.items()
            if key not in ("class", "booksim_stats")}


def _cell(value) -> str:
    import numpy as np

    if value is None:
        return ""
    if isinstance(value, (bool, np.bool_)):
        return "True" if value else "False"
    if isinstance(value, (float, np.floating)):
        return repr(float(value)) if math.isfinite(value) else ""
    if isinstance(value, np.integer):
        return str(int(value))
    if isinstance(value, (dict, list, tuple, np.ndarray)):
        from netsim_fast.jsonable import jsonable

        return json.dumps(jsonable(value), separators=(",", ":"))
    return " ".join(str(value).splitlines())


def read_rows(path) -> tuple[list[str], list[dict], bool]:
    """Header, complete rows (dicts of strings) and whether a partial last line was dropped."""
    path = Path(path)
    data = path.read_bytes() if path.exists() else b""
    partial = bool(data) and not data.endswith(b"\n")
    if partial:  # cut in bytes: a kill may have split a multi-byte character of the last line
        data = data[: data.rfind(b"\n") + 1]
    text = data.decode("utf-8", errors="replace")
    lines = text.splitlines()
    if not lines:
        return [], [], partial
    try:
        reader = csv.reader(lines)
        header = next(reader)
        rows = [dict(zip(header, values)) for values in reader if len(values) == len(header)]
    except csv.Error as exc:  # a cell over csv's field limit, a NUL byte: not a table this package wrote
        from netsim_fast.errors import ConfigError

        raise ConfigError(f"{path} is not a results table netsim-fast can read ({exc})") from None
    return header, rows, partial


def merged_columns(columns: list[str], keys) -> list[str]:
    """``columns`` plus the new ``keys``, new ones placed before the tail columns."""
    body = [c for c in columns if c not in TAIL_COLUMNS]
    body += [k for k in keys if k not in body and k not in TAIL_COLUMNS]
    return body + list(TAIL_COLUMNS)


class ResultsWriter:
    """Append rows to ``results.csv``, one flushed line per row; extends the header when needed."""

    def __init__(self, path, rows: list[dict] | None = None, columns: list[str] | None = None):
        self.path = Path(path)
        self.columns = merged_columns(columns or lead_columns(), lead_columns())
        self._handle = None
        self._rewrite(rows or [])

    def _rewrite(self, rows: list[dict]) -> None:
        """Write header and ``rows`` to a temporary file and rename it over the table."""
        if self._handle is not None:
            self._handle.close()
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        with open(tmp, "w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh, lineterminator="\n")
            writer.writerow(self.columns)
            for row in rows:
                writer.writerow([row.get(c, "") for c in self.columns])
        os.replace(tmp, self.path)
        self._handle = open(self.path, "a", newline="", encoding="utf-8")
        self._writer = csv.writer(self._handle, lineterminator="\n")

    def write(self, row: dict) -> None:
        cells = {key: _cell(value) for key, value in row.items()}
        if any(key not in self.columns for key in cells):
            _, rows, _ = read_rows(self.path)
            self.columns = merged_columns(self.columns, cells)
            self._rewrite(rows)
        self._writer.writerow([cells.get(c, "") for c in self.columns])
        self._handle.flush()

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def load_results(path):
    """The results of a sweep (its folder, ``results.csv`` or ``results.parquet``) as a DataFrame.

    Rows are typed by pandas; a partial last line is ignored; when a (point, repeat) appears more
    than once the last row wins. Nested metrics stay JSON text.
    """
    import io

    import pandas as pd

    from netsim_fast.errors import ConfigError

    path = Path(path)
    if path.is_dir():
        path = path / RESULTS_NAME if (path / RESULTS_NAME).exists() else path / "results.parquet"
    try:
        with open(path, "rb") as fh:
            parquet = fh.read(4) == b"PAR1"  # by content, as the plot command recognises it
    except OSError as exc:
        raise ConfigError(f"results {str(path)!r} cannot be read ({exc.strerror or exc})") from None
    try:
        if parquet or path.suffix == ".parquet":
            frame = pd.read_parquet(path)
        else:
            header, rows, _ = read_rows(path)
            if not header:
                raise ConfigError(f"results {str(path)!r} hold no complete line (not even a header)")
            buffer = io.StringIO()
            writer = csv.writer(buffer, lineterminator="\n")
            writer.writerow(header)
            writer.writerows([r[c] for c in header] for r in rows)
            buffer.seek(0)
            text_columns = {c: str for c in ("point_id", "worker", "status", "error") if c in header}
            frame = pd.read_csv(buffer, dtype=text_columns)
    except ConfigError:
        raise
    except (ValueError, OSError, ImportError) as exc:  # pandas' and pyarrow's errors of a damaged table
        reason = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
        raise ConfigError(f"results {str(path)!r} cannot be read as a sweep's table ({reason})") from None
    if {"point_id", "repeat"} <= set(frame.columns):
        frame = frame.drop_duplicates(["point_id", "repeat"], keep="last").reset_index(drop=True)
    return frame
