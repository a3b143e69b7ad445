"""Finite message sets for the packet engine: who sends to whom, and from which cycle.

Every builder returns ``Messages(src, dst, release_cycle)``: int32, int32, int64 arrays of
equal length, in per-source injection order (a message listed earlier at the same source and
release cycle is queued first). No message is addressed to its own source: a message to
itself never enters the network, and the packet engine rejects it.

Random choices come from a numpy ``Generator`` the caller seeds (DESIGN.md, "Randomness").
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np

from netsim_fast.errors import ConfigError


class Messages(NamedTuple):
    """A finite workload.

    src, dst : int32[n_messages]
        Source and destination node (never equal).
    release_cycle : int64[n_messages]
        First cycle in which the message may leave its source.
    """

    src: np.ndarray
    dst: np.ndarray
    release_cycle: np.ndarray

    @property
    def n_messages(self) -> int:
        return int(self.src.shape[0])


MAX_RELEASE = 1 << 36


def make_messages(src, dst, release_cycle=None) -> Messages:
    """Messages from array-likes, with dtypes fixed and the release cycle defaulting to 0."""
    src = np.ascontiguousarray(src, dtype=np.int32).ravel()
    dst = np.ascontiguousarray(dst, dtype=np.int32).ravel()
    if release_cycle is None:
        release_cycle = np.zeros(src.shape[0], dtype=np.int64)
    release_cycle = np.ascontiguousarray(release_cycle, dtype=np.int64).ravel()
    if not (src.shape == dst.shape == release_cycle.shape):
        raise ConfigError(
            f"src, dst and release_cycle must have one entry per message; got lengths "
            f"{src.shape[0]}, {dst.shape[0]}, {release_cycle.shape[0]}"
        )
    return Messages(src, dst, release_cycle)


def _check_nodes(n_nodes: int) -> None:
    if int(n_nodes) != n_nodes or n_nodes < 2:
        raise ConfigError(f"a workload needs at least 2 nodes; got n_nodes={n_nodes!r}")


def random_messages(n_nodes: int, messages_per_node: int, rng: np.random.Generator) -> Messages:
    """``m`` messages per node, each to a uniformly random node other than its source.

    Node ``u`` sends its ``m`` messages first (source-major order), all released at cycle 0.
    Bieniek et al. (papers/000), Figs. 7-8 ("messages send from each node to a random
    destination").
    """
    _check_nodes(n_nodes)
    if int(messages_per_node) != messages_per_node or messages_per_node < 0:
        raise ConfigError(f"messages per node must be an integer >= 0; got {messages_per_node!r}")
    src = np.repeat(np.arange(n_nodes, dtype=np.int64), int(messages_per_node))
    dst = (src + rng.integers(1, n_nodes, size=src.shape[0])) % n_nodes
    return make_messages(src, dst)


def total_exchange(n_nodes: int) -> Messages:
    """Multi-node scatter: every node one message to every other node, in shift order.

    Message ``(s-1) N + u`` goes from ``u`` to ``(u + s) mod N`` for ``s = 1 .. N-1``, so each
    source queues its destinations in the order ``u+1, u+2, ...`` (papers/000, Fig. 9).
    """
    _check_nodes(n_nodes)
    shift = np.repeat(np.arange(1, n_nodes, dtype=np.int64), n_nodes)
    src = np.tile(np.arange(n_nodes, dtype=np.int64), n_nodes - 1)
    return make_messages(src, (src + shift) % n_nodes)


def random_derangement(n_nodes: int, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random permutation without fixed points (rejection sampling, ~e draws)."""
    _check_nodes(n_nodes)
    while True:
        perm = rng.permutation(n_nodes)
        if not np.any(perm == np.arange(n_nodes)):
            return perm


def random_permutation(n_nodes: int, rng: np.random.Generator) -> Messages:
    """Node ``u`` sends one message to ``perm[u]``, a uniformly random derangement.

    Fixed points are excluded (not dropped): a message to itself would not enter the network,
    and every node should carry one message, so the permutation is redrawn until it has none.
    """
    perm = random_derangement(n_nodes, rng)
    return make_messages(np.arange(n_nodes), perm)


def embedded_messages(
    guest_edges: np.ndarray, n_host: int, rng: np.random.Generator
) -> tuple[Messages, np.ndarray]:
    """One message per directed guest edge, after a random embedding into the host.

    Guest node ``g`` is placed on host node ``place[g]`` (a uniformly random injective map,
    ``rng.permutation(n_host)[:n_guest]``); guest edge ``(g, h)`` becomes a message
    ``place[g] -> place[h]``. Guest self-loops carry no message (nothing leaves the node);
    duplicate guest edges send one message each.

    Returns
    -------
    messages : Messages
    place : int64[n_guest]

    Notes
    -----
    Bieniek et al. (papers/000), section IV and Fig. 10: a de Bruijn graph embedded randomly
    into a random regular graph, each node sending to its 2 out-neighbours
    (``topologies.debruijn.directed_arcs(2, N)``; its self-loops at 0 and N-1 send nothing,
    so 2N - 2 messages); the model predicts the cost with ``m`` = out-degree.
    """
    edges = np.asarray(guest_edges, dtype=np.int64).reshape(-1, 2)
    n_guest = int(edges.max(initial=-1)) + 1
    if n_guest > n_host:
        raise ConfigError(
            f"the guest graph has {n_guest} nodes but the host only {n_host}; a random embedding "
            "needs n_guest <= n_host"
        )
    place = rng.permutation(n_host)[:n_guest].astype(np.int64)
    keep = edges[:, 0] != edges[:, 1]
    return make_messages(place[edges[keep, 0]], place[edges[keep, 1]]), place


def _shown(raw: str, limit: int = 60) -> str:
    """A line of the file as an error quotes it: stripped, and cut if long."""
    text = raw.strip()
    return repr(text if len(text) <= limit else text[:limit] + "...")


def read_messages(path: str | Path, n_nodes: int) -> Messages:
    """Messages from a text file: one ``src dst [release_cycle]`` per line.

    Fields are separated by whitespace or commas; ``#`` starts a comment; blank lines are
    skipped; a first line ``src,dst[,release_cycle]`` (a CSV header) is allowed. Nodes are
    integers ``0 .. n_nodes-1``, ``src != dst``; the release cycle is an integer >= 0
    (default 0). Errors name the file and line.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read messages file {str(path)!r}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"messages file {str(path)!r} is not UTF-8 text ('src dst [release_cycle]' per line)") from None
    rows = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        fields = line.replace(",", " ").split()
        if not rows and fields and fields[0].lower() == "src":
            continue
        where = f"{path}:{lineno}"
        if len(fields) not in (2, 3):
            raise ConfigError(
                f"{where}: expected 'src dst [release_cycle]', found {len(fields)} fields in {_shown(raw)}"
            )
        try:
            values = [int(f) for f in fields]
        except ValueError:
            raise ConfigError(f"{where}: fields must be integers; found {_shown(raw)}") from None
        src, dst = values[0], values[1]
        release = values[2] if len(values) == 3 else 0
        for name, node in (("src", src), ("dst", dst)):
            if not 0 <= node < n_nodes:
                raise ConfigError(f"{where}: {name} {node} is not a node; allowed 0..{n_nodes - 1}")
        if src == dst:
            raise ConfigError(f"{where}: src equals dst ({src}); a message to itself never "
                              "enters the network, remove the line")
        if release < 0:
            raise ConfigError(f"{where}: release_cycle must be >= 0; found {release}")
        if release >= MAX_RELEASE:  # the engines step cycle by cycle: a later release is a run that never ends
            raise ConfigError(f"{where}: release_cycle must be < 2^36 ({MAX_RELEASE:,} cycles; the engines "
                              f"advance cycle by cycle); found {release}")
        rows.append((src, dst, release))
    if not rows:
        raise ConfigError(f"messages file {str(path)!r} holds no message")
    arr = np.array(rows, dtype=np.int64)
    return make_messages(arr[:, 0], arr[:, 1], arr[:, 2])


def write_messages(path: str | Path, messages: Messages) -> None:
    """Write messages in the format :func:`read_messages` reads (with a header line)."""
    lines = ["src,dst,release_cycle"]
    lines += [f"{s},{d},{r}" for s, d, r in zip(messages.src.tolist(), messages.dst.tolist(),
                                                  messages.release_cycle.tolist())]
    Path(path).write_text("\n".join(lines) + "\n")
