"""Random h-relations: message sets in which every processor sends and receives at most h.

A relation is two int32 arrays ``src, dst`` of equal length (one entry per message, no
message from a processor to itself), sorted by source. Its degree is
``h = max(r, s)`` with ``r`` (``s``) the most messages sent (received) by one processor.

Notes
-----
Bilardi et al. (papers/002), section 4.2 (``r``, ``s``, ``h = max{r, s}``) and section 4.3,
whose analysis takes every processor to be source and destination of exactly h messages as
the worst case: ``kind="permutations"`` builds exactly that.
"""

from __future__ import annotations

import difflib

import numpy as np

from netsim_fast.errors import ConfigError

KINDS = ("permutations", "random")


def _derangement(p: int, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random permutation of ``range(p)`` without fixed points (by rejection)."""
    while True:
        perm = rng.permutation(p)
        if not np.any(perm == np.arange(p)):
            return perm


def h_relation(p: int, h: int, seed: int = 0, kind: str = "permutations"):
    """A random h-relation on p processors.

    Parameters
    ----------
    p : int
        Number of processors, >= 2.
    h : int
        Messages sent by every processor, >= 1.
    seed : int
        Seed of the numpy Generator.
    kind : {"permutations", "random"}
        ``permutations``: the union of h random derangements, so every processor sends and
        receives exactly h messages (degree exactly h). ``random``: every processor sends h
        messages to uniform destinations other than itself; receive counts vary, so the degree
        ``max(r, s)`` is usually larger than h.

    Returns
    -------
    src, dst : int32 arrays of length p*h
        Sorted by source; within a source the order is random.
    """
    if kind not in KINDS:
        close = difflib.get_close_matches(kind, KINDS, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        raise ConfigError(f"unknown h-relation kind '{kind}'; choose one of {', '.join(KINDS)}{hint}")
    if p < 2 or h < 1:
        raise ConfigError(f"an h-relation needs p >= 2 and h >= 1; got p = {p}, h = {h}")
    rng = np.random.default_rng(seed)
    if kind == "permutations":
        dst = np.stack([_derangement(p, rng) for _ in range(h)], axis=1)  # [p, h]
    else:
        offset = rng.integers(1, p, size=(p, h))
        dst = (np.arange(p)[:, None] + offset) % p
    src = np.repeat(np.arange(p), h)
    return src.astype(np.int32), dst.reshape(-1).astype(np.int32)


def degree(src: np.ndarray, dst: np.ndarray, p: int) -> tuple[int, int, int]:
    """``(r, s, h)``: most sent, most received, and ``max(r, s)``."""
    r = int(np.bincount(src, minlength=p).max(initial=0))
    s = int(np.bincount(dst, minlength=p).max(initial=0))
    return r, s, max(r, s)
