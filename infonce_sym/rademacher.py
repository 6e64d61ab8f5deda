"""Empirical Rademacher complexity of the InfoNCE loss over the class of ``embedding_class``.

``Rad = E_sigma sup_{theta in Theta} f_sigma(theta)``, ``f_sigma(theta) = (1/n) sum_i sigma_i l(phi_theta, z_i)``.

How the upper estimate is guaranteed (per sigma sample).  Two valid local bounds on cubes.

(i) Lipschitz.  For this class ``<phi_theta(x), phi_theta(y)> = S(x - y)`` with
``||grad_theta S(D)|| <= C_Phi ||D||``; with ``x_j = (S(z^a - z_j^-) - S(z^a - z^+))/tau`` and
``dl/dx_j = q_j <= p_j`` (softmax weights, sum q_j <= 1), Lemma 7 gives for all theta in R^{d_Theta}

    ||grad l_i|| <= L_i = (C_Phi/tau) (||z_i^a - z_i^+|| + min_beta e^{2/(beta tau)} PM_beta(||z_i^a - z_ij^-||)),

(min over a finite set of beta's incl. beta = inf, the max), so f_sigma is L-Lipschitz,
``L = (1/n) sum_i L_i``.  (The Prop. 4 route, ``certificate_lipschitz``, gives a valid but larger L
because it sees ||z^a||, ||z^+|| instead of the shift-invariant differences; it is reported too.)

(ii) Second order.  ``||Hess l_i|| <= H_i = (C_Phi^2/tau) max_j(||Dn_ij||^2 + ||Dp_i||^2)
+ (C_Phi^2/tau^2) max_j(||Dn_ij|| + ||Dp_i||)^2`` (Hessian of log-sum-exp: sum_j q_j Hess x_j plus a
PSD matrix <= sum_j q_j grad x_j grad x_j^T; ``||Hess S(D)|| <= C_Phi^2 ||D||^2`` blockwise), so with
``H = (1/n) sum H_i``:  ``f_sigma(theta) <= f_sigma(g) + ||grad f_sigma(g)|| r + H r^2/2`` on a ball
of radius r about g (exact gradients at the centres).

Theta is covered by closed cubes (centre g, half-width h, covering radius r = h sqrt(d_Theta));
``sup_cube f_sigma <= f_sigma(g) + min(L r, ||grad f_sigma(g)|| r + H r^2/2)``.  Branch and bound: a
cube whose upper value is below the best value found at a centre inside Theta (a *lower* bound on
the sup) is discarded for that sigma, the others are split into 2^d_Theta children, down to
``levels`` refinements.  The reported sup is max(best, max over remaining cubes of their upper
value) >= the true sup.  Cubes are kept when they meet the ball (||g - theta_0|| <= R + r); centres
outside Theta count in the upper value (the bounds hold on all of R^{d_Theta}) but not in the lower.

``lower_estimate`` is the mean of the best centre values inside Theta (a lower estimate of Rad);
``estimate`` the mean of the certified sups (an upper estimate); both are Monte Carlo means over
sigma (stderr reported for the upper one).  The gap between them is the certification gap.
"""
from __future__ import annotations

import itertools
import math
import time

import numpy as np

from .bounds_section4 import (dudley_integral, lipschitz_constants, prop5_bound,
                              rademacher_bound_from_L)
from .embedding_class import FourierEmbedding, sample_tuples
from .errors import InputError, check_k, check_positive, check_tau

__all__ = ["certificate_lipschitz", "certified_sup", "rademacher_experiment",
           "rademacher_sweep"]


def certificate_lipschitz(za, zp, zn, tau, C_Phi, constants=(2, 1, 1)):
    """L = (1/n) sum_i L_i, a Lipschitz constant of theta -> (1/n) sum_i sigma_i l_i(theta)."""
    tau = check_tau(tau)
    ca, cp, cn = constants
    na = np.linalg.norm(za, axis=-1)
    npos = np.linalg.norm(zp, axis=-1)
    nn = np.linalg.norm(zn, axis=-1)                       # (n, k)
    mx = nn.max(axis=1)
    best = mx.copy()                                       # beta = inf
    safe = np.where(mx > 0, mx, 1.0)
    for beta in (1.0, 1.5, 2.0, 3.0, max(1.0, 2.0 / tau), 4.0, 6.0, 8.0, 12.0, 16.0, 32.0, 64.0):
        pm = safe * np.mean((nn / safe[:, None]) ** beta, axis=1) ** (1.0 / beta)
        best = np.minimum(best, math.exp(2.0 / (beta * tau)) * pm)
    Li = C_Phi / tau * (ca * na + cp * npos + cn * best)
    return float(Li.mean())


def certificate_constants_local(za, zp, zn, tau, C_Phi):
    """(L, H): Lipschitz and Hessian-norm bounds of f_sigma from differences (module docstring)."""
    tau = check_tau(tau)
    dp = np.linalg.norm(za - zp, axis=-1)                    # (n,)
    dn = np.linalg.norm(za[:, None, :] - zn, axis=-1)        # (n, k)
    mx = dn.max(axis=1)
    best = mx.copy()
    safe = np.where(mx > 0, mx, 1.0)
    for beta in (1.0, 1.5, 2.0, 3.0, max(1.0, 2.0 / tau), 4.0, 6.0, 8.0, 12.0, 16.0, 32.0, 64.0):
        pm = safe * np.mean((dn / safe[:, None]) ** beta, axis=1) ** (1.0 / beta)
        best = np.minimum(best, math.exp(2.0 / (beta * tau)) * pm)
    L = float((C_Phi / tau * (dp + best)).mean())
    H = float((C_Phi**2 / tau * (mx**2 + dp**2) + C_Phi**2 / tau**2 * (mx + dp) ** 2).mean())
    return L, H


def _initial_cubes(theta0, R, h):
    d = theta0.size
    m = int(math.ceil(R / (2 * h) - 0.5)) + 1
    ax = (np.arange(-m, m + 1) * 2 * h)
    grid = np.array(list(itertools.product(ax, repeat=d))) + theta0
    r = h * math.sqrt(d)
    keep = np.linalg.norm(grid - theta0, axis=1) <= R + r
    return grid[keep]


def certified_sup(model, za, zp, zn, tau, sigmas, L, h0, levels=6, tol=0.0, H=None,
                  init=None, rel_tol=0.0):
    """Branch-and-bound certified upper bounds of sup_Theta f_sigma for each row of ``sigmas``.

    ``L``: Lipschitz constant of f_sigma; ``H`` (optional): bound on the Hessian norm.
    A cube is discarded for a sample when its upper value is <= best + tol_s, with
    ``tol_s = tol + rel_tol*|best|``; the returned upper value is then max(best + tol_s, ...), so the
    guarantee ``upper >= sup`` is kept (tolerances only trade accuracy for time).
    Returns dict with ``upper`` (S,), ``lower`` (S,), ``grid_max`` (S,) (best centre of the initial
    grid inside Theta), ``evaluations`` (number of theta's at which all n losses were computed),
    ``final_radius``, ``init`` (cache of the initial grid's losses and gradients).
    """
    theta0 = model.theta0
    R = model.radius
    d = theta0.size
    sig = np.asarray(sigmas, float)
    S, n_ = sig.shape
    cubes = _initial_cubes(theta0, R, h0)
    h = h0
    if init is None:
        init = model.losses_and_grads(cubes, za, zp, zn, tau)
    ell, grad = init
    evals = cubes.shape[0]
    active = np.ones((S, cubes.shape[0]), bool)
    lower = np.full(S, -np.inf)
    floor = np.full(S, -np.inf)
    grid_max = None
    upper = None
    offsets = np.array(list(itertools.product((-0.5, 0.5), repeat=d)))
    for level in range(levels + 1):
        r = h * math.sqrt(d)
        F = sig @ ell.T / n_                                     # (S, C)
        inside = np.linalg.norm(cubes - theta0, axis=1) <= R
        Fin = np.where(inside[None, :], F, -np.inf)
        if level == 0:
            grid_max = Fin.max(axis=1)
        lower = np.maximum(lower, Fin.max(axis=1))
        slack = np.full(F.shape, L * r)
        if H is not None:
            C_, _, dd = grad.shape
            gf = (sig @ np.ascontiguousarray(grad.transpose(1, 0, 2)).reshape(n_, C_ * dd)
                  ).reshape(S, C_, dd) / n_
            slack = np.minimum(slack, np.linalg.norm(gf, axis=-1) * r + H * r * r / 2)
        U = np.where(active, F + slack, -np.inf)
        tol_s = tol + rel_tol * np.abs(lower)
        active = U > (lower + tol_s)[:, None]
        pruned_with_tol = ((U > lower[:, None]) & ~active).any(axis=1)
        floor = np.maximum(floor, np.where(pruned_with_tol, lower + tol_s, -np.inf))
        upper = np.maximum(np.maximum(lower, floor), np.where(active, U, -np.inf).max(axis=1))
        if level == levels or not active.any():
            break
        refine = active.any(axis=0)
        parents = cubes[refine]
        pact = active[:, refine]
        h = h / 2
        children = (parents[:, None, :] + offsets[None, :, :] * 2 * h).reshape(-1, d)
        cact = np.repeat(pact, offsets.shape[0], axis=1)
        keep = np.linalg.norm(children - theta0, axis=1) <= R + h * math.sqrt(d)
        cubes, active = children[keep], cact[:, keep]
        ell, grad = model.losses_and_grads(cubes, za, zp, zn, tau)
        evals += cubes.shape[0]
    return {"upper": upper, "lower": lower, "grid_max": grid_max, "evaluations": evals,
            "final_radius": h * math.sqrt(d), "init": init}


def rademacher_experiment(data="gaussian", dim_in=2, m=1, n=50, k=16, tau=0.5, radius=1.0,
                          samples=100, seed=0, sigma=0.5, kernel="additive", h0=None, levels=6,
                          chunk=100, tuples=None, second_order=True, rel_tol=0.01, tol=None):
    """Empirical Rademacher complexity of the InfoNCE loss over {phi_theta: ||theta|| <= R}.

    Monte Carlo over ``samples`` Rademacher vectors (streamed in chunks of ``chunk``, seeded by
    SeedSequence(seed)); the sup per sample is certified from above by branch and bound (see the
    module docstring).  Returns ``estimate`` (upper), ``stderr``, ``lower_estimate``,
    ``grid_max_estimate`` (plain initial-grid max), the bounds ``bound_prop5`` (as stated),
    ``bound_sharpened`` ([2,1,1] Lemma 1 + exact Dudley integral + exact loss range),
    ``bound_lipschitz_route`` ((18) -> max over negatives, Prop. 5's Cauchy-Schwarz form) and
    ``bound_lipschitz_route_exact`` (same L, exact integral), ``B_tau``, ``B_max``, ``C_Phi``,
    ``d_Theta``, ``grid_points``, ``certificate`` (L * final covering radius) and timings.
    """
    t0 = time.time()
    tau = check_tau(tau)
    n = check_k(n, "n")
    k = check_k(k)
    samples = check_k(samples, "samples")
    model = FourierEmbedding(m, dim_in, radius)
    if model.d_Theta > 3:
        raise InputError("m", f"d_Theta = m*dim_in must be <= 3 for the certified grid, got {model.d_Theta}")
    ss = np.random.SeedSequence(seed)
    data_seed, sigma_seed = ss.spawn(2)
    if tuples is None:
        za, zp, zn = sample_tuples(data, dim_in, n, k, np.random.default_rng(data_seed), sigma=sigma,
                                   kernel=kernel)
    else:
        za, zp, zn = tuples
    C = model.C_Phi
    dT = model.d_Theta
    L_prop4 = certificate_lipschitz(za, zp, zn, tau, C, (2, 1, 1))
    L_cert, H_cert = certificate_constants_local(za, zp, zn, tau, C)
    lc = lipschitz_constants(za, zp, zn, tau, C)
    if h0 is None:
        h0 = radius / (12 if dT <= 2 else 5)
    rng_s = np.random.default_rng(sigma_seed)
    ups, los, gms = [], [], []
    evals = 0
    cache = None
    final_r = None
    left = samples
    while left > 0:
        s = min(chunk, left)
        left -= s
        sig = rng_s.choice([-1.0, 1.0], size=(s, n))
        res = certified_sup(model, za, zp, zn, tau, sig, L_cert, h0, levels=levels,
                            H=H_cert if second_order else None, init=cache, rel_tol=rel_tol,
                            tol=(1e-4 / tau if tol is None else tol))
        cache = res["init"]
        ups.append(res["upper"])
        los.append(res["lower"])
        gms.append(res["grid_max"])
        evals += res["evaluations"]
        final_r = res["final_radius"] if final_r is None else max(final_r, res["final_radius"])
    up = np.concatenate(ups)
    lo = np.concatenate(los)
    gm = np.concatenate(gms)
    # bounds
    a = math.e * radius * lc["B_tau"] * C
    b_prop5 = prop5_bound(tau, dT, n, a)
    L_s = lc["L"]["lemma1_sharp"]
    b_sharp = rademacher_bound_from_L(L_s, radius, dT, n, tau, k_=k, exact_integral=True,
                                      exact_range=True)
    a_lip = math.sqrt(6) / 4 * radius * C * lc["B_max"]
    b_lip = prop5_bound(tau, dT, n, a_lip)
    b_lip_exact = rademacher_bound_from_L(lc["L"]["lipschitz_route"], radius, dT, n, tau,
                                          exact_integral=True)
    return {
        "estimate": float(up.mean()),
        "stderr": float(up.std(ddof=1) / math.sqrt(len(up))) if len(up) > 1 else float("nan"),
        "lower_estimate": float(lo.mean()),
        "lower_stderr": float(lo.std(ddof=1) / math.sqrt(len(lo))) if len(lo) > 1 else float("nan"),
        "grid_max_estimate": float(gm.mean()),
        "bound_prop5": b_prop5,
        "bound_sharpened": b_sharp,
        "bound_lipschitz_route": b_lip,
        "bound_lipschitz_route_exact": b_lip_exact,
        "a": a, "a_lipschitz_route": a_lip,
        "B_tau": lc["B_tau"], "B_max": lc["B_max"], "C_Phi": C, "d_Theta": dT,
        "L_certificate": L_cert, "H_certificate": H_cert, "L_prop4_certificate": L_prop4, "L_lemma1": lc["L"]["lemma1"], "L_sharp": L_s,
        "grid_points": int(_initial_cubes(model.theta0, radius, h0).shape[0]),
        "evaluations": int(evals),
        "certificate": float(L_cert * final_r),
        "certified_gap": float((up - lo).mean()),
        "samples": samples, "n": n, "k": k, "tau": tau, "data": data, "seconds": time.time() - t0,
    }


def rademacher_sweep(ks=(1, 4, 16, 64, 256, 1024, 4096), taus=(0.05, 0.1, 0.5, 1.0),
                     datas=("gaussian", "student_t"), n=50, samples=100, seed=0, **kw):
    """Rademacher estimate and the three bounds over k, tau and data (list of dicts)."""
    rows = []
    for data in datas:
        for tau in taus:
            for k in ks:
                r = rademacher_experiment(data=data, n=n, k=k, tau=tau, samples=samples, seed=seed,
                                          **kw)
                rows.append({key: r[key] for key in (
                    "data", "tau", "k", "estimate", "stderr", "lower_estimate", "bound_prop5",
                    "bound_sharpened", "bound_lipschitz_route", "bound_lipschitz_route_exact",
                    "B_tau", "B_max", "certificate", "seconds")})
    return rows
