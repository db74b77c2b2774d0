"""``qifldp protocols``: the catalogue of protocols, with their parameters and references."""

from __future__ import annotations

import argparse
from typing import Any

from ..protocols.catalogue import CATALOGUE, Entry, Parameter
from .specs import BIT_CHANNELS

__all__ = ["run", "listing"]


def _parameter(p: Parameter) -> dict[str, Any]:
    out: dict[str, Any] = {"name": p.name, "kind": p.kind, "required": p.required}
    if not p.required:
        out["default"] = p.default  # None: computed by the protocol (the rule says how)
    out["rule"] = p.rule
    if p.choices:
        out["choices"] = list(p.choices)
    return out


def _entry(e: Entry) -> dict[str, Any]:
    return {
        "name": e.name,
        "aliases": list(e.aliases),
        "parameters": [_parameter(p) for p in e.parameters],
        "reference": e.reference,
        "summary": e.summary,
        "example": e.spec(**e.example),
    }


def listing() -> list[dict[str, Any]]:
    """Every entry of :data:`qifldp.protocols.CATALOGUE`, as ``qifldp protocols --json`` gives it.

    Returns
    -------
    list of dict
        One per protocol: ``name``, ``aliases``, ``parameters`` (each ``name``, ``kind``,
        ``required``, ``default`` when not required, ``rule``, ``choices`` where it has
        them), ``reference``, ``summary`` and ``example`` (a spec that works).

    Examples
    --------
    >>> rows = listing()
    >>> rows[0]["name"], rows[0]["example"]
    ('grr', 'grr:k=3,eps=1.0')
    >>> [p["name"] for p in next(r for r in rows if r["name"] == "pckv")["parameters"]][:3]
    ['d', 'eps', 'ell']
    """
    return [_entry(e) for e in CATALOGUE.values()]


def run(args: argparse.Namespace) -> dict[str, Any]:
    rows = listing()
    if not args.json:
        for row in rows:
            aliases = f"  (also {', '.join(row['aliases'])})" if row["aliases"] else ""
            print(f"{CATALOGUE[row['name']].signature()}{aliases}")
            print(f"    {row['summary']}")
            for p in CATALOGUE[row["name"]].parameters:
                print(f"    {p.describe()}")
            print(f"    e.g. {row['example']}")
            print(f"    {row['reference']}")
        bits = ", ".join(
            f"{name}:{','.join(p.name + '=...' for p in params)}"
            for name, (_, params) in BIT_CHANNELS.items()
        )
        print(f"Also the 2x2 bit channels {bits}.")
    return {"protocols": rows}
