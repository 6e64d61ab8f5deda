"""The optimal beta of the beta-tau coupling against the paper's choice and a brute-force grid."""
import math
import random

import numpy as np
import pytest

from infonce_sym.checks.beta_tau import h_beta, optimal_beta, paper_beta
from infonce_sym.errors import InputError


def test_optimal_beta_beats_paper_choice_and_grid():
    rng = random.Random(5)
    for tau in (0.1, 0.5, 1.0, 2.0, 4.0):
        for kk in (3, 50, 300):
            xs = [rng.lognormvariate(0, 1) for _ in range(kk)]
            r = optimal_beta(tau, xs)
            assert r["factor_at_beta_star"] <= r["factor_at_beta_paper"] * (1 + 1e-12)
            grid = min(math.exp(2 / (b * tau)) * np.mean(np.array(xs) ** b) ** (1 / b)
                       for b in np.linspace(1, 16, 61))
            assert r["factor_at_beta_star"] <= grid * (1 + 1e-9)
    # h is not monotone: an interior minimiser exists for large k and tau
    r = optimal_beta(4.0, [1.0] * 99 + [5.0])
    assert 1 < r["beta_star"] < math.inf


def test_small_k_takes_the_max_and_large_k_a_finite_beta():
    r = optimal_beta(0.5, [0.1, 0.4, 1.0])
    assert r["beta_star"] == math.inf and r["factor_at_beta_star"] == 1.0
    x = np.random.default_rng(0).exponential(size=2000)
    r = optimal_beta(1.0, x)
    assert math.isfinite(r["beta_star"]) and r["factor_at_beta_star"] <= r["factor_at_beta_paper"]
    brute = min(math.exp(2 / b) * np.mean(x**b) ** (1 / b) for b in np.linspace(1, 50, 2000))
    assert r["factor_at_beta_star"] <= brute + 1e-9


def test_h_is_the_lemma_8_statement_and_bad_norms_are_refused():
    xs = [0.5, 1.0, 2.0]
    want = math.exp(2 / (3 * 0.5)) * (np.mean(np.array(xs) ** 3)) ** (1 / 3)
    assert abs(float(h_beta(0.5, xs, 3)) - want) < 1e-12 * want
    assert paper_beta(0.5) == 4.0 and paper_beta(4.0) == 1.0
    with pytest.raises(InputError, match="^norms"):
        optimal_beta(1.0, [-1.0])
