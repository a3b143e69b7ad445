"""Write a run's trace to HDF5, atomically: a temporary file renamed into place when complete.

Layout (schema version 6; version 5 had no request-reply traffic (``closed_loop`` and its
options in ``config``, ``kind`` and ``request_created_cycle`` in ``/packets``), version 4 had no traffic classes (``classes``, ``class_mix``,
``class_priority`` in ``config``, ``class`` in ``/packets``), version 3 no ``concentration`` in
``config`` and one terminal per router, version 2 no ``flit_gap_sum``, version 1 no ``/nodes``
and fewer summary keys):

- ``/`` attributes: ``schema_version``, ``netsim_fast_version``, ``engine``, ``config`` (JSON of
  the full Config), ``seed``, ``summary`` (JSON of the run's summary without wall-clock figures)
- ``/packets``: one column per field (``src``, ``dst``, ``size_flits``, ``created_cycle``,
  ``injected_cycle``, ``head_arrival_cycle``, ``tail_arrival_cycle``, ``hops``; the flit engine adds
  ``flit_gap_sum``, the cycles each flit arrived after the head, summed over the packet's flits:
  its flits' mean latency is ``head_arrival_cycle - created_cycle + flit_gap_sum / size_flits``;
  with ``--classes`` > 1 also ``class``, each packet's traffic class; with ``--closed-loop`` also
  ``kind``, 1 a read request, 2 a write request, 3 a read reply, 4 a write reply, and
  ``request_created_cycle``, the creation cycle of the packet's request, its own for a
  request); -1 = did not happen
- ``/timeseries`` (attribute ``window_cycles``): ``cycle`` (window start), ``injected_flits``,
  ``accepted_flits``, ``active_links`` (mean links busy per cycle), ``link_utilization``
  (fraction of directed links busy), ``in_flight``, ``source_queue``
- ``/links``: ``src``, ``dst``, ``port``, ``flits`` per directed link
- ``/nodes``: per node (terminal: ``config.concentration`` per router, terminal ``t`` on router
  ``t // concentration``; ``/packets``' ``src`` and ``dst`` are terminals too), ``accepted`` and ``injected`` (flits, or packets on the packet engine)
  over the measurement window (the whole run for finite workloads): what the summary's
  ``accepted_min``, ``accepted_max`` and ``fairness_jain`` are computed from
- ``/timing`` attributes: wall-clock figures, kept apart so determinism checks can skip them

The HDF5 file starts after a 512-byte user block (HDF5 finds its signature there by itself, so
h5py and other HDF5 tools open the file as usual) that holds ``netsim-fast trace``, the BLAKE2b
digest of every byte after the block, and zero padding. The reader checks the digest before
HDF5 parses anything: the HDF5 library can loop forever (in C, deaf to signals) on a damaged
file, so a file changed or cut after it was written is refused instead of handed to it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

SCHEMA_VERSION = 6
_COMPRESS = dict(compression="gzip", compression_opts=4, shuffle=True)
USERBLOCK = 512
MARK = b"netsim-fast trace\nblake2b-256 "  # then 64 hex digits and a newline


def content_digest(path, offset: int = USERBLOCK) -> str:
    """Hex BLAKE2b-256 of the bytes of ``path`` from ``offset`` on (read in chunks)."""
    import hashlib

    digest = hashlib.blake2b(digest_size=32)
    with open(path, "rb") as fh:
        fh.seek(offset)
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _seal(path: Path) -> None:
    """Write the mark and the digest of the HDF5 content into the user block."""
    block = MARK + content_digest(path).encode() + b"\n"
    with open(path, "r+b") as fh:
        fh.write(block.ljust(USERBLOCK, b"\0"))


def _column(group, name, values) -> None:
    values = np.ascontiguousarray(values)
    if values.size >= 1024:
        group.create_dataset(name, data=values, chunks=True, **_COMPRESS)
    else:
        group.create_dataset(name, data=values)


def remove_stale_temporaries(path: Path) -> list[Path]:
    """Delete temporaries of ``path`` left by writers that died (killed mid-write): their name
    carries the writer's process id, and no such process runs any more. Returns what it removed."""
    removed = []
    for tmp in path.parent.glob(f".{path.name}.*.tmp"):
        pid_text = tmp.name[len(path.name) + 2:-len(".tmp")]
        if not pid_text.isdigit():
            continue
        try:
            os.kill(int(pid_text), 0)
        except ProcessLookupError:  # the writer is gone: its file can never be completed
            tmp.unlink(missing_ok=True)
            removed.append(tmp)
        except (PermissionError, OSError):
            continue  # alive (or not ours to judge)
    return removed


def write_trace(path, *, engine: str, config: dict, summary: dict, timing: dict, packets: dict,
                timeseries: dict, window_cycles: int, links: dict, nodes: dict | None = None) -> Path:
    """Write the trace; the file appears under ``path`` only once fully written."""
    import h5py

    from netsim_fast._version import __version__
    from netsim_fast.jsonable import jsonable

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with h5py.File(tmp, "w", userblock_size=USERBLOCK) as h5:
            h5.attrs["schema_version"] = SCHEMA_VERSION
            h5.attrs["netsim_fast_version"] = __version__
            h5.attrs["engine"] = engine
            h5.attrs["config"] = json.dumps(jsonable(config), sort_keys=True)
            h5.attrs["seed"] = int(config.get("seed", 0))
            h5.attrs["summary"] = json.dumps(jsonable(summary), sort_keys=True)
            for group_name, columns in (("packets", packets), ("timeseries", timeseries), ("links", links),
                                        ("nodes", nodes or {})):
                group = h5.create_group(group_name)
                for name, values in columns.items():
                    _column(group, name, values)
            h5["timeseries"].attrs["window_cycles"] = int(window_cycles)
            timing_group = h5.create_group("timing")
            for key, value in timing.items():
                timing_group.attrs[key] = float(value)
        _seal(tmp)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path
