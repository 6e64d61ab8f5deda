"""Exact values against independent routes: brute-force enumeration, 2-D quadrature, closed forms."""
import itertools

import mpmath
import pytest

from infonce_sym.errors import InputError
from infonce_sym.exact import exact_values
from infonce_sym.models import FiniteModel, SphereModel, nonreversible_model

mp = mpmath.mp


def _brute_force(model, tau, k):
    """R, R~ and the search CE by enumerating every (anchor, positive, k negatives)."""
    with mpmath.workdps(40):
        pi, M, _ = model.exact_arrays(mp)
        G = model.gram(mp)
        tau = mp.mpf(tau)
        n = len(pi)
        R = Rt = S = mp.zero
        for i in range(n):
            for tup in itertools.product(range(n), repeat=k):
                pr = pi[i]
                for l in tup:
                    pr *= pi[l]
                sums = mp.fsum(mp.exp(G[i][l] / tau) for l in tup)
                for j in range(n):
                    R += pr * M[i][j] * mp.log((mp.exp(G[i][j] / tau) + sums) / k) - pr * M[i][j] * G[i][j] / tau
                    Rt += pr * M[i][j] * (mp.log(sums / k) - G[i][j] / tau)
                w = [M[i][l] / pi[l] for l in tup]
                S += pr * (-mp.fsum(wi * G[i][l] for wi, l in zip(w, tup)) / mp.fsum(w) / tau + mp.log(sums / k))
        return R, Rt, S


@pytest.mark.parametrize("k", [1, 2, 4])
def test_finite_model_against_enumeration(k):
    model = nonreversible_model()
    R, Rt, S = _brute_force(model, "0.5", k)
    info = exact_values(model, 0.5, k, digits=20)
    dcl = exact_values(model, 0.5, k, digits=20, loss="dcl")
    mp.dps = 40
    assert abs(info.values["risk"] - R) < 1e-20 * abs(R)
    assert abs(dcl.values["risk"] - Rt) < 1e-20 * abs(Rt)
    assert abs(info.values["search_cross_entropy"] - S) < 1e-20 * max(abs(S), 1)
    # the directly integrated gaps agree with differences of the values
    gap = info.values["cross_entropy_limit"] - R
    assert abs(info.gaps["cross_entropy_limit_minus_risk"] - gap) < 1e-20
    assert abs(info.gaps["search_cross_entropy_minus_risk"] - (S - R)) < 1e-20
    assert abs(dcl.gaps["search_cross_entropy_minus_risk"] - (S - Rt)) < 1e-20
    mp.dps = 15


def test_sphere_k2_against_two_dimensional_quadrature():
    """d = 3: s uniform on [-1, 1], w = e^{kappa s}/Z_3(kappa); R~ and search CE at k = 2 by 2-D quadrature."""
    tau, kappa = mp.mpf("0.5"), mp.mpf(2)
    model = SphereModel(3, 2.0)
    ev = exact_values(model, 0.5, 2, digits=15, loss="dcl")
    with mpmath.workdps(25):
        mean_p = 1 / mp.tanh(kappa) - 1 / kappa
        log_mean = mp.quad(lambda a, b: mp.log((mp.exp(a / tau) + mp.exp(b / tau)) / 2) / 4, [-1, 0, 1], [-1, 0, 1])
        ratio = mp.quad(lambda a, b: (mp.exp(kappa * a) * a + mp.exp(kappa * b) * b)
                        / (mp.exp(kappa * a) + mp.exp(kappa * b)) / 4, [-1, 0, 1], [-1, 0, 1])
        dcl_risk = -mean_p / tau + log_mean
        search = -ratio / tau + log_mean
    assert abs(ev.values["risk"] - dcl_risk) < 1e-13
    assert abs(ev.values["search_cross_entropy"] - search) < 1e-13


def test_sphere_k1_infonce_against_quadrature_and_closed_forms():
    tau, kappa = mp.mpf(1), mp.mpf(3)
    model = SphereModel(3, 3.0)
    ev = exact_values(model, 1.0, 1, digits=15)
    with mpmath.workdps(25):
        density_p = lambda p: kappa * mp.exp(kappa * p) / (2 * mp.sinh(kappa))
        risk = mp.quad(lambda p, s: density_p(p) / 2 * mp.log(1 + mp.exp((s - p) / tau)), [-1, 0, 1], [-1, 0, 1])
        limit = -(1 / mp.tanh(kappa) - 1 / kappa) / tau + mp.log(mp.sinh(1 / tau) * tau)
        d2 = (mp.sinh(2 * kappa) / (2 * kappa)) / (mp.sinh(kappa) / kappa) ** 2
    assert abs(ev.values["risk"] - risk) < 1e-13
    assert abs(ev.values["cross_entropy_limit"] - limit) < 1e-14
    assert abs(ev.values["density_ratio_second_moment"] - d2) < 1e-14
    assert ev.values["search_cross_entropy"] == 0      # M_hat_1 = Q_hat_1


def test_large_k_and_small_tau_are_finite_and_precise():
    ev = exact_values(SphereModel(16, 8.0), 0.05, 10**9, digits=12)
    gap = ev.gaps["cross_entropy_limit_minus_risk"]
    assert ev.agreement_digits >= 13
    # Prop. 1 bounds hold and the gap is O(1/k)
    assert -mp.log(1 + mp.exp(40) / 10**9) <= gap <= (mp.exp(40) - 1) ** 2 / (8 * 10**9)
    assert abs(gap) < 1e-3


def test_non_dominated_model_reports_undefined():
    model = FiniteModel([0.5, 0.5, 0.0], [[0.5, 0.25, 0.25], [0.5, 0.5, 0.0], [1.0, 0.0, 0.0]],
                        [[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]])
    ev = exact_values(model, 0.5, 3, digits=10)
    assert "search_cross_entropy" in ev.undefined and "pi(2) = 0" in ev.undefined["search_cross_entropy"]
    assert "density_ratio_second_moment" in ev.undefined
    assert ev.as_strings()["search_cross_entropy"] is None


@pytest.mark.parametrize("kwargs,param", [
    ({"tau": 0}, "tau"), ({"tau": float("nan")}, "tau"), ({"k": 0}, "k"), ({"k": 2.5}, "k"),
    ({"digits": 4}, "digits"), ({"digits": 1001}, "digits"), ({"loss": "nce"}, "loss")])
def test_bad_input_names_the_parameter(kwargs, param):
    args = {"tau": 0.5, "k": 2, "digits": 10}
    args.update(kwargs)
    loss = args.pop("loss", "infonce")
    with pytest.raises(InputError) as err:
        exact_values(SphereModel(3, 1.0), args["tau"], args["k"], digits=args["digits"], loss=loss)
    assert err.value.parameter == param


def test_high_dimensional_sphere_passes_its_precision_check():
    """d = 128 concentrates s within ~1/sqrt(d); the rule must resolve it (this once gave 11 digits)."""
    ev = exact_values(SphereModel(128, 16.0), 0.5, 10, digits=15)
    assert ev.agreement_digits >= 15
    gap = ev.gaps["cross_entropy_limit_minus_risk"]
    assert -mp.log(1 + mp.e ** 4 / 10) <= gap <= (mp.e ** 4 - 1) ** 2 / 80
