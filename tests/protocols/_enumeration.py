"""Channels of the later oracles by brute-force enumeration (the tests' independent reference)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest


def round_probabilities(P):
    """(first round, second round) as functions (input, output) -> probability."""
    pr = P.params
    if P.name == "l_grr":

        def grr(p, qq):
            return lambda a, b: p if a == b else qq

        return grr(pr["p1"], pr["q1"]), grr(pr["p2"], pr["q2"])

    def bit(p, qq):
        return lambda a, b: (p if a else qq) if b else (1 - p if a else 1 - qq)

    return bit(pr["p1"], pr["q1"]), bit(pr["p2"], pr["q2"])


def enumerate_memoized(P, T):
    """The T-report channel by brute force: rows x, columns as P.channel(T) labels them."""
    k = P.k
    first, second = round_probabilities(P)
    C = P.channel(reports=T)
    M = np.zeros(C.shape)
    for i, x in enumerate(C.inputs):
        for j, y in enumerate(C.outputs):
            ys = (y,) if T == 1 else y
            total = 0.0
            if P.name == "l_grr":
                for u in range(k):
                    total += first(x, u) * math.prod(second(u, yt) for yt in ys)
            else:
                onehot = [int(v == x) for v in range(k)]
                for u in itertools.product((0, 1), repeat=k):
                    w = math.prod(first(onehot[v], u[v]) for v in range(k))
                    for yt in ys:
                        w *= math.prod(second(u[v], yt[v]) for v in range(k))
                    total += w
            M[i, j] = total
    return C, M


def enumerate_hr(k, eps):
    """Hadamard response from scipy's Sylvester matrix: rows 1..k of H_K (K the smallest
    power of two above k), 2 e^eps / (K (e^eps + 1)) where the row is +1, else
    2 / (K (e^eps + 1))."""
    from scipy.linalg import hadamard

    K = 2
    while K <= k:
        K *= 2
    H = hadamard(K)[1 : k + 1]
    E = math.exp(eps)
    return np.where(H > 0, 2 * E / (K * (E + 1)), 2 / (K * (E + 1)))


def enumerate_rappor(P, T=1):
    """RAPPOR's T-report channel by brute force over the permanent bits: rows x, columns
    as ``P.channel(T)`` labels them (m-bit tuples, or tuples of T of them)."""
    pr, B = P.params, P.bloom
    m, f = pr["m"], pr["f"]
    one_time = pr["rounds"] == "one-time"
    C = P.channel(reports=T)
    M = np.zeros(C.shape)
    for x in range(P.k):
        for j, y in enumerate(C.outputs):
            reports = (y,) if T == 1 or one_time else y
            total = 0.0
            for perm in itertools.product((0, 1), repeat=m):
                w = math.prod((1 - f / 2) if perm[i] == B[x, i] else f / 2 for i in range(m))
                for s in reports:
                    for i in range(m):
                        if one_time:
                            w *= 1.0 if s[i] == perm[i] else 0.0
                        else:
                            one = pr["q"] if perm[i] else pr["p"]
                            w *= one if s[i] else 1 - one
                total += w
            M[x, j] = total
    return M


def assert_unbiased_with_variance(P, counts, reps=400, seed=0, alpha=1e-6):
    """``reps`` populations (value v held by ``counts[v]`` users) through ``P.sample`` and
    ``P.estimate``: the mean estimate within a normal band of ``P.variance`` and the
    sample variance in the chi-square band (two-sided, Bonferroni over the k values)."""
    from scipy import stats

    counts = np.asarray(counts)
    xs, f = np.repeat(np.arange(counts.size), counts), counts / counts.sum()
    n = xs.size
    reports = P.sample(np.tile(xs, reps), rng=seed)
    est = np.array([P.estimate(reports[r * n : (r + 1) * n]) for r in range(reps)])
    var = np.asarray(P.variance(n, f))
    tail = alpha / (2 * counts.size)
    bias = np.abs(est.mean(axis=0) - f)
    assert np.all(bias <= stats.norm.isf(tail) * np.sqrt(var / reps)), bias
    lo, hi = stats.chi2.ppf([tail, 1 - tail], reps - 1) / (reps - 1)
    ratio = est.var(axis=0, ddof=1) / var
    assert np.all((lo <= ratio) & (ratio <= hi)), (ratio, lo, hi)
    return var, f, n


def enumerate_dbitflip(k, eps, b, d):
    """dBitFlipPM by brute force: (J, s) over the d-subsets J of the b buckets and their
    bits, value x in bucket x * b // k, each sampled bit SUE's at eps."""
    p = math.exp(eps / 2) / (math.exp(eps / 2) + 1)
    outs = [
        (J, s)
        for J in itertools.combinations(range(b), d)
        for s in itertools.product((0, 1), repeat=d)
    ]
    M = np.zeros((k, len(outs)))
    for x in range(k):
        for col, (J, s) in enumerate(outs):
            w = 1 / math.comb(b, d)
            for j, bit in zip(J, s, strict=True):
                one = p if j == x * b // k else 1 - p
                w *= one if bit else 1 - one
            M[x, col] = w
    return outs, M


def _sylvester_at_least(k):
    """(K, scipy's Sylvester-Hadamard H_K), K the smallest power of two >= max(k, 2)."""
    from scipy.linalg import hadamard

    K = 2
    while K < k:
        K *= 2
    return K, hadamard(K)


def enumerate_he(k, eps):
    """Hadamard encoding from scipy's Sylvester matrix H_K (K the smallest power of two
    >= k): output (j, s) has probability e^eps / (K (e^eps + 1)) when s = H_K[j, x],
    else 1 / (K (e^eps + 1)); columns (j, -1), (j, +1) for j = 0..K-1."""
    K, H = _sylvester_at_least(k)
    E = math.exp(eps)
    M = np.zeros((k, 2 * K))
    for x in range(k):
        for j in range(K):
            for c, s in enumerate((-1, 1)):
                M[x, 2 * j + c] = (E if H[j, x] == s else 1) / (K * (E + 1))
    return M


def enumerate_cms(P):
    """CMS by brute force over its table: (j, bits) with j uniform, the bucket h_j(x)
    one-hot in m bits, each bit flipped w.p. 1 / (e^(eps/2) + 1)."""
    m, K = P.params["m"], P.params["hashes"]
    flip = 1 / (math.exp(P.eps / 2) + 1)
    table = P.table
    M = np.zeros((P.k, K * 2**m))
    for x in range(P.k):
        col = 0
        for j in range(K):
            for bits in itertools.product((0, 1), repeat=m):
                w = 1 / K
                for i, b in enumerate(bits):
                    truth = int(i == table[j, x])
                    w *= 1 - flip if b == truth else flip
                M[x, col] = w
                col += 1
    return M


def enumerate_hcms(P):
    """HCMS by brute force: (j, l, w), j and l uniform, w = H_m[l, h_j(x)] (scipy's
    Sylvester matrix) kept w.p. e^eps / (e^eps + 1)."""
    from scipy.linalg import hadamard

    m, K = P.params["m"], P.params["hashes"]
    H = hadamard(m)
    keep = math.exp(P.eps) / (math.exp(P.eps) + 1)
    M = np.zeros((P.k, 2 * K * m))
    for x in range(P.k):
        col = 0
        for j in range(K):
            for l in range(m):
                for w in (-1, 1):
                    M[x, col] = (keep if H[l, P.table[j, x]] == w else 1 - keep) / (K * m)
                    col += 1
    return M


def enumerate_hr_block(k, eps, B):
    """Hadamard response with B blocks from scipy's Sylvester matrix H_b (b the smallest
    power of two with (b - 1) B >= k): value x at row x mod (b - 1) + 1 of block
    x // (b - 1); 2 e^eps / (b D) on that block where the row is +1, 2 / (b D) on every
    other output, D = e^eps + 2B - 1."""
    from scipy.linalg import hadamard

    b = 2
    while (b - 1) * B < k:
        b *= 2
    H = hadamard(b)
    E = math.exp(eps)
    D = E + 2 * B - 1
    M = np.full((k, B * b), 2 / (b * D))
    for x in range(k):
        block, row = divmod(x, b - 1)
        for pos in range(b):
            if H[row + 1, pos] > 0:
                M[x, block * b + pos] = 2 * E / (b * D)
    return M


def enumerate_he_multi(k, eps, t):
    """Hadamard encoding with t coefficients by brute force over the t-tuples of pairs
    (j, s) (itertools order, the pairs as ``enumerate_he``'s columns): K^-t e^eps /
    (e^eps + 2^t - 1) when every s_c = H_K[j_c, x], else K^-t / (e^eps + 2^t - 1)."""
    import itertools

    K, H = _sylvester_at_least(k)
    E = math.exp(eps)
    pairs = [(j, s) for j in range(K) for s in (-1, 1)]
    outs = list(itertools.product(pairs, repeat=t))
    M = np.zeros((k, len(outs)))
    for x in range(k):
        for o, out in enumerate(outs):
            hit = all(H[j, x] == s for j, s in out)
            M[x, o] = (E if hit else 1) / (K**t * (E + 2**t - 1))
    return M


def enumerate_she(k, eps, cuts):
    """SHE binned at ``cuts``: each coordinate's cell masses from scipy's Laplace CDF,
    every row the product over the k coordinates, outputs in product order."""
    from scipy import stats

    edges = np.concatenate(([-np.inf], cuts, [np.inf]))
    cells = {bit: np.diff(stats.laplace.cdf(edges, loc=bit, scale=2 / eps)) for bit in (0, 1)}
    outs = list(itertools.product(range(len(edges) - 1), repeat=k))
    return np.array(
        [
            [math.prod(cells[int(i == x)][c] for i, c in enumerate(o)) for o in outs]
            for x in range(k)
        ]
    )


def assert_gram_form_matches(G, M):
    """The exact Gram form G (a protocol's ``gram_form()``) against the channel M computed
    here: rows divided by their sums, A Aᵀ with one off-diagonal value (alpha) and the
    diagonal beta above it, up = max_y (c_y − k min_x A) and down = max_y (k max_x A − c_y)
    over its columns (c the column sums)."""
    A = M / M.sum(axis=1, keepdims=True)
    k = A.shape[0]
    gram = A @ A.T
    off = gram[~np.eye(k, dtype=bool)]
    assert np.ptp(off) <= 1e-12 * off.max()
    alpha, beta = off.mean(), np.diag(gram).mean() - off.mean()
    c = A.sum(axis=0)
    assert G.exact and G.k == k and G.n == A.shape[1]
    assert float(G.alpha) == pytest.approx(alpha, rel=1e-12)
    assert float(G.beta) == pytest.approx(beta, rel=1e-9, abs=1e-14 * alpha)
    tol = 1e-13 * k * A.max()
    assert float(G.up) == pytest.approx((c - k * A.min(axis=0)).max(), abs=tol)
    assert float(G.down) == pytest.approx((k * A.max(axis=0) - c).max(), abs=tol)
