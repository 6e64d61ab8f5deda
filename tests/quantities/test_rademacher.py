"""Embedding class (C), certified Rademacher sup, Rademacher experiment."""

import numpy as np
import pytest

from infonce_sym.quantities import rademacher as rd
from infonce_sym.checks.rademacher import rademacher_experiment
from infonce_sym.checks.attacks import infonce_loss_from_embeddings
from infonce_sym.models.fourier_class import FourierEmbedding, sample_tuples
from infonce_sym.errors import InputError
from infonce_sym.quantities import montecarlo

# the m = 1 block kernels' backends on this machine (numba is in the test extra)
BACKENDS = ["numpy"] + (["numba"] if montecarlo.compiled_kernels() is not None else [])


@pytest.mark.parametrize("m,d_in", [(1, 2), (2, 3), (4, 1)])
def test_C_Phi_holds_and_is_sharp(m, d_in):
    E = FourierEmbedding(m, d_in, 1.0)
    rng = np.random.default_rng(m)
    N = 4000
    t1 = rng.standard_normal((N, m * d_in)) * 3
    t2 = t1 + 10 ** rng.uniform(-5, 0.5, (N, 1)) * rng.standard_normal((N, m * d_in))
    z = rng.standard_normal((N, d_in)) * 10 ** rng.uniform(-1, 1, (N, 1))
    lhs = np.array([np.linalg.norm(E.embed(t1[i], z[i:i + 1]) - E.embed(t2[i], z[i:i + 1]))
                    for i in range(N)])
    rhs = np.linalg.norm(z, axis=1) * np.linalg.norm(t1 - t2, axis=1)
    assert np.all(lhs <= E.C_Phi * rhs * (1 + 1e-9))
    # near-tight witness: one block moved by t z/|z| with t|z| small
    th = rng.standard_normal(m * d_in)
    zz = rng.standard_normal(d_in)
    th2 = th.copy()
    th2[:d_in] += 1e-6 * zz / np.linalg.norm(zz)
    r = np.linalg.norm(E.embed(th, zz[None]) - E.embed(th2, zz[None])) / (np.linalg.norm(zz) * 1e-6)
    assert r > 0.999 * E.C_Phi
    assert abs(np.linalg.norm(E.embed(th, zz[None])) - 1) < 1e-12


def test_losses_and_gradients():
    rng = np.random.default_rng(1)
    E = FourierEmbedding(2, 1, 1.0)
    za, zp, zn = sample_tuples("student_t", 1, 6, 5, rng)
    th = rng.standard_normal((3, 2))
    l, g = E.losses_and_grads(th, za, zp, zn, 0.3)
    A, P = E.embed(th, za), E.embed(th, zp)
    N = E.embed(th, zn.reshape(-1, 1)).reshape(3, 6, 5, 4)
    assert np.abs(l - infonce_loss_from_embeddings(A, P, N, 0.3)).max() < 1e-12
    e = 1e-6
    num = np.stack([(E.losses(th + e * np.eye(2)[i], za, zp, zn, 0.3)
                     - E.losses(th - e * np.eye(2)[i], za, zp, zn, 0.3)) / (2 * e) for i in range(2)], -1)
    assert np.abs(num - g).max() < 1e-6


def _small_instance(tau=0.3, n=15, k=4, seed=0):
    rng = np.random.default_rng(seed)
    E = FourierEmbedding(1, 2, 1.0)
    za, zp, zn = sample_tuples("gaussian", 2, n, k, rng)
    sig = rng.choice([-1.0, 1.0], size=(8, n))
    return E, za, zp, zn, sig


def test_certificate_constants_dominate_sampled_gradients_and_hessians():
    E, za, zp, zn, sig = _small_instance()
    tau = 0.3
    L, H = rd.certificate_constants_local(za, zp, zn, tau, E.C_Phi)
    rng = np.random.default_rng(2)
    th = rng.uniform(-3, 3, (300, 2))
    _, g = E.losses_and_grads(th, za, zp, zn, tau)
    gf = np.einsum("sn,cnd->scd", sig, g) / za.shape[0]
    assert np.linalg.norm(gf, axis=-1).max() <= L
    e = 1e-4
    for i in range(2):
        _, gp = E.losses_and_grads(th + e * np.eye(2)[i], za, zp, zn, tau)
        _, gm = E.losses_and_grads(th - e * np.eye(2)[i], za, zp, zn, tau)
        col = np.einsum("sn,cnd->scd", sig, (gp - gm) / (2 * e)) / za.shape[0]
        assert np.linalg.norm(col, axis=-1).max() <= H
    assert L <= rd.certificate_lipschitz(za, zp, zn, tau, E.C_Phi) * 10  # same order as Prop. 4 route


@pytest.mark.parametrize("second_order", [True, False])
def test_certified_sup_dominates_fine_grid_and_optimiser(second_order):
    E, za, zp, zn, sig = _small_instance()
    tau = 0.3
    L, H = rd.certificate_constants_local(za, zp, zn, tau, E.C_Phi)
    res = rd.certified_sup(E, za, zp, zn, tau, sig, L, h0=0.25, levels=3,
                           H=H if second_order else None, rel_tol=0.01)
    # fine grid over the ball
    ax = np.linspace(-1, 1, 301)
    G = np.array([(x, y) for x in ax for y in ax])
    G = G[np.linalg.norm(G, axis=1) <= 1]
    F = sig @ E.losses(G, za, zp, zn, tau).T / za.shape[0]
    fine = F.max(axis=1)
    assert np.all(res["upper"] >= fine - 1e-12)
    assert np.all(res["lower"] <= res["upper"])
    assert np.all(res["grid_max"] <= res["lower"] + 1e-15)
    # local optimiser started from the best fine-grid point cannot beat the certificate
    from scipy import optimize
    for s in range(sig.shape[0]):
        x0 = G[np.argmax(F[s])]
        f = lambda t: -(sig[s] @ E.losses(t[None], za, zp, zn, tau)[0]) / za.shape[0]
        cons = {"type": "ineq", "fun": lambda t: 1 - t @ t}
        r = optimize.minimize(f, x0, method="SLSQP", constraints=[cons])
        if r.x @ r.x <= 1 + 1e-9:
            assert res["upper"][s] >= -r.fun - 1e-12


def test_rademacher_experiment_keys_order_and_determinism():
    kw = dict(n=20, k=4, tau=0.5, samples=20, seed=3, levels=3)
    a = rademacher_experiment(**kw)
    b = rademacher_experiment(**kw)
    for key in ("estimate", "stderr", "lower_estimate", "bound_prop5", "bound_sharpened",
                "bound_lipschitz_route", "B_tau", "C_Phi", "d_Theta", "grid_points", "certificate"):
        assert key in a
    assert a["estimate"] == b["estimate"] and a["lower_estimate"] == b["lower_estimate"]
    assert a["lower_estimate"] <= a["estimate"]
    assert a["estimate"] <= a["bound_sharpened"] <= a["bound_prop5"]
    assert a["d_Theta"] == 2 and a["C_Phi"] == 1.0
    assert a["upper_kind"] == "certified" and a["lower_kind"] == "certified" and a["complete"]
    c = rademacher_experiment(m=2, dim_in=2, n=5, k=2, samples=2, max_evaluations=2000)  # d_Theta = 4
    assert c["upper_kind"] == "certified (coarse)" and c["lower_kind"] == "optimiser"
    assert c["lower_estimate"] <= c["estimate"] and c["relative_gap"] >= 0
    with pytest.raises(InputError, match="^tau"):
        rademacher_experiment(tau=0)


@pytest.mark.parametrize("m,d_in,tau,data", [(1, 2, 0.05, "gaussian"), (1, 2, 0.3, "student_t"),
                                             (2, 1, 0.1, "gaussian"), (1, 3, 0.2, "student_t"),
                                             (3, 1, 0.1, "gaussian")])
def test_local_bounds_dominate_derivatives_on_the_ball(m, d_in, tau, data):
    """(L), (H), (T) of the module docstring: sampled points of B(g, r) never exceed the bounds;
    the exact Hessians agree with finite differences of the gradients."""
    rng = np.random.default_rng(7 + m + d_in)
    E = FourierEmbedding(m, d_in, 1.0)
    dT = m * d_in
    za, zp, zn = sample_tuples(data, d_in, 9, 6, rng)
    g = rng.uniform(-1, 1, (6, dT))
    for r in (0.2, 0.03, 0.004):
        ev = rd.local_bounds_and_losses(E, g, za, zp, zn, tau, r=r)
        l0, g0 = E.losses_and_grads(g, za, zp, zn, tau)
        assert np.abs(ev["ell"] - l0).max() < 1e-12 and np.abs(ev["grad"] - g0).max() < 1e-10
        for c in range(g.shape[0]):
            e = rng.standard_normal((200, dT))
            e /= np.linalg.norm(e, axis=1)[:, None]
            pts = g[c] + e * r * rng.uniform(0, 1, (200, 1)) ** (1 / dT)
            pts[:dT] = g[c] + r * np.eye(dT)                   # some points on the sphere
            ep = rd.local_bounds_and_losses(E, pts, za, zp, zn, tau)
            assert np.all(np.linalg.norm(ep["grad"], axis=-1).mean(axis=1) <= ev["L"][c] * (1 + 1e-12))
            hn = np.abs(np.linalg.eigvalsh(ep["hess"])).max(axis=-1).mean(axis=1)
            assert np.all(hn <= ev["H"][c] * (1 + 1e-12))
            # third derivative along e, by central differences of the exact Hessians
            eps = 1e-5
            hp = rd.local_bounds_and_losses(E, pts + eps * e, za, zp, zn, tau)["hess"]
            hm = rd.local_bounds_and_losses(E, pts - eps * e, za, zp, zn, tau)["hess"]
            d3 = np.einsum("pd,pnde,pe->pn", e, (hp - hm) / (2 * eps), e)
            assert np.all(np.abs(d3).mean(axis=1) <= ev["T"][c] * (1 + 1e-6))
    # Hessians against finite differences of the gradients
    eps = 1e-6
    num = np.stack([(E.losses_and_grads(g + eps * np.eye(dT)[a], za, zp, zn, tau)[1]
                     - E.losses_and_grads(g - eps * np.eye(dT)[a], za, zp, zn, tau)[1]) / (2 * eps)
                    for a in range(dT)], -1)
    ev = rd.local_bounds_and_losses(E, g, za, zp, zn, tau)
    assert np.abs(ev["hess"] - num).max() <= 1e-5 * (1 + np.abs(num).max())
    assert np.isinf(ev["H"]).all()
    # the local bounds never exceed the global constants
    L, H = rd.certificate_constants_local(za, zp, zn, tau, E.C_Phi)
    ev = rd.local_bounds_and_losses(E, g, za, zp, zn, tau, r=10.0)
    assert np.all(ev["H"] <= H * (1 + 1e-12))


@pytest.mark.parametrize("m,d_in,tau,k,data", [(1, 3, 0.01, 1, "gaussian"), (1, 2, 0.05, 6, "student_t"),
                                               (2, 1, 0.1, 3, "gaussian"), (3, 1, 0.3, 8, "gaussian")])
def test_interval_bound_dominates_the_ball_and_is_exact_at_its_centre(m, d_in, tau, k, data):
    """(iv): f_sigma at sampled points of B(g, r) (the model's own losses, a route that never forms
    A_i) never exceeds ``interval_upper``; at r = 0 the bound is f_sigma(g) within the float margin,
    and it grows with r."""
    rng = np.random.default_rng(31 + k)
    E = FourierEmbedding(m, d_in, 1.0)
    dT = m * d_in
    za, zp, zn = sample_tuples(data, d_in, 7, k, rng)
    sig = rng.choice([-1.0, 1.0], size=(5, 7))
    sig[0], sig[1] = 1.0, -1.0                      # all +1 and all -1 among the sign vectors
    alpha = rd.slope_bounds(za, zp, zn, tau, E.C_Phi)
    margin = 1e-10 * (1.0 + 2.0 / tau + np.log(k + 1.0))
    g = rng.uniform(-1, 1, (5, dT))
    ell_g = E.losses(g, za, zp, zn, tau)
    f_g = sig @ ell_g.T / 7
    at_zero = rd.interval_upper(ell_g, sig, alpha, 0.0, np.log(k), margin)
    assert np.all(at_zero >= f_g) and np.all(at_zero - f_g <= 2 * margin)
    for r in (0.3, 0.02, 0.002):
        bound = rd.interval_upper(ell_g, sig, alpha, r, np.log(k), margin)
        assert np.all(bound > at_zero)
        for c in range(g.shape[0]):
            e = rng.standard_normal((4000, dT))
            e /= np.linalg.norm(e, axis=1)[:, None]
            pts = g[c] + e * r * rng.uniform(0, 1, (4000, 1)) ** (1 / dT)
            pts[:2000] = g[c] + e[:2000] * r                  # half of them on the sphere
            f = sig @ E.losses(pts, za, zp, zn, tau).T / 7
            assert np.all(f.max(axis=1) <= bound[:, c])
            # not vacuous: each l_i moves its end by at most alpha_i r, so the bound is within
            # max alpha_i r (plus the margin) of f_sigma(g) <= the sup over the ball
            assert np.all(bound[:, c] - f.max(axis=1) <= alpha.max() * r + 2 * margin)


def test_interval_bound_is_attained_where_the_slope_bound_is():
    """m = 1, d_in = 1, Dn = 1, Dp = 3: x(theta) = (cos theta - cos 3 theta)/tau has |x'| = 4/tau =
    alpha at g = -pi/2 (sin g = -1, sin 3g = 1) and x'' = 0 there, so l(g +- r) reach the bound's
    two ends up to |x'''| r^3/6 (x''' = -280 at tau = 0.1): a smaller shift or slope falls below."""
    E = FourierEmbedding(1, 1, 1.0)
    za, zp, zn = np.array([[0.0]]), np.array([[-3.0]]), np.array([[[-1.0]]])
    tau, r = 0.1, 0.002
    alpha = rd.slope_bounds(za, zp, zn, tau, E.C_Phi)
    assert alpha[0] == pytest.approx(4 / tau)
    g = np.array([[-np.pi / 2]])
    sig = np.array([[1.0], [-1.0]])
    bound = rd.interval_upper(E.losses(g, za, zp, zn, tau), sig, alpha, r, 0.0, 1e-10 * 21)[:, 0]
    ends = np.array([g - r, g + r])
    ell = np.array([E.losses(t, za, zp, zn, tau)[0, 0] for t in ends])
    reached = np.array([ell.max(), -ell.min()])                 # sigma = +1, -1
    assert np.all(reached <= bound) and np.all(bound - reached <= 1e-6)


def test_saturated_losses_are_discarded_by_the_interval_bound():
    """n = 1, k = 1, tau = 0.01, sigma = -1: f = -l is within 1e-50 of its sup 0 on much of Theta
    and steep elsewhere; the Taylor bounds alone refined 13 million cubes there (265 s) to certify
    0.51.  The interval bound (-l <= 0 on every ball) settles it on the level-0 grid, with the upper
    value the tolerance above the lower one, and above a dense search."""
    rng = np.random.default_rng(0)
    E = FourierEmbedding(1, 3, 1.0)
    za, zp, zn = sample_tuples("gaussian", 3, 1, 1, rng)
    L, H = rd.certificate_constants_local(za, zp, zn, 0.01, E.C_Phi)
    sig = np.array([[-1.0]])
    res = rd.certified_sup(E, za, zp, zn, 0.01, sig, L, rd.default_h0(3, 1.0), levels=6, H=H,
                           rel_tol=0.01, tol=1e-2)
    grid = rd.initial_cubes(E.theta0, 1.0, rd.default_h0(3, 1.0)).shape[0]
    assert res["evaluations"] == grid and res["complete"]
    pts = rng.standard_normal((200000, 3))
    pts /= np.linalg.norm(pts, axis=1)[:, None]
    pts *= rng.uniform(0, 1, (200000, 1)) ** (1 / 3)
    found = (-E.losses(pts, za, zp, zn, 0.01)[:, 0]).max()
    at_centre = -E.losses(E.theta0[None], za, zp, zn, 0.01)[0, 0]
    tol = 1e-2 + 0.01 * (found - at_centre)
    assert found <= res["upper"][0] <= found + tol + 1e-10 * (1 + 2 / 0.01 + np.log(2))


def _sup_by_search(E, za, zp, zn, tau, sig, dT, rng):
    """Max over dense random points of the ball and its sphere, polished by SLSQP (a lower bound)."""
    from scipy import optimize
    N = 60000 if dT <= 2 else 150000
    G = rng.uniform(-1, 1, (N, dT))
    G = G[np.linalg.norm(G, axis=1) <= 1]
    B = rng.standard_normal((20000, dT))
    G = np.vstack([G, B / np.linalg.norm(B, axis=1)[:, None]])
    F = sig @ E.losses(G, za, zp, zn, tau).T / za.shape[0]
    best = F.max(axis=1)
    for s in range(sig.shape[0]):
        for x0 in G[np.argsort(F[s])[-3:]]:
            f = lambda t: -(sig[s] @ E.losses(t[None], za, zp, zn, tau)[0]) / za.shape[0]  # noqa: E731
            res = optimize.minimize(f, x0, method="SLSQP",
                                    constraints=[{"type": "ineq", "fun": lambda t: 1 - t @ t}])
            if res.x @ res.x <= 1 + 1e-12:
                best[s] = max(best[s], -res.fun)
    return best, F.max(axis=1)


@pytest.mark.parametrize("m,d_in,tau,k", [(1, 2, 0.05, 32), (1, 2, 0.1, 16), (2, 1, 0.1, 8),
                                          (1, 3, 0.3, 4), (1, 1, 0.05, 8)])
def test_certified_sup_brackets_the_sup(m, d_in, tau, k):
    """upper >= every sampled (and optimised) value; the lower values are attained at the returned
    witnesses, and the gap closes to the requested tolerance."""
    rng = np.random.default_rng(11)
    E = FourierEmbedding(m, d_in, 1.0)
    dT = m * d_in
    za, zp, zn = sample_tuples("gaussian", d_in, 15, k, rng)
    sig = rng.choice([-1.0, 1.0], size=(6, 15))
    L, H = rd.certificate_constants_local(za, zp, zn, tau, E.C_Phi)
    res = rd.certified_sup(E, za, zp, zn, tau, sig, L, h0=0.25 if dT <= 2 else 0.34, levels=14,
                           H=H, rel_tol=0.002, tol=1e-5)
    found, sampled = _sup_by_search(E, za, zp, zn, tau, sig, dT, rng)
    assert np.all(res["upper"] >= found)
    # the lower values are attained: f_sigma(witness) >= lower at a witness in Theta
    p = res["lower_point"]
    assert np.all(np.linalg.norm(p, axis=1) <= 1 + 1e-12)
    fw = np.einsum("sn,sn->s", sig, E.losses(p, za, zp, zn, tau)) / za.shape[0]
    assert np.all(fw >= res["lower"] - 1e-12)
    assert np.all(res["lower"] >= sampled - 1e-3 * np.abs(sampled))
    # the tolerance: relative to what the sup adds to f_sigma(theta0), plus the absolute one
    at_centre = sig @ E.losses(E.theta0[None], za, zp, zn, tau)[0] / za.shape[0]
    assert np.all(res["upper"] - res["lower"] <= 0.002 * (res["lower"] - at_centre) + 1e-5 + 1e-8)


# Certified values of the code before the depth-first, lazily bounded search (commit 28031ec,
# infonce_sym/rademacher.py), recorded on these inputs with its certified_sup(..., h0=1/12 (1/5 for
# d_Theta = 3), levels=6, H=H, rel_tol=0.01, tol=1e-4/tau): (upper, lower) per sample.
_OLD_CODE = {
    (1, 2, 0.1, 64, 21): ([0.0056978, 0.0025659, 0.0056978, 0.6718125],
                          [0.0046513, 0.0015504, 0.0046513, 0.6641708]),
    (1, 2, 0.05, 16, 22): ([0.448442, 0.0799918, 1.0432919, 0.625218],
                           [0.4420217, 0.0772196, 1.0309821, 0.6170475]),
    (2, 1, 0.2, 32, 23): ([0.0104954, 0.2085313, 0.0036079, 0.0005],
                          [0.0098964, 0.2059716, 0.0030772, 0.0]),
    (1, 3, 0.3, 8, 24): ([0.4885062, 0.0621736, 0.2554079, 0.2847586],
                         [0.4833395, 0.0605, 0.2525491, 0.2816092]),
}


@pytest.mark.parametrize("case", sorted(_OLD_CODE))
def test_certified_sup_agrees_with_the_old_code(case):
    """Both searches certify [lower, upper] around the same sup: the brackets overlap, and the upper
    values differ by at most the tolerance each was allowed (rel_tol |lower| + tol, plus rounding of
    the recorded values)."""
    m, d_in, tau, k, seed = case
    rng = np.random.default_rng(seed)
    E = FourierEmbedding(m, d_in, 1.0)
    za, zp, zn = sample_tuples("gaussian", d_in, 20, k, rng)
    sig = rng.choice([-1.0, 1.0], size=(4, 20))
    L, H = rd.certificate_constants_local(za, zp, zn, tau, E.C_Phi)
    res = rd.certified_sup(E, za, zp, zn, tau, sig, L, 1 / 12 if m * d_in <= 2 else 1 / 5, levels=6,
                           H=H, rel_tol=0.01, tol=1e-4 / tau)
    old_up, old_lo = (np.array(v) for v in _OLD_CODE[case])
    assert np.all(res["lower"] <= old_up + 1e-7) and np.all(old_lo <= res["upper"] + 1e-7)
    allowed = 0.01 * np.maximum(np.abs(old_lo), np.abs(res["lower"])) + 1e-4 / tau + 1e-7
    assert np.all(np.abs(res["upper"] - old_up) <= allowed)
    assert res["complete"]


def test_phases_by_recurrence_match_direct_evaluation():
    """The phases of the search (products of tabulated factors, module docstring) agree with
    exp(i <theta_l, Dn>) evaluated directly, to well within the 1e-13 the margin assumes."""
    rng = np.random.default_rng(5)
    for m, d_in in ((1, 2), (2, 1), (1, 3)):
        E = FourierEmbedding(m, d_in, 1.0)
        za, zp, zn = sample_tuples("student_t", d_in, 6, 9, rng)
        td = rd.TupleDifferences(E, za, zp, zn, 0.1)
        h0 = 1 / 12
        cubes, idx, M = rd.initial_cubes(E.theta0, 1.0, h0, with_index=True)
        ph = rd.PhaseTables(td, E.theta0, h0, M)
        for b in rng.choice(len(cubes), 5, replace=False):
            z, c = ph.root(idx[b:b + 1])[0], cubes[b].copy()
            for v in range(1, 12):
                o = rng.choice([-1.0, 1.0], size=m * d_in)
                z, c = ph.child(z, v, o), c + o * h0 / 2**v
                assert np.abs(z - td.phases_n(c[None])[0]).max() < 1e-13


def test_bracket_for_d_theta_above_3_contains_dense_search():
    """d_Theta = 4: the coarse certified upper value is above a dense random search of the ball
    polished by SLSQP (an independent lower bound of the sup), and the optimiser's lower value is
    attained and close to that search."""
    from scipy import optimize
    rng = np.random.default_rng(8)
    E = FourierEmbedding(2, 2, 1.0)
    za, zp, zn = sample_tuples("gaussian", 2, 10, 4, rng)
    out = rd.rademacher_estimate(m=2, dim_in=2, n=10, k=4, tau=0.5, samples=3, seed=4,
                                 tuples=(za, zp, zn), max_evaluations=5000)
    assert out["upper_kind"] == "certified (coarse)" and out["lower_kind"] == "optimiser"
    sig = np.random.default_rng(np.random.SeedSequence(4).spawn(2)[1]).choice([-1.0, 1.0], size=(3, 10))
    G = rng.uniform(-1, 1, (200000, 4))
    G = G[np.linalg.norm(G, axis=1) <= 1]
    F = sig @ E.losses(G, za, zp, zn, 0.5).T / 10
    dense = F.max(axis=1)
    for s in range(3):
        f = lambda t: -(sig[s] @ E.losses(t[None], za, zp, zn, 0.5)[0]) / 10  # noqa: E731
        r = optimize.minimize(f, G[np.argmax(F[s])], method="SLSQP",
                              constraints=[{"type": "ineq", "fun": lambda t: 1 - t @ t}])
        if r.x @ r.x <= 1:
            dense[s] = max(dense[s], -r.fun)
    assert out["estimate"] >= dense.mean()
    assert out["lower_estimate"] <= out["estimate"]
    assert out["lower_estimate"] >= dense.mean() - 1e-3 * abs(dense.mean())
    assert out["relative_gap"] == pytest.approx(
        (out["estimate"] - out["lower_estimate"]) / abs(out["lower_estimate"]))


def test_progress_reports_settled_samples():
    seen = []
    rd.rademacher_estimate(n=10, k=4, tau=0.5, samples=5, chunk=2, seed=1, levels=3,
                           progress=lambda done, total: seen.append((done, total)))
    assert seen and all(t == 5 for _, t in seen)
    assert all(a <= b + 1e-12 for (a, _), (b, _) in zip(seen, seen[1:])) and seen[-1][0] == 5


def _general_route(monkeypatch):
    """Force the shifted general kernels (module docstring, "Kernels") for m = 1."""
    monkeypatch.setattr(rd, "_EXP_SAFE", -1.0)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("d_in,tau,data", [(2, 0.05, "gaussian"), (1, 0.3, "student_t"),
                                           (3, 0.1, "gaussian")])
def test_fast_kernels_match_the_general_route(monkeypatch, d_in, tau, data, backend):
    """The m = 1 kernels (unshifted exponentials, ball moments in units of 1/tau), NumPy's and the
    compiled ones, give the losses, gradients, Hessians and (L), (H), (T) of the shifted general
    route; r = 10 exceeds the exponent range of the fast ball kernel, so both take the general
    ball route there."""
    rng = np.random.default_rng(30 + d_in)
    E = FourierEmbedding(1, d_in, 1.0)
    za, zp, zn = sample_tuples(data, d_in, 9, 40, rng)
    g = rng.uniform(-1, 1, (5, d_in))
    for r in (0.2, 0.01, 10.0):
        fast = rd.local_bounds_and_losses(E, g, za, zp, zn, tau, r=r, backend=backend)
        with monkeypatch.context() as mp:
            _general_route(mp)
            slow = rd.local_bounds_and_losses(E, g, za, zp, zn, tau, r=r, backend="numpy")
        assert rd.TupleDifferences(E, za, zp, zn, tau).fast
        for key in ("ell", "grad", "hess", "L", "H", "T"):
            scale = 1.0 + np.abs(slow[key]).max()
            assert np.abs(fast[key] - slow[key]).max() <= 1e-12 * scale, key


@pytest.mark.parametrize("d_in,tau,k,seed", [(2, 0.1, 64, 21), (2, 0.05, 16, 22), (1, 0.1, 32, 3)])
def test_sibling_passes_match_cube_by_cube(monkeypatch, d_in, tau, k, seed):
    """One cube per batch (budget=1): the siblings' stages in one pass, computed ahead, with
    conjugate phases (module docstring, "Siblings together"), with each backend's block kernels,
    against the general route cube by cube; the same values up to rounding, so the same search
    (up to ties, which rounding may turn) and the same certified brackets."""
    rng = np.random.default_rng(seed)
    E = FourierEmbedding(1, d_in, 1.0)
    za, zp, zn = sample_tuples("gaussian", d_in, 20, k, rng)
    sig = rng.choice([-1.0, 1.0], size=(4, 20))
    L, H = rd.certificate_constants_local(za, zp, zn, tau, E.C_Phi)
    kw = dict(levels=6, H=H, rel_tol=0.01, tol=1e-4 / tau, budget=1)
    with monkeypatch.context() as mp:
        _general_route(mp)
        single = rd.certified_sup(E, za, zp, zn, tau, sig, L, 1 / 12, backend="numpy", **kw)
    runs = []
    for backend in BACKENDS:
        runs.append(rd.certified_sup(E, za, zp, zn, tau, sig, L, 1 / 12, backend=backend, **kw))
        with monkeypatch.context() as mp:       # the siblings' ball bounds by the general route
            mp.setattr(rd, "_ball_fast", lambda td, r: False)
            runs.append(rd.certified_sup(E, za, zp, zn, tau, sig, L, 1 / 12, backend=backend, **kw))
    for res in runs:
        assert np.abs(res["upper"] - single["upper"]).max() <= 1e-9
        assert np.abs(res["lower"] - single["lower"]).max() <= 1e-9
        assert abs(res["evaluations"] - single["evaluations"]) <= 0.01 * single["evaluations"]


@pytest.mark.skipif("numba" not in BACKENDS, reason="numba is not installed")
@pytest.mark.parametrize("r,clip", [(0.02, False), (0.3, True)])
def test_compiled_block_kernels_match_numpy_entry_by_entry(r, clip):
    """Each compiled block kernel (``rademacher_compiled``) against its NumPy twin on one block of
    several cubes and tuples, every output entry, including the rows where rho_j is clipped at D
    (qbar_j <= 1: the positive's term dp made tiny) and the gamma maximum over all j."""
    rng = np.random.default_rng(40 + clip)
    E = FourierEmbedding(1, 2, 1.0)
    za, zp, zn = sample_tuples("gaussian", 2, 12, 300, rng)
    tau, K = 0.1, 3
    td = {name: rd.TupleDifferences(E, za, zp, zn, tau, name) for name in ("numpy", "numba")}
    assert td["numba"].kernels is not None and td["numpy"].kernels is None
    b = slice(4, 11)
    z = np.exp(1j * rng.uniform(0, 2 * np.pi, (K, 7, 300)))
    rows = [rng.uniform(0.1, 1.0, (K, 7)) for _ in range(4)]
    if clip:
        rows[3] = np.full((K, 7), 1e-300)          # D = sum_l E_l e^{-a_l r/tau}: some rho_j > D
    out = {}
    for name, t in td.items():
        Eb, SE, gn, M = np.empty(z.shape), np.zeros((K, 12)), np.zeros((K, 12, 1, 2)), np.zeros((K, 12, 2, 2))
        rd._blk_losses1(t, z, b, Eb, np.empty(z.shape), SE, gn)
        rd._blk_hess1(t, z, Eb, b, np.empty(z.shape), np.empty(z.shape), M)
        ball = rd._blk_ball1(t, z, Eb, r, b, rows, *(np.empty(z.shape) for _ in range(3)))
        amax, bmax, G, D, Q0, Q1, Q2, Q3, G1, P1, P2 = ball
        gp = rows[2]       # G is specified through min(G + gp, E gamma) only (``_blk_ball1``)
        G = np.minimum(G + gp, (G1 + gp * Q0) / D)
        out[name] = [Eb, SE[:, b], gn[:, b], M[:, b], amax, bmax, G, D, Q0, Q1, Q2, Q3, G1, P1, P2]
    for i, (x, y) in enumerate(zip(out["numpy"], out["numba"])):
        assert x.shape == y.shape, i
        assert np.abs(x - y).max() <= 1e-13 * (1.0 + np.abs(x).max()), i
    # the clipping branch ran: with dp tiny, some row has max_j E_j e^{a_j r/tau} > D
    Eb = out["numpy"][0]
    a = np.minimum(np.abs(z.imag) + r * td["numpy"].nun[b], 1.0) * td["numpy"].nun[b]
    D = out["numpy"][7]
    assert ((Eb * np.exp(a * r / tau)).max(axis=-1) > D).any() == clip


def test_rademacher_backends_agree_and_are_named():
    """The whole estimate with the compiled kernels and with NumPy's: the same certified brackets
    up to rounding, and the output names the backend; an unknown backend is refused."""
    runs = {b: rd.rademacher_estimate(n=15, k=32, tau=0.1, samples=3, seed=2, backend=b) for b in BACKENDS}
    for b, out in runs.items():
        assert out["backend"] == b
        for key in ("estimate", "lower_estimate"):
            assert abs(out[key] - runs["numpy"][key]) <= 1e-9, (b, key)
    with pytest.raises(InputError, match="backend"):
        rd.rademacher_estimate(n=5, k=4, samples=2, backend="cuda")


def test_deadline_stops_the_refinement_with_a_certified_upper_value():
    """A deadline already past stops the branch and bound after the initial grid: every cube left
    keeps its parent's upper value, so the upper values are still above a fine grid over the ball
    (and above the complete run's certified lower values), only looser; a deadline that is never
    reached changes nothing."""
    import time
    E, za, zp, zn, sig = _small_instance()
    tau = 0.3
    L, H = rd.certificate_constants_local(za, zp, zn, tau, E.C_Phi)
    kw = dict(h0=0.25, levels=3, H=H, rel_tol=0.01)
    full = rd.certified_sup(E, za, zp, zn, tau, sig, L, **kw)
    late = rd.certified_sup(E, za, zp, zn, tau, sig, L, deadline=time.monotonic(), **kw)
    never = rd.certified_sup(E, za, zp, zn, tau, sig, L, deadline=time.monotonic() + 1e6, **kw)
    assert full["complete"] and not full["stopped_at_deadline"]
    assert not late["complete"] and late["stopped_at_deadline"]
    assert late["evaluations"] < full["evaluations"]
    ax = np.linspace(-1, 1, 301)
    G = np.array([(x, y) for x in ax for y in ax])
    G = G[np.linalg.norm(G, axis=1) <= 1]
    fine = (sig @ E.losses(G, za, zp, zn, tau).T / za.shape[0]).max(axis=1)
    assert np.all(late["upper"] >= fine - 1e-12) and np.all(late["upper"] >= full["lower"])
    assert np.any(late["upper"] > full["upper"] + 1e-6)          # looser: the refinement was cut
    for key in ("upper", "lower", "evaluations", "complete"):
        assert np.array_equal(never[key], full[key]), key


def test_max_seconds_is_reported():
    """``rademacher_estimate(max_seconds=...)``: a run that reaches it says so and stays certified
    (upper >= lower); one that does not is unchanged."""
    slow = dict(dim_in=3, n=10, k=16, tau=0.01, samples=2, seed=1)
    out = rd.rademacher_estimate(max_seconds=1e-9, **slow)
    assert out["stopped_at_max_seconds"] and not out["complete"]
    assert out["estimate"] >= out["lower_estimate"]
    quick = dict(n=10, k=4, tau=0.5, samples=2, seed=1)
    a, b = rd.rademacher_estimate(**quick), rd.rademacher_estimate(max_seconds=1e6, **quick)
    assert not b["stopped_at_max_seconds"] and b["complete"]
    assert (a["estimate"], a["lower_estimate"]) == (b["estimate"], b["lower_estimate"])


def test_every_sign_vector_once_when_there_are_few():
    """n = 2 with 4 samples asked: the 4 sign vectors once each, so the estimate brackets the exact
    expectation over sigma, here the mean over the 4 of a dense search of the interval Theta
    (d_Theta = 1, 40001 points); with 3 asked they are drawn."""
    out = rd.rademacher_estimate(m=1, dim_in=1, n=2, k=3, tau=0.5, samples=4, seed=2)
    assert out["sign_vectors"].startswith("all") and out["samples"] == 4 and out["stderr"] == 0.0
    za, zp, zn = out["tuples"]
    theta = np.linspace(-1, 1, 40001)[:, None]
    ell = FourierEmbedding(1, 1, 1.0).losses(theta, za, zp, zn, 0.5)                 # (40001, 2)
    signs = np.array([[1, 1], [-1, 1], [1, -1], [-1, -1]], float)
    exact = (signs @ ell.T / 2).max(axis=1).mean()
    assert out["lower_estimate"] <= exact + 1e-9 and out["estimate"] >= exact
    assert out["estimate"] - out["lower_estimate"] < 0.1 * exact            # 0.0018 of 0.037
    drawn = rd.rademacher_estimate(m=1, dim_in=1, n=2, k=3, tau=0.5, samples=3, seed=2)
    assert drawn["sign_vectors"].startswith("sampled") and drawn["samples"] == 3


def _quadratic_rad(tuples, tau, R):
    """E_sigma R^2/2 max(lambda_max(Hess f_sigma(0)), 0) over all 2^n sign vectors (m = 1, d_in = 2),
    the Hessians by central differences of the losses: Rad up to O(R^4) (f_sigma is even about 0)."""
    za, zp, zn = tuples
    n = za.shape[0]
    E = FourierEmbedding(1, 2, R)
    h, eye = 1e-4, np.eye(2)
    f = lambda t: E.losses(np.asarray(t, float)[None], za, zp, zn, tau)[0]        # noqa: E731
    hess = np.empty((n, 2, 2))
    for a in range(2):
        for b in range(2):
            hess[:, a, b] = (f(h * (eye[a] + eye[b])) - f(h * (eye[a] - eye[b]))
                             - f(h * (eye[b] - eye[a])) + f(-h * (eye[a] + eye[b]))) / (4 * h * h)
    sig = 1.0 - 2.0 * ((np.arange(2**n)[:, None] >> np.arange(n)) & 1)
    lam = np.linalg.eigvalsh(np.einsum("sn,nab->sab", sig, hess) / n)[:, -1]
    return np.mean(R * R / 2 * np.maximum(lam, 0.0))


def test_small_radius_matches_the_quadratic_term():
    """At theta0 = 0 every f_sigma is even (a sum of cosines), so on the ball of radius R
    sup f_sigma - f_sigma(0) = R^2/2 max(lambda_max(Hess f_sigma(0)), 0) + O(R^4): with all 2^n sign
    vectors, Rad is the mean of that (E_sigma f_sigma(0) = 0), the Hessians here by central
    differences of the losses.  The tolerance is relative to the sup's increment over f_sigma(0)
    (plus 1e-4 R/tau): before, it was 1 % of |f_sigma|, and the estimate at R = 1e-6 was 0.002,
    10^12 times the lower value and above Prop. 5's bound."""
    tau, R, n = 0.5, 1e-3, 4
    out = rd.rademacher_estimate(data="gaussian", dim_in=2, m=1, n=n, k=3, samples=16, tau=tau, radius=R,
                                 seed=3)
    assert out["sign_vectors"].startswith("all")
    quadratic = _quadratic_rad(out["tuples"], tau, R)
    assert quadratic > 1e-7
    margin = 1e-10 * (1 + 2 / tau + np.log(4))
    assert quadratic * (1 - 1e-3) <= out["estimate"] <= quadratic * 1.01 + 1e-4 * R / tau + margin
    assert out["lower_estimate"] <= quadratic * (1 + 1e-3)


def test_sampled_sign_vectors_estimate_the_increment_over_the_centre():
    """With sampled sign vectors the estimate is the mean of sup f_sigma - f_sigma(theta0) (E_sigma
    f_sigma(theta0) = 0): at R = 1e-3 it lies within 4 standard errors of Rad from the quadratic
    term over all 2^6 sign vectors (finite-difference Hessians, as above), and the standard error
    is below Rad: 5.7e-7 +- 7.5e-8.  Before, the mean of f_sigma(theta0) over the 32 draws swamped Rad:
    -0.0030 +- 0.019."""
    tau, R, n = 0.5, 1e-3, 6
    out = rd.rademacher_estimate(data="gaussian", dim_in=2, m=1, n=n, k=3, samples=32, tau=tau, radius=R,
                                 seed=5)
    assert out["sign_vectors"].startswith("sampled")
    rad = _quadratic_rad(out["tuples"], tau, R)
    assert 0 < out["stderr"] < rad
    assert abs(out["estimate"] - rad) <= 4 * out["stderr"] + 1e-4 * R / tau + 1e-8
    assert out["lower_estimate"] <= out["estimate"]
