"""Empirical Rademacher complexity of the InfoNCE loss over the class of ``embedding_class``.

``Rad = E_sigma sup_{theta in Theta} f_sigma(theta)``, ``f_sigma(theta) = (1/n) sum_i sigma_i l(phi_theta, z_i)``.

How the upper estimate is guaranteed (per sigma sample).  Notation: for this class
``<phi_theta(x), phi_theta(y)> = S(x - y)``, ``S(D) = (1/m) sum_l cos u_l``, ``u_l = <theta_l, D>``;
``Dp_i = z_i^a - z_i^+``, ``Dn_ij = z_i^a - z_ij^-``; ``x_j = (S(Dn_ij) - S(Dp_i))/tau`` and
``l_i = log(1 + sum_j e^{x_j}) - log k``, so ``grad l_i = sum_j q_j grad x_j`` with softmax weights
``q_j = e^{x_j}/(1 + sum_l e^{x_l})`` (``sum_j q_j <= 1``).

(i) Global Lipschitz constant.  ``||grad_theta S(D)|| <= C_Phi ||D||``; Lemma 7 gives for all theta

    ||grad l_i|| <= L_i = (C_Phi/tau) (||Dp_i|| + min_beta e^{2/(beta tau)} PM_beta(||Dn_ij||)),

(min over a finite set of beta's incl. beta = inf, the max), so f_sigma is L-Lipschitz,
``L = (1/n) sum_i L_i``.  (The Prop. 4 route, ``certificate_lipschitz``, gives a valid but larger L
because it sees ||z^a||, ||z^+|| instead of the shift-invariant differences; it is reported too.)

(ii) Global Hessian bound.  ``||Hess l_i|| <= H_i = (C_Phi^2/tau) max_j(||Dn_ij||^2 + ||Dp_i||^2)
+ (C_Phi^2/tau^2) max_j(||Dn_ij|| + ||Dp_i||)^2`` ((H) below with every sup replaced by its global
value), ``H = (1/n) sum H_i``.

(iii) Ball-local bounds (``local_bounds_and_losses``).  Fix a centre g and the closed ball
``B = B(g, r)``.  Every theta' in B has ``|u_l(theta') - u_l(g)| <= ||theta' - g|| ||D|| <= r ||D||``
and sin, cos are 1-Lipschitz, so on B

    |sin u_l| <= sbar_l = min(1, |sin u_l(g)| + r||D||),   |cos u_l| <= cbar_l = min(1, |cos u_l(g)| + r||D||).

Since ``grad_l S = -(1/m) sin(u_l) D``, ``Hess S = -(1/m) blockdiag_l(cos(u_l) D D^T)`` and
``D^3 S[e,e,e] = (1/m) sum_l sin(u_l) <e_l, D>^3``, for unit e and theta' in B:
``||grad S|| <= a(D) = (||D||/m)(sum_l sbar_l^2)^{1/2}``, ``||Hess S|| <= b(D) = (||D||^2/m) max_l cbar_l``,
``|D^3 S[e,e,e]| <= c(D) = (||D||^3/m) max_l sbar_l`` (as ``sum_l |e_l|^3 <= 1``).  Hence on B
``||grad x_j|| <= alpha_j = (a(Dn_j) + a(Dp))/tau``, ``||Hess x_j|| <= beta_j = (b(Dn_j) + b(Dp))/tau``
and ``|D^3 x_j[e,e,e]| <= gamma_j = (c(Dn_j) + c(Dp))/tau``.  By the mean value theorem on the
segment [g, theta'] (inside B) ``|x_j(theta') - x_j(g)| <= alpha_j r``, so on B

    q_j(theta') <= qbar_j = min(1, e^{x_j(g) + alpha_j r} / (1 + sum_l e^{x_l(g) - alpha_l r})).

For z_j(theta') in [0, zbar_j] write ``E[z] = sum_j q_j z_j`` (a mean under the law q on {0..k},
with z_0 = 0); then on B ``E[z] <= Ebar[zbar] := min(max_j zbar_j, sum_j qbar_j zbar_j)``.  Along a
line theta' = g + t e (|e| = 1), with ``y_j(t) = x_j(g + t e)``, Y = y', A = y'', the derivatives
of ``l = log(1 + sum_j e^{y_j})`` follow from ``d/dt E[Z] = E[Z'] + Cov(Z, Y)``:

    l' = E[Y],   l'' = E[A] + Var(Y),   l''' = E[y'''] + 3 Cov(A, Y) + kappa_3(Y)

(``kappa_3`` the third central moment).  With ``0 <= Var(Y) <= E[Y^2]``,
``|Cov(A, Y)| <= (E[A^2] E[Y^2])^{1/2}`` and ``|kappa_3| = |E Y^3 - 3 E[Y] E[Y^2] + 2 E[Y]^3|
<= M3 + 3 M1 M2 + 2 M1^3`` (``M_p = Ebar[alpha^p]`` >= ``E|Y|^p``), on B:

    (L)  ||grad l_i|| <= M1
    (H)  ||Hess l_i|| <= min(Ebar[beta + alpha^2], Ebar[beta] + M2)
    (T)  |D^3 l_i[e,e,e]| <= Ebar[gamma] + 3 (Ebar[beta^2] M2)^{1/2} + M3 + 3 M1 M2 + 2 M1^3

((H) for the matrix norm: Hess l = sum_j q_j Hess x_j + the covariance matrix of grad x under q,
which is PSD and <= sum_j q_j grad x_j grad x_j^T).  Averaging over i (``|sigma_i| = 1``) bounds the
derivatives of every f_sigma on B; ``local_bounds_and_losses`` returns these averages with the
exact losses, gradients and Hessians at g.  The tests check them against finite differences.

Branch and bound.  Theta is covered by closed cubes Q (centre g, half-width h, Q in B(g, r),
r = h sqrt(d_Theta)).  For theta' in Q and delta = theta' - g, Taylor's theorem on [g, theta'] gives

    f(theta') <= f(g) + <grad f(g), delta> + min(H_g r^2/2, lambda_+ r^2/2 + T_g r^3/6),
    f(theta') <= f(g) + L_g r,

(``L_g, H_g``: the local bounds capped by the global L, H; ``T_g`` the local (T);
``lambda_+`` the positive part of the top eigenvalue of the exact Hess f_sigma(g)), and for theta'
also in Theta ``<grad f(g), delta> <= min(h ||grad f(g)||_1, R ||grad f(g)|| - <grad f(g), g - theta_0>)``.
A cube whose upper value is below a certified lower value of the sup is discarded for that sigma;
the others are split into 2^d_Theta children, down to ``levels`` refinements or until no cube is
left.  The reported sup is max(best lower value (+ tolerance when a cube was discarded within the
tolerance), max over the remaining cubes of their upper value) >= the true sup, plus a margin of
1e-10 (2/tau + log(k+1) + 1) for float64 rounding.  Cubes are kept while their ball meets Theta
(||g - theta_0|| <= R + r); a cube that does not itself meet Theta has no child that does.

Lower values (each <= the sup): f at centres in Theta and, at points p in Theta within r of g (the
projection onto Theta of a step from g along grad f(g), or the projection of g),
``f(g) + <grad f(g), p - g> - H_g ||p - g||^2/2`` and
``f(g) + <grad f(g), p - g> + (p - g)^T Hess f(g) (p - g)/2 - T_g ||p - g||^3/6``, both <= f(p).

``lower_estimate`` is the mean of the best certified lower values (a lower estimate of Rad);
``estimate`` the mean of the certified sups (an upper estimate); both are Monte Carlo means over
sigma (stderr reported for the upper one).  The gap between them is the certification gap.
"""
from __future__ import annotations

import itertools
import math
import time

import numpy as np

from ..errors import InputError, check_k, check_tau
from ..models.fourier_class import FourierEmbedding, sample_tuples

__all__ = ["certificate_lipschitz", "certified_sup", "local_bounds_and_losses",
           "rademacher_estimate", "initial_cubes"]


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


def initial_cubes(theta0, R, h):
    d = theta0.size
    m = int(math.ceil(R / (2 * h) - 0.5)) + 1
    ax = (np.arange(-m, m + 1) * 2 * h)
    grid = np.array(list(itertools.product(ax, repeat=d))) + theta0
    r = h * math.sqrt(d)
    keep = np.linalg.norm(grid - theta0, axis=1) <= R + r
    return grid[keep]


def local_bounds_and_losses(model, theta, za, zp, zn, tau, r=None, chunk=None):
    """Losses, derivatives and ball-local derivative bounds at the centres ``theta`` (G of them).

    Returns a dict: ``ell`` (G, n) the losses l_i(theta_g); ``grad`` (G, n, d_Theta) and ``hess``
    (G, n, d_Theta, d_Theta) their exact gradients and Hessians; and, for the closed ball
    B(theta_g, r), bounds valid for every sign vector (module docstring, (L), (H), (T)):
    ``L[g] >= sup_B (1/n) sum_i ||grad l_i||``, ``H[g] >= sup_B (1/n) sum_i ||Hess l_i||`` and
    ``T[g] >= sup_B (1/n) sum_i sup_{|e|=1} |D^3 l_i[e,e,e]|``.  With ``r=None`` the bounds are not
    computed (``inf``).  The work is chunked over centres, about 2.5e5 (centre, tuple, negative,
    block) entries per chunk.
    """
    theta = np.atleast_2d(np.asarray(theta, float))
    tau = float(tau)
    m, d = model.m, model.dim_in
    dT = m * d
    n_, kk = zn.shape[0], zn.shape[1]
    Dp = za - zp                                                   # (n, d)
    Dn = za[:, None, :] - zn                                       # (n, k, d)
    Dn_flat = Dn.reshape(n_ * kk, d)
    On = (Dn[..., :, None] * Dn[..., None, :]).reshape(n_, kk, d * d)   # outer products
    Op = (Dp[:, :, None] * Dp[:, None, :])                         # (n, d, d)
    nup = np.linalg.norm(Dp, axis=-1)                              # (n,)
    nun = np.linalg.norm(Dn, axis=-1)                              # (n, k)
    G = theta.shape[0]
    if chunk is None:
        chunk = max(1, int(2.5e5 // max(1, m * n_ * kk)))
    ell = np.empty((G, n_))
    grad = np.empty((G, n_, dT))
    hess = np.zeros((G, n_, dT, dT))
    Lb, Hb, Tb = (np.full(G, np.inf) for _ in range(3))
    logk = math.log(kk)
    pairs = [(a, b) for a in range(m) for b in range(a, m)]
    for s in range(0, G, chunk):
        T = theta[s:s + chunk].reshape(-1, m, d)                   # (g, m, d)
        g = T.shape[0]
        un = (T.reshape(g * m, d) @ Dn_flat.T).reshape(g, m, n_, kk)
        up = np.einsum("gmd,nd->gmn", T, Dp)                       # (g, m, n)
        cn, sn = np.cos(un), np.sin(un)
        cp, sp = np.cos(up), np.sin(up)
        if m == 1:
            x = cn[:, 0] - cp[:, 0, :, None]
        else:
            x = cn.mean(axis=1) - cp.mean(axis=1)[..., None]
        x /= tau                                                   # (g, n, k)
        mx = np.maximum(x.max(axis=-1), 0.0)                       # (g, n)
        ex = np.exp(x - mx[..., None])
        den = np.exp(-mx) + ex.sum(axis=-1)
        ell[s:s + chunk] = mx + np.log(den) - logk
        q = ex / den[..., None]                                    # (g, n, k)
        w = q.sum(axis=-1)                                         # (g, n)
        # grad S(D)_l = -(1/m) sin(u_l) D; grad x_j = (1/(m tau)) v_j, v_j,l = sp_l Dp - sn_lj Dn_j
        qs = q[:, None] * sn                                       # (g, m, n, k)
        gn = np.matmul(qs.transpose(2, 0, 1, 3).reshape(n_, g * m, kk), Dn
                       ).reshape(n_, g, m, d).transpose(1, 0, 2, 3)  # sum_j q_j sn_lj Dn_j
        spT = sp.transpose(0, 2, 1)                                # (g, n, m)
        gl = ((w[..., None] * spT)[..., None] * Dp[None, :, None, :] - gn) / (m * tau)
        grad[s:s + chunk] = gl.reshape(g, n_, dT)
        # Hessian: sum_j q_j Hess x_j + sum_j q_j grad x_j grad x_j^T - grad l grad l^T
        wts = [q * cn[:, a] for a in range(m)] + [qs[:, a] * sn[:, b] for a, b in pairs]
        W = np.stack(wts, axis=2)                                  # (g, n, nw, k)
        nw = W.shape[2]
        M = np.matmul(W.transpose(1, 0, 2, 3).reshape(n_, g * nw, kk), On
                      ).reshape(n_, g, nw, d, d).transpose(1, 0, 2, 3, 4)   # (g, n, nw, d, d)
        Hs = hess[s:s + chunk]
        c2 = 1.0 / (m * tau) ** 2
        for a in range(m):
            blk = -(M[:, :, a] - (w * cp[:, a])[..., None, None] * Op[None]) / (m * tau)
            Hs[:, :, a * d:(a + 1) * d, a * d:(a + 1) * d] += blk
        for idx, (a, b) in enumerate(pairs):
            P = M[:, :, m + idx]                                   # sum_j q sn_a sn_b Dn Dn^T
            cross = gn[:, :, a, :, None] * (spT[:, :, b, None, None] * Dp[None, :, None, :])
            cross2 = (spT[:, :, a, None, None] * Dp[None, :, :, None]) * gn[:, :, b, None, :]
            blk = c2 * (P - cross - cross2
                        + (w * spT[:, :, a] * spT[:, :, b])[..., None, None] * Op[None])
            Hs[:, :, a * d:(a + 1) * d, b * d:(b + 1) * d] += blk
            if b != a:
                Hs[:, :, b * d:(b + 1) * d, a * d:(a + 1) * d] += blk.transpose(0, 1, 3, 2)
        Gl = grad[s:s + chunk]
        Hs -= Gl[..., :, None] * Gl[..., None, :]
        if r is None:
            continue
        # sup over the ball of |sin u|, |cos u| (1-Lipschitz in u, |u(theta') - u(g)| <= r ||D||)
        rn = r * nun                                               # (n, k)
        rp = r * nup
        sbar = np.minimum(1.0, np.abs(sn) + rn)                    # (g, m, n, k)
        cbar = np.minimum(1.0, np.abs(cn) + rn)
        sbp = np.minimum(1.0, np.abs(sp) + rp)                     # (g, m, n)
        cbp = np.minimum(1.0, np.abs(cp) + rp)
        if m == 1:
            an, bn, gmn = sbar[:, 0] * nun, cbar[:, 0] * nun**2, sbar[:, 0] * nun**3
            ap, bp, gmp = sbp[:, 0] * nup, cbp[:, 0] * nup**2, sbp[:, 0] * nup**3
        else:
            an = np.sqrt((sbar**2).sum(axis=1)) * nun / m
            bn = cbar.max(axis=1) * nun**2 / m
            gmn = sbar.max(axis=1) * nun**3 / m
            ap = np.sqrt((sbp**2).sum(axis=1)) * nup / m
            bp = cbp.max(axis=1) * nup**2 / m
            gmp = sbp.max(axis=1) * nup**3 / m
        alpha = (an + ap[..., None]) / tau                         # sup_B ||grad x_j||
        beta = (bn + bp[..., None]) / tau                          # sup_B ||Hess x_j||
        gamma = (gmn + gmp[..., None]) / tau                       # sup_B |D^3 x_j[e,e,e]|
        ar = alpha * r
        # lower bound of log(1 + sum_l exp(x_l)) on B; qbar_j >= q_j on B
        log_den_lo = mx + np.log(np.exp(-mx) + (ex * np.exp(-ar)).sum(axis=-1))
        qbar = np.exp(np.minimum(0.0, x + ar - log_den_lo[..., None]))

        def E(z, zmax):                                            # >= sup_B sum_j q_j z_j
            return np.minimum(zmax, (qbar * z).sum(axis=-1))

        amax = alpha.max(axis=-1)
        a2 = alpha * alpha
        M1, M2, M3 = E(alpha, amax), E(a2, amax**2), E(a2 * alpha, amax**3)
        B1 = E(beta, beta.max(axis=-1))
        Lb[s:s + chunk] = M1.mean(axis=-1)
        Hb[s:s + chunk] = np.minimum(E(beta + a2, (beta + a2).max(axis=-1)), B1 + M2).mean(axis=-1)
        B2 = E(beta * beta, beta.max(axis=-1) ** 2)
        Ti = (E(gamma, gamma.max(axis=-1)) + 3 * np.sqrt(B2 * M2) + M3 + 3 * M1 * M2
              + 2 * M1**3)
        Tb[s:s + chunk] = Ti.mean(axis=-1)
    return {"ell": ell, "grad": grad, "hess": hess, "L": Lb, "H": Hb, "T": Tb}


def certified_sup(model, za, zp, zn, tau, sigmas, L, h0, levels=6, tol=0.0, H=None,
                  init=None, rel_tol=0.0, local=True):
    """Branch-and-bound certified upper bounds of sup_Theta f_sigma for each row of ``sigmas``.

    ``L``: Lipschitz constant of f_sigma; ``H`` (optional): bound on the Hessian norm; with
    ``local=True`` (default) they are replaced cube by cube by the smaller of them and the ball-local
    bounds (L), (H) of the module docstring, and with ``H`` given the third-order bound (exact
    Hess f_sigma at the centre plus (T)) is used as well.  ``H=None`` uses the first-order
    (Lipschitz) bound only.
    A cube is discarded for a sample when its upper value is <= best + tol_s, with
    ``tol_s = tol + rel_tol*|best|``; the returned upper value is then max(best + tol_s, ...), so the
    guarantee ``upper >= sup`` is kept (tolerances only trade accuracy for time).  Refinement stops
    early when every cube is discarded for every sample.
    Returns dict with ``upper`` (S,), ``lower`` (S,) (certified lower bounds: values at centres in
    Theta and Taylor lower bounds at points of Theta near the centres), ``lower_point`` (S, d_Theta)
    (a point of Theta where f_sigma >= lower, a witness), ``grid_max`` (S,)
    (best centre of the initial grid inside Theta), ``evaluations`` (number of theta's at which all
    n losses were computed), ``final_radius``, ``init`` (cache of the initial grid's losses,
    gradients and local bounds, for later calls with the same data, h0 and ``local``).
    """
    theta0 = model.theta0
    R = model.radius
    d = theta0.size
    sig = np.asarray(sigmas, float)
    S, n_ = sig.shape
    cubes = initial_cubes(theta0, R, h0)
    h = h0
    second = H is not None
    Hglob = float(H) if second else np.inf

    def evaluate(c, hh):
        return local_bounds_and_losses(model, c, za, zp, zn, tau,
                                       r=hh * math.sqrt(d) if local else None)

    if not (isinstance(init, dict) and init.get("local") == local):
        init = evaluate(cubes, h) | {"local": local}
    ev = init
    evals = cubes.shape[0]
    # float64 rounding in the losses is far below this margin, which is added to the upper values
    kk = zn.shape[1]
    fp = 1e-10 * (1.0 + 2.0 / tau + math.log(kk + 1.0))
    active = np.ones((S, cubes.shape[0]), bool)
    lower = np.full(S, -np.inf)
    lower_point = np.full((S, d), np.nan)
    floor = np.full(S, -np.inf)
    grid_max = None
    upper = None
    offsets = np.array(list(itertools.product((-0.5, 0.5), repeat=d)))
    for level in range(levels + 1):
        r = h * math.sqrt(d)
        C_ = cubes.shape[0]
        F = sig @ ev["ell"].T / n_                               # (S, C)
        rel = cubes - theta0
        inside = np.linalg.norm(rel, axis=1) <= R
        Fin = np.where(inside[None, :], F, -np.inf)
        if level == 0:
            grid_max = Fin.max(axis=1, initial=-np.inf)
        if C_:
            jc = Fin.argmax(axis=1)
            _improve(lower, lower_point, Fin[np.arange(S), jc], cubes[jc])
        slack = np.broadcast_to(np.minimum(L, ev["L"]) * r, F.shape)
        if second:
            gf = (sig @ np.ascontiguousarray(ev["grad"].transpose(1, 0, 2)).reshape(n_, C_ * d)
                  ).reshape(S, C_, d) / n_                       # (S, C, d) gradients of f_sigma
            Heff = np.minimum(Hglob, ev["H"])                    # (C,)
            # linear term maximised over the cube and over Theta
            lin = np.minimum(h * np.abs(gf).sum(axis=-1),
                             R * np.linalg.norm(gf, axis=-1) - np.einsum("scd,cd->sc", gf, rel))
            quad = Heff * r * r / 2
            Hf = Tc = None
            if local:
                Hf = (sig @ np.ascontiguousarray(ev["hess"].transpose(1, 0, 2, 3)).reshape(
                    n_, C_ * d * d)).reshape(S, C_, d, d) / n_   # (S, C, d, d) Hessians of f_sigma
                Tc = ev["T"]
                quad = np.minimum(quad, np.maximum(_lambda_max(Hf), 0.0) * r * r / 2
                                  + Tc * r**3 / 6)
            slack = np.minimum(slack, lin + quad)
            _improve(lower, lower_point, *_taylor_lower(F, gf, Hf, cubes, theta0, R, r, Heff, Tc))
        U = np.where(active, F + slack, -np.inf)
        tol_s = tol + rel_tol * np.abs(lower)
        active = U > (lower + tol_s)[:, None]
        pruned_with_tol = ((U > lower[:, None]) & ~active).any(axis=1)
        floor = np.maximum(floor, np.where(pruned_with_tol, lower + tol_s, -np.inf))
        upper = np.maximum(np.maximum(lower, floor),
                           np.where(active, U, -np.inf).max(axis=1, initial=-np.inf))
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
        ev = evaluate(cubes, h)
        evals += cubes.shape[0]
    return {"upper": upper + fp, "lower": lower, "lower_point": lower_point, "grid_max": grid_max,
            "evaluations": evals, "final_radius": h * math.sqrt(d), "init": init}


def _improve(lower, point, val, pts):
    """In place: where val > lower, take val and its point."""
    better = val > lower
    lower[better] = val[better]
    point[better] = pts[better]


def _lambda_max(A):
    """Largest eigenvalue of symmetric (..., d, d) matrices, d <= 3."""
    d = A.shape[-1]
    if d == 1:
        return A[..., 0, 0]
    if d == 2:
        a, b, c = A[..., 0, 0], A[..., 0, 1], A[..., 1, 1]
        return (a + c) / 2 + np.hypot((a - c) / 2, b)
    return np.linalg.eigvalsh(A)[..., -1] if A.size else np.zeros(A.shape[:-2])


def _taylor_lower(F, gf, Hf, cubes, theta0, R, r, Heff, Tc):
    """Certified lower bounds (S,) of sup_Theta f_sigma from expansions at the centres, and points
    (S, d) of Theta where f_sigma is at least that large.

    For p in Theta with ||p - g|| <= r and delta = p - g, both
    f(p) >= f(g) + <grad f(g), delta> - Heff ||delta||^2 / 2 and (when ``Hf`` is given)
    f(p) >= f(g) + <grad f(g), delta> + delta^T Hess f(g) delta / 2 - T ||delta||^3 / 6.
    Candidates p: the projections onto Theta of g + t grad f(g)/||grad f(g)|| for
    t = min(||grad f||/Heff, r) and t = r; a candidate farther than r from g is replaced by the
    projection of g, which is within r of g for every kept cube.
    """
    gnorm = np.linalg.norm(gf, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        e = np.where(gnorm[..., None] > 0, gf / gnorm[..., None], 0.0)
        ts = [np.minimum(np.where(Heff > 0, gnorm / Heff, np.inf), r), np.full(gnorm.shape, r)]
    rel = cubes - theta0
    n0 = np.linalg.norm(rel, axis=-1)
    pg = rel * np.minimum(1.0, R / np.maximum(n0, 1e-300))[:, None]        # projection of g
    dpg = pg - rel
    S = F.shape[0]
    best = np.full(S, -np.inf)
    best_p = np.full((S, cubes.shape[1]), np.nan)
    for t in ts:
        p = rel[None] + e * t[..., None]                                    # relative to theta0
        pn = np.linalg.norm(p, axis=-1)
        p = p * np.minimum(1.0, R / np.maximum(pn, 1e-300))[..., None]
        delta = p - rel[None]
        dn = np.linalg.norm(delta, axis=-1)
        far = dn > r
        delta = np.where(far[..., None], dpg[None], delta)
        dn = np.linalg.norm(delta, axis=-1)
        lin = np.einsum("scd,scd->sc", gf, delta)
        val = F + lin - Heff * dn * dn / 2
        if Hf is not None:
            qf = np.einsum("scd,scde,sce->sc", delta, Hf, delta)
            val = np.maximum(val, F + lin + qf / 2 - Tc * dn**3 / 6)
        val = np.where(dn <= r, val, -np.inf)
        if val.shape[1]:
            j = val.argmax(axis=1)
            _improve(best, best_p, val[np.arange(S), j], (rel[j] + delta[np.arange(S), j]) + theta0)
    return best, best_p


def rademacher_estimate(data="gaussian", dim_in=2, m=1, n=50, k=16, tau=0.5, radius=1.0,
                          samples=100, seed=0, sigma=0.5, kernel="additive", h0=None, levels=6,
                          chunk=100, tuples=None, second_order=True, rel_tol=0.01, tol=None):
    """Empirical Rademacher complexity of the InfoNCE loss over {phi_theta: ||theta|| <= R}.

    Monte Carlo over ``samples`` Rademacher vectors (streamed in chunks of ``chunk``, seeded by
    SeedSequence(seed)); the sup per sample is certified from above by branch and bound (see the
    module docstring).  Returns ``estimate`` (upper), ``stderr``, ``lower_estimate``,
    ``grid_max_estimate`` (plain initial-grid max), ``C_Phi``, ``d_Theta``, ``grid_points``,
    ``certificate`` (L * final covering radius), timings and ``tuples`` (the sampled data, for the
    bounds of ``checks.rademacher``).
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
    return {
        "estimate": float(up.mean()),
        "stderr": float(up.std(ddof=1) / math.sqrt(len(up))) if len(up) > 1 else float("nan"),
        "lower_estimate": float(lo.mean()),
        "lower_stderr": float(lo.std(ddof=1) / math.sqrt(len(lo))) if len(lo) > 1 else float("nan"),
        "grid_max_estimate": float(gm.mean()),
        "C_Phi": C, "d_Theta": dT,
        "L_certificate": L_cert, "H_certificate": H_cert, "L_prop4_certificate": L_prop4,
        "grid_points": int(initial_cubes(model.theta0, radius, h0).shape[0]),
        "evaluations": int(evals),
        "certificate": float(L_cert * final_r),
        "certified_gap": float((up - lo).mean()),
        "samples": samples, "n": n, "k": k, "tau": tau, "data": data, "radius": radius,
        "seconds": time.time() - t0, "tuples": (za, zp, zn),
    }
