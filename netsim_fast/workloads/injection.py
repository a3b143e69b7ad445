"""Injection processes (when a node creates a packet) and packet-size mixes, for open-loop traffic.

- ``bernoulli``: in every cycle a node creates a packet with probability ``rate / mean size``.
- ``onoff`` (bursty; BookSim2's ``on_off``, ``injection.cpp``): every node is a two-state Markov
  chain. Each cycle it first moves (on -> off with probability beta, off -> on with
  probability alpha), then, if on, creates a packet with probability r1. ``--duty-cycle D`` is
  the fraction of cycles on, alpha / (alpha + beta); ``--burst-length L`` the mean packets per
  on period, r1 / beta. For a mean rate of p packets per cycle: r1 = p / D, beta = r1 / L,
  alpha = beta D / (1 - D) (BookSim2's burst_alpha, burst_beta, burst_r1, derived the same way).
  Each node starts on with probability D, the chain's stationary share (BookSim2 starts each
  node on with probability 1/2 whatever D; the warm-up removes the difference).
- A size mix (``--packet-sizes 1,8 --packet-mix 0.8,0.2``) draws each packet's size on its own;
  the rate stays in flits, so packets are created at ``rate / mean size``.

Each chunk's uniforms come from the chunk's own generator (workloads/synthetic.py); the on/off
chain carries its state from one chunk to the next, so chunks are made in order.
"""

from __future__ import annotations

import numpy as np
from numba import njit

INJECTIONS = ("bernoulli", "onoff")


def mean_packet_flits(cfg, default: int = 1) -> float:
    """Mean flits per packet of a configuration: of its size mix, else ``packet_flits``."""
    if cfg.packet_sizes:
        return sum(s * w for s, w in zip(cfg.packet_sizes, cfg.packet_mix)) / sum(cfg.packet_mix)
    return cfg.packet_flits or default


def transaction_flits(cfg) -> float:
    """Closed loop (``--closed-loop``): the mean flits of a request and its reply, which
    ``--rate`` counts. The booksim router divides as BookSim2 does (``trafficmanager.cpp``):
    by half the sum of the four sizes, whatever the write fraction (the true mean at its
    default 0.5); the other routers by the mean at ``--write-fraction``."""
    read = mean_packet_flits(cfg) + cfg.reply_flits
    write = cfg.write_request_flits + cfg.write_reply_flits
    if cfg.router == "booksim":
        return (read + write) / 2
    return (1 - cfg.write_fraction) * read + cfg.write_fraction * write


def onoff_probabilities(packets_per_cycle: float, burst_length: float, duty_cycle: float):
    """(alpha, beta, r1) of the on/off chain with this mean rate, burst length and duty cycle;
    ValueError naming what cannot be met (a probability above 1)."""
    r1 = packets_per_cycle / duty_cycle
    beta = r1 / burst_length
    alpha = beta * duty_cycle / (1.0 - duty_cycle)
    for name, value, fix in (("r1", r1, "raise --duty-cycle or lower --rate"),
                             ("beta", beta, "raise --burst-length"),
                             ("alpha", alpha, "lower --duty-cycle or raise --burst-length")):
        if value > 1.0:
            raise ValueError(f"the on/off chain would need {name} = {value:.3g} > 1 (a probability per cycle); {fix}")
    return alpha, beta, r1


@njit(cache=True)
def _onoff_chunk(u_state, u_send, on, alpha, beta, r1, senders):
    """Cycles x nodes: whether each node creates a packet; ``on`` is updated in place."""
    cycles, nodes = u_state.shape
    created = np.zeros((cycles, nodes), np.bool_)
    for t in range(cycles):
        for i in range(nodes):
            if on[i]:
                on[i] = u_state[t, i] >= beta
            else:
                on[i] = u_state[t, i] < alpha
            created[t, i] = on[i] and senders[i] and u_send[t, i] < r1
    return created


class OnOff:
    """The on/off state of every node, advanced chunk by chunk."""

    def __init__(self, n_nodes: int, packets_per_cycle: float, burst_length: float, duty_cycle: float, seed: int):
        self.alpha, self.beta, self.r1 = onoff_probabilities(packets_per_cycle, burst_length, duty_cycle)
        rng = np.random.default_rng(np.random.SeedSequence([seed, 0x0B0FF]))
        self.on = rng.random(n_nodes) < duty_cycle

    def created(self, rng, cycles: int, senders) -> np.ndarray:
        u_state = rng.random((cycles, self.on.size), dtype=np.float32)
        u_send = rng.random((cycles, self.on.size), dtype=np.float32)
        return _onoff_chunk(u_state, u_send, self.on, np.float32(self.alpha), np.float32(self.beta),
                            np.float32(self.r1), senders)


class SizeMix:
    """Packet sizes drawn independently from a discrete distribution."""

    def __init__(self, sizes, weights):
        self.sizes = np.asarray(sizes, np.int32)
        weights = np.asarray(weights, float)
        self.cumulative = np.cumsum(weights / weights.sum())
        self.mean = float((self.sizes * weights).sum() / weights.sum())

    def draw(self, rng, count: int) -> np.ndarray:
        pick = np.searchsorted(self.cumulative, rng.random(count), side="right")
        return self.sizes[np.minimum(pick, self.sizes.size - 1)]
