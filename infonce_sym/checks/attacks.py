"""Attacking the continuity bounds of Section 4.1 (Lemma 5, Lemmas 7-8, Prop. 4, (17)-(18)).

Everything is on one tuple ``z = (z^a, z^+, z_1^-..z_k^-)`` through the embedding values
``phi(z^.)``, ``phi'(z^.)`` on the sphere S^{d-1}.  The loss is eq. (14),
``l = log(1/k + (1/k) sum_j exp(<phi(z^a), phi(z_j^-) - phi(z^+)>/tau))``, computed here with a
stable log-sum-exp (independent of ``infonce_sym.loss``).

A ratio ``actual / bound > 1`` is a violation (the witness is returned); ``<= 1`` means the bound
held on every configuration tried (a numerical "holds", not a proof).
"""
from __future__ import annotations

import math
import time

import numpy as np
from scipy import optimize

from ..proofs.statement_registry import statement
from ..proofs.statements import continuity_bound
from ..quantities.loss import power_mean
from ..errors import InputError, check_k, check_tau

__all__ = [
    "infonce_loss_from_embeddings", "bound_values", "random_attack", "adversarial_attack",
    "lemma7_attack", "lemma1_attack",
]

#: bound values below this are skipped (float64 rounding in l(phi) - l(phi') would dominate)
MIN_BOUND = 1e-7
#: a ratio above 1 + VIOLATION_TOL is reported as a violation
VIOLATION_TOL = 1e-6


def infonce_loss_from_embeddings(A, P, N, tau):
    """Eq. (14) for arrays A (..., d), P (..., d), N (..., k, d); stable log-sum-exp."""
    A = np.asarray(A, float)
    P = np.asarray(P, float)
    N = np.asarray(N, float)
    kk = N.shape[-2]
    x = (np.einsum("...d,...kd->...k", A, N) - np.einsum("...d,...d->...", A, P)[..., None]) / tau
    m = np.maximum(x.max(axis=-1), 0.0)
    s = np.exp(-m) + np.exp(x - m[..., None]).sum(axis=-1)
    return m + np.log(s) - math.log(kk)


def _unit(x):
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def lemma8(pm, beta, tau):
    """e^{2/(beta tau)} PM: the statement of Lemma 8 (``proofs.statement("L8")``)."""
    return statement("L8").evaluate("numpy", PM=pm, beta=beta, tau=tau)


def _lemma8_lhs(F_a, F_n, Dn, tau):
    """||G_tau(f, Delta, pi_hat, z^a)|| = ||sum_j p_j Delta_j||, p_j softmax of <f(a), f(n_j)>/tau."""
    x = np.einsum("...d,...kd->...k", F_a, F_n) / tau
    x = x - x.max(axis=-1, keepdims=True)
    p = np.exp(x)
    p /= p.sum(axis=-1, keepdims=True)
    return np.linalg.norm(np.einsum("...k,...kd->...d", p, Dn), axis=-1)


def bound_values(A, P, N, A2, P2, N2, tau, beta):
    """Actual |l(phi) - l(phi')| and every bound, vectorised over leading axes.

    Returns (actual, dict name -> bound array).  'lemma8' is handled separately (its LHS is not
    the loss difference) and is not included here.
    """
    tau = float(tau)
    kk = N.shape[-2]
    actual = np.abs(infonce_loss_from_embeddings(A, P, N, tau)
                    - infonce_loss_from_embeddings(A2, P2, N2, tau))
    Da = np.linalg.norm(A - A2, axis=-1)
    Dp = np.linalg.norm(P - P2, axis=-1)
    Dn = np.linalg.norm(N - N2, axis=-1)
    PM = power_mean(Dn, beta)
    Mx = Dn.max(axis=-1)
    v = np.einsum("...d,...d->...", A, P)[..., None] - np.einsum("...d,...kd->...k", A, N)
    v2 = np.einsum("...d,...d->...", A2, P2)[..., None] - np.einsum("...d,...kd->...k", A2, N2)
    Mv = np.abs(v - v2).max(axis=-1)
    out = {}
    ones = np.ones_like(actual)
    out["lemma5"] = ones * statement("L5").evaluate("numpy", tau=tau)
    out["lemma5_exact"] = ones * statement("L5.exact").evaluate("numpy", tau=tau, k=kk)
    for name in ("prop4", "prop4_sharp"):     # beta = inf is the limit: e^0 = 1, PM = max_j
        out[name] = continuity_bound(name, tau, Da, Dp, PM, float(beta))
    out["lipschitz17"] = statement("L17").evaluate("numpy", tau=tau, Mv=Mv)
    out["lipschitz17_linear"] = continuity_bound("lipschitz17_linear", tau, Da, Dp, PM, beta, Mx)
    out["lipschitz18"] = continuity_bound("lipschitz18", tau, Da, Dp, PM, beta, Mx)
    return actual, out


# ----------------------------------------------------------------------------- random configurations
def _random_configs(rng, B, d, kk):
    """B random tuples of unit vectors (phi) and perturbed ones (phi'), a mix of regimes."""
    mode = rng.integers(0, 4, size=B)
    X = _unit(rng.standard_normal((B, 2 + kk, d)))
    # clustered configurations (mode 2): vectors near a few random directions, incl. antipodes
    centres = _unit(rng.standard_normal((B, 3, d)))
    centres[:, 1] = -centres[:, 0]
    pick = rng.integers(0, 3, size=(B, 2 + kk))
    Xc = _unit(np.take_along_axis(centres, pick[..., None], axis=1)
               + 0.2 * rng.standard_normal((B, 2 + kk, d)))
    X = np.where((mode == 2)[:, None, None], Xc, X)
    # perturbations
    Y_indep = _unit(rng.standard_normal((B, 2 + kk, d)))
    scale = 10.0 ** rng.uniform(-3.5, 0.3, size=(B, 1, 1))
    per_point = 10.0 ** rng.uniform(-1, 0, size=(B, 2 + kk, 1))
    mask = rng.random((B, 2 + kk, 1)) < 0.7
    Y_small = np.where(mask, _unit(X + scale * per_point * rng.standard_normal((B, 2 + kk, d))), X)
    # mode 3: perturb only one group (anchor, positive or negatives)
    grp = rng.integers(0, 3, size=B)
    gmask = np.zeros((B, 2 + kk, 1), bool)
    gmask[grp == 0, 0] = True
    gmask[grp == 1, 1] = True
    gmask[grp == 2, 2:] = True
    Y_group = np.where(gmask, _unit(X + scale * rng.standard_normal((B, 2 + kk, d))), X)
    Y = np.where((mode == 0)[:, None, None], Y_indep,
                 np.where((mode == 3)[:, None, None], Y_group, Y_small))
    return X, Y


def random_attack(tau, n_configs=100_000, dims=(2, 3, 8), ks=(1, 2, 5, 20), betas=None,
                  seed=0, batch=20_000):
    """Worst ratio actual/bound over random configurations, per bound and beta.

    Returns ``{"tau", "n_configs", "results": {key: {"worst_ratio", "witness", "evaluations"}}}``
    with keys ``"prop4[beta=..]"`` etc. and ``"lemma8[beta=..]"``.
    """
    tau = check_tau(tau)
    if betas is None:
        betas = (1.0, 2.0, max(1.0, 2.0 / tau), 10.0)
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    combos = [(d, kk) for d in dims for kk in ks]
    per = max(1, int(math.ceil(n_configs / len(combos))))
    res = {}
    total = 0

    def record(key, ratio, witness_fn, count):
        i = int(np.argmax(ratio))
        r = float(ratio[i])
        cur = res.get(key)
        if cur is None or r > cur["worst_ratio"]:
            res[key] = {"worst_ratio": r, "witness": witness_fn(i),
                        "evaluations": (cur or {}).get("evaluations", 0) + count}
        else:
            cur["evaluations"] += count

    for d, kk in combos:
        left = per
        while left > 0:
            B = min(batch, left)
            left -= B
            X, Y = _random_configs(rng, B, d, kk)
            A, P, N = X[:, 0], X[:, 1], X[:, 2:]
            A2, P2, N2 = Y[:, 0], Y[:, 1], Y[:, 2:]
            total += B

            def wit(i, X=X, Y=Y, d=d, kk=kk):
                return {"d": d, "k": kk, "phi": X[i].tolist(), "phi_prime": Y[i].tolist()}
            for beta in betas:
                actual, bnds = bound_values(A, P, N, A2, P2, N2, tau, beta)
                for name, b in bnds.items():
                    if name in ("prop4", "prop4_sharp"):
                        key = f"{name}[beta={beta:g}]"
                    elif beta != betas[0]:
                        continue
                    else:
                        key = name
                    ok = b >= MIN_BOUND
                    ratio = np.where(ok, actual / np.where(ok, b, 1), 0.0)
                    record(key, ratio, wit, B)
                # Lemma 8 with f = xi = (1-c) phi + c phi' (||f|| <= 1) and Delta = phi - phi'
                c = rng.random((B, 1, 1))
                Fx = (1 - c) * X + c * Y
                lhs = _lemma8_lhs(Fx[:, 0], Fx[:, 2:], N - N2, tau)
                Dn = np.linalg.norm(N - N2, axis=-1)
                rhs = lemma8(power_mean(Dn, beta), beta, tau)
                ok = rhs >= MIN_BOUND
                ratio = np.where(ok, lhs / np.where(ok, rhs, 1), 0.0)
                record(f"lemma8[beta={beta:g}]", ratio, wit, B)
    return {"tau": tau, "n_configs": total, "results": res}


def lemma7_attack(tau, beta, n_configs=100_000, ks=(1, 2, 5, 20, 100), seed=0):
    """Lemma 7 on random x in [-1,1]^k (incl. +-1 corners) and a >= 0 (incl. spikes)."""
    tau = check_tau(tau)
    rng = np.random.default_rng(np.random.SeedSequence([seed, 7]))
    worst, wit, count = 0.0, None, 0
    for kk in ks:
        B = n_configs // len(ks)
        x = rng.uniform(-1, 1, (B, kk))
        corner = rng.random((B, kk)) < 0.5
        x = np.where(corner, np.sign(x), x)
        a = rng.exponential(1.0, (B, kk)) ** rng.uniform(0.2, 5, (B, 1))
        spike = rng.random((B, 1)) < 0.3
        a = np.where(spike, (np.arange(kk) == 0) * 1.0 + 1e-9, a)
        x = np.where(spike, np.where(np.arange(kk) == 0, 1.0, -1.0), x)
        w = np.exp((x - x.max(axis=1, keepdims=True)) / tau)
        lhs = (w * a).sum(1) / w.sum(1)
        rhs = lemma8(power_mean(a, beta), beta, tau)          # Lemma 7's statement, its power mean evaluated
        r = lhs / rhs
        i = int(np.argmax(r))
        count += B
        if r[i] > worst:
            worst, wit = float(r[i]), {"k": kk, "x": x[i].tolist(), "a": a[i].tolist()}
    return {"worst_ratio": worst, "witness": wit, "evaluations": count}


# ----------------------------------------------------------------------------- adversarial search
_GROUPS = ("all", "anchor", "positive", "negatives")


def _group_mask(group, kk):
    if group not in _GROUPS:
        raise InputError("group", f"must be one of {_GROUPS}, got {group!r}")
    g = np.zeros(2 + kk, bool)
    if group == "all":
        g[:] = True
    elif group == "anchor":
        g[0] = True
    elif group == "positive":
        g[1] = True
    else:
        g[2:] = True
    return g


def _unpack(theta, d, kk, gmask=None):
    """(phi, phi') of shape (..., 2+k, d) from parameter vectors theta (..., dim)."""
    theta = np.asarray(theta, float)
    lead = theta.shape[:-1]
    m = (2 + kk) * d
    raw = theta[..., :m].reshape(lead + (2 + kk, d))
    u = theta[..., m:2 * m].reshape(lead + (2 + kk, d))
    s = theta[..., 2 * m:2 * m + 2 + kk]
    X = _unit(raw)
    Y = _unit(X + np.exp(np.clip(s, -9, 3))[..., None] * u)
    if gmask is not None:
        Y = np.where(gmask[:, None], Y, X)
    return X, Y


def _ratio_fn(name, tau, beta, d, kk, counter, gmask=None):
    """actual/bound at parameter vectors theta (..., dim), 0 where a configuration is not finite
    or the bound is below MIN_BOUND; ``counter[0]`` counts the configurations evaluated."""
    def f(theta):
        theta = np.asarray(theta, float)
        counter[0] += int(np.prod(theta.shape[:-1], dtype=np.int64))
        with np.errstate(all="ignore"):
            X, Y = _unpack(theta, d, kk, gmask)
        ok = np.all(np.isfinite(X), axis=(-2, -1)) & np.all(np.isfinite(Y), axis=(-2, -1))
        X = np.where(ok[..., None, None], X, 1.0 / math.sqrt(d))     # a harmless stand-in, result dropped
        Y = np.where(ok[..., None, None], Y, X)
        if name == "lemma8":
            c = 0.5 * (1 + np.tanh(theta[..., -1]))[..., None, None]
            F = (1 - c) * X + c * Y
            lhs = _lemma8_lhs(F[..., 0, :], F[..., 2:, :], X[..., 2:, :] - Y[..., 2:, :], tau)
            b = lemma8(power_mean(np.linalg.norm(X[..., 2:, :] - Y[..., 2:, :], axis=-1), beta), beta, tau)
        else:
            lhs, bnds = bound_values(X[..., 0, :], X[..., 1, :], X[..., 2:, :],
                                     Y[..., 0, :], Y[..., 1, :], Y[..., 2:, :], tau, beta)
            b = bnds[name]
        b = np.broadcast_to(b, lhs.shape)
        keep = ok & (b >= MIN_BOUND)
        return np.where(keep, lhs / np.where(keep, b, 1.0), 0.0)
    return f


#: the forward-difference step of scipy's L-BFGS-B when it approximates the gradient itself
FD_STEP = 1e-8


def _value_and_forward_gradient(f, x):
    """f(x) and its forward-difference gradient with scipy's L-BFGS-B step (``approx_derivative``,
    2-point, abs_step FD_STEP), all dim + 1 points in one vectorised call of ``f``."""
    x = np.asarray(x, float)
    h = np.full(x.shape, FD_STEP)
    dx = (x + h) - x
    tiny = dx == 0                                   # x so large that x + h == x (scipy's fallback)
    if np.any(tiny):
        sign = np.where(x >= 0, 1.0, -1.0)
        h = np.where(tiny, np.finfo(float).eps ** 0.5 * sign * np.maximum(1.0, np.abs(x)), h)
    points = np.repeat(x[None], x.size + 1, axis=0)
    idx = np.arange(x.size)
    points[idx + 1, idx] += h
    values = f(points)
    step = points[idx + 1, idx] - x
    return values[0], (values[1:] - values[0]) / step


def adversarial_attack(name, tau, beta=None, d=3, k=5, n_starts=8, maxiter=200, seed=0,
                       starts=None, group="all"):
    """Multi-start L-BFGS-B maximising actual/bound for one bound; the gradient is scipy's forward
    difference (the same step), its dim + 1 points evaluated in one vectorised call.

    Parametrisation: unconstrained raw vectors ``r`` and directions ``u`` per point and log-scales
    ``s``; ``phi = r/|r|``, ``phi' = normalise(phi + e^s u)``.  ``starts``: optional list of
    (phi, phi') arrays of shape (2+k, d) to start from (e.g. the random-search witnesses).
    ``group``: perturb only "anchor", "positive" or "negatives" (or "all"), to probe each of the
    constants c_a, c_p, c_n separately.
    """
    tau = check_tau(tau)
    kk = check_k(k)
    if name not in ("prop4", "prop4_sharp", "lipschitz17", "lipschitz17_linear", "lipschitz18",
                    "lemma8", "lemma5", "lemma5_exact"):
        raise InputError("name", f"unknown bound {name!r}")
    if beta is None:
        beta = max(1.0, 2.0 / tau)
    rng = np.random.default_rng(np.random.SeedSequence([seed, 11]))
    counter = [0]
    gmask = _group_mask(group, kk)
    f = _ratio_fn(name, tau, beta, d, kk, counter, gmask)
    m = (2 + kk) * d
    dim = 2 * m + 2 + kk + 1
    x0s = []
    for X, Y in (starts or []):
        X = np.asarray(X, float)
        Y = np.asarray(Y, float)
        diff = Y - X
        nd = np.linalg.norm(diff, axis=1)
        u = np.where(nd[:, None] > 0, diff / np.where(nd > 0, nd, 1)[:, None], 1e-3)
        s = np.log(np.maximum(nd, 1e-6))
        x0s.append(np.concatenate([X.ravel(), u.ravel(), s, [0.0]]))
    while len(x0s) < n_starts:
        x0 = rng.standard_normal(dim)
        x0[2 * m:2 * m + 2 + kk] = rng.uniform(-6, 0.5, 2 + kk)
        x0s.append(x0)
    best, best_x = -np.inf, None
    for x0 in x0s:
        try:
            r = optimize.minimize(lambda t: tuple(-v for v in _value_and_forward_gradient(f, t)), x0,
                                  jac=True, method="L-BFGS-B", options={"maxiter": maxiter})
            x, val = r.x, -r.fun
        except (ValueError, FloatingPointError):
            continue
        if val > best:
            best, best_x = val, x
    X, Y = _unpack(best_x, d, kk, gmask)
    return {"bound": name, "tau": tau, "beta": beta, "d": d, "k": kk, "group": group,
            "worst_ratio": float(best),
            "witness": {"phi": X.tolist(), "phi_prime": Y.tolist()},
            "evaluations": counter[0], "verdict": "violated" if best > 1 + VIOLATION_TOL else "holds"}


# ----------------------------------------------------------------------------- optimal beta
# ----------------------------------------------------------------------------- Lemma 1 on a class (C)
LEMMA1_VARIANTS = ("lemma1", "lemma1_proof", "lemma1_sharp", "lipschitz_route")


def _lemma1_ratios(model, theta, theta2, za, zp, zn, tau):
    """rho_n(phi_theta, phi_theta2) / (L ||theta - theta2||) for each Lipschitz constant L of Lemma 1
    (as stated, its proof with Prop. 4's constants [4, 1, 3], sharpened, by the Lipschitz route (17)-(18));
    rows of theta, theta2 are pairs."""
    from ..proofs.statements import lipschitz_constants
    l1 = model.losses(theta, za, zp, zn, tau)
    l2 = model.losses(theta2, za, zp, zn, tau)
    rho = np.sqrt(np.mean((l1 - l2) ** 2, axis=1))
    dist = np.linalg.norm(theta - theta2, axis=1)
    L = lipschitz_constants(za, zp, zn, tau, model.C_Phi)["L"]
    ok = dist > 0
    return {v: np.where(ok, rho / (L[v] * np.where(ok, dist, 1.0)), 0.0) for v in LEMMA1_VARIANTS}


def _lemma1_ratios_each_own_tuple(model, theta, theta2, za, zp, zn, tau):
    """``_lemma1_ratios`` with one tuple per row: row b is the pair (theta_b, theta2_b) on the single
    tuple (za_b, zp_b, zn_b) (za, zp: (B, d_in), zn: (B, k, d_in)), its constants L from that tuple."""
    from ..proofs.statements import lipschitz_constants
    rows = np.arange(theta.shape[0])
    l1 = model.losses(theta, za, zp, zn, tau)[rows, rows]     # (B, B): every theta on every tuple
    l2 = model.losses(theta2, za, zp, zn, tau)[rows, rows]
    rho = np.abs(l1 - l2)
    dist = np.linalg.norm(theta - theta2, axis=1)
    L = lipschitz_constants(za[:, None], zp[:, None], zn[:, None], tau, model.C_Phi)["L"]
    ok = dist > 0
    return {v: np.where(ok, rho / (L[v] * np.where(ok, dist, 1.0)), 0.0) for v in LEMMA1_VARIANTS}


def lemma1_attack(tau, n_pairs=20_000, m=1, dim_in=2, n=10, ks=(1, 4, 16), datas=("gaussian", "student_t"),
                  adversarial=True, n_starts=4, maxiter=100, seed=0):
    """Lemma 1 (rho_n <= L ||theta - theta'||, three constants L) attacked on the Fourier class of
    :mod:`infonce_sym.embedding_class`, which satisfies (C) with C_Phi = m^{-1/2}.

    Random part: for each data law and k, n tuples and ``n_pairs`` parameter pairs at distances
    10^-4 .. 3.  Adversarial part: n = 1 tuple, multi-start L-BFGS-B over the parameters *and* the
    inputs z^a, z^+, z_j^- (unconstrained in R^{dim_in}), maximising each ratio in turn.
    Returns ``{"results": {variant: {worst_ratio, witness, evaluations}}, "seconds"}``.
    """
    from ..models.fourier_class import FourierEmbedding, sample_tuples
    tau = check_tau(tau)
    t0 = time.time()
    model = FourierEmbedding(m, dim_in, 1.0)
    dT = model.d_Theta
    rng = np.random.default_rng(np.random.SeedSequence([seed, 13]))
    res = {v: {"worst_ratio": 0.0, "witness": None, "evaluations": 0} for v in LEMMA1_VARIANTS}

    def record(v, r, wit, count):
        res[v]["evaluations"] += count
        if r > res[v]["worst_ratio"]:
            res[v]["worst_ratio"], res[v]["witness"] = float(r), wit
    for data in datas:
        for kk in ks:
            za, zp, zn = sample_tuples(data, dim_in, n, kk, rng)
            th = 2.0 * rng.standard_normal((n_pairs, dT))
            u = rng.standard_normal((n_pairs, dT))
            u *= 10.0 ** rng.uniform(-4, 0.5, (n_pairs, 1)) / np.linalg.norm(u, axis=1, keepdims=True)
            ratios = _lemma1_ratios(model, th, th + u, za, zp, zn, tau)
            for v, r in ratios.items():
                i = int(np.argmax(r))
                record(v, r[i], {"data": data, "k": kk, "theta": th[i].tolist(), "theta_prime": (th[i] + u[i]).tolist()},
                       n_pairs)
    if adversarial:
        for kk in ks[:2]:
            dim = 2 * dT + 1 + (2 + kk) * dim_in

            def unpack(x):
                """(theta, theta', z^a, z^+, z^-) of parameter rows x (B, dim): one tuple per row."""
                th = x[:, :dT]
                th2 = th + np.exp(np.clip(x[:, 2 * dT], -12, 3))[:, None] * x[:, dT:2 * dT]
                z = x[:, 2 * dT + 1:].reshape(x.shape[0], 2 + kk, dim_in)
                return th, th2, z[:, 0], z[:, 1], z[:, 2:]
            for v in LEMMA1_VARIANTS:
                counter = [0]

                def f(x, v=v):
                    x = np.atleast_2d(x)
                    counter[0] += x.shape[0]
                    ok = np.all(np.isfinite(x), axis=1)
                    x = np.where(ok[:, None], x, 0.0)          # a harmless stand-in, result dropped
                    return np.where(ok, _lemma1_ratios_each_own_tuple(model, *unpack(x), tau)[v], 0.0)
                best, best_x = -np.inf, None
                for _ in range(n_starts):
                    x0 = rng.standard_normal(dim)
                    x0[2 * dT] = rng.uniform(-6, 0)
                    try:
                        r = optimize.minimize(lambda x: tuple(-w for w in _value_and_forward_gradient(f, x)), x0,
                                              jac=True, method="L-BFGS-B", options={"maxiter": maxiter})
                    except (ValueError, FloatingPointError):
                        continue
                    if -r.fun > best:
                        best, best_x = -r.fun, r.x
                th, th2, za, zp, zn = (a[0] for a in unpack(best_x[None]))
                za, zp, zn = za[None], zp[None], zn[None]
                wit = {"adversarial": True, "k": kk, "theta": th.tolist(), "theta_prime": th2.tolist(),
                       "z_a": za.tolist(), "z_p": zp.tolist(), "z_n": zn.tolist()}
                at_best = _lemma1_ratios(model, th[None], th2[None], za, zp, zn, tau)
                for w in LEMMA1_VARIANTS:       # every constant at this witness
                    record(w, float(at_best[w][0]), wit, counter[0] if w == v else 0)
    return {"results": res, "tau": tau, "seconds": time.time() - t0}
