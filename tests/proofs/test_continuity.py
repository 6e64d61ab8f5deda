"""Section 4.1 continuity chains in R^d for every d (infonce_sym.proofs.continuity): verdicts, citations,
mutants, the constants explorer's failures, and the proved statements against brute-force numbers."""
import math

import numpy as np
import pytest
import sympy as sp
from sympy.core.function import AppliedUndef

from infonce_sym.proofs import continuity as C
from infonce_sym.proofs import derivation
from infonce_sym.proofs import statements as B4
from infonce_sym.proofs.chain import cited_result, relation_kind
from infonce_sym.quantities.loss import infonce_loss

IDS = ["L6", "L6.second", "L6.path", "L7", "L8", "P4.47", "P4.47.plus", "P4.47.minus", "P4.48", "P4.G1", "P4", "P4.sharp"]


@pytest.fixture(scope="module")
def chains():
    """The registered chains (each registered once; the registry builds them with proofs.continuity)."""
    return {i: derivation(i) for i in IDS}


@pytest.fixture(scope="module")
def results(chains):
    return {i: cited_result(chains[i]) for i in IDS}      # d.run(), once per process


def test_every_chain_is_proved_with_nothing_undischarged(chains, results):
    for i in IDS:
        r = results[i]
        assert r.verdict == "proved", (i, r.verdict, r.undischarged)
        assert r.undischarged == [], (i, r.undischarged)


def test_final_statements_are_the_statements_module_bounds(chains):
    assert chains["P4"].statement == B4.BOUNDS["prop4"]
    assert chains["P4.sharp"].statement == B4.BOUNDS["prop4_sharp"]
    assert chains["L8"].statement == B4.BOUNDS["lemma8"]


def test_only_the_papers_assumptions(chains):
    """No assumed consequence: P4, P4.sharp rest on beta >= 1 and the unit norms of phi, phi' at the tuple's points;
    L8 on beta >= 1 and ||f|| <= 1; the range of c is discharged by the integral over [0, 1]."""
    for i in ("P4", "P4.sharp", "L8"):
        rel = [a for a in chains[i].structured_assumptions() if a.rel is not None]
        assert not any(a.derived for a in rel), i
        assert not any(sp.Symbol("c", real=True) in a.rel.free_symbols for a in rel), i
    p4 = [a.rel for a in chains["P4"].structured_assumptions() if a.rel is not None]
    assert len(p4) == 7 and p4[0] == sp.Ge(B4.beta, 1, evaluate=False)
    assert all(relation_kind(r) == "eq" and r.rhs == 1 for r in p4[1:])        # ||.||^2 = 1 at 6 points


def test_citations(results, chains):
    assert results["L6.path"].cites == ["L6"]
    assert results["L8"].cites == ["L7"]
    for i in ("P4", "P4.sharp"):
        assert "L6.path" in results[i].cites and "L8" in results[i].cites and "P4.47" in results[i].cites
    assert "P4.48" in results["P4"].cites and "P4.47.plus" in results["P4"].cites
    assert "P4.G1" in results["P4.sharp"].cites
    # L6.path's last step instantiates Lemma 6 at mu = pi_hat^- (m = k atoms of weight 1/k): the instance's weights
    st = chains["L6.path"].steps[-1]
    assert st.check.lemma.derivation is chains["L6"]
    assert st.check.subs["m"] == B4.k and st.check.subs["w"] == C.W1k
    # L8 cites L7 with a_j = ||Delta(z_j^-)||, x_j = <f(z^a), f(z_j^-)>
    st7 = next(s for s in chains["L8"].steps if s.name == "Lemma 7")
    assert st7.check.lemma.derivation is chains["L7"]
    assert st7.check.subs["a"](C.j) == C.norm(C._at(C.D_n, C.j))


def test_a_wrong_instance_of_a_citation_fails(chains):
    """The cited Lemma 6 instantiated with the weights 2/k (a wrong mu) no longer matches the claim."""
    st = chains["L6.path"].steps[-1]
    chk = st.check
    bad = type(chk)(chk.lemma, {**chk.subs, "w": sp.Lambda(C.j, 2 / B4.k)}, context=chk.context)
    assert not bad(st.claim).ok


def test_the_quantity_is_the_papers_loss():
    """The symbolic l(phi) (sums over d and k written out at d = 3, k = 5) equals infonce_loss at random unit vectors."""
    rng = np.random.default_rng(3)
    d_, k_ = 3, 5
    a, p, n = (_unit(rng, (1, d_)), _unit(rng, (1, d_)), _unit(rng, (1, k_, d_)))
    tau_ = 0.7
    sym = C.loss(*C.PHI)
    val = _evaluate(sym, d_, k_, {"phi_a": a[0], "phi_p": p[0], "phi_n": n[0]}, tau_)
    assert abs(val - infonce_loss(a, p, n, tau_)[0]) < 1e-12


# ---------------------------------------------------------------- the explorer (constants replaced)
def test_p4_sharp_with_111_fails_at_the_named_step(chains):
    d = C.build_prop4(chains["L8"], sharp=(1, 1, 1))[1]
    r = d.run()
    assert r.verdict == "failed"
    assert [s.name for s, x in zip(d.steps, r.steps) if not x.ok] == ["(47), Lemma 8"]


@pytest.mark.parametrize("which, consts, step", [
    ("sharp", (2, 1, sp.Rational(1, 2)), "(47), Lemma 8"), ("sharp", (2, sp.Rational(9, 10), 1), "(47), Lemma 8"),
    ("paper", (3, 1, 3), "(47), (48)"), ("paper", (4, 1, 2), "(47), (48)"), ("paper", (4, sp.Rational(1, 2), 3), "(47), (48)")])
def test_unsupported_constants_fail_at_a_named_step(chains, which, consts, step):
    """The steps before the named one do not involve the constants (the same claims as in the proved chain); the named
    step fails; the later ones (the citation of L8, the integral of the bound) still check."""
    i = 1 if which == "sharp" else 0
    kw = {"sharp": consts} if which == "sharp" else {"consts": consts}
    d, proved = C.build_prop4(chains["L8"], **kw)[i], chains["P4.sharp" if i else "P4"]
    at = [s.name for s in d.steps].index(step)
    assert [s.claim for s in d.steps[:at]] == [s.claim for s in proved.steps[:at]]
    assert not d.steps[at].run().ok
    assert all(s.run().ok for s in d.steps[at + 1:])


def test_larger_constants_are_proved(chains):
    d = C.build_prop4(chains["L8"], consts=(5, 2, 4))[0]
    assert d.run().verdict == "proved"
    assert sp.simplify(d.statement - (5 * B4.Da + 2 * B4.Dp + 4 * sp.exp(2 / (B4.beta * B4.tau)) * B4.PM) / B4.tau) == 0


# ---------------------------------------------------------------- mutants
def test_mutants_of_the_small_chains_are_all_killed(chains):
    from infonce_sym.proofs.mutants import run_mutants
    res = run_mutants([chains[i] for i in ("L7", "P4.47", "P4.47.plus", "P4.47.minus")])
    assert res["mutants"] > 100
    for kind in ("claim", "hypothesis", "witness", "citation", "context", "quoted"):
        assert res["by_kind"][kind]["mutants"] > 0, kind
    assert res["survivors"] == [], res["survivors"][:3]


def test_mutants_of_l8_are_all_killed(chains):
    """Every mutant of L8 (claims, slacks, witnesses, its citation of L7 and of the library lemmas).  The chains
    with integrals (L6.path, P4, P4.sharp) are left to ``infonce-sym derivations --mutate``: the equivalence
    filter of the mutants evaluates their integrands, which takes minutes."""
    from infonce_sym.proofs.mutants import run_mutants
    res = run_mutants([chains["L8"]])
    assert res["mutants"] >= 60 and res["by_kind"]["citation"]["mutants"] > 0
    assert res["survivors"] == [], res["survivors"][:3]


def test_the_issue_slack_mutant_of_p4_sharp_fails(chains):
    """The issue's mutant: the slack 2 - ||G(xi, xi) - xi(z^+)|| of step (47) weakened to 1 - ..., the witness compensated
    so that the algebra still closes: the slack's discharge (a citation of P4.G1) no longer matches, the step fails."""
    import copy
    from infonce_sym.proofs.chain import Step
    d = chains["P4.sharp"]
    st = next(s for s in d.steps if s.name == "(47), Lemma 8")
    nn = st.check.hyp_checks[0].check
    s1 = C.s1
    mut = copy.copy(nn)
    mut.hyps = {**nn.hyps, s1: nn.hyps[s1] - 1}
    old_total = sp.Add(*nn.witness).subs(list(nn.hyps.items()))
    mut.witness = list(nn.witness) + [old_total - sp.Add(*nn.witness).subs(list(mut.hyps.items()))]
    chk = copy.copy(st.check)
    chk.hyp_checks = {0: C.OnUnitInterval(mut)}
    assert Step(st.name, st.ref, st.claim, st.reason, st.check).run().ok
    r = Step(st.name, st.ref, st.claim, st.reason, chk).run()
    assert not r.ok and "not shown" in r.detail, r.detail[:200]


# ---------------------------------------------------------------- numbers
def _unit(rng, shape):
    x = rng.standard_normal(shape)
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def _evaluate(expr, d_, k_, values, tau_, beta_=None):
    """``expr`` with the sums written out at (d_, k_) and the families phi_a(l) -> values["phi_a"][l - 1], ..."""
    e = C.write_out_sums(expr, {C.d: d_, B4.k: k_})
    sub = {}
    for a in e.atoms(AppliedUndef):
        arr = values[a.func.__name__]
        idx = [int(x) - 1 for x in a.args]
        sub[a] = sp.Float(float(arr[tuple(idx)]), 30)
    e = e.xreplace(sub).xreplace({B4.tau: sp.Float(tau_, 30), B4.k: k_})
    if beta_ is not None:
        e = e.xreplace({B4.beta: sp.Float(beta_, 30)})
    return float(sp.N(e, 30))


@pytest.mark.parametrize("d_", [3, 7])
def test_prop4_and_sharp_against_brute_force(chains, d_):
    """|l(phi) - l(phi')| (infonce_loss) <= the proved statements at random unit embeddings, k = 5, near and far phi'."""
    rng = np.random.default_rng(d_)
    k_ = 5
    f4 = sp.lambdify((B4.Da, B4.Dp, B4.PM, B4.tau, B4.beta), chains["P4"].statement, "numpy")
    f4s = sp.lambdify((B4.Da, B4.Dp, B4.PM, B4.tau, B4.beta), chains["P4.sharp"].statement, "numpy")
    worst = 0.0
    for trial in range(40):
        tau_, beta_ = float(rng.choice([0.1, 0.5, 2.0])), float(rng.choice([1.0, 2.0, 5.0]))
        a, p, n = _unit(rng, (1, d_)), _unit(rng, (1, d_)), _unit(rng, (1, k_, d_))
        s = 10.0 ** rng.uniform(-3, 0.5)
        a2 = _unit(rng, (1, d_)) if trial % 4 == 0 else (a + s * rng.standard_normal(a.shape))
        a2 = a2 / np.linalg.norm(a2, axis=-1, keepdims=True)
        p2 = p + s * rng.standard_normal(p.shape)
        p2 /= np.linalg.norm(p2, axis=-1, keepdims=True)
        n2 = n + s * rng.standard_normal(n.shape)
        n2 /= np.linalg.norm(n2, axis=-1, keepdims=True)
        dl = abs(infonce_loss(a, p, n, tau_)[0] - infonce_loss(a2, p2, n2, tau_)[0])
        Da_, Dp_ = np.linalg.norm(a - a2), np.linalg.norm(p - p2)
        PM_ = np.mean(np.linalg.norm(n - n2, axis=-1)[0] ** beta_) ** (1 / beta_)
        b4, b4s = f4(Da_, Dp_, PM_, tau_, beta_), f4s(Da_, Dp_, PM_, tau_, beta_)
        assert dl <= b4s * (1 + 1e-12) <= b4 * (1 + 1e-12) + 1e-300, (trial, dl, b4s, b4)
        worst = max(worst, dl / b4s)
    assert 0 < worst < 1


def test_lemma8_against_numbers(chains):
    """||G_tau(f, Delta, pi_hat, z^a)|| (the chain's own quantity, sums written out) <= e^{2/(beta tau)} PM, f in the unit ball."""
    rng = np.random.default_rng(11)
    d_, k_ = 3, 5
    q = chains["L8"].quantity
    for trial in range(3):
        tau_, beta_ = [0.2, 1.0, 3.0][trial], [1.0, 2.0, 4.0][trial]
        fa = _unit(rng, (d_,)) * rng.uniform(0.2, 1.0)
        fn = _unit(rng, (k_, d_)) * rng.uniform(0.2, 1.0, (k_, 1))
        pn, qn = _unit(rng, (k_, d_)), _unit(rng, (k_, d_))
        val = _evaluate(q, d_, k_, {"f_a": fa, "f_n": fn, "phi_n": pn, "phi'_n": qn}, tau_, beta_)
        w = np.exp(fn @ fa / tau_)
        w /= w.sum()
        assert abs(val - np.linalg.norm(w @ (pn - qn))) < 1e-12                 # G = sum_j p_j Delta(z_j^-)
        bound = math.exp(2 / (beta_ * tau_)) * np.mean(np.linalg.norm(pn - qn, axis=1) ** beta_) ** (1 / beta_)
        assert val <= bound


def test_lemma6_against_finite_differences(chains):
    """delta H(f)[eta] of L6 (d = 3, m = 4 atoms) against a central difference of H itself."""
    rng = np.random.default_rng(5)
    d_, m_ = 3, 4
    vals = {"f_x": rng.uniform(-1, 1, d_), "f_y": rng.uniform(-1, 1, d_), "f_z": rng.uniform(-1, 1, (m_, d_)),
            "eta_x": rng.uniform(-1, 1, d_), "eta_y": rng.uniform(-1, 1, d_), "eta_z": rng.uniform(-1, 1, (m_, d_)),
            "w": rng.uniform(0.1, 1, m_)}
    tau_ = 0.8
    form = chains["L6"].statement
    e = C.write_out_sums(form, {C.d: d_, C.m: m_})
    sub = {a: sp.Float(float(vals[a.func.__name__][tuple(int(x) - 1 for x in a.args)]), 30) for a in e.atoms(AppliedUndef)}
    got = float(sp.N(e.xreplace(sub).xreplace({B4.tau: tau_}), 30))

    def H(eps):
        fx, fy, fz = (vals["f_x"] + eps * vals["eta_x"], vals["f_y"] + eps * vals["eta_y"], vals["f_z"] + eps * vals["eta_z"])
        return math.log(np.sum(vals["w"] * np.exp((fz - fy) @ fx / tau_)))
    h = 1e-5
    assert abs(got - (H(h) - H(-h)) / (2 * h)) < 1e-7


def test_expand_with_exps_held_equals_plain_expand():
    """The sum normal form's expand, exponentials and absolute values held as symbols, equals SymPy's
    plain expand as a function (at random real points, sums written out, to 25 digits), and expands
    the products out."""
    import random
    from infonce_sym.proofs.continuity import _expand_with_exps_held
    a, b, c, x, y = sp.symbols("a b c x y", real=True)
    jj, kk = sp.symbols("jj kk", integer=True, positive=True)
    f = sp.Function("f")
    cases = [
        (sp.exp(a * x) + b * sp.Abs(y)) ** 2 * (x + sp.exp(-b * y)) / (1 + sp.exp(c)),
        sp.exp(-a / c) * (sp.Abs(x - y) + sp.exp(x)) * (a - sp.exp(-x) * b) ** 3,
        sp.Sum(f(jj) * sp.exp(-f(jj) / c), (jj, 1, kk)) * (sp.exp(a) - sp.Abs(b)) ** 2,
        sp.Abs(a) ** 2 * (sp.exp(x) + 1) ** 2 - sp.exp(2 * x) * (a + b),
    ]
    rng = random.Random(3)
    for e in cases:
        held = _expand_with_exps_held(e)
        plain = sp.expand(e, power_base=False, log=False, multinomial=True, mul=True)
        assert held.is_Add and len(held.args) >= 3, held
        for _ in range(3):
            point = {s: sp.Float(rng.uniform(-1.5, 1.5), 40) for s in (a, b, x, y)}
            point[c] = sp.Float(rng.uniform(0.3, 1.5), 40)
            values = [w.subs(kk, 3).doit().replace(f, lambda t: sp.sin(t) + 2).subs(point).evalf(40)
                      for w in (held, plain, e)]
            assert abs(values[0] - values[1]) < 1e-25 * (1 + abs(values[1]))
            assert abs(values[0] - values[2]) < 1e-25 * (1 + abs(values[2]))
