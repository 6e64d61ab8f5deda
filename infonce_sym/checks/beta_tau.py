"""The beta-tau coupling of Lemmas 7-8 and Prop. 4 (a companion result): beta >= 1 is free, and
the beta minimising h(beta) = e^{2/(beta tau)} PM_beta(x) (the statement of Lemma 8) for given
norms x_j, against the paper's choice beta = 1 v 2/tau.

d/dbeta log h = (KL(q_beta || uniform) - 2/tau)/beta^2 with q_j = x_j^beta / sum_i x_i^beta (the
derivative is checked symbolically in tests/proofs/test_section4_derivations.py), and
KL(q_beta || uniform) is nondecreasing in beta (its derivative is beta Var_q(log x) >= 0), so h is
unimodal: decreasing while KL < 2/tau, then increasing. The minimiser is 1 if KL(q_1) >= 2/tau,
inf (h -> max_j x_j) if KL never reaches 2/tau, and otherwise the root, found by bisection."""
from __future__ import annotations


import mpmath

from ..errors import InputError, check_tau
from ..proofs.statement_registry import statement

__all__ = ["h_beta", "log_h_derivative", "optimal_beta", "paper_beta"]


def _norms(norms):
    try:
        xs = [mpmath.mpf(float(x)) for x in (norms.ravel() if hasattr(norms, "ravel") else norms)]
    except (TypeError, ValueError):
        raise InputError("norms", "must be numbers") from None
    if not xs or min(xs) < 0:
        raise InputError("norms", "must be a non-empty array of non-negative numbers")
    return xs


def _power_mean(xs, b):
    m = max(xs)
    if m == 0:
        return mpmath.mpf(0)
    return m * (mpmath.fsum((x / m) ** b for x in xs) / len(xs)) ** (1 / b)


def h_beta(tau, xs, beta):
    """e^{2/(beta tau)} (k^-1 sum_j x_j^beta)^{1/beta}: the statement of Lemma 8 at PM = PM_beta(x)."""
    xs = _norms(xs)
    b = mpmath.mpf(beta)
    if mpmath.isinf(b):
        return max(xs)
    return statement("L8").evaluate("mpmath", PM=_power_mean(xs, b), beta=b, tau=mpmath.mpf(tau))


def log_h_derivative(tau, xs, beta):
    """d/dbeta log h(beta) = (KL(q_beta || uniform) - 2/tau)/beta^2."""
    xs = [x for x in _norms(xs)]
    b = mpmath.mpf(beta)
    m = max(xs)
    w = [(x / m) ** b for x in xs]
    s = mpmath.fsum(w)
    kl = mpmath.fsum((wi / s) * mpmath.log(len(xs) * wi / s) for wi in w if wi > 0)
    return (kl - 2 / mpmath.mpf(tau)) / b ** 2


def paper_beta(tau):
    """The paper's choice beta = 1 v 2/tau (proof of Lemma 1)."""
    return max(1.0, 2.0 / float(tau))


def optimal_beta(tau, norms, beta_max=1e6):
    """The minimiser of h (module docstring) and h there, beside the paper's beta and beta = inf:
    ``beta_star``, ``factor_at_beta_star``, ``beta_paper``, ``factor_at_beta_paper``,
    ``factor_at_beta_inf`` and ``improvement`` (paper / optimal), as floats."""
    tau = check_tau(tau)
    xs = _norms(norms)
    v_inf = max(xs)
    if v_inf == 0:
        return {"beta_star": 1.0, "factor_at_beta_star": 0.0, "beta_paper": paper_beta(tau),
                "factor_at_beta_paper": 0.0, "factor_at_beta_inf": 0.0, "improvement": 1.0}
    pos = [x for x in xs if x > 0]
    if len(pos) < len(xs):          # zero norms: h is continuous in them; x^beta = 0 exactly
        pos = xs
    f = lambda b: log_h_derivative(tau, pos, b)  # noqa: E731
    if f(1) >= 0:
        b = mpmath.mpf(1)
    elif f(beta_max) < 0:
        b = mpmath.inf
    else:
        lo, hi = mpmath.mpf(1), mpmath.mpf(2)
        while f(hi) < 0:
            lo, hi = hi, hi * 2
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
            if hi - lo < mpmath.mpf(10) ** (-mpmath.mp.dps + 5) * hi:
                break
        b = (lo + hi) / 2
    v_star = h_beta(tau, xs, b)
    v_paper = h_beta(tau, xs, paper_beta(tau))
    return {"beta_star": float(b), "factor_at_beta_star": float(v_star), "beta_paper": paper_beta(tau),
            "factor_at_beta_paper": float(v_paper), "factor_at_beta_inf": float(v_inf),
            "improvement": float(v_paper / v_star)}
