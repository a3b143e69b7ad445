"""Two (partial) Hamiltonian cycles on a 2-D torus: the two-packet algorithms of section 3.

Frame: the paper's PU (i, j) sits in row i, column j; T, B, L, R are the neighbours above, below,
left and right (row i-1, row i+1, column j-1, column j+1). A PU's *transits* pair its links: a
packet arriving over one link of a pair leaves over the other (section 3.1, "T <-> R").

* Section 3.1 (rows and columns even): columns j < n2-1 with j even use T<->R, B<->L, odd ones
  T<->L, B<->R, and the last column T<->R, B<->L. The two transit classes are two edge-disjoint
  Hamiltonian cycles (Theorem 2).
* Section 3.2 (one side odd): as 3.1, but the PUs of column ``C - 2`` (C the odd number of
  columns) only pass L<->R. Their vertical links carry no cycle, these PUs lie on one cycle each
  (alternating down the column) and are out-of-cycle PUs (OOC-PUs) of the other, supplied by
  their vertical neighbours (Theorem 3, Fig. 2). The paper states the rule for "n1 odd" but
  draws it with the odd side as columns (Fig. 2 is 6 x 7 with the special column 5); we support
  both: dims ``(even, odd)`` is Fig. 2's orientation, ``(odd, even)`` the transposed one.
* Section 3.3 (both odd) depends on a missing figure (Fig. 4) and its row rules conflict with
  3.2's column (a PU would lie twice on one cycle with no free link). We use our own
  construction instead: rows form the first colour class and columns the second, and swapping
  the colours of the unit squares (k, k), k < R (k < R-1 when R = C), then (R-2, k), (R-1, k)
  alternately for k = R .. C-2 (R <= C, else transposed) merges them into two edge-disjoint
  Hamiltonian cycles (a Kotzig-style decomposition, checked for all odd sizes up to 39 x 39 in
  the tests). It has no OOC-PU, so it beats Theorem 4 by one step.

Node ids follow the torus builder: dims ``(n1, n2)`` means row index = dimension 0.
"""

from __future__ import annotations

import numpy as np

from netsim_fast.topologies.base import Topology

# canonical directions: (axis in the canonical frame, sign); axis 0 = rows (i), axis 1 = columns (j)
T, B, L, R = (0, -1), (0, 1), (1, -1), (1, 1)
TYPE_E = ((T, R), (B, L))
TYPE_O = ((T, L), (B, R))
TYPE_H = ((L, R),)


class Frame:
    """Maps the canonical (row, column) frame onto torus dimensions and ports."""

    def __init__(self, topo: Topology, transpose: bool):
        self.topo = topo
        self.transpose = transpose
        radix = [int(k) for k in topo.radix]
        self.rows, self.cols = (radix[1], radix[0]) if transpose else (radix[0], radix[1])

    def node(self, i, j):
        i = np.asarray(i) % self.rows
        j = np.asarray(j) % self.cols
        d0, d1 = (j, i) if self.transpose else (i, j)
        return d0 + d1 * int(self.topo.radix[0])

    def port(self, direction) -> int:
        axis, sign = direction
        dim = (1 - axis) if self.transpose else axis
        return int(self.topo.arrays.dim_port[dim, 0 if sign > 0 else 1])


def transit_grid(rows: int, cols: int, special_col: int | None) -> list[list[tuple]]:
    """Per (i, j) the transit pairs of sections 3.1 / 3.2 in the canonical frame."""
    grid = []
    for i in range(rows):
        row = []
        for j in range(cols):
            if j == special_col:
                row.append(TYPE_H)
            elif j == cols - 1 or j % 2 == 0:
                row.append(TYPE_E)
            else:
                row.append(TYPE_O)
        grid.append(row)
    return grid


def transits_to_ports(frame: Frame, grid) -> dict:
    """node -> list of (port, port) transit pairs."""
    out = {}
    for i, row in enumerate(grid):
        for j, pairs in enumerate(row):
            out[int(frame.node(i, j))] = [(frame.port(a), frame.port(b)) for a, b in pairs]
    return out


def follow_transits(topo: Topology, transits: dict) -> list[np.ndarray]:
    """Closed walks obtained by following the transits, each once, in order of discovery.

    Raises ValueError when a link is used by one end's transits but not by the other's.
    """
    partner = {}
    for u, pairs in transits.items():
        for a, b in pairs:
            partner[u, a] = b
            partner[u, b] = a
    seen = set()
    walks = []
    for u in sorted(transits):
        for a, b in transits[u]:
            if (u, b) in seen:
                continue
            walk, node, out = [], u, b
            while (node, out) not in seen:
                seen.add((node, out))
                walk.append(node)
                nxt = int(topo.nbr[node, out])
                inp = int(topo.nbr_in_port[node, out])
                if (nxt, inp) not in partner:
                    raise ValueError(f"link {node}->{nxt} is a transit of {node} but not of {nxt}")
                seen.add((nxt, inp))
                node, out = nxt, partner[nxt, inp]
            walks.append(np.array(walk, np.int64))
    return walks


def cycles_3_1_3_2(topo: Topology) -> tuple[list[np.ndarray], Frame]:
    """The two cycles of section 3.1 (both sides even) or 3.2 (one side odd)."""
    n1, n2 = (int(k) for k in topo.radix)
    transpose = n2 % 2 == 0 and n1 % 2 == 1
    frame = Frame(topo, transpose)
    special = frame.cols - 2 if frame.cols % 2 else None
    grid = transit_grid(frame.rows, frame.cols, special)
    return follow_transits(topo, transits_to_ports(frame, grid)), frame


def square_switch_squares(rows: int, cols: int) -> list[tuple[int, int]]:
    """Unit squares (top-left corner) whose colours are swapped; requires rows <= cols."""
    if rows == cols:
        return [(k, k) for k in range(rows - 1)]
    squares = [(k, k) for k in range(rows)]
    squares += [(rows - 2 if (k - rows) % 2 == 0 else rows - 1, k) for k in range(rows, cols - 1)]
    return squares


def cycles_square_switch(topo: Topology) -> tuple[list[np.ndarray], Frame]:
    """Two edge-disjoint Hamiltonian cycles for odd x odd tori (our replacement of section 3.3)."""
    n1, n2 = (int(k) for k in topo.radix)
    frame = Frame(topo, transpose=n1 > n2)
    rows, cols = frame.rows, frame.cols
    # colour[i, j, 0]: edge (i,j)-(i,j+1) (horizontal), colour[i, j, 1]: edge (i,j)-(i+1,j)
    colour = np.zeros((rows, cols, 2), np.int8)
    colour[:, :, 1] = 1
    for i, j in square_switch_squares(rows, cols):
        i1, j1 = (i + 1) % rows, (j + 1) % cols
        top, bot, left, right = (i, j, 0), (i1, j, 0), (i, j, 1), (i, j1, 1)
        if not (colour[top] == colour[bot] == 0 and colour[left] == colour[right] == 1):
            raise ValueError(f"square ({i}, {j}) is not red/blue/red/blue when it is swapped")
        for e in (top, bot):
            colour[e] = 1
        for e in (left, right):
            colour[e] = 0
    transits = {}
    for i in range(rows):
        for j in range(cols):
            edges = {R: colour[i, j, 0], L: colour[i, (j - 1) % cols, 0],
                     B: colour[i, j, 1], T: colour[(i - 1) % rows, j, 1]}
            pairs = [tuple(dr for dr, c in edges.items() if c == k) for k in (0, 1)]
            transits[int(frame.node(i, j))] = [(frame.port(a), frame.port(b)) for a, b in pairs]
    return follow_transits(topo, transits), frame
