"""The P5 check's verdict reads the registered statements only (P5, P5.sharp): a bound that no registered derivation
gives (the (18) route) is shown beside them and decides nothing."""
import math

from infonce_sym.checks import section4
from infonce_sym.proofs.statement_registry import statement

SIZES = {"rademacher": {"settings": [("gaussian", 4, 0.5)], "n": 10, "samples": 2, "levels": 1}}


def _fake(estimate, stderr, lipschitz_route):
    def experiment(**kw):
        # the registered bounds, evaluated here through the registry as rademacher_experiment does
        values = dict(tau=kw["tau"], d_Theta=2, n=kw["n"], C_Phi=1.0, R=kw["radius"])
        prop5 = float(statement("P5").evaluate("numpy", B_tau=3.0, **values))
        sharp = float(statement("P5.sharp").evaluate("numpy", Ra=1.0, Rp=1.0, Nn=1.0, **values))
        return {"estimate": estimate, "stderr": stderr, "lower_estimate": estimate, "bound_prop5": prop5,
                "bound_sharpened": sharp, "bound_lipschitz_route": lipschitz_route, "B_tau": 3.0}
    return experiment


def test_an_unregistered_bound_below_the_estimate_does_not_decide_the_verdict(monkeypatch):
    monkeypatch.setattr(section4, "rademacher_experiment", _fake(1.0, 0.01, 0.5))
    r = section4.rademacher_check(SIZES)
    p = r.details["points"][0]
    assert r.verdict == "consistent" and p["bound_lipschitz_route"] < 1.0 - 2 * 0.01
    expected = min((p[key] - (1.0 - 2 * 0.01)) / p[key] for key in ("bound_prop5", "bound_sharpened"))
    assert math.isclose(r.margin, expected, rel_tol=1e-12)


def test_a_registered_bound_below_the_estimate_is_a_violation(monkeypatch):
    monkeypatch.setattr(section4, "rademacher_experiment", _fake(1e6, 0.01, 1e9))
    assert section4.rademacher_check(SIZES).verdict == "violated"
