"""Section 4 derivations: verdicts, statements = bounds_section4 expressions, Lemma 6 against finite
differences, the beta-tau coupling.  (Mutations of every registered step: tests/test_section3_derivations.py.)"""
import math
import random

import mpmath
import pytest
import sympy as sp

from infonce_sym.proofs import statements as B4
from infonce_sym.proofs.chain import cited_result
from infonce_sym.proofs.errata import ERRATA
from infonce_sym.proofs import section4 as S4

ALL = S4.DERIVATIONS


@pytest.mark.parametrize("d", ALL, ids=[d.id for d in ALL])
def test_verdicts(d):
    """Every chain checks step by step; it is declared proved exactly when nothing is undischarged,
    and declared conditional (with the reason in section4.CONDITIONAL) otherwise."""
    res = cited_result(d)        # d.run(), once per process
    bad = [f"{s.name}: {r.detail}" for s, r in zip(d.steps, res.steps) if not r.ok]
    assert not bad and all(l.ok for l in res.links) and res.final.ok, (bad, res.final.detail)
    assert res.verdict == d.verdict, res.undischarged
    assert (d.verdict == "conditional") == (d.id in S4.CONDITIONAL)
    assert (res.verdict == "proved") == (not res.undischarged)


def _p4_sharp_issue_counterexample():
    """Issue 9: P4.sharp with the bound's constants [1, 1, 1] (false: 1.998 > 1 at k = 1000), and the failing
    step "(47), Lemma 8" forced through by a free slack s = (its gap) >= 0, as the issue's attack did."""
    from infonce_sym.proofs.chain import NonNegative
    d = S4.build_prop4(sharp=(1, 1, 1))[1]
    step = next(s for s in d.steps if s.name == "(47), Lemma 8")
    free = sp.Symbol("s_free", nonnegative=True)
    step.check = NonNegative([free], {free: step.claim.rhs - step.claim.lhs})
    return d, step


def test_issue_counterexample_p4_sharp_111_is_not_proved():
    d, step = _p4_sharp_issue_counterexample()
    assert step.run().ok                       # the edited step alone still "checks" (a free slack) ...
    res = d.run()
    assert res.verdict != "proved"              # ... but the chain refuses "proved": the slack is discharged by nothing
    assert any(n == "(47), Lemma 8" and "s_free" in t for n, t in res.undischarged), res.undischarged


def test_p4_sharp_with_111_fails_at_a_named_step():
    d = S4.build_prop4(sharp=(1, 1, 1))[1]
    res = d.run()
    failed = [s.name for s, r in zip(d.steps, res.steps) if not r.ok]
    assert res.verdict == "failed" and failed == ["(47), Lemma 8"]


def test_lemma1_with_111_is_not_proved():
    """Issue 9: Lemma 1 built with (1, 1, 1) must not be proved, in both temperature cases."""
    for p4 in (S4.BY_ID["P4"], S4.build_prop4(consts=(1, 1, 1))[0]):
        l50 = S4.build_lemma1_tuple(p4, (1, 1, 1), "")
        assert l50.run().verdict != "proved"
        for case in ("lt1", "ge1"):
            assert S4.build_lemma1(l50, (1, 1, 1), case, "", False).run().verdict != "proved"


def test_a_quoted_lemma_whose_conclusion_is_the_claim_is_refused():
    """P4's (43) cites L6.path now; quoting its own claim instead (what the chain did before) is refused."""
    from infonce_sym.proofs.chain import ByLemma, Lemma
    d = S4.build_prop4()[0]
    assert "L6.path" in d.run().cites
    step = d.steps[0]
    step.check = ByLemma(Lemma("(43), quoted", "the claim itself", {}, lambda: step.claim), {})
    res = d.run()
    assert res.verdict == "conditional"
    assert any(n == step.name and "whose conclusion is the claim" in t for n, t in res.undischarged)


def _same(x, y):
    """Equal as expressions: structurally after expand, else at random positive points (30 digits)."""
    d = sp.expand(sp.sympify(x) - sp.sympify(y))
    if d == 0:
        return True
    rng = random.Random(11)
    for _ in range(4):
        vals = {s: sp.Float(rng.uniform(0.05, 0.9), 30) for s in d.free_symbols}
        if abs(complex(sp.N(d.xreplace(vals), 30))) > 1e-20:
            return False
    return True


def test_statements_equal_bounds_section4():
    by = S4.BY_ID
    Bd = B4.BOUNDS
    assert _same(by["L5"].statement, Bd["lemma5"])
    assert _same(by["L5.exact"].statement, Bd["lemma5_exact"])
    assert _same(by["L5.range"].statement, Bd["lemma5"])
    rad = sp.Symbol("Rad", real=True)
    assert _same(by["P3"].statement - B4.R_hat - 2 * rad, Bd["prop3_penalty"])
    assert _same(by["P3.exact"].statement - B4.R_hat - 2 * rad, Bd["prop3_penalty_exact"])
    assert by["P4"].statement == Bd["prop4"] and by["P4.sharp"].statement == Bd["prop4_sharp"]
    Dm = sp.Symbol("Dm", nonnegative=True)
    assert _same(by["L18.linear"].statement.subs(Dm, B4.Mx) / B4.tau, Bd["lipschitz17_linear"])
    assert _same(by["L18"].statement.subs(Dm, B4.Mx) / B4.tau, Bd["lipschitz18"])
    assert _same(by["P5.dudley"].statement, Bd["dudley_cs"])
    assert by["P5.a-ge-1"].statement == Bd["prop5"] and by["P5.a-le-1"].statement == Bd["prop5"]
    assert _same(by["T1"].statement, Bd["theorem1_rhs"])
    # the complexity constant of Theorem 1 is 2 x 96 = 192, the sample-variability constant 12
    assert _same(Bd["theorem1_complexity"], 2 * Bd["prop5"].subs(B4.E * B4.R * B4.B_tau * B4.C_Phi, B4.A))


def _num_vecs(rng, d, names):
    return {nm: [sp.Float(rng.uniform(-1, 1), 30) for _ in range(d)] for nm in names}


@pytest.mark.parametrize("d,kk", [(2, 2), (3, 3)])
def test_lemma6_against_finite_differences(d, kk):
    rng = random.Random(7 + d)
    tau = sp.Float(rng.uniform(0.3, 1.5), 30)
    for _ in range(3):
        f = _num_vecs(rng, d, ["x", "y"] + [f"z{j}" for j in range(kk)])
        h = _num_vecs(rng, d, ["x", "y"] + [f"z{j}" for j in range(kk)])
        w = [sp.Float(rng.uniform(0.1, 1), 30) for _ in range(kk)]
        fz, hz = [f[f"z{j}"] for j in range(kk)], [h[f"z{j}"] for j in range(kk)]

        def H(e):
            g = lambda v, u: [a + e * b for a, b in zip(v, u)]  # noqa: E731
            return S4.H35(g(f["x"], h["x"]), g(f["y"], h["y"]), [g(a, b) for a, b in zip(fz, hz)], w).subs(S4.tau, tau)

        with mpmath.workdps(30):
            e = sp.Float("1e-8", 30)
            fd1 = (H(e) - H(-e)) / (2 * e)
            fd2 = (H(e) - 2 * H(0) + H(-e)) / e ** 2
            d1 = S4.lemma6_formula(f["x"], f["y"], fz, h["x"], h["y"], hz, w).subs(S4.tau, tau)
            d2 = S4.lemma6_second(f["x"], f["y"], fz, h["x"], h["y"], hz, w).subs(S4.tau, tau)
        assert abs(float(fd1 - d1)) < 1e-10 * (1 + abs(float(d1)))
        assert abs(float(fd2 - d2)) < 1e-6 * (1 + abs(float(d2)))


def test_lemma6_path_steps():
    """L6.path: every step checks, and the chain is connected structurally."""
    d = S4.BY_ID["L6.path"]
    for st in d.steps:
        r = st.run()
        assert r.ok and r.verdict == "proved", (st.name, r.detail)
    for a_, b_ in zip(d.steps, d.steps[1:]):
        assert a_.claim.rhs == b_.claim.lhs
    assert d.steps[0].claim.lhs == d.quantity and d.steps[-1].claim.rhs == d.statement


def test_lemma6_path_numerically():
    """l(phi) - l(phi') = int_0^1 w(xi_c) dH(xi_c)[Delta] dc at a random point of R^3 with k = 3 (quadrature)."""
    from sympy.core.function import AppliedUndef
    from infonce_sym.proofs import continuity as C
    d = S4.BY_ID["L6.path"]
    integ = d.statement
    assert isinstance(integ, sp.Integral)
    (c, lo_, hi_), = integ.limits
    sizes = {C.d: 3, B4.k: 3}
    lhs, f = (e.subs(sizes).doit() for e in (d.quantity, integ.function))
    rng = random.Random(3)
    atoms = sorted(lhs.atoms(AppliedUndef) | f.atoms(AppliedUndef), key=sp.default_sort_key)
    vals = {a_: sp.Float(rng.uniform(-0.7, 0.7), 30) for a_ in atoms}
    vals[S4.tau] = sp.Float("0.6", 30)
    g = sp.lambdify(c, f.xreplace(vals), "mpmath")
    with mpmath.workdps(30):
        rhs = mpmath.quad(g, [lo_, hi_])
    assert abs(float(lhs.xreplace(vals)) - float(rhs)) < 1e-12


def test_p5_branches_and_min():
    for x in (0.01, 0.3, 0.9, 0.999, 1.0, 1.001, 1.5, 4.0, 50.0):
        left, right = x * math.sqrt(math.log(3) + 1), math.sqrt(math.log1p(2 * x) + 1)
        assert (left <= right + 1e-15) == (x <= 1 + 1e-12)


def test_exact_dudley_integral_below_cauchy_schwarz():
    for Lv, Rv, tau in ((3.0, 1.0, 0.5), (0.2, 0.5, 0.2), (10.0, 2.0, 1.0)):
        U = min(4 / tau, Lv * Rv)
        exact = float(B4.dudley_integral(Lv, Rv, 1.0, U, method="quad"))
        cs = B4.dudley_integral_cs(Lv, Rv, 1.0, U)
        assert exact <= cs
        antider = U * math.log1p(2 * Rv * Lv / U) + 2 * Rv * Lv * math.log1p(U / (2 * Rv * Lv))
        quad = float(mpmath.quad(lambda e: mpmath.log(1 + 2 * Rv * Lv / e), [0, U]))
        assert math.isclose(antider, quad, rel_tol=1e-10)


def test_beta_derivative_symbolic():
    """d/dbeta log h = (KL(q_beta || unif) - 2/tau)/beta^2 and dKL/dbeta = beta Var_q(log x), three points."""
    b, t = sp.symbols("beta tau", positive=True)
    xs = sp.symbols("x1:4", positive=True)
    kk = len(xs)
    M = sum(x ** b for x in xs) / kk
    logh = 2 / (b * t) + sp.log(M) / b
    q = [x ** b / sum(y ** b for y in xs) for x in xs]
    kl = sum(qi * sp.log(kk * qi) for qi in q)
    kl_alt = b * sum(qi * sp.log(x) for qi, x in zip(q, xs)) - sp.log(M)   # = KL, log-free form
    assert sp.simplify(sp.expand_log(kl - kl_alt, force=True)) == 0
    assert sp.simplify(sp.diff(logh, b) - (kl_alt - 2 / t) / b ** 2) == 0
    var = sum(qi * sp.log(x) ** 2 for qi, x in zip(q, xs)) - sum(qi * sp.log(x) for qi, x in zip(q, xs)) ** 2
    assert sp.simplify(sp.diff(kl_alt, b) - b * var) == 0


def test_errata_entries():
    ids = {e["id"] for e in ERRATA}
    for key in ("L6-G-args", "P4-pi-minus", "18-sqrt6", "P5-diameter", "L1-beta", "P5-B-lowercase"):
        assert key in ids
    reg = {d.id for d in ALL}
    for e in ERRATA:
        if e["id"] in ("L6-G-args", "P4-pi-minus", "18-sqrt6", "P5-diameter", "L1-beta", "P5-B-lowercase"):
            assert e["proved_by"] in reg


def test_new_chains_state_the_bounds_section4_expressions():
    by = S4.BY_ID
    Bd = B4.BOUNDS
    dth = sp.Symbol("Dtheta", positive=True)
    j = sp.Symbol("j", integer=True, positive=True)
    a_fam = next(iter(by["L7"].statement.atoms(sp.Sum))).function.base.func      # Lemma 7's a_j
    pm_a = (sp.Sum(a_fam(j) ** B4.beta, (j, 1, B4.k)) / B4.k) ** (1 / B4.beta)
    assert _same(by["L7"].statement, Bd["lemma7"].subs(B4.PM, pm_a))
    assert by["L8"].statement == Bd["lemma8"]
    assert _same(by["P5.sharp.a-ge-1"].statement, Bd["prop5_sharp"])
    assert _same(by["P5.sharp.a-le-1"].statement, Bd["prop5_sharp"])
    assert by["L17"].statement == Bd["lipschitz17"] and by["L17-18"].statement == Bd["lipschitz18"]
    assert by["L17.linear"].statement == Bd["lipschitz17_linear"]
    for case in ("tau-lt-1", "tau-ge-1"):
        assert _same(by[f"L1.{case}"].statement, Bd["lemma1_L"] * dth)
        assert _same(by[f"L1.sharp.{case}"].statement, Bd["lemma1_sharp_L"] * dth)
    # Lemma 1's statement is implied by what its proof gives (erratum L1-loose)
    gap = (Bd["lemma1_L"].subs(B4.B_tau, B4.Ra + B4.Rp + B4.Nn) - Bd["lemma1_proof_L"]) * B4.tau / B4.C_Phi
    assert sp.expand(gap - ((4 * sp.E - 4) * B4.Ra + (4 * sp.E - 1) * B4.Rp + sp.E * B4.Nn)) == 0


def test_lemma7_holds_at_random_and_extreme_points():
    """Lemma 7 evaluated directly (numpy), against its statement: random points and the extreme
    configuration (one x_j = 1 carrying all the mass a, the others -1)."""
    import numpy as np
    rng = np.random.default_rng(5)
    worst = 0.0
    for _ in range(2000):
        kk = int(rng.integers(1, 50))
        tau = float(rng.choice([0.05, 0.1, 0.5, 1.0, 2.0]))
        beta = float(1 + rng.exponential(3.0))
        x = rng.uniform(-1, 1, kk)
        a = rng.exponential(1.0, kk) ** 3
        lhs = np.sum(np.exp((x - x.max()) / tau) * a) / np.sum(np.exp((x - x.max()) / tau))
        rhs = math.exp(2 / (beta * tau)) * np.mean(a ** beta) ** (1 / beta)
        worst = max(worst, lhs / rhs)
    assert worst <= 1 + 1e-12
    # the extreme case: lhs -> a_1 e^{2/tau}/(e^{2/tau} + k - 1) and rhs = e^{2/(beta tau)} a_1 k^{-1/beta}
    tau, beta, kk = 0.5, 1.0, 10 ** 6
    lhs = math.exp(2 / tau) / (math.exp(2 / tau) + kk - 1)
    rhs = math.exp(2 / (beta * tau)) / kk
    assert 0.99 < lhs / rhs <= 1       # Lemma 7 is tight as k -> inf at beta = 1


@pytest.mark.parametrize("tau", [0.1, 0.5, 1.0, 3.0])
def test_lemma1_sharp_holds_on_the_fourier_class(tau):
    """rho_n(phi_theta, phi_theta') computed from the losses, against (C_Phi/tau)(2 Ra + Rp + e Nn)
    ||theta - theta'|| (derivations L1.sharp.*), on heavy-tailed data; and the paper's constant above it."""
    import numpy as np
    from infonce_sym.models.fourier_class import FourierEmbedding, sample_tuples
    rng = np.random.default_rng(17)
    model = FourierEmbedding(1, 2, 1.0)
    za, zp, zn = sample_tuples("student_t", 2, 30, 16, rng)
    lc = B4.lipschitz_constants(za, zp, zn, tau, model.C_Phi)
    th = rng.normal(size=(300, 2))
    dirs = rng.normal(size=(300, 2))
    dirs *= (10.0 ** rng.uniform(-4, 0, size=(300, 1))) / np.linalg.norm(dirs, axis=1, keepdims=True)
    l1 = model.losses(th, za, zp, zn, tau)
    l2 = model.losses(th + dirs, za, zp, zn, tau)
    rho = np.sqrt(np.mean((l1 - l2) ** 2, axis=1))
    ratio = rho / (lc["L"]["lemma1_sharp"] * np.linalg.norm(dirs, axis=1))
    assert ratio.max() <= 1.0
    assert lc["L"]["lemma1_sharp"] <= lc["L"]["lemma1_proof"] <= lc["L"]["lemma1"]


def test_section4_errata_added_this_round():
    ids = {e["id"]: e for e in ERRATA}
    reg = {d.id for d in ALL}
    for key in ("L8-index", "L6-lhs-rhs", "L1-loose"):
        assert ids[key]["proved_by"] in reg


def test_dudley_is_derived_from_the_chaining_lemma_of_its_source():
    """(54)'s Dudley bound is no quotation: P5.dudley cites P5.chaining, which cites P5.chaining.M, which uses
    the library's chaining lemma (UML Lemma 27.4); no library entry states Dudley's integral itself."""
    from infonce_sym.proofs import lemmas as L
    from infonce_sym.proofs.register import derivation
    assert "P5.chaining" in derivation("P5.dudley").run().cites
    res = derivation("P5.chaining").run()
    assert res.verdict == "proved" and res.cites == ["P5.chaining.M"]
    assert "chaining (UML Lemma 27.4)" in derivation("P5.chaining.M").run().lemmas
    assert not any("dudley" in key.lower() for key in L.LIBRARY)


@pytest.mark.parametrize("c,n,M,D", [(0.7, 5, 1, 0.4), (2.0, 50, 6, 0.3), (9.0, 200, 12, 1.1)])
def test_chaining_sum_below_the_integral_numerically(c, n, M, D):
    """Steps 2-6 of P5.chaining.M by an independent route: for the covering numbers of a d-ball seen through an
    L-Lipschitz map, log N(eps) = d log(1 + 2RL/eps) (non-increasing), the chaining sum of Lemma 27.4 with
    N(c 2^-k, A) = N(c 2^-k/sqrt n) is below D 2^-M + (12/sqrt n) int_0^D sqrt(log N) (mpmath.quad), whenever
    c <= sqrt(n) D."""
    with mpmath.workdps(30):        # not mp.dps = 30: a global change leaks into later tests
        assert c <= math.sqrt(n) * D
        c, D = mpmath.mpf(c), mpmath.mpf(D)
        d, RL = 3, mpmath.mpf(1) / 2
        logN = lambda e: d * mpmath.log(1 + 2 * RL / e)  # noqa: E731
        chain = c * 2 ** -M / mpmath.sqrt(n) + 6 * c / n * mpmath.fsum(
            2 ** -kk * mpmath.sqrt(logN(c * 2 ** -kk / mpmath.sqrt(n))) for kk in range(1, M + 1))
        integral = mpmath.quad(lambda e: mpmath.sqrt(logN(e)), [0, D])
        bound = D * 2 ** -M + 12 / mpmath.sqrt(n) * integral
        assert chain <= bound
        # the Darboux sandwich behind step 4: lower sum <= int_{a_{M+1}}^{a_1} g <= upper sum (g non-increasing)
        a = [c * 2 ** -kk / mpmath.sqrt(n) for kk in range(1, M + 2)]
        g = lambda e: mpmath.sqrt(logN(e))  # noqa: E731
        lower = mpmath.fsum((a[i] - a[i + 1]) * g(a[i]) for i in range(M))
        upper = mpmath.fsum((a[i] - a[i + 1]) * g(a[i + 1]) for i in range(M))
        assert abs(12 / mpmath.sqrt(n) * lower - (chain - c * 2 ** -M / mpmath.sqrt(n))) < mpmath.mpf(10) ** -25
        assert lower <= mpmath.quad(g, [a[M], a[0]]) <= upper


def test_the_covering_facts_of_the_chaining_hold_on_random_classes():
    """P5.chaining.M's three covering facts, once assumed, are library lemmas now (covering numbers of a Lipschitz
    image, their radius, their monotonicity), cited with ||a_phi - a_phi'|| = sqrt(n) rho_n(phi, phi') checked by
    the CAS.  Independent route, on finite classes of loss vectors a_phi = (l(phi, z_i))_i (l the logistic loss of
    a random linear score): the Euclidean distances are sqrt(n) rho_n; the images of a greedy r-cover of Phi in
    rho_n (a cover by construction) cover A at sqrt(n) r, and cover it at every larger radius; the minimax radius
    c of A (SLSQP on the epigraph form) is at most sqrt(n) max_phi rho_n(phi, phi_0) for every centre phi_0."""
    import numpy as np
    from scipy.optimize import minimize
    from infonce_sym.proofs.register import derivation
    res = derivation("P5.chaining.M").run()
    assert res.verdict == "proved" and "covering numbers" in res.lemmas
    assert not any(a.derived for a in derivation("P5.chaining.M").structured_assumptions())
    rng = np.random.default_rng(11)
    for n, size in ((4, 25), (9, 60)):
        x = rng.normal(size=(n, 3))
        theta = rng.normal(size=(size, 3))
        a = np.log1p(np.exp(-theta @ x.T))                      # a[phi, i] = l(phi, z_i)
        diff = a[:, None, :] - a[None, :, :]
        rho = np.sqrt((diff ** 2).mean(axis=2))                 # rho_n(phi, phi')
        euclid = np.linalg.norm(diff, axis=2)
        assert np.allclose(euclid, math.sqrt(n) * rho, rtol=1e-12, atol=1e-15)
        for r in np.quantile(rho[rho > 0], [0.05, 0.3, 0.7]):
            centres, uncovered = [], np.ones(size, bool)
            while uncovered.any():                              # greedy r-cover of Phi in rho_n
                c_ = int(np.flatnonzero(uncovered)[0])
                centres.append(c_)
                uncovered &= rho[c_] > r
            for radius in (math.sqrt(n) * r, 1.5 * math.sqrt(n) * r):
                assert (euclid[centres].min(axis=0) <= radius * (1 + 1e-12)).all()
        z0 = np.append(a.mean(axis=0), np.linalg.norm(a - a.mean(axis=0), axis=1).max())
        fit = minimize(lambda z: z[-1], z0, method="SLSQP",
                       constraints=[{"type": "ineq", "fun": lambda z: z[-1] ** 2 - ((a - z[:-1]) ** 2).sum(axis=1)}])
        c = np.linalg.norm(a - fit.x[:-1], axis=1).max()        # max_a ||a - abar|| at the fitted centre >= the radius
        assert c <= (math.sqrt(n) * rho.max(axis=1)).min() * (1 + 1e-9)


def test_lemma1_defines_dl_per_tuple_and_prop5_names_the_theta0_pair_apart():
    from infonce_sym.proofs.register import derivation
    # (50) is cited at every tuple i: its definition of dl comes along with tuple i's embeddings
    l1 = cited_result(derivation("L1.tau-lt-1"))
    i, j, l, C = S4.i, S4.j, S4.C.l, S4.C
    [dl_def] = l1.defined[S4.dlf(i)]
    assert dl_def.has(C.phi_a(i, l)) and dl_def.has(C.psi_n(i, j, l)) and not dl_def.has(C.phi_a(l))
    assert l1.defined[S4.Daf(i)][0].has(C.psi_a(i, l))
    assert derivation("P4").defined()[S4.PM] == [S4._PM_OF_TUPLE]     # L1.50's PM is Prop. 4's, built apart
    # Prop. 5 uses Lemma 1 at theta' = theta0 under its own names (dl_0, Dtheta_0, phi0), never dl and Dtheta
    b = cited_result(derivation("P5.a-le-1"))
    assert b.verdict == "proved"
    [dl0_def] = b.defined[S4.dl0f(i)]
    assert dl0_def.has(S4.AT_THETA0["phi'_a"](i, l)) and not dl0_def.has(C.psi_a(i, l))
    radius = derivation("P5.dudley").structured_assumptions()[1].rel
    assert radius.has(S4.dl0f) and not radius.has(S4.dlf)
    ball = [a for a in derivation("P5.a-le-1").structured_assumptions() if a.text.startswith("theta in the ball")]
    assert ball[0].rel.has(S4.dth0) and not ball[0].rel.has(S4.dth)


def test_lemma5_shows_the_range_of_T_from_unit_vectors():
    """k e^{-2/tau} <= T <= k e^{2/tau} was assumed (four 'assumed consequences'); it is now shown from
    T := sum_j e^{s_j/tau} and unit embeddings (2 -+ s_j = ||a -+ n_j||^2/2 + ||a +- p||^2/2), and P5.radius
    instantiates Lemma 5 at tuple i with phi' = phi_theta0."""
    import numpy as np
    from infonce_sym.proofs.register import derivation
    l5 = derivation("L5")
    assert not any(a.derived for a in l5.structured_assumptions())
    assert cited_result(l5).verdict == "proved"
    [T_i] = cited_result(derivation("P5.radius")).defined[sp.Function("T", positive=True)(S4.i)]
    assert T_i.has(S4.C.phi_a(S4.i, S4.C.l)) and not T_i.has(S4.C.phi_a(S4.C.l))
    # an independent route: random unit vectors stay inside the range, and the extreme tuples reach its ends
    rng = np.random.default_rng(5)
    unit = lambda m: (lambda x: x / np.linalg.norm(x, axis=-1, keepdims=True))(rng.standard_normal((m, 7)))  # noqa: E731
    for tau_, k_ in ((0.1, 3), (1.0, 40)):
        a_, p_, n_ = unit(1)[0], unit(1)[0], unit(k_)
        T = np.exp((n_ - p_) @ a_ / tau_).sum()
        assert k_ * np.exp(-2 / tau_) <= T <= k_ * np.exp(2 / tau_)
        for sign in (-1, 1):     # n_j = sign a, p = -sign a: s_j = 2 sign
            T_end = np.exp((np.tile(sign * a_, (k_, 1)) + sign * a_) @ a_ / tau_).sum()
            assert math.isclose(T_end, k_ * np.exp(2 * sign / tau_), rel_tol=1e-12)


def test_prop3_shows_the_rescaled_loss_is_in_the_unit_interval():
    """Mohri et al.'s Thm 3.3 needs a [0, 1]-valued class; the library lemma now has g >= 0 and g <= 1 as
    hypotheses, and P3 shows them for g = (l - a)/(b - a) from Lemma 5's range of T (it assumed them before).
    Independent route: g at random unit embeddings lies in [0, 1], and at the extreme tuples it is 0 and 1."""
    import numpy as np
    from infonce_sym.proofs.register import derivation
    r = cited_result(derivation("P3"))
    assert r.verdict == "proved"
    shown = {what.split(":")[0] for _, what, how in r.discharged
             if what.startswith(("hypothesis 3 of Mohri", "hypothesis 4 of Mohri")) and how.startswith("CAS")}
    assert len(shown) == 2      # g >= 0, g <= 1: each by its check (the range of T), not by an assumption
    rng = np.random.default_rng(11)
    for tau_, k_ in ((0.1, 4), (1.5, 64)):
        a_lo, b_hi = math.log(1 / k_ + math.exp(-2 / tau_)), math.log(1 / k_ + math.exp(2 / tau_))
        g = lambda T: (math.log(1 / k_ + T / k_) - a_lo) / (b_hi - a_lo)  # noqa: E731
        x_ = rng.standard_normal((k_ + 2, 9))
        x_ /= np.linalg.norm(x_, axis=1, keepdims=True)
        T = float(np.exp((x_[2:] - x_[1]) @ x_[0] / tau_).sum())
        assert 0 <= g(T) <= 1
        assert math.isclose(g(k_ * math.exp(-2 / tau_)), 0, abs_tol=1e-12) and math.isclose(g(k_ * math.exp(2 / tau_)), 1)


def test_conditions_in_words_are_carried_through_citations():
    """A citation carries the cited statement's relational assumptions as checked hypotheses, but its conditions in
    words (what Rad and logN mean, (C), the ball Theta) discharge nothing: the citing statement lists them
    (``carried_assumptions``), transitively, and renders them.  Prop. 5's cases listed nothing on Theta, R, d_Theta
    or the meaning of Rad before (a probe, Dec 2026)."""
    from infonce_sym.proofs.chain import carried_assumptions, render_markdown
    from infonce_sym.proofs.register import derivation
    p5 = derivation("P5.a-ge-1")
    carried = carried_assumptions(p5)
    sources = {source for source, _ in carried}
    texts = [text for _, text in carried]
    assert {"P5.dudley", "P5.chaining", "L1.tau-lt-1", "P4"} <= sources
    assert any(t.startswith("Theta = {theta in R^{d_Theta}: ||theta - theta0|| <= R}") for t in texts)
    assert any(t.startswith("Rad = E sup_phi") for t in texts)
    assert len(texts) == len(set(texts))                       # one entry per text
    own = {a.text for a in p5.structured_assumptions() if a.rel is None}
    assert not own & set(texts)
    rendered = render_markdown(p5)
    assert all(f"- {t} (from {s})" in rendered for s, t in carried)
    # transitively: T1 cites P5's cases, which cite P5.dudley, which cites P5.chaining
    t1 = dict((t, s) for s, t in carried_assumptions(derivation("T1")))
    assert any(t.startswith("Rad = E sup_phi") and s == "P5.chaining" for t, s in t1.items())
    # a derivation that cites nothing carries nothing
    assert carried_assumptions(derivation("P5.chaining.M")) == []


def test_dudley_instance_takes_a_constant_radius():
    """P5.dudley cites P5.chaining with rho_0 = U, a constant: its hypothesis 'rho_n(phi, phi_0) <= rho_0 for every
    phi' is then the assumption that the class lies within U of phi_theta0 (it was instantiated with rho_0 :=
    rho_n(phi, phi_0) at the generic phi, which made it x <= x)."""
    from infonce_sym.proofs.register import derivation
    r = cited_result(derivation("P5.dudley"))
    dudley = [(t, how) for name, t, how in r.discharged if name == "Dudley (54)"]
    # P5.chaining declares D > 0, rho_0 >= 0 and log N >= 0: at D = rho_0 = U the CAS shows U > 0, U >= 0 and, P5.dudley's
    # logN declared the same, logN(.) >= 0 (domain conditions)
    domain = [(t, how) for t, how in dudley if t.endswith((": U > 0", ": U >= 0", ": logN(_logN_arg0) >= 0"))]
    assert [how for _, how in domain] == ["CAS", "CAS", "CAS"]
    dudley = [x_ for x_ in dudley if x_ not in domain]
    assert len(dudley) == 2
    # D >= rho_0 is U >= U (D = U too); rho_n(phi, phi_0) <= rho_0 is the assumption, not x <= x
    assert [t.endswith(": U >= U") for t, _ in dudley] == [True, False]
    assert dudley[1][0].endswith("<= U") and "sqrt(Sum(dl_0(i)**2" in dudley[1][0]
    assert dudley[1][1].startswith("assumption: the class lies within U of phi_theta0")


def test_the_linear_lipschitz_route_is_proved_citing_the_linear_companion_of_18():
    """L17.linear: (17) with L18.linear at the maximising negative, then Dm <= Mx (an assumption, listed):
    proved, it cites L18.linear, and the LIP-17-linear check and `embeddings` evaluate it (not an expression
    of BOUNDS typed beside it; a probe, Dec 2026); its mutants are `derivations --mutate`'s."""
    import numpy as np
    from infonce_sym.proofs import statements
    from infonce_sym.proofs.register import derivation
    d = derivation("L17.linear")
    assert d.run().verdict == "proved"
    from infonce_sym.proofs.chain import cited_transitively
    assert [c.id for c in cited_transitively(d)] == ["L18.linear"]
    assert any(a.text.startswith("Dm = ||Delta(z_{j*}^-)||") for a in d.structured_assumptions())
    got = statements.continuity_bound("lipschitz17_linear", 0.5, np.array([0.1]), np.array([0.2]), None, None, 0.3)
    assert got[0] == (2 * 0.1 + 0.2 + 0.3) / 0.5


def test_nn_has_lemma_1s_one_definition_in_both_temperature_cases_and_the_numbers_use_it():
    """Nn = ((nk)^-1 sum_ij ||z_ij^-||^{2/(1 ^ tau)})^{(1 ^ tau)/2} (Lemma 1): defined per case, P5 and T1 (which
    cite both cases) showed the tau < 1 form only; now one definition, and lipschitz_constants' Nn is its value
    (an independent route: the SymPy sum evaluated term by term)."""
    import numpy as np
    from infonce_sym.proofs import statements as b4
    from infonce_sym.proofs.chain import statement_definitions
    from infonce_sym.proofs.register import derivation
    meanings = {}
    for id_ in ("L1.tau-lt-1", "L1.tau-ge-1", "L1.sharp.tau-lt-1", "L1.sharp.tau-ge-1", "P5.a-ge-1", "T1"):
        d = derivation(id_)
        [meanings[id_]] = [vals for sym, vals in statement_definitions(d) if sym == S4.Nn]
    assert all(len(v) == 1 for v in meanings.values()), meanings
    (nn,) = meanings["T1"]
    assert all(v[0] == nn for v in meanings.values()) and nn.has(sp.Min(1, S4.tau))
    rng = np.random.default_rng(3)
    za, zp, zn = rng.standard_normal((4, 3)), rng.standard_normal((4, 3)), rng.standard_normal((4, 5, 3))
    norms = np.linalg.norm(zn, axis=-1)
    for tau_ in (sp.Rational(1, 3), sp.Integer(2)):
        value = nn.subs({S4.tau: tau_, S4.n: 4, S4.k: 5}).doit().replace(
            S4.zf, lambda a, b: sp.Float(norms[int(a) - 1, int(b) - 1], 30))
        exact = float(value)
        numeric = b4.lipschitz_constants(za, zp, zn, float(tau_), 1.0)["Nn"]
        assert abs(numeric - exact) <= 1e-12 * exact, (tau_, numeric, exact)
