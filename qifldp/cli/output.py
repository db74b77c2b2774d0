"""What the command line prints: JSON-ready values, numbers, tables, one-line errors."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .errors import UsageError


def _jsonable(x: Any) -> Any:
    """JSON-ready copy of ``x``: numpy scalars and arrays to Python, inf and NaN to None."""
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return _jsonable(x.tolist())
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return float(x) if math.isfinite(x) else None
    if x is None or isinstance(x, str):
        return x
    return str(x)


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    return f"{v:.6g}" if isinstance(v, float) else str(v)


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    text = text if len(text) <= 160 else text[:157] + "..."
    return f"{type(exc).__name__}: {text}"


def _table(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> str:
    cells = [[_fmt(r[c]) for c in columns] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)) for row in cells]
    return "\n".join(line.rstrip() for line in lines)


def _check_output_file(path: str, option: str, suffixes: Sequence[str] = ()) -> None:
    """Refuse, before any computation, an output file the command could not write (exit 2).

    Its folder must exist, the path must not be a folder, and its name must end in one
    of ``suffixes`` (any ending when empty).
    """
    p = Path(path)
    folder = p.parent if str(p.parent) else Path(".")
    if p.is_dir():
        msg = f"{option} {path}: is a folder; give a file name"
        raise UsageError(msg)
    if not folder.is_dir():
        msg = f"{option} {path}: the folder {str(folder)!r} does not exist"
        raise UsageError(msg)
    if suffixes and p.suffix.lower() not in suffixes:
        shown = ", ".join(suffixes[:-1]) + f" or {suffixes[-1]}"
        msg = f"{option} {path}: the file name must end in {shown}"
        raise UsageError(msg)
