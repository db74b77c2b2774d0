"""omega-Subset Selection (SS) as an explicit channel: an alias of the protocol object."""

from __future__ import annotations

from ..channel import Channel
from ..protocols import SS

__all__ = ["subset_selection"]


def subset_selection(k: int, eps: float, omega: int | None = None) -> Channel:
    """omega-Subset Selection: report an omega-subset that contains the truth w.p. p.

    The true value x enters the subset with probability
    p = omega e^eps / (omega e^eps + k - omega); the rest of the subset (omega - 1
    or omega values) is drawn uniformly without replacement from the other k - 1.

    Parameters
    ----------
    k : int
        Domain size, an integer ``k >= 2``; inputs are 0..k-1.
    eps : float
        Privacy parameter, finite and ``>= 0``.
    omega : int, optional
        Subset size, an integer with ``1 <= omega <= k``. Default
        ``max(1, round(k / (e^eps + 1)))`` (Python's round, half to even).
        ``omega = k`` is accepted: it is the constant channel (one output, the
        whole domain), which leaks nothing (``ldp_epsilon = 0 < eps``).

    Returns
    -------
    Channel, shape (k, C(k, omega))
        Outputs are the omega-subsets as sorted tuples, in
        ``itertools.combinations(range(k), omega)`` order;
        C[x, S] = p / C(k-1, omega-1) if x in S, else (1 - p) / C(k-1, omega).

    Raises
    ------
    InputTypeError
        ``k`` or ``omega`` not an integer, ``eps`` not a real number.
    ParameterError
        ``k < 2``, ``omega`` outside [1, k], ``eps`` negative/NaN/infinite.
    SizeError
        ``k C(k, omega)`` above MAX_ENTRIES (use ``qifldp.symmetric.subset_selection``
        or ``qifldp.formulas.bayes_capacity_ss``).

    Notes
    -----
    QIF paper Sec. V-B (Ye and Barg 2018; Wang et al. 2016). The in/out ratio of
    every column is exactly e^eps, so ``ldp_epsilon = eps`` for omega < k, and
    ML = k e^eps / (omega e^eps + k - omega) (not the paper's printed
    k p / C(k-1, omega-1); see :func:`qifldp.formulas.bayes_capacity_ss`).
    Cost O(k C(k, omega)).

    Examples
    --------
    >>> import math, qifldp as q
    >>> C = q.subset_selection(3, math.log(2), omega=2)
    >>> C.outputs
    ((0, 1), (0, 2), (1, 2))
    >>> C.matrix.round(6)
    array([[0.4, 0.4, 0.2],
           [0.4, 0.2, 0.4],
           [0.2, 0.4, 0.4]])
    >>> q.subset_selection(10, 1.0).shape  # default omega = round(10 / (e + 1)) = 3
    (10, 120)
    """
    return SS(k, eps, omega).channel()
