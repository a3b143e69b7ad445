"""One line saying which machine a speed bench ran on, printed at the top of its output.

The README's speed figures say their machine; a hand-written description goes stale when the
host changes under a session (it did: the figures of 2026-11-27 ran on an Intel Xeon guest,
while the text still named the AMD EPYC of the day before). Each speed bench prints this line
instead, read off the machine as it runs: the CPU model, the CPUs, the caches as the (possibly
virtual) machine reports them, the date and the load average.
"""

from __future__ import annotations

import os
import platform
import subprocess
import time


def describe() -> str:
    """``2026-11-27 05:30 UTC, Intel(R) Xeon(R) Processor, 2 CPUs, L2 4 MiB (2 instances), ...``"""
    fields = _lscpu()
    model = fields.get("Model name", platform.processor() or platform.machine())
    caches = ", ".join(f"{name} {fields[key]}" for name, key in (("L2", "L2 cache"), ("L3", "L3 cache"))
                       if key in fields)
    parts = [time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), model, f"{os.cpu_count()} CPUs"]
    if caches:
        parts.append(caches + " (as reported)")
    parts.append(f"load average {os.getloadavg()[0]:.2f}")
    return ", ".join(parts)


def _lscpu() -> dict[str, str]:
    """``lscpu``'s fields (empty where there is no lscpu)."""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    fields = {}
    for line in out.splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    return fields


if __name__ == "__main__":
    print(describe())
