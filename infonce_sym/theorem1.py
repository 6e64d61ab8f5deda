"""Theorem 1 end to end on the class of ``embedding_class`` (assumption (C)).

For each repeat: draw n training tuples, fit theta_hat by empirical risk minimisation over Theta
(grid over the ball + SLSQP refinement with exact gradients), then compare

* LHS: the similarity-search expected cross-entropy of phi_theta_hat, eq. (9) with m = k,
  integrated over z ~ pi: a Monte Carlo mean over fresh (z, xi_1..xi_k) with a 95% CI, with
  ``w_i = dM(z, .)/dpi(xi_i)`` computed exactly (log-space; self-normalised);
* RHS: R_hat_n(theta_hat) + complexity (2 x 96/tau ...) + sample variability (12/tau ...) +
  finite-k bias (4 D2/(tau k) + log(1 + e^{2/tau}/k)), every constant explicit
  (``bounds_section4.theorem1_terms``).

Density-ratio second moment ``D2 = E|dM(Z,.)/dpi(Z')|^2`` (Z, Z' iid pi), derived here:

* Gaussian pi = N(0, I_d), "ou" kernel M(z,.) = N(rho z, (1-rho^2) I) (rho = 1/sqrt(1+sigma^2)):
  dM/dpi is the Mehler kernel prod_c sum_n rho^n He_n(z_c) He_n(z'_c)/n!, so by orthogonality
  ``D2 = (1 - rho^2)^{-d} = ((1 + sigma^2)/sigma^2)^d``.
* Gaussian pi, "additive" kernel M(z,.) = N(z, sigma^2 I): for fixed z, int N(y; z, s^2)^2/phi(y) dy
  = exp(z^2/(2 - s^2))/(s sqrt(2 - s^2)) per coordinate (s^2 < 2, else +inf), and
  E_Z exp(Z^2/(2 - s^2)) = +inf since 1/(2 - s^2) >= 1/2.  So ``D2 = +inf`` for every sigma > 0:
  Theorem 1 (and Prop. 2) is vacuous for this kernel.
* Student-t (nu = 3, iid coordinates) pi, either kernel: per coordinate
  int N(y; mu, s^2)^2 / t_3(y) dy = c E_{Y~N(mu, s^2/2)} (1 + Y^2/3)^2 grows like mu^4 with mu = rho Z
  or Z, and E Z^4 = +inf under t_3, so ``D2 = +inf``.
"""
from __future__ import annotations

import math
import time

import numpy as np
from scipy import optimize, special

from .bounds_section4 import lipschitz_constants, theorem1_terms
from .embedding_class import STUDENT_NU, FourierEmbedding, sample_data, sample_tuples
from .errors import InputError, check_k, check_positive, check_probability, check_tau
from .rademacher import _initial_cubes

__all__ = ["density_ratio_second_moment", "log_density_ratio", "search_cross_entropy_mc",
           "population_risk_mc", "fit_erm", "theorem1_experiment", "theorem1_scaling"]


def density_ratio_second_moment(data, kernel, sigma, dim_in):
    """E|dM(Z,.)/dpi(Z')|^2 (closed form; +inf where it diverges -- see module docstring)."""
    sigma = check_positive("sigma", sigma)
    dim_in = check_k(dim_in, "dim_in")
    if data == "gaussian" and kernel == "ou":
        return ((1 + sigma**2) / sigma**2) ** dim_in
    if data in ("gaussian", "student_t") and kernel in ("ou", "additive"):
        return math.inf
    raise InputError("data", f"unknown data/kernel {data!r}/{kernel!r}")


def _log_pi(data, y):
    if data == "gaussian":
        return -0.5 * (y**2).sum(-1) - 0.5 * y.shape[-1] * math.log(2 * math.pi)
    nu = STUDENT_NU
    c = special.gammaln((nu + 1) / 2) - special.gammaln(nu / 2) - 0.5 * math.log(nu * math.pi)
    return (c - (nu + 1) / 2 * np.log1p(y**2 / nu)).sum(-1)


def log_density_ratio(data, kernel, sigma, z, xi):
    """log dM(z,.)/dpi(xi); z (..., d), xi (..., d) broadcastable."""
    if kernel == "ou":
        rho = 1 / math.sqrt(1 + sigma**2)
        mean, var = rho * z, 1 - rho**2
    elif kernel == "additive":
        mean, var = z, sigma**2
    else:
        raise InputError("kernel", f"unknown kernel {kernel!r}")
    d = xi.shape[-1]
    logm = -0.5 * ((xi - mean) ** 2).sum(-1) / var - 0.5 * d * math.log(2 * math.pi * var)
    return logm - _log_pi(data, xi)


def search_cross_entropy_mc(model, theta, tau, k, data, kernel, sigma, samples, rng, batch=2000):
    """MC estimate (mean, stderr) of int E CrossEnt[M_k(z,.) || Q_k(z,.)] pi(dz), eq. (9), m = k."""
    vals = []
    left = samples
    while left > 0:
        b = min(batch, left)
        left -= b
        z = sample_data(data, b, model.dim_in, rng)
        xi = sample_data(data, (b, k), model.dim_in, rng)
        s = model.similarity_of_difference(theta, z[:, None, :] - xi)[0]      # (b, k)
        lw = log_density_ratio(data, kernel, sigma, z[:, None, :], xi)
        w = np.exp(lw - lw.max(axis=1, keepdims=True))
        w /= w.sum(axis=1, keepdims=True)
        x = s / tau
        mx = x.max(axis=1)
        lse = mx + np.log(np.exp(x - mx[:, None]).mean(axis=1))
        vals.append(-(w * s).sum(axis=1) / tau + lse)
    v = np.concatenate(vals)
    return float(v.mean()), float(v.std(ddof=1) / math.sqrt(v.size))


def population_risk_mc(model, theta, tau, k, data, kernel, sigma, samples, rng, batch=2000):
    """MC estimate (mean, stderr) of R(phi_theta; k, tau) on fresh tuples."""
    vals = []
    left = samples
    while left > 0:
        b = min(batch, left)
        left -= b
        za, zp, zn = sample_tuples(data, model.dim_in, b, k, rng, sigma=sigma, kernel=kernel)
        vals.append(model.losses(theta, za, zp, zn, tau)[0])
    v = np.concatenate(vals)
    return float(v.mean()), float(v.std(ddof=1) / math.sqrt(v.size))


def fit_erm(model, za, zp, zn, tau, grid_h=None):
    """theta_hat = argmin over Theta of R_hat_n: grid search then SLSQP (ball constraint)."""
    R = model.radius
    h = grid_h if grid_h is not None else R / (8 if model.d_Theta <= 2 else 4)
    g = _initial_cubes(model.theta0, R, h)
    g = g[np.linalg.norm(g - model.theta0, axis=1) <= R]
    risks = model.losses(g, za, zp, zn, tau).mean(axis=1)
    order = np.argsort(risks)[:3]
    best_t, best_r = g[order[0]], float(risks[order[0]])

    def fun(t):
        l, gr = model.losses_and_grads(t[None, :], za, zp, zn, tau)
        return float(l.mean()), gr[0].mean(axis=0)
    cons = {"type": "ineq", "fun": lambda t: R**2 - ((t - model.theta0) ** 2).sum(),
            "jac": lambda t: -2 * (t - model.theta0)}
    for i in order:
        r = optimize.minimize(fun, g[i], jac=True, method="SLSQP", constraints=[cons],
                              options={"maxiter": 200, "ftol": 1e-12})
        t = r.x
        if np.linalg.norm(t - model.theta0) > R:
            t = model.theta0 + (t - model.theta0) * R / np.linalg.norm(t - model.theta0)
        val = float(model.losses(t[None, :], za, zp, zn, tau).mean())
        if val < best_r:
            best_t, best_r = t, val
    return best_t, best_r


def theorem1_experiment(data="gaussian", dim_in=2, m=1, n=200, k=16, tau=0.5, radius=1.0,
                        delta=0.1, repeats=20, seed=0, samples=4000, sigma=0.5, kernel="ou"):
    """Theorem 1 over ``repeats`` independent training sets.

    Returns a dict: ``terms`` (mean of each RHS term over repeats), ``coverage`` (fraction of
    repeats with LHS <= RHS, LHS the MC point estimate), ``coverage_conservative`` (with the upper
    end of the 95% CI of the LHS), ``target`` = 1 - delta, ``per_repeat`` (list of dicts with
    theta_hat, lhs, lhs_stderr, population_risk, empirical_risk and every term), ``D2``, timings.
    """
    t0 = time.time()
    tau = check_tau(tau)
    n = check_k(n, "n")
    k = check_k(k)
    delta = check_probability("delta", delta)
    repeats = check_k(repeats, "repeats")
    samples = check_k(samples, "samples")
    model = FourierEmbedding(m, dim_in, radius)
    if model.d_Theta > 3:
        raise InputError("m", f"d_Theta = m*dim_in must be <= 3 here, got {model.d_Theta}")
    D2 = density_ratio_second_moment(data, kernel, sigma, dim_in)
    seeds = np.random.SeedSequence(seed).spawn(repeats)
    rows = []
    for ss in seeds:
        s_train, s_test = ss.spawn(2)
        rng = np.random.default_rng(s_train)
        za, zp, zn = sample_tuples(data, dim_in, n, k, rng, sigma=sigma, kernel=kernel)
        theta_hat, r_hat = fit_erm(model, za, zp, zn, tau)
        lc = lipschitz_constants(za, zp, zn, tau, model.C_Phi)
        terms = theorem1_terms(tau, k, n, delta, model.d_Theta, radius, model.C_Phi, lc["B_tau"],
                               D2, r_hat)
        rt = np.random.default_rng(s_test)
        lhs, lhs_se = search_cross_entropy_mc(model, theta_hat, tau, k, data, kernel, sigma,
                                              samples, rt)
        pop, pop_se = population_risk_mc(model, theta_hat, tau, k, data, kernel, sigma, samples, rt)
        rows.append({"theta_hat": theta_hat.tolist(), "lhs": lhs, "lhs_stderr": lhs_se,
                     "population_risk": pop, "population_risk_stderr": pop_se,
                     "B_tau": lc["B_tau"], **terms})
    lhs = np.array([r["lhs"] for r in rows])
    lhs_hi = lhs + 1.96 * np.array([r["lhs_stderr"] for r in rows])
    rhs = np.array([r["rhs"] for r in rows])
    keys = ("empirical_risk", "complexity", "sample_variability", "finite_k_bias", "rhs", "lhs",
            "population_risk", "A")
    return {
        "terms": {key: float(np.mean([r[key] for r in rows])) for key in keys},
        "coverage": float(np.mean(lhs <= rhs)),
        "coverage_conservative": float(np.mean(lhs_hi <= rhs)),
        "target": 1 - delta,
        "min_slack": float(np.min(rhs - lhs)),
        "generalisation_gap": float(np.mean([r["population_risk"] - r["empirical_risk"] for r in rows])),
        "search_minus_risk": float(np.mean([r["lhs"] - r["population_risk"] for r in rows])),
        "per_repeat": rows, "D2": D2,
        "settings": {"data": data, "dim_in": dim_in, "m": m, "n": n, "k": k, "tau": tau,
                     "radius": radius, "delta": delta, "repeats": repeats, "seed": seed,
                     "samples": samples, "sigma": sigma, "kernel": kernel},
        "seconds": time.time() - t0,
    }


def theorem1_scaling(ns=(50, 200, 800, 3200), ks=(1, 4, 16, 64, 256, 1024), tau=0.5, delta=0.1,
                     dim_in=2, m=1, radius=1.0, sigma=0.5, data="gaussian", kernel="ou", seed=0):
    """The RHS terms against n (k fixed at 16) and against k (n fixed at 200), one draw each."""
    model = FourierEmbedding(m, dim_in, radius)
    D2 = density_ratio_second_moment(data, kernel, sigma, dim_in)
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    out = {"vs_n": [], "vs_k": []}
    for n_ in ns:
        za, zp, zn = sample_tuples(data, dim_in, n_, 16, rng, sigma=sigma, kernel=kernel)
        lc = lipschitz_constants(za, zp, zn, tau, model.C_Phi)
        out["vs_n"].append({"n": n_, **theorem1_terms(tau, 16, n_, delta, model.d_Theta, radius,
                                                      model.C_Phi, lc["B_tau"], D2)})
    for k_ in ks:
        za, zp, zn = sample_tuples(data, dim_in, 200, k_, rng, sigma=sigma, kernel=kernel)
        lc = lipschitz_constants(za, zp, zn, tau, model.C_Phi)
        out["vs_k"].append({"k": k_, **theorem1_terms(tau, k_, 200, delta, model.d_Theta, radius,
                                                      model.C_Phi, lc["B_tau"], D2)})
    return out
