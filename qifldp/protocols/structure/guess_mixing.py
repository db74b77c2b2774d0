"""A witness through guessing: HE with t coefficients into GRR-type channels at any k.

Answer each report (J, s) of HE with t coefficients by a value drawn uniformly from its
hit coset (the values x of 0..K-1 with h(J, x) = s; a value uniform in 0..K-1 when s is
hit by none). On the K = 2^m values this is GRR-type exactly: the affine group of F_2^m
permutes the reports and is 2-transitive on the values, so the guess is x w.p. a and each
other value w.p. b (:meth:`~qifldp.protocols.he_multi.HEMulti.guess_law`, exact
rationals). The channel on k < K values is the first k rows of the one on K, so the same
guess maps it to the first k rows of that GRR-type law; spreading the guesses beyond k
uniformly over 0..k-1 gives a GRR-type channel on k values,

    d = a + (K − k) b / k at x,   o = K b / k elsewhere.

A class of B's columns singling out one input (a_c at it, off_c elsewhere, a_c >= off_c:
GRR, L-GRR) is then reached by W2(y, (c, j)) = lambda_c [y = j] + mu_c with
lambda_c = (a_c − off_c) / (d − o) and mu_c = off_c − lambda_c o, and a constant column
of value v by W2(y, .) = v. The rows of W2 sum to 1 exactly (B's rows do); so W = guess ·
spread · W2 is a witness iff every mu_c >= 0, checked in rationals on the stored floats
of B (rows divided by their exact sum) and HE-t's law with its stored p. W is implicit
(never materialised). This proves, at k = 10^4 and eps = 4, HE-t ⊑ L-GRR: posterior
mixing (the Gram form) cannot, and the affine group acts on no k that is not a power of
two.

Layer L5 (protocols): protocol-level refinement without whole channels.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ...symmetric import SymmetricChannel

__all__ = ["GuessMixing", "guess_mixing_witness"]


@dataclass(frozen=True)
class GuessMixing:
    """A ⊑ B proved by guessing then mixing (exact; W implicit).

    Attributes
    ----------
    values : dict
        ``K``, ``a``, ``b`` (the guess law on K values), ``d``, ``o`` (on k values after
        the spread), and ``lambda_c``, ``mu_c`` per class c of B's singled-out columns,
        exact rationals.
    certified_by : str
        The statement of the certificate.
    """

    values: dict[str, Fraction]
    certified_by: str


def guess_mixing_witness(P: Any, B: SymmetricChannel) -> GuessMixing | None:
    """P ⊑ B by a guess in the hit coset, a uniform spread and a GRR mixing, exact.

    Parameters
    ----------
    P : Protocol
        With ``guess_law()`` (:class:`~qifldp.protocols.he_multi.HEMulti`).
    B : SymmetricChannel
        On P's k inputs, with classes of sizes 0 and 1 only (GRR-type, L-GRR).

    Returns
    -------
    GuessMixing or None
        None when P has no guess law, B has other sizes or a class singling its input
        out downwards, or some mu_c < 0 (then nothing is said).

    Examples
    --------
    >>> import qifldp as q
    >>> P = q.protocol("he_multi", 10**4, 4.0)  # (2 K)^6 outputs, K = 16384: never built
    >>> B = q.protocol("l_grr", 10**4, 8.0, 4.0).symmetric()
    >>> found = guess_mixing_witness(P, B)
    >>> found.values["K"], min(v for key, v in found.values.items() if key[:2] == "mu") >= 0
    (Fraction(16384, 1), True)
    """
    law = getattr(P, "guess_law", None)
    if not callable(law) or B.k != P.k:
        return None
    k = P.k
    K, a, b = law()
    d, o = a + (K - k) * b / k, K * b / k
    if not d > o:
        return None
    values: dict[str, Fraction] = {"K": Fraction(K), "a": a, "b": b, "d": d, "o": o}
    c = 0
    row = Fraction(0)  # a row of W2, summed (checked to be 1 below, exactly)
    for size, pin, pout in B.exact_class_masses():
        if size == 0:
            row += pout  # constant columns: W2 = their value, from every row
            continue
        if size != 1 or k < 2:
            return None
        at, off = pin, pout / (k - 1)
        if at < off:
            return None
        lam = (at - off) / (d - o)
        mu = off - lam * o
        if mu < 0:
            return None
        values[f"lambda_{c}"], values[f"mu_{c}"] = lam, mu
        row += lam + k * mu
        c += 1
    if row != 1 or d + (k - 1) * o != 1:
        return None  # a guard on the identities: W2 and the spread law are stochastic
    how = (
        f"a witness through guessing: each report answered by a value uniform in its hit "
        f"coset (GRR-type on the K = {K} values by 2-transitivity: a = {float(a):.6g}, "
        f"b = {float(b):.6g}, exact), the guesses beyond k = {k} spread uniformly (d = "
        f"{float(d):.6g}, o = {float(o):.6g}), then each class of B mixed from it "
        "(lambda, mu >= 0); every step exact in rationals, W implicit"
    )
    return GuessMixing(values=values, certified_by=how)
