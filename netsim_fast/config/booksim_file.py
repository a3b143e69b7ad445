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

# -- the keys -----------------------------------------------------------------------------------
# keys (comma-separated when all else is shared), value slots (i integer, f decimal, s word or
# list; "is": an integer that may also be a list or a word), BookSim2's default ("" an empty word),
# list (S supported, S= supported at its default only, I ignored, R rejected) and the reason.
_TABLE = """
topology                  s  torus      S  mesh, torus, or anynet (the router graph of network_file)
k                         i  8          S  routers per dimension of a mesh or torus
n                         i  2          S  dimensions of a mesh or torus
c                         i  1          S= nodes per router: only 1
routing_function          s  none       S  the routing, by BookSim2's name for that topology
network_file              s  ""         S  anynet's router graph
subnets                   i  1          S= physical subnetworks: only 1
use_noc_latency           i  1          S  torus links of 2 cycles (1) or 1 (0)
xr                        i  1          S= nodes per router along x, read by tornado and neighbor: only 1
link_failures             i  0          S= failed links: only 0
router                    s  iq         S= router model: only iq (BookSim2's input-queued router)
routing_delay             i  1          S  route-computation cycles (0: lookahead routing)
vc_alloc_delay            i  1          S  VC-allocation cycles
sw_alloc_delay            i  1          S  switch-allocation cycles
st_prepare_delay          i  0          S  crossbar set-up cycles
st_final_delay            i  1          S  crossbar traversal cycles
credit_delay              i  0          S  extra cycles before a returned credit is usable
internal_speedup          f  1.0        S  router cycles per network cycle
input_speedup             i  1          S  crossbar inputs per input port
output_speedup            i  1          S  crossbar outputs per output port
output_buffer_size        i  -1         S  output queue flits (-1: unbounded)
noq                       i  0          S  next-hop output queueing
num_vcs                   i  16         S  virtual channels per port
vc_buf_size               i  8          S  flits per VC buffer
buf_size                  i  -1         S  flits per input port, split evenly over the VCs (-1: vc_buf_size each)
buffer_policy             s  private    S= buffer sharing: only private
vc_allocator              s  islip      S  VC allocator
sw_allocator              s  islip      S  switch allocator
arb_type                  s  round_robin S arbiter of the separable allocators
alloc_iters               i  1          S  iterations of islip, pim and select
speculative               i  0          S  speculative switch allocation
spec_check_elig,spec_check_cred i 1 S= speculation details: only 1
spec_mask_by_reqs         i  0          S= speculation detail: only 0
spec_sw_allocator         s  prio       S= speculative switch allocator: only prio
wait_for_tail_credit      i  0          S  free a VC only when its tail credit returns
vc_busy_when_full         i  0          S  a VC without credits counts as busy
vc_prioritize_empty       i  0          S  VC allocation prefers empty VCs
vc_priority_donation,vc_shuffle_requests i 0 S= priority donation, shuffled VC requests: only 0
hold_switch_for_packet    i  0          S  keep the crossbar connection for the whole packet
priority                  s  none       S  flit priorities
classes                   i  1          S= traffic classes: only 1
traffic                   s  uniform    S  destination pattern
perm_seed                 is 0          S  seed of the randperm pattern
injection_rate            fs 0.1        S  offered load, packets per node per cycle (flits with injection_rate_uses_flits)
injection_rate_uses_flits i  0          S  injection_rate counts flits
packet_size               is 1          S  flits per packet, or a {{list}} of sizes
packet_size_rate          is 1          S  weights of the packet sizes
injection_process         s  bernoulli  S= injection process: only bernoulli
use_read_write            is 0          S= request-reply traffic: only 0
measure_stats             is 1          S= statistics of the class: only 1
sim_type                  s  latency    S  latency or throughput (batch is not supported)
warmup_periods            i  3          S  sample periods of warm-up at least
sample_period             i  1000       S  cycles per sample
max_samples               i  10         S  sample periods before giving up on convergence
latency_thres             fs 500.0      S  average latency above which the run counts as unstable
warmup_thres,acc_warmup_thres fs 0.05 S relative change of latency, of accepted traffic, that ends the warm-up
stopping_thres,acc_stopping_thres fs 0.05 S relative change of latency, of accepted traffic, that ends the measurement
sim_count                 i  1          S  simulations run one after the other
include_queuing           i  1          S  latency counts the time in the source queue
seed                      is 0          S  random seed (time is not supported)
print_activity,print_csv_results i 0 I prints router activity, results as CSV
deadlock_warn_timeout     i  256        I  cycles before a possible-deadlock warning is printed
viewer_trace              i  0          I  prints a trace for BookSim2's viewer
watch_file                s  ""         I  file of flits and packets to trace
watch_flits,watch_packets,watch_transactions s "" I flits, packets and transactions to trace
watch_out                 s  ""         I  where traces go
stats_out                 s  ""         I  file of MATLAB-style statistics
pair_stats                i  0          I  per source-destination statistics in the output
sent_packets_out          s  ""         I  file of packet sequence numbers (batch mode)
injected_flits_out,received_flits_out,stored_flits_out,sent_flits_out,outstanding_credits_out,ejected_flits_out,active_packets_out \
                          s  ""         I  flow-tracking output files (builds with TRACK_FLOWS)
used_credits_out,free_credits_out,max_credits_out s "" I  credit-tracking output files (builds with TRACK_CREDITS)
sim_power                 i  0          I  power estimate printed after the run
power_output_file         s  pwr_tmp    I  file of the power estimate
tech_file                 s  ""         I  technology file of the power estimate
channel_width             i  128        I  channel width of the power estimate
channel_sweep             i  0          I  channel-width sweep of the power estimate
channel_file              s  ""         I  declared by BookSim2, read by no code
output_delay              i  0          I  declared by BookSim2, read by no code
in_ports,out_ports        i  5          I  declared by BookSim2, read by no code
x,y                       i  8          R  routers along x and y of cmesh and flatfly
yr                        i  1          R  nodes per router along y of cmesh and flatfly
fail_seed                 is 0          R  seed of the link failures
vct                       i  0          R  virtual cut-through of the event router
private_bufs,max_held_slots i -1 R shared-buffer policies
private_buf_size          is 1          R  shared-buffer policies
private_buf_start_vc,private_buf_end_vc is -1 R shared-buffer policies
feedback_aging_scale      i  1          R  shared-buffer policies
feedback_offset           i  0          R  shared-buffer policies
class_priority            is 0          R  priorities of several traffic classes
burst_alpha,burst_beta    f  0.5        R  on_off injection
burst_r1                  f  -1.0       R  on_off injection
batch_size                i  1000       R  batch mode
batch_count               i  1          R  batch mode
max_outstanding_requests  i  0          R  batch mode
write_fraction            fs 0.5        R  request-reply traffic
read_request_begin_vc     i  0          R  request-reply traffic
read_request_end_vc       i  5          R  request-reply traffic
write_request_begin_vc    i  2          R  request-reply traffic
write_request_end_vc      i  7          R  request-reply traffic
read_reply_begin_vc       i  8          R  request-reply traffic
read_reply_end_vc         i  13         R  request-reply traffic
write_reply_begin_vc      i  10         R  request-reply traffic
write_reply_end_vc        i  15         R  request-reply traffic
read_request_subnet,read_reply_subnet,write_request_subnet,write_reply_subnet i 0 R request-reply traffic
read_request_size,read_reply_size,write_request_size,write_reply_size is 1 R request-reply traffic
"""
# Not BookSim2 options, listed so that every key of its example files is published: two that its
# runfiles still set (BookSim2 stops on them) and the keys of its power technology file.
_NOT_OPTIONS = dict.fromkeys(("limit", "physical_subnetworks"), "not a BookSim2 option (BookSim2 stops on it)")
_TECH_FILE_KEYS = ("H_INVD2 W_INVD2 H_DFQD1 W_DFQD1 H_ND2D1 W_ND2D1 H_SRAM W_SRAM Vdd R IoffSRAM IoffP "
                   "IoffN Cg_pwr Cd_pwr Cgdl Cg Cd LAMBDA MetalPitch Rw Cw_gnd Cw_cpl wire_length").split()

# DEFAULTS: key -> BookSim2's default; SUPPORTED, IGNORED, REJECTED: key -> the published reason.
_SLOTS, DEFAULTS, SUPPORTED, IGNORED, REJECTED, _AT_DEFAULT_ONLY = {}, {}, {}, {}, {}, []
for _row in _TABLE.strip().splitlines():
    _keys, _slots, _default, _list, _reason = _row.split(None, 4)
    for _key in _keys.split(","):
        _SLOTS[_key] = _slots
        DEFAULTS[_key] = "" if _default == '""' else int(_default) if _slots[0] == "i" else \
            float(_default) if _slots[0] == "f" else _default
        {"S": SUPPORTED, "S=": SUPPORTED, "I": IGNORED, "R": REJECTED}[_list][_key] = _reason
        if _list == "S=":
            _AT_DEFAULT_ONLY.append(_key)
REJECTED.update(_NOT_OPTIONS)
REJECTED.update((key, "a key of the power technology file, not of the configuration") for key in _TECH_FILE_KEYS)
_TIME_KEYS = ("seed", "perm_seed", "fail_seed")  # the word 'time' wins; other words fall back to the integer


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
    slots = _SLOTS.get(key)
    if slots is None:
        close = difflib.get_close_matches(key, list(_SLOTS), n=1) if key not in REJECTED else []
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise bad("booksim-config", place, f"{key}: {REJECTED.get(key, 'not a BookSim2 option')}{hint}")
    kind = "s" if isinstance(value, str) else "i" if isinstance(value, int) else "f"
    if kind not in slots:
        allowed = " or ".join(_KIND_WORDS[s] for s in slots)
        raise bad("booksim-config", place, f"{key} = {value}: BookSim2 reads {key} as {allowed}")


def _assign(out: dict, key: str, value, place: str) -> None:
    old = out.get(key)
    if isinstance(old, str) and not isinstance(value, str) and len(_SLOTS[key]) > 1 \
            and (key not in _TIME_KEYS or old == "time"):
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
_ROUTINGS = {  # BookSim2 registers routing functions per topology (limited_adapt is not registered)
    "mesh": ("dim_order", "dor", "dim_order_ni", "dim_order_pni", "xy_yx", "adaptive_xy_yx", "min_adapt",
             "planar_adapt", "romm", "romm_ni", "valiant"),
    "torus": ("dim_order", "dim_order_ni", "dim_order_bal", "min_adapt", "valiant", "valiant_ni"),
    "anynet": ("min",),
}
_PATTERNS = {"uniform": "uniform-self", **{p: p for p in ("transpose", "bitcomp", "bitrev", "shuffle", "tornado",
                                                            "neighbor", "randperm", "diagonal", "asymmetric", "taper64")}}
_ALLOCATORS = ("islip", "pim", "select", "max_size", "loa", "wavefront", "rr_wavefront",
               "separable_input_first", "separable_output_first")
_PRIORITIES = ("none", "class", "age", "network_age", "local_age", "queue_length", "hop_count", "sequence")
_FLAGS = ("use_noc_latency", "noq", "speculative", "wait_for_tail_credit", "vc_busy_when_full",
          "vc_prioritize_empty", "hold_switch_for_packet", "include_queuing")
# Keys BookSim2 reads as one value per traffic class: a {list} gives the classes in turn.
_PER_CLASS = ("traffic", "injection_process", "injection_rate", "packet_size", "packet_size_rate", "use_read_write",
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

    def fail(self, key: str, allowed: str):
        return bad("booksim-config", f"{key}={self.values[key]}", allowed)

    def one(self, key: str):
        """The value of the only traffic class (a one-item {list} gives its item)."""
        value = self.values[key]
        if key in _PER_CLASS and isinstance(value, str):
            items = _split(value)
            if len(items) > 1:
                raise self.fail(key, "one value per traffic class, and netsim-fast runs one class (classes = 1)")
            value = items[0]
        return value

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


def _packet_sizes(r: _Reader) -> tuple[tuple[int, int], ...]:
    """(size, weight) of each packet size of the one class, in BookSim2's order."""
    def items(key, hint):
        value = r.values[key]
        if not isinstance(value, str):
            return [value]
        classes = _split(value)
        if len(classes) > 1:
            raise r.fail(key, f"one list per traffic class, and netsim-fast runs one class; write one class's as {hint}")
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


def _network(r: _Reader, out: dict) -> str:
    topology = r.choice("topology", tuple(_ROUTINGS), "other topologies are not supported yet; ")
    if topology == "anynet":
        if not r.values["network_file"]:
            raise r.fail("network_file", "anynet needs network_file, the file of its router graph")
        out.update(topology="edgelist", file=r.values["network_file"])
    else:
        out.update(topology=topology, k=r.number("k", low=2), n=r.number("n", low=1))
    if r.values["routing_function"] == "none":
        raise r.fail("routing_function", f"BookSim2 has no default routing; choose one of {', '.join(_ROUTINGS[topology])}")
    out["routing"] = r.choice("routing_function", _ROUTINGS[topology], f"on a {topology}, ")
    return topology


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
    if out["noq"] and topology != "anynet" and vcs < 2 * out["n"] + 1:
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
    out["pattern"] = _PATTERNS[traffic]
    mix = _packet_sizes(r)
    mean = sum(s * w for s, w in mix) / sum(w for _, w in mix) if len(mix) > 1 else mix[0][0]
    rate = r.number("injection_rate", float)
    uses_flits = r.number("injection_rate_uses_flits", low=0, high=1, what=" (0 or 1)")
    if not 0 <= (rate / mean if uses_flits else rate) <= 1:  # BookSim2's limit, in packets
        raise r.fail("injection_rate", f"BookSim2 takes 0 to 1 packets per node per cycle (packets of {mean:g} flits)")
    out["rate"] = rate if uses_flits else rate * mean  # flits per node per cycle
    out["packet_size_mix"] = mix if len(mix) > 1 else None  # several sizes: no packet_flits
    if len(mix) == 1:
        out["packet_flits"] = mix[0][0]


def _run_control(r: _Reader, out: dict) -> None:
    out["sim_type"] = r.choice("sim_type", ("latency", "throughput"), "batch mode is not supported; ")
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


def to_config_fields(parsed: dict) -> dict:
    """``Config`` fields and booksim-router knobs; refuses all REJECTED keys in one line, then bad values."""
    groups: dict[str, list[str]] = {}
    for key in classify(parsed)[2]:
        groups.setdefault(REJECTED.get(key, "not a BookSim2 option"), []).append(key)
    if groups:
        named = "; ".join(f"{', '.join(keys)} ({why})" for why, keys in groups.items())
        raise bad("booksim-config", named, "BookSim2 keys netsim-fast does not support; remove them")
    r = _Reader(parsed)
    for key in _AT_DEFAULT_ONLY:
        if key in parsed and r.one(key) not in (DEFAULTS[key], str(DEFAULTS[key])):
            raise r.fail(key, f"{SUPPORTED[key]} in netsim-fast")
    out = {"router": "booksim"}
    topology = _network(r, out)
    _router(r, out, topology)
    _traffic(r, out)
    _run_control(r, out)
    return out
