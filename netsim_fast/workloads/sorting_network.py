"""Batcher's odd-even merge sorting network, and merge-split sorting of blocks with it.

The sort-based h-relation protocol needs a sorting network that can actually be built. The
paper's AKS network has depth ``O(log p)`` but constants in the thousands, so no one builds it;
netsim-fast uses Batcher's odd-even merge sort, of depth ``k(k+1)/2`` on ``2^k`` wires.

Any p is handled by padding to the next power of two with ``+inf`` keys: every comparator
``(i, j)`` has ``i < j`` and puts the minimum on ``i``, so a comparator touching a padded wire
``j >= p`` never moves anything and is dropped (layers left empty are dropped too).

With r keys per processor, each comparator becomes a *merge-split*: the two partners merge
their sorted blocks and the lower one keeps the r smallest keys. A network that sorts single
keys sorts blocks this way (Knuth, TAOCP vol. 3, section 5.3.4, exercise 38).

Notes
-----
Bilardi et al. (papers/002), section 4.2, "Sorting" (AKS with merge-split steps, [28], [30]).
"""

from __future__ import annotations

import numpy as np


def odd_even_merge_layers(p: int) -> list[np.ndarray]:
    """Comparator layers of Batcher's odd-even merge sort on p wires (any p >= 1).

    Returns
    -------
    list of int64 arrays of shape (n_k, 2)
        Layer by layer, the comparators ``(i, j)`` with ``i < j``: after the comparator wire
        ``i`` holds the minimum. Comparators of one layer touch disjoint wires.
    """
    n = 1
    while n < p:
        n *= 2
    layers = []
    block = 1
    while block < n:
        step = block
        while step >= 1:
            pairs = []
            for j in range(step % block, n - step, 2 * step):
                for i in range(min(step, n - j - step)):
                    lo, hi = i + j, i + j + step
                    if lo // (2 * block) == hi // (2 * block) and hi < p:
                        pairs.append((lo, hi))
            if pairs:
                layers.append(np.array(pairs, dtype=np.int64))
            step //= 2
        block *= 2
    return layers


def merge_split_sort(blocks: np.ndarray, layers: list[np.ndarray]) -> np.ndarray:
    """Sort the rows of ``blocks`` jointly with the network ``layers`` of merge-split steps.

    Parameters
    ----------
    blocks : array of shape (p, r)
        Keys of each processor.
    layers : list of int64 arrays of shape (n_k, 2)
        From ``odd_even_merge_layers(p)``.

    Returns
    -------
    array of shape (p, r)
        Row i holds ranks ``i*r .. i*r + r - 1`` of the global sorted order.
    """
    out = np.sort(np.asarray(blocks), axis=1)
    r = out.shape[1]
    for layer in layers:
        lo, hi = layer[:, 0], layer[:, 1]
        merged = np.sort(np.concatenate([out[lo], out[hi]], axis=1), axis=1)
        out[lo] = merged[:, :r]
        out[hi] = merged[:, r:]
    return out
