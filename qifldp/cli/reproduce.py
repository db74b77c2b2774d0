"""``qifldp reproduce``: the QIF paper's figures 1-7 written as image files."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..reproduce import reproduce
from .errors import UsageError


def run(args: argparse.Namespace) -> dict[str, Any]:
    if args.data is not None and not Path(args.data).is_file():
        msg = f"--data {args.data}: no such file"
        raise UsageError(msg)
    out_dir = Path(args.out)
    if out_dir.exists() and not out_dir.is_dir():
        msg = f"--out {args.out}: exists and is not a folder"
        raise UsageError(msg)

    figures = reproduce(
        args.out, quick=args.quick, data=args.data, which=args.figures, formats=args.formats
    )
    files = [str(path) for f in figures for path in f.files.values()]
    if not args.json:
        for f in files:
            print(f)
    return {"files": files}
