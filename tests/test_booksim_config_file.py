"""The BookSim2 configuration reader (netsim_fast/config/booksim_file.py): its parser, the three
published key lists and the mapping onto ``Config`` fields. No BookSim2 tree is needed: the key
inventories below were taken once from BookSim2 (commit 28f43299) and the example cases under
tests/booksim_cases/example_*.cfg restate the settings of its example configurations."""

from __future__ import annotations

from pathlib import Path

import pytest

from netsim_fast.config import booksim_file as bf
from netsim_fast.errors import ConfigError

CASES = Path(__file__).resolve().parent / "booksim_cases"

# Every key set in BookSim2's runfiles/ and src/examples/ (comments removed). Two of them, limit
# and physical_subnetworks, are not BookSim2 options at all (BookSim2 stops on them).
EXAMPLE_KEYS = set("""
alloc_iters batch_size c credit_delay hold_switch_for_packet injection_rate
injection_rate_uses_flits input_speedup internal_speedup k limit max_outstanding_requests n
network_file num_vcs output_speedup packet_size physical_subnetworks print_activity priority
read_reply_begin_vc read_reply_end_vc read_reply_size read_request_begin_vc read_request_end_vc
read_request_size routing_delay routing_function sample_period sim_count sim_power sim_type
speculative st_final_delay subnets sw_alloc_delay sw_allocator topology traffic use_read_write
vc_alloc_delay vc_allocator vc_buf_size wait_for_tail_credit warmup_periods watch_out
write_reply_begin_vc write_reply_end_vc write_reply_size write_request_begin_vc write_request_end_vc
write_request_size x xr y yr
""".split())

# Every key BookSim2's configuration declares (src/booksim_config.cpp, BookSimConfig), the
# TRACK_FLOWS and TRACK_CREDITS build options included.
DECLARED_KEYS = set("""
acc_stopping_thres acc_warmup_thres active_packets_out alloc_iters arb_type batch_count batch_size
buf_size buffer_policy burst_alpha burst_beta burst_r1 c channel_file channel_sweep channel_width
class_priority classes credit_delay deadlock_warn_timeout ejected_flits_out fail_seed
feedback_aging_scale feedback_offset free_credits_out hold_switch_for_packet in_ports
include_queuing injected_flits_out injection_process injection_rate injection_rate_uses_flits
input_speedup internal_speedup k latency_thres link_failures max_credits_out max_held_slots
max_outstanding_requests max_samples measure_stats n network_file noq num_vcs out_ports
output_buffer_size output_delay output_speedup outstanding_credits_out packet_size packet_size_rate
pair_stats perm_seed power_output_file print_activity print_csv_results priority private_buf_end_vc
private_buf_size private_buf_start_vc private_bufs read_reply_begin_vc read_reply_end_vc
read_reply_size read_reply_subnet read_request_begin_vc read_request_end_vc read_request_size
read_request_subnet received_flits_out router routing_delay routing_function sample_period seed
sent_flits_out sent_packets_out sim_count sim_power sim_type spec_check_cred spec_check_elig
spec_mask_by_reqs spec_sw_allocator speculative st_final_delay st_prepare_delay stats_out
stopping_thres stored_flits_out subnets sw_alloc_delay sw_allocator tech_file topology traffic
use_noc_latency use_read_write used_credits_out vc_alloc_delay vc_allocator vc_buf_size
vc_busy_when_full vc_prioritize_empty vc_priority_donation vc_shuffle_requests vct viewer_trace
wait_for_tail_credit warmup_periods warmup_thres watch_file watch_flits watch_out watch_packets
watch_transactions write_fraction write_reply_begin_vc write_reply_end_vc write_reply_size
write_reply_subnet write_request_begin_vc write_request_end_vc write_request_size
write_request_subnet x xr y yr
""".split())

# The keys of BookSim2's power technology file (PowerConfig, read through tech_file).
TECH_FILE_KEYS = set("""
Cd Cd_pwr Cg Cg_pwr Cgdl Cw_cpl Cw_gnd H_DFQD1 H_INVD2 H_ND2D1 H_SRAM IoffN IoffP IoffSRAM LAMBDA
MetalPitch R Rw Vdd W_DFQD1 W_INVD2 W_ND2D1 W_SRAM wire_length
""".split())

MESH = "topology = mesh; k = 4; n = 2; routing_function = dim_order;\n"


def parse(text: str, source: str = "t.cfg") -> dict:
    return bf.parse_booksim(text, source)


def fields(text: str) -> dict:
    return bf.to_config_fields(parse(MESH + text))


def error(call, *args) -> str:
    with pytest.raises(ConfigError) as info:
        call(*args)
    message = str(info.value)
    assert "\n" not in message and message.startswith("--booksim-config")
    return message


# -- the parser ---------------------------------------------------------------------------------


def test_statements_comments_and_values():
    text = ("// a comment line\n"
            "k = 8;   // trailing comment\n"
            "n=3;topology = torus ;\r\n"
            "  internal_speedup =\n 1.5 ;\n"
            "injection_rate = -1e-3; warmup_thres = .5; stopping_thres = 2E2;\n"
            "watch_out = -; network_file = ./nets/a-b.txt; traffic = tornado(8,2,1);\n")
    assert parse(text) == {"k": 8, "n": 3, "topology": "torus", "internal_speedup": 1.5, "injection_rate": -0.001,
                           "warmup_thres": 0.5, "stopping_thres": 200.0, "watch_out": "-",
                           "network_file": "./nets/a-b.txt", "traffic": "tornado(8,2,1)"}
    assert isinstance(parse("k = -5;")["k"], int)


def test_lists_are_kept_as_the_text_booksim_stores():
    got = parse("packet_size = {{1,2,4}}; packet_size_rate = {{1,1,2}}; watch_flits = {1,2,3};"
                "injection_rate = {0.1,0.2};")
    assert got == {"packet_size": "{{1,2,4}}", "packet_size_rate": "{{1,1,2}}", "watch_flits": "{1,2,3}",
                   "injection_rate": "{0.1,0.2}"}


def test_later_assignments_win_and_a_list_may_follow_a_number():
    assert parse("k = 4; n = 2; k = 6;") == {"k": 6, "n": 2}
    assert parse("injection_rate = 0.1; injection_rate = {0.2};") == {"injection_rate": "{0.2}"}
    assert parse("seed = 5; seed = time;") == {"seed": "time"}
    assert parse("seed = other; seed = 5;") == {"seed": 5}  # only 'time' outranks the number


@pytest.mark.parametrize("text, line, words", [
    ("k = 8", 1, "expected ';'"),
    ("k = 8;\n\nn = 2\n", 4, "found the end"),
    ("k == 8;", 1, "expected a value"),
    ("k = 8;;", 1, "expected a key"),
    ("k = 8 n = 2;", 1, "found 'n'"),
    ("\n\nk = 8.0;", 3, "BookSim2 reads k as an integer"),
    ("internal_speedup = 1;", 1, "as a decimal number"),
    ("injection_rate = 1;", 1, "as a decimal number (such as 1.0) or a word or a {list}"),
    ("topology = 3;", 1, "as a word or a {list}"),
    ("traffic = { uniform };", 1, "found '{'"),
    ("k = 5.;", 1, "found '.'"),
    ("k = 0x10;", 1, "found 'x10'"),
    ("k = 99999999999;", 1, "out of the range of a C int"),
    ("n = 2;\nrouting_funtion = dor;", 2, "did you mean 'routing_function'"),
    ("limit = 64;", 1, "not a BookSim2 option"),
    ("Vdd = 1.0;", 1, "power technology file"),
    ("{a} = 1;", 1, "not a BookSim2 option"),
    ("traffic = uniform // the rest is a comment;", 1, "expected ';'"),
    ("injection_rate = {0.1};\ninjection_rate = 0.2;", 2, "would be lost"),
    ("seed = time; seed = 4;", 1, "would be lost"),
    ("", 1, "BookSim2 refuses an empty file"),
    ("// comments only\n", 2, "no 'key = value;' statement"),
])
def test_what_booksim_refuses_names_the_file_and_line(text, line, words):
    message = error(bf.parse_booksim, text, "cfg/x.cfg")
    assert f"cfg/x.cfg:{line}:" in message and words in message


def test_command_line_overrides():
    assert bf.parse_overrides(["k=4", "n = 3", "traffic=transpose", "k=6"]) == {"k": 6, "n": 3, "traffic": "transpose"}
    assert bf.parse_overrides(["k=4;n=3"]) == {"k": 4, "n": 3}  # BookSim2 appends ';' and parses
    assert "expected a key" in error(bf.parse_overrides, ["k=4;"])
    assert "expected key=value" in error(bf.parse_overrides, ["k"])
    assert "k=8.0" in error(bf.parse_overrides, ["k=8.0"])
    merged = bf.merge(parse("k = 8; injection_rate = 0.1;"), bf.parse_overrides(["injection_rate=0.3", "n=1"]))
    assert merged == {"k": 8, "injection_rate": 0.3, "n": 1}
    assert "would be lost" in error(bf.merge, {"injection_rate": "{0.1}"}, {"injection_rate": 0.2})


# -- the published lists ------------------------------------------------------------------------


def test_every_known_key_is_in_exactly_one_list():
    lists = (bf.SUPPORTED, bf.IGNORED, bf.REJECTED)
    for key in EXAMPLE_KEYS | DECLARED_KEYS | TECH_FILE_KEYS:
        assert sum(key in published for published in lists) == 1, key
    assert set(bf.DEFAULTS) == DECLARED_KEYS
    assert all(isinstance(reason, str) and reason for published in lists for reason in published.values())


def test_the_lists_hold_what_the_issue_scopes():
    for key in ("topology", "k", "n", "c", "routing_function", "num_vcs", "vc_buf_size", "buf_size", "routing_delay",
                "vc_alloc_delay", "sw_alloc_delay", "st_prepare_delay", "st_final_delay", "credit_delay",
                "use_noc_latency", "input_speedup", "output_speedup", "internal_speedup", "output_buffer_size", "noq",
                "vc_allocator", "sw_allocator", "alloc_iters", "arb_type", "speculative", "wait_for_tail_credit",
                "vc_busy_when_full", "vc_prioritize_empty", "hold_switch_for_packet", "priority", "traffic",
                "injection_rate", "injection_rate_uses_flits", "packet_size", "packet_size_rate",
                "injection_process", "sim_type", "warmup_periods", "sample_period", "max_samples", "latency_thres",
                "warmup_thres", "acc_warmup_thres", "stopping_thres", "acc_stopping_thres", "sim_count",
                "include_queuing", "seed", "perm_seed", "classes", "subnets", "router", "network_file",
                "batch_size", "batch_count", "max_outstanding_requests"):
        assert key in bf.SUPPORTED, key
    for key in ("watch_file", "watch_packets", "watch_flits", "watch_out", "print_activity", "print_csv_results",
                "stats_out", "sim_power", "power_output_file", "tech_file", "channel_width", "viewer_trace",
                "deadlock_warn_timeout"):
        assert key in bf.IGNORED, key
    for key in ("x", "y", "yr", "read_request_size", "write_fraction", "read_reply_begin_vc"):
        assert key in bf.SUPPORTED, key  # flatfly's floor plan; request-reply keys (use_read_write = 1)
    assert "class_priority" in bf.SUPPORTED
    for key in ("vct", "private_bufs", "fail_seed"):
        assert key in bf.REJECTED, key


def test_classify_keeps_the_order_and_rejects_unknown_keys():
    keys = ["k", "watch_out", "vct", "k", "no_such_key", "num_vcs", "stats_out"]
    assert bf.classify(keys) == (["k", "num_vcs"], ["watch_out", "stats_out"], ["vct", "no_such_key"])


def test_defaults_are_booksims():
    d = bf.DEFAULTS
    assert (d["topology"], d["k"], d["n"], d["routing_function"], d["router"]) == ("torus", 8, 2, "none", "iq")
    assert (d["num_vcs"], d["vc_buf_size"], d["buf_size"], d["routing_delay"], d["credit_delay"]) == (16, 8, -1, 1, 0)
    assert (d["injection_rate"], d["packet_size"], d["latency_thres"], d["sample_period"], d["seed"]) == \
        (0.1, 1, 500.0, 1000, 0)
    assert (d["vc_allocator"], d["arb_type"], d["internal_speedup"], d["watch_out"]) == ("islip", "round_robin", 1.0, "")


# -- the mapping --------------------------------------------------------------------------------


def read_case(name: str) -> dict:
    path = CASES / name
    return bf.parse_booksim(path.read_text(), str(path))


def test_example_mesh88_lat():
    out = bf.to_config_fields(read_case("example_mesh88_lat.cfg"))
    expect = dict(router="booksim", topology="mesh", k=8, n=2, routing="dor", vcs=8, buf=8, pattern="transpose",
                  packet_flits=20, packet_size_mix=None, wait_for_tail_credit=True, vc_allocator="islip",
                  sw_allocator="islip", alloc_iters=1, credit_delay=2, routing_delay=0, vc_alloc_delay=1,
                  sw_alloc_delay=1, input_speedup=2, output_speedup=1, internal_speedup=1.0, sim_type="latency",
                  st_final_delay=1, st_prepare_delay=0, latency_limit=500, sample_period=1000, seed=0,
                  fixed_points="self")  # BookSim2's transpose diagonal sends to itself
    assert {key: out[key] for key in expect} == expect
    assert out["rate"] == pytest.approx(0.1)  # 0.005 packets of 20 flits


def test_example_torus88_and_the_complete_field_set():
    out = bf.to_config_fields(read_case("example_torus88.cfg"))
    assert (out["topology"], out["k"], out["n"], out["routing"], out["vcs"], out["buf"]) == ("torus", 8, 2, "dim_order", 2, 8)
    assert (out["pattern"], out["rate"], out["packet_flits"]) == ("uniform-self", 0.15, 1)
    knobs = {"routing_delay", "vc_alloc_delay", "sw_alloc_delay", "st_prepare_delay", "st_final_delay", "credit_delay",
             "use_noc_latency", "input_speedup", "output_speedup", "internal_speedup", "output_buffer_size", "noq",
             "vc_allocator", "sw_allocator", "alloc_iters", "arb_type", "speculative", "wait_for_tail_credit",
             "vc_busy_when_full", "vc_prioritize_empty", "hold_switch_for_packet", "priority", "sim_type",
             "warmup_periods", "max_samples", "warmup_thres", "acc_warmup_thres", "stopping_thres",
             "acc_stopping_thres", "sim_count", "include_queuing"}
    config = {"router", "topology", "k", "n", "routing", "vcs", "buf", "pattern", "rate", "packet_flits",
              "packet_size_mix", "latency_limit", "sample_period", "seed", "perm_seed"}
    assert set(out) == knobs | config
    assert (out["use_noc_latency"], out["include_queuing"], out["speculative"]) == (True, True, False)
    assert (out["warmup_periods"], out["max_samples"], out["warmup_thres"], out["sim_count"]) == (3, 10, 0.05, 1)


def test_example_anynet_maps_to_the_edge_list_topology():
    out = bf.to_config_fields(read_case("example_anynet.cfg"))
    assert (out["topology"], out["file"], out["routing"]) == ("edgelist", "anynet_file", "min")
    assert "k" not in out and "n" not in out
    assert (out["vcs"], out["buf"], out["vc_allocator"], out["sample_period"]) == (1, 3, "separable_input_first", 10000)


def test_example_dragonfly_maps_to_the_dragonfly_with_p_terminals_per_router():
    parsed = read_case("example_dragonfly.cfg")
    assert bf.classify(parsed)[1:] == (["watch_out"], [])
    out = bf.to_config_fields(parsed)  # k = p = 4: a = 8 routers per group, h = 4, g = 33
    assert (out["topology"], out["group_routers"], out["global_links"], out["concentration"]) == ("dragonfly", 8, 4, 4)
    assert (out["routing"], out["vcs"], out["buf"], out["routing_delay"]) == ("min", 2, 256, 0)
    assert "n = 1" in error(bf.to_config_fields, {**parsed, "n": 2})


def test_example_flatfly_maps_onto_the_flatfly_with_ran_min():
    out = bf.to_config_fields(read_case("example_flatfly.cfg"))
    assert (out["topology"], out["k"], out["n"], out["concentration"], out["routing"]) == ("flatfly", 4, 2, 4, "ran_min")
    assert (out["vcs"], out["buf"], out["pattern"], out["use_noc_latency"]) == (8, 4, "uniform-self", True)
    assert out["terminal_numbering"] == "floorplan"  # BookSim2 numbers its terminals over the floor plan


def test_example_cmesh_maps_onto_the_cmesh_with_booksim2s_numbering():
    out = bf.to_config_fields(read_case("example_cmesh.cfg"))
    assert (out["topology"], out["k"], out["concentration"], out["routing"]) == ("cmesh", 4, 4, "dor_no_express")
    assert (out["pattern"], out["fixed_points"], out["terminal_numbering"]) == ("bitcomp", "self", "floorplan")
    assert bf.to_config_fields(bf.merge(read_case("example_cmesh.cfg"), {"routing_function": "dor"}))["routing"] == "dor"


@pytest.mark.parametrize("override, words", [
    ({"c": "2"}, "c = 4 with xr = yr = 2"),
    ({"x": "8", "y": "8"}, "k by k routers"),
    ({"k": "6", "x": "6", "y": "6", "n": "1"}, "two-dimensional"),
    ({"routing_function": "xy_yx"}, "choose one of dor, dor_no_express, xy_yx_no_express"),
])
def test_example_cmesh_refusals(override, words):
    assert words in error(bf.to_config_fields, bf.merge(read_case("example_cmesh.cfg"), override))


@pytest.mark.parametrize("override, words", [
    ({"c": "2"}, "c = xr * yr"),
    ({"x": "2", "y": "2"}, "x = y = k only"),
    ({"n": "3"}, "for n = 2"),
    ({"n": "3", "use_noc_latency": "0", "traffic": "transpose"}, "only uniform"),
    ({"routing_function": "xyyx"}, "choose one of ran_min"),
    ({"use_read_write": "1", "num_vcs": "2"}, "read_request_end_vc=3"),
])
def test_example_flatfly_refusals(override, words):
    assert words in error(bf.to_config_fields, bf.merge(read_case("example_flatfly.cfg"), override))


def test_flatfly_any_floor_plan_without_noc_latency():
    out = bf.to_config_fields(bf.merge(read_case("example_flatfly.cfg"), {"n": "3", "use_noc_latency": "0"}))
    assert (out["n"], out["use_noc_latency"]) == (3, False)


def test_buffers():
    assert fields("num_vcs = 4; buf_size = 64;")["buf"] == 16  # split evenly over the VCs
    assert fields("num_vcs = 3; buf_size = 16; vc_buf_size = 2;")["buf"] == 5  # buf_size wins, rounded down
    assert fields("vc_buf_size = 2;")["buf"] == 2
    assert "at least one flit per VC" in error(fields, "num_vcs = 4; buf_size = 3;")
    assert "at least one flit per VC" in error(fields, "buf_size = 0;")


def test_injection_rate_is_in_packets_unless_it_uses_flits():
    assert fields("packet_size = 4; injection_rate = 0.05;")["rate"] == pytest.approx(0.2)
    assert fields("packet_size = 4; injection_rate = 0.2; injection_rate_uses_flits = 1;")["rate"] == 0.2
    assert "0 to 1 packets" in error(fields, "injection_rate = 1.5;")
    assert "0 to 1 packets" in error(fields, "packet_size = 2; injection_rate = 2.5; injection_rate_uses_flits = 1;")
    assert fields("injection_rate = {0.3};")["rate"] == 0.3


def test_packet_size_mix():
    out = fields("packet_size = {{1,2,4}}; packet_size_rate = {{1,1,2}}; injection_rate = 0.1;")
    assert out["packet_size_mix"] == ((1, 1), (2, 1), (4, 2)) and "packet_flits" not in out
    assert out["rate"] == pytest.approx(0.1 * 11 / 4)  # mean size (1 + 2 + 8) / 4
    assert fields("packet_size = {{4,8}};")["packet_size_mix"] == ((4, 1), (8, 1))  # weights default to 1
    assert fields("packet_size = {{1,2,3}}; packet_size_rate = {{1,5}};")["packet_size_mix"] == ((1, 1), (2, 5), (3, 5))
    assert "write one class's as {{4,8}}" in error(fields, "packet_size = {1,2};")
    assert "more weights" in error(fields, "packet_size = {{1,2}}; packet_size_rate = {{1,2,3}};")
    assert "not all 0" in error(fields, "packet_size = {{1,2}}; packet_size_rate = 0;")


def test_traffic_patterns():
    assert fields("traffic = uniform;")["pattern"] == "uniform-self"  # BookSim2's uniform may pick the source
    for name in ("transpose", "bitcomp", "bitrev", "shuffle", "tornado", "neighbor", "randperm", "diagonal",
                 "asymmetric", "taper64"):
        assert fields(f"traffic = {name};")["pattern"] == name
    assert fields("traffic = randperm; perm_seed = 9;")["perm_seed"] == 9
    for text in ("traffic = hotspot;", "traffic = background({0});", "traffic = tornado(4,2,1);"):
        assert "not supported" in error(fields, text)
    assert "one value per traffic class" in error(fields, "traffic = {uniform,transpose};")


def test_classes_become_one_process_with_a_class_mix():
    got = fields("classes = 2; injection_rate = {0.1,0.3}; class_priority = {1,0}; priority = class; packet_size = 4;")
    assert (got["classes"], got["class_mix"], got["class_priority"]) == (2, (0.1, 0.3), (1, 0))
    assert got["rate"] == pytest.approx(1.6)  # 0.4 packets of 4 flits
    got = fields("classes = 3; injection_rate = {0.1,0.2}; class_priority = 2;")  # the last item repeats
    assert (got["class_mix"], got["class_priority"]) == ((0.1, 0.2, 0.2), (2, 2, 2))
    assert "classes" not in fields("classes = 1;")  # the default


def test_routing_follows_the_topology():
    assert fields("routing_function = dor;")["routing"] == "dor"  # BookSim2's alias of dim_order on meshes
    assert fields("topology = torus; routing_function = dim_order_bal;")["routing"] == "dim_order_bal"
    assert "on a torus" in error(fields, "topology = torus; routing_function = romm;")
    assert "on a mesh" in error(fields, "routing_function = limited_adapt;")  # BookSim2 does not register it
    assert "no default routing" in error(bf.to_config_fields, parse("topology = mesh;"))
    assert "network_file" in error(bf.to_config_fields, parse("topology = anynet; routing_function = min;"))


@pytest.mark.parametrize("text, words", [
    ("c = 4;", "one node per router (it reads no c); only 1"),
    ("classes = 2; traffic = {uniform,transpose};", "classes share one traffic"),
    ("classes = 2; packet_size = {{4},{8}};", "share one packet size mix"),
    ("classes = 2; injection_rate = {0.6,0.6};", "at most one packet per node per cycle over all 2 classes"),
    ("classes = 2; class_priority = {1,-1};", "integers >= 0"),
    ("classes = 3; injection_rate = {0.1,0.1,0.1,0.1};", "4 given for classes = 3"),
    ("classes = 17;", "classes"),
    ("subnets = 2;", "physical subnetworks: only 1"),
    ("router = event;", "only iq"),
    ("injection_process = poisson;", "bernoulli or on_off"),
    ("use_read_write = 2;", "(0 or 1)"),
    ("xr = 2;", "only 1"),
    ("sim_type = batch; batch_count = 2;", "batch_count=2: batches per run: only 1"),
    ("sim_type = batch; max_outstanding_requests = 4;", "closed loop: only 0"),
    ("sim_type = batch; batch_size = 0;", "batch_size"),
    ("seed = time;", "not time"),
    ("seed = {5};", "expected an integer"),
    ("latency_thres = 450.5;", "whole number of cycles"),
    ("speculative = 2;", "(0 or 1)"),
    ("vc_alloc_delay = 0;", ">= 1"),
    ("noq = 1;", "lookahead routing"),
    ("noq = 1; routing_delay = 0; num_vcs = 4;", "num_vcs >= the router's 5 outputs"),
    ("vc_allocator = piggyback;", "speculative = 1"),
    ("sw_allocator = islip(x);", "choose one of"),
    ("arb_type = lottery;", "tree(GROUPS,ARBITER)"),
    ("priority = random;", "choose one of none"),
    ("output_buffer_size = 0;", "-1 (unbounded)"),
    ("internal_speedup = 0.0;", "> 0"),
    ("k = 1;", ">= 2"),
    ("topology = qtree;", "other topologies are not supported yet"),
])
def test_values_outside_what_netsim_fast_supports(text, words):
    message = error(fields, text)
    assert words in message and message.split(" ")[1].split("=")[0] in text


def test_accepted_knob_values():
    out = fields("vc_allocator = islip(3); sw_allocator = separable_input_first(matrix); arb_type = tree(4,matrix);"
                 "speculative = 1; latency_thres = -1.0; warmup_thres = {0.1}; use_read_write = {0}; priority = age;"
                 "noq = 1; routing_delay = 0; output_buffer_size = 4; use_noc_latency = 0;")
    assert (out["vc_allocator"], out["sw_allocator"], out["arb_type"]) == ("islip(3)", "separable_input_first(matrix)",
                                                                          "tree(4,matrix)")
    assert (out["speculative"], out["noq"], out["use_noc_latency"], out["latency_limit"]) == (True, True, False, 0)
    assert (out["warmup_thres"], out["priority"], out["output_buffer_size"]) == (0.1, "age", 4)
    assert fields("vc_allocator = piggyback; speculative = 1;")["vc_allocator"] == "piggyback"


def test_the_docs_page_names_every_published_key():
    page = (Path(__file__).resolve().parents[1] / "docs" / "booksim-keys.md").read_text()
    missing = [key for key in (*bf.SUPPORTED, *bf.IGNORED, *bf.REJECTED) if f"`{key}`" not in page]
    assert missing == []


def test_the_readme_counts_the_lists_as_they_are():
    import re
    from pathlib import Path

    text = " ".join(Path(__file__).resolve().parents[1].joinpath("README.md").read_text().split())
    found = re.search(r"(\d+) supported, (\d+) ignored \(output only, named once on stderr\), (\d+) rejected", text)
    assert found and tuple(map(int, found.groups())) == (len(bf.SUPPORTED), len(bf.IGNORED), len(bf.REJECTED))


def test_batch_mode_is_a_batch_at_one_packet_per_node_per_cycle():
    out = bf.to_config_fields(read_case("batch_torus4.cfg"))
    assert (out["sim_type"], out["batch"], out["rate"], out["packet_flits"]) == ("batch", 20, 1.0, 1)
    sized = bf.to_config_fields(bf.merge(read_case("batch_torus4.cfg"), {"packet_size": "{{4,8}}",
                                                                          "packet_size_rate": "{{1,3}}"}))
    assert sized["rate"] == pytest.approx(7.0)  # one packet per cycle of 7 flits on average
    onoff = bf.to_config_fields(bf.merge(read_case("batch_torus4.cfg"), {"injection_process": "on_off"}))
    assert "injection" not in onoff  # BookSim2's batch mode ignores the injection process


@pytest.mark.parametrize("case, words", [
    ("example_mesh88_lat.cfg", ["link_failures=3", "aborts", "node != -1"]),
    ("example_torus88.cfg", ["link_failures=3", "aborts"]),
    ("example_dragonfly.cfg", ["link_failures=3", "ignores it on a dragonflynew", "set 0"]),
    ("example_flatfly.cfg", ["link_failures=3", "ignores it on a flatfly"]),
    ("example_fattree.cfg", ["link_failures=3", "not implemented for this topology"]),
])
def test_link_failures_are_refused_with_booksims_reason_per_network(case, words):
    message = error(bf.to_config_fields, bf.merge(read_case(case), {"link_failures": "3"}))
    assert all(w in message for w in words) and "--link-failures N" in message
    assert "link_failures" not in str(bf.to_config_fields(bf.merge(read_case(case), {"link_failures": "0"})))


def test_booksim_router_refuses_link_failures_on_the_command_line():
    from netsim_fast.config import Config

    with pytest.raises(ConfigError, match="--link-failures 2: the booksim router runs BookSim2's routing"):
        Config(topology="mesh", k=4, router="booksim", link_failures=2)
