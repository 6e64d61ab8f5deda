"""Section 3 derivations: verdicts, mutations of every step, statements, errata, rendering."""
import itertools
import math
from pathlib import Path

import mpmath
import numpy as np
import pytest
import sympy as sp

from infonce_sym.proofs.chain import ByLemma, Ea, cited_result
from infonce_sym.proofs.errata import ERRATA
from infonce_sym.proofs.mutants import claim_mutations, equivalent
from infonce_sym.models import example_a2
from infonce_sym.proofs import all_derivations
from infonce_sym.proofs import section3 as S3
from infonce_sym.proofs.render import render_all

DERIVATIONS = all_derivations()
IDS = [d.id for d in DERIVATIONS]
# No Section 3 step needs a numerical certificate: every derivation is declared "proved".
CERTIFIED_STEPS = {}

# the claim mutations and the equivalence filter are the ones `infonce-sym derivations --mutate` uses (proofs.mutants)
mutations = claim_mutations


@pytest.mark.parametrize("d", DERIVATIONS, ids=IDS)
def test_verdict_as_declared(d):
    res = cited_result(d)        # d.run(), once per process (the mutants' baseline reads the same run)
    bad = [f"{s.name}: {r.detail}" for s, r in zip(d.steps, res.steps) if not r.ok]
    assert res.verdict == d.verdict, (bad, res.final.detail)
    assert all(l.ok for l in res.links) and res.final.ok
    certified = [s.name for s, r in zip(d.steps, res.steps) if r.verdict == "certified"]
    assert certified == CERTIFIED_STEPS.get(d.id, [])


@pytest.mark.parametrize("d", DERIVATIONS, ids=IDS)
def test_every_step_fails_when_mutated(d):
    """Every mutation that changes a step's claim (not ``equivalent``) fails its check, and every step has one.
    The check runs first: the (costlier) equivalence test is needed only for a mutant that survives, and
    for killed ones until one is found to change the claim."""
    survivors = []
    for step in d.steps:
        effective = False
        for label, mutated in mutations(step.claim):
            if step.check(mutated).ok:
                if not equivalent(step.claim, mutated):
                    survivors.append(f"{step.name}: {label}")
                    effective = True
            elif not effective:
                effective = not equivalent(step.claim, mutated)
        assert effective, f"no effective mutation for step {step.name}"
    assert not survivors, survivors


def test_registry_and_ids():
    assert len(IDS) == len(set(IDS))
    for key in ("Q-bounds.lower", "L2.upper", "L2.lower", "P1.lower", "P1.upper", "L3", "P2", "DCL-11.lower",
                "DCL-11.upper", "DCL-12", "L4", "A2.eps", "A2.ratio", "A2.liminf", "A2.13"):
        assert key in IDS


def test_paper_substitution_in_prop1_fails():
    """Erratum P1-Xj: with X_j = e^{<.,.>/tau} the Lemma 2 instance is not the Prop. 1 quantity."""
    step = S3.BY_ID["P1.lower"].steps[1]
    chk = step.check
    assert chk(step.claim).ok
    paper = ByLemma(chk.lemma, {**chk.subs, "X": sp.Lambda(S3.j, sp.exp(S3.S(S3.j) / S3.tau))},
                    under=Ea, hyp_checks=chk.hyp_checks)
    assert not paper(step.claim).ok


def test_errata_point_to_proved_derivations():
    ids = set(IDS)
    for e in ERRATA:
        assert set(e) >= {"id", "paper_ref", "kind", "paper_says", "corrected", "proved_by"}
        if e["proved_by"] in S3.BY_ID:
            assert e["proved_by"] in ids and cited_result(S3.BY_ID[e["proved_by"]]).verdict == "proved"


# ---------------------------------------------------------------- statements
@pytest.mark.parametrize("id_which", [(i, w) for i in S3.STATEMENTS for w in S3.STATEMENTS[i]])
def test_statements_lambdify_numpy_and_mpmath_agree(id_which):
    i, w = id_which
    args = S3.bound_args(i, w)
    rng = np.random.default_rng(1)
    for _ in range(5):
        vals = {"tau": rng.uniform(0.3, 1.2), "k": int(rng.integers(1, 1000)), "m": int(rng.integers(1, 100)),
                "D2": rng.uniform(1, 5), "a": rng.uniform(0.001, 1 / 65), "b": rng.uniform(0.2, 3),
                "c": rng.uniform(0.1, 2), "piA": rng.uniform(0, 1)}
        xs = [vals[s.name] for s in args]
        v_np = float(S3.bound_function(i, w, "numpy")(*xs))
        with mpmath.workdps(30):
            v_mp = float(S3.bound_function(i, w, "mpmath")(*[mpmath.mpf(v) for v in xs]))
        assert math.isclose(v_np, v_mp, rel_tol=1e-12, abs_tol=1e-14)


def test_statement_values():
    p1l, p1u = S3.bound_function("P1", "lower"), S3.bound_function("P1", "upper")
    assert [a.name for a in S3.bound_args("P1", "lower")] == ["k", "tau"]
    assert p1l(10, 0.5) == pytest.approx(-math.log(1 + math.exp(4) / 10))
    assert p1u(10, 0.5) == pytest.approx((math.exp(4) - 1) ** 2 / 80)
    assert S3.bound_function("P2", "upper")(2.0, 10, 0.5) == pytest.approx(4 * 2 / 5 + math.log(1 + math.exp(4) / 10))
    assert S3.bound_function("L4", "upper")(0.25) == pytest.approx(8)


def test_a2_limit_matches_the_example_model():
    """A2 'limit' (delta = 0) equals Var/E^2 of e^{s/tau} in example_a2 with delta = 0; eps inequalities hold."""
    lim = S3.bound_function("A2", "limit", "mpmath")
    for tau in (0.2, 0.3, 0.5, 0.8, 1.2, 1.4):
        with mpmath.workdps(30):
            law = example_a2(tau).anchor_laws(mpmath.mp)[0]
            X = [mpmath.exp(s / tau) for s in law.negative_similarity]
            w = law.negative_weight
            mu = mpmath.fsum(p * x for p, x in zip(w, X))
            ratio = mpmath.fsum(p * (x - mu) ** 2 for p, x in zip(w, X)) / mu ** 2
            assert mpmath.almosteq(ratio, lim(mpmath.mpf(tau)), 1e-12)
            n = math.ceil(math.exp(1 / tau) - 1)
            assert 0.5 <= (math.exp(1 / tau) - 1) / n <= 1
            assert ratio >= S3.STATEMENTS["A2"]["ratio_lower"].subs({S3.a: 0, S3.tau: tau})


# ---------------------------------------------------------------- bounds hold on an exact small model
def _law():
    return dict(s=(0.9, -0.3, 0.2), w=(0.2, 0.5, 0.3), r=(2.5, 0.4, 1.0), p=(0.9, 0.2), q=(0.7, 0.3))


def _exact_gaps(k, tau, L):
    """int CE - R, int CE - R~ and search CE - R~, R by enumerating all count vectors (one anchor)."""
    X = [math.exp(s / tau) for s in L["s"]]
    mu = sum(w * x for w, x in zip(L["w"], X))
    ers = sum(w * r * s for w, r, s in zip(L["w"], L["r"], L["s"]))
    info = dcl = search = 0.0
    for n0 in range(k + 1):
        for n1 in range(k + 1 - n0):
            n = (n0, n1, k - n0 - n1)
            pr = math.factorial(k) / math.prod(math.factorial(c) for c in n) * math.prod(w ** c for w, c in zip(L["w"], n))
            muhat = sum(c * x for c, x in zip(n, X)) / k
            dcl += pr * (math.log(mu) - math.log(muhat))
            info += pr * sum(q * (math.log(mu) - math.log(1 / k * math.exp(p / tau) + muhat)) for p, q in zip(L["p"], L["q"]))
            search += pr * (-(sum(c * r * s for c, r, s in zip(n, L["r"], L["s"])) / sum(c * r for c, r in zip(n, L["r"])) - ers) / tau)
    return info, dcl, search


def test_bounds_hold_on_exact_small_model():
    L = _law()
    for tau, k in itertools.product((0.5, 1.0), (1, 2, 5, 12)):
        info, dcl, search = _exact_gaps(k, tau, L)
        D2loc = sum(w * r * r for w, r in zip(L["w"], L["r"]))
        assert S3.bound_function("P1", "lower")(k, tau) <= info <= S3.bound_function("P1", "upper")(k, tau)
        assert 0 <= dcl <= min(S3.bound_function("DCL-11", "upper")(k, tau), S3.bound_function("L4", "upper")(tau))
        assert abs(search) <= S3.bound_function("DCL-12", "upper")(D2loc, k, tau)
        # search CE - R = (search CE - R~) - (R - R~), and R - R~ = dcl - info
        assert abs(search - (dcl - info)) <= S3.bound_function("P2", "upper")(D2loc, k, tau)


def test_rendered_files_are_up_to_date():
    import difflib
    from infonce_sym.proofs.render import DEFAULT_OUT
    stale = render_all(check=True)
    if stale:                          # show what differs: the rendering is a function of the chains only
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            render_all(tmp)
            p = stale[0]
            new = (Path(tmp) / p.relative_to(DEFAULT_OUT)).read_text().splitlines()
            diff = "\n".join(list(difflib.unified_diff(p.read_text().splitlines(), new, lineterm=""))[:40])
        raise AssertionError(f"stale: {[str(x) for x in stale]}\n{diff}")


def test_a1_remainder_erratum_counterexample():
    """The paper's A.1 display fails (tau = 1/2, k = 1, s = +-1 w.p. 0.01 / 0.99); the corrected one (A1.32) holds."""
    for tau, w, k in ((0.5, 0.01, 1), (0.25, 0.05, 2), (1.0, 0.3, 3), (2.0, 0.5, 1)):
        xs = [math.exp(1 / tau), math.exp(-1 / tau)]
        mu = w * xs[0] + (1 - w) * xs[1]
        lhs = m2 = m3 = 0.0
        for n in range(k + 1):
            pr = math.comb(k, n) * w ** n * (1 - w) ** (k - n)
            mh = (n * xs[0] + (k - n) * xs[1]) / k
            lhs += pr * (math.log(mu) - math.log(mh))
            m2 += pr * (mh - mu) ** 2
            m3 += pr * abs(mh - mu) ** 3
        assert lhs >= m2 / (2 * mu ** 2) - math.exp(3 / tau) * m3 / 3                  # corrected
        if (tau, w, k) == (0.5, 0.01, 1):
            assert lhs < m2 / (2 * mu ** 2) - m3 / (3 * math.exp(3 / tau))            # paper's version fails


def test_prop2_third_equality_erratum():
    """Without the density ratio in the numerator the third equality after (30) is not an identity."""
    from infonce_sym.proofs.chain import Ex, Identity, eq
    j, k, S, r = S3.j, S3.k, S3.S, S3.r
    corrected = Ex(sp.Sum(r(j) * S(j), (j, 1, k)) / sp.Sum(r(j), (j, 1, k)))
    paper = Ex(sp.Sum(S(j), (j, 1, k)) / sp.Sum(r(j), (j, 1, k)))
    assert not Identity()(eq(corrected, paper)).ok
    step = S3.BY_ID["DCL-12"].steps[0]
    assert step.check(step.claim).ok
    assert not step.check(eq(step.claim.lhs.xreplace({corrected: paper}), step.claim.rhs)).ok


# ---------------------------------------------------------------- mutants of everything (issue 9, item 7)
def test_sampled_mutants_of_every_kind_are_killed():
    """A deterministic sample (1 per derivation and kind) of the mutants of claims, hypotheses and slacks,
    witnesses, citations (parameters and cited conclusions), contexts and quoted conclusions: every one
    is killed (its check fails or it leaves an undischarged fact).  The full run: infonce-sym derivations --mutate."""
    from infonce_sym.proofs.mutants import run_mutants
    # the chains through the integral of (43) (L6.path, P4, P4.sharp) have their own test below (so that the
    # two run in parallel); all their mutants: `infonce-sym derivations --mutate`
    slow = {"L6.path", "P4", "P4.sharp"}
    res = run_mutants([d for d in DERIVATIONS if d.id not in slow], sample=1, seed=0)
    assert res["mutants"] > 150
    for kind in ("claim", "hypothesis", "witness", "citation", "context", "quoted"):
        assert res["by_kind"][kind]["mutants"] > 0, kind
    assert res["survivors"] == [], res["survivors"][:5]


def test_sampled_mutants_of_the_integral_chains_are_killed():
    """The same sample (1 per kind) for the chains through the integral of (43), L6.path, P4 and P4.sharp,
    in a test of its own (about 30 s after their runs): every one of the 14 is killed."""
    from infonce_sym.proofs.mutants import run_mutants
    res = run_mutants([d for d in DERIVATIONS if d.id in {"L6.path", "P4", "P4.sharp"}], sample=1, seed=0)
    assert res["mutants"] >= 12
    for kind in ("claim", "hypothesis", "witness", "citation", "context", "quoted"):
        assert res["by_kind"][kind]["mutants"] > 0, kind
    assert res["survivors"] == [], res["survivors"][:5]


def test_a_citation_mutant_is_equivalent_only_when_the_cas_confirms_it():
    """A parameter mutant is skipped as equivalent when its lemma instance is the same.  The sides were compared
    at three random points only, and x <= y + |x - y| with y -> 1 agrees with the original wherever x >= y, 1:
    three such mutants of EXP.search-dcl were skipped without running.  Now the CAS must confirm the equality;
    those mutants run, and each is killed."""
    from infonce_sym.proofs.mutants import EQUIVALENT, _same_sides, killed, mutants
    x, y = sp.symbols("x y", positive=True)
    assert not _same_sides(sp.Le(x, y + sp.Abs(x - y)), sp.Le(x, 1 + sp.Abs(x - 1)))
    assert _same_sides(sp.Le(x, y + sp.Abs(x - y)), sp.Le(x, sp.Abs(y - x) + y))
    from infonce_sym.proofs import derivation
    ms = mutants([derivation("EXP.search-dcl.upper")], kinds=("citation",))
    assert not any("parameter y -> 1" in e for e in EQUIVALENT)
    drawn = [m for m in ms if m.label.endswith("parameter y -> 1")]
    assert drawn and all(killed(m)[0] for m in drawn)


def test_unused_and_used_assumptions():
    """Every relational assumption that discharges a premise, mutated, leaves that premise undischarged."""
    from infonce_sym.proofs.mutants import killed, mutants
    for id_ in ("P1.lower", "A2.13", "L7"):
        d = next(x for x in DERIVATIONS if x.id == id_)
        ms = [m for m in mutants([d], kinds=("hypothesis",)) if m.step_index == -1]
        assert ms, id_
        assert all(killed(m)[0] for m in ms)


def test_mutants_of_some_kinds_are_those_kinds_of_all_mutants():
    """``mutants(kinds=...)`` builds only those kinds (the tests above ask for one kind): the same mutants, in the same
    order, as the full list filtered; an unknown kind is refused."""
    from infonce_sym.proofs.mutants import mutants
    d = next(x for x in DERIVATIONS if x.id == "L7")
    every = [(m.step_index, m.kind, m.label) for m in mutants([d])]
    for kinds in (("hypothesis",), ("claim", "citation")):
        assert [(m.step_index, m.kind, m.label) for m in mutants([d], kinds=kinds)] == [x for x in every if x[1] in kinds]
    assert {k for _, k, _ in every} > {"hypothesis", "claim"}
    with pytest.raises(ValueError, match="nonsense"):
        mutants([d], kinds=("nonsense",))


def test_a2_ratio_assumes_delta_small_and_survives_an_attack():
    """A2.ratio's limit step held F >= (1 - a) L at every (m0, v0) (a library lemma without "near the
    point"); false at tau = 1/2, N = 7, a = 1/2, X0 = 0.9 (m0 = e^{1.8}, v0 = 0): ratio 0.0056 against
    r5 = 0.34 (the audit, Dec 2026).  The chain now assumes m0 <= m_a, an explicit threshold that this
    point violates; on random points that satisfy it (m0 down to e^{-delta/tau}, any v0 >= 0) the
    statement holds, and the threshold is above 1 (so some delta > 0 satisfies it)."""
    import random
    d = S3.BY_ID["A2.ratio"]
    small = [x for x in d.assumptions if x.rel is not None and x.text.startswith("delta small")]
    assert len(small) == 1
    m0, v0 = sorted((s_ for s_ in d.quantity.free_symbols if s_.name in ("m0", "v0")), key=lambda s_: s_.name)
    m_a = small[0].rel.rhs if small[0].rel.lhs == m0 else small[0].rel.lhs
    at = {S3.tau: sp.Rational(1, 2), S3.N: 7, S3.a: sp.Rational(1, 2)}
    bad = {**at, m0: sp.exp(sp.Rational(9, 5)), v0: 0}
    assert float(d.quantity.subs(bad)) < 0.006 and float(d.statement.subs(bad)) > 0.33
    assert float(m_a.subs(at)) < float(sp.exp(sp.Rational(9, 5)))           # excluded by the assumption
    f = sp.lambdify((S3.tau, S3.N, S3.a, m0, v0), d.quantity - d.statement)
    g = sp.lambdify((S3.tau, S3.N, S3.a), m_a)
    rng = random.Random(7)
    for _ in range(400):
        tau = rng.uniform(0.2, 1 / math.log(2) - 1e-3)
        N, a = math.ceil(math.exp(1 / tau) - 1), rng.uniform(1e-3, 1 - 1e-3)
        top = g(tau, N, a)
        assert top > 1
        m = rng.uniform(1 / top, top)            # |X0| <= delta = tau log top: m0 in [e^{-delta/tau}, e^{delta/tau}]
        assert f(tau, N, a, m, rng.uniform(0, (top - 1 / top) ** 2 / 4)) >= -1e-12


# ---------------------------------------------------------------- (13) from (12), A2.liminf and the limsup of a ratio
def test_a2_13_is_the_paper_13_from_its_citations():
    """A2.13's quantity is the paper's (13), limsup_k |search CE - R~| / (int CE - R~), with DCL-12's quantity as
    the numerator; its chain cites DCL-12 and A2.liminf (both instantiated) and assumes no consequence itself
    (the assumed ones through its citations are Lemma 3's, via DCL-12)."""
    from infonce_sym.proofs.lemmas import Limsup
    from infonce_sym.proofs.render import audit_record
    d = S3.BY_ID["A2.13"]
    res = cited_result(d)
    assert res.verdict == "proved" and res.undischarged == []
    num = S3.BY_ID["DCL-12"].quantity
    defs = S3.risk_definitions()
    assert d.quantity == Limsup(num / (defs["ce"] - defs["Rt"]), S3.k)
    assert d.statement == S3.STATEMENTS["A2"]["ratio13"]
    assert sp.simplify(d.statement - 65 * S3.D2 / (S3.tau * (sp.exp(1 / S3.tau) - 2))) == 0
    assert {"DCL-12", "A2.liminf"} <= set(res.cites)
    assert {"limsup and liminf", "Fatou"} <= set(res.lemmas)
    rec = audit_record(d, res)
    # Lemma 3's two were shown (this was {L3.24, L3.25}); A2.liminf assumes E V^2 = Var/E^2 of the A.2 law, which a
    # citation checks at its instance like any hypothesis: A2.13 assumes it at each anchor (V_j = X_j/mu - 1)
    assert rec["assumed_consequences"] == 1
    assert [t.split(":")[0] for t in rec["assumed_consequences_with_citations"]] == ["A2.13", "A2.liminf"]


def test_limsup_lemmas_refuse_false_hypotheses():
    """A library lemma of limits whose hypothesis is false fails the step (a gap that is negative), or leaves the
    hypothesis undischarged (a bound that depends on n)."""
    from infonce_sym.proofs import lemmas as L
    from infonce_sym.proofs.chain import Ex, le, ge
    n = sp.Symbol("n", positive=True, integer=True)
    ok = ByLemma(L.limsup_bounded(), {"U": 1 - 1 / n, "B": 1, "n": n})(le(L.Limsup(1 - 1 / n, n), 1))
    assert ok.ok and not ok.premises
    # U_n = 1 + 1/n is not <= 1
    r = ByLemma(L.limsup_bounded(), {"U": 1 + 1 / n, "B": 1, "n": n})(le(L.Limsup(1 + 1 / n, n), 1))
    assert not r.ok and "hypothesis 0" in r.detail and "is false" in r.detail
    # u_n = -1 >= 0 is false (and limsup -1/v_n = -1/2 > -1 for v_n alternating 1, 2: the conclusion is false)
    v = sp.Rational(3, 2) + (-1) ** n / 2
    bad_u = ByLemma(L.limsup_ratio(), {"U": -1, "V": v, "n": n, "A": -1, "B": 1})
    r = bad_u(le(L.Limsup(-1 / v, n), -1))
    assert not r.ok and "hypothesis 0" in r.detail and "is false" in r.detail
    # liminf v_n >= B with B = -1 <= 0
    bad_b = ByLemma(L.limsup_ratio(), {"U": 1, "V": 2 + 1 / n, "n": n, "A": 1, "B": -1})
    r = bad_b(le(L.Limsup(1 / (2 + 1 / n), n), -1))
    assert not r.ok and "hypothesis 3" in r.detail and "is false" in r.detail
    # Fatou needs F_n >= 0
    F = -1 - 1 / n
    r = ByLemma(L.fatou(Ex), {"F": F, "n": n})(ge(L.Liminf(Ex(F), n), Ex(L.Liminf(F, n))))
    assert not r.ok and "hypothesis 0" in r.detail and "is false" in r.detail


def test_12_does_not_bound_the_limsup_by_its_k_dependent_bound():
    """limsup_k |search CE - R~| <= 4 D2/(tau k) from (12) at every k is refused: the bound of the lemma must be
    free of k (the hypothesis B(k + 1) = B(k) stays undischarged, the chain is conditional); A2.13 bounds
    limsup_k k |search CE - R~| by 4 D2/tau instead."""
    from infonce_sym.proofs import lemmas as L
    from infonce_sym.proofs.chain import AsGap, Derivation, Step, le
    from infonce_sym.proofs.register import cite
    d12 = S3.BY_ID["DCL-12"]
    num, b = d12.quantity, d12.statement
    chk = ByLemma(L.limsup_bounded(), {"U": num, "B": b, "n": S3.k},
                  hyp_checks={0: AsGap(ByLemma(cite("DCL-12", {"k": S3.k}), {"k": S3.k}))})
    d = Derivation("toy", "limsup of (12)", "", L.Limsup(num, S3.k), "le", b,
                   [Step("(12)", "", le(L.Limsup(num, S3.k), b), "", chk)], list(d12.assumptions))
    res = d.run()
    assert res.verdict == "conditional"
    assert [t for _, t in res.undischarged] == [f"hypothesis 1 of {L.limsup_bounded().name}: "
                                                f"Eq(4*D2/(tau*(k + 1)), 4*D2/(k*tau))"]


def test_p2_28_shows_t_at_least_k_exp_minus_2_over_tau():
    """T = sum_j e^{(S_j - P)/tau} >= k e^{-2/tau} was an assumed consequence of (28); it is now shown termwise
    from S_j >= -1 (every negative) and P <= 1.  Independent route: random similarities, and the extreme one."""
    from infonce_sym.proofs.register import derivation
    d = derivation("P2.28")
    r = d.run()
    assert r.verdict == "proved" and not any(a.derived for a in d.structured_assumptions())
    assert any(t.startswith("T := Sum(exp((-P + S(j))/tau)") for t in r.definitions)
    rng = np.random.default_rng(3)
    for tau_, k_ in ((0.05, 5), (2.0, 100)):
        S_, P_ = rng.uniform(-1, 1, k_), rng.uniform(-1, 1)
        assert np.exp((S_ - P_) / tau_).sum() >= k_ * np.exp(-2 / tau_)
        assert np.isclose(np.exp((-np.ones(k_) - 1) / tau_).sum(), k_ * np.exp(-2 / tau_), rtol=1e-12)


def test_lemma4_shows_mu_and_muhat_in_range():
    """mu <= e^{1/tau} and muhat >= e^{-1/tau} were assumed consequences of Lemma 4; both are now shown (monotonicity
    of E from S <= 1; termwise from S_j >= -1).  Independent route: an empirical pi with similarities at the ends."""
    from infonce_sym.proofs.register import derivation
    d = derivation("L4")
    r = d.run()
    assert r.verdict == "proved" and not any(a.derived for a in d.structured_assumptions())
    shown = [how for _, what, how in r.discharged if what.startswith(("v_mu =", "v_muhat ="))]
    assert len(shown) == 2 and all("derivation" not in how and "assumption" not in how for how in shown)
    tau_ = 0.2
    for S_ in (np.ones(4), -np.ones(4), np.linspace(-1, 1, 9)):
        mu, muhat = np.exp(S_ / tau_).mean(), np.exp(S_[:3] / tau_).mean()
        assert np.log(mu) <= 1 / tau_ + 1e-12 and np.log(muhat) >= -1 / tau_ - 1e-12
    assert np.isclose(np.log(np.exp(np.ones(4) / tau_).mean()), 1 / tau_)


def test_q_bounds_show_the_integral_bounds_from_the_definitions():
    """N_A, D in [e^{-1/tau}, e^{1/tau}] (times pi(A) for N_A) were four assumed consequences of (8); they are now
    shown by monotonicity of E from N_A := E_pi[1_A e^{S/tau}], D := E_pi[e^{S/tau}], pi(A) := E_pi[1_A] and
    |S| <= 1.  Independent route: a discrete pi at the extreme similarities attains the bounds of (8)."""
    from infonce_sym.proofs.register import derivation
    for rid in ("Q-bounds.lower", "Q-bounds.upper"):
        d = derivation(rid)
        r = d.run()
        assert r.verdict == "proved" and not any(a.derived for a in d.structured_assumptions())
        assert "N_A := Ex(1_A(0)*exp(S(0)/tau))" in r.definitions
    tau_, w = 0.3, np.array([0.2, 0.5, 0.3])
    for s_, in_A in ((np.array([1.0, -1.0, -1.0]), np.array([1, 0, 0])), (np.array([-1.0, 1.0, 1.0]), np.array([1, 0, 0]))):
        Q = (w * in_A * np.exp(s_ / tau_)).sum() / (w * np.exp(s_ / tau_)).sum()
        piA_ = (w * in_A).sum()
        assert np.exp(-2 / tau_) * piA_ - 1e-15 <= Q <= np.exp(2 / tau_) * piA_ + 1e-15


def test_the_assumed_consequences_left_are_these():
    """Every fact a chain assumes as a consequence of the paper's hypotheses (Assumption.derived), by result: a
    debt counted in the audit and rendered.  Those shown since (Q-bounds, L4, P2.28, L5, P3's [0, 1]-valued class,
    A1.32's y^3 <= |y|^3, Lemma 3's |f - E f| <= 2 and |A| <= 2B, L1.50's power mean, the Taylor points of L2
    and A.1, P5.chaining.M's three covering facts) must not come back; a new one must be added
    here on purpose."""
    from infonce_sym.proofs.register import derivation, ids
    left = {}
    for rid in ids():
        for a in derivation(rid).structured_assumptions():
            if a.derived:
                left.setdefault(rid, []).append(a.text.split(" (")[0][:20])
    # the signs of two names that their chains declare (W, c_delta > 0) and the CAS cannot read off their
    # definitions: assumed since the check of declared signs (before it, the declarations hid them); A.2's
    # E V^2 = Var/E^2, the moment A2.32.lower's m2 names (A2.liminf once defined m2 as the ratio itself, a second
    # meaning of a cited name; a probe, Dec 2026); and (17), the meaning of v_j - v'_j in terms of the vectors, which
    # L17's opaque similarities do not carry (its step was a definition, Identity(defs=...), that checked Mv/tau
    # against itself).  A citation checks a cited assumed consequence at its instance: T1 and A2.13 assume them too
    assert left == {"A2.liminf": ["E V^2 = Var(X)/mu^2,"], "A2.13": ["E V^2 = Var(X)/mu^2,"],
                    "P3.exact": ["c_delta = sqrt(log(2", "W = b - a > 0"],
                    "P3": ["c_delta = sqrt(log(2", "W = b - a > 0"], "T1": ["c_delta = sqrt(log(2", "W = b - a > 0"],
                    "L17": ["(17): V_inf = Mv/tau"],
                    "L17-18": ["(17): V_inf = Mv/tau"], "L17.linear": ["(17): V_inf = Mv/tau"],
                    # Lemma 1 and Prop. 5 by the (18) route cite L17-18 at every tuple (P5.lip's case a <= 1 at theta'
                    # and at theta0 as well)
                    "L1.lip.tuple": ["(17): V_inf = Mv/tau"], "L1.lip": ["(17): V_inf = Mv/tau"],
                    "P5.lip.a-ge-1": ["(17): V_inf = Mv/tau"], "P5.lip.a-le-1": ["(17): V_inf = Mv/tau"] * 2}


def test_lemma3_shows_its_two_range_facts():
    """|f - E_nu f| <= 2 and |A| <= 2B were assumed by L3.24 / L3.25; both are shown now (the triangle inequality,
    |E_pi[r f]| <= E_pi r = 1, termwise sums).  Independent route: random weights r >= 0 with E_pi r = 1 and
    |f| <= 1 on a finite pi, and the extreme f = +-1."""
    from infonce_sym.proofs.register import derivation
    for rid in ("L3.24", "L3.25", "L3"):
        d = derivation(rid)
        assert d.run().verdict == "proved" and not any(a.derived for a in d.structured_assumptions())
    rng = np.random.default_rng(8)
    for m_ in (1, 5, 50):
        w = rng.dirichlet(np.ones(20))                   # pi on 20 points
        r_ = rng.exponential(1, 20)
        r_ /= (w * r_).sum()                             # E_pi r = 1
        f_ = rng.choice([-1.0, 1.0], 20) * rng.uniform(0.5, 1, 20)
        Ef = (w * r_ * f_).sum()
        assert abs(Ef) <= 1 and np.all(np.abs(f_ - Ef) <= 2)
        idx = rng.choice(20, m_, p=w)
        A_, B_ = (r_[idx] * (f_[idx] - Ef)).mean(), r_[idx].mean()
        assert abs(A_) <= 2 * B_ + 1e-15


def test_expansion_bounds_hold_per_anchor_not_with_pooled_moments():
    """EXP.infonce.upper keeps the moments m_n outside E over anchors, so it is a per-anchor statement, averaged over
    anchors (its stated reading, ``expansions.ANCHOR_READING``).  Two equally likely anchors, V = 0 at one and
    V = +-1/2 at the other, W = 1/10, ell = 1/2 (a probe's example, Dec 2026): the exact gap, a binomial sum, lies
    below the per-anchor bounds averaged, and above the bound evaluated at the pooled moments, which misses by
    about 3/4 Var(m_2)/k^2."""
    from infonce_sym.proofs.expansions import ANCHOR_READING
    from infonce_sym.proofs.register import derivation
    from infonce_sym.proofs.statement_registry import statement
    for rid in ("EXP.infonce", "EXP.dcl", "EXP.search-dcl", "EXP.infonce.lower", "EXP.infonce.upper"):
        assert ANCHOR_READING in [a.text for a in derivation(rid).structured_assumptions()], rid
    upper = statement("EXP.infonce.upper")
    with mpmath.workdps(40):
        mp = mpmath.mp
        k, w = 1000, mp.mpf(1) / 10
        quiet = {f"m{n}": mp.mpf(0) for n in range(2, 7)}
        spread = {f"m{n}": (mp.mpf(1) / 2) ** n if n % 2 == 0 else mp.mpf(0) for n in range(2, 7)}
        common = {"k": k, "ell_V": mp.mpf(1) / 2, "EW": w, **{f"EW{n}": w ** n for n in range(2, 7)}}
        bound = lambda moments: upper.evaluate("mpmath", **common, **moments)  # noqa: E731
        # the exact gap -E log(1 + W/k + Vbar): Vbar = (2B/k - 1)/2 at the second anchor, B ~ Bin(k, 1/2)
        second = mp.fsum(mp.binomial(k, b) / mp.mpf(2) ** k * -mp.log(1 + w / k + (2 * mp.mpf(b) / k - 1) / 2)
                         for b in range(k + 1))
        gap = (-mp.log(1 + w / k) + second) / 2
        per_anchor = (bound(quiet) + bound(spread)) / 2
        pooled = bound({n: (quiet[n] + spread[n]) / 2 for n in quiet})
        assert gap <= per_anchor
        assert pooled < gap
        var_m2 = ((spread["m2"] - quiet["m2"]) / 2) ** 2
        # c2's 3/4 m_2^2 averaged over anchors exceeds its pooled value by 3/4 Var(m_2); the k^-3 terms of the
        # bound (its B/k^3 with 1/(6 ell^6)) make up the last 5 % at k = 1000
        assert abs((gap - pooled) * k ** 2 - 3 * var_m2 / 4) < mp.mpf("0.1") * 3 * var_m2 / 4
