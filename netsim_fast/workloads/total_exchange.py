"""Total exchange (all-to-all personalised communication) on the flit engine: the four
algorithms of Petrini (papers/004) as ``FinitePackets``.

Every ordered pair of distinct nodes exchanges a *grain* of ``m`` bytes (``--grain-bytes``),
carried in packets of ``p`` bytes (``--packet-bytes``, header included) of ``f``-byte flits
(``--flit-bytes``, 4 in the paper).

=============== ==========================================================================
``random-te``   section 5: ``ceil(m/p)`` steps; in step ``s`` node ``j`` sends one packet
                to every other node in the order of its own random permutation Pi_{s,j}
``shift-te``    section 4: step ``i`` (1..N-1) node ``j`` sends to ``(j + i) mod N``
``pairwise-te`` section 4: step ``i`` (1..N-1) node ``j`` exchanges with ``j XOR i``
                (N a power of two)
``indirect-te`` section 4 (Thakur & Choudhary's indirect pairwise exchange, 2-D grids):
                row exchange of ``k``-fold packets, then column exchanges of what was
                received, then the column exchange of the node's own data
=============== ==========================================================================

Choices where the paper is silent (docs/total-exchange.md says why):

- *Packets.* A grain is cut into ``ceil(m/p)`` packets of ``ceil(p/f)`` flits each, the last
  one padded to the full size, so every packet of a run has one size (the property the
  randomized algorithm relies on) and every ordered pair carries
  ``F = ceil(m/p) * ceil(p/f)`` flits. Without ``--packet-bytes`` (or ``--packet-flits``) a
  packet is ``min(m, 32)`` bytes: the grain in one packet up to the 32-byte packets of the
  paper's Fig. 6, then sweeps of 32-byte packets.
- *Steps of shift and pairwise.* Step ``i`` carries the whole grain of the pair (all its
  ``ceil(m/p)`` packets back to back), so both take N-1 steps for any grain, as section 4
  counts them; only the randomized algorithm is defined in packet-sized sweeps.
- *Indirect pairwise.* Node ``(x, y)`` (``x`` along dimension 0 = its row, ``y`` along
  dimension 1 = its column). Row step ``i`` (1..k0-1) sends to row partner ``x'`` a ``k1``-fold
  message of ``k1 * m`` bytes (the data of ``(x, y)`` for every node ``(x', y')`` of the
  partner's column) as ``ceil(m/p)`` packets of ``k1 * p`` bytes. Then, for every row step
  ``i`` in turn, column steps ``j`` (1..k1-1) forward the grain received from row step
  ``i``'s sender to column partner ``(x, y')``; finally ``k1-1`` column steps send the node's
  own grains. That is ``(k0-1)(k1-1) + (k1-1) = k(k-1)`` column steps of ``m``-byte messages
  on a square grid, the paper's count. Partners are ``XOR`` in a ring of power-of-two length
  (pairwise) and shifts otherwise.
- *Phases* (the engine's ``--sync`` gating, ``FinitePackets.phase``): the algorithm step.
  ``indirect-te`` must never forward data it has not received: under ``--sync none`` it runs
  with two phases, row (0) and column (1), gated per node (engine ``local``), so a node starts
  forwarding once it holds all its row data and is otherwise free-running; under ``local`` and
  ``global`` every step is a phase, which implies the dependency.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from netsim_fast.workloads import registry

TE_PATTERNS = ("random-te", "shift-te", "pairwise-te", "indirect-te")
registry.register("total-exchange", TE_PATTERNS)
DEFAULT_GRAIN_BYTES = 32
DEFAULT_PACKET_BYTES = 32  # cap of the default packet size (paper 004, Fig. 6)
MAX_PACKETS = 50_000_000   # 64 bytes of engine state per packet: refuse beyond ~3 GB


@dataclass
class TotalExchange:
    """A total exchange as the flit engine's packets, with what each packet carries.

    Attributes
    ----------
    packets : FinitePackets
        All released at cycle 0, per source in sending order; ``phase`` None when the engine
        runs free (``engine_sync`` "none").
    origin : int32[n_packets]
        Node whose data the packet carries (the original source of a forwarded grain).
    final : int32[n_packets]
        Final destination of that data; -1 for an indirect row packet, which carries the
        grains for every node in its destination's column.
    steps : int
        Algorithm steps (the phases under ``--sync local|global``).
    engine_sync : str
        ``--sync`` the engine runs with (``local`` for ``indirect-te`` under ``none``).
    """

    packets: object
    origin: np.ndarray
    final: np.ndarray
    steps: int
    packets_per_pair: int
    packet_bytes: int
    packet_flits: int
    flits_per_pair: int
    engine_sync: str

    def describe(self) -> dict:
        """Summary fields of the workload."""
        return {"packets_per_pair": self.packets_per_pair, "packet_bytes": self.packet_bytes,
                "packet_flits": self.packet_flits, "flits_per_pair": self.flits_per_pair,
                "te_steps": self.steps, "engine_sync": self.engine_sync}


def packet_bytes_of(cfg) -> int:
    """Packet size in bytes: ``--packet-bytes``, or ``--packet-flits`` flits of ``--flit-bytes``."""
    return cfg.packet_bytes if cfg.packet_bytes is not None else cfg.packet_flits * cfg.flit_bytes


def is_power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def check_config(cfg) -> None:
    """Defaults and checks of the total-exchange options (called by ``Config``).

    Sets ``grain_bytes`` (default 32) and, when no packet size is given, ``packet_bytes`` =
    ``min(grain, 32)``. Raises ``ConfigError`` for a non-flit engine or a non-grid topology,
    pairwise on a node count
    that is not a power of two, indirect on a grid that is not 2-D, or a run too large to hold.
    """
    from netsim_fast.checks import bad
    from netsim_fast.checks import require_int as _require_int
    from netsim_fast.topologies import GRID_TOPOLOGIES

    pattern = cfg.pattern
    if cfg.engine != "flit":
        raise bad("pattern", pattern, "is a total exchange of the flit engine (wormhole packets); pass --engine flit")
    if cfg.topology not in GRID_TOPOLOGIES:
        raise bad("pattern", pattern, f"runs on tori, meshes and hypercubes (its lower bound cuts the grid straight), "
                  f"not --topology {cfg.topology}")
    if cfg.grain_bytes is None:
        object.__setattr__(cfg, "grain_bytes", DEFAULT_GRAIN_BYTES)
    _require_int("grain-bytes", cfg.grain_bytes, 1, 1 << 30, " bytes per ordered pair of nodes")
    _require_int("flit-bytes", cfg.flit_bytes, 1)
    # Config checks these again later, but the packet count below divides by them first.
    _require_int("packet-bytes", cfg.packet_bytes, 1)
    _require_int("packet-flits", cfg.packet_flits, 1)
    if cfg.packet_bytes is None and cfg.packet_flits is None:
        object.__setattr__(cfg, "packet_bytes", min(cfg.grain_bytes, DEFAULT_PACKET_BYTES))
    n_nodes, dims = cfg.n_nodes, cfg.dims
    if pattern == "pairwise-te" and not is_power_of_two(n_nodes):
        raise bad("pattern", pattern, f"pairs node j with j XOR i, which needs a power-of-two node count; "
                  f"{n_nodes} nodes is not one (use shift-te or random-te, or a power-of-two grid)")
    if pattern == "indirect-te" and len(dims) != 2:
        raise bad("pattern", pattern, f"exchanges along rows then columns of a 2-D grid; --dims {','.join(map(str, dims))} "
                  f"has {len(dims)} dimension(s) (pass --n 2 or two radices)")
    packets = n_nodes * (n_nodes - 1) * -(-cfg.grain_bytes // _packet_bytes_given(cfg))
    if packets > MAX_PACKETS:
        raise bad("grain-bytes", cfg.grain_bytes, f"makes {packets:,} packets, more than the {MAX_PACKETS:,} the engine "
                  "holds here; use a larger --packet-bytes or a smaller grain")
    if pattern == "indirect-te" and cfg.switching == "vct":
        row_flits = -(-dims[1] * _packet_bytes_given(cfg) // cfg.flit_bytes)
        if cfg.buf < row_flits:
            raise bad("buf", cfg.buf, f"virtual cut-through needs lanes that hold the {row_flits}-flit row packets "
                      f"of indirect-te (--buf >= {row_flits})")


def _packet_bytes_given(cfg) -> int:
    """Packet bytes before ``Config`` has derived ``packet_flits`` (default 8 flits)."""
    if cfg.packet_bytes is not None:
        return cfg.packet_bytes
    return (cfg.packet_flits or 8) * cfg.flit_bytes


# -- schedules: destination of every node at every position of its sending order ------------


def random_schedule(n_nodes: int, sweeps: int, rng: np.random.Generator) -> np.ndarray:
    """int32[sweeps, N, N-1]: row ``[s, j]`` is node ``j``'s permutation Pi_{s,j} of the others.

    Notes
    -----
    Petrini (papers/004), section 5, step 1: "each node j generates an independent
    permutation of the remaining N-1 nodes". Drawn as an independent shuffle of ``0..N-2``
    per (sweep, node), then shifted past ``j`` so that ``j`` never appears.
    """
    out = np.empty((sweeps, n_nodes, n_nodes - 1), np.int32)
    base = np.broadcast_to(np.arange(n_nodes - 1, dtype=np.int32), (n_nodes, n_nodes - 1))
    node = np.arange(n_nodes, dtype=np.int32)[:, None]
    for s in range(sweeps):
        perm = rng.permuted(base, axis=1)
        out[s] = perm + (perm >= node)
    return out


def shift_schedule(n_nodes: int) -> np.ndarray:
    """int32[N-1, N]: step ``i`` (row ``i-1``) node ``j`` sends to ``(j + i) mod N``."""
    step = np.arange(1, n_nodes, dtype=np.int64)[:, None]
    return ((np.arange(n_nodes) + step) % n_nodes).astype(np.int32)


def pairwise_schedule(n_nodes: int) -> np.ndarray:
    """int32[N-1, N]: step ``i`` (row ``i-1``) node ``j`` exchanges with ``j XOR i``."""
    step = np.arange(1, n_nodes, dtype=np.int32)[:, None]
    return np.arange(n_nodes, dtype=np.int32) ^ step


def ring_partner(pos: np.ndarray, step: int, k: int) -> np.ndarray:
    """Where ``pos`` sends at ``step`` in a ring of ``k``: XOR (pairwise) when ``k`` is a power of
    two, else a shift."""
    return pos ^ step if is_power_of_two(k) else (pos + step) % k


def ring_sender(pos: np.ndarray, step: int, k: int) -> np.ndarray:
    """Who sends to ``pos`` at ``step``: the inverse of ``ring_partner``."""
    return pos ^ step if is_power_of_two(k) else (pos - step) % k


# -- builders -----------------------------------------------------------------------------


def _interleave(per_node: np.ndarray) -> np.ndarray:
    """[N, L] per-node sequences -> one array in position-major order (each source keeps its order)."""
    return np.ascontiguousarray(per_node.T).ravel()


def _direct(dst_steps: np.ndarray, repeat: int) -> tuple[np.ndarray, np.ndarray]:
    """[steps, N] destinations, each step's packet repeated ``repeat`` times -> per-node
    destination [N, L] and phase [L]."""
    steps = dst_steps.shape[0]
    dst = np.repeat(dst_steps.T, repeat, axis=1)
    phase = np.repeat(np.arange(steps, dtype=np.int32), repeat)
    return dst, phase


def indirect_plan(dims, repeat: int, dependency_phases: bool):
    """Per-node sending order of the indirect pairwise exchange on a ``k0 x k1`` grid.

    Returns
    -------
    dst, origin, final : int32[N, L]
        Destination, data origin and final destination (-1: a row packet) of each packet.
    phase : int32[L]
        Algorithm step, or 0 (row) / 1 (column) with ``dependency_phases``.
    is_row : bool[L]
        Row packets (``k1``-fold).
    steps : int
        ``(k0 - 1) + k0 (k1 - 1)`` algorithm steps.
    """
    k0, k1 = int(dims[0]), int(dims[1])
    node = np.arange(k0 * k1, dtype=np.int32)
    x, y = node % k0, node // k0
    cols_dst, cols_origin, cols_final, phases, rows = [], [], [], [], []

    def add(dst, origin, final, phase, row):
        cols_dst.append(dst)
        cols_origin.append(origin)
        cols_final.append(final)
        phases.append(phase)
        rows.append(row)

    step = 0
    for i in range(1, k0):  # row exchange: k1-fold messages
        add(ring_partner(x, i, k0) + k0 * y, node, np.full_like(node, -1), step, True)
        step += 1
    for i in range(1, k0):  # forward what row step i delivered, one column step per partner
        origin = ring_sender(x, i, k0) + k0 * y
        for j in range(1, k1):
            dst = x + k0 * ring_partner(y, j, k1)
            add(dst, origin, dst, step, False)
            step += 1
    for j in range(1, k1):  # the node's own grains for its column
        dst = x + k0 * ring_partner(y, j, k1)
        add(dst, node, dst, step, False)
        step += 1
    phase = np.array(phases, np.int32)
    is_row = np.array(rows)
    if dependency_phases:
        phase = (~is_row).astype(np.int32)
    return (_stack(cols_dst, repeat), _stack(cols_origin, repeat), _stack(cols_final, repeat),
            np.repeat(phase, repeat), np.repeat(is_row, repeat), step)


def _stack(columns: list, repeat: int) -> np.ndarray:
    """Per-step int arrays over nodes -> int32[N, steps * repeat], each step ``repeat`` times."""
    return np.repeat(np.stack(columns, axis=1).astype(np.int32), repeat, axis=1)


def build_total_exchange(cfg, n_nodes: int | None = None) -> TotalExchange:
    """The packets of ``cfg.pattern`` (one of ``TE_PATTERNS``) for a validated ``Config``.

    Random permutations come from ``numpy.random.default_rng(cfg.seed)``: the same seed gives
    the same schedule.
    """
    from netsim_fast.workloads.packets import FinitePackets

    n = cfg.n_nodes if n_nodes is None else n_nodes
    p_bytes = packet_bytes_of(cfg)
    f = cfg.flit_bytes
    flits = -(-p_bytes // f)
    repeat = -(-cfg.grain_bytes // p_bytes)  # packets per ordered pair
    pattern = cfg.pattern
    engine_sync = cfg.sync
    node = np.arange(n, dtype=np.int32)
    if pattern == "indirect-te":
        engine_sync = "local" if cfg.sync == "none" else cfg.sync
        dst, origin, final, phase, is_row, steps = indirect_plan(cfg.dims, repeat, cfg.sync == "none")
        row_flits = -(-cfg.dims[1] * p_bytes // f)
        length = np.where(is_row, row_flits, flits).astype(np.int32)
        lengths = np.broadcast_to(length, dst.shape)
    else:
        if pattern == "random-te":
            rng = np.random.default_rng(cfg.seed)
            sched = random_schedule(n, repeat, rng)  # [sweeps, N, N-1]
            dst = sched.transpose(1, 0, 2).reshape(n, repeat * (n - 1))
            phase = np.repeat(np.arange(repeat, dtype=np.int32), n - 1)
            steps = repeat
        else:
            table = shift_schedule(n) if pattern == "shift-te" else pairwise_schedule(n)
            dst, phase = _direct(table, repeat)
            steps = n - 1
        origin = np.broadcast_to(node[:, None], dst.shape)
        final = dst
        lengths = np.broadcast_to(np.int32(flits), dst.shape)
    seq = dst.shape[1]
    src = np.tile(node, seq)
    phases = None if engine_sync == "none" else np.repeat(phase, n).astype(np.int32)
    packets = FinitePackets(src=src, dst=_interleave(dst), length=_interleave(np.asarray(lengths)),
                            release=np.zeros(src.size, np.int64), phase=phases)
    return TotalExchange(packets=packets, origin=_interleave(np.asarray(origin)), final=_interleave(np.asarray(final)),
                         steps=steps, packets_per_pair=repeat, packet_bytes=p_bytes, packet_flits=flits,
                         flits_per_pair=repeat * flits, engine_sync=engine_sync)
