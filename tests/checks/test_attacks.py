"""Continuity bounds under random and adversarial attack; tightness witnesses; optimal beta."""
import math

import numpy as np
import pytest

from infonce_sym.checks import attacks as ct

TOL = ct.VIOLATION_TOL


@pytest.mark.parametrize("tau", [0.05, 0.5, 2.0])
def test_random_attack_never_violates(tau):
    r = ct.random_attack(tau, n_configs=6000, seed=1)
    assert r["n_configs"] >= 6000
    for key, v in r["results"].items():
        assert v["worst_ratio"] <= 1 + TOL, (key, v["worst_ratio"])
    # Lemma 5 exact range is nearly attained by random configurations
    assert r["results"]["lemma5_exact"]["worst_ratio"] > 0.7


@pytest.mark.parametrize("name", ["prop4", "prop4_sharp", "lipschitz18", "lemma8"])
def test_adversarial_attack_holds(name):
    r = ct.adversarial_attack(name, 0.3, d=2, k=2, n_starts=2, maxiter=40, seed=3)
    assert r["worst_ratio"] <= 1 + TOL
    assert r["verdict"] == "holds" and r["evaluations"] > 50


def test_anchor_constant_two_is_asymptotically_tight():
    # p = e1, all negatives -e1, a = e2; a' tilted towards -e1: ratio -> k/(k+1) for [2,1,1]
    k, tau, eps = 400, 0.5, 1e-4
    e1, e2 = np.eye(3)[0], np.eye(3)[1]
    A, P, N = e2, e1, np.tile(-e1, (k, 1))
    A2 = (e2 - eps * e1) / np.linalg.norm(e2 - eps * e1)
    actual, b = ct.bound_values(A, P, N, A2, P, N, tau, 1.0)
    r_sharp = float(actual / b["prop4_sharp"])
    r_paper = float(actual / b["prop4"])
    assert 0.99 < r_sharp <= 1 + TOL
    assert abs(r_paper - r_sharp / 2) < 1e-9


def test_lemma7_random():
    for tau, beta in ((0.1, 20.0), (1.0, 2.0), (2.0, 1.0)):
        assert ct.lemma7_attack(tau, beta, n_configs=20000)["worst_ratio"] <= 1 + TOL


def test_loss_matches_definition():
    rng = np.random.default_rng(0)
    A, P, N = (ct._unit(rng.standard_normal(s)) for s in ((3,), (3,), (5, 3)))
    tau = 0.2
    direct = math.log(1 / 5 + sum(math.exp(A @ (N[j] - P) / tau) for j in range(5)) / 5)
    assert abs(ct.infonce_loss_from_embeddings(A, P, N, tau) - direct) < 1e-12


def test_deterministic_with_seed():
    a = ct.random_attack(0.5, n_configs=1200, seed=5)
    b = ct.random_attack(0.5, n_configs=1200, seed=5)
    assert {k: v["worst_ratio"] for k, v in a["results"].items()} == \
        {k: v["worst_ratio"] for k, v in b["results"].items()}


def test_lemma1_attack_never_exceeds_one_and_orders_the_constants():
    """Lemma 1 on the Fourier class: every ratio <= 1; the sharper constant gives the larger ratio on the
    same configurations (L_sharp <= L_proof <= L_paper pointwise)."""
    r = ct.lemma1_attack(0.5, n_pairs=500, ks=(1, 3), n_starts=1, maxiter=30, seed=2)["results"]
    w = {v: r[v]["worst_ratio"] for v in ct.LEMMA1_VARIANTS}
    assert max(w.values()) <= 1 + ct.VIOLATION_TOL
    assert w["lemma1_sharp"] >= w["lemma1_proof"] >= w["lemma1"] > 0
    assert all(r[v]["evaluations"] > 1000 for v in ct.LEMMA1_VARIANTS)
    # the (18) route's constant (registered L1.lip) is nearly attained too: its check has power (0.82 here)
    assert w["lipschitz_route"] > 0.5


def _rows_one_by_one(f, x):
    return np.array([f(row[None])[0] for row in x])


@pytest.mark.parametrize("name", ["prop4_sharp", "lipschitz17_linear", "lemma8"])
def test_batched_ratio_and_gradient_against_one_point_at_a_time(name):
    """The adversarial search's vectorised ratio equals the ratio of each configuration alone, and
    its forward-difference gradient equals scipy's (approx_fprime, same step) of that scalar ratio."""
    from scipy.optimize import approx_fprime
    d, k, tau = 3, 4, 0.2
    f = ct._ratio_fn(name, tau, 2.0 / tau, d, k, [0], ct._group_mask("all", k))
    rng = np.random.default_rng(5)
    dim = 2 * (2 + k) * d + 2 + k + 1
    xs = rng.standard_normal((6, dim))
    xs[:, 2 * (2 + k) * d:-1] = rng.uniform(-6, 0.5, (6, 2 + k))
    values = f(xs)
    assert np.all(values > 0)
    np.testing.assert_allclose(values, _rows_one_by_one(f, xs), rtol=1e-12, atol=0)
    for x in xs[:3]:
        value, grad = ct._value_and_forward_gradient(f, x)
        scalar = lambda t: float(f(t[None])[0])                     # noqa: E731
        assert value == pytest.approx(scalar(x), rel=1e-12)
        reference = approx_fprime(x, scalar, ct.FD_STEP)
        np.testing.assert_allclose(grad, reference, rtol=1e-5, atol=1e-6 * max(1.0, abs(value)))
        assert np.abs(grad).max() > 1e-3                            # a gradient that moves


def test_lipschitz_constants_batched_equal_one_tuple_set_at_a_time():
    from infonce_sym.proofs.statements import lipschitz_constants
    rng = np.random.default_rng(2)
    za, zp, zn = rng.standard_normal((4, 3, 2)), rng.standard_normal((4, 3, 2)), rng.standard_normal((4, 3, 5, 2))
    batched = lipschitz_constants(za, zp, zn, 0.3, 0.7)
    for b in range(4):
        one = lipschitz_constants(za[b], zp[b], zn[b], 0.3, 0.7)
        for key in ("Ra", "Rp", "Nn", "B_tau", "B_max"):
            assert batched[key][b] == pytest.approx(one[key], rel=1e-13)
        for key, value in one["L"].items():
            assert batched["L"][key][b] == pytest.approx(value, rel=1e-13)


def test_lemma1_ratios_one_tuple_per_row_against_the_shared_tuple_route():
    from infonce_sym.models.fourier_class import FourierEmbedding
    model = FourierEmbedding(2, 2, 1.0)
    rng = np.random.default_rng(4)
    B, kk, tau = 5, 3, 0.4
    th = rng.standard_normal((B, model.d_Theta))
    th2 = th + 0.1 * rng.standard_normal((B, model.d_Theta))
    za, zp, zn = rng.standard_normal((B, 2)), rng.standard_normal((B, 2)), rng.standard_normal((B, kk, 2))
    batched = ct._lemma1_ratios_each_own_tuple(model, th, th2, za, zp, zn, tau)
    for b in range(B):
        one = ct._lemma1_ratios(model, th[b:b + 1], th2[b:b + 1], za[b:b + 1], zp[b:b + 1], zn[b:b + 1], tau)
        for v in ct.LEMMA1_VARIANTS:
            assert batched[v][b] == pytest.approx(one[v][0], rel=1e-12)
            assert batched[v][b] > 0


def test_lemma5_exact_range_is_nearly_attained_so_its_check_has_power():
    """Lemma 5's exact range log((1 + k e^{2/tau})/(1 + k e^{-2/tau})) (registered L5.exact), checked as
    L5-exact: random tuples reach more than 0.9 of it at tau = 0.5 (4/tau: under 0.6), never more than it,
    so a statement 10 % smaller would fail (a probe, Dec 2026: it was computed and never checked)."""
    from infonce_sym.checks import attacks
    res = attacks.random_attack(0.5, n_configs=20000, seed=7)["results"]
    assert 0.9 < res["lemma5_exact"]["worst_ratio"] <= 1 + attacks.VIOLATION_TOL
    assert res["lemma5"]["worst_ratio"] < 0.6
