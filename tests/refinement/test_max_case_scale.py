"""Max-case refinement of symmetric channels (issue 12, item 6): one 2-D cone per class of B."""

from __future__ import annotations

import numpy as np
import pytest

import qifldp as q
import qifldp.symmetric as sym
from qifldp.errors import ParameterError, UnsupportedKindError


def _make(name, k, eps):
    return sym.the(k, eps, 0.7) if name == "the" else getattr(sym, name)(k, eps)


PAIRS = [
    ("sue", 2.0, "oue", 2.0),
    ("oue", 2.0, "sue", 2.0),
    ("grr", 1.0, "grr", 2.0),
    ("grr", 2.0, "grr", 1.0),
    ("sue", 3.0, "oue", 2.0),
    ("oue", 1.0, "sue", 3.0),
    ("grr", 2.0, "sue", 2.0),
    ("sue", 2.0, "grr", 2.0),
    ("the", 3.0, "oue", 3.0),
    ("oue", 3.0, "the", 3.0),
]


def _vmax(C, g):
    """V_g^max[υ▷C] = max_y Σ_x g(x) C[x, y] / Σ_x C[x, y] (uniform prior), explicit."""
    M = np.asarray(C, dtype=float)
    col = M.sum(axis=0)
    keep = col > 0
    return float(np.max((g @ M)[keep] / col[keep]))


@pytest.mark.parametrize("k", [3, 4, 5, 6])
@pytest.mark.parametrize(("na", "ea", "nb", "eb"), PAIRS)
def test_agrees_with_explicit_max_case(k, na, ea, nb, eb):
    A, B = _make(na, k, ea), _make(nb, k, eb)
    r = q.max_case_refines(A, B)
    Ae, Be = A.expand().matrix, B.expand().matrix
    e = q.max_case_refines(Ae, Be)
    assert r.relation == "max-case refinement"
    assert r.holds == e.holds
    if r.holds:
        R = r.witness.expand()
        assert R.min() >= 0
        assert np.abs(Ae @ R - Be).max() < 1e-12
    else:
        g = r.counterexample.gain[0]
        gap = _vmax(Be, g) - _vmax(Ae, g)
        assert gap > 1e-9
        assert gap == pytest.approx(r.counterexample.gap, rel=1e-9)


def test_equal_eps_one_hot_at_scale():
    """SUE and OUE at equal eps: each in the other's max-case closure for every k (every
    inner class has ratio e^eps, the edge of the other's cone: the premise route)."""
    for k in (50, 200):
        r = q.max_case_refines(sym.sue(k, 9.0), sym.oue(k, 9.0))
        s = q.max_case_refines(sym.oue(k, 9.0), sym.sue(k, 9.0))
        assert r.holds and s.holds and r.about == "protocols"
    # a larger eps for B always fails max-case refinement (ML^MAX = e^eps grows)
    f = q.max_case_refines(sym.grr(200, 1.0), sym.grr(200, 1.5))
    assert not f.holds and f.counterexample.gap > 0


def test_bad_options():
    with pytest.raises(ParameterError, match="takes no prior"):
        q.max_case_refines(sym.grr(3, 1.0), sym.grr(3, 1.0), prior=[0.2, 0.3, 0.5])
    with pytest.raises(UnsupportedKindError, match="must both be symmetric"):
        q.max_case_refines(sym.grr(3, 1.0), q.grr(3, 1.0))
