"""Bad input found by the bad-input sweep: each refusal names the argument, the rule and why."""

from __future__ import annotations

import math

import pytest

import qifldp as q
from qifldp.errors import InputTypeError, ParameterError, PriorError
from qifldp.measures import capacity_from_epsilon


@pytest.mark.parametrize("eps", [-1.0, -1e-300, -math.inf])
def test_capacity_from_epsilon_refuses_a_negative_epsilon(eps):
    with pytest.raises(ParameterError, match=r"eps must be >= 0 \(an LDP epsilon bounds"):
        capacity_from_epsilon(eps)


def test_k_tries_gain_says_k_is_bounded_by_the_number_of_secrets():
    with pytest.raises(ParameterError) as info:
        q.k_tries_gain(1, 3)
    text = str(info.value)
    assert "k (the number of guesses) must be <= n = 1" in text and text.endswith("got 3")
    # the bound itself is allowed: n guesses out of n secrets always win
    assert q.k_tries_gain(3, 3).tolist() == [[1.0, 1.0, 1.0]]


@pytest.mark.parametrize("prior", [[], ()])
def test_an_empty_prior_is_refused_as_a_prior(prior):
    for f in (q.prior_bayes_vulnerability, lambda p: q.prior_g_vulnerability([[1.0]], p)):
        with pytest.raises(PriorError, match="prior must have at least one entry"):
            f(prior)


def test_a_scalar_prior_is_refused_by_type():
    with pytest.raises(
        InputTypeError, match="prior must be a sequence of probabilities, got float"
    ):
        q.prior_bayes_vulnerability(0.5)


@pytest.mark.parametrize(
    ("rows", "where"),
    [
        ([[0.5, 0.5], [0.5]], "row 0 has 2 entries, row 1 has 1"),
        ([[1.0], [0.5, 0.5], [0.5, 0.5]], "row 0 has 1 entries, row 1 has 2"),
    ],
)
def test_ragged_rows_are_named_in_one_line(rows, where):
    with pytest.raises(InputTypeError) as info:
        q.Channel(rows)
    text = str(info.value)
    assert "matrix rows must all have the same length" in text and where in text
    assert "\n" not in text and "inhomogeneous" not in text
