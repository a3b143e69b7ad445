"""A slow, plain-Python packet engine written from the semantics in packet/kernel.py.

Queues are Python lists kept sorted by an explicit order key; distances come from a BFS of
its own; random numbers from a re-implementation of the SplitMix64 ``draw`` with Python
integers. Nothing is shared with the kernel except the topology's port tables.
"""

from collections import deque

MASK = (1 << 64) - 1
G = 0x9E3779B97F4A7C15
H = 0xD1B54A32D192ED03
PATH, TIE, SELECT = 1, 2, 3


def _mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def draw(seed, stream, a, b):
    key = _mix((seed + (stream + 1) * G) & MASK)
    return _mix((key + (a + 1) * G + (b + 1) * H) & MASK)


def bfs_distances(nbr):
    n = len(nbr)
    dist = []
    for s in range(n):
        d = [-1] * n
        d[s] = 0
        todo = deque([s])
        while todo:
            u = todo.popleft()
            for v in nbr[u]:
                if v >= 0 and d[v] < 0:
                    d[v] = d[u] + 1
                    todo.append(v)
        dist.append(d)
    return dist


def simulate(topo, src, dst, release, *, policy="fifo", path_choice="fixed", one_port=False,
             queue_capacity=0, seed=0, max_cycles=10_000):
    """Return (delivered list per packet, hops per packet, max queue length)."""
    seed &= MASK
    nbr = [[int(x) for x in row[:-1]] for row in topo.nbr]  # network ports only
    link_id = [[int(x) for x in row[:-1]] for row in topo.link_id]
    n_ports = len(nbr[0])
    dist = bfs_distances(nbr)
    links = {}  # link id -> (node, port)
    for u in range(len(nbr)):
        for p in range(n_ports):
            if link_id[u][p] >= 0:
                links[link_id[u][p]] = (u, p)

    def minimal(u, d):
        return [p for p in range(n_ports) if nbr[u][p] >= 0 and dist[nbr[u][p]][d] == dist[u][d] - 1]

    def next_port(pkt, u, hops):
        ports = minimal(u, dst[pkt])
        if path_choice == "fixed":
            return ports[0]
        return ports[draw(seed, PATH, pkt, hops) % len(ports)]

    n_pkt = len(src)
    queues = {l: [] for l in links}  # lists of (order key, pkt), kept sorted
    transit = {l: 0 for l in links}
    hops = [0] * n_pkt
    delivered = [-1] * n_pkt
    where = {}  # pkt -> link it waits for
    rr = [0] * len(nbr)
    max_queue = 0
    done = 0
    t = 0

    def put(pkt, link, key):
        nonlocal max_queue
        queues[link].append((key, pkt))
        queues[link].sort()
        where[pkt] = link
        max_queue = max(max_queue, len(queues[link]))

    def pick(link):
        q = queues[link]
        u = links[link][0]
        if policy == "fifo":
            return 0
        if policy == "srpf":
            return min(range(len(q)), key=lambda i: (dist[u][dst[q[i][1]]], i))
        if policy == "lrpf":
            return min(range(len(q)), key=lambda i: (-dist[u][dst[q[i][1]]], i))
        return draw(seed, SELECT, link, t) % len(q)

    def admissible(pkt, link):
        if queue_capacity == 0:
            return True
        u, p = links[link]
        v = nbr[u][p]
        if v == dst[pkt]:
            return True
        nxt = link_id[v][next_port(pkt, v, hops[pkt] + 1)]
        if transit[nxt] >= queue_capacity:
            return False
        transit[nxt] += 1
        return True

    while done < n_pkt:
        if t >= max_cycles:
            raise RuntimeError("naive engine: max_cycles reached")
        for pkt in sorted(range(n_pkt), key=lambda i: (release[i], i)):
            if release[pkt] == t:
                u = src[pkt]
                put(pkt, link_id[u][next_port(pkt, u, 0)], (t, 1, pkt))
        sent = []
        if one_port:
            for u in range(len(nbr)):
                for k in range(n_ports):
                    p = (rr[u] + k) % n_ports
                    link = link_id[u][p]
                    if link < 0 or not queues[link]:
                        continue
                    i = pick(link)
                    pkt = queues[link][i][1]
                    if admissible(pkt, link):
                        queues[link].pop(i)
                        sent.append((pkt, link))
                        rr[u] = (p + 1) % n_ports
                        break
        else:
            for link in sorted(links):
                if queues[link]:
                    i = pick(link)
                    pkt = queues[link][i][1]
                    if admissible(pkt, link):
                        queues[link].pop(i)
                        sent.append((pkt, link))
        for pkt, link in sent:
            if queue_capacity and hops[pkt] > 0:
                transit[link] -= 1
            hops[pkt] += 1
            u, p = links[link]
            v = nbr[u][p]
            if v == dst[pkt]:
                delivered[pkt] = t + 1
                done += 1
                del where[pkt]
            else:
                tie = ((draw(seed, TIE, pkt, hops[pkt]) >> 33) << 32) | pkt
                put(pkt, link_id[v][next_port(pkt, v, hops[pkt])], (t + 1, 0, tie))
        t += 1
    return delivered, hops, max_queue
