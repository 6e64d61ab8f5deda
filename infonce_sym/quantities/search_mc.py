"""Monte Carlo quantities on the class of assumption (C): the similarity-search expected
cross-entropy (eq. (9) with m = k, integrated over z ~ pi), the population risk, and the
empirical risk minimiser over Theta (used by the Theorem 1 check)."""
from __future__ import annotations


import numpy as np
from scipy import optimize

from ..models.fourier_class import log_density_ratio, sample_data, sample_tuples
from .montecarlo import block_moments, sampled_result
from .rademacher import initial_cubes

__all__ = ["search_cross_entropy_mc", "population_risk_mc", "fit_erm"]


def search_cross_entropy_mc(model, theta, tau, k, data, kernel, sigma, samples, rng, batch=2000):
    """MC estimate of int E CrossEnt[M_k(z,.) || Q_k(z,.)] pi(dz), eq. (9), m = k: a sampled result (estimate,
    stderr, 95% interval and whether Cochran's rule trusts it; ``montecarlo.sampled_result``)."""
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
    return sampled_result(int(v.size), *block_moments(v))


def population_risk_mc(model, theta, tau, k, data, kernel, sigma, samples, rng, batch=2000):
    """MC estimate of R(phi_theta; k, tau) on fresh tuples: a sampled result, as ``search_cross_entropy_mc``."""
    vals = []
    left = samples
    while left > 0:
        b = min(batch, left)
        left -= b
        za, zp, zn = sample_tuples(data, model.dim_in, b, k, rng, sigma=sigma, kernel=kernel)
        vals.append(model.losses(theta, za, zp, zn, tau)[0])
    v = np.concatenate(vals)
    return sampled_result(int(v.size), *block_moments(v))


# the ERM grid's step is at most ERM_GRID_STEP: R_hat_n oscillates in theta on the scale 1/|x| of the
# Fourier features of unit-scale data, and a step of R/4 = 2.5 at R = 10 (d_Theta = 3) saw theta0's basin
# only (a cross-check found minima 0.5-0.8 lower in 18 of 124 repeats there); with a step of 1 the fit
# reached the best of 200 SLSQP starts in 6 of 8 such repeats and came within 0.012 in the others
ERM_GRID_STEP = 1.0
ERM_STARTS = 3


def erm_grid(model, grid_h=None):
    """fit_erm's candidate grid for d_Theta <= 3: the lattice of step ``grid_h`` (default R/8, R/4 at
    d_Theta = 3, at most ERM_GRID_STEP) inside the ball Theta."""
    R, d = model.radius, model.d_Theta
    h = grid_h if grid_h is not None else min(R / (8 if d <= 2 else 4), ERM_GRID_STEP)
    g = initial_cubes(model.theta0, R, h)
    return g[np.linalg.norm(g - model.theta0, axis=1) <= R]


def erm_candidates(model) -> int:
    """How many candidates fit_erm evaluates R_hat_n at (its cost, which is candidates x n (k + 2))."""
    return len(erm_grid(model)) if model.d_Theta <= 3 else 64 * model.d_Theta + 1


def fit_erm(model, za, zp, zn, tau, grid_h=None, rng=None):
    """theta_hat, an approximate argmin over Theta of R_hat_n: the best of a set of candidates, then
    SLSQP (ball constraint) from the best ERM_STARTS.  Candidates: a grid over the ball for
    d_Theta <= 3 (step R/8, R/4 at d_Theta = 3, at most ERM_GRID_STEP); above, where a grid has
    7^d_Theta points, theta0 and 64 d_Theta uniform points of the ball drawn from ``rng``.  Not
    certified to be the global minimiser: Theorem 1 holds for every theta at once, so its check needs
    R_hat_n at the theta returned, not an exact minimiser."""
    R = model.radius
    d = model.d_Theta
    if d <= 3:
        g = erm_grid(model, grid_h)
    else:
        if rng is None:
            raise ValueError("fit_erm above d_Theta = 3 needs rng for its random candidates")
        g = np.vstack([model.theta0, model.uniform_points(rng, 64 * d)])
    risks = model.losses(g, za, zp, zn, tau).mean(axis=1)
    order = np.argsort(risks)[:ERM_STARTS]
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
