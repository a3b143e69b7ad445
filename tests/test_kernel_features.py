"""The flit kernel compiles only the parts a run uses (flit/features.py, _stage.ConstantMembers)."""

from typing import NamedTuple

import numba
import pytest
from numba import njit

from netsim_fast._jit import KERNEL_JIT, KERNEL_STAGE_JIT
from netsim_fast._stage import Fixed, FixedInt, python_twin
from netsim_fast.config import Config
from netsim_fast.flit import state as fs
from netsim_fast.flit.run import build_params
from netsim_fast.topologies import build_topology


class _P(NamedTuple):
    x: int
    uses_a: object
    uses_b: object


# not cached: a kernel loaded from Numba's cache compiles nothing, and the test counts compiles
_STAGE = dict(KERNEL_STAGE_JIT, cache=False)


@njit(**_STAGE)
def _part(x):
    return x + 10


@njit(**_STAGE)
def _stage(p):
    r = p.x
    if p.uses_a:
        r = _part(r)
    if p.uses_b is not None:
        r += 100
    return r


@njit(**dict(KERNEL_JIT, cache=False))
def _kernel(p):
    return _stage(p)


def test_a_none_member_prunes_its_branch_before_typing():
    assert _kernel(_P(1, None, None)) == 1
    assert len(_part.overloads) == 0  # never typed nor compiled
    assert _kernel(_P(1, True, None)) == 11
    assert _kernel(_P(1, None, True)) == 101
    assert len(_part.overloads) == 1


class _Q(NamedTuple):
    x: int
    y: int


@njit(**_STAGE)
def _only_if_five(x):
    return x + 10


@njit(**_STAGE)
def _fixed_stage(q):
    r = q.y
    if q.x == 5:  # with x Fixed(4), a constant condition: the branch is pruned before typing
        r = _only_if_five(r)
    return r * q.x


@njit(**dict(KERNEL_JIT, cache=False))
def _fixed_kernel(q):
    return _fixed_stage(q)


def test_a_fixed_member_is_compiled_as_its_value():
    """flit/specialise.py's mechanism: a ``Fixed`` member is a constant of its own compilation."""
    assert _fixed_kernel(_Q(Fixed(4), 3)) == 12
    assert len(_only_if_five.overloads) == 0  # the branch on 4 == 5 was dropped before typing
    (sig,) = python_twin(_fixed_kernel).signatures
    assert sig[0].types[0] == FixedInt(4) and sig[0].types[1] == numba.int64
    assert _fixed_kernel(_Q(4, 3)) == 12  # the plain int: another compilation, read at run time
    assert len(python_twin(_fixed_kernel).signatures) == 2 and len(_only_if_five.overloads) == 1
    assert _fixed_kernel(_Q(Fixed(5), 3)) == 65 and len(python_twin(_fixed_kernel).signatures) == 3


EVERY = {"lanes", "iq", "debug", "closed_loop", "classes", "sync", "grid", "tables", "nonmin", "eject_pass", "prefetch"}


@pytest.mark.parametrize("kw, on", [
    (dict(topology="torus", k=4), {"lanes", "grid"}),
    (dict(topology="torus", k=4, router="iq"), {"iq", "grid"}),
    (dict(topology="torus", k=40), {"lanes", "grid", "prefetch"}),  # from flit/run.py PREFETCH_LANES up
    (dict(topology="hyperx", dims=(3, 3), routing="min-adaptive"), {"lanes", "tables"}),
    (dict(topology="dragonfly", group_routers=4, global_links=2, routing="ugal-l", vcs=3), {"lanes", "nonmin"}),
    (dict(topology="torus", k=4, check_invariants=True), EVERY),  # any option compiles every part
    (dict(topology="torus", k=4, classes=2), EVERY),
    (dict(topology="torus", k=4, closed_loop=True, vcs=4), EVERY),
    (dict(topology="torus", k=4, router="booksim"), EVERY),
])
def test_uses_switches_follow_the_parameters(kw, on):
    cfg = Config(cycles=1, **kw)
    p = build_params(cfg, build_topology(cfg), stop_mode=fs.STOP_AT_END, win_start=0, win_end=1)
    switches = {name[len("uses_"):]: getattr(p, name) for name in p._fields if name.startswith("uses_")}
    assert {name for name, v in switches.items() if v is not None} == on
    assert all(v in (True, None) for v in switches.values())
