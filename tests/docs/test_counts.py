"""Every count the README states is checked against what it counts (issue 22): no typed number
drifts from the code."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_readme_claim_count_is_the_audit_registry():
    from qifldp import audit

    text = (ROOT / "README.md").read_text()
    counts = [int(n) for n in re.findall(r"\b(\d+) (?:published |registered )?claims\b", text)]
    assert counts, "the README states how many claims the audit recomputes"
    assert set(counts) == {len(audit.CLAIMS)}, (counts, len(audit.CLAIMS))


def test_readme_gallery_and_reproduce_counts():
    from qifldp.reproduce import reproduce

    text = (ROOT / "README.md").read_text()
    # "Figs. 1-7": the figures reproduce makes, by its default
    (first, last) = re.search(r"Figs\. (\d+)-(\d+): PNG, PDF, SVG", text).groups()
    default = reproduce.__defaults__[3]  # out, quick, data, which
    assert list(default) == list(range(int(first), int(last) + 1))
