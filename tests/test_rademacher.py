"""Embedding class (C), certified Rademacher sup, Rademacher experiment."""
import math

import numpy as np
import pytest

from infonce_sym import rademacher as rd
from infonce_sym.continuity import infonce_loss_from_embeddings
from infonce_sym.embedding_class import FourierEmbedding, sample_tuples
from infonce_sym.errors import InputError


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
    a = rd.rademacher_experiment(**kw)
    b = rd.rademacher_experiment(**kw)
    for key in ("estimate", "stderr", "lower_estimate", "bound_prop5", "bound_sharpened",
                "bound_lipschitz_route", "B_tau", "C_Phi", "d_Theta", "grid_points", "certificate"):
        assert key in a
    assert a["estimate"] == b["estimate"] and a["lower_estimate"] == b["lower_estimate"]
    assert a["lower_estimate"] <= a["estimate"]
    assert a["estimate"] <= a["bound_sharpened"] <= a["bound_prop5"]
    assert a["d_Theta"] == 2 and a["C_Phi"] == 1.0
    with pytest.raises(InputError, match="^m"):
        rd.rademacher_experiment(m=2, dim_in=2, n=5, k=2, samples=2)
    with pytest.raises(InputError, match="^tau"):
        rd.rademacher_experiment(tau=0)
