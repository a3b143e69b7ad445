"""The finite workloads of ``netsim-fast run``: a validated ``Config`` -> a message set.

Finite workloads are released up front (or at the cycles a file gives) and run to completion,
on either engine: the packet engine takes the ``Messages`` as they are, the flit engine takes
them as ``FinitePackets`` of ``--packet-flits`` flits each (``flit_packets``), with the shift
step as the phase of ``total-exchange`` and ``gossip-naive`` when ``--sync`` gates the steps.

============== =============================================================================
random         ``--messages m`` per node to uniform destinations other than the source
total-exchange every node one message to every other node, shift order (papers/000, Fig. 9)
permutation    one message per node to a random derangement (no node sends to itself)
file           ``--messages-file PATH``: ``src dst [release_cycle]`` lines
embed-debruijn the base-``--base`` de Bruijn graph on all N nodes, placed at random
               (papers/000, Fig. 10): one message per arc, self-loops send nothing
gossip-naive   unicast all-to-all in shift order (papers/003, section 1), with gossip bounds
============== =============================================================================

Random choices come from ``numpy.random.default_rng(cfg.seed)``, the generator
``analytic.rrg_compare.compare_rrg`` uses for its graph 0, so ``run --seed S`` on an rrg
reproduces that graph's run exactly.

``gossip-ham`` and ``gossip-one`` are not message sets: they are forwarding-rule plans
(``engine/gossip_run.py``) and are listed here only so that the pattern registry
(``workloads/registry.py``), which ``Config`` asks, knows every name.
"""

from __future__ import annotations

import numpy as np

from netsim_fast.errors import ConfigError
from netsim_fast.workloads import messages as wm
from netsim_fast.workloads import registry

FINITE_PATTERNS = ("random", "total-exchange", "permutation", "file", "embed-debruijn", "gossip-naive")
FORWARDING_PATTERNS = ("gossip-ham", "gossip-one")
GOSSIP_PATTERNS = ("gossip-ham", "gossip-one", "gossip-naive")
# Shift-order workloads: step s (phase s - 1) sends u -> u + s; the flit engine's --sync gates steps.
PHASED_PATTERNS = ("total-exchange", "gossip-naive")
registry.register("finite", FINITE_PATTERNS)
registry.register("forwarding", FORWARDING_PATTERNS)
registry.register("gossip", GOSSIP_PATTERNS)
registry.register("phased", PHASED_PATTERNS)


def build_messages(cfg, n_nodes: int) -> tuple[wm.Messages, dict]:
    """The message set of ``cfg.pattern`` on ``n_nodes`` nodes.

    Returns
    -------
    messages : Messages
    extras : dict
        Summary fields that describe the workload (``messages_per_node``, ``guest_nodes``, ...).
    """
    pattern = cfg.pattern
    rng = np.random.default_rng(cfg.seed)
    if pattern == "random":
        return wm.random_messages(n_nodes, cfg.messages, rng), {"messages_per_node": cfg.messages}
    if pattern == "total-exchange":
        return wm.total_exchange(n_nodes), {"messages_per_node": n_nodes - 1}
    if pattern == "permutation":
        return wm.random_permutation(n_nodes, rng), {"messages_per_node": 1}
    if pattern == "file":
        return wm.read_messages(cfg.messages_file, n_nodes), {"messages_file": cfg.messages_file}
    if pattern == "embed-debruijn":
        return _embedding(cfg.base, n_nodes, rng)
    if pattern == "gossip-naive":
        from netsim_fast.workloads.gossip.naive import messages

        arrays = messages(n_nodes)
        return wm.make_messages(arrays["src"], arrays["dst"], arrays["release_cycle"]), {}
    raise ConfigError(f"--pattern {pattern}: not a finite message set; choose one of {', '.join(FINITE_PATTERNS)}")


def _embedding(base: int, n_nodes: int, rng) -> tuple[wm.Messages, dict]:
    from netsim_fast.topologies.debruijn import directed_arcs

    size = base
    while size < n_nodes:
        size *= base
    if size != n_nodes:  # only an edge-list host gets here: Config checks the others
        raise ConfigError(f"--pattern embed-debruijn places a base-{base} de Bruijn graph on all {n_nodes} "
                          f"nodes, so the node count must be a power of --base {base}")
    msgs, _ = wm.embedded_messages(directed_arcs(base, n_nodes), n_nodes, rng)
    return msgs, {"base": base, "guest_nodes": n_nodes}


def shift_phases(messages: wm.Messages, n_nodes: int) -> np.ndarray:
    """int32 phase of every message of a shift-order workload: ``(dst - src) mod N - 1``."""
    return ((messages.dst.astype(np.int64) - messages.src) % n_nodes - 1).astype(np.int32)


def flit_packets(messages: wm.Messages, packet_flits: int, phase: np.ndarray | None = None):
    """The messages as the flit engine's ``FinitePackets``: ordered by release cycle, then by
    source, each source keeping its own message order (its injection order). ``phase``
    (int32 per message, for ``--sync``) is reordered with them."""
    from netsim_fast.workloads.packets import FinitePackets

    order = np.lexsort((np.arange(messages.n_messages), messages.src, messages.release_cycle))
    return FinitePackets(
        src=messages.src[order], dst=messages.dst[order],
        length=np.full(order.size, packet_flits, np.int32), release=messages.release_cycle[order],
        phase=None if phase is None else phase[order],
    )
