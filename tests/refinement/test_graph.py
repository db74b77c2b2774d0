"""Hasse diagrams of the refinement order: reduction, equivalence classes, incomparables, plot."""

from __future__ import annotations

import matplotlib
import networkx as nx
import numpy as np
import pytest

import qifldp as q
from qifldp.errors import InputTypeError, VerificationError
from qifldp.refinement.graph import plot_refinement_graph, refinement_graph
from qifldp.tradeoff import refines_2x2, refines_binary
from qifldp.tradeoff.lattice import join, meet

matplotlib.use("Agg")


def test_grr_chain_is_transitively_reduced():
    # paper's Lemma 3: grr(3, 3) ⊑ grr(3, 2) ⊑ grr(3, 1); the edge 3 -> 1 is implied
    G = q.refinement_graph({f"grr{e}": q.grr(3, float(e)) for e in (1, 2, 3)})
    assert isinstance(G, nx.DiGraph)
    assert sorted(G.edges) == [("grr2", "grr1"), ("grr3", "grr2")]
    assert G.graph["incomparable"] == [] and G.graph["equivalent"] == []
    assert G.graph["results"][("grr3", "grr1")].holds  # decided, then reduced away
    assert not G.graph["results"][("grr1", "grr3")].holds
    assert G.edges["grr3", "grr2"]["result"].witness is not None


def test_equivalent_channels_are_merged_and_reported():
    C = q.grr(3, 1.0)
    perm = q.Channel(C.matrix[:, [2, 0, 1]])  # same channel, outputs relabelled
    G = q.refinement_graph({"grr": C, "grr_perm": perm, "grr_low": q.grr(3, 0.5)})
    assert set(G.nodes) == {"grr", "grr_low"}
    assert G.nodes["grr"]["members"] == ("grr", "grr_perm")
    assert G.graph["equivalent"] == [("grr", "grr_perm")]
    assert list(G.edges) == [("grr", "grr_low")]
    assert G.nodes["grr"]["channel"] is C


def test_sue_oue_meet_join_diamond():
    # paper's Lemma 9 (SUE, OUE bits incomparable) and the Sec. VI-B lattice remark:
    # M_eps = meet ⊑ both ⊑ join, a diamond; both deciders give the same diagram
    eps = 2.0
    S, O = q.sue_bit(eps), q.oue_bit(eps)
    chans = {"M": meet(S, O), "SUE": S, "OUE": O, "J": join(S, O)}
    G = q.refinement_graph(chans)
    assert sorted(G.edges) == [("M", "OUE"), ("M", "SUE"), ("OUE", "J"), ("SUE", "J")]
    assert G.graph["incomparable"] == [("SUE", "OUE")]
    two = {k: v for k, v in chans.items() if k != "M"}
    G2 = refinement_graph(two, decide=refines_2x2)
    assert sorted(G2.edges) == [("OUE", "J"), ("SUE", "J")]


def test_non_transitive_verdicts_are_refused():
    order = {("a", "b"), ("b", "c")}  # a ⊑ b ⊑ c but not a ⊑ c: not a preorder

    def decide(x, y):
        return (x, y) in order

    with pytest.raises(VerificationError, match="not transitive"):
        refinement_graph({"a": "a", "b": "b", "c": "c"}, decide=decide)


def test_errors():
    with pytest.raises(InputTypeError, match="non-empty"):
        refinement_graph({})
    with pytest.raises(InputTypeError, match="non-empty"):
        refinement_graph([q.grr(2, 1.0)])
    with pytest.raises(InputTypeError, match="decide"):
        refinement_graph({"a": q.grr(2, 1.0)}, decide=1)
    with pytest.raises(InputTypeError, match="acyclic|DiGraph"):
        plot_refinement_graph(nx.DiGraph([(1, 2), (2, 1)]))


def test_single_channel_and_plot():
    G = refinement_graph({"only": q.grr(2, 1.0)})
    assert list(G.nodes) == ["only"] and G.number_of_edges() == 0
    eps = 1.0
    S, O = q.sue_bit(eps), q.oue_bit(eps)
    H = refinement_graph(
        {"M": meet(S, O), "SUE": S, "SUE'": q.Channel(S.matrix[:, ::-1]), "OUE": O},
        decide=refines_binary,
    )
    ax = plot_refinement_graph(H)
    labels = sorted(t.get_text() for t in ax.texts if t.get_text())
    assert labels == ["M", "OUE", "SUE = SUE'"]
    arrows = [t for t in ax.texts if not t.get_text()]
    assert len(arrows) == H.number_of_edges() == 2
    # layered layout: the leakier meet below the two channels it refines
    y = {t.get_text(): t.get_position()[1] for t in ax.texts if t.get_text()}
    assert y["M"] < y["OUE"] == y["SUE = SUE'"]
    assert "incomparable" in ax.get_title(loc="left")
    ax2 = plot_refinement_graph(H, show_members=False)
    assert "SUE'" not in [t.get_text() for t in ax2.texts]
    np.testing.assert_array_equal(ax.get_xlim(), ax2.get_xlim())
