"""Graphs given by the user: an edge-list file or a networkx graph (Python API).

File format: one undirected link per line, ``u v`` (whitespace or comma separated, non-negative
integer node ids); ``#`` starts a comment; an optional first line ``nodes N`` declares the node
count (otherwise it is the largest id + 1). Repeated links (``u v`` and ``v u``) are merged;
self-loops, ids out of range and disconnected graphs are rejected with the line or the count.

A file whose first word is ``router`` or ``node`` is BookSim2's anynet format instead (routers,
their terminals and per-direction channel latencies: topologies/anynet.py); ``--booksim-config``
maps ``topology = anynet`` with ``network_file`` to such a file.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from netsim_fast.errors import ConfigError
from netsim_fast.topologies.anynet import anynet_topology, is_anynet_text, parse_anynet
from netsim_fast.topologies.base import Topology, from_edges

_SPLIT = re.compile(r"[,\s]+")


def _check_connected(n_nodes: int, edges: np.ndarray, what: str) -> None:
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    if n_nodes < 2:
        raise ConfigError(f"{what} has {n_nodes} node(s); a network needs at least 2")
    adj = sp.coo_matrix((np.ones(len(edges)), (edges[:, 0], edges[:, 1])), shape=(n_nodes, n_nodes))
    count, _ = connected_components(adj, directed=False)
    if count != 1:
        raise ConfigError(f"{what} is not connected ({count} components); every node must reach every other")


def _from_pairs(n_nodes: int, pairs: np.ndarray, kind: str, params: dict, what: str) -> Topology:
    pairs = np.unique(np.sort(pairs.reshape(-1, 2), axis=1), axis=0) if len(pairs) else pairs.reshape(0, 2)
    _check_connected(n_nodes, pairs, what)
    return Topology(kind=kind, params=params, arrays=from_edges(n_nodes, pairs))


MAX_EDGE_LIST_NODES = 1 << 20  # as for every topology: beyond it the port tables alone are gigabytes


def _is_id(text: str) -> bool:
    """A node id: ASCII digits only (str.isdigit also accepts '²', which int() refuses)."""
    return text.isascii() and text.isdigit()


def _shown(raw: str, limit: int = 60) -> str:
    text = raw.strip()
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _node_id(text: str, path, lineno: int) -> int:
    """``int(text)`` of an id, refused by its length first: Python will not convert more than
    4300 digits, and any id of more than 15 is far past the node limit anyway."""
    if len(text) > 15:
        raise ConfigError(f"--file {path}: line {lineno} has a number of {len(text)} digits; node ids and counts "
                          f"stay below {MAX_EDGE_LIST_NODES}")
    return int(text)


def from_edgelist_file(path) -> Topology:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"--file {str(path)!r} cannot be read ({exc.strerror or exc}); give an edge-list file") from None
    except UnicodeDecodeError:
        raise ConfigError(f"--file {str(path)!r} is not UTF-8 text; give an edge-list file (one 'u v' pair per line)") from None
    if is_anynet_text(text):
        return anynet_topology(parse_anynet(text, f"--file {path}"), {"file": str(path)})
    declared, pairs = None, []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        fields = [f for f in _SPLIT.split(line) if f]
        if fields and fields[0] == "nodes" and declared is None and not pairs and len(fields) == 2 and _is_id(fields[1]):
            declared = _node_id(fields[1], path, lineno)
            continue
        if len(fields) != 2 or not all(_is_id(f) for f in fields):
            raise ConfigError(f"--file {path}: line {lineno} {_shown(raw)} is not 'u v' with two non-negative integer node ids")
        u, v = _node_id(fields[0], path, lineno), _node_id(fields[1], path, lineno)
        if u == v:
            raise ConfigError(f"--file {path}: line {lineno} is a self-loop ({u} {v}); links must join two different nodes")
        if declared is not None and max(u, v) >= declared:
            raise ConfigError(f"--file {path}: line {lineno} names node {max(u, v)} but the file declares nodes {declared} (ids 0..{declared - 1})")
        pairs.append((u, v))
    if not pairs:
        raise ConfigError(f"--file {path} holds no links; write one 'u v' pair per line")
    n_nodes = declared if declared is not None else max(max(p) for p in pairs) + 1
    if n_nodes > MAX_EDGE_LIST_NODES:
        raise ConfigError(f"--file {path}: {n_nodes} nodes exceed the limit of {MAX_EDGE_LIST_NODES}")
    pairs = np.array(pairs, dtype=np.int64)
    return _from_pairs(n_nodes, pairs, "edgelist", {"file": str(path), "nodes": n_nodes}, f"--file {path}")


def from_networkx(graph) -> Topology:
    """Topology of an undirected networkx graph; nodes are renumbered 0..N-1 in sorted order
    (insertion order when labels do not sort); ``params['labels']`` keeps the original labels."""
    try:
        labels = sorted(graph.nodes())
    except TypeError:
        labels = list(graph.nodes())
    index = {label: i for i, label in enumerate(labels)}
    if any(u == v for u, v in graph.edges()):
        raise ConfigError("networkx graph has a self-loop; links must join two different nodes")
    pairs = np.array([(index[u], index[v]) for u, v in graph.edges()], dtype=np.int64).reshape(-1, 2)
    return _from_pairs(len(labels), pairs, "networkx", {"nodes": len(labels), "labels": labels}, "networkx graph")
