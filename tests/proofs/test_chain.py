"""The derivation framework: each check kind proves what it should and fails on mutations."""
import pytest
import sympy as sp

from infonce_sym.proofs.chain import (AsGap, ByLemma, Derivation, Ex, Expm1, Identity, IntervalCertificate, Lemma,
                                    NonNegative, Step, canon, eq, ge, iid_product_moment, le, lt, parameter,
                                    random_family, render_markdown, Var)
from infonce_sym.proofs import lemmas as L

x = sp.Symbol("x", positive=True)
y = sp.Symbol("y", positive=True)
u = sp.Symbol("u", nonnegative=True)
kk = parameter("k", positive=True, integer=True)
j = sp.Symbol("j", integer=True, positive=True)
Xf = random_family("Xtest", real=True)


def test_identity_proves_and_fails():
    assert Identity()(eq((x + 1) ** 2, x ** 2 + 2 * x + 1)).verdict == "proved"
    assert not Identity()(eq((x + 1) ** 2, x ** 2 + 3 * x + 1)).ok
    assert not Identity()(le((x + 1) ** 2, x ** 2 + 2 * x + 1)).ok        # needs '='
    logs = eq(sp.log(1 / kk + x) - sp.log(x), sp.log(1 + 1 / (kk * x)))
    assert Identity()(logs).ok
    assert not Identity()(eq(sp.log(1 / kk + x) - sp.log(x), sp.log(1 + 2 / (kk * x)))).ok


def test_rational_function_route_decides_nested_fractions_and_claims_nothing_else():
    from infonce_sym.proofs.chain import _rational_zero
    e1, n = sp.exp(1 / y), kk
    g = lambda m: (e1 - m) / (e1 / n + (1 - 1 / n) * m)           # A2.ratio's g, nested as written there
    m_a = e1 * (1 - x / n) / (1 + x * (1 - 1 / n))                 # g(m_a) = x
    lhs = g(u) - x
    rhs = e1 * (m_a - u) / ((e1 / n + (1 - 1 / n) * u) * (e1 / n + (1 - 1 / n) * m_a))
    assert _rational_zero(lhs - rhs) == 0
    assert Identity()(eq(lhs, rhs)).ok
    # an independent route: the difference vanishes at random rational points
    for vals in ({x: sp.Rational(1, 3), y: sp.Rational(1, 2), u: 2, kk: 7}, {x: 5, y: 3, u: sp.Rational(1, 9), kk: 2}):
        assert sp.simplify((lhs - rhs).subs(vals)) == 0
    wrong = lhs - rhs + x / (n * 10 ** 30)                       # nonzero, however small
    assert _rational_zero(wrong) is wrong
    related = sp.exp(2 / y) - sp.exp(1 / y) ** 2                   # zero, but not as independent atoms
    assert _rational_zero(related) is related and Identity()(eq(sp.exp(2 / y), sp.exp(1 / y) ** 2)).ok


def test_identity_custom_simplifier_and_expm1():
    assert Identity()(eq(sp.exp(x) * sp.exp(y), sp.exp(x + y))).ok
    assert Identity()(eq(Expm1(x) + 1, sp.exp(x))).ok


def test_iid_rule_and_facts():
    mean = sp.Sum(Xf(j), (j, 1, kk)) / kk
    EX, EX2 = Ex(Xf(0)), Ex(Xf(0) ** 2)
    assert Identity()(eq(Ex(mean), EX)).ok
    assert Identity()(eq(Ex((mean - EX) ** 2), (EX2 - EX ** 2) / kk)).ok
    assert not Identity()(eq(Ex((mean - EX) ** 2), (EX2 - EX ** 2) / (kk + 1))).ok
    assert Identity(facts={EX: 0})(eq(Ex(mean ** 3), Ex(Xf(0) ** 3) / kk ** 2)).ok
    # the partition formula against a direct count: E[(sum X)^2] = k E X^2 + k(k-1) (E X)^2
    g = sp.Lambda(j, Xf(j))
    assert sp.expand(iid_product_moment([g, g], kk) - (kk * EX2 + kk * (kk - 1) * EX ** 2)) == 0


def test_iid_product_moment_against_enumeration():
    """E[(sum_j X_j)^3 (sum_j Y_j)^2] for K = 3 i.i.d. copies of a three-point (X, Y), by enumerating
    all 27 outcomes, against the partition formula (equal summands merged into classes) at K = 3."""
    import itertools
    from fractions import Fraction
    Y = sp.Function("Y")
    atoms = [((2, -1), Fraction(1, 2)), ((-3, 5), Fraction(1, 3)), ((7, 2), Fraction(1, 6))]
    K = 3
    brute = Fraction(0)
    for outcome in itertools.product(atoms, repeat=K):
        p = Fraction(1)
        for _, w in outcome:
            p *= w
        brute += p * sum(a[0] for a, _ in outcome) ** 3 * sum(a[1] for a, _ in outcome) ** 2

    def moment(e):          # E[X^a Y^b] of one copy, from the atoms
        a, b = sp.degree(e, Xf(0)), sp.degree(e, Y(0))
        return sp.Rational(sum(w * x ** a * y ** b for (x, y), w in atoms))
    gx, gy = sp.Lambda(j, Xf(j)), sp.Lambda(j, Y(j))
    formula = iid_product_moment([gx, gx, gx, gy, gy], kk, moment).subs(kk, K)
    assert formula == sp.Rational(brute.numerator, brute.denominator)


def test_nonnegative_assumptions_and_witness():
    assert NonNegative()(le(0, x ** 2 / y)).verdict == "proved"
    assert not NonNegative()(ge(0, x ** 2 / y)).ok                        # flipped
    # 1/2 <= (e - 1)/e for e = 2 + t:  gap = t / (2 (2 + t))
    e = sp.Symbol("e", positive=True)
    claim = le(sp.Rational(1, 2), (e - 1) / e)
    chk = NonNegative([u / (2 * e)], {u: e - 2})
    assert chk(claim).ok
    assert not chk(le(sp.Rational(2, 3), (e - 1) / e)).ok                 # constant changed
    assert not chk(ge(sp.Rational(1, 2), (e - 1) / e)).ok                 # flipped
    assert not NonNegative([-u / (2 * e)], {u: 2 - e})(claim).ok          # a negative witness term is refused
    assert not NonNegative([u], {u: x})(lt(x, 2 * x)).ok                  # strict needs a positive term
    assert NonNegative([x])(lt(x, 2 * x)).ok


def test_bylemma_jensen_and_hypotheses():
    F = sp.Lambda(y, sp.log(y))
    mean = sp.Sum(sp.exp(Xf(j)), (j, 1, kk)) / kk
    claim = le(Ex(sp.log(mean)), sp.log(Ex(sp.exp(Xf(0)))))
    chk = ByLemma(L.jensen_concave(Ex), {"F": F, "Y": mean})
    res = chk(claim)
    assert res.verdict == "proved" and "library lemma" in res.detail and res.lemmas == ["Jensen"]
    assert not chk(ge(Ex(sp.log(mean)), sp.log(Ex(sp.exp(Xf(0)))))).ok   # wrong direction
    assert not chk(le(Ex(sp.log(mean)), sp.log(2 * Ex(sp.exp(Xf(0)))))).ok
    convex = ByLemma(L.jensen_concave(Ex), {"F": sp.Lambda(y, y ** 2), "Y": mean})
    assert not convex(le(Ex(mean ** 2), Ex(mean) ** 2)).ok                 # hypothesis -F'' >= 0 fails


def test_bylemma_context_monotonicity():
    tri = L.triangle()
    a, b = sp.symbols("a b", real=True)
    assert ByLemma(tri, {"x": a, "y": b}, context=sp.Lambda(y, 3 * y + 1))(
        le(3 * sp.Abs(a + b) + 1, 3 * sp.Abs(a) + 3 * sp.Abs(b) + 1)).ok
    # a decreasing context flips the relation
    assert ByLemma(tri, {"x": a, "y": b}, context=sp.Lambda(y, -y))(
        ge(-sp.Abs(a + b), -sp.Abs(a) - sp.Abs(b))).ok
    assert not ByLemma(tri, {"x": a, "y": b}, context=sp.Lambda(y, -y))(
        le(-sp.Abs(a + b), -sp.Abs(a) - sp.Abs(b))).ok


def test_interval_certificate():
    t = sp.Symbol("t", real=True)
    good = le(t * (1 - t), sp.Rational(26, 100))
    res = IntervalCertificate({t: (0, 1)})(good)
    assert res.ok and res.verdict == "certified" and "numerical certificate" in res.detail
    bad = IntervalCertificate({t: (0, 1)})(le(t * (1 - t), sp.Rational(1, 5)))
    assert not bad.ok and "violated" in bad.detail
    # exp/log: log(1 + t) <= t - t^2/2 + t^3/3 + 1/100 on [0, 1]
    assert IntervalCertificate({t: (0, 1)})(le(sp.log(1 + t), t - t ** 2 / 2 + t ** 3 / 3 + sp.Rational(1, 100))).ok


def _chain(steps, relation="le", statement=None, quantity=None):
    return Derivation("toy", "toy", "none", quantity if quantity is not None else steps[0].claim.lhs, relation,
                      statement if statement is not None else steps[-1].claim.rhs, steps)


def test_derivation_composition_and_verdicts():
    t = sp.Symbol("t", real=True)
    s1 = Step("a", "(1)", eq((x + 1) ** 2, x ** 2 + 2 * x + 1), "expand", Identity())
    s2 = Step("b", "(2)", le(x ** 2 + 2 * x + 1, x ** 2 + 2 * x + 2), "1 <= 2", NonNegative())
    d = _chain([s1, s2])
    assert d.run().verdict == "proved"
    assert _chain([s1, s2], relation="ge").run().verdict == "failed"                  # wrong direction
    assert _chain([s1, s2], statement=x ** 2 + 2 * x + 3).run().verdict == "failed"  # statement mismatch
    s3 = Step("c", "(3)", ge(x ** 2 + 2 * x + 2, x ** 2), "", NonNegative())
    assert _chain([s1, s2, s3]).run().verdict == "failed"                             # <= then >=
    broken = Step("b", "(2)", le(x ** 2 + 2 * x, x ** 2 + 2 * x + 2), "", NonNegative())
    assert _chain([s1, broken]).run().verdict == "failed"                             # link broken
    cert = Step("c", "", le(t * (1 - t), sp.Rational(26, 100)), "", IntervalCertificate({t: (0, 1)}))
    # the certificate covers its box only: t in [0, 1] is a premise the statement must assume
    assert _chain([cert]).run().verdict == "conditional"
    boxed = Derivation("toy", "toy", "none", cert.claim.lhs, "le", cert.claim.rhs, [cert],
                       [Assumption("t >= 0", ge(t, 0)), Assumption("t <= 1", le(t, 1))])
    assert boxed.run().verdict == "certified"


def test_lemma_from_derivation_and_render():
    s1 = Step("a", "(1)", eq((x + 1) ** 2, x ** 2 + 2 * x + 1), "expand", Identity())
    s2 = Step("b", "(2)", le(x ** 2 + 2 * x + 1, x ** 2 + 2 * x + 2), "1 <= 2", NonNegative())
    d = _chain([s1, s2])
    lem = Lemma.from_derivation(d, {"x": x})
    res = ByLemma(lem, {"x": y + 1})(le((y + 2) ** 2, (y + 1) ** 2 + 2 * (y + 1) + 2))
    assert res.ok and "derivation toy" in res.detail
    md = render_markdown(d)
    assert "$$" in md and "proved" in md and "(2)" in md


def test_canon_is_idempotent_on_sums():
    s = sp.Sum(sp.exp((Xf(j) - x) / 2), (j, 1, kk))
    assert canon(canon(s)) == canon(s)
    assert sp.simplify(canon(s) - sp.exp(-x / 2) * sp.Sum(sp.exp(Xf(j) / 2), (j, 1, kk))) == 0


def test_quoted_lemmas_for_section4_instantiate():
    a, b, c, d = sp.symbols("a b c d", real=True)
    cs = L.cauchy_schwarz_vectors()
    claim = le(sp.Abs(a * c + b * d), sp.sqrt(a ** 2 + b ** 2) * sp.sqrt(c ** 2 + d ** 2))
    assert ByLemma(cs, {"a": [a, b], "b": [c, d]})(claim).ok
    assert not ByLemma(cs, {"a": [a, b], "b": [c, d]})(le(sp.Abs(a * c + b * d), sp.sqrt(a ** 2 + b ** 2))).ok
    n, delta, Eg, mean, Rad = sp.Symbol("n", positive=True, integer=True), sp.Rational(1, 20), *sp.symbols("Eg mean Rad")
    mohri = ByLemma(L.mohri_3_3(), {"Eg": Eg, "mean": mean, "Rad": Rad, "n": n, "delta": delta, "g": sp.Rational(1, 3)},
                    hyp_checks={2: NonNegative([sp.Rational(19, 20)])})
    outside = ByLemma(L.mohri_3_3(), {"Eg": Eg, "mean": mean, "Rad": Rad, "n": n, "delta": delta, "g": sp.Integer(2)})
    assert not outside(le(Eg, mean + 2 * Rad + 3 * sp.sqrt(sp.log(40) / (2 * n)))).ok     # a class not in [0, 1]
    assert mohri(le(Eg, mean + 2 * Rad + 3 * sp.sqrt(sp.log(40) / (2 * n)))).verdict == "proved"
    assert not mohri(le(Eg, mean + Rad + 3 * sp.sqrt(sp.log(40) / (2 * n)))).ok
    # the chaining lemma (UML Lemma 27.4): its instance at M = 2, with a wrong constant refused
    kk, c = L.CHAIN_K, sp.Symbol("c", positive=True)
    # its log covering number is a name (a formula in its place, a bound on it, would say something else)
    logN_A = sp.Function("logN_A")
    chain = ByLemma(L.chaining_uml(kk), {"Rad": Rad, "logNA": sp.Lambda(y, logN_A(y)), "m": n, "c": c, "M": 2})
    uml = c / (4 * sp.sqrt(n)) + 6 * c / n * sp.Sum(2 ** (-kk) * sp.sqrt(logN_A(c * 2 ** (-kk))), (kk, 1, 2))
    assert chain(le(Rad, uml)).verdict == "proved"
    assert not chain(le(Rad, c / (4 * sp.sqrt(n)) + 3 * c / n * sp.Sum(
        2 ** (-kk) * sp.sqrt(logN_A(c * 2 ** (-kk))), (kk, 1, 2)))).ok
    formula = ByLemma(L.chaining_uml(kk), {"Rad": Rad, "logNA": sp.Lambda(y, 3 * sp.log(1 + 2 / y)), "m": n, "c": c,
                                           "M": 2})
    with pytest.raises(ValueError, match="needs a name of its own"):       # a failed check in a Step
        formula(le(Rad, uml.replace(logN_A, lambda r: 3 * sp.log(1 + 2 / r))))
    for lem in (L.cauchy_schwarz(Ex), L.cauchy_schwarz_integral(), L.mohri_3_3(), L.chaining_uml(), L.popoviciu(Var)):
        t = lem.template()          # the conclusion over the lemma's own parameters: a relation, not a constant
        assert isinstance(t, sp.core.relational.Relational) and t not in (sp.true, sp.false), lem.name
        assert t.lhs != t.rhs, lem.name


# ---------------------------------------------------------------- no free hypothesis (issue 9, item 1)
from infonce_sym.proofs.chain import Assumption, ByCases, gt  # noqa: E402


def _toy(check, claim, assumptions=()):
    return Derivation("toy", "toy", "none", claim.lhs, relation_kind_of(claim), claim.rhs,
                      [Step("s", "", claim, "", check)], list(assumptions))


def relation_kind_of(claim):
    from infonce_sym.proofs.chain import relation_kind
    return relation_kind(claim)


def test_a_slack_is_a_premise_until_an_assumption_discharges_it():
    e = sp.Symbol("e", positive=True)
    claim = le(sp.Rational(1, 2), (e - 1) / e)
    chk = NonNegative([u / (2 * e)], {u: e - 2})
    bare = _toy(chk, claim).run()
    assert bare.verdict == "conditional" and bare.undischarged == [("s", "u = e - 2 >= 0")]
    assert _toy(chk, claim, [Assumption("e > 2", gt(e, 2))]).run().verdict == "proved"
    # an assumption with another gap discharges nothing; a named condition discharges nothing
    assert _toy(chk, claim, [Assumption("e > 1", gt(e, 1))]).run().verdict == "conditional"
    assert _toy(chk, claim, ["e > 2 (as text)"]).run().verdict == "conditional"


def test_a_slack_discharged_by_a_check():
    """``by``: the slack's nonnegativity proved by a sub-check (here a library lemma through AsGap)."""
    a_, b_ = sp.symbols("a b", real=True)
    claim = le(sp.Abs(a_ + b_), sp.Abs(a_) + sp.Abs(b_) + 1)
    w = sp.Symbol("w", nonnegative=True)
    chk = NonNegative([w, 1], {w: sp.Abs(a_) + sp.Abs(b_) - sp.Abs(a_ + b_)},
                      by={w: AsGap(ByLemma(L.triangle(), {"x": a_, "y": b_}))})
    res = _toy(chk, claim).run()
    assert res.verdict == "proved" and res.lemmas == ["triangle"]


def test_quoted_lemma_outside_the_library_is_a_premise_and_circular_is_refused():
    quoted = Lemma("made up", "x^2 + 2x + 1 <= x^2 + 2x + 2", {}, lambda: le(x ** 2 + 2 * x + 1, x ** 2 + 2 * x + 2))
    claim = le(x ** 2 + 2 * x + 1, x ** 2 + 2 * x + 2)
    res = _toy(ByLemma(quoted, {}), claim, [Assumption("the claim itself", claim)]).run()
    assert res.verdict == "conditional" and "whose conclusion is the claim" in res.undischarged[0][1]


def test_a_citation_carries_the_cited_assumptions():
    e = sp.Symbol("e", positive=True)
    inner = Derivation("inner", "inner", "none", sp.Rational(1, 2), "le", (e - 1) / e,
                       [Step("s", "", le(sp.Rational(1, 2), (e - 1) / e), "", NonNegative([u / (2 * e)], {u: e - 2}))],
                       [Assumption("e > 2", gt(e, 2))])
    assert inner.run().verdict == "proved"
    lem = Lemma.from_derivation(inner, {"e": e})
    f = sp.Symbol("f", positive=True)
    claim = le(sp.Rational(1, 2), (f + 2 - 1) / (f + 2))
    outer = _toy(ByLemma(lem, {"e": f + 2}), claim)
    res = outer.run()
    assert res.cites == ["inner"] and res.verdict == "proved"          # f + 2 > 2: the CAS shows the hypothesis
    outer2 = _toy(ByLemma(lem, {"e": f}), le(sp.Rational(1, 2), (f - 1) / f))
    r2 = outer2.run()
    assert r2.verdict == "conditional" and r2.undischarged == [("s", "hypothesis 0 of inner: f > 2")]


def test_cases_must_be_exhaustive():
    t = sp.Symbol("t", real=True)
    ok = NonNegative()
    claim = le(x, x + 1)
    assert ByCases([(ge(t, 1), ok), (le(t, 1), ok)])(claim).ok
    assert not ByCases([(ge(t, 1), ok), (le(t, 0), ok)])(claim).ok


def test_identities_of_limits_are_spot_checked_through_their_arguments():
    """Liminf and Limsup are read as their argument by the numeric spot check: a mutated identity between
    limits is refused there (it went through every simplify first: 27 s for A2.13's mutants, now 3 s), a
    true one still proves, and one whose limits agree while their arguments differ is refused (conservative)."""
    from infonce_sym.proofs.chain import Identity, eq
    from infonce_sym.proofs.lemmas import Liminf, Limsup
    n = sp.Symbol("n", positive=True, integer=True)
    for Lim in (Limsup, Liminf):
        assert Identity()(eq(Lim((n + 1) / n, n), Lim(1 + 1 / n, n))).ok
        r = Identity()(eq(Lim((n + 1) / n, n), Lim(2 + 1 / n, n)))
        assert not r.ok and "numeric spot check" in r.detail
        r = Identity()(eq(Lim(1 + 1 / n, n), Lim(1 + 2 / n, n)))     # both limits are 1: refused all the same
        assert not r.ok


def test_a_citation_carries_the_definitions_of_the_names_it_substitutes():
    # the audit's hole: a name defined inside a cited chain was free once cited, so any expression could be put for it
    r_, a_, b_ = sp.symbols("r_def a_def b_def", real=True)
    y_, z_ = sp.Symbol("y_def", real=True), sp.Symbol("z_def", real=True)
    base = Derivation("toy-def", "y >= 0 for y := r^2", "none", y_, "ge", sp.Integer(0),
                      [Step("y := r^2", "", eq(y_, r_ ** 2), "", Identity(defs={y_: r_ ** 2})),
                       Step("square", "", ge(r_ ** 2, 0), "", NonNegative())])
    assert base.run().verdict == "proved" and base.defined() == {y_: [r_ ** 2]}
    lem = Lemma.from_derivation(base, {"y": y_, "r": r_})

    s1_, s2_ = sp.symbols("s1_def s2_def", nonnegative=True)

    def citing(first, second=None):
        # y >= 0 from the lemma; with ``second``, y + y >= 0 from two citations (slacks shown by each)
        y1 = first["y"]
        if second is None:
            step = Step("cite", "", ge(y1, 0), "", ByLemma(lem, first))
        else:
            step = Step("cite twice", "", ge(y1 + second["y"], 0), "",
                        NonNegative([s1_, s2_], {s1_: y1, s2_: second["y"]},
                                    by={s1_: AsGap(ByLemma(lem, first)), s2_: AsGap(ByLemma(lem, second))}))
        return Derivation("cites-toy", "", "none", step.claim.lhs, "ge", sp.Integer(0), [step]).run()

    one = citing({"y": z_, "r": a_})                  # a name: the definition comes along, instantiated
    assert one.verdict == "proved" and one.definitions == ["z_def := a_def**2"]
    bad = citing({"y": sp.Integer(-1), "r": a_})      # not a name: -1 = a^2 is a hypothesis nothing discharges
    assert bad.verdict == "conditional" and "-1" in bad.undischarged[0][1]
    assert citing({"y": a_ ** 2, "r": a_}).verdict == "proved"    # the defining expression itself: the CAS shows it
    clash = citing({"y": z_, "r": a_}, {"y": z_, "r": b_})        # one name, two meanings
    assert clash.verdict == "conditional" and "conflicting definitions of z_def" in clash.undischarged[0][1]
    assert citing({"y": z_, "r": a_}, {"y": z_, "r": a_}).verdict == "proved"
    unmoved = ByLemma(Lemma.from_derivation(base, {"y": y_}), {"y": y_})(ge(y_, 0))
    # nothing substituted, nothing carried: y keeps its cited meaning (a "bound" name, which this chain may not redefine)
    assert unmoved.ok and [(p.kind, p.rel) for p in unmoved.premises] == [("bound", eq(y_, r_ ** 2))]
    assert Derivation("cites-unmoved", "", "none", y_, "ge", sp.Integer(0),
                      [Step("cite", "", ge(y_, 0), "", ByLemma(Lemma.from_derivation(base, {"y": y_}), {"y": y_}))]
                      ).run().verdict == "proved"


def test_a_witness_is_named_by_the_citation_never_chosen():
    """Taylor's point y0 + (y - y0)/(1 + t) 'for some t > 0': the citation must put a fresh symbol for t.  A value
    (or a symbol the instance constrains) would choose the point, and the CAS would then 'prove' a false equation."""
    t_ = sp.Symbol("t_w", positive=True)
    F = sp.Lambda(y, sp.log(y))
    lem = L.taylor2()

    def claim(T):
        return lem.instantiate({"F": F, "Y": x, "Y0": 1, "T": T})[0]
    assert ByLemma(lem, {"F": F, "Y": x, "Y0": 1, "T": t_})(claim(t_)).ok
    chosen = ByLemma(lem, {"F": F, "Y": x, "Y0": 1, "T": sp.Integer(1)})(claim(sp.Integer(1)))
    assert not chosen.ok and "witness T must be a fresh symbol" in chosen.detail
    # the chosen point is wrong: log 3 against its expansion about 1 with the point (1 + 3)/2 (an independent check)
    assert abs(float(claim(sp.Integer(1)).rhs.subs(x, 3)) - float(sp.log(3))) > 0.1
    tied = ByLemma(lem, {"F": F, "Y": t_, "Y0": 1, "T": t_})(claim(t_).subs(x, t_))
    assert not tied.ok
    # a statement about the witness is undischarged unless it says "for some t" (exists)
    s1 = Step("Taylor at x", "", claim(t_), "", ByLemma(lem, {"F": F, "Y": x, "Y0": 1, "T": t_}))
    about_t = Derivation("w1", "", "none", F(x), "eq", claim(t_).rhs, [s1])
    assert about_t.run().verdict == "conditional"
    about_t.exists = (t_,)
    assert about_t.run().verdict == "proved"
    # one witness chosen by two citations: undischarged
    from infonce_sym.proofs.chain import StepResult

    def chooses(claim_):
        return StepResult(True, "proved", "a citation choosing t_w", witnesses=[t_])
    twice = Derivation("w2", "", "none", x, "eq", x, [Step("a", "", eq(x, x), "", chooses), Step("b", "", eq(x, x), "", chooses)])
    assert twice.run().verdict == "conditional" and "chosen by 2 citations" in twice.run().undischarged[0][1]


def test_limit_over_every_m_needs_m_free():
    """x <= y + b 2^-M for every M gives x <= y only when M is free: an instance that ties M (y = y0 + M) keeps a
    hypothesis nothing discharges (else y0 + M >= x would be 'shown' from a bound at one M)."""
    M = sp.Symbol("M", positive=True, integer=True)
    free = ByLemma(L.limit_geometric(), {"x": x, "y": y, "b": 1})(le(x, y))
    tied = ByLemma(L.limit_geometric(), {"x": x, "y": y + M, "b": 1})(le(x, y + M))
    assert free.ok and len(free.premises) == 1
    assert tied.ok and any(p.rel == eq(sp.Integer(0), sp.Integer(1)) for p in tied.premises)
    never = eq(sp.Integer(0), sp.Integer(1))      # the same guard on every lemma with bound symbols
    assert never in L.integral_nonnegative().instantiate({"g": sp.Lambda(y, L.MONO_X * y), "b": 1})[1]
    assert never not in L.integral_nonnegative().instantiate({"g": sp.Lambda(y, x * y), "b": 1})[1]


def _lemma_step_result(lemma, subs):
    """The check of a step whose claim is exactly ``lemma``'s instance under ``subs``."""
    concl, _ = lemma.instantiate(subs)
    return ByLemma(lemma, subs)(concl)


def test_lemmas_that_read_a_derivative_sign_need_a_smooth_function():
    """convex_tangent, concave_chord, jensen_concave, taylor_lagrange_point and ftc_antiderivative check a
    derivative (its sign, or F' = f) at a symbol of the domain, and the Taylor lemmas use F on a segment; SymPy
    differentiates a kink or a step away and does not see a pole there.  Their hypotheses now include
    ``smooth_conditions`` (``segment_conditions`` for Taylor): a probe's counterexamples (Dec 2026) are no longer
    proved, while the smooth instances of the registered chains are."""
    u = L._u
    kink = sp.Piecewise((sp.Rational(1, 2) - u, u < sp.Rational(1, 2)), (u - sp.Rational(1, 2), True))   # |u - 1/2|
    bad = [
        (L.concave_chord(), {"h": sp.Lambda(u, kink), "x": sp.Rational(1, 2)}),             # "0 >= 1/2"
        (L.convex_tangent(), {"g": sp.Lambda(u, -sp.Abs(u - 1)), "x": sp.Rational(1, 2), "x0": sp.Rational(3, 2)}),
        (L.concave_chord(), {"h": sp.Lambda(u, -sp.Heaviside(u)), "x": sp.Rational(1, 4)}),  # a step at 0
        (L.convex_tangent(), {"g": sp.Lambda(u, 1 / (u - 1) ** 2), "x": sp.Rational(1, 2), "x0": 2}),   # a pole at 1
        # Taylor across a pole: "-1 = 3 + 4/(1 - 2/(t + 1))^3" and "-1 = 1 + 2/(theta + 1)^2" had no solution
        (L.taylor2(), {"F": sp.Lambda(u, 1 / u), "Y": -1, "Y0": 1, "T": sp.Symbol("t", positive=True)}),
        (L.taylor_n(0), {"F": sp.Lambda(u, 1 / (1 + u)), "Y": -2, "XI": sp.Symbol("theta")}),
        # the FTC on [0, 1] across a pole ("4 = int_0^1 F'", divergent) and across a step ("1 = 0")
        (L.ftc_unit_interval(), {"F": sp.Lambda(u, 1 / (u - sp.Rational(1, 2)))}),
        (L.ftc_unit_interval(), {"F": sp.Lambda(u, sp.Heaviside(u - sp.Rational(1, 2)))}),
    ]
    for lemma, subs in bad:
        res = _lemma_step_result(lemma, subs)
        assert not res.ok or res.premises, (lemma.name, subs)
    good = [
        (L.concave_chord(), {"h": sp.Lambda(u, sp.log(2 * u + 1) - u ** 2), "x": sp.Rational(1, 3)}),
        (L.convex_tangent(), {"g": sp.Lambda(u, u ** 2 - sp.log(2 * u + 1)), "x": sp.Rational(1, 2), "x0": 1}),
        (L.taylor_lagrange_point(2), {"F": sp.Lambda(u, -sp.log(1 + u)), "Y": sp.Rational(1, 3),
                                      "T": sp.Symbol("t", positive=True), "lo": -1}),
    ]
    for lemma, subs in good:
        res = _lemma_step_result(lemma, subs)
        smooth = L.smooth_conditions(subs.get("h") or subs.get("g") or subs.get("F"), L._y)
        assert smooth and all(c != sp.Eq(0, 1) for c in smooth)
        assert res.ok and not [p for p in res.premises if p.kind == "hypothesis"], (lemma.name, res.detail, res.premises)


def test_finite_sum_lemmas_need_a_nonnegative_number_of_terms():
    """SymPy sums sum_{j=1}^{k} with k < 1 by Karr's convention (minus the sum over k + 1..0), so with k = -2 the
    monotonicity of finite sums 'proved' 0 <= sum_{j=1}^{-2} 1 = -2, and the triangle inequality likewise (a probe,
    Dec 2026); the finite-sum lemmas now ask k >= 0.  With k = 3 they stand."""
    j = L._j
    bad = [(L.sum_monotone(), {"U": sp.Lambda(j, 0), "V": sp.Lambda(j, 1), "k": -2}),
           (L.triangle_sum(), {"x": sp.Lambda(j, -1), "k": -1})]
    for lemma, subs in bad:
        res = _lemma_step_result(lemma, subs)
        assert not res.ok or res.premises, (lemma.name, subs)
    good = [(L.sum_monotone(), {"U": sp.Lambda(j, 0), "V": sp.Lambda(j, 1), "k": 3}),
            (L.triangle_sum(), {"x": sp.Lambda(j, -1), "k": 3})]
    for lemma, subs in good:
        res = _lemma_step_result(lemma, subs)
        assert res.ok and not res.premises, (lemma.name, res.detail)


def test_a_citation_checks_what_the_cited_chain_declares_of_its_parameters():
    """The cited chain's CAS used ell >= 0 (a nonnegative symbol) and b, c > 0: an instance must meet them.
    The probe's counterexample: L2.22 at ell = -1/e + 1e-8 (b = c = 1) was 'proved', and is false there."""
    from infonce_sym.proofs.register import cite, derivation
    d = derivation("L2.22")
    params = {"b": sp.Symbol("b", positive=True), "c": sp.Symbol("c", positive=True), "ell": sp.Symbol("ell", nonnegative=True)}
    lem = cite("L2.22", {n: next(s for s in d.statement.free_symbols | d.quantity.free_symbols if s.name == n)
                         for n in params} | {"X": next(iter(d.quantity.atoms(sp.core.function.AppliedUndef))).func})
    concl, hyps = lem.instantiate({"b": 1, "c": 1, "ell": -sp.exp(-1) + sp.Rational(1, 10 ** 8),
                                   "X": next(iter(d.quantity.atoms(sp.core.function.AppliedUndef))).func})
    assert ge(-sp.exp(-1) + sp.Rational(1, 10 ** 8), 0) in hyps
    res = ByLemma(lem, {"b": 1, "c": 1, "ell": -sp.exp(-1) + sp.Rational(1, 10 ** 8),
                        "X": next(iter(d.quantity.atoms(sp.core.function.AppliedUndef))).func})(concl)
    assert not res.ok and "is false" in res.detail
    # at ell = 0, b = 1, c = 1/tau (DCL-11.upper's instance) the conditions hold by the CAS
    tau_ = sp.Symbol("tau", positive=True)
    _, hyps0 = lem.instantiate({"b": 1, "c": 1 / tau_, "ell": 0,
                                "X": next(iter(d.quantity.atoms(sp.core.function.AppliedUndef))).func})
    assert gt(1 / tau_, 0) in hyps0 and ge(sp.Integer(0), 0) in hyps0


def test_a_name_declared_positive_needs_its_definition_positive():
    """B := p + q with p, q >= 0 and B declared positive: the CAS would use B > 0, which its definition does not
    give; the chain is conditional until an assumption (p + q > 0, or B >= 1) gives it."""
    p, q = sp.symbols("p q", nonnegative=True)
    B = sp.Symbol("B", positive=True)
    claim = eq(B * x, (p + q) * x)
    step = Identity(defs={B: p + q})
    assert _toy(step, claim).run().verdict == "conditional"
    assert _toy(step, claim, [Assumption("p + q > 0", gt(p + q, 0))]).run().verdict == "proved"
    assert _toy(step, claim, [Assumption("B >= 1", ge(B, 1))]).run().verdict == "proved"
    assert _toy(step, claim, [Assumption("p + q >= 0", ge(p + q, 0))]).run().verdict == "conditional"   # not strict
    assert _toy(Identity(defs={B: x + 1}), eq(B * x, (x + 1) * x)).run().verdict == "proved"           # x + 1 > 0 by the CAS


def test_a_positive_multiple_check():
    from infonce_sym.proofs.chain import PositiveMultiple
    p = sp.Symbol("p", nonnegative=True)
    res = PositiveMultiple(p + 1)(gt(3 * x * (p + 1), 0))
    assert res.ok and res.premises[-1].rel == gt(p + 1, 0)
    assert not PositiveMultiple(p + 1)(gt((x - 1) * (p + 1), 0)).ok         # the factor x - 1 has no sign
    assert not PositiveMultiple(p + 1)(ge(3 * x * (p + 1), 0)).ok           # not strict


def test_a_statement_proved_by_cases_needs_its_cases_to_cover(monkeypatch):
    from infonce_sym.proofs import statement_registry as SR
    from infonce_sym.proofs.statements import a
    SR.statement.cache_clear()
    try:
        s = SR.statement("P5")
        assert s.assumptions[-1].text.startswith("by cases: a >= 1 (P5.a-ge-1) or a <= 1 (P5.a-le-1)")
        assert not any(getattr(x_, "rel", None) in (ge(a, 1), le(a, 1)) for x_ in s.assumptions)

        def refusal():
            SR.statement.cache_clear()
            try:
                SR.statement("P5")
            except ValueError as exc:
                return str(exc)
            return ""
        monkeypatch.setattr(SR, "case_conditions", lambda id: (ge(a, 2), le(a, 1)))
        assert "does not assume its condition a >= 2" in refusal()
        monkeypatch.setattr(SR, "case_conditions", lambda id: (ge(a, 1), le(a, sp.Rational(1, 2))))
        import infonce_sym.proofs.chain as C
        monkeypatch.setattr(C, "premise_matches", lambda prem, ass: True)      # every case 'assumes' anything
        monkeypatch.setattr(SR, "_implied_by", lambda cond, rel: True)
        assert "not every a" in refusal()
    finally:
        SR.statement.cache_clear()


def test_the_declared_domains_are_rendered():
    """The CAS reads a symbol's declaration (positive, integer) as a fact: the rendered derivation shows them, so a
    reader sees L2.22's ell >= 0 and b, c > 0 (a probe found them only in the code, Dec 2026)."""
    from infonce_sym.proofs.chain import declared_domains
    from infonce_sym.proofs.register import derivation
    d = derivation("L2.22")
    assert declared_domains(d) == ["b, c > 0", "ell >= 0", "j, k: positive integers", "X(.): real"]
    assert "Domains (the declarations of the statement's symbols, which the CAS uses): b, c > 0; ell >= 0; " \
           "j, k: positive integers; X(.): real." in render_markdown(d)
    # functions by their values, and the symbols of the assumptions (a probe: dl(i) >= 0 was not shown)
    assert "dl(.)" in declared_domains(derivation("L1.tau-ge-1"))[1]



def _cited(base, params, values, claim, assumptions=()):
    return _toy(ByLemma(Lemma.from_derivation(base, params), values), claim, assumptions).run()


def test_a_citation_checks_every_declaration_of_its_parameters():
    """A probe's toy derivations (Dec 2026), each false or resting on an unstated fact, were 'proved': the values
    a citation puts in the cited chain's parameters must meet their declarations, real, nonzero, even and
    integer (a float too) as well as the signs; a function by its values; and all parameters at once."""
    z, t = sp.Symbol("z", positive=True), sp.Symbol("t", positive=True)
    yr = sp.Symbol("y", real=True)
    base = Derivation("b", "b", "none", yr ** 2, "ge", sp.Integer(0), [Step("s", "", ge(yr ** 2, 0), "", NonNegative())])
    assert _cited(base, {"y": yr}, {"y": sp.I * z}, ge(-z ** 2, 0)).verdict != "proved"        # y real, at i z
    w = sp.Symbol("w", nonzero=True, real=True)
    base = Derivation("b", "b", "none", w ** 2, "gt", sp.Integer(0), [Step("s", "", gt(w ** 2, 0), "", NonNegative())])
    assert _cited(base, {"w": w}, {"w": t - 1}, gt((t - 1) ** 2, 0)).verdict != "proved"     # w nonzero, at t - 1
    ne = sp.Symbol("n", even=True)
    base = Derivation("b", "b", "none", sp.cos(sp.pi * ne), "eq", sp.Integer(1),
                      [Step("s", "", eq(sp.cos(sp.pi * ne), 1), "", Identity())])
    assert _cited(base, {"n": ne}, {"n": 1}, eq(sp.Integer(-1), 1)).verdict != "proved"       # n even, at 1
    ni = sp.Symbol("n", integer=True, positive=True)
    base = Derivation("b", "b", "none", sp.cos(2 * sp.pi * ni), "eq", sp.Integer(1),
                      [Step("s", "", eq(sp.cos(2 * sp.pi * ni), 1), "", Identity())])
    assert _cited(base, {"n": ni}, {"n": 0.5}, eq(sp.Integer(-1), 1)).verdict != "proved"     # an integer, at 0.5
    f = sp.Function("f", positive=True)
    base = Derivation("b", "b", "none", f(yr), "gt", sp.Integer(0), [Step("s", "", gt(f(yr), 0), "", NonNegative())])
    assert _cited(base, {"f": f}, {"f": sp.Lambda(yr, yr - 5)}, gt(yr - 5, 0)).verdict != "proved"
    G = sp.Function("G", nonpositive=True)
    assert _cited(base, {"f": f}, {"f": G}, gt(G(yr), 0)).verdict != "proved"
    # at once: {x: y, y: -1} is x = y, not x = -1 (the conclusion read x = -1 while the condition read y > 0)
    xp, yy = sp.Symbol("x", positive=True), sp.Symbol("yy", real=True)
    base = Derivation("b", "b", "none", xp, "gt", sp.Integer(0), [Step("s", "", gt(xp, 0), "", NonNegative())])
    lem = Lemma.from_derivation(base, {"x": xp, "y": yy})
    assert lem.instantiate({"x": yy, "y": -1})[0] == gt(yy, 0)


def test_declared_names_renames_and_equations_are_not_free_facts():
    """A definition carried onto a function declared positive, an integer name defined as a non-integer, a
    NonNegative rename (without a witness, or to 2 B) and an equation assumption y = 0 discharging y > 0 all
    passed unstated facts (a probe, Dec 2026)."""
    from infonce_sym.proofs.chain import PositiveMultiple, premise_matches
    xr = sp.Symbol("x", real=True)
    B = sp.Symbol("B", positive=True)
    assert _toy(NonNegative(rename={xr - 1: B}), gt(xr - 1, 0)).run().verdict != "proved"
    assert _toy(NonNegative([2 * B], rename={xr - 1: 2 * B}), gt(xr - 1, 0)).run().verdict != "proved"
    n = sp.Symbol("n", integer=True, positive=True)
    r = _toy(Identity(defs={n: x + sp.Rational(1, 2)}), eq(n * x, (x + sp.Rational(1, 2)) * x)).run()
    assert r.verdict != "proved" and "declared so that Eq(floor(x + 1/2), x + 1/2)" in r.undischarged[0][1]
    F = sp.Function("F", positive=True)
    r = _toy(Identity(defs={F(x): -1}), eq(F(x) * x, -x)).run()
    assert r.verdict != "proved"
    yr = sp.Symbol("y", real=True)
    assert not premise_matches(gt(yr, 0), eq(yr, 0)) and premise_matches(ge(yr, 0), eq(yr, 0))
    assert _toy(PositiveMultiple(yr), gt(3 * yr, 0), [Assumption("y = 0", eq(yr, 0))]).run().verdict != "proved"
    assert _toy(PositiveMultiple(yr), gt(3 * yr, 0), [Assumption("y > 0", gt(yr, 0))]).run().verdict == "proved"


def test_a_case_must_assume_exactly_its_condition():
    """tau > 1 or tau = 1 for the case tau >= 1 left tau = 1 to no case, and the statement said the cases cover
    every tau (a probe, Dec 2026)."""
    from infonce_sym.proofs import statement_registry as SR
    from infonce_sym.proofs.statements import tau

    def case(id, ass):
        return Derivation(id, id, "none", tau ** 2 + 1, "ge", sp.Integer(0),
                          [Step("s", "", ge(tau ** 2 + 1, 0), "", NonNegative())], ass)
    lt1 = case("c.lt", [Assumption("tau < 1", lt(tau, 1))])
    for bad in (Assumption("tau > 1", gt(tau, 1)), Assumption("tau = 1", eq(tau, 1))):
        try:
            SR._case_assumptions("L1", [lt1, case("c.ge", [bad])])
            raised = False
        except ValueError:
            raised = True
        assert raised, bad.text
    ok = SR._case_assumptions("L1", [lt1, case("c.ge", [Assumption("tau >= 1", ge(tau, 1))])])
    assert ok[-1].text.startswith("by cases: tau < 1 (c.lt) or tau >= 1 (c.ge)")
    try:
        SR._case_assumptions("L1", [lt1, case("c.ge", [Assumption("tau >= 1", ge(tau, 1)), Assumption("tau = 2", eq(tau, 2))])])
        raised = False
    except ValueError as exc:
        raised = "also restricts" in str(exc)
    assert raised


def test_logs_are_split_only_where_their_factors_are_positive():
    """canon split log(x y) into log x + log y whatever the signs (expand_log with force=True): for x, y < 0 a toy
    chain 'proved' log(x y) = log x + log y, and |log(x^2) - 2 log(-x)| = 2 pi (a probe, Dec 2026)."""
    xn, yn = sp.Symbol("x", negative=True), sp.Symbol("y", negative=True)
    assert not Identity()(eq(sp.log(xn * yn), sp.log(xn) + sp.log(yn))).ok
    assert not Identity()(eq(sp.Abs(sp.log(xn ** 2) - 2 * sp.log(-xn)), 2 * sp.pi)).ok
    assert Identity()(eq(sp.log(xn ** 2), 2 * sp.log(-xn))).ok                      # true: -x > 0
    xp, yp = sp.Symbol("x", positive=True), sp.Symbol("y", positive=True)
    assert Identity()(eq(sp.log(xp * yp / 3), sp.log(xp) + sp.log(yp) - sp.log(3))).ok
