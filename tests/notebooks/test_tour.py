"""notebooks/tour.ipynb: committed without outputs, executes, shows its figure and explain()."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

TOUR = Path(__file__).resolve().parents[2] / "notebooks" / "tour.ipynb"


def test_tour_is_committed_without_outputs_and_covers_the_api():
    nb = json.loads(TOUR.read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert all(c["outputs"] == [] and c["execution_count"] is None for c in code)
    source = "\n".join("".join(c["source"]) for c in code)
    # protocol objects first, then each surface of the issue
    assert "".join(code[0]["source"]).count("q.protocol(") == 1
    for name in (
        ".channel()",
        ".symmetric()",
        ".symbolic()",
        "q.bayes_capacity",
        "q.refines",
        ".explain(",
        "q.tradeoff_curve",
        "q.privacy_profile",
        "q.gdp_mu",
        "q.compose",
        "q.repeated",
        "q.composition_epsilon",
        "q.write_channel",
        "q.read_channel",
        "plt.show()",
    ):
        assert name in source, name


@pytest.mark.slow
def test_tour_executes_with_its_figure_inline():
    from tests.notebooks.test_notebooks import PNG_SIGNATURE, _executed, _pngs

    nb = _executed(TOUR)
    figures = [c for c in nb.cells if "figure" in c.get("metadata", {}).get("tags", [])]
    assert len(figures) == 1
    (png,) = _pngs(figures[0])
    assert png.startswith(PNG_SIGNATURE) and len(png) > 5_000
    text = "\n".join(
        o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
    )
    assert "In short: An adversary who wants to guess the secret in one try" in text
    assert "In short: GRR(eps=1) is GRR(eps=2) followed by a randomised post-processing" in text
    assert "refused:" in text  # rows rounded in print need renormalize=True
