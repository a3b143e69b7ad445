"""Bernoulli packet creation at every node in every cycle, drawn by a compiled copy of the
generator.

``created(rng, cycles, senders, prob)`` gives the (cycle, node) pairs, in row-major order, of
``np.nonzero(rng.random((cycles, n), dtype=np.float32) < np.float32(prob) & senders)``, and
leaves ``rng`` in the same state, so every later draw from it (destinations, sizes) is the same
too. The numpy form costs about 5 ns per node and cycle (a float array, a comparison, a
boolean array, then ``nonzero``); on a large network at low load that was most of a cycle's
time (bench/flit_speed.py, 64x64 torus at 0.3 % of capacity). Here a draw costs under 1 ns.

How it stays identical:
- ``default_rng`` is PCG64: a 128-bit state ``s`` steps as ``s * M + inc`` (mod 2**128) and
  outputs the 64 bits ``rotr(high ^ low, s >> 122)`` of the new state. The kernel does the
  same, with the 128-bit product from a 64x64-bit multiply (``_mul_high``).
- numpy makes a float32 as ``(x >> 8) * 2**-24`` from the next 32-bit output ``x``, and hands
  out each 64-bit output low half first, then high half, keeping the high half in the
  generator's one-value buffer (``has_uint32``, ``uinteger``) between calls.
- ``(x >> 8) * 2**-24`` is exact, so ``u < p`` holds exactly when ``x >> 8 < ceil(p * 2**24)``.
- The generator's state is read before and written back after, buffer included.
tests/test_bernoulli.py checks creations and the next draws against the numpy form.
"""

from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import config as numba_config
from numba import njit, types
from numba.extending import intrinsic

from netsim_fast._jit import JIT

MASK64 = (1 << 64) - 1
# no reference counting: a helper taking arrays would otherwise count references at every draw
NO_NRT = dict(JIT, _nrt=False)
MULT_HIGH, MULT_LOW = 2549297995355413924, 4865540595714422341  # PCG64's 128-bit multiplier


def threshold(prob: float) -> int:
    """The integer ``m`` with ``(x >> 8) * 2**-24 < float32(prob)`` exactly when ``x >> 8 < m``."""
    return int(math.ceil(float(np.float32(prob)) * (1 << 24)))


def created(rng: np.random.Generator, cycles: int, senders: np.ndarray, prob: float):
    """(cycle, node) int64 arrays of the creations in ``cycles`` cycles at ``senders.size``
    nodes, as the numpy form above gives them, and ``rng`` left as that form leaves it."""
    n = senders.size
    bitgen = rng.bit_generator
    if numba_config.DISABLE_JIT or not isinstance(bitgen, np.random.PCG64):  # _mul_high has no Python form
        made = rng.random((cycles, n), dtype=np.float32) < np.float32(prob)
        return np.nonzero(made & senders[None, :])
    state = bitgen.state
    s, inc = state["state"]["state"], state["state"]["inc"]
    pending = int(state["uinteger"]) if state["has_uint32"] else -1
    draws = cycles * n
    cap = initial_room(draws, prob)
    while True:
        cyc, node = np.empty(cap, np.int64), np.empty(cap, np.int64)
        out = _draw(np.uint64(s >> 64), np.uint64(s & MASK64), np.uint64(inc >> 64), np.uint64(inc & MASK64),
                    pending, draws, n, threshold(prob), senders, cyc, node)
        count, high, low, left = (int(v) for v in out)
        if count <= cap:
            break
        cap = count  # more than 8 sigma above the mean: draw again from the same state, with room
    state["state"]["state"] = (high << 64) | low
    state["has_uint32"], state["uinteger"] = (1, left) if left >= 0 else (0, 0)
    bitgen.state = state
    return cyc[:count], node[:count]


def initial_room(draws: int, prob: float) -> int:
    """Room for the creations: the mean plus eight standard deviations (a retry is that rare)."""
    expected = draws * float(np.float32(prob))
    return int(expected + 8 * math.sqrt(expected) + 64)


@intrinsic
def _mul_high(typingctx, a, b):
    """The high 64 bits of the 128-bit product of two uint64."""
    def codegen(context, builder, signature, args):
        wide = ir.IntType(128)
        product = builder.mul(builder.zext(args[0], wide), builder.zext(args[1], wide))
        return builder.trunc(builder.lshr(product, ir.Constant(wide, 64)), ir.IntType(64))
    return types.uint64(types.uint64, types.uint64), codegen


@njit(**NO_NRT)
def _draw(high, low, inc_high, inc_low, pending, draws, n, thr, send, cyc, node):
    """``draws`` 32-bit draws (``pending`` first, if not -1), a creation where ``x >> 8 < thr``
    and the node sends, written while there is room. Returns the creations counted, the
    state after (high, low), and the high half left over (-1 for none)."""
    mult_high, mult_low = np.uint64(MULT_HIGH), np.uint64(MULT_LOW)
    half_mask, k, pos, left = np.uint64(0xFFFFFFFF), 0, 0, pending if draws == 0 else -1
    if pending >= 0 and draws > 0:
        k = _take(pending, thr, send, 0, n, cyc, node, k)
        pos = 1
    while pos < draws:
        product_low = low * mult_low  # s = s * M + inc (mod 2**128)
        new_high = _mul_high(low, mult_low) + high * mult_low + low * mult_high
        low = product_low + inc_low
        high = new_high + inc_high + (np.uint64(1) if low < product_low else np.uint64(0))
        mixed = high ^ low
        rot = high >> np.uint64(58)
        x = (mixed >> rot) | (mixed << ((np.uint64(64) - rot) & np.uint64(63)))
        k = _take(np.int64(x & half_mask), thr, send, pos, n, cyc, node, k)  # the low half
        pos += 1
        if pos == draws:  # the high half stays in the generator's buffer
            left = np.int64(x >> np.uint64(32))
            break
        k = _take(np.int64(x >> np.uint64(32)), thr, send, pos, n, cyc, node, k)  # the high half
        pos += 1
    return k, high, low, left


@njit(**dict(NO_NRT, forceinline=True))
def _take(draw, thr, send, pos, n, cyc, node, k):
    """The 32-bit ``draw`` at position ``pos`` (cycle ``pos // n``, node ``pos % n``): ``k`` plus
    one if it creates a packet, which is written at ``k`` while there is room."""
    if (draw >> 8) >= thr:
        return k
    v = pos % n
    if not send[v]:
        return k
    if k < cyc.size:
        cyc[k], node[k] = pos // n, v
    return k + 1
