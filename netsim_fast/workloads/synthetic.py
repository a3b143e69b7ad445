"""Open-loop synthetic traffic: Bernoulli packet creation and the classic destination patterns.

Traffic is generated in numpy, not in the kernel, in chunks of ``CHUNK_CYCLES`` cycles aligned
to multiples of it; chunk ``c`` draws from ``Generator(SeedSequence([seed, c]))``. So the
packets of a run depend only on the seed and the pattern, never on how the engine batches its
cycles, and a reference implementation can consume exactly the same packets.

Each node creates a packet of ``packet_flits`` flits in a cycle with probability
``rate / packet_flits`` (Bernoulli injection at ``rate`` flits/node/cycle: a float32 draw per
node and cycle, made by workloads/bernoulli.py's compiled copy of numpy's generator); on/off (bursty)
injection and packet-size mixes are in workloads/injection.py. Destinations:

=========== ===============================================================================
uniform     uniform over the other N-1 nodes
transpose   (x, y) -> (y, x) on a square 2-D grid; else swap the halves of the node id's bits
bitcomp     every coordinate x -> k-1-x on grids; else complement the bits of the id
bitrev      reverse the bits of the id (N a power of two)
shuffle     rotate the bits of the id left by one (N a power of two)
tornado     every coordinate x -> (x + ceil(k/2) - 1) mod k (grids)
neighbor    every coordinate x -> (x + 1) mod k (grids); node i -> i + 1 mod N elsewhere
hotspot     with probability ``hotspot_fraction`` one of ``hotspot_nodes`` (uniform among
            them, never the source itself), otherwise uniform
randperm    a random derangement of the nodes drawn once from the seed
uniform-self uniform over all N nodes, the source included (BookSim2's ``uniform``)
diagonal    the next node (i + 1 mod N) with probability 1/3, else the source itself (BookSim2)
asymmetric  i mod N/2 or i mod N/2 + N/2, each with probability 1/2 (BookSim2; may be itself)
taper64     N = 64: with probability 1/2 a node of the 3x3 block of ids around i (i + 8a + b
            mod 64, a, b uniform in {-1, 0, 1}, itself included), else uniform-self (BookSim2)
worst-case  the topology's adversarial pattern; dragonfly: a random router of the next group
            (group g sends to g + 1 mod G, so minimal routing loads the one global link between
            them: Kim et al., 2008); flatfly and hyperx: a random terminal of the next router
            (router r sends to r + 1 mod N, so minimal routing loads its one link of dimension 0,
            or two links at the end of a row: Kim, Dally and Abts, 2007); fattree and clos: the
            shift i -> i + S mod N by the S terminals of one top-level subtree (k^(n-1); a
            Clos's pod, K^2/4), so every packet climbs to the top level and the up links of
            every level carry the whole load; fly (k-ary n-fly): a digit permutation that puts
            k^(n//2) flows on each channel it uses into stage n//2, saturating at 1/k^(n//2)
            (topologies/fly.py ``worst_case``)
=========== ===============================================================================

The last four are BookSim2's random patterns (``traffic.cpp``): their destinations may be the
source, whose packet then goes through its own router only (0 link hops).

Permutation patterns map some nodes to themselves (the transpose diagonal, say). By default
(``--fixed-points idle``) those nodes create no traffic, and the offered load is measured over
all nodes. With ``--fixed-points self`` they send to themselves at the same rate, through their
own router only, as BookSim2's permutations do (``traffic.cpp`` returns the source as the
destination); ``--booksim-config`` chooses it.

Terminals are numbered router by router (terminal ``r*C + p`` is port ``p`` of router ``r``).
BookSim2 numbers the terminals of its cmesh and flatfly over their floor plan instead: a row of
``k*s`` terminals after another, each router a square tile of ``s*s`` (``floorplan_labels``).
With ``--terminal-numbering floorplan`` the patterns pick destinations by those numbers, so a
permutation (bitcomp, transpose, ...) or ``taper64`` reaches the terminals BookSim2's would.
"""

from __future__ import annotations

import numpy as np

from netsim_fast.errors import ConfigError
from netsim_fast.workloads import bernoulli, registry

CHUNK_CYCLES = 1024

PATTERNS = ("uniform", "transpose", "bitcomp", "bitrev", "shuffle", "tornado", "neighbor", "hotspot", "randperm",
            "uniform-self", "diagonal", "asymmetric", "taper64", "worst-case")
WORST_CASE_TOPOLOGIES = ("dragonfly", "fattree", "clos", "flatfly", "hyperx", "fly")  # where the adversarial pattern is defined so far
registry.register("open-loop", PATTERNS)
PERMUTATIONS = ("transpose", "bitcomp", "bitrev", "shuffle", "tornado", "neighbor", "randperm")
FIXED_POINT_CHOICES = ("idle", "self")
TERMINAL_NUMBERINGS = ("router", "floorplan")
_GRID_ONLY = ("tornado",)
_POW2_ONLY = ("bitrev", "shuffle")


def _bits(n: int) -> int:
    return n.bit_length() - 1


def _is_pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def check_pattern(pattern: str, radix, n_nodes: int, topology: str | None = None) -> None:
    """Raise ConfigError when ``pattern`` cannot be defined on this topology."""
    if pattern == "worst-case" and topology is not None and topology not in WORST_CASE_TOPOLOGIES:
        raise ConfigError(f"--pattern worst-case: is defined on {', '.join(WORST_CASE_TOPOLOGIES)} so far "
                          f"(--topology {topology}: on tori and meshes the adversarial pattern is tornado)")
    grid = radix is not None
    if pattern in _GRID_ONLY and not grid:
        raise ConfigError(f"--pattern {pattern}: needs a torus, mesh or hypercube (it moves coordinates)")
    if pattern in _POW2_ONLY and not _is_pow2(n_nodes):
        raise ConfigError(f"--pattern {pattern}: needs a power-of-two node count, got {n_nodes}")
    if pattern == "transpose":
        square = grid and len(radix) == 2 and radix[0] == radix[1]
        if not square and not (_is_pow2(n_nodes) and _bits(n_nodes) % 2 == 0):
            raise ConfigError(f"--pattern transpose: needs a square 2-D grid or 4^m nodes, got {n_nodes} nodes")
    if pattern == "taper64" and n_nodes != 64:
        raise ConfigError(f"--pattern taper64: needs exactly 64 nodes, got {n_nodes}")
    if pattern == "asymmetric" and n_nodes < 2:
        raise ConfigError(f"--pattern asymmetric: needs at least 2 nodes, got {n_nodes}")
    if pattern == "bitcomp" and not grid and not _is_pow2(n_nodes):
        raise ConfigError(f"--pattern bitcomp: needs a grid or a power-of-two node count, got {n_nodes}")


def permutation(pattern: str, topo, seed: int) -> np.ndarray | None:
    """Fixed destination of every node for permutation patterns (None for random patterns)."""
    n = topo.n_nodes
    ids = np.arange(n, dtype=np.int64)
    coord, radix = topo.arrays.coord.astype(np.int64), topo.arrays.radix.astype(np.int64)
    grid = topo.is_grid

    def from_coord(c):
        strides = np.cumprod(np.concatenate([[1], radix[:-1]]))
        return (c * strides).sum(axis=1)

    if pattern == "transpose":
        if grid and len(radix) == 2 and radix[0] == radix[1]:
            return from_coord(coord[:, ::-1])
        half = _bits(n) // 2
        low, high = ids & ((1 << half) - 1), ids >> half
        return (low << half) | high
    if pattern == "bitcomp":
        return from_coord(radix - 1 - coord) if grid else (n - 1) ^ ids
    if pattern == "bitrev":
        b = _bits(n)
        out = np.zeros_like(ids)
        for i in range(b):
            out |= ((ids >> i) & 1) << (b - 1 - i)
        return out
    if pattern == "shuffle":
        b = _bits(n)
        return ((ids << 1) | (ids >> (b - 1))) & (n - 1)
    if pattern == "tornado":
        return from_coord((coord + (radix + 1) // 2 - 1) % radix)
    if pattern == "neighbor":
        return from_coord((coord + 1) % radix) if grid else (ids + 1) % n
    if pattern == "worst-case" and topo.kind in ("fattree", "clos"):
        from netsim_fast.topologies.fattree import top_subtree_terminals

        return (ids + top_subtree_terminals(topo)) % n
    if pattern == "worst-case" and topo.kind == "fly":
        from netsim_fast.topologies.fly import worst_case

        return worst_case(int(topo.params["k"]), int(topo.params["n"]))
    if pattern == "randperm":
        rng = np.random.default_rng(np.random.SeedSequence([seed, 0x5EED]))
        while True:  # a derangement: expected e draws
            perm = rng.permutation(n)
            if not np.any(perm == ids):
                return perm
    return None


def floorplan_labels(k: int, side: int) -> np.ndarray:
    """int64[T]: BookSim2's number of each terminal (router-by-router order) on the floor plan of
    a k x k grid of routers (router ``x + k*y``), each a tile of ``side`` x ``side`` terminals
    (port ``p`` at row ``p // side``, column ``p % side`` of its tile): rows of ``k*side``
    terminals, bottom first (cmesh.cpp's ``NodeToRouter``/``NodeToPort``, flatfly_onchip.cpp's
    ``flatfly_transformation``, inverted)."""
    c = side * side
    t = np.arange(k * k * c, dtype=np.int64)
    router, port = t // c, t % c
    row = side * (router // k) + port // side
    col = side * (router % k) + port % side
    return row * (k * side) + col


class SyntheticTraffic:
    """Packets created in any cycle range, identical however the range is split."""

    def __init__(self, topo, *, pattern: str, rate: float, packet_flits: int, seed: int,
                 hotspot_fraction: float = 0.0, hotspot_nodes=(0,), injection: str = "bernoulli",
                 burst_length: float | None = None, duty_cycle: float | None = None,
                 packet_sizes=None, packet_mix=None, fixed_points: str = "idle", labels=None):
        from netsim_fast.workloads.injection import OnOff, SizeMix

        self.n_nodes = topo.n_nodes
        self.pattern = pattern
        self.packet_flits = packet_flits
        self.mix = SizeMix(packet_sizes, packet_mix) if packet_sizes else None
        mean_size = self.mix.mean if self.mix else packet_flits
        self.prob = rate / mean_size
        self.seed = seed
        self.hotspot_fraction = hotspot_fraction
        self.hotspot_nodes = np.asarray(hotspot_nodes, dtype=np.int64)
        self.fixed = permutation(pattern, topo, seed)
        # labels[t]: the number the pattern sees for terminal t (floorplan_labels); destinations
        # are drawn among labels and mapped back (the permutation conjugated by the numbering)
        self.labels = None if labels is None else np.asarray(labels, np.int64)
        if self.labels is not None:
            self.unlabel = np.argsort(self.labels)
            if self.fixed is not None:
                self.fixed = self.unlabel[self.fixed[self.labels]]
        self.groups = None  # worst-case: (terminals per group, groups); a Hamming graph's groups are its routers
        if pattern == "worst-case" and self.fixed is None:
            a = int(topo.params["group_routers"]) if "group_routers" in topo.params \
                else int(topo.params.get("concentration", 1))
            self.groups = (a, self.n_nodes // a)
        idle = self.fixed is not None and fixed_points == "idle"
        self.senders = self.fixed != np.arange(self.n_nodes) if idle else np.ones(self.n_nodes, bool)
        self._onoff = (lambda: OnOff(self.n_nodes, self.prob, burst_length, duty_cycle, seed)) \
            if injection == "onoff" else None
        self._chain, self._next = None, 0  # on/off: the chain's state before chunk _next

    def chunk(self, index: int):
        """Packets created in cycles [index*C, (index+1)*C): (src, dst, length, release) sorted
        by (release, src). Under on/off injection the chunks before ``index`` are replayed if
        they were not made just before it (the chain's state runs through them)."""
        if self._onoff is not None and index != self._next:
            self._chain, self._next = None, 0
            while self._next < index:
                self._created(self._next)
        n, c = self.n_nodes, CHUNK_CYCLES
        rng, (cycle, src) = self._created(index)  # row-major: sorted by cycle, then node
        dst = self._destinations(src, rng)
        length = self.mix.draw(rng, src.size) if self.mix else np.full(src.size, self.packet_flits, np.int32)
        return src.astype(np.int32), dst.astype(np.int32), length, (cycle + index * c).astype(np.int64)

    def _created(self, index: int):
        """The chunk's generator (after its creation draws) and its creations: (cycle within
        the chunk, node) pairs in row-major order. Bernoulli: a draw ``u < prob`` per node and
        cycle (workloads/bernoulli.py reads them from the raw generator, same draws)."""
        rng = np.random.default_rng(np.random.SeedSequence([self.seed, index]))
        if self._onoff is None:
            return rng, bernoulli.created(rng, CHUNK_CYCLES, self.senders, self.prob)
        if self._chain is None:
            self._chain = self._onoff()
        self._next = index + 1
        return rng, np.nonzero(self._chain.created(rng, CHUNK_CYCLES, self.senders))

    def _destinations(self, src, rng):
        n = self.n_nodes
        if self.fixed is not None:
            return self.fixed[src]
        if self.pattern in SELF_PATTERNS:
            if self.labels is not None:
                return self.unlabel[_self_destinations(self.pattern, self.labels[src], n, rng)]
            return _self_destinations(self.pattern, src, n, rng)
        if self.pattern == "worst-case":  # a random terminal of the next group (dragonfly) or router
            a, g = self.groups
            return ((src // a + 1) % g) * a + rng.integers(0, a, size=src.size)
        dst = rng.integers(0, n - 1, size=src.size)
        dst = dst + (dst >= src)  # uniform over the other n-1 nodes
        if self.pattern == "hotspot" and self.hotspot_fraction > 0:
            hot = rng.random(src.size) < self.hotspot_fraction
            pick = self.hotspot_nodes[rng.integers(0, self.hotspot_nodes.size, size=src.size)]
            use = hot & (pick != src)
            dst = np.where(use, pick, dst)
        return dst


SELF_PATTERNS = ("uniform-self", "diagonal", "asymmetric", "taper64")


def _self_destinations(pattern: str, src, n: int, rng):
    """Destinations of BookSim2's random patterns, which may be the source itself."""
    if pattern == "uniform-self":
        return rng.integers(0, n, size=src.size)
    if pattern == "diagonal":
        return np.where(rng.integers(0, 3, size=src.size) == 0, (src + 1) % n, src)
    half = n // 2
    if pattern == "asymmetric":
        return src % half + half * rng.integers(0, 2, size=src.size)
    near = rng.random(src.size) < 0.5  # taper64
    block = (src + 8 * rng.integers(-1, 2, size=src.size) + rng.integers(-1, 2, size=src.size)) % 64
    return np.where(near, block, rng.integers(0, n, size=src.size))


def traffic_of(cfg, topo) -> SyntheticTraffic:
    """The open-loop traffic a configuration describes (its pattern, rate, injection process and
    packet sizes, from its seed); closed loop: the request candidates, whose rate leaves room
    for the replies (``--rate`` counts both, workloads/injection.transaction_flits)."""
    rate = cfg.rate
    if getattr(cfg, "closed_loop", False):
        from netsim_fast.workloads.injection import mean_packet_flits, transaction_flits

        rate = cfg.rate * mean_packet_flits(cfg) / transaction_flits(cfg)
    return SyntheticTraffic(topo, pattern=cfg.pattern, rate=rate, packet_flits=cfg.packet_flits, seed=cfg.seed,
                            hotspot_fraction=cfg.hotspot_fraction, hotspot_nodes=cfg.hotspot_nodes,
                            injection=cfg.injection, burst_length=cfg.burst_length, duty_cycle=cfg.duty_cycle,
                            packet_sizes=cfg.packet_sizes, packet_mix=cfg.packet_mix, fixed_points=cfg.fixed_points,
                            labels=terminal_labels(cfg))


def terminal_labels(cfg) -> np.ndarray | None:
    """The floor-plan numbers of ``--terminal-numbering floorplan`` (None: router by router). A
    cmesh's tiles are 2 x 2, a flatfly's sqrt(C) x sqrt(C) on its k x k routers (n = 2)."""
    if getattr(cfg, "terminal_numbering", "router") != "floorplan":
        return None
    k = cfg.dims[0] if cfg.topology == "cmesh" else cfg.k
    return floorplan_labels(k, int(round(cfg.concentration ** 0.5)))


def batch_packets(traffic: SyntheticTraffic, batch: int, class_of=None):
    """BookSim2's batch mode as a finite workload: every node that sends keeps the first
    ``batch`` packets its open-loop process creates, then stops (``FinitePackets``, in release
    order). Chunks are drawn until the slowest node has its batch. ``class_of(chunk, count)``
    (several traffic classes): the classes of a chunk's packets as the open-loop run draws them
    (``workloads/classes.packet_classes``), kept with their packets: ``batch`` counts a node's
    packets of every class together, as BookSim2's per-node sequence number does."""
    from netsim_fast.workloads.packets import FinitePackets

    n = traffic.n_nodes
    counts = np.zeros(n, np.int64)
    parts, index = [], 0
    while traffic.senders.any() and counts[traffic.senders].min() < batch:
        src, dst, length, release = traffic.chunk(index)
        cls = class_of(index, src.size) if class_of is not None else None
        index += 1
        order = np.argsort(src, kind="stable")  # rank of each packet among its source's in this chunk
        first = np.searchsorted(src[order], src[order], side="left")
        rank = np.empty(src.size, np.int64)
        rank[order] = np.arange(src.size) - first
        keep = counts[src] + rank < batch
        counts += np.bincount(src[keep], minlength=n)
        parts.append((src[keep], dst[keep], length[keep], release[keep]) + ((cls[keep],) if cls is not None else ()))
    if not parts:
        return FinitePackets(*(np.zeros(0, t) for t in (np.int32, np.int32, np.int32, np.int64)))
    columns = [np.concatenate(c) for c in zip(*parts)]
    return FinitePackets(*columns[:4], cls=columns[4] if len(columns) > 4 else None)
