"""Counter-based random numbers for kernels: a pure function of (seed, stream, a, b).

Every random choice of an engine is ``draw(seed, stream, a, b)`` for integers that name the
decision (for example stream ``STREAM_PATH``, packet id, hop index). The result does not depend
on the order in which a kernel makes its decisions, so a reference implementation in plain
Python reproduces it bit for bit, and a packet carries its own stream ("the packet's seeded
stream") without any per-packet generator state.

``draw`` applies the SplitMix64 finaliser ``mix`` (Steele, Lea, Flood 2014; the mixing
constants are those of its public description) twice::

    key = mix(seed + (stream + 1) * G)          # per stream: kernels hoist it (stream_key)
    draw = mix(key + (a + 1) * G + (b + 1) * H)

with ``G = 0x9E3779B97F4A7C15``, ``H = 0xD1B54A32D192ED03`` and all arithmetic modulo 2**64.
One round per decision keeps the per-hop cost of a random choice to a few nanoseconds.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from netsim_fast._jit import JIT

STREAM_PATH = 1    # choice among minimal ports: (packet, hop)
STREAM_TIE = 2     # order of packets entering a queue in the same cycle: (packet, hop)
STREAM_SELECT = 3  # `random` selection policy: (link, cycle)

_G = np.uint64(0x9E3779B97F4A7C15)
_H = np.uint64(0xD1B54A32D192ED03)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_ONE = np.uint64(1)


@njit(**JIT)
def mix64(z):
    """SplitMix64 finaliser of a uint64."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(**JIT)
def stream_key(seed, stream):
    """The per-stream key of ``draw`` (a uint64)."""
    return mix64(np.uint64(seed) + (np.uint64(stream) + _ONE) * _G)


@njit(**JIT)
def draw_keyed(key, a, b):
    """``draw`` with the stream key already computed."""
    return mix64(key + (np.uint64(a) + _ONE) * _G + (np.uint64(b) + _ONE) * _H)


@njit(**JIT)
def draw(seed, stream, a, b):
    """uint64 hash of four non-negative integers (see the module docstring)."""
    return draw_keyed(stream_key(seed, stream), a, b)


@njit(**JIT)
def draw_below(seed, stream, a, b, n):
    """Integer in ``[0, n)`` from ``draw`` (modulo; the bias is below n / 2**64)."""
    return np.int64(draw(seed, stream, a, b) % np.uint64(n))


@njit(**JIT)
def draw_keyed_below(key, a, b, n):
    """Integer in ``[0, n)`` from ``draw_keyed``."""
    return np.int64(draw_keyed(key, a, b) % np.uint64(n))


def seed_to_u64(seed: int) -> int:
    """A user seed (any Python int) as the non-negative 64-bit value the kernels use."""
    return int(seed) & 0xFFFFFFFFFFFFFFFF
