"""Section 4 bounds as SymPy data: lambdified numpy vs mpmath, identities, Dudley integral."""
import math

import mpmath
import numpy as np
import pytest
import sympy as sp

from infonce_sym.proofs import statements as b4
from infonce_sym.errors import InputError

S = b4.SYMBOLS

_VALUES = {"tau": 0.37, "k": 7, "beta": 2.5, "n": 123, "delta": 0.05, "d_Theta": 3, "R": 1.3,
           "C_Phi": 0.7, "B_tau": 4.2, "a": 2.2, "A": 0.6, "Da": 0.11, "Dp": 0.3, "PM": 0.2,
           "Mx": 0.5, "Mv": 0.4, "Ra": 1.4, "Rp": 1.5, "Nn": 2.1, "B_max": 3.3, "L": 5.0, "U": 2.0,
           "epsilon": 0.1, "D2": 25.0, "R_hat": -0.4}


@pytest.mark.parametrize("bid", sorted(b4.BOUNDS))
def test_numpy_and_mpmath_agree(bid):
    args = [_VALUES[s.name] for s in b4.BOUND_ARGS[bid]]
    v_np = float(b4.bound(bid, "numpy")(*args))
    v_mp = b4.bound(bid, "mpmath")(*[mpmath.mpf(x) for x in args])
    assert math.isfinite(v_np)
    assert abs(v_np - float(v_mp)) <= 1e-10 * max(1.0, abs(v_np))


def test_lemma5_exact_range_below_4_over_tau():
    f = b4.bound("lemma5_exact")
    for tau in (0.02, 0.1, 0.5, 1, 3, 30):
        for k in (1, 2, 10, 10**6):
            assert f(k, tau) <= 4 / tau
    # and it tends to 4/tau as k -> infinity at fixed tau: range -> 4/tau (here k e^{-2/tau} >> 1)
    assert abs(f(1e12, 0.5) - 4 / 0.5) < 1e-6


def test_sharpened_prop4_is_smaller_symbolically():
    diff = sp.simplify(b4.BOUNDS["prop4"] - b4.BOUNDS["prop4_sharp"])
    assert sp.simplify(diff - (2 * S["Da"] + 2 * sp.exp(2 / (S["beta"] * S["tau"])) * S["PM"]) / S["tau"]) == 0
    assert b4.CONSTANTS["prop4"] == [4, 1, 3] and b4.CONSTANTS["prop4_sharp"] == [2, 1, 1]


def test_prop5_equals_generic_form_with_lemma1_L():
    e = b4.BOUNDS["prop5_from_L"].subs(S["L"], 4 * sp.E * S["B_tau"] * S["C_Phi"] / S["tau"])
    assert sp.simplify(e - b4.BOUNDS["prop5"]) == 0


def test_antiderivative_of_log_covering_number():
    eps, R, L = S["epsilon"], S["R"], S["L"]
    F = eps * sp.log(1 + 2 * R * L / eps) + 2 * R * L * sp.log(1 + eps / (2 * R * L))
    assert sp.simplify(sp.diff(F, eps) - sp.log(1 + 2 * R * L / eps)) == 0


@pytest.mark.parametrize("L,R,d,U", [(3.0, 1.0, 2, 0.5), (3.0, 1.0, 2, 3.0), (40.0, 2.0, 3, 8.0),
                                      (0.1, 0.5, 1, 0.05)])
def test_dudley_series_equals_quadrature_and_below_cauchy_schwarz(L, R, d, U):
    q = b4.dudley_integral(L, R, d, U, method="quad")
    s = b4.dudley_integral(L, R, d, U, method="series")
    assert abs(q - s) < 1e-10 * abs(q)
    assert float(s) <= b4.dudley_integral_cs(L, R, d, U) + 1e-12


def test_prop5_cauchy_schwarz_route_reproduces_statement():
    for tau, L, R, d, n in ((0.5, 10.0, 1.0, 2, 100), (1.0, 0.3, 1.0, 3, 50), (0.05, 300.0, 2.0, 2, 10)):
        a = tau * R * L / 4
        lhs = b4.rademacher_bound_from_L(L, R, d, n, tau, exact_integral=False)
        assert abs(lhs - b4.prop5_bound(tau, d, n, a)) < 1e-9 * lhs
        ex = b4.rademacher_bound_from_L(L, R, d, n, tau, k_=16, exact_integral=True, exact_range=True)
        assert ex <= lhs


def test_lipschitz_constants_order_and_theorem1_terms():
    rng = np.random.default_rng(0)
    za, zp, zn = rng.standard_normal((30, 2)), rng.standard_normal((30, 2)), rng.standard_normal((30, 8, 2))
    for tau in (0.1, 0.5, 2.0):
        lc = b4.lipschitz_constants(za, zp, zn, tau, 1.0)
        assert lc["L"]["lemma1_sharp"] <= lc["L"]["lemma1_proof"] <= lc["L"]["lemma1"]
        assert abs(lc["B_tau"] - (lc["Ra"] + lc["Rp"] + lc["Nn"])) < 1e-12
    t = b4.theorem1_terms(0.5, 16, 200, 0.1, 2, 1.0, 1.0, 4.0, 25.0, -0.5)
    assert abs(t["finite_k_bias"] - (4 * 25 / (0.5 * 16) + math.log(1 + math.exp(4) / 16))) < 1e-12
    assert abs(t["rhs"] - (-0.5 + t["complexity"] + t["sample_variability"] + t["finite_k_bias"])) < 1e-12
    f = b4.bound("theorem1_rhs")
    args = dict(A=t["A"], D2=25.0, R_hat=-0.5, d_Theta=2, delta=0.1, k=16, n=200, tau=0.5)
    assert abs(f(*[args[s.name] for s in b4.BOUND_ARGS["theorem1_rhs"]]) - t["rhs"]) < 1e-9


def test_input_errors_name_the_parameter():
    with pytest.raises(InputError, match="^id"):
        b4.expression("nope")
    with pytest.raises(InputError, match="^module"):
        b4.bound("prop4", "torch")
    with pytest.raises(InputError, match="^tau"):
        b4.theorem1_terms(-1, 16, 200, 0.1, 2, 1.0, 1.0, 4.0, 25.0)
    with pytest.raises(InputError, match="^delta"):
        b4.theorem1_terms(1, 16, 200, 1.5, 2, 1.0, 1.0, 4.0, 25.0)


def test_displayed_constants_are_read_off_the_registered_statements(monkeypatch):
    """Prop. 4's, its sharpened form's and Lemma 1's sharpened constants as the checks and `embeddings` show
    them come from the registered statements: [4, 1, 3], [2, 1, 1], [2, 1, e]; a statement with other
    constants shows those (a probe, Dec 2026: the checks showed the typed CONSTANTS)."""
    import math
    from infonce_sym.proofs import statement_registry
    assert b4.displayed_constants("prop4") == ([4, 1, 3], "registered statement P4")
    assert b4.displayed_constants("prop4_sharp")[0] == [2, 1, 1]
    assert b4.displayed_constants("lemma1_sharp")[0] == [2, 1, math.e]
    assert b4.displayed_constants("lipschitz18")[1].startswith("typed")
    real = statement_registry.statement

    class Doubled:
        def __init__(self, s):
            self.expr, self.symbols = 2 * s.expr, s.symbols
    monkeypatch.setattr(statement_registry, "statement", lambda rid: Doubled(real(rid)))
    assert b4.displayed_constants("prop4")[0] == [8, 2, 6]


def test_the_sharpened_rademacher_bound_does_not_read_the_caller_s_precision():
    # a process whose mp.dps was 30 gave other last bits than pool workers at 15 (a rademacher sweep compared unequal)
    saved = mpmath.mp.prec
    try:
        values = []
        for dps in (15, 40):
            mpmath.mp.dps = dps
            values.append(b4.rademacher_bound_from_L(3.7, 1.0, 2, 10, 1.0, k_=4, exact_range=True))
    finally:
        mpmath.mp.prec = saved
    assert values[0] == values[1]
    # and it is the Dudley integral (24/sqrt n) int_0^U sqrt(d log(1 + 2RL/eps)) by quadrature at 30 digits
    with mpmath.workdps(30):
        top = math.log((1 + 4 * math.exp(2)) / (1 + 4 * math.exp(-2)))
        U = min(top, 3.7)
        quad = mpmath.quad(lambda e: mpmath.sqrt(2 * mpmath.log(1 + 2 * 3.7 / e)), [0, U / 1000, U])
    assert values[0] == pytest.approx(24 / math.sqrt(10) * float(quad), rel=1e-12)


def test_theorem1_terms_add_up_where_e_to_the_2_over_tau_overflows():
    # at tau = 0.0028 the bias term came out inf while the registered T1 (recomputed) read 43 493 (a probe, Dec 2026);
    # by hand, in the log domain: 4 D2/(k tau) + 2/tau - log k + log1p(k e^{-2/tau})
    tau_, k_, D2 = 0.0028, 64, 2.0
    t = b4.theorem1_terms(tau_, k_, 1000, 0.05, 100, 1.0, 1.0, 3.0, D2)
    by_hand = 4 * D2 / (k_ * tau_) + 2 / tau_ - math.log(k_) + math.log1p(k_ * math.exp(-2 / tau_))
    assert t["finite_k_bias"] == pytest.approx(by_hand, rel=1e-13)
    parts = t["complexity"] + t["sample_variability"] + t["finite_k_bias"] + t["empirical_risk"]
    assert t["rhs"] == pytest.approx(parts, rel=1e-12)
