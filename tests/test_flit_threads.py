"""``--threads N``: the flit engine's router stages on several threads give the same result as
on one (flit/parallel.py), on a dozen configurations that exercise what the threads must merge:
flit, credit and ejection events (lanes and iq), counters, time series, errors."""

from __future__ import annotations

import pytest

from netsim_fast.config import Config
from netsim_fast.errors import ConfigError, DeadlockError
from netsim_fast.experiment import simulate
from netsim_fast.summary_keys import WALL_CLOCK_KEYS

# Small networks and runs: what is compared is every summary value, bit for bit.
CASES = {
    "torus dor": dict(topology="torus", k=6, rate=0.3, cycles=600),
    "torus duato past saturation": dict(topology="torus", k=6, routing="duato", rate=0.9, cycles=600),
    "mesh iq router": dict(topology="mesh", k=5, router="iq", rate=0.4, cycles=600),
    "mesh vct, 2 headers, 1-flit": dict(topology="mesh", k=5, switching="vct", headers_per_cycle=2,
                                        packet_flits=1, rate=0.5, cycles=600),
    "hypercube, window and drain": dict(topology="hypercube", dims=(2, 2, 2, 2), rate=0.2, warmup=100,
                                        measure=300, drain=600),
    "dragonfly ugal-l, wires": dict(topology="dragonfly", concentration=2, group_routers=4, global_links=2,
                                    routing="ugal-l", vcs=4, global_latency=6, rate=0.3, cycles=600),
    "fat tree, random up-port": dict(topology="fattree", k=2, n=3, up_port="random", rate=0.4, cycles=600),
    "flatfly valiant, concentration": dict(topology="flatfly", k=4, n=2, concentration=2, routing="valiant",
                                           vcs=2, rate=0.3, cycles=600),
    "two classes, size mix": dict(topology="torus", k=4, classes=2, class_mix="0.5,0.5", class_priority="1,0",
                                  packet_sizes="1,8", packet_mix="0.5,0.5", rate=0.4, cycles=600),
    "link faults, table routing": dict(topology="torus", k=5, routing="minimal", link_failures=3, fault_seed=2,
                                       rate=0.3, cycles=600),
    "request-reply closed loop": dict(topology="torus", k=4, vcs=4, closed_loop=True, outstanding=2, reply_flits=4,
                                      rate=0.3, cycles=600),
    "total exchange to completion": dict(topology="torus", k=4, routing="duato", pattern="random-te"),
    "debug invariants, onoff": dict(topology="mesh", k=4, injection="onoff", burst_length=4, duty_cycle=0.5,
                                    rate=0.3, cycles=300, check_invariants=True),
}


def _result(kw: dict, threads: int) -> dict:
    summary = simulate(Config(**kw, threads=threads))
    return {k: v for k, v in summary.items() if k not in WALL_CLOCK_KEYS}


@pytest.mark.parametrize("name", list(CASES))
def test_threads_give_the_one_thread_result(name):
    one = _result(CASES[name], 1)
    assert one["flit_hops"] > 0
    assert _result(CASES[name], 2) == one
    if name == "torus dor":  # more ranges than cores: still the same
        assert _result(CASES[name], 3) == one


def test_a_deadlock_is_found_at_the_same_cycle_on_two_threads():
    kw = dict(topology="torus", k=8, routing="dor-nodateline", vcs=1, buf=2, packet_flits=16, rate=0.9, cycles=3000,
              deadlock_cycles=300)
    messages = []
    for threads in (1, 2):
        with pytest.raises(DeadlockError) as info:
            simulate(Config(**kw, threads=threads))
        messages.append(str(info.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("kw, match", [
    (dict(router="booksim", routing="dim_order", pattern="uniform-self"), "booksim router runs on one thread"),
    (dict(topology="dragonfly", concentration=2, group_routers=4, global_links=2, routing="ugal-g", vcs=4),
     "ugal-g"),
    (dict(engine="packet", topology="rrg", nodes=16, degree=4, pattern="random", messages=1), "flit engine only"),
    (dict(threads=0), "threads"),
])
def test_threads_refused_where_they_cannot_apply(kw, match):
    base = dict(threads=2) if "topology" in kw else dict(topology="torus", k=4, threads=2)
    with pytest.raises(ConfigError, match=match):
        Config(**{**base, **kw})


@pytest.mark.parametrize("routers, load, expected", [(1024, 0.0, 2), (1023, 0.0, 1), (4096, 1.0, 1)])
def test_automatic_threads_need_a_large_network_and_an_idle_core(monkeypatch, routers, load, expected):
    from netsim_fast.flit import parallel

    monkeypatch.setattr(parallel.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(parallel.os, "getloadavg", lambda: (load, load, load))
    assert parallel.run_threads(Config(topology="torus", k=4), routers) == expected
    assert parallel.run_threads(Config(topology="torus", k=4, threads=3), routers) == 3


@pytest.mark.parametrize("shape, dtype", [((4,), "i4"), ((26,), "i8"), ((9, 4), "i4"), ((3, 7, 2), "i8"), ((5,), "i8")])
def test_each_thread_copy_fills_whole_cache_lines(shape, dtype):
    """Two threads never write the same cache line of their scratch (false sharing)."""
    import numpy as np

    from netsim_fast.flit.parallel import LINE, _per_thread

    a = np.zeros(shape, dtype)
    copies = _per_thread(a, 3)
    assert copies.shape[0] == 3 and copies.shape[1] >= shape[0] and copies.shape[2:] == shape[1:]
    assert copies[0].nbytes % LINE == 0 and copies.ctypes.data % LINE == 0
    assert not copies.any()
