"""``qifldp audit``: the papers' published claims checked live, as text, Markdown or JSON."""

from __future__ import annotations

import argparse
from typing import Any

from ..audit import BIBLIOGRAPHY, audit, format_audit, format_markdown, inventory
from ..errors import ParameterError
from .output import _check_output_file


def run(args: argparse.Namespace) -> dict[str, Any]:
    if args.markdown and args.json:
        msg = "--markdown writes to stdout, which --json already uses: use --markdown-file FILE"
        raise ParameterError(msg)
    if args.markdown_file is not None:
        _check_output_file(args.markdown_file, "--markdown-file")
    results = audit(args.claims or None)
    if args.markdown_file is not None:
        with open(args.markdown_file, "w", encoding="utf-8") as fh:
            fh.write(format_markdown(results, details=not args.brief) + "\n")
    if args.markdown:
        print(format_markdown(results, details=not args.brief))
    elif not args.json:
        print(format_audit(results, details=not args.brief))
        if not args.claims:  # every claim checked: the per-paper inventory with its verdicts
            print()
            print(inventory.format_inventory(results))
    cited = dict.fromkeys(k for r in results for k in r.references)
    doc: dict[str, Any] = {
        # every field the text shows: the key, the verdict, the source, the claim, the
        # details, and the references cited
        "claims": [
            {"key": r.key, **r.to_dict(), "references": list(r.references)} for r in results
        ],
        "references": {k: BIBLIOGRAPHY[k].full for k in BIBLIOGRAPHY if k in cited},
    }
    if not args.claims:  # per paper, every statement with its verdicts or why not checkable
        doc["inventory"] = inventory.records(results)
    return doc
