"""The THE/OUE comparability map at a fixed theta is not one solid block (issue 22).

At theta = 0.8 Lemma 10 gives OUE_bit ⊑ THE_bit exactly for eps <= ~0.8 and Lemma 4 lifts it
to the one-hot channels; above, the bitwise refinement fails but the whole channels still
refine up to a k-dependent eps. Every verdict is checked against a plain feasibility LP on
the explicit channels written in tests/sweeps/_reference.py.
"""

from __future__ import annotations

import concurrent.futures as cf

import pytest

import qifldp as q
from tests.sweeps._reference import plain_lp_refines

KS, EPSS = (2, 5), (0.5, 1.2, 2.0, 3.0)


def _the(k, eps):
    return q.protocol("the", k, eps, theta=0.8).symmetric()


@pytest.fixture(scope="module")
def the_oue():
    with cf.ThreadPoolExecutor(2) as pool:
        return q.comparability_map(
            _the,
            "oue",
            list(KS),
            list(EPSS),
            executor=pool,
            progress=False,
            time_limit=20.0,
            representation="symmetric",
        )


def test_map_has_more_than_one_relation_and_each_cell_is_the_lp(the_oue):
    assert set(the_oue["relation"]) == {"B⊑A", "incomparable"}
    for row in the_oue.itertuples():
        oue, the = q.oue(row.k, row.eps), q.the(row.k, row.eps, 0.8)
        assert row.b_refines_a == plain_lp_refines(oue, the), (row.k, row.eps)
        assert row.a_refines_b == plain_lp_refines(the, oue), (row.k, row.eps)


def test_the_whole_channels_refine_where_the_bits_do_not(the_oue):
    # eps = 2 is above Lemma 10's bound for theta = 0.8: the bit channels do not refine ...
    assert not plain_lp_refines(q.oue_bit(2.0), q.the_bit(2.0, 0.8))
    assert float(q.formulas.the_oue_threshold(2.0)) > 0.8
    # ... yet at k = 2 the one-hot channels do (Lemma 4 has no converse), not at k = 5
    cell = the_oue.set_index(["k", "eps"])["relation"]
    assert cell[(2, 2.0)] == "B⊑A" and cell[(5, 2.0)] == "incomparable"
    assert cell[(2, 0.5)] == cell[(5, 0.5)] == "B⊑A"  # below the bound: every k
