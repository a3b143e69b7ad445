"""Routing algorithms: name -> integer code tables (pure Python, cheap to import).

The @njit next-hop functions live in the algorithm modules (``grid.py``, ...) and are reached
through ``routing.dispatch.next_hops`` by integer code, so kernels never call Python per hop.
Every routing function shares one contract (BookSim's ``OutputSet``): it writes candidate
rows ``(port, vc_lo, vc_hi, priority)`` into a preallocated ``int32[MAX_ROWS, 4]`` array and
returns the row count; lower priority values are tried first.
"""

DOR = 0
DUATO = 1
DOR_NODATELINE = 2
TABLE = 3  # any next-port table (minimal, the BMG routers) with one VC class per hop
VALIANT = 4  # dragonfly: minimal to a random intermediate group, then minimal (routing/dragonfly_valiant.py)
UGAL_L = 5   # dragonfly: minimal or one Valiant candidate, by the source router's own queues
UGAL_G = 6   # dragonfly: the same choice from every queue on both paths (an idealised reference)
UPDOWN = 7   # up*/down* next-port table, every VC at every hop (routing/updown.py)
DIM_ADAPTIVE = 8  # HyperX, flatfly: dimension order, any parallel link (routing/hamming_adaptive.py)
MIN_ADAPTIVE = 9  # HyperX, flatfly: any unaligned dimension, Duato escape on dim-adaptive
DEST_TAG = 10  # the butterfly's destination-tag table, every VC at every hop (routing/fly.py)

CODES = {
    "dor": DOR,
    "duato": DUATO,
    "dor-nodateline": DOR_NODATELINE,
}
# Routings the flit engine runs from a next-port table (routing/tables.py), code TABLE.
TABLE_ROUTINGS = ("minimal", "bmg-bfs", "bmg-basic", "bmg-variant", "bmg-bitcount", "bmg-cbe",
                  "bmg-equiclass", "chord")
# Non-minimal routings of the dragonfly (flit engine, lanes and iq routers): a per-packet
# intermediate group on top of the dragonfly's minimal table, VC class = global hops crossed.
NONMIN_ROUTINGS = {"valiant": VALIANT, "ugal-l": UGAL_L, "ugal-g": UGAL_G}
# Up*/down* from its own table, every VC at every hop (routing/updown.py), code UPDOWN.
UPDOWN_ROUTINGS = {"updown": UPDOWN}
# Minimal adaptive routings of the Hamming graphs (routing/hamming_adaptive.py).
ADAPTIVE_ROUTINGS = {"dim-adaptive": DIM_ADAPTIVE, "min-adaptive": MIN_ADAPTIVE}
NONMIN_CLASSES = 3  # VC classes they need: 0 before the first global hop, 1 after it, 2 after the second
NAMES = {code: name for name, code in CODES.items()}

# Routings of the flit engine on grid topologies (coordinates and per-direction ports).
GRID_ROUTINGS = ("dor", "duato", "dor-nodateline")



def needs_datelines(topology: str, dims) -> bool:
    """True when the topology has a ring dimension of radix > 2 (dateline VC classes)."""
    return topology == "torus" and any(k > 2 for k in dims)


MAX_ROWS = 64  # the least scratch a router gets: more than 2 rows per dimension of any grid we accept


def candidate_rows(n_ports: int) -> int:
    """Rows of routing scratch a router with ``n_ports`` ports needs.

    A table routing writes one row per allowed port (at most ``n_ports``); a grid routing at
    most one per productive direction plus an escape row. The kernels are compiled without
    bounds checks, so the scratch is sized from the topology here, never from a fixed bound.
    """
    return max(MAX_ROWS, n_ports + 2)
