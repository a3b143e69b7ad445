"""``run --report booksim``: a run's summary in BookSim2's overall-statistics layout.

The lines and their order are BookSim2's ``DisplayOverallStats`` (docs/booksim-router.md,
section 9.3), numbers in C++'s default stream format (6 significant digits, ``%g``), so a
script that reads BookSim2's output reads this. Under ``--seeds N`` each figure is the mean of
the seeds' figures with ``(N samples)``, as BookSim2 averages its ``sim_count`` runs. An
unstable run (``--measurement booksim`` aborted) prints BookSim2's "Simulation unstable" line
and no block. With several traffic classes (``--classes``) each class has its block, as in
BookSim2 (``====== Traffic class c ======``). A batch (``--batch``) adds BookSim2's three batch-duration lines; with one batch
per run its minimum, average and maximum are the one duration. What differs: "Time taken" is the cycle the run stopped at (BookSim2 also drains
the packets created after its measurement), and ``Total run time`` is netsim-fast's simulation
seconds.
"""

from __future__ import annotations

import math

_BLOCKS = (("Packet latency", "packet_latency"), ("Network latency", "network_latency"),
           ("Flit latency", "flit_latency"), ("Fragmentation", "fragmentation"),
           ("Injected packet rate", "injected_packet_rate"), ("Accepted packet rate", "accepted_packet_rate"),
           ("Injected flit rate", "injected_flit_rate"), ("Accepted flit rate", "accepted_flit_rate"))


def _num(value) -> str:
    """C++'s default ``ostream <<`` of a double: ``%g`` with 6 digits; an empty statistic is nan."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "nan"
    return f"{value:g}"


def _mean(stats: list[dict], *path) -> float | None:
    values = []
    for s in stats:
        for key in path:
            s = s.get(key) if isinstance(s, dict) else None
        values.append(s)
    if any(v is None for v in values):
        return None
    return sum(values) / len(values)


def booksim_report_lines(summary: dict) -> list[str]:
    """The report's lines for a summary (or a ``--seeds`` aggregate with ``per_seed``)."""
    runs = summary.get("per_seed") or [summary]
    control = [r.get("booksim_control") or {} for r in runs]
    if any(c.get("unstable") for c in control):
        return ["Simulation unstable, ending ..."]
    lines = [f"Time taken is {_num(_mean(runs, 'cycles'))} cycles", "====== Overall Traffic Statistics ======"]
    if "per_class" in runs[0]:  # several traffic classes: BookSim2's block of each class
        for c in range(len(runs[0]["per_class"])):
            lines += _class_block(c, [r["per_class"][c]["booksim_stats"] for r in runs])
    else:
        lines += _class_block(0, [r["booksim_stats"] for r in runs])
    if "batch_duration" in runs[0]["booksim_stats"]:  # BookSim2 labels all three "min" (batchtrafficmanager.cpp); kept
        stats = [r["booksim_stats"] for r in runs]
        lines += [f"Overall min batch duration = {_num(_mean(stats, 'batch_duration'))} ({len(stats)} samples)"] * 3
    lines.append(f"Total run time {_num(_mean(runs, 'sim_seconds'))}")
    return lines


def _class_block(c: int, stats: list[dict]) -> list[str]:
    """BookSim2's statistics block of traffic class ``c``, averaged over the seeds' ``stats``."""
    count = f"({len(stats)} samples)"
    lines = [f"====== Traffic class {c} ======"]
    for title, key in _BLOCKS:
        lines.append(f"{title} average = {_num(_mean(stats, key, 'average'))} {count}")
        lines.append(f"\tminimum = {_num(_mean(stats, key, 'minimum'))} {count}")
        lines.append(f"\tmaximum = {_num(_mean(stats, key, 'maximum'))} {count}")
    lines.append(f"Injected packet size average = {_num(_mean(stats, 'injected_packet_size'))} {count}")
    lines.append(f"Accepted packet size average = {_num(_mean(stats, 'accepted_packet_size'))} {count}")
    lines.append(f"Hops average = {_num(_mean(stats, 'hops_average'))} {count}")
    return lines
