"""Tiny shared helper for the proof scripts: record checked steps, print a certificate, exit."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

# ``python proofs/<name>.py`` puts proofs/ (not the repository root) on sys.path.
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _ROOT not in sys.path:
    sys.path.insert(1, _ROOT)

__all__ = ["Proof", "run", "vanishes"]


def _is_true(ok: object) -> bool:
    """Only a genuine boolean True passes (Python, numpy or sympy), never a truthy number."""
    if ok is True:
        return True
    module = type(ok).__module__.split(".")[0]
    if module == "numpy":
        return (
            getattr(ok, "dtype", None) is not None
            and ok.dtype.kind == "b"
            and ok.shape == ()
            and bool(ok)
        )
    if module == "sympy":
        return type(ok).__name__ == "BooleanTrue"
    return False


class Proof:
    """A list of checked steps; every step is printed with its certificate.

    Parameters
    ----------
    title : str
        The statement being proved (printed first).
    source : str
        Where the statement comes from (paper, lemma, equation).
    """

    def __init__(self, title: str, source: str) -> None:
        self.title = title
        self.failures: list[str] = []
        self.n_steps = 0
        self.discrepancies: list[str] = []
        print(f"PROOF   {title}")
        print(f"SOURCE  {source}")

    def section(self, text: str) -> None:
        """Print a heading for the following steps."""
        print(f"\n-- {text}")

    def note(self, text: str) -> None:
        """Print an explanatory line (no check)."""
        print(f"        {text}")

    def step(self, claim: str, ok: object, certificate: object = "") -> bool:
        """Record that ``claim`` was checked; ``ok`` must be exactly True to pass."""
        self.n_steps += 1
        passed = _is_true(ok)
        tag = "ok  " if passed else "FAIL"
        print(f"[{tag}] {claim}")
        if certificate != "":
            for line in str(certificate).splitlines():
                print(f"          {line}")
        if not passed:
            self.failures.append(claim)
        return passed

    def discrepancy(self, text: str) -> None:
        """Record (and print) a place where the paper's statement is wrong or imprecise."""
        self.discrepancies.append(text)
        print(f"[DISCREPANCY WITH THE PAPER] {text}")

    def finish(self) -> int:
        """Print the verdict; return the exit status (0 iff every step passed)."""
        print()
        for d in self.discrepancies:
            print(f"DISCREPANCY  {d}")
        if self.failures:
            print(f"FAILED  {len(self.failures)} of {self.n_steps} steps: {self.title}")
            for f in self.failures:
                print(f"        - {f}")
            return 1
        if self.n_steps == 0:
            print("FAILED  no step was checked")
            return 1
        print(f"PROVED  ({self.n_steps} steps checked) {self.title}")
        return 0


def _exp_free(e):
    """Replace each exp(c1*m1 + c2*m2 + ...) (c rational, m monomials) by a product of
    powers of fresh positive symbols T_m = exp(m/L): a ring map, so an expression that
    becomes the zero rational function was identically zero."""
    import math

    import sympy as sp

    atoms = e.atoms(sp.exp)
    if not atoms:
        return e
    terms = {}
    for a in atoms:
        parts = []
        for term in sp.Add.make_args(sp.expand(a.args[0])):
            coeff, mono = term.as_coeff_Mul()
            if not coeff.is_Rational or mono.atoms(sp.exp):
                return e
            parts.append((sp.Rational(coeff), mono))
        terms[a] = parts
    den = 1
    for parts in terms.values():
        for coeff, _ in parts:
            den = den * coeff.q // math.gcd(den, coeff.q)
    names = {}
    repl = {}
    for a, parts in terms.items():
        val = sp.Integer(1)
        for coeff, mono in parts:
            if mono == 1:
                val *= sp.exp(coeff)
                continue
            if mono not in names:
                names[mono] = sp.Dummy(f"T{len(names)}", positive=True)
            val *= names[mono] ** int(coeff * den)
        repl[a] = val
    return e.xreplace(repl)


def vanishes(expr) -> bool:
    """True iff the sympy expression (or matrix) is identically 0: exponentials are
    replaced by powers of fresh symbols (:func:`_exp_free`), then the rational function
    is brought to one fraction whose expanded numerator must be 0 (or ``cancel``);
    ``simplify`` is the fallback. False = not shown."""
    import sympy as sp

    if isinstance(expr, sp.MatrixBase):
        return all(vanishes(e) for e in expr)
    e = sp.sympify(expr)
    if e == 0:
        return True
    x = _exp_free(e)
    if sp.expand(x.as_numer_denom()[0]) == 0 or sp.cancel(sp.together(x)) == 0:
        return True
    return sp.simplify(e) == 0


def run(main: Callable[[], int]) -> None:
    """Run a proof's ``main`` and exit with its status (an exception exits non-zero)."""
    sys.exit(main())
