"""The flit kernel's logic as plain Python (CI also runs these with NUMBA_DISABLE_JIT=1)."""

import numpy as np
import pytest

from netsim_fast.config import Config
from tests.test_flit_engine import assert_same_as_reference, random_packets


@pytest.mark.nojit
@pytest.mark.parametrize("kw", [dict(router="lanes", routing="duato"), dict(router="iq", routing="dor"),
                                dict(routing="minimal", topology="ring", nodes=5, vcs=2)])
def test_tiny_runs_match_the_reference(kw):
    fields = dict(topology="torus", k=3, packet_flits=3, check_invariants=True)
    fields.update(kw)
    if fields["topology"] == "ring":
        fields.pop("k")
    cfg = Config(**fields)
    assert_same_as_reference(cfg, random_packets(cfg.n_nodes, 12, 3, seed=5, span=10))
