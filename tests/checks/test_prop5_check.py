"""The P5 check's verdict reads the registered statements (P5, P5.sharp, P5.lip), each evaluated through the registry;
the (18) route's bound is the registered P5.lip, equal to the expression the comparison used before it was proved."""
import math

import numpy as np
import pytest

from infonce_sym.checks import section4
from infonce_sym.proofs.statement_registry import statement
from infonce_sym.proofs.statements import evaluate, lipschitz_constants

SIZES = {"rademacher": {"settings": [("gaussian", 4, 0.5)], "n": 10, "samples": 2, "levels": 1}}


def _fake(estimate, stderr, B_max):
    def experiment(**kw):
        values = dict(tau=kw["tau"], d_Theta=2, n=kw["n"], C_Phi=1.0, R=kw["radius"])
        prop5 = float(statement("P5").evaluate("numpy", B_tau=3.0, **values))
        sharp = float(statement("P5.sharp").evaluate("numpy", Ra=1.0, Rp=1.0, Nn=1.0, **values))
        lip = float(statement("P5.lip").evaluate("numpy", B_max=B_max, **values))
        return {"estimate": estimate, "stderr": stderr, "lower_estimate": estimate, "bound_prop5": prop5,
                "bound_sharpened": sharp, "bound_lipschitz_route": lip, "B_tau": 3.0}
    return experiment


def test_the_margin_is_the_smallest_over_the_three_registered_bounds(monkeypatch):
    monkeypatch.setattr(section4, "rademacher_experiment", _fake(1.0, 0.01, 0.01))
    r = section4.rademacher_check(SIZES)
    p = r.details["points"][0]
    expected = min((p[key] - (1.0 - 2 * 0.01)) / p[key] for key in ("bound_prop5", "bound_sharpened", "bound_lipschitz_route"))
    assert math.isclose(r.margin, expected, rel_tol=1e-12)
    # B_max = 0.01 makes the (18) route's bound the smallest, below the estimate: it decides the verdict
    assert p["bound_lipschitz_route"] < 1.0 - 2 * 0.01 < min(p["bound_prop5"], p["bound_sharpened"])
    assert r.verdict == "violated"


@pytest.mark.parametrize("tau, B_max", [(0.05, 0.3), (0.5, 1.7), (2.0, 40.0), (1.0, 1e-3)])
def test_p5_lip_is_the_comparison_s_expression_and_l1_lip_its_constant(tau, B_max):
    values = dict(tau=tau, d_Theta=3, n=50, R=2.0, C_Phi=1.5, B_max=B_max)
    registered = float(statement("P5.lip").evaluate("numpy", **values))
    assert math.isclose(registered, float(evaluate("prop5_lipschitz_route", **values)), rel_tol=1e-14)
    # Prop. 5's min form, typed from the paper with a = tau R L/4, L = sqrt(6) C_Phi B_max/tau
    L = math.sqrt(6) * 1.5 * B_max / tau
    a = tau * 2.0 * L / 4
    by_hand = 96 / tau * math.sqrt(3 / 50) * min(a * math.sqrt(math.log(3) + 1), math.sqrt(math.log(1 + 2 * a) + 1))
    assert math.isclose(registered, by_hand, rel_tol=1e-12)


def test_l1_lip_constant_from_input_norms():
    rng = np.random.default_rng(0)
    za, zp, zn = rng.normal(size=(7, 2)), rng.normal(size=(7, 2)), rng.normal(size=(7, 4, 2))
    lc = lipschitz_constants(za, zp, zn, 0.3, 1.2)
    # B_max = (n^-1 sum_i (|z_i^a|^2 + |z_i^+|^2 + max_j |z_ij^-|^2))^{1/2}, computed here row by row
    bmax = math.sqrt(sum(za[i] @ za[i] + zp[i] @ zp[i] + max(zn[i, j] @ zn[i, j] for j in range(4)) for i in range(7)) / 7)
    assert math.isclose(lc["B_max"], bmax, rel_tol=1e-12)
    assert math.isclose(lc["L"]["lipschitz_route"], math.sqrt(6) / 0.3 * 1.2 * bmax, rel_tol=1e-12)
