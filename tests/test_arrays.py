"""Arrays on a cache line (netsim_fast/_arrays.py): the engines' record arrays start on a
64-byte line, so a 64-byte lane record is one line; the arrays are otherwise np.zeros'."""

from __future__ import annotations

import numpy as np
import pytest

from netsim_fast import _arrays as aligned
from netsim_fast.config import Config
from netsim_fast.flit import state as fs
from netsim_fast.flit.run import build_params
from netsim_fast.topologies import build_topology


@pytest.mark.parametrize("shape", [0, 1, 7, (3, 5), (1000, 8), (4, 0, 2)])
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, fs.IN_LANE, fs.PACKET])
def test_zeros_is_np_zeros_on_a_line(shape, dtype):
    a = aligned.zeros(shape, dtype)
    b = np.zeros(shape, dtype)
    assert a.shape == b.shape and a.dtype == b.dtype and a.flags.c_contiguous and a.flags.writeable
    assert np.array_equal(a, b)
    if a.size:
        assert a.ctypes.data % aligned.LINE == 0


def test_empty_on_a_line():
    a = aligned.empty((1000, 12), np.int32)
    assert a.shape == (1000, 12) and a.flags.c_contiguous and a.ctypes.data % 64 == 0
    assert a.reshape(-1).base is not None  # a view: packet/state.py writes through reshape(-1)


def test_full_and_records():
    a = aligned.full((3, 4), -1, np.int32)
    assert a.ctypes.data % 64 == 0 and (a == -1).all()
    r = aligned.records(5, fs.OUT_LANE)
    r[2].credits = 7  # attribute access, as the kernels and the nojit tests use it
    assert isinstance(r, np.recarray) and r["credits"].tolist() == [0, 0, 7, 0, 0]
    assert r.ctypes.data % 64 == 0


def test_flit_state_records_start_on_a_line():
    cfg = Config(topology="torus", k=4, cycles=10)
    topo = build_topology(cfg)
    params = build_params(cfg, topo, stop_mode=fs.STOP_AT_END, win_start=0, win_end=10, n_total=0)
    state = fs.new_state(topo, params, packet_capacity=100, windows=4)
    for name in ("inl", "in_buf", "outl", "ol_buf", "port", "node", "pkt", "ev_flit", "ev_credit"):
        assert getattr(state, name).ctypes.data % 64 == 0, name
    assert fs.ensure_packet_capacity(state, 5000).pkt.ctypes.data % 64 == 0


@pytest.mark.parametrize("make", [aligned.zeros, aligned.records])
def test_huge_arrays_start_on_a_huge_page(make):
    """``huge=True``, from 2 MiB up: on a 2 MiB boundary (Linux: advised to use huge pages),
    zeroed, writable."""
    a = make((aligned.HUGE // 64 + 3, 8), np.int64, huge=True)
    assert a.shape == (aligned.HUGE // 64 + 3, 8) and a.flags.c_contiguous and a.flags.writeable
    assert a.ctypes.data % aligned.LINE == 0
    assert not np.asarray(a).any()
    a[-1, -1] = 5
    assert a[-1, -1] == 5
    import mmap

    if hasattr(mmap, "MADV_HUGEPAGE"):
        assert a.ctypes.data % aligned.HUGE == 0
