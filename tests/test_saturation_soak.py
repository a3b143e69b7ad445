"""The soak of bench/saturation_soak.py in its short mode, on a few set-ups (slow)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))


def test_covering_set_covers_every_pair_of_factor_values():
    import itertools

    import saturation_soak as soak

    setups = soak.covering_set()
    for a, b in itertools.combinations(soak.FACTORS, 2):
        for va in soak.FACTORS[a]:
            for vb in soak.FACTORS[b]:
                if not soak.valid({"topology": "mesh8", "routing": "dor2", a: va, b: vb}):
                    continue
                assert any(s[a] == va and s[b] == vb for s in setups), (a, va, b, vb)


@pytest.mark.slow
@pytest.mark.parametrize("setup", [
    {"name": "torus8 duato4 lanes", "topology": "torus8", "routing": "duato4", "router": "lanes", "packet_flits": 4},
    {"name": "mesh8 dor2 iq rr", "topology": "mesh8", "routing": "dor2", "router": "iq", "vc_alloc": "rr"},
    {"name": "torus4x4x4 dor4 lanes vct", "topology": "torus4x4x4", "routing": "dor4", "switching": "vct",
     "packet_flits": 16},
])
def test_short_soak_has_no_false_deadlock_and_serves_every_node(setup):
    import saturation_soak as soak

    row = soak.soak((setup, 100_000, False))
    assert row["verdict"] == "ok", row


@pytest.mark.slow
def test_short_soak_catches_the_prone_ring_in_time():
    import saturation_soak as soak

    row = soak.soak((soak.PRONE[2], 100_000, True))
    assert row["verdict"] == "caught", row
