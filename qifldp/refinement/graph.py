"""Hasse diagrams of the refinement order on a set of channels, and a plot of them."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import InputTypeError, VerificationError
from ..validation import check_sequence
from .families import decider

if TYPE_CHECKING:  # networkx is imported on first use: ``import qifldp`` stays fast
    import networkx as nx

__all__ = ["refinement_graph", "hasse_diagram", "plot_refinement_graph"]

#: The type of the channels' names (any hashable, the same in ``names`` and ``verdicts``).
_Name = TypeVar("_Name", bound=Hashable)


def refinement_graph(
    channels: Mapping[Hashable, Any], *, decide: Callable[[Any, Any], Any] | None = None
) -> nx.DiGraph:
    """The Hasse diagram of the refinement order on named channels.

    Parameters
    ----------
    channels : dict
        name -> channel (anything ``decide`` accepts); all over the same inputs.
    decide : callable, optional
        ``decide(A, B)`` is truthy iff A ⊑ B. Default :func:`qifldp.refines`
        (verified certificates). For 2x2 channels :func:`qifldp.tradeoff.refines_2x2`.

    Returns
    -------
    networkx.DiGraph
        One node per equivalence class (channels that refine each other), named by
        its first member in the order of ``channels``; node attributes
        ``members`` (tuple of names) and ``channel`` (the representative's
        channel). An edge u -> v means u ⊑ v (v is safer), transitively reduced;
        its attribute ``result`` is the certificate of u ⊑ v. Graph attributes:
        ``equivalent`` (list of member tuples with more than one name),
        ``incomparable`` (list of pairs of node names, neither refining the
        other) and ``results`` (dict (a, b) -> verdict of a ⊑ b for every
        ordered pair of distinct names).

    Raises
    ------
    InputTypeError
        ``channels`` is not a non-empty mapping, or ``decide`` is not callable.
    VerificationError
        The verdicts are not transitive (a ⊑ b ⊑ c but a ⋢ c), which a sound
        decision procedure never produces.

    Notes
    -----
    n(n - 1) decisions for n channels. Equivalence classes are the strongly
    connected components of the relation; the quotient is a partial order, whose
    transitive reduction is the Hasse diagram.

    Examples
    --------
    >>> from qifldp.tradeoff import refines_2x2
    >>> G = refinement_graph({
    ...     "rr3": [[0.75, 0.25], [0.25, 0.75]],
    ...     "rr2": [[2/3, 1/3], [1/3, 2/3]],
    ...     "rr2b": [[1/3, 2/3], [2/3, 1/3]],
    ...     "none": [[0.5, 0.5], [0.5, 0.5]],
    ... }, decide=refines_2x2)
    >>> sorted(G.edges)
    [('rr2', 'none'), ('rr3', 'rr2')]
    >>> G.nodes["rr2"]["members"], G.graph["equivalent"], G.graph["incomparable"]
    (('rr2', 'rr2b'), [('rr2', 'rr2b')], [])
    """
    if not isinstance(channels, Mapping) or not channels:
        msg = "channels must be a non-empty dict name -> channel"
        raise InputTypeError(msg)
    decide = decider(decide)
    names = list(channels)
    results: dict[tuple[Hashable, Hashable], Any] = {}
    for a in names:
        for b in names:
            if a != b:
                results[(a, b)] = decide(channels[a], channels[b])
    G = hasse_diagram(names, {p: bool(r) for p, r in results.items()}, strict=True)
    for v in G:
        G.nodes[v]["channel"] = channels[v]
    for u, v in G.edges:
        G.edges[u, v]["result"] = results[(u, v)]
    G.graph["results"] = results
    return G


def hasse_diagram(
    names: Sequence[_Name],
    verdicts: Mapping[tuple[_Name, _Name], bool | None],
    *,
    strict: bool = False,
) -> nx.DiGraph:
    """The Hasse diagram of a refinement relation that may be only partly known.

    Parameters
    ----------
    names : sequence
        The channels' names, in display order (distinct).
    verdicts : dict
        ``(a, b) -> True`` (a ⊑ b decided), ``False`` (a ⋢ b decided) or ``None``
        (undecided, e.g. skipped for its cost); missing pairs count as undecided.
    strict : bool
        Raise VerificationError when the decided verdicts are not transitive;
        otherwise such pairs are listed in ``G.graph["inconsistent"]``.

    Returns
    -------
    networkx.DiGraph
        One node per equivalence class (named by its first member in the order of
        ``names``; node attribute ``members``), an edge u -> v when u ⊑ v is
        decided or follows by transitivity, transitively reduced. Graph
        attributes: ``equivalent`` (member tuples of classes with more than one
        name), ``incomparable`` (pairs of class names, neither refining the
        other), ``status`` ((a, b) -> True / False / None for every ordered pair of
        distinct names after inference), ``inferred`` ((a, b) -> the name c of the
        chain that settles an undecided pair), ``undecided`` (ordered pairs of
        class names whose relation stays unknown) and ``inconsistent``.

    Raises
    ------
    InputTypeError
        ``names`` is empty or has repeated names.
    VerificationError
        ``strict`` and a ⊑ b ⊑ c is decided while a ⊑ c is decided false.

    Notes
    -----
    Refinement is a preorder, so undecided pairs are settled where a chain
    decides them: a ⊑ c ⊑ b gives a ⊑ b, and c ⊑ a with c ⋢ b gives a ⋢ b
    (else c ⊑ a ⊑ b), as does b ⊑ c with a ⋢ c. O(n^3) for n names.

    Examples
    --------
    >>> G = hasse_diagram(["a", "b", "c"], {("a", "b"): True, ("b", "c"): True,
    ...                                     ("b", "a"): False, ("c", "b"): False})
    >>> sorted(G.edges), G.graph["inferred"][("a", "c")], G.graph["status"][("c", "a")]
    ([('a', 'b'), ('b', 'c')], 'b', False)
    >>> G = hasse_diagram(["a", "b"], {("a", "b"): False})
    >>> G.graph["undecided"], G.graph["incomparable"]
    ([('b', 'a')], [])
    """
    import networkx as nx

    names = check_sequence("names", names, Hashable, "hashable channel names")
    if not isinstance(verdicts, Mapping):
        msg = f"verdicts must be a mapping (a, b) -> True/False/None, got {type(verdicts).__name__}"
        raise InputTypeError(msg)
    if not names or len(set(names)) != len(names):
        msg = "names must be a non-empty sequence of distinct channel names"
        raise InputTypeError(msg)
    status: dict[tuple[Hashable, Hashable], bool | None] = {
        (a, b): verdicts.get((a, b)) for a in names for b in names if a != b
    }
    decided_true = nx.DiGraph()
    decided_true.add_nodes_from(names)
    decided_true.add_edges_from(p for p, v in status.items() if v)
    closure = nx.transitive_closure(decided_true, reflexive=None)
    inferred: dict[tuple[Hashable, Hashable], Hashable] = {}
    inconsistent: list[tuple[Hashable, Hashable]] = []
    for a, b in closure.edges:
        if a == b or status[(a, b)]:
            continue
        via = next(c for c in closure.successors(a) if c != b and closure.has_edge(c, b))
        if status[(a, b)] is False:
            if strict:
                msg = (
                    f"refinement verdicts are not transitive: {a!r} reaches {b!r} through "
                    f"a chain (via {via!r}) but decide({a!r}, {b!r}) is false"
                )
                raise VerificationError(msg)
            inconsistent.append((a, b))
            continue
        status[(a, b)] = True
        inferred[(a, b)] = via
    changed = True
    while changed:  # a ⋢ b from c ⊑ a, c ⋢ b or from b ⊑ c, a ⋢ c
        changed = False
        for (a, b), v in status.items():
            if v is not None:
                continue
            for m in names:
                if m in (a, b):
                    continue
                if (status[(m, a)] and status[(m, b)] is False) or (
                    status[(b, m)] and status[(a, m)] is False
                ):
                    status[(a, b)] = False
                    inferred[(a, b)] = m
                    changed = True
                    break
    rel = nx.DiGraph()
    rel.add_nodes_from(names)
    rel.add_edges_from(p for p, v in status.items() if v)
    order = {n: i for i, n in enumerate(names)}
    classes = sorted(
        (tuple(sorted(c, key=order.__getitem__)) for c in nx.strongly_connected_components(rel)),
        key=lambda c: order[c[0]],
    )
    rep = {m: c[0] for c in classes for m in c}
    quotient = nx.DiGraph()
    quotient.add_nodes_from(c[0] for c in classes)
    for a, b in rel.edges:
        if rep[a] != rep[b]:
            quotient.add_edge(rep[a], rep[b])
    G = nx.DiGraph(nx.transitive_reduction(quotient))
    for c in classes:
        G.add_node(c[0], members=c)
    reps = [c[0] for c in classes]
    G.graph["equivalent"] = [c for c in classes if len(c) > 1]
    G.graph["incomparable"] = [
        (u, v)
        for i, u in enumerate(reps)
        for v in reps[i + 1 :]
        if status[(u, v)] is False and status[(v, u)] is False
    ]
    G.graph["undecided"] = [(u, v) for u in reps for v in reps if u != v and status[(u, v)] is None]
    G.graph["status"] = status
    G.graph["inferred"] = inferred
    G.graph["inconsistent"] = inconsistent
    return G


#: Incomparable pairs listed under a plotted Hasse diagram (the rest are counted).
INCOMPARABLE_SHOWN = 12
#: Height (axes fraction) of the top of the note of incomparable pairs: under the axes.
INCOMPARABLE_NOTE_Y = -0.06
#: A layer of more than this many nodes is drawn on two alternating rows ...
STAGGER_FROM = 6
#: ... STAGGER layer heights above and below the layer's own row.
STAGGER = 0.18


def _layers(G: nx.DiGraph) -> dict[Hashable, int]:
    import networkx as nx

    level: dict[Hashable, int] = {}
    for v in nx.topological_sort(G):
        preds = list(G.predecessors(v))
        level[v] = 1 + max(level[p] for p in preds) if preds else 0
    return level


def plot_refinement_graph(
    G: nx.DiGraph,
    ax: Any = None,
    *,
    show_members: bool = True,
    node_color: str = "#dbe9f6",
    font_size: float = 9,
) -> Any:
    """Draw a Hasse diagram from :func:`refinement_graph`, safer channels higher up.

    Parameters
    ----------
    G : networkx.DiGraph
        A graph returned by :func:`refinement_graph` (edges u -> v: u ⊑ v).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure when None.
    show_members : bool
        Label merged nodes with all their members ("A = B") instead of the
        representative only.
    node_color : str
        Face colour of the node boxes.
    font_size : float
        Label font size.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    InputTypeError
        G is not a directed acyclic graph.

    Notes
    -----
    Layered layout: a node's height is the length of the longest chain below it
    (the leakiest channels at the bottom); within a layer nodes are ordered by
    the mean position of their lower neighbours to limit crossings; a layer of more
    than ``STAGGER_FROM`` nodes alternates them between two rows ``STAGGER`` above and
    below its own, so that neighbouring labels stay apart. Incomparable
    pairs (``G.graph["incomparable"]``, at most ``INCOMPARABLE_SHOWN`` of them, the
    rest counted) are listed in a wrapped note under the axes (the left title,
    moved down to ``INCOMPARABLE_NOTE_Y``), so a title set on ``ax`` stays clear
    of it.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from qifldp.tradeoff import refines_2x2
    >>> G = refinement_graph({"a": [[1.0, 0.0], [0.0, 1.0]], "b": [[0.5, 0.5], [0.5, 0.5]]},
    ...                      decide=refines_2x2)
    >>> ax = plot_refinement_graph(G)
    >>> sorted(t.get_text() for t in ax.texts if t.get_text())
    ['a', 'b']
    """
    import networkx as nx

    if not isinstance(G, nx.DiGraph) or not nx.is_directed_acyclic_graph(G):
        msg = "G must be a networkx.DiGraph without cycles (as returned by refinement_graph)"
        raise InputTypeError(msg)
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(5, 4))
    level = _layers(G)
    by_level: dict[int, list[Hashable]] = {}
    for v in G:  # graph order is the input order: stable layout
        by_level.setdefault(level[v], []).append(v)
    pos: dict[Hashable, tuple[float, float]] = {}
    for lv in sorted(by_level):
        nodes = by_level[lv]
        if lv > 0:

            def bary(v: Hashable) -> float:
                xs = [pos[p][0] for p in G.predecessors(v)]
                return sum(xs) / len(xs) if xs else 0.0

            nodes = sorted(nodes, key=bary)
        width = len(nodes)
        # a wide layer alternates its nodes between two rows, so that neighbouring
        # labels (about one unit apart) do not run into each other
        lift = STAGGER if width > STAGGER_FROM else 0.0
        for i, v in enumerate(nodes):
            pos[v] = (i - (width - 1) / 2, lv + (lift if i % 2 else -lift))
    for u, v in G.edges:
        ax.annotate(
            "",
            xy=pos[v],
            xytext=pos[u],
            arrowprops={"arrowstyle": "-|>", "color": "0.35", "shrinkA": 14, "shrinkB": 14},
        )
    for v, (x, y) in pos.items():
        members = G.nodes[v].get("members", (v,))
        text = " = ".join(map(str, members)) if show_members else str(v)
        ax.text(
            x,
            y,
            text,
            ha="center",
            va="center",
            fontsize=font_size,
            bbox={"boxstyle": "round,pad=0.4", "fc": node_color, "ec": "0.3"},
        )
    xs = [p[0] for p in pos.values()] or [0.0]
    ys = [p[1] for p in pos.values()] or [0.0]
    ax.set_xlim(min(xs) - 1, max(xs) + 1)
    ax.set_ylim(min(ys) - 0.45, max(ys) + 0.45)
    ax.set_axis_off()
    inc = G.graph.get("incomparable")
    if inc:  # under the axes, so that a title above stays free
        # no-break spaces inside a pair: lines wrap between pairs only
        def unbroken(name: Hashable) -> str:
            return str(name).replace(" ", "\u00a0")

        pairs = [f"{unbroken(u)}\u00a0|\u00a0{unbroken(v)}" for u, v in inc[:INCOMPARABLE_SHOWN]]
        more = len(inc) - len(pairs)
        line = "incomparable (neither refines the other): " + ", ".join(pairs)
        if more:
            line += f", and {more} more"
        # characters per line: the axes' width over an average glyph (0.55 em)
        width_pt = ax.get_position().width * ax.figure.get_figwidth() * 72
        width = max(40, int(width_pt / (0.55 * font_size)))
        # the left title, moved under the axes: a caption that keeps the space above
        # the axes for a title (``ax.set_title``) and is laid out with the axes
        ax.set_title(
            "\n".join(textwrap.wrap(line, width)),
            loc="left",
            y=INCOMPARABLE_NOTE_Y,
            va="top",
            fontsize=font_size,
            color="0.25",
        )
    return ax
