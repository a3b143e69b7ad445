"""The booksim router's allocators written from docs/booksim-router.md section 7 on dense
Python lists (``req[i][o]`` a priority pair ``(in_pri, out_pri)`` or None), one step at a
time: the references of netsim_fast/flit/booksim/allocators/. Each returns ``match`` (the
output of each input, -1) and updates its state dict in place."""

from __future__ import annotations


def _rr(cands, ptr, size):
    """cands: [(index, pri)] -> winner: highest pri, then nearest at/after ptr."""
    return max(cands, key=lambda c: (c[1], -((c[0] - ptr) % size)))[0]


def _matrix(cands, mat):
    if len(cands) == 1:
        return cands[0][0]
    for x, px in sorted(cands):
        if not any(i != x and (pi > px or (pi == px and mat[i][x])) for i, pi in cands):
            return x


def _matrix_update(mat, w):
    for i in range(len(mat)):
        if i != w:
            mat[w][i], mat[i][w] = 0, 1


def new_state(n_in, n_out, arb="round_robin"):
    tri = lambda n: [[1 if j < i else 0 for j in range(n)] for i in range(n)]  # noqa: E731
    return {"in_ptr": [0] * n_in, "out_ptr": [0] * n_out, "sc": 0, "arb": arb,
            "in_mat": [tri(n_out) for _ in range(n_in)], "out_mat": [tri(n_in) for _ in range(n_out)]}


def separable(req, st, input_first=True):
    n_in, n_out = len(req), len(req[0])
    match, out_match = [-1] * n_in, [-1] * n_out
    if input_first:
        first, n_first, n_second = [[(o, req[i][o][0]) for o in range(n_out) if req[i][o]] for i in range(n_in)], n_in, n_out
        pri2 = lambda f, s: req[f][s][1]  # noqa: E731
        p1, p2, m1, m2 = st["in_ptr"], st["out_ptr"], st["in_mat"], st["out_mat"]
    else:
        first, n_first, n_second = [[(i, req[i][o][1]) for i in range(n_in) if req[i][o]] for o in range(n_out)], n_out, n_in
        pri2 = lambda f, s: req[s][f][0]  # noqa: E731
        p1, p2, m1, m2 = st["out_ptr"], st["in_ptr"], st["out_mat"], st["in_mat"]
    rr = st["arb"] == "round_robin"
    fwd = [[] for _ in range(n_second)]
    for f in range(n_first):
        if first[f]:
            s = _rr(first[f], p1[f], n_second) if rr else _matrix(first[f], m1[f])
            fwd[s].append((f, pri2(f, s)))
    for s in range(n_second):
        if fwd[s]:
            f = _rr(fwd[s], p2[s], n_first) if rr else _matrix(fwd[s], m2[s])
            if input_first:
                match[f], out_match[s] = s, f
            else:
                match[s], out_match[f] = f, s
            if rr:
                p1[f], p2[s] = (s + 1) % n_second, (f + 1) % n_first
            else:
                _matrix_update(m1[f], s)
                _matrix_update(m2[s], f)
    return match


def wavefront(req, st, rr=False):
    n_in, n_out = len(req), len(req[0])
    sq = max(n_in, n_out)
    match, out_match = [-1] * n_in, [-1] * n_out
    cells = [(i, o) for i in range(n_in) for o in range(n_out) if req[i][o]]
    if not cells:
        return match
    first = -1
    if len(cells) == 1:
        i, o = cells[0]
        match[i], out_match[o], first = o, i, i + o
    else:
        for po, pi in sorted({(req[i][o][1], req[i][o][0]) for i, o in cells}, reverse=True):
            for p in range(sq):
                for o in range(sq):
                    i = (st["sc"] + p + sq - o) % sq
                    if i < n_in and o < n_out and match[i] == -1 and out_match[o] == -1 and req[i][o] \
                            and req[i][o] == (pi, po):
                        match[i], out_match[o] = o, i
                        first = i + o if first < 0 else first
    st["sc"] = ((first if rr else st["sc"]) + 1) % sq
    return match


def loa(req, st):
    n_in, n_out = len(req), len(req[0])
    counts = [sum(1 for i in range(n_in) if req[i][o]) for o in range(n_out)]
    pick = []
    for i in range(n_in):
        order = [(st["in_ptr"][i] + j) % n_out for j in range(n_out)]
        cand = [o for o in order if req[i][o]]
        pick.append(min(cand, key=lambda o: (counts[o], order.index(o))) if cand else -1)
    match = [-1] * n_in
    for o in range(n_out):
        for j in range(n_in):
            i = (st["out_ptr"][o] + j) % n_in
            if pick[i] == o:
                match[i] = o
                st["in_ptr"][i] = (st["in_ptr"][i] + 1) % n_out
                st["out_ptr"][o] = (st["out_ptr"][o] + 1) % n_in
                break
    return match


def select(req, st):
    """One iteration (the default)."""
    n_in, n_out = len(req), len(req[0])
    grant, match = [-1] * n_out, [-1] * n_in
    for o in range(n_out):
        order = [(st["out_ptr"][o] + j) % n_in for j in range(n_in)]
        cand = [i for i in order if req[i][o]]
        if cand:  # first seen of the highest output-side priority
            grant[o] = max(cand, key=lambda i: (req[i][o][1], -order.index(i)))
    for i in range(n_in):
        order = [(st["in_ptr"][i] + j) % n_out for j in range(n_out)]
        cand = [o for o in order if req[i][o] and grant[o] == i]
        if cand:
            o = max(cand, key=lambda o: (req[i][o][0], -order.index(o)))
            match[i] = o
            st["out_ptr"][o], st["in_ptr"][i] = (i + 1) % n_in, (o + 1) % n_out
    return match


def max_size_count(req):
    """The size of a maximum matching (Kuhn's algorithm): what max_size must reach."""
    n_in, n_out = len(req), len(req[0])
    owner = [-1] * n_out

    def try_(i, seen):
        for o in range(n_out):
            if req[i][o] and o not in seen:
                seen.add(o)
                if owner[o] == -1 or try_(owner[o], seen):
                    owner[o] = i
                    return True
        return False

    return sum(try_(i, set()) for i in range(n_in))
