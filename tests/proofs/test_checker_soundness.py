"""False toy statements that the checker once labelled proved (a probe, Dec 2026): each must now be
refused (verdict failed, or conditional with the unproved fact counted).  Each case says why its
statement is false at a concrete point."""
import pytest
import sympy as sp

from infonce_sym.proofs import lemmas as L
from infonce_sym.proofs.asymptotics import LimitCheck
from infonce_sym.proofs.chain import (Assumption, ByCases, ByLemma, Derivation, Ex, ExactInstance, Identity, Lemma,
                                      NonNegative, Step, Var, eq, ge, le, random_symbol, render_markdown)
from infonce_sym.proofs.continuity import SIZES, OnUnitInterval, SumIdentity

x, y = sp.Symbol("x", real=True), sp.Symbol("y", real=True)
j = sp.Symbol("j", integer=True)
u = sp.Symbol("u")


def _one(name, quantity, relation, statement, claim, check, **kw):
    return Derivation(name, "", "", quantity, relation, statement, [Step("a", "", claim, "", check)], **kw)


def backwards_empty_sum():
    # Sum_{j=1}^{-1} 1 is -1 in SymPy's (Karr's) convention: no sum of nonnegative terms
    s = sp.Sum(1, (j, 1, -1))
    return Derivation("H1", "", "", sp.Integer(-1), "ge", 0,
                      [Step("a", "", eq(-1, s), "", Identity()), Step("b", "", ge(s, 0), "", NonNegative())])


def hypotheses_substituted_in_turn():
    # s -> t -> x - 1 one after another checked only t >= 0 (x = 0 is a counterexample)
    s, t = sp.Symbol("s", nonnegative=True), sp.Symbol("t", nonnegative=True)
    return _one("H2", x, "ge", 1, ge(x, 1), NonNegative([s], {s: t, t: x - 1}, by={s: NonNegative()}))


def log_of_a_quotient_of_unknown_sign():
    # |log(1/y) + log y| = 2 pi at y = -1
    yn = sp.Symbol("y", real=True, nonzero=True)
    e = sp.Abs(sp.log(1 / yn) + sp.log(yn))
    return _one("H3", e, "eq", 0, eq(e, 0), Identity())


def context_with_a_pole():
    # -1/u increases on each half-line, not across 0: -1 <= 1 does not give 1 <= -1/3... nor anything
    un = sp.Symbol("u", real=True, nonzero=True)
    return _one("H4", 1, "le", sp.Rational(-1, 3), le(1, sp.Rational(-1, 3)),
                ByLemma(L.le_abs_difference(), {"x": -1, "y": 1}, context=sp.Lambda(un, -1 / un)))


def context_with_a_jump():
    ur = sp.Symbol("u", real=True)
    return _one("H4b", -1, "le", -2, le(-1, -2),
                ByLemma(L.le_abs_difference(), {"x": -1, "y": 1},
                        context=sp.Lambda(ur, sp.Piecewise((ur, ur < 0), (ur - 5, True)))))


def function_instance_as_python_callable():
    f = sp.Function("f", nonnegative=True)
    f0 = _one("F0", f(x), "ge", 0, ge(f(x), 0), NonNegative())
    return _one("H5", -1 - x ** 2, "ge", 0, ge(-1 - x ** 2, 0),
                ByLemma(Lemma.from_derivation(f0, {"f": f}), {"f": lambda z: -1 - z ** 2}))


def prime_declaration():
    p = sp.Symbol("p", prime=True)
    p0 = _one("P0", p, "ge", 2, ge(p, 2), NonNegative())
    return _one("H6", 1, "ge", 2, ge(1, 2), ByLemma(Lemma.from_derivation(p0, {"p": p}), {"p": 1}))


def limit_with_a_parameter():
    # at a = 0 every term is 0
    n, a = sp.Symbol("n", positive=True, integer=True), sp.Symbol("a", real=True)
    lim = sp.Limit(sp.Abs(a) / (sp.Abs(a) + 1 / n), n, sp.oo)
    return _one("H7", lim, "eq", 1, eq(lim, 1), LimitCheck())


def unit_interval_outside_an_integral():
    c = sp.Symbol("c", real=True)
    s1 = sp.Symbol("s1", nonnegative=True)
    return _one("H8", c, "ge", 0, ge(c, 0), OnUnitInterval(NonNegative([s1], {s1: c}), var=c))


def exact_instance_context_off_its_domain():
    v = sp.Symbol("v", positive=True)
    return _one("H9", 9, "le", 1, le(9, 1),
                ExactInstance(L.le_abs_difference(), {"x": -3, "y": -1}, context=sp.Lambda(v, v ** 2)))


def cases_that_are_not_real():
    a1, a2 = sp.Symbol("a1", nonnegative=True), sp.Symbol("a2", nonnegative=True)
    return _one("H10", x, "ge", 0, ge(x, 0), ByCases([
        (ge(sp.sqrt(x), 0), NonNegative([a1 ** 2], {a1: sp.sqrt(x)})),
        (le(sp.sqrt(x), 0), NonNegative([a2 ** 2], {a2: -sp.sqrt(x)}))]))


def variance_of_a_complex_quantity():
    big_x = random_symbol("X", real=True)
    q = Ex(big_x ** 2) - Ex(big_x) ** 2
    return Derivation("H11", "", "", q, "le", 0, [Step("a", "", eq(q, -Var(sp.I * big_x)), "", Identity()),
                                                  Step("b", "", le(-Var(sp.I * big_x), 0), "", NonNegative())])


_T = sp.Symbol("t", positive=True)
_MID = 1 + y + sp.exp(y / (1 + _T)) * y ** 2 / 2
_FIN = 1 + y + sp.exp(y / 2) * y ** 2 / 2           # false at y = 1: 2.718 against 2.824


def _taylor():
    return ByLemma(L.taylor2(), {"F": sp.Lambda(u, sp.exp(u)), "Y": y, "Y0": 0, "T": _T})


def witness_fixed_by_a_definition():
    return Derivation("H12", "", "", sp.exp(y), "eq", _FIN,
                      [Step("a", "", eq(sp.exp(y), _MID), "", _taylor()),
                       Step("b", "", eq(_MID, _FIN), "", Identity(defs={_T: 1}))])


def cited_witness_instantiated():
    cited = Derivation("T", "", "", sp.exp(y), "eq", _MID, [Step("a", "", eq(sp.exp(y), _MID), "", _taylor())],
                       exists=(_T,))
    return _one("H13", sp.exp(y), "eq", _FIN, eq(sp.exp(y), _FIN),
                ByLemma(Lemma.from_derivation(cited, {"t": _T}), {"t": 1}))


def statement_symbol_defined():
    return Derivation("H14", "", "", x, "ge", 0, [Step("a", "", eq(x, 1), "", Identity(defs={x: 1})),
                                                   Step("b", "", ge(1, 0), "", NonNegative())])


def statement_symbol_given_as_a_fact():
    return Derivation("H14b", "", "", x, "ge", 0, [Step("a", "", eq(x, 1), "", Identity(facts={1: x})),
                                                    Step("b", "", ge(1, 0), "", NonNegative())])


def definitions_in_a_cycle():
    return Derivation("H15", "", "", x, "eq", x + 1, [Step("a", "", eq(x, y + 1), "", Identity(defs={x: y + 1})),
                                                       Step("b", "", eq(y + 1, x + 1), "", Identity(defs={y: x}))])


def cited_definition_redefined():
    cited = Derivation("B", "", "", y, "ge", 0, [Step("a", "", eq(y, x ** 2), "", Identity(defs={y: x ** 2})),
                                                 Step("b", "", ge(x ** 2, 0), "", NonNegative())])
    return Derivation("H16", "", "", -1, "ge", 0, [Step("a", "", eq(-1, y), "", Identity(defs={y: -1})),
                                                    Step("b", "", ge(y, 0), "", ByLemma(Lemma.from_derivation(cited, {}), {}))])


def cited_derived_assumption():
    s = sp.Symbol("s", nonnegative=True)
    cited = _one("Bd", x, "ge", 1, ge(x, 1), NonNegative([s], {s: x - 1}),
                 assumptions=[Assumption("x >= 1", ge(x, 1), derived=True)])
    return _one("H17", 0, "ge", 1, ge(0, 1), ByLemma(Lemma.from_derivation(cited, {"x": x}), {"x": 0}))


def triangular_sum_with_a_size_name():
    # sum_{d<=k} sum_{l<=d} 1 = k (k + 1)/2, not d k
    dd, kk = [next(z for z in SIZES if z.name == nm) for nm in ("d", "k")]
    ell = sp.Symbol("l", integer=True, positive=True)
    total = sp.Sum(1, (ell, 1, dd), (dd, 1, kk))
    return _one("H18", total, "eq", dd * kk, eq(total, dd * kk), SumIdentity())


def library_label_on_a_handmade_lemma():
    z = sp.Symbol("z")
    return _one("H19", 1, "le", 0, le(1, 0),
                ByLemma(Lemma("x", "x", {"z": z}, lambda z: le(1, 0), library="elementary"), {"z": z}))


def checked_label_on_a_handmade_lemma():
    z = sp.Symbol("z")
    return _one("H19b", 1, "le", 0, le(1, 0),
                ByLemma(Lemma("x", "x", {"z": z}, lambda z: le(1, 0), source="checked"), {"z": z}))


FALSE_CHAINS = [backwards_empty_sum, hypotheses_substituted_in_turn, log_of_a_quotient_of_unknown_sign,
                context_with_a_pole, context_with_a_jump, function_instance_as_python_callable, prime_declaration,
                limit_with_a_parameter, unit_interval_outside_an_integral, exact_instance_context_off_its_domain,
                cases_that_are_not_real, variance_of_a_complex_quantity, witness_fixed_by_a_definition,
                cited_witness_instantiated, definitions_in_a_cycle, cited_definition_redefined, cited_derived_assumption,
                triangular_sum_with_a_size_name, library_label_on_a_handmade_lemma, checked_label_on_a_handmade_lemma]


@pytest.mark.parametrize("build", FALSE_CHAINS, ids=lambda f: f.__name__)
def test_a_false_toy_chain_is_not_proved(build):
    result = build().run()
    assert result.verdict != "proved", (result.verdict, result.undischarged)
    if result.verdict == "conditional":
        assert result.undischarged


@pytest.mark.parametrize("build", [statement_symbol_defined, statement_symbol_given_as_a_fact], ids=lambda f: f.__name__)
def test_a_name_of_the_statement_that_the_chain_defines_is_shown_with_the_statement(build):
    # "x >= 0" through x := 1 is true only as "x >= 0 where x := 1": the definition is part of the statement
    text = render_markdown(build())
    statement_part = text.split("## Chain")[0]
    assert "where (names of the statement defined by the chain): $x := 1$" in statement_part


def test_a_citation_at_a_bound_name_carries_its_definition():
    # citing "x >= 0 where x := 1" at x = -5 needs -5 = 1, which nothing discharges
    cited = statement_symbol_defined()
    result = _one("cites-H14", -5, "ge", 0, ge(-5, 0), ByLemma(Lemma.from_derivation(cited, {"x": x}), {"x": -5})).run()
    assert result.verdict == "conditional" and any("-5" in text for _, text in result.undischarged)
