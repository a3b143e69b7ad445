"""Read a trace back: ``netsim_fast.open_trace("run.h5")`` gives numpy and pandas views."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from netsim_fast.errors import ConfigError


HDF5_MAGIC = b"\x89HDF\r\n\x1a\n"


def _check_sealed(path: Path) -> None:
    """Refuse a file whose content digest (``writer.py``) does not match before HDF5 reads it.

    Traces written before the digest (HDF5 signature at byte 0) are read unchecked."""
    from netsim_fast.trace.writer import MARK, USERBLOCK, content_digest

    try:
        with open(path, "rb") as fh:
            head = fh.read(USERBLOCK)
    except OSError as exc:
        raise ConfigError(f"trace {str(path)!r} cannot be read ({exc.strerror or exc})") from None
    if head.startswith(HDF5_MAGIC):
        return  # written before the digest
    if not head.startswith(MARK):
        raise ConfigError(f"trace {str(path)!r} is not a netsim-fast trace (no trace mark, no HDF5 signature)")
    stored = head[len(MARK):len(MARK) + 64].decode("ascii", "replace")
    if len(head) < USERBLOCK or stored != content_digest(path):
        raise ConfigError(f"trace {str(path)!r} is damaged: its content does not match the digest written with it "
                          "(changed or cut after it was written)")


class Trace:
    """A loaded trace. ``packets``, ``timeseries`` and ``links`` are pandas DataFrames;
    ``arrays(group)`` gives the raw numpy columns; ``config`` and ``summary`` are dicts."""

    def __init__(self, path):
        import h5py

        self.path = Path(path)
        _check_sealed(self.path)
        try:
            h5 = h5py.File(self.path, "r")
        except (OSError, FileNotFoundError) as exc:
            raise ConfigError(f"trace {str(self.path)!r} cannot be opened as HDF5 ({exc})") from None
        with h5:
            try:
                if "schema_version" not in h5.attrs:
                    raise ConfigError(f"trace {str(self.path)!r} is not a netsim-fast trace (no schema_version)")
                self._load(h5)
            except ConfigError:
                raise
            except (KeyError, ValueError, TypeError, OSError, RuntimeError) as exc:
                # a damaged file: HDF5 that opens but lacks or garbles what a trace holds
                reason = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
                raise ConfigError(f"trace {str(self.path)!r} is damaged or not a netsim-fast trace ({reason})") from None

    def _load(self, h5) -> None:
        self.schema_version = int(h5.attrs["schema_version"])
        self.engine = str(h5.attrs["engine"])
        self.config = json.loads(h5.attrs["config"])
        self.summary = json.loads(h5.attrs["summary"])
        self.window_cycles = int(h5["timeseries"].attrs["window_cycles"])
        self.timing = {k: float(v) for k, v in h5["timing"].attrs.items()}
        self._groups = {name: {col: h5[name][col][()] for col in h5[name].keys()} if name in h5 else {}
                        for name in ("packets", "timeseries", "links", "nodes")}

    def arrays(self, group: str) -> dict[str, np.ndarray]:
        return self._groups[group]

    def _frame(self, group):
        import pandas as pd

        return pd.DataFrame(self._groups[group])

    @property
    def packets(self):
        return self._frame("packets")

    @property
    def timeseries(self):
        return self._frame("timeseries")

    @property
    def links(self):
        return self._frame("links")

    @property
    def nodes(self):
        """Per-node accepted and injected traffic in the measurement window (schema >= 2)."""
        return self._frame("nodes")

    def __repr__(self) -> str:
        n = len(next(iter(self._groups["packets"].values()), []))
        return f"Trace({str(self.path)!r}, engine={self.engine!r}, packets={n})"


def open_trace(path) -> Trace:
    return Trace(path)
