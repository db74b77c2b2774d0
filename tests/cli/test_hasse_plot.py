"""The Hasse plot: its title and its note of incomparable pairs do not overlap."""

from __future__ import annotations

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text

from qifldp.cli import main
from qifldp.refinement.graph import INCOMPARABLE_SHOWN, hasse_diagram, plot_refinement_graph

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _drawn(G, title):
    """Draw G as ``qifldp compare --plot`` does; return the figure, axes and renderer."""
    fig = Figure(figsize=(6, 4.5))
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    plot_refinement_graph(G, ax=ax)
    ax.set_title(title)
    fig.tight_layout()
    fig.canvas.draw()
    return fig, ax, fig.canvas.get_renderer()


def _note(ax):
    """The note of incomparable pairs (the left title, drawn under the axes)."""
    (note,) = [
        t
        for t in ax.get_children()
        if isinstance(t, Text) and t.get_text().startswith("incomparable")
    ]
    return note


@pytest.mark.parametrize("n_names", [3, 7])
def test_title_and_incomparable_note_do_not_overlap(n_names):
    names = [f"protocol {i}" for i in range(n_names)]
    # a ⊑ b for the first two names only: one edge, every other pair incomparable
    verdicts = {(a, b): False for a in names for b in names if a != b}
    verdicts[(names[0], names[1])] = True
    G = hasse_diagram(names, verdicts)
    n_inc = n_names * (n_names - 1) // 2 - 1
    assert len(G.graph["incomparable"]) == n_inc
    fig, ax, r = _drawn(G, "k = 5, eps = 1  (A -> B: A ⊑ B)")
    title, note = ax.title.get_window_extent(r), _note(ax).get_window_extent(r)
    axes_box = ax.get_window_extent(r)
    figure_box = fig.bbox
    assert not title.overlaps(note)
    assert title.y0 >= axes_box.y1 - 1  # title above the axes
    assert note.y1 <= axes_box.y0 + 1  # note below the axes
    for label in ax.texts:  # clear of every node box
        assert not note.overlaps(label.get_window_extent(r))
    for box in (title, note):  # and both inside the figure
        assert box.x0 >= figure_box.x0 - 1 and box.x1 <= figure_box.x1 + 1
        assert box.y0 >= figure_box.y0 - 1 and box.y1 <= figure_box.y1 + 1
    text = _note(ax).get_text().replace("\u00a0", " ")
    shown = min(n_inc, INCOMPARABLE_SHOWN)
    assert text.count(" | ") == shown
    if n_inc > INCOMPARABLE_SHOWN:
        assert text.endswith(f"and {n_inc - INCOMPARABLE_SHOWN} more")
    # a name is never split over two lines
    for line in _note(ax).get_text().split("\n"):
        assert not line.endswith("protocol") and not line.startswith(("|", "\u00a0"))


def test_no_note_when_everything_is_comparable():
    G = hasse_diagram(["a", "b"], {("a", "b"): True, ("b", "a"): False})
    _, ax, _ = _drawn(G, "title")
    assert not any(
        isinstance(t, Text) and t.get_text().startswith("incomparable") for t in ax.get_children()
    )


def test_cli_compare_writes_the_hasse_png(tmp_path, capsys):
    path = tmp_path / "hasse.png"
    assert main(["compare", "--k", "5", "--eps", "1", "--plot", str(path)]) == 0
    capsys.readouterr()
    raw = path.read_bytes()
    assert raw.startswith(PNG_SIGNATURE) and len(raw) > 10_000


def test_a_wide_layer_keeps_its_labels_apart():
    # fifteen incomparable names of up to 12 characters (the atlas's bottom layer): on
    # one row at unit spacing neighbours' boxes overlap; on two alternating rows no two
    # label boxes meet
    names = ["grr = ss", "blh", "olh", "sue", "hr", "dbitflip", "he", "hr_block"]
    names += ["he_multi", "cms", "hcms", "rappor", "oue = l_osue", "l_oue", "l_soue"]
    G = hasse_diagram(names, {})
    fig = Figure(figsize=(8.5, 5.5))
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    plot_refinement_graph(G, ax=ax, font_size=8)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = [t.get_bbox_patch().get_window_extent(renderer) for t in ax.texts if t.get_text()]
    assert len(boxes) == len(names)
    overlapping = [
        (i, j) for i in range(len(boxes)) for j in range(i) if boxes[i].overlaps(boxes[j])
    ]
    assert overlapping == []
