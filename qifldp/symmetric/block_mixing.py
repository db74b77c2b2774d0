"""Posterior mixing by blocks: a witness of A ⊑ B when A's Gram matrix has a block term.

Hadamard response with B blocks (:mod:`qifldp.protocols.hr_block`) has the Gram matrix
M = A Aᵀ = alpha J + D Σ_g 1_g 1_gᵀ + beta I: two values in one block share b/4 outputs of
their sets, values of two blocks none, so posterior mixing's alpha J + beta I
(:mod:`qifldp.symmetric.posterior_mixing`) does not hold. With n_g values in block g and
c_g = Aᵀ 1_g (the column sums of block g's rows), the column of W for B's column
``off + delta [x = j]`` (GRR-type B: one class of size 1)

    w_j = mu A[j, .] + nu_g c_g + Σ_h theta_h c_h + kappa_j,   g the block of j,

with mu = delta / beta, nu_g = -mu D / (n_g D + beta), theta_h = -(mu + nu_h n_h) / k and
kappa_j = off - mu alpha - nu_g n_g alpha - Σ_h theta_h n_h alpha + mu beta / k gives

    (A w_j)_x = mu M[x, j] + nu_g Σ_{j' in g} M[x, j'] + Σ_h theta_h Σ_{j' in h} M[x, j'] + kappa_j
              = off + delta [x = j]

(nu_g cancels the block term of M[., j]; theta_h n_h D + theta_h beta = -mu beta / k for
every h, so the last sum is the same at every x) and W·1 = 1 (the choice of theta). Its
entries are affine in A[j, y] (p or q) and in c_h[y] = n_h q + (p - q) N_h(y) for y in
block h (N_h(y): the values of block h whose set holds y) and n_h q elsewhere, so W >= 0
is checked in rational arithmetic at every combination of j's block, y's block, whether y
is in j's set and N at its smallest and largest value (a superset of the entries: it
never accepts a negative one). The witness is implicit (|Y_A| x k entries, 1.6e8 at
k = 10^4).

Layer L4 (symmetric).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..errors import ChannelError, InputTypeError
from ..refinement.result import RefinementResult
from .channel import SymmetricChannel
from .posterior_mixing import _symmetric_classes, implicit_mixing_result

__all__ = ["BlockGramForm", "block_mixing_from_gram"]


@dataclass(frozen=True)
class BlockGramForm:
    """A's Gram matrix by blocks and the column data of the witness, exact rationals.

    Attributes
    ----------
    sizes : tuple of int
        n_g, the values of each non-empty block (k = their sum).
    empty_blocks : bool
        Whether some block holds no value (its outputs carry q on every row).
    hit, miss : Fraction
        A's two entries (on a value's set, elsewhere), rows divided by their exact sum.
    alpha, block, beta : Fraction
        M = alpha J + block Σ_g 1_g 1_gᵀ + beta I.
    spread : tuple of (int, int)
        Per block, the smallest and largest N_g(y) over its outputs.
    law : str
        What A is.

    Examples
    --------
    >>> import qifldp as q
    >>> form = q.protocol("hr_block", 100, 2.0).block_gram_form()
    >>> form.sizes, form.beta == form.block
    ((31, 31, 31, 7), True)
    """

    sizes: tuple[int, ...]
    empty_blocks: bool
    hit: Fraction
    miss: Fraction
    alpha: Fraction
    block: Fraction
    beta: Fraction
    spread: tuple[tuple[int, int], ...]
    law: str = ""


def block_mixing_from_gram(form: BlockGramForm, B: SymmetricChannel) -> RefinementResult | None:
    """A ⊑ B for a GRR-type B by posterior mixing by blocks (the module's witness), or None.

    Parameters
    ----------
    form : BlockGramForm
        A's Gram matrix by blocks (e.g. :meth:`HRBlock.block_gram_form`).
    B : SymmetricChannel
        On the same k inputs, one class of size 1 (GRR, L-GRR).

    Returns
    -------
    RefinementResult or None
        ``holds`` True, ``exact`` True, ``witness`` None (implicit, ``details`` has mu,
        nu per block and the smallest entry of W over the combinations checked); None
        when B is not GRR-type or some combination gives a negative entry.

    Examples
    --------
    >>> import qifldp as q
    >>> form = q.protocol("hr_block", 1000, 1.0).block_gram_form()
    >>> r = block_mixing_from_gram(form, q.protocol("l_grr", 1000, 2.0, 1.0).symmetric())
    >>> bool(r), r.witness is None
    (True, True)
    """
    t0 = time.perf_counter()
    if not isinstance(form, BlockGramForm):
        msg = f"form must be a BlockGramForm, got {type(form).__name__}"
        raise InputTypeError(msg)
    k = sum(form.sizes)
    if not isinstance(B, SymmetricChannel):
        msg = f"B must be a SymmetricChannel, got {type(B).__name__}"
        raise InputTypeError(msg)
    if B.k != k:
        msg = f"A and B must have the same inputs: A has {k}, B has {B.k}"
        raise ChannelError(msg)
    classes = _symmetric_classes(B)
    if classes is None or len(classes) != 1 or not classes[0][1] > 0 or classes[0][2] != k:
        return None
    off, delta, _ = classes[0]
    S = k * off + delta  # B's exact row sum
    off, delta = off / S, delta / S
    p, q, alpha, D, beta = form.hit, form.miss, form.alpha, form.block, form.beta
    if not beta > 0:
        return None
    n = form.sizes
    mu = delta / beta
    nu = [-mu * D / (ng * D + beta) for ng in n]
    theta = [-(mu + nu[h] * n[h]) / k for h in range(len(n))]
    const = off - sum(theta[h] * n[h] * alpha for h in range(len(n))) - mu * alpha + mu * beta / k
    # the configurations of (y's block or an empty one, N there, y in j's set)
    ys: list[tuple[int | None, int]] = [(h, N) for h in range(len(n)) for N in set(form.spread[h])]
    if form.empty_blocks:
        ys.append((None, 0))
    smallest: Fraction | None = None
    for g in range(len(n)):
        base = const - nu[g] * n[g] * alpha
        for h, N in ys:
            c = [n[i] * q + ((p - q) * N if i == h else 0) for i in range(len(n))]
            rest = base + nu[g] * c[g] + sum(theta[i] * c[i] for i in range(len(n)))
            for inside in (True, False) if h == g else (False,):
                w = mu * (p if inside else q) + rest
                smallest = w if smallest is None or w < smallest else smallest
    if smallest is None or smallest < 0:
        return None
    how = (
        f"posterior mixing by blocks ({form.law}): A Aᵀ = alpha J + D Σ_g 1_g 1_gᵀ + beta I "
        f"with alpha = {float(alpha):.6g}, D = {float(D):.6g}, beta = {float(beta):.6g} as "
        "rationals; the witness W = mu Aᵀ + per-block corrections + offsets is implicit, "
        "not materialised: A·W = B (rows of B divided by their exact sum) and W·1 = 1 "
        "follow from the Gram form, W >= 0 from its smallest entry over every combination "
        f"({float(smallest):.3g}), checked in rational arithmetic"
    )
    details: dict[str, Any] = {
        "witness": "implicit: W = mu Aᵀ + nu_g c_g + Σ theta_h c_h + kappa_j, not materialised",
        "mu": mu,
        "nu": tuple(nu),
        "smallest_entry": smallest,
        "alpha": alpha,
        "block": D,
        "beta": beta,
        "law": form.law,
    }
    return implicit_mixing_result(how, t0, details)
