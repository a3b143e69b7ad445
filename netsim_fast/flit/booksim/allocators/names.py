"""BookSim2's allocator names: ``islip``, ``pim(3)``, ``separable_input_first(matrix)``...

BookSim2's IQ router takes the iteration count and the arbiter type of an allocator only from
a parenthesised argument of its name (docs/booksim-router.md, section 1): ``islip(N)``,
``pim(N)``, ``select(N)`` set the iterations (default 1), ``separable_*(ARBITER)`` the arbiters
(``round_robin`` or ``matrix``; default round-robin). Plain Python, no Numba: the config checks
names with it.
"""

from __future__ import annotations

import re

NAMES = ("islip", "separable_input_first", "separable_output_first", "wavefront", "rr_wavefront", "pim", "loa",
         "select", "max_size")
ITERATIVE = ("islip", "pim", "select")
SEPARABLE = ("separable_input_first", "separable_output_first")
ARBITERS = ("round_robin", "matrix")


def parse_allocator(value: str) -> tuple[str, int, str]:
    """(name, iterations, arbiter) of an allocator name; ValueError naming what is allowed."""
    m = re.fullmatch(r"([a-z_]+)(?:\(([a-z_0-9]+)\))?", str(value))
    name, arg = (m.group(1), m.group(2)) if m else ("", None)
    if name not in NAMES:
        raise ValueError(f"choose one of {', '.join(NAMES)}")
    if arg is None:
        return name, 1, "round_robin"
    if name in ITERATIVE and re.fullmatch(r"[1-9][0-9]{0,2}", arg):
        return name, int(arg), "round_robin"
    if name in SEPARABLE and arg in ARBITERS:
        return name, 1, arg
    raise ValueError(f"{name} takes {'(N) iterations, 1 to 999' if name in ITERATIVE else '(round_robin) or (matrix)' if name in SEPARABLE else 'no argument'}")
