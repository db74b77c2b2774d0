"""Utility of frequency oracles compared by their estimators' variances, over eps.

The QIF paper reads its Fig. 5 (Sec. VII-A) as "OUE is always more useful than SUE, and
SUE, in turn, is always more useful than THE". Utility there is the MSE of the unbiased
frequency estimates, i.e. their variance, averaged over the k items. For every oracle
here the variance of item v is a + b f_v (Wang et al. 2017, Eq. 2; :meth:`Protocol.variance`),
so its mean over the items is a + b / k whatever the data: the comparison is
distribution-free, and where two oracles' mean variances cross is a number,
:func:`variance_crossing`.

Layer L6 (studies): imports from the protocols (L5) and below.

>>> round(variance_crossing("oue", "sue", 50, 1.0, 12.0), 4)   # SUE better above it
7.7415
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InputTypeError, ParameterError
from ..protocols.oracles import oracle as protocol
from ..validation import check_eps, check_int

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["mean_variance", "variance_crossing", "utility_table"]


def mean_variance(name: str, k: int, eps: float, n: int = 1, **params: Any) -> float:
    """The variance of the frequency estimates averaged over the k items, for n users.

    Parameters
    ----------
    name : str
        A frequency oracle of :func:`qifldp.protocol` (grr, ss, olh, blh, sue, oue,
        the, ...).
    k : int
        Domain size, ``k >= 2``.
    eps : float
        Privacy parameter, ``> 0`` (at 0 no estimator is unbiased).
    n : int
        Number of users (the variance scales as 1 / n).
    **params
        The oracle's parameters (theta for THE, g for LH, ...).

    Returns
    -------
    float
        (1/k) Σ_v Var[f̂_v]: the expected MSE of the estimate over the items, the
        same for every data distribution (Var[f̂_v] is affine in f_v and Σ f_v = 1).

    Raises
    ------
    ParameterError, InputTypeError
        A bad name, k, eps (0 included) or n, or bad parameters.

    Examples
    --------
    >>> import math
    >>> e = math.exp(2.0)   # OUE: 4 e^eps / (e^eps - 1)^2 + 1/k
    >>> abs(mean_variance("oue", 10, 2.0) - (4 * e / (e - 1) ** 2 + 0.1)) < 1e-12
    True
    """
    k = check_int("k", k, minimum=2)
    n = check_int("n", n, minimum=1)
    P = protocol(name, k, eps, **params)
    return float(np.mean(P.variance(n, np.full(k, 1.0 / k))))


def variance_crossing(
    a: str,
    b: str,
    k: int,
    lo: float,
    hi: float,
    *,
    params_a: Mapping[str, Any] | None = None,
    params_b: Mapping[str, Any] | None = None,
    xtol: float = 1e-12,
) -> float:
    """The eps in [lo, hi] where the mean variances of oracles a and b are equal.

    Parameters
    ----------
    a, b : str
        Oracle names, as :func:`mean_variance`.
    k : int
        Domain size.
    lo, hi : float
        A bracket, 0 < lo < hi: the sign of mean_variance(a) − mean_variance(b)
        must differ at its ends.
    params_a, params_b : mapping, optional
        Parameters of each oracle.
    xtol : float
        Absolute tolerance on eps (Brent's method).

    Returns
    -------
    float
        eps* with equal mean variances (one crossing in the bracket is found; the
        ends say which oracle is below on which side).

    Raises
    ------
    ParameterError
        lo >= hi, or no sign change over [lo, hi] (the message says which oracle
        is below at both ends).

    Examples
    --------
    >>> e = variance_crossing("oue", "sue", 50, 1.0, 12.0)
    >>> mean_variance("oue", 50, e - 0.01) < mean_variance("sue", 50, e - 0.01)
    True
    """
    from scipy.optimize import brentq

    lo, hi = check_eps(lo, "lo"), check_eps(hi, "hi")
    if not 0 < lo < hi:
        msg = f"need 0 < lo < hi, got lo = {lo}, hi = {hi}"
        raise ParameterError(msg)
    pa, pb = dict(params_a or {}), dict(params_b or {})

    def log_ratio(eps: float) -> float:
        return math.log(mean_variance(a, k, eps, **pa)) - math.log(mean_variance(b, k, eps, **pb))

    f_lo, f_hi = log_ratio(lo), log_ratio(hi)
    if f_lo == 0.0:
        return lo
    if f_hi == 0.0:
        return hi
    if (f_lo < 0) == (f_hi < 0):
        below = a if f_lo < 0 else b
        msg = f"no crossing in [{lo}, {hi}]: {below} has the lower mean variance at both ends"
        raise ParameterError(msg)
    return float(brentq(log_ratio, lo, hi, xtol=xtol))


def utility_table(
    protocols: Sequence[Any], k: int, epss: Sequence[float], n: int = 1
) -> pd.DataFrame:
    """Mean variances of several oracles over a list of eps, and the best at each eps.

    Parameters
    ----------
    protocols : sequence
        Each a name (``"oue"``) or a pair (name, params) such as
        ``("the", {"theta": 0.8})``.
    k : int
        Domain size.
    epss : sequence of float
        Budgets, each ``> 0``.
    n : int
        Number of users.

    Returns
    -------
    pandas.DataFrame
        One row per eps: ``eps``, one column per protocol (its label: the name, with
        its parameters in brackets) holding the mean variance, and ``best`` (the
        label with the smallest).

    Raises
    ------
    InputTypeError, ParameterError
        A malformed protocol entry, an empty list, bad k, eps or n.

    Examples
    --------
    >>> t = utility_table(["oue", "sue"], 50, [2.0, 10.0])
    >>> t["best"].tolist()
    ['oue', 'sue']
    """
    import pandas as pd

    if isinstance(protocols, (str, bytes)) or not isinstance(protocols, Sequence) or not protocols:
        msg = "protocols must be a non-empty sequence of names or (name, params) pairs"
        raise InputTypeError(msg)
    entries: list[tuple[str, str, dict[str, Any]]] = []
    for item in protocols:
        if isinstance(item, str):
            entries.append((item, item, {}))
        elif isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], Mapping):
            name, params = str(item[0]), dict(item[1])
            label = name + "(" + ", ".join(f"{p}={v:g}" for p, v in params.items()) + ")"
            entries.append((label, name, params))
        else:
            msg = f"protocols: each entry must be a name or a (name, params) pair, got {item!r}"
            raise InputTypeError(msg)
    if (
        isinstance(epss, (str, bytes))
        or not isinstance(epss, (Sequence, np.ndarray))
        or not len(epss)
    ):
        msg = "epss must be a non-empty sequence of budgets"
        raise InputTypeError(msg)
    rows = []
    for eps in epss:
        row: dict[str, Any] = {"eps": float(eps)}
        for label, name, params in entries:
            row[label] = mean_variance(name, k, eps, n, **params)
        row["best"] = min((row[label], label) for label, _, _ in entries)[1]
        rows.append(row)
    return pd.DataFrame(rows)
