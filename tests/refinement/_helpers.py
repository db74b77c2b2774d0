"""Independent re-checks of refinement certificates, shared by the refinement tests."""

from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np

import qifldp as q


def random_channel(rng: np.random.Generator, n: int, m: int, alpha: float = 1.0) -> np.ndarray:
    """Rows drawn from Dirichlet(alpha)."""
    return rng.dirichlet(alpha * np.ones(m), size=n)


def assert_witness(A, B, r, rowsum: bool = True) -> None:
    """The witness meets the API tolerances, recomputed here from the channels as given."""
    A = np.asarray(q.Channel(A).matrix)
    B = np.asarray(q.Channel(B).matrix)
    W = r.witness
    assert r.holds and bool(r) and r.counterexample is None
    assert W.shape == (A.shape[1], B.shape[1])
    assert W.min() >= -1e-9
    if rowsum:
        assert np.abs(W.sum(axis=1) - 1).max() <= 1e-9
    assert np.abs(A @ W - B).max() <= 1e-7


def g_vuln_by_hand(C: np.ndarray, g: np.ndarray, prior: np.ndarray) -> float:
    """Σ_y max_w Σ_x π_x C[x, y] g[w, x] by explicit loops (an independent recomputation)."""
    total = 0.0
    for y in range(C.shape[1]):
        total += max(
            sum(prior[x] * C[x, y] * g[w, x] for x in range(C.shape[0])) for w in range(g.shape[0])
        )
    return total


def assert_counterexample(A, B, r, prior=None) -> None:
    """The counterexample's gap is positive, recomputed by g_vulnerability and by loops."""
    A = np.asarray(q.Channel(A).matrix)
    B = np.asarray(q.Channel(B).matrix)
    assert not r.holds and not bool(r) and r.witness is None
    ce = r.counterexample
    n = A.shape[0]
    assert ce.gain.shape[1] == n and ce.prior.shape == (n,)
    assert np.abs(ce.gain).max() <= 1.0
    pi = np.full(n, 1.0 / n) if prior is None else np.asarray(prior)
    np.testing.assert_allclose(ce.prior, pi)
    gap = q.g_vulnerability(B, ce.gain, pi) - q.g_vulnerability(A, ce.gain, pi)
    assert gap > 0 and ce.gap > 0
    assert abs(gap - ce.gap) <= 1e-12 * max(1.0, abs(gap))
    if A.size * ce.gain.shape[0] <= 4000 and B.size * ce.gain.shape[0] <= 4000:
        loops = g_vuln_by_hand(B, ce.gain, pi) - g_vuln_by_hand(A, ce.gain, pi)
        assert abs(loops - gap) <= 1e-9 * max(1.0, abs(gap)) + 1e-15


def rational_rows(M) -> list[list[Fraction]]:
    """Rows of a float matrix as exact fractions divided by their exact sums."""
    out = []
    for row in np.asarray(M, dtype=float):
        fr = [Fraction(float(v)) for v in row]
        s = sum(fr)
        out.append([v / s for v in fr])
    return out


def exact_gap(A, B, gain, prior) -> Fraction:
    """V_g[π▷B] − V_g[π▷A] in exact rationals (rows of the channels normalised exactly)."""
    Aq, Bq = rational_rows(q.Channel(A).matrix), rational_rows(q.Channel(B).matrix)
    g = [[Fraction(float(v)) for v in row] for row in np.asarray(gain)]
    pi = [Fraction(float(v)) for v in prior]

    def V(Cq):
        n, cols = len(Cq), len(Cq[0])
        return sum(
            max(sum(pi[x] * Cq[x][y] * gw[x] for x in range(n)) for gw in g) for y in range(cols)
        )

    return V(Bq) - V(Aq)


def _fmpq(v) -> flint.fmpq:
    """A float (the binary fraction it holds) or a Fraction as a flint rational."""
    n, d = (v.numerator, v.denominator) if isinstance(v, Fraction) else float(v).as_integer_ratio()
    return flint.fmpq(n, d)


def _fmpq_matrix(rows) -> flint.fmpq_mat:
    rows = [list(r) for r in rows]
    return flint.fmpq_mat(len(rows), len(rows[0]), [_fmpq(v) for r in rows for v in r])


def exact_gain_gap(A, B, gain, prior, kind: str = "average") -> Fraction:
    """The exact gap of a gain (floats or Fractions) on the channels as given, written here.

    Average case: Σ_y max_w Σ_x π_x g[w, x] C[x, y]; max case: the largest posterior
    expected gain max_y max_w Σ_x g[w, x] π_x C[x, y] / Σ_x π_x C[x, y]. Each row of C
    is read as the binary fractions it holds divided by their exact sum, which is π_x
    divided by that sum on the raw row (both sums above are linear in π_x C[x, ·]).
    In python-flint's rationals (the products G·diag(π')·C exact in C); the same sums in
    Python's Fractions (:func:`exact_gain_gap_fractions`) agree on small channels.
    """
    g = _fmpq_matrix(gain)
    pi = [_fmpq(v) for v in prior]
    n, n_actions = len(pi), g.nrows()

    def V(C) -> flint.fmpq:
        M = np.asarray(q.Channel(C).matrix, dtype=float)
        Cq = _fmpq_matrix(M)
        cols = M.shape[1]
        # π' = π_x / (exact sum of row x): the rows divided by their exact sums
        sums = Cq * flint.fmpq_mat(cols, 1, [1] * cols)
        weights = [pi[x] / sums[x, 0] for x in range(n)]
        G = flint.fmpq_mat(
            n_actions, n, [g[w, x] * weights[x] for w in range(n_actions) for x in range(n)]
        )
        num = G * Cq  # n_actions x cols
        if kind == "average":
            total = flint.fmpq(0)
            for y in range(cols):
                total += max(num[w, y] for w in range(n_actions))
            return total
        den = flint.fmpq_mat(1, n, weights) * Cq
        best = None
        for y in range(cols):
            d = den[0, y]
            if d == 0:
                continue
            v = max(num[w, y] for w in range(n_actions)) / d
            best = v if best is None or v > best else best
        return best

    gap = V(B) - V(A)
    return Fraction(int(gap.p), int(gap.q))


def exact_gain_gap_fractions(A, B, gain, prior, kind: str = "average") -> Fraction:
    """:func:`exact_gain_gap` in Python's Fractions, term by term (slow: small channels)."""
    Aq, Bq = rational_rows(q.Channel(A).matrix), rational_rows(q.Channel(B).matrix)
    g = [[v if isinstance(v, Fraction) else Fraction(float(v)) for v in row] for row in gain]
    pi = [v if isinstance(v, Fraction) else Fraction(float(v)) for v in prior]
    n = len(pi)

    def V(Cq):
        cols = len(Cq[0])
        if kind == "average":
            return sum(
                max(sum(pi[x] * Cq[x][y] * gw[x] for x in range(n)) for gw in g)
                for y in range(cols)
            )
        best = None
        for y in range(cols):
            den = sum(pi[x] * Cq[x][y] for x in range(n))
            if den == 0:
                continue
            for gw in g:
                v = sum(pi[x] * Cq[x][y] * gw[x] for x in range(n)) / den
                best = v if best is None or v > best else best
        return best

    return V(Bq) - V(Aq)


def exact_certificate_gap(A, B, r) -> Fraction:
    """The exact gap of a result's counterexample: its rational gain when it has one."""
    ce = r.counterexample
    if ce.gain_exact is not None:
        return exact_gain_gap(A, B, ce.gain_exact, ce.prior_exact, ce.kind)
    return exact_gain_gap(A, B, ce.gain, ce.prior, ce.kind)


UNIT = 2.0**-53


def band_excess(A, B, W, inputs_too: bool) -> float:
    """Largest |A·W − B| beyond the documented band (<= 0: within it), recomputed here.

    The rounding band 4 (|Y_A| + 2) u (A·W + B) entrywise on the row-normalised
    channels; with ``inputs_too`` (a verdict "up to rounding") plus the inputs' own
    rounding 16 u (1 + |ln P|) P for each entry P of B, and of A carried through W.
    """
    A = np.asarray(q.Channel(A).matrix, float)
    B = np.asarray(q.Channel(B).matrix, float)
    A = A / A.sum(axis=1, keepdims=True)
    B = B / B.sum(axis=1, keepdims=True)
    W = np.asarray(W, float)
    AW = A @ W
    band = 4.0 * (A.shape[1] + 2) * UNIT * (AW + B)
    if inputs_too:

        def own(M):
            with np.errstate(divide="ignore"):
                logs = np.abs(np.log(np.where(M > 0, M, 1.0)))
            return 16.0 * UNIT * (1.0 + logs) * M

        band = band + own(B) + own(A) @ W
    return float((np.abs(B - AW) - band).max())


def exact_witness_ok(A, B, Wq, rowsum: bool = True) -> bool:
    """A rational witness: Wq >= 0, rows summing to 1 (``rowsum``), A·W = B, all exactly."""
    Aq, Bq = rational_rows(q.Channel(A).matrix), rational_rows(q.Channel(B).matrix)
    if any(v < 0 for row in Wq for v in row):
        return False
    if rowsum and any(sum(row) != 1 for row in Wq):
        return False
    p = len(Bq[0])
    return all(
        sum((Aq[x][z] * Wq[z][j] for z in range(len(Wq)) if Wq[z][j]), Fraction(0)) == Bq[x][j]
        for x in range(len(Aq))
        for j in range(p)
    )


def assert_certificate(A, B, r, rowsum: bool = True) -> None:
    """Every verdict's certificate re-checked here under its own stated semantics.

    fails: the counterexample's gap is positive in exact rationals (its rational gain
    when it carries one): a proof for the stored floats. holds: an exact verdict's
    rational witness on the original columns is re-checked in rationals (the result's
    documented certificate: its float image is not held to the band); otherwise the
    witness lies in the documented band (the inputs' rounding too when "up to
    rounding"). Undecided: the reason is stated and no certificate is claimed.
    """
    if r.holds is None:
        assert r.witness is None and r.counterexample is None and r.certified_by
        return
    if not r.holds:
        assert r.witness is None
        assert exact_certificate_gap(A, B, r) > 0
        return
    assert r.counterexample is None
    W = np.asarray(r.witness, float)
    assert W.min() >= -1e-9
    if rowsum:
        Wq = r.exact_witness
        if r.exact and Wq is not None and len(Wq) == W.shape[0] and len(Wq[0]) == W.shape[1]:
            # exact: the rational witness is the certificate (checked entry by entry); its
            # float image need not meet the float band (grr(10, 16.69) ⊑ the(10, 16.69):
            # rounding a closed-form A⁻¹B puts it 2.4e-15 past the band)
            assert exact_witness_ok(A, B, Wq)
        else:
            assert band_excess(A, B, W, inputs_too=r.up_to_rounding) <= 0
    else:
        Am, Bm = np.asarray(q.Channel(A).matrix), np.asarray(q.Channel(B).matrix)
        assert np.abs(Am @ W - Bm).max() <= 1e-7


def _merged_columns(C, max_columns: int) -> list[list[Fraction]] | None:
    """The rows of C as rationals (divided by their exact sums) with proportional columns
    merged (their sums added) and zero columns dropped, exactly; None beyond
    ``max_columns`` distinct columns. Identical float columns are counted first."""
    M = np.asarray(q.Channel(C).matrix, dtype=float)
    uniq, counts = np.unique(M.T, axis=0, return_counts=True)
    if uniq.shape[0] > max_columns:
        return None
    sums = [
        sum(Fraction(float(v)) * int(c) for v, c in zip(row, counts, strict=True)) for row in uniq.T
    ]
    merged: dict[tuple[Fraction, ...], Fraction] = {}
    for col, c in zip(uniq, counts, strict=True):
        colq = [Fraction(float(v)) * int(c) / sums[x] for x, v in enumerate(col)]
        s = sum(colq)
        if s:
            key = tuple(v / s for v in colq)
            merged[key] = merged.get(key, Fraction(0)) + s
    return [[key[x] * s for key, s in merged.items()] for x in range(M.shape[0])]


def exact_decision(A, B, rowsum: bool = True, max_variables: int = 64) -> bool | None:
    """A ⊑ B (``rowsum``) or A ⊑max B on the stored floats, by a rational simplex written here.

    Independent of the library's engines: the channels are read as the rationals they
    hold (rows divided by their exact sums), proportional columns merged exactly, and
    the feasibility of A·W = B, W >= 0 (rows of W summing to 1 for ``rowsum``) is
    decided by phase I of the simplex method on a dense tableau of Fractions with
    Bland's rule (which terminates). None when the merged problem has more than
    ``max_variables`` entries of W (the sweep's tests then rely on the certificates).
    """
    Aq = _merged_columns(A, 4 * max_variables)
    Bq = _merged_columns(B, 4 * max_variables)
    if Aq is None or Bq is None:
        return None
    n, a, b = len(Aq), len(Aq[0]), len(Bq[0])
    nv = a * b
    if nv > max_variables:
        return None
    rows: list[list[Fraction]] = []
    rhs: list[Fraction] = []
    for x in range(n):
        for j in range(b):
            row = [Fraction(0)] * nv
            for z in range(a):
                row[z * b + j] = Aq[x][z]
            rows.append(row)
            rhs.append(Bq[x][j])
    if rowsum:
        for z in range(a):
            rows.append([Fraction(1 if v // b == z else 0) for v in range(nv)])
            rhs.append(Fraction(1))
    m = len(rows)
    # tableau [rows | I] with the artificials basic; objective: minimise their sum
    T = [rows[i] + [Fraction(1 if c == i else 0) for c in range(m)] + [rhs[i]] for i in range(m)]
    basis = [nv + i for i in range(m)]
    cost = [-sum(T[i][c] for i in range(m)) for c in range(nv)] + [Fraction(0)] * m
    cost.append(-sum(rhs))
    while True:
        enter = next((c for c in range(nv + m) if cost[c] < 0), None)
        if enter is None:
            break
        ratios = [(T[i][-1] / T[i][enter], basis[i], i) for i in range(m) if T[i][enter] > 0]
        _, _, leave = min(ratios)
        piv = T[leave][enter]
        T[leave] = [v / piv for v in T[leave]]
        for i in range(m):
            f = T[i][enter]
            if i != leave and f:
                T[i] = [u - f * v for u, v in zip(T[i], T[leave], strict=True)]
        f = cost[enter]
        cost = [u - f * v for u, v in zip(cost, T[leave], strict=True)]
        basis[leave] = enter
    return cost[-1] == 0


def compare_with_exact(A, B, r, rowsum: bool = True, max_variables: int = 64) -> str:
    """A verdict against :func:`exact_decision` on the stored floats; what was found.

    "fails" must be the exact decision too. "holds" where the stored floats fail exactly
    is the documented rounding case: its witness must lie in the band (the inputs'
    rounding too when "up to rounding") and it cannot claim an exact proof. Returns
    "agrees", "band" (that rounding case), "undecided" or "no exact decision" (too
    large for the test's simplex).
    """
    if r.holds is None:
        return "undecided"
    ex = exact_decision(A, B, rowsum, max_variables)
    if ex is None:
        return "no exact decision"
    if not r.holds:
        assert ex is False, "fails, but the stored floats refine exactly"
        return "agrees"
    if ex:
        return "agrees"
    assert not r.exact, "an exact 'holds' where the stored floats fail exactly"
    assert band_excess(A, B, r.witness, inputs_too=r.up_to_rounding) <= 0
    return "band"
