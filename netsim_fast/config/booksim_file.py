"""BookSim2 configuration files: the reader, the three published key lists, the mapping to ``Config``.

For ``netsim-fast run --booksim-config FILE [key=value ...]`` and the booksim router. The format
is what BookSim2's lexer and grammar accept (``src/config.l``, ``src/config.y``): statements
``key = value;`` (at least one), ``//`` comments to the end of the line; a value is an integer
(``-3``), a decimal number (``.5``, ``-1e-3``), a bare word of letters, digits and
``_ - / . + ( ) { } ,`` not starting with a digit (``islip``, ``./net.txt``), or a {list}
without spaces (``{{1,2},{4}}``), kept as the text BookSim2 stores. Keys are typed as BookSim2
declares them: an undeclared key, an integer for a decimal key (``internal_speedup = 1;``) or a
decimal for an integer key (``k = 8.0;``) is refused with the file and line. A later assignment
replaces an earlier one, except that BookSim2 keeps a key's {list} (or ``seed = time``) over any
number whatever the order: a number after such a value would be lost, so that is refused.
``parse_overrides`` reads command-line ``key=value`` pairs as BookSim2 does (each parsed with
``;`` appended: ``a=1;b=2`` sets two keys) and ``merge`` lays them over a file's keys.

Each key BookSim2 declares (``src/booksim_config.cpp``) is in one published list: ``SUPPORTED``
(honoured by the booksim router, some at one value only), ``IGNORED`` (output and diagnostics
only: accepted, to be named once on stderr) or ``REJECTED`` (all refused up front in one line).
``to_config_fields`` maps a parsed file onto ``Config`` fields, with ``DEFAULTS`` (BookSim2's)
for the keys not given. docs/booksim-keys.md has the table.
"""

from __future__ import annotations

import difflib
import math
import re

from netsim_fast.checks import bad

from netsim_fast.config.booksim_keys import (  # noqa: F401  (re-exported: the published lists)
    AT_DEFAULT_ONLY, DEFAULTS, IGNORED, REJECTED, SLOTS, SUPPORTED, TIME_KEYS,
)
from netsim_fast.config.booksim_networks import read_network


def classify(keys) -> tuple[list[str], list[str], list[str]]:
    """The keys split into (supported, ignored, rejected), in order, once each; unknown keys are rejected."""
    out = ([], [], [])
    for key in dict.fromkeys(keys):
        out[0 if key in SUPPORTED else 1 if key in IGNORED else 2].append(key)
    return out


# -- the reader ---------------------------------------------------------------------------------
# BookSim2's lexer: the longest match wins, ties go to the earlier rule.
_RULES = [(kind, re.compile(rx)) for kind, rx in (
    ("comment", r"//[^\n]*"),
    ("space", r"[ \t\r]+"),
    ("newline", r"\n"),
    ("word", r"\{[A-Za-z0-9_\-.({,)}]+\}"),
    ("int", r"-?[0-9]+"),
    ("float", r"-?[0-9]*\.[0-9]+"),
    ("float", r"-?([0-9]*\.)?[0-9]+([eE][+-]?[0-9]+)?"),
    ("word", r"[A-Za-z_\-/.][A-Za-z0-9_\-/.+({,)}]*"),
    ("char", r"."),
)]
_KIND_WORDS = {"i": "an integer", "f": "a decimal number (such as 1.0)", "s": "a word or a {list}"}


def _tokens(text: str):
    """(kind, text, line) of each token; comments, spaces and line breaks dropped."""
    pos, line = 0, 1
    while pos < len(text):
        kind, match = None, None
        for rule_kind, rx in _RULES:
            m = rx.match(text, pos)
            if m and m.end() > pos and (match is None or m.end() > match.end()):
                kind, match = rule_kind, m
        pos = match.end()
        if kind == "newline":
            line += 1
        elif kind not in ("comment", "space"):
            yield kind, match.group(), line
    yield "end", "", line


def _statements(text: str, where):
    """(key, value, line) of each ``key = value;``; ``where(line)`` names a place in errors."""
    expect, out, key, value, start = "key", [], None, None, 1
    wanted = {"key": "a key", "=": "'='", "value": "a value", ";": "';'"}
    for kind, tok, line in _tokens(text):
        if expect == "key" and kind == "word":
            key, start, expect = tok, line, "="
        elif expect == "=" and tok == "=" and kind == "char":
            expect = "value"
        elif expect == "value" and kind in ("word", "int", "float"):
            value, expect = tok if kind == "word" else int(tok) if kind == "int" else float(tok), ";"
            if kind == "int" and not -2**31 <= value < 2**31:
                raise bad("booksim-config", where(line), f"{key} = {tok}: out of the range of a C int")
        elif expect == ";" and tok == ";" and kind == "char":
            out.append((key, value, start))
            expect = "key"
        elif kind == "end" and expect == "key":
            if not out:
                raise bad("booksim-config", where(line), "no 'key = value;' statement (BookSim2 refuses an empty file)")
            return out
        else:
            found = "the end of the text" if kind == "end" else repr(tok)
            raise bad("booksim-config", where(line), f"expected {wanted[expect]} ('key = value;'), found {found}")


def _check_type(key: str, value, place: str) -> None:
    slots = SLOTS.get(key)
    if slots is None:
        close = difflib.get_close_matches(key, list(SLOTS), n=1) if key not in REJECTED else []
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise bad("booksim-config", place, f"{key}: {REJECTED.get(key, 'not a BookSim2 option')}{hint}")
    kind = "s" if isinstance(value, str) else "i" if isinstance(value, int) else "f"
    if kind not in slots:
        allowed = " or ".join(_KIND_WORDS[s] for s in slots)
        raise bad("booksim-config", place, f"{key} = {value}: BookSim2 reads {key} as {allowed}")


def _assign(out: dict, key: str, value, place: str) -> None:
    old = out.get(key)
    if isinstance(old, str) and not isinstance(value, str) and len(SLOTS[key]) > 1 \
            and (key not in TIME_KEYS or old == "time"):
        raise bad("booksim-config", place, f"{key} = {value} would be lost: BookSim2 keeps the earlier "
                                           f"{key} = {old} over any number; give {key} once")
    out[key] = value


def parse_booksim(text: str, source: str) -> dict[str, int | float | str]:
    """The keys a BookSim2 configuration text sets; ConfigError naming ``source`` and the line."""
    out = {}
    for key, value, line in _statements(text, lambda line: f"{source}:{line}"):
        _check_type(key, value, f"{source}:{line}")
        _assign(out, key, value, f"{source}:{line}")
    return out


def parse_overrides(args: list[str]) -> dict[str, int | float | str]:
    """Command-line ``key=value`` pairs, read like BookSim2's: the same syntax, later ones win."""
    out = {}
    for arg in args:
        if "=" not in arg:
            raise bad("booksim-config", arg, "expected key=value, such as injection_rate=0.2")
        for key, value, _ in _statements(arg + ";", lambda _line, arg=arg: arg):
            _check_type(key, value, arg)
            _assign(out, key, value, arg)
    return out


def merge(parsed: dict, overrides: dict) -> dict:
    """A file's keys with the command-line overrides laid over them (BookSim2's order rule kept)."""
    out = dict(parsed)
    for key, value in overrides.items():
        _assign(out, key, value, f"{key}={value}")
    return out


# -- the mapping --------------------------------------------------------------------------------
_PATTERNS = {"uniform": "uniform-self", **{p: p for p in ("transpose", "bitcomp", "bitrev", "shuffle", "tornado",
                                                            "neighbor", "randperm", "diagonal", "asymmetric", "taper64")}}
_ALLOCATORS = ("islip", "pim", "select", "max_size", "loa", "wavefront", "rr_wavefront",
               "separable_input_first", "separable_output_first")
_PRIORITIES = ("none", "class", "age", "network_age", "local_age", "queue_length", "hop_count", "sequence")
_FLAGS = ("use_noc_latency", "noq", "speculative", "wait_for_tail_credit", "vc_busy_when_full",
          "vc_prioritize_empty", "hold_switch_for_packet", "include_queuing")
# Keys BookSim2 reads as one value per traffic class: a {list} gives the classes in turn.
_PER_CLASS = ("traffic", "injection_process", "injection_rate", "packet_size", "packet_size_rate", "use_read_write",
              "write_fraction", "read_request_size", "read_reply_size", "write_request_size", "write_reply_size",
              "measure_stats", "latency_thres", "warmup_thres", "acc_warmup_thres", "stopping_thres",
              "acc_stopping_thres")
_INT = re.compile(r"-?[0-9]+")
_FLOAT = re.compile(r"-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _split(text: str) -> list[str]:
    """BookSim2's split of a {list} at its top level (empty items dropped); a word is one item."""
    if not text.startswith("{"):
        return [text]
    items, depth, start = [], 0, 1
    for i in range(1, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}" and depth:
            depth -= 1
        elif text[i] in ",}" and not depth:
            if i > start:
                items.append(text[start:i])
            start = i + 1
    if depth or not items:
        raise bad("booksim-config", text, "an unbalanced or empty {list}")
    return items


class _Reader:
    """The values of one configuration (the given keys over ``DEFAULTS``), checked as read."""

    def __init__(self, parsed: dict):
        self.values = {**DEFAULTS, **parsed}
        self.classes = 1  # read first of all (_classes): the per-class keys depend on it

    def fail(self, key: str, allowed: str):
        return bad("booksim-config", f"{key}={self.values[key]}", allowed)

    def per_class(self, key: str) -> list:
        """The value of each class, as BookSim2 reads a {list} (the last item repeated for the
        classes past its end, items past the classes ignored)."""
        value = self.values[key]
        items = _split(value) if isinstance(value, str) else [value]
        if len(items) > self.classes:  # BookSim2 would quietly drop the rest: a slip, not a setting
            raise self.fail(key, f"one value per traffic class: {len(items)} given for classes = {self.classes}")
        return items + [items[-1]] * (self.classes - len(items))

    def one(self, key: str):
        """The value every traffic class shares (a one-item {list} gives its item)."""
        if key not in _PER_CLASS:
            return self.values[key]
        items = self.per_class(key)
        if any(item != items[0] for item in items):
            raise self.fail(key, f"netsim-fast's {self.classes} classes share one {key} (only injection_rate "
                                 "may differ from class to class); give one value")
        return items[0]

    def number(self, key: str, kind=int, low=None, high=None, what=""):
        value = self.one(key)
        if isinstance(value, str) and (_INT if kind is int else _FLOAT).fullmatch(value):
            value = kind(value)
        if isinstance(value, str) or (kind is int and isinstance(value, float)) or not math.isfinite(value):
            raise self.fail(key, f"expected {'an integer' if kind is int else 'a number'}{what}")
        if (low is not None and value < low) or (high is not None and value > high):
            raise self.fail(key, f"must be {f'>= {low}' if high is None else f'in [{low}, {high}]'}{what}")
        return value

    def choice(self, key: str, choices, what=""):
        if self.one(key) not in choices:
            raise self.fail(key, f"{what}choose one of {', '.join(choices)}")
        return self.one(key)


def _arbiter_ok(text) -> bool:
    m = re.fullmatch(r"tree\(([1-9][0-9]*),(.+)\)", str(text))
    return text in ("round_robin", "matrix") or bool(m and _arbiter_ok(m.group(2)))


def _allocator(r: _Reader, key: str) -> str:
    value = r.values[key]
    if key == "vc_allocator" and value == "piggyback":
        if not r.values["speculative"]:
            raise r.fail(key, "piggyback VC allocation needs speculative = 1")
        return value
    m = re.fullmatch(r"([a-z_]+)(?:\((.*)\))?", str(value))
    name, param = (m.group(1), m.group(2)) if m else ("", None)
    ok = name in _ALLOCATORS and (param is None or (re.fullmatch(r"[1-9][0-9]*", param) if name in (
        "islip", "pim", "select") else name.startswith("separable") and _arbiter_ok(param)))
    if not ok:
        raise r.fail(key, f"choose one of {', '.join(_ALLOCATORS)}{', piggyback' if key == 'vc_allocator' else ''}; "
                          "islip(N), pim(N) and select(N) set the iterations, separable_*(ARBITER) the arbiter")
    return value


def _mean_size(mix) -> float:
    """Mean packet size, in flits, of a (size, weight) mix."""
    return sum(s * w for s, w in mix) / sum(w for _, w in mix) if len(mix) > 1 else mix[0][0]


def _packet_sizes(r: _Reader) -> tuple[tuple[int, int], ...]:
    """(size, weight) of each packet size of the one class, in BookSim2's order."""
    def items(key, hint):
        value = r.values[key]
        if not isinstance(value, str):
            return [value]
        classes = _split(value)
        if len(classes) > r.classes:
            raise r.fail(key, f"one list per traffic class ({len(classes)} given for classes = {r.classes}); "
                              f"write one class's as {hint}")
        if any(c != classes[0] for c in classes):
            raise r.fail(key, f"netsim-fast's {r.classes} classes share one packet size mix; give one class's, "
                              f"as {hint}")
        return [int(v) if _INT.fullmatch(v) else -1 for v in _split(classes[0])]

    sizes, rates = items("packet_size", "{{4,8}}"), items("packet_size_rate", "{{1,3}}")
    if min(sizes) < 1:
        raise r.fail("packet_size", "expected whole numbers of flits >= 1")
    if len(rates) > len(sizes):
        raise r.fail("packet_size_rate", f"more weights than packet sizes ({len(sizes)})")
    rates += [rates[-1]] * (len(sizes) - len(rates))  # BookSim2 repeats the last weight
    if min(rates) < 0 or (len(sizes) > 1 and sum(rates) == 0):
        raise r.fail("packet_size_rate", "expected integer weights >= 0, not all 0")
    return tuple(zip(sizes, rates))


def _router(r: _Reader, out: dict, topology: str) -> None:
    vcs = out["vcs"] = r.number("num_vcs", low=1)
    buf_size = r.number("buf_size")
    if buf_size == 0 or 0 < buf_size < vcs:
        raise r.fail("buf_size", f"give at least one flit per VC (>= num_vcs = {vcs}), or -1 to use vc_buf_size")
    out["buf"] = buf_size // vcs if buf_size > 0 else r.number("vc_buf_size", low=1)
    for key in _FLAGS:
        out[key] = bool(r.number(key, low=0, high=1, what=" (0 or 1)"))
    for key in ("routing_delay", "st_prepare_delay", "st_final_delay", "credit_delay"):
        out[key] = r.number(key, low=0, what=" cycles")
    for key in ("vc_alloc_delay", "sw_alloc_delay", "input_speedup", "output_speedup", "alloc_iters"):
        out[key] = r.number(key, low=1)
    out["internal_speedup"] = r.number("internal_speedup", float)
    if out["internal_speedup"] <= 0:
        raise r.fail("internal_speedup", "must be > 0 router cycles per network cycle")
    out["output_buffer_size"] = r.number("output_buffer_size", low=-1)
    if out["output_buffer_size"] == 0:
        raise r.fail("output_buffer_size", "expected -1 (unbounded) or a size >= 1 flit")
    if out["noq"] and out["routing_delay"]:
        raise r.fail("noq", "next-hop output queueing needs lookahead routing (routing_delay = 0)")
    if out["noq"] and topology in ("mesh", "torus") and vcs < 2 * out["n"] + 1:
        raise r.fail("noq", f"next-hop output queueing needs num_vcs >= the router's {2 * out['n'] + 1} outputs")
    out["vc_allocator"], out["sw_allocator"] = _allocator(r, "vc_allocator"), _allocator(r, "sw_allocator")
    if not _arbiter_ok(r.values["arb_type"]):
        raise r.fail("arb_type", "choose round_robin, matrix or tree(GROUPS,ARBITER)")
    out["arb_type"], out["priority"] = r.values["arb_type"], r.choice("priority", _PRIORITIES)


def _traffic(r: _Reader, out: dict) -> None:
    traffic = r.one("traffic")
    if traffic not in _PATTERNS:
        raise r.fail("traffic", f"choose one of {', '.join(_PATTERNS)} (hotspot, background, bad_dragon, "
                                "badperm_yarc and parameters in parentheses are not supported)")
    from netsim_fast.workloads.synthetic import PERMUTATIONS

    out["pattern"] = _PATTERNS[traffic]
    if out["pattern"] in PERMUTATIONS:
        out["fixed_points"] = "self"  # BookSim2's permutations send a node mapped to itself to itself
    rw = _read_write(r, out)
    mix = _packet_sizes(r) if rw is None else ((out["packet_flits"], 1),)
    mean = _mean_size(mix) if rw is None else rw  # read/write: a request and its reply, as BookSim2 counts
    rates = r.rates
    rate = sum(rates)
    uses_flits = r.number("injection_rate_uses_flits", low=0, high=1, what=" (0 or 1)")
    if not 0 <= (rate / mean if uses_flits else rate) <= 1:  # BookSim2's limit, in packets
        raise r.fail("injection_rate", f"BookSim2 takes 0 to 1 packets per node per cycle (packets of {mean:g} flits)"
                     + (f"; netsim-fast creates at most one packet per node per cycle over all {r.classes} classes"
                        if r.classes > 1 else ""))
    out["rate"] = rate if uses_flits else rate * mean  # flits per node per cycle
    if r.classes > 1:  # one process at the summed rate whose packets draw their class by its rate
        out["class_mix"] = tuple(rates) if rate > 0 else None
    out["packet_size_mix"] = mix if len(mix) > 1 else None  # several sizes: no packet_flits
    if len(mix) == 1 and rw is None:
        out["packet_flits"] = mix[0][0]
    _injection(r, out, out["rate"] / mean)


def _read_write(r: _Reader, out: dict) -> float | None:
    """``use_read_write = 1``: request-reply traffic (``--closed-loop`` with no outstanding limit,
    which BookSim2 has outside batch mode): read and write sizes, ``write_fraction`` and the
    eight VC-range keys (-1: BookSim2's halves). Returns the flits of a transaction as BookSim2
    counts the injection rate in (half the sum of the four sizes), or None without it."""
    if r.number("use_read_write", low=0, high=1, what=" (0 or 1)") == 0:
        return None
    from netsim_fast.config.closed_loop import RW_VC_KEYS

    sizes = {key: r.number(key, low=1, what=" flits") for key in
             ("read_request_size", "read_reply_size", "write_request_size", "write_reply_size")}
    out.update(closed_loop=True, outstanding=0, packet_flits=sizes["read_request_size"],
               reply_flits=sizes["read_reply_size"], write_request_flits=sizes["write_request_size"],
               write_reply_flits=sizes["write_reply_size"],
               write_fraction=r.number("write_fraction", float, low=0, high=1))
    vcs = int(out.get("vcs", r.number("num_vcs", low=1)))
    ranges = [r.number(key) for key in RW_VC_KEYS]
    halves = (0, vcs // 2 - 1, 0, vcs // 2 - 1, vcs // 2, vcs - 1, vcs // 2, vcs - 1)
    out["rw_vcs"] = tuple(halves[i] if x < 0 else x for i, x in enumerate(ranges))
    for i, x in enumerate(out["rw_vcs"]):
        if not 0 <= x < vcs or (i % 2 and x < out["rw_vcs"][i - 1]):
            raise r.fail(RW_VC_KEYS[i], f"needs 0 <= begin <= end < num_vcs = {vcs} (or -1: BookSim2's halves)")
    return sum(sizes.values()) / 2


def _classes(r: _Reader, out: dict) -> None:
    """``classes``, and each class's ``class_priority`` and ``injection_rate`` (``r.rates``), as
    BookSim2's ``GetIntArray`` and ``GetFloatArray`` read them (the last item repeated)."""
    from netsim_fast.config.workload import MAX_CLASSES

    r.classes = r.number("classes", low=1, high=MAX_CLASSES, what=" traffic classes")
    for key, pattern, low in (("injection_rate", _FLOAT, 0), ("class_priority", _INT, 0)):
        items = r.per_class(key)
        if not all(pattern.fullmatch(str(x)) and low <= float(x) < 1 << 30 for x in items):
            raise r.fail(key, f"expected {'numbers' if pattern is _FLOAT else 'integers'} >= 0, one per class")
        if key == "injection_rate":
            r.rates = [float(x) for x in items]
        elif r.classes > 1:
            out.update(classes=r.classes, class_priority=tuple(int(x) for x in items))


def _injection(r: _Reader, out: dict, load: float) -> None:
    """``on_off``: BookSim2's alpha, beta and r1 (two given, the third derived from the load in
    packets per cycle, as ``injection.cpp`` does) as a duty cycle alpha / (alpha + beta) and a
    mean burst of r1 / beta packets, which give back the same chain."""
    text = str(r.one("injection_process"))
    name, _, args = text.partition("(")
    if name == "bernoulli" and not args:
        return
    if name != "on_off":
        raise r.fail("injection_process", "choose bernoulli or on_off (also on_off(ALPHA,BETA[,R1]))")
    try:
        given = [float(x) for x in args.rstrip(")").split(",") if x] if args else []
    except ValueError:
        raise r.fail("injection_process", "on_off(ALPHA,BETA[,R1]) takes numbers") from None
    keys = ("burst_alpha", "burst_beta", "burst_r1")
    alpha, beta, r1 = (given[i] if i < len(given) else r.number(key, float) for i, key in enumerate(keys))
    if sum(v >= 0 for v in (alpha, beta, r1)) != 2 or max(alpha, beta, r1) > 1:
        raise r.fail("injection_process", "on_off needs exactly two of burst_alpha, burst_beta, burst_r1 in [0, 1] "
                                          "(the third negative: derived from injection_rate)")
    if alpha < 0:
        alpha = beta * load / (r1 - load) if r1 > load else -1.0
    elif beta < 0:
        beta = alpha * (r1 - load) / load if load > 0 else -1.0
    else:
        r1 = load * (alpha + beta) / alpha if alpha > 0 else -1.0
    if not (0 < alpha <= 1 and 0 < beta <= 1 and 0 < r1 <= 1):
        raise r.fail("injection_process", f"on_off at injection_rate {load:g} packets gives alpha {alpha:g}, beta "
                                          f"{beta:g}, r1 {r1:g}: each must be a probability in (0, 1]")
    out.update(injection="onoff", duty_cycle=alpha / (alpha + beta), burst_length=r1 / beta)


def _run_control(r: _Reader, out: dict) -> None:
    out["sim_type"] = r.choice("sim_type", ("latency", "throughput", "batch"))
    if out["sim_type"] == "batch":
        _batch(r, out)
    out["warmup_periods"] = r.number("warmup_periods", low=0, what=" sample periods")
    for key in ("sample_period", "max_samples", "sim_count"):
        out[key] = r.number(key, low=1)
    for key in ("warmup_thres", "acc_warmup_thres", "stopping_thres", "acc_stopping_thres"):
        out[key] = r.number(key, float, what=" (negative: off)")
    thres = r.number("latency_thres", float)
    if thres >= 0 and (thres < 1 or thres != int(thres)):
        raise r.fail("latency_thres", "expected a whole number of cycles >= 1, or a negative value (off)")
    out["latency_limit"] = int(thres) if thres >= 0 else 0
    for key in ("seed", "perm_seed"):
        if r.values[key] == "time":
            raise r.fail(key, "netsim-fast runs are reproducible: give an integer seed >= 0, not time")
        out[key] = r.number(key, low=0)


def _batch(r: _Reader, out: dict) -> None:
    """BookSim2's batch mode (``batchtrafficmanager.cpp``): every node issues ``batch_size``
    packets, one whenever its source queue is empty, ignoring ``injection_rate`` and the
    injection process; the i-th packet's creation time is its qtime, i (docs/booksim-router.md
    4.1). That is ``--batch`` at one packet per node per cycle, whose i-th packet is created at
    cycle i and waits in the source queue as BookSim2's would."""
    out["batch"] = r.number("batch_size", low=1, what=" packets per node")
    if r.classes > 1:  # a source queue per class, refilled on its own: shares follow the draining
        raise r.fail("classes", "with sim_type = batch is not mapped: BookSim2 keeps a source queue per class and "
                                "issues a packet of a class whenever that queue is empty (ignoring injection_rate), "
                                "so its classes' shares follow how fast each drains, where netsim-fast creates at "
                                "most one packet per node per cycle, its class drawn from fixed shares; use "
                                "classes = 1, or --batch with --classes and --class-mix on the command line")
    out["rate"] = float(_mean_size(_packet_sizes(r)))  # one packet per node per cycle, in flits
    for key in ("injection", "duty_cycle", "burst_length"):
        out.pop(key, None)


def _link_failures(r: _Reader, topology: str) -> None:
    """``link_failures``: only 0, for the reason BookSim2 gives on each network
    (``Network::InsertRandomFaults`` and its overrides; docs/booksim-keys.md)."""
    if r.values["link_failures"] in (0, "0"):
        return
    if topology in ("mesh", "torus"):
        why = ("BookSim2 aborts on it on a mesh or torus (KNCube::InsertRandomFaults fails its assertion "
               "node != -1 for any value above 0), so there is no BookSim2 run to reproduce")
    elif topology in ("flatfly", "dragonflynew"):
        why = (f"BookSim2 ignores it on a {topology} (its InsertRandomFaults is empty: no link fails), so its run is "
               f"the one with link_failures = 0; set 0 to reproduce it")
    else:
        why = f"BookSim2 stops on it on a {topology} ('InsertRandomFaults not implemented for this topology!')"
    raise r.fail("link_failures", f"only 0: {why}; failed links run on --router lanes or iq with --link-failures N "
                                  f"--fault-seed S and --routing minimal or updown")


def to_config_fields(parsed: dict) -> dict:
    """``Config`` fields and booksim-router knobs; refuses all REJECTED keys in one line, then bad values."""
    groups: dict[str, list[str]] = {}
    for key in classify(parsed)[2]:
        groups.setdefault(REJECTED.get(key, "not a BookSim2 option"), []).append(key)
    if groups:
        named = "; ".join(f"{', '.join(keys)} ({why})" for why, keys in groups.items())
        raise bad("booksim-config", named, "BookSim2 keys netsim-fast does not support; remove them")
    r = _Reader(parsed)
    out = {"router": "booksim"}
    _classes(r, out)
    for key in AT_DEFAULT_ONLY:
        if key != "link_failures" and key in parsed and r.one(key) not in (DEFAULTS[key], str(DEFAULTS[key])):
            raise r.fail(key, f"{SUPPORTED[key]} in netsim-fast")
    topology = read_network(r, out)
    _link_failures(r, topology)
    _router(r, out, topology)
    _traffic(r, out)
    _run_control(r, out)
    return out
