"""The documentation of the explicit flat constructors (``qifldp.grr`` ...), one text per name.

Read by the generator of :mod:`qifldp.faces.generate` for the explicit kind; each text
documents the channel as the papers define it (parameters, shape and labels, errors,
notes, examples) and its examples run as doctests (``__test__`` of :mod:`qifldp.mechanisms`).
"""

from __future__ import annotations

__all__ = ["EXPLICIT_DOCS"]

#: Flat constructor name -> its docstring.
EXPLICIT_DOCS: dict[str, str] = {}

EXPLICIT_DOCS["grr"] = """\
Generalized randomized response: report the truth w.p. p, any other value w.p. q.

Parameters
----------
k : int
    Domain size, an integer ``k >= 2``; inputs and outputs are 0..k-1.
eps : float
    Privacy parameter, finite and ``>= 0``.

Returns
-------
Channel, shape (k, k)
    C[x, y] = p = e^eps / (e^eps + k - 1) if y = x, else q = 1 / (e^eps + k - 1).

Raises
------
InputTypeError
    ``k`` not an integer, ``eps`` not a real number.
ParameterError
    ``k < 2``; ``eps`` negative, NaN or infinite.
SizeError
    ``k^2`` above :data:`qifldp.channel.MAX_ENTRIES` (use
    ``qifldp.symmetric.grr`` or ``qifldp.formulas.bayes_capacity_grr``).

Notes
-----
QIF paper Sec. V-A (Kairouz et al. 2016). ML = k p, ldp_epsilon = eps.
p and q are computed with e^-eps, so large eps gives no overflow (q underflows
to 0 beyond eps ~ 745 and the channel becomes the identity). Cost O(k^2).

Examples
--------
>>> import math, qifldp as q
>>> C = q.grr(3, math.log(2))
>>> C.matrix.round(6)
array([[0.5 , 0.25, 0.25],
       [0.25, 0.5 , 0.25],
       [0.25, 0.25, 0.5 ]])
>>> round(q.bayes_capacity(C), 12)
1.5
"""

EXPLICIT_DOCS["subset_selection"] = """\
omega-Subset Selection: report an omega-subset that contains the truth w.p. p.

The true value x enters the subset with probability
p = omega e^eps / (omega e^eps + k - omega); the rest of the subset (omega - 1
or omega values) is drawn uniformly without replacement from the other k - 1.

Parameters
----------
k, eps : int, float
    Domain size and privacy parameter, as for :func:`grr`.
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

EXPLICIT_DOCS["local_hashing"] = """\
Local hashing: a uniformly random hash h: [k] -> [g], then GRR on h(x); output (h, value).

Parameters
----------
k, eps : int, float
    Domain size and privacy parameter, as for :func:`grr`.
g : int
    Hash range, an integer ``g >= 2``.

Returns
-------
Channel, shape (k, g^(k+1))
    Outputs (h, z): h a hash function as a k-tuple over 0..g-1 (all g^k,
    ``itertools.product`` order), z the perturbed hash value in 0..g-1.
    C[x, (h, z)] = p / g^k if h(x) = z else q / g^k, with
    p = e^eps / (e^eps + g - 1), q = 1 / (e^eps + g - 1).

Raises
------
InputTypeError
    Non-integer ``k``/``g``, non-real ``eps``.
ParameterError
    ``k < 2``, ``g < 2``, ``eps`` negative/NaN/infinite.
SizeError
    ``k g^(k+1)`` above MAX_ENTRIES (use ``qifldp.symmetric.local_hashing`` or
    ``qifldp.formulas.bayes_capacity_lh``).

Notes
-----
An alias of ``qifldp.protocol('lh', k, eps, g=g).channel()`` (:class:`qifldp.protocols.LH`),
built exactly as the QIF paper composes it (Sec. V-C and appendix): the
cascade E . G of the encoding :func:`lh_encoding` and the perturbation
:func:`lh_perturbation`. G = I_{g^k} (x) GRR_g is block diagonal, so the
cascade is evaluated block by block, (E . G)[x, (h, z)] = Σ_e E[x, (h, e)] GRR_g[e, z],
in O(k g^(k+2)) time without ever forming the (g^(k+1))^2 matrix G; the tests
check it entrywise against ``qifldp.cascade(lh_encoding(k, g), lh_perturbation(k, eps, g))``.
ML is the paper's corrected Eq. 27 and ``ldp_epsilon = eps``.

Examples
--------
>>> import math, qifldp as q
>>> C = q.local_hashing(2, math.log(3), 2)
>>> C.shape, C.outputs[1]
((2, 8), ((0, 0), 1))
>>> C.matrix[:, :2].round(6)  # h = (0, 0) maps both inputs to 0
array([[0.1875, 0.0625],
       [0.1875, 0.0625]])
>>> round(q.bayes_capacity(C), 12)  # Eq. 27: (3*4 + 1*(1 - 3)) / (4 * 2)
1.25
"""

EXPLICIT_DOCS["blh"] = """\
Binary local hashing: :func:`local_hashing` with g = 2, shape (k, 2^(k+1)).

``k`` and ``eps`` and the errors are those of :func:`local_hashing`.

Notes
-----
Bassily and Smith 2015; QIF paper Sec. V-C.

Examples
--------
>>> import qifldp as q
>>> q.blh(3, 1.0).shape
(3, 16)
"""

EXPLICIT_DOCS["olh"] = """\
Optimized local hashing: :func:`local_hashing` with g = round(e^eps + 1) (at least 2).

``k`` and ``eps`` and the errors are those of :func:`local_hashing`; g grows
like e^eps, so a large eps is refused (SizeError) before g is formed.

Notes
-----
Wang et al. 2017; g from :func:`qifldp.protocols.params.olh_g` (Python's
round, half to even).

Examples
--------
>>> import qifldp as q
>>> q.olh(3, 1.0).shape  # g = round(e + 1) = 4
(3, 256)
"""

EXPLICIT_DOCS["unary_encoding"] = """\
Unary encoding: one-hot encode x, report each bit 1 w.p. p (bit 1) or q (bit 0).

Parameters
----------
k : int
    Domain size, as for :func:`grr`.
p : float
    Pr[output bit 1 | input bit 1].
q : float
    Pr[output bit 1 | input bit 0]; the rule is ``0 <= q < p <= 1``.

Returns
-------
Channel, shape (k, 2^k)
    ``qifldp.one_hot`` of the bit channel [[1 - q, q], [1 - p, p]]: outputs
    all k-bit vectors as tuples (``itertools.product`` order),
    C[x, y] = Π_m Pr[y_m | [m = x]].

Raises
------
InputTypeError
    Non-integer ``k``, non-real ``p``/``q``.
ParameterError
    ``k < 2``; ``p``/``q`` outside [0, 1] or ``q >= p``.
SizeError
    ``k 2^k`` above MAX_ENTRIES, i.e. k >= 23 (use
    ``qifldp.symmetric.unary_encoding`` or ``qifldp.formulas.bayes_capacity_ue``).

Notes
-----
QIF paper Definition 7 and the B^{⊗k}_hot construction of Sec. VI-A2.
ldp_epsilon = ln(p (1 - q) / ((1 - p) q)). Cost O(k 2^k).

Examples
--------
>>> import qifldp as q
>>> C = q.unary_encoding(2, 0.75, 0.25)
>>> C.outputs
((0, 0), (0, 1), (1, 0), (1, 1))
>>> C.matrix.round(6)
array([[0.1875, 0.0625, 0.5625, 0.1875],
       [0.1875, 0.5625, 0.0625, 0.1875]])
"""

EXPLICIT_DOCS["sue"] = """\
Symmetric unary encoding (basic RAPPOR): UE with p = e^(eps/2) / (e^(eps/2) + 1), q = 1 - p.

``one_hot(sue_bit(eps), k)``, shape (k, 2^k), outputs all k-bit tuples; ``k``
and ``eps`` as for :func:`grr`. A SizeError for k >= 23 names
``qifldp.symmetric.sue`` and ``qifldp.formulas.bayes_capacity_sue``.

Notes
-----
QIF paper Sec. V-D1. ldp_epsilon = eps exactly.

Examples
--------
>>> import math, qifldp as q
>>> C = q.sue(2, 2 * math.log(3))  # p = 3/4: row 0 = (pq, q^2, p^2, pq)
>>> C.matrix.round(6)
array([[0.1875, 0.0625, 0.5625, 0.1875],
       [0.1875, 0.5625, 0.0625, 0.1875]])
"""

EXPLICIT_DOCS["oue"] = """\
Optimized unary encoding: UE with p = 1/2, q = 1 / (e^eps + 1).

As :func:`sue` with ``oue_bit(eps)`` for the bit: ``one_hot(oue_bit(eps), k)``,
the same shape, outputs, ``k``, ``eps`` and SizeError, which names
``qifldp.symmetric.oue`` and ``qifldp.formulas.bayes_capacity_oue``. QIF paper
Sec. V-D2 (Wang et al. 2017); ldp_epsilon = eps exactly. Building oue(16, eps)
(65,536 outputs) takes a few tens of milliseconds (benchmarks/bench_channels.py).

Examples
--------
>>> import math, qifldp as q
>>> q.oue(2, math.log(3)).matrix.round(6)  # q = 1/4
array([[0.375, 0.125, 0.375, 0.125],
       [0.375, 0.375, 0.125, 0.125]])
"""

EXPLICIT_DOCS["the"] = """\
Thresholding with histogram encoding: ``one_hot(the_bit(eps, theta), k)``.

``k`` and ``eps`` (int, float) as for :func:`grr`; ``theta`` (float) the
threshold, in the open interval (0.5, 1).

Returns
-------
Channel, shape (k, 2^k)
    Outputs all k-bit vectors as tuples (``itertools.product`` order).

Raises
------
InputTypeError
    Non-integer ``k``, non-real ``eps``/``theta``.
ParameterError
    ``k < 2``; ``eps`` negative/NaN/infinite; ``theta`` outside (0.5, 1).
SizeError
    k >= 23 (use ``qifldp.symmetric.the`` or ``qifldp.formulas.bayes_capacity_the``).

Notes
-----
QIF paper Sec. V-E. The Laplace histogram is eps-LDP and thresholding is
post-processing, so ldp_epsilon(the(k, eps, theta)) <= eps; it is in fact
strictly smaller for eps > 0: ln(p (1 - q) / ((1 - p) q)) with p, q above.

Examples
--------
>>> import qifldp as q
>>> C = q.the(3, 2.0, 0.75)
>>> C.shape, C.outputs[:2]
((3, 8), ((0, 0, 0), (0, 0, 1)))
>>> round(q.bayes_capacity(C), 6)
1.660402
"""
