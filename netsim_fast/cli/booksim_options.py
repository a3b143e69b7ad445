"""``run`` options of the booksim router (``--router booksim``): BookSim2's router keys, one
option each, named after the key (``routing_delay`` -> ``--routing-delay``), defaults BookSim2's.
docs/booksim-keys.md ("The booksim router's options") lists which option it reads for each key."""

from __future__ import annotations

from typing import Annotated

import typer

_B = "BookSim2 router (--router booksim)"


def _o(name: str, help: str):
    return typer.Option(name, rich_help_panel=_B, help=help)


RoutingDelayOpt = Annotated[int, _o("--routing-delay", "Cycles of route computation (BookSim2 routing_delay; 0 = lookahead routing).")]
VcAllocDelayOpt = Annotated[int, _o("--vc-alloc-delay", "Cycles of VC allocation (>= 2: BookSim2 stops once a request waits behind a batch; so does this router).")]
SwAllocDelayOpt = Annotated[int, _o("--sw-alloc-delay", "Cycles of switch allocation (as --vc-alloc-delay).")]
StPrepareDelayOpt = Annotated[int, _o("--st-prepare-delay", "Crossbar cycles before the final stage (their sum with --st-final-delay is the crossbar time).")]
StFinalDelayOpt = Annotated[int, _o("--st-final-delay", "Final crossbar cycles.")]
InputSpeedupOpt = Annotated[int, _o("--input-speedup", "Crossbar inputs per input port (1 to --vcs).")]
OutputSpeedupOpt = Annotated[int, _o("--output-speedup", "Crossbar outputs per output port (1 to --vcs).")]
InternalSpeedupOpt = Annotated[float, _o("--internal-speedup", "Router internal steps per cycle, 1.0 to 64 (1.5: 1, 2, 1, 2...).")]
OutputBufferSizeOpt = Annotated[int, _o("--output-buffer-size", "Output FIFO flits at which switch requests wait, -1 unbounded.")]
NoqOpt = Annotated[bool, _o("--noq", "Next-hop output queueing (needs --routing-delay 0 and --vcs >= 2n+1).")]
VcAllocatorOpt = Annotated[str, _o("--vc-allocator", "VC allocator: islip | separable_input_first | separable_output_first | wavefront | rr_wavefront | pim | loa | select | max_size; islip(N), pim(N), select(N) set iterations, separable_*(matrix) the arbiters.")]
SwAllocatorOpt = Annotated[str, _o("--sw-allocator", "Switch allocator: as --vc-allocator.")]
AllocItersOpt = Annotated[int, _o("--alloc-iters", "Only 1: BookSim2's IQ router ignores alloc_iters; give the iterations in the allocator name, islip(2).")]
ArbTypeOpt = Annotated[str, _o("--arb-type", "Only round_robin: BookSim2's IQ router ignores arb_type; give the arbiter in the name, separable_input_first(matrix).")]
PriorityOpt = Annotated[str, _o("--priority", "Message priority: none | class | age | network_age | local_age | queue_length | hop_count | sequence.")]
SpeculativeOpt = Annotated[bool, _o("--speculative", "Speculative switch allocation.")]
UseNocLatencyOpt = Annotated[bool, _o("--use-noc-latency/--no-use-noc-latency", "BookSim2's channel latencies: torus links 2 cycles, mesh links 1 (off: all 1).")]
WaitForTailCreditOpt = Annotated[bool, _o("--wait-for-tail-credit", "Free an output VC only once its tail's credit is back.")]
VcBusyWhenFullOpt = Annotated[bool, _o("--vc-busy-when-full", "Do not request output VCs without a credit.")]
VcPrioritizeEmptyOpt = Annotated[bool, _o("--vc-prioritize-empty", "Prefer empty output VCs (a priority: no effect under islip, as in BookSim2).")]
HoldSwitchOpt = Annotated[bool, _o("--hold-switch-for-packet", "Keep a crossbar connection for a whole packet.")]


def booksim_fields(**given) -> dict:
    """The ``Config`` fields of the options (the keyword names are the field names)."""
    return given
