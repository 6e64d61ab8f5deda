"""The registry: every result once by id; every statement evaluated in three number systems that
must agree (numpy vs mpmath to rounding, the mpmath value inside the interval), at its sample
point and at random points; and the numbers the checks use are these statements."""
import math

import mpmath
import numpy as np
import pytest
import sympy as sp

from infonce_sym.proofs import all_derivations, registry, statement
from infonce_sym.proofs import statements as B4
from infonce_sym.errors import InputError
from infonce_sym.proofs.statement_registry import ALIASES, derivation


@pytest.fixture(autouse=True)
def _mpmath_precision_restored():
    """A test here that sets mp.dps leaves it as it found it (30 digits left behind changed a later rademacher sweep
    in the same worker, whose pool workers ran at 15)."""
    saved = mpmath.mp.prec
    yield
    mpmath.mp.prec = saved

# statements that are not a number once their symbols are: an index sum, a random family, an
# expectation, an integral, or a sum over the coordinates l = 1..d of R^d stays in them (checked by
# their own attacks and the concrete-size spot checks of continuity.py, not pointwise); P5.chaining(.M) hold the
# integral of the abstract covering numbers (checked numerically in test_section4_derivations)
OPAQUE = {"A1.32", "L6", "L6.second", "L6.path", "L7", "EXP.infonce", "EXP.dcl", "EXP.search-dcl",
          "P5.chaining.M", "P5.chaining"}


def test_ids_are_unique_and_cover_every_derivation():
    ids = registry()
    assert len(ids) == len(set(ids))
    assert [d.id for d in all_derivations()] == ids[: len(all_derivations())]
    assert set(ALIASES) <= set(ids)


def test_a_statement_is_the_derivations_own_expression():
    for d in all_derivations():
        if d.id.startswith("L3"):          # E_pi r^2 is named D2 in the statement
            continue
        assert statement(d.id).expr == sp.sympify(d.statement), d.id


@pytest.mark.parametrize("id", [i for i in registry() if i not in OPAQUE])
def test_three_evaluators_agree(id):
    s = statement(id)
    assert s.evaluable
    for seed in (None, 0, 1, 2):
        p = s.sample_point(seed)
        assert set(p) == {x.name for x in s.symbols}
        v_np = float(s.evaluate("numpy", **p))
        with mpmath.workdps(40):
            v_mp = s.evaluate("mpmath", **p)
            v_iv = s.evaluate("iv", **p)
            assert v_iv.a <= v_mp <= v_iv.b, (id, p)
            assert float(v_iv.delta) <= 1e-25 * max(1.0, abs(float(v_mp))), (id, p)
        assert math.isfinite(v_np), (id, p)
        assert abs(v_np - float(v_mp)) <= 1e-12 * max(1.0, abs(v_np)), (id, p)


def test_opaque_statements_are_exactly_the_known_ones():
    assert {i for i in registry() if not statement(i).evaluable} == OPAQUE
    with pytest.raises(TypeError):
        statement("L7").evaluate("numpy", beta=1, k=2, tau=1)


def test_values_against_hand_derived_forms():
    """Independent route: the paper's displays typed in this test only, at exact points."""
    e = math.e
    assert abs(statement("P1.upper").evaluate("numpy", k=7, tau=0.5) - (e**4 - 1) ** 2 / 56) < 1e-12
    assert abs(statement("P2").evaluate("numpy", D2=3.0, k=10, tau=1.0) - (1.2 + math.log1p(e**2 / 10))) < 1e-12
    assert abs(statement("L5.exact").evaluate("numpy", k=4, tau=1.0) - math.log((1 + 4 * e**2) / (1 + 4 / e**2))) < 1e-12
    assert abs(statement("P4.sharp").evaluate("numpy", Da=0.1, Dp=0.2, PM=0.3, beta=2.0, tau=0.5)
               - (0.2 + 0.2 + e**2 * 0.3) / 0.5) < 1e-12
    # Prop. 5 as stated, a = e R B C = 0.5 (the first branch is the smaller)
    a = 0.5
    want = 96 / 0.5 * math.sqrt(2 / 100) * min(a * math.sqrt(math.log(3) + 1), math.sqrt(math.log1p(2 * a) + 1))
    got = statement("P5").evaluate("numpy", tau=0.5, d_Theta=2, n=100, B_tau=a / e, C_Phi=1.0, R=1.0)
    assert abs(got - want) < 1e-9 * want


def test_the_cases_of_an_alias_prove_one_statement():
    for id, cases in ALIASES.items():
        s = statement(id)
        assert s.proved_by == cases
        for c in cases:
            assert sp.simplify(statement(c).expr - s.expr) == 0


def test_evaluate_reads_decimal_strings_exactly():
    with mpmath.workdps(50):
        v = statement("L4").evaluate("mpmath", tau="0.1")           # 2/tau
        assert v == mpmath.mpf(20)
        w = statement("L4").evaluate("iv", tau="0.1")
        assert w.a <= 20 <= w.b


def test_the_float_functions_are_the_statements():
    """prop5_bound, theorem1_terms, continuity_bound evaluate the registered statements."""
    t = B4.theorem1_terms(0.5, 16, 200, 0.1, 2, 1.0, 1.0, 4.0, 25.0, -0.5)
    rhs = statement("T1").evaluate("numpy", tau=0.5, k=16, n=200, delta=0.1, d_Theta=2, A=math.e * 4.0,
                                   D2=25.0, R_hat=-0.5)
    assert abs(t["rhs"] - rhs) < 1e-12 * abs(rhs)
    assert abs(t["rhs"] - (t["empirical_risk"] + t["complexity"] + t["sample_variability"] + t["finite_k_bias"])) < 1e-9
    Da, Dp, PM = np.array([0.1, 0.3]), np.array([0.2, 0.0]), np.array([0.5, 1.0])
    np.testing.assert_allclose(B4.continuity_bound("prop4", 0.25, Da, Dp, PM, 8.0),
                               (4 * Da + Dp + 3 * math.e * PM) / 0.25, rtol=1e-14)


def test_unknown_ids_and_contexts_are_refused():
    from infonce_sym.errors import InputError
    with pytest.raises(InputError):
        statement("no-such-result")
    with pytest.raises(InputError):
        statement("L4").evaluate("torch", tau=1)
    with pytest.raises(InputError):
        statement("P1.upper").evaluate("numpy", tau=1)


def test_the_package_functions_survive_the_submodule_import():
    """``proofs.registry`` stays the function after every proofs submodule is imported."""
    import importlib
    import pkgutil

    import infonce_sym.proofs as proofs
    for m in pkgutil.iter_modules(proofs.__path__):
        importlib.import_module(f"infonce_sym.proofs.{m.name}")
    assert callable(proofs.registry) and callable(proofs.statement) and callable(proofs.derivation)
    assert proofs.registry()[0] == registry()[0]


@pytest.mark.parametrize("id,values", [
    ("P1.lower", {"k": 10 ** 12, "tau": 1}),         # -log(1 + e^2/k): log1p
    ("P1.upper", {"k": 10 ** 12, "tau": 100}),       # (e^{2/tau} - 1)^2/(8k): expm1 at 2/tau = 0.02
    ("P2", {"D2": 1, "k": 10 ** 15, "tau": 2}),
])
def test_float_evaluation_keeps_its_digits_where_the_log_argument_is_near_1(id, values):
    """The numpy evaluator (lambdify of ``chain.numeric_form``) against mpmath at 50 digits of the same
    expression: within 4 ulp, where log(1 + x) and exp(x) - 1 evaluated as written lost 5 digits at
    k = 10^12, tau = 1 (a probe of `embeddings`, Dec 2026)."""
    import mpmath
    from infonce_sym.proofs.chain import numeric_form
    s = statement(id)
    assert numeric_form(s.expr) != s.expr
    got = s.evaluate("numpy", **{n: float(v) for n, v in values.items()})
    with mpmath.workdps(50):
        want = s.evaluate("mpmath", **values)
        assert abs(got / want - 1) < 1e-15, (got, want)


def test_a_statement_is_not_evaluated_outside_its_declared_domain():
    """P1.upper at k = -0.5, tau = -0.5 returned -0.241 (a probe, Dec 2026); its boundary is allowed as a limit (A.2's
    bound at a = 0), an integer k must be one.  Independent value: (e^{2/tau} - 1)^2/(8k) at k = 10, tau = 1/2."""
    from infonce_sym.errors import InputError
    upper = statement("P1.upper")
    assert abs(upper.evaluate("numpy", k=10, tau=0.5) - (math.exp(4) - 1) ** 2 / 80) < 1e-12
    for bad in ({"k": -0.5, "tau": 0.5}, {"k": 10, "tau": -0.5}, {"k": 2.5, "tau": 0.5}):
        with pytest.raises(InputError):
            upper.evaluate("numpy", **bad)
    assert statement("A2.liminf").evaluate("numpy", a=0, tau=0.4) > 0


def test_every_statement_carries_its_verdict_and_what_its_names_mean():
    """statement() dropped the chain's "where" definitions and never looked at the verdict (a probe, Dec 2026):
    every registered statement is proved (or certified), and a statement proved by cases means one thing by each
    name in every case (Nn of Lemma 1 was defined per temperature case)."""
    from infonce_sym.proofs.chain import statement_definitions
    for id_ in registry():
        s = statement(id_)
        assert s.verdict in ("proved", "certified"), (id_, s.verdict)
        names = {sym for sym, _ in s.definitions}
        assert names == {sym for i in s.proved_by for sym, _ in statement_definitions(derivation(i))}
        assert all(len(vals) == 1 for _, vals in s.definitions), id_
    assert "Nn" in [str(sym) for sym, _ in statement("L1").definitions]


def test_cases_that_give_a_shared_name_two_meanings_are_refused(monkeypatch):
    # Nn := the tau < 1 form in one case and the tau >= 1 form in the other: "L1" would mean two statements
    from infonce_sym.proofs import chain
    from infonce_sym.proofs.statement_registry import Statement
    nn = sp.Symbol("Nn")
    monkeypatch.setattr(chain, "statement_definitions",
                        lambda d: [(nn, [sp.Integer(1) if d.id.endswith("lt-1") else sp.Integer(2)])])
    s = statement("L1")
    fresh = Statement(**{f: getattr(s, f) for f in ("id", "paper_ref", "title", "relation", "quantity", "expr",
                                                     "assumptions", "proved_by", "domain")})
    with pytest.raises(ValueError, match="define Nn differently"):
        fresh.definitions


def test_float64_overflow_on_the_way_is_recomputed_and_only_a_value_beyond_doubles_is_inf():
    """e^{2/tau} overflowed inside log1p at tau = 0.0028: numpy said inf where the value is 712 (a probe, Dec 2026).
    The reference is written by hand in the log domain: log(1 + e^{2/tau}/k) = 2/tau - log k + log1p(k e^{-2/tau})."""
    import warnings
    mpmath.mp.dps = 30
    for tau_, k_ in ((0.0028, 10), (0.001, 10), (0.002, 10**9)):
        t_ = mpmath.mpf(tau_)
        by_hand = 2 / t_ - mpmath.log(k_) + mpmath.log1p(k_ * mpmath.exp(-2 / t_))
        with warnings.catch_warnings():
            warnings.simplefilter("error")                      # no RuntimeWarning reaches the caller either
            got = statement("P2.28").evaluate("numpy", k=k_, tau=tau_)
            lower = statement("P1.lower").evaluate("numpy", k=np.array([k_, k_]), tau=np.array([tau_, 1.0]))
        assert abs(got - float(by_hand)) <= 1e-14 * float(by_hand)
        assert abs(lower[0] + float(by_hand)) <= 1e-14 * float(by_hand) and np.isfinite(lower[1])
    # 4 D2/(k tau) with D2 = 1e308 overflowed in 4 D2 first: the value is 4e307 + log(1 + e^2/10)
    assert statement("P2").evaluate("numpy", D2=1e308, k=10, tau=1.0) == pytest.approx(4e307, rel=1e-15)
    # (e^{2/tau} - 1)^2/(8k) at tau = 0.004 is about e^{1000}/80, beyond the largest double: inf is its rounding
    assert float(statement("P1.upper").evaluate("mpmath", k=10, tau="0.004")) == math.inf
    assert statement("P1.upper").evaluate("numpy", k=10, tau=0.004) == math.inf
    # a float32 tau is read as the float64 of its value, not computed in float32 (which overflowed at 0.01)
    t32 = np.float32(0.01)
    exact = mpmath.expm1(2 / mpmath.mpf(float(t32))) ** 2 / 80
    assert statement("P1.upper").evaluate("numpy", k=10, tau=t32) == pytest.approx(float(exact), rel=1e-13)


@pytest.mark.parametrize("id_, context, values, parameter", [
    ("A2.13", "numpy", {"D2": 1, "tau": 3}, "tau"),               # e^{1/tau} > 2 fails: a negative bound on |.|
    ("A2.ratio", "mpmath", {"a": 2, "tau": 0.5}, "a"),            # a < 1 fails
    ("P3", "mpmath", {"R_hat": 0, "Rad": 0.1, "delta": 1.5, "n": 10, "tau": 1}, "delta"),
    ("A2.13", "iv", {"D2": 1, "tau": (0.5, 3)}, "tau"),           # the assumption on all of the interval
    ("P1.upper", "numpy", {"k": 0, "tau": 1}, "k"),               # a positive integer starts at 1
    ("P1.upper", "mpmath", {"k": 1, "tau": 0}, "tau"),            # the end of the half-line: no value there
    ("P1.upper", "numpy", {"k": np.array([2.5, 3]), "tau": 1}, "k"),
    ("P1.upper", "numpy", {"k": 1, "tau": float("nan")}, "tau"),
    ("P1.upper", "numpy", {"k": float("inf"), "tau": 1}, "k"),
    ("P1.upper", "numpy", {"k": 1, "tau": 1 + 1j}, "tau"),
    ("P1.upper", "numpy", {"k": None, "tau": 1}, "k"),
    ("P1.upper", "numpy", {"k": True, "tau": 1}, "k"),
    ("P1.upper", "mpmath", {"k": "abc", "tau": 1}, "k"),
    ("P1.upper", "iv", {"k": 10, "tau": (2, 1)}, "tau"),
    ("P1.upper", "numpy", {"k": 1, "tau": 1, "extra": 5}, "extra"),
    ("P1.upper", "numpy", {"k": 10 ** 400, "tau": 1}, "k"),
])
def test_a_value_outside_the_statement_s_domain_is_refused_naming_it(id_, context, values, parameter):
    with pytest.raises(InputError) as err:
        statement(id_).evaluate(context, **values)
    assert err.value.parameter == parameter and "\n" not in str(err.value)


def test_values_inside_the_domain_are_read_in_every_form():
    # a decimal string in numpy, a list, a huge integer in mpmath: the same value as by hand
    by_hand = math.expm1(2 / 0.1) ** 2 / 80
    s = statement("P1.upper")
    assert s.evaluate("numpy", k=10, tau="0.1") == pytest.approx(by_hand, rel=1e-14)
    assert s.evaluate("numpy", k=[10, 20], tau=0.1)[1] == pytest.approx(by_hand / 2, rel=1e-14)
    mpmath.mp.dps = 30
    assert s.evaluate("mpmath", k=10 ** 400, tau=1) == pytest.approx(float(mpmath.expm1(2) ** 2 / 8 * mpmath.mpf(10) ** -400), rel=1e-14)


def test_the_validation_keeps_every_legitimate_form_of_a_value():
    """Regressions of the input validation, each found by a probe (Dec 2026): a 0-d array (continuity_bound passes
    one), SymPy numbers, Decimal and Fraction, an mpf in numpy and a numpy integer in mpmath and iv; the end of a
    half-line (delta = 0: P3's bound is +inf there, log(2/delta) -> oo); a decimal string judged at the caller's
    precision (delta = 0.99...9 with 38 nines passes delta < 1); an array entry refused in float64 judged again in
    mpmath (W = b - a cancelled to 0 at tau = 1e17).  Values by hand: (e^{2/tau} - 1)^2/(8k)."""
    from decimal import Decimal
    from fractions import Fraction
    by_hand = math.expm1(4) ** 2 / 80                          # P1.upper at k = 10, tau = 1/2
    s = statement("P1.upper")
    for k_, tau_ in ((10, sp.Rational(1, 2)), (sp.Integer(10), sp.Float(0.5)), (10, Decimal("0.5")),
                     (10, Fraction(1, 2)), (np.int64(10), mpmath.mpf("0.5")), (np.array(10), np.array(0.5))):
        for context in ("numpy", "mpmath"):
            assert float(s.evaluate(context, k=k_, tau=tau_)) == pytest.approx(by_hand, rel=1e-14), (k_, tau_, context)
    with mpmath.workdps(40):
        exact = mpmath.expm1(4) ** 2 / 80
    for k_ in (np.int64(10), 10):
        box = s.evaluate("iv", k=k_, tau="0.5")
        assert box.a <= exact <= box.b
    p3 = dict(tau=0.5, n=10, R_hat=0, Rad=0.1)
    assert statement("P3").evaluate("mpmath", delta=0, **p3) == mpmath.inf
    assert list(statement("P3").evaluate("numpy", delta=np.array([0.0, 0.5]), **p3))[0] == math.inf
    saved = mpmath.mp.dps
    try:
        mpmath.mp.dps = 50
        near = statement("P3").evaluate("mpmath", delta="0." + "9" * 38, **p3)
        assert near == statement("P3").evaluate("mpmath", delta=mpmath.mpf("0." + "9" * 38), **p3)
    finally:
        mpmath.mp.dps = saved
    t1 = dict(A=1, D2=1, R_hat=0, d_Theta=2, delta=0.1, k=10, n=100)
    both = statement("T1").evaluate("numpy", tau=np.array([0.5, 1e17]), **t1)
    assert both[1] == pytest.approx(float(statement("T1").evaluate("mpmath", tau=1e17, **t1)), rel=1e-12)
    with pytest.raises(InputError) as err:                     # names the symbol at its end, not R_hat = 0
        statement("P3").evaluate("mpmath", tau=0, delta=0.1, n=10, R_hat=0, Rad=0.1)
    assert err.value.parameter == "tau" and "division by 0" in str(err.value)


def test_the_validation_second_round():
    """A second probe (Dec 2026): float32 skipped the domain check in mpmath (k = float32(-2.5) gave a number); the
    overflow recomputation at a fixed 30 digits gave 0.0 where cancelling terms of 1e400 leave -4e300; W = b - a > 0
    (4e-40 at tau = 1e40) and a decimal string of 40 nines below 1 were refused at a fixed 35 digits, and interval ends
    at iv's 53 bits; -0.0 was read as the end from the wrong side; one tau = 0 in an array refused the whole array.
    References: the statement's own mpmath form at 800 digits; by hand where it is short."""
    with pytest.raises(InputError) as err:
        statement("P1.upper").evaluate("mpmath", k=np.float32(-2.5), tau=1)
    assert err.value.parameter == "k"
    exp_lower = statement("EXP.dcl.lower")
    from infonce_sym.proofs.statement_registry import _lambdified
    with mpmath.workdps(800):
        reference = float(_lambdified("EXP.dcl.lower", "mpmath")(1, mpmath.mpf(1e200), mpmath.mpf(1e100), 1, 0))
    assert exp_lower.evaluate("numpy", k=1, m2=1e200, m3=1e100, m4=1.0, m5=0.0) == pytest.approx(reference, rel=1e-15)
    t1 = dict(A=1, D2=1, R_hat=0, d_Theta=1, delta=0.5, k=1, n=10)
    assert statement("T1").evaluate("numpy", tau=1e40, **t1) == pytest.approx(math.log(2), rel=1e-12)
    assert statement("P3").evaluate("mpmath", R_hat=0, Rad=0, n=10, tau=1, delta="0." + "9" * 40) > 0
    box = statement("P3").evaluate("iv", R_hat=0, Rad=0, n=10, tau=1, delta=("0.5", "0.99999999999999999999"))
    with mpmath.workdps(40):                               # P3 falls in delta: its ends at the interval's ends
        ends = [statement("P3").evaluate("mpmath", R_hat=0, Rad=0, n=10, tau=1, delta=d_)
                for d_ in ("0.5", "0.99999999999999999999")]
    assert box.a <= min(ends) and max(ends) <= box.b
    assert statement("P1.upper").evaluate("numpy", k=8, tau=-0.0) == math.inf
    both = statement("P1.upper").evaluate("numpy", k=10, tau=np.array([0.5, 0.0]))
    assert both[1] == math.inf and both[0] == pytest.approx(math.expm1(4) ** 2 / 80, rel=1e-14)
