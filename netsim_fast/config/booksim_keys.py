"""BookSim2's configuration keys: their value slots, BookSim2's defaults and the three published lists.

Every key BookSim2 declares (``src/booksim_config.cpp``), and every key set in its ``runfiles/``
and ``src/examples/``, is in exactly one list: ``SUPPORTED`` (honoured, some at one value only,
``AT_DEFAULT_ONLY``), ``IGNORED`` (output and diagnostics only) or ``REJECTED`` (refused up
front, with the reason). ``config/booksim_file.py`` reads files with them; docs/booksim-keys.md
publishes them.
"""

from __future__ import annotations

# -- the keys -----------------------------------------------------------------------------------
# keys (comma-separated when all else is shared), value slots (i integer, f decimal, s word or
# list; "is": an integer that may also be a list or a word), BookSim2's default ("" an empty word),
# list (S supported, S= supported at its default only, I ignored, R rejected) and the reason.
_TABLE = """
topology                  s  torus      S  mesh, torus, dragonflynew, flatfly, cmesh, fly, or anynet (the router graph of network_file)
k                         i  8          S  routers per dimension of a mesh, torus, flatfly or cmesh; dragonflynew: p terminals per router
n                         i  2          S  dimensions of a mesh, torus or flatfly; dragonflynew: only 1; cmesh: only 2
c                         i  1          S  nodes per router of a flatfly (= xr * yr) or a cmesh (only 4); 1 on a mesh or torus
routing_function          s  none       S  the routing, by BookSim2's name for that topology
network_file              s  ""         S  anynet's network: routers, their nodes, channel latencies
subnets                   i  1          S= physical subnetworks: only 1
use_noc_latency           i  1          S  torus links of 2 cycles (1) or 1 (0)
xr                        i  1          S  flatfly, cmesh: nodes per router along x (= yr; cmesh 2); tornado and neighbor: only 1
link_failures             i  0          S= failed links: only 0 (BookSim2 aborts on a mesh or torus, ignores them on flatfly and dragonflynew, stops elsewhere)
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
class_priority            is 0          S  priority of each class (--class-priority; used under priority = class)
classes                   i  1          S  traffic classes (--classes): per-class keys may differ in injection_rate only; 1 with sim_type = batch
traffic                   s  uniform    S  destination pattern
perm_seed                 is 0          S  seed of the randperm pattern
injection_rate            fs 0.1        S  offered load, packets per node per cycle (flits with injection_rate_uses_flits)
injection_rate_uses_flits i  0          S  injection_rate counts flits
packet_size               is 1          S  flits per packet, or a {{list}} of sizes
packet_size_rate          is 1          S  weights of the packet sizes
injection_process         s  bernoulli  S  bernoulli, or on_off (its chain from burst_alpha, burst_beta, burst_r1, or on_off(ALPHA,BETA[,R1]))
measure_stats             is 1          S= statistics of the class: only 1
sim_type                  s  latency    S  latency, throughput, or batch (--batch batch_size, every packet as soon as the source queue takes it)
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
x,y                       i  8          S  flatfly, cmesh: routers along x and y of the floor plan (= k; flatfly: with use_noc_latency)
yr                        i  1          S  flatfly, cmesh: nodes per router along y (= xr)
fail_seed                 is 0          R  seed of the link failures
vct                       i  0          R  virtual cut-through of the event router
private_bufs,max_held_slots i -1 R shared-buffer policies
private_buf_size          is 1          R  shared-buffer policies
private_buf_start_vc,private_buf_end_vc is -1 R shared-buffer policies
feedback_aging_scale      i  1          R  shared-buffer policies
feedback_offset           i  0          R  shared-buffer policies
burst_alpha,burst_beta    f  0.5        S  on_off: probability per cycle of turning on, of turning off
burst_r1                  f  -1.0       S  on_off: packets per cycle while on (negative: derived from the rate)
batch_size                i  1000       S  batch mode: packets per node (--batch)
batch_count               i  1          S= batches per run: only 1 (--seeds repeats a batch)
use_read_write            is 0          S  request-reply traffic (--closed-loop with no outstanding limit; one traffic class)
max_outstanding_requests  i  0          S= batch mode's closed loop: only 0 (no limit); BookSim2 reads it in batch mode only
write_fraction            fs 0.5        S  use_read_write: share of requests that are writes (--write-fraction)
read_request_begin_vc     i  0          S  use_read_write: first VC of read requests (--rw-vcs; -1: 0)
read_request_end_vc       i  5          S  use_read_write: last VC of read requests (-1: num_vcs/2 - 1)
write_request_begin_vc    i  2          S  use_read_write: first VC of write requests (-1: 0)
write_request_end_vc      i  7          S  use_read_write: last VC of write requests (-1: num_vcs/2 - 1)
read_reply_begin_vc       i  8          S  use_read_write: first VC of read replies (-1: num_vcs/2)
read_reply_end_vc         i  13         S  use_read_write: last VC of read replies (-1: num_vcs - 1)
write_reply_begin_vc      i  10         S  use_read_write: first VC of write replies (-1: num_vcs/2)
write_reply_end_vc        i  15         S  use_read_write: last VC of write replies (-1: num_vcs - 1)
read_request_subnet,read_reply_subnet,write_request_subnet,write_reply_subnet i 0 S= request-reply subnets: only 0 (one subnet)
read_request_size,read_reply_size,write_request_size,write_reply_size is 1 S use_read_write: flits of each packet type (--packet-flits, --reply-flits, --write-request-flits, --write-reply-flits)
"""
# Not BookSim2 options, listed so that every key of its example files is published: two that its
# runfiles still set (BookSim2 stops on them) and the keys of its power technology file.
_NOT_OPTIONS = dict.fromkeys(("limit", "physical_subnetworks"), "not a BookSim2 option (BookSim2 stops on it)")
_TECH_FILE_KEYS = ("H_INVD2 W_INVD2 H_DFQD1 W_DFQD1 H_ND2D1 W_ND2D1 H_SRAM W_SRAM Vdd R IoffSRAM IoffP "
                   "IoffN Cg_pwr Cd_pwr Cgdl Cg Cd LAMBDA MetalPitch Rw Cw_gnd Cw_cpl wire_length").split()

# DEFAULTS: key -> BookSim2's default; SUPPORTED, IGNORED, REJECTED: key -> the published reason.
SLOTS, DEFAULTS, SUPPORTED, IGNORED, REJECTED, AT_DEFAULT_ONLY = {}, {}, {}, {}, {}, []
for _row in _TABLE.strip().splitlines():
    _keys, _slots, _default, _list, _reason = _row.split(None, 4)
    for _key in _keys.split(","):
        SLOTS[_key] = _slots
        DEFAULTS[_key] = "" if _default == '""' else int(_default) if _slots[0] == "i" else \
            float(_default) if _slots[0] == "f" else _default
        {"S": SUPPORTED, "S=": SUPPORTED, "I": IGNORED, "R": REJECTED}[_list][_key] = _reason
        if _list == "S=":
            AT_DEFAULT_ONLY.append(_key)
REJECTED.update(_NOT_OPTIONS)
REJECTED.update((key, "a key of the power technology file, not of the configuration") for key in _TECH_FILE_KEYS)
TIME_KEYS = ("seed", "perm_seed", "fail_seed")  # the word 'time' wins; other words fall back to the integer
