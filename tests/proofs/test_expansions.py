"""The 1/k and 1/k^2 constants against exact enumeration over all count vectors."""

import mpmath
import pytest
import sympy as sp

from infonce_sym.proofs import expansions as X
from infonce_sym.models import AnchorLaw, nonreversible_model

M = X.MOMENTS


def test_closed_forms():
    c = X.expansion_constants()
    m2, m3, EW, EW2, Eab, Eab2, Eb2 = (M[n] for n in ("m2", "m3", "EW", "EW2", "E_ab", "E_ab2", "E_b2"))
    tau = X.tau
    assert sp.expand(c["c1t"] - m2 / 2) == 0
    assert sp.expand(c["c2t"] - (sp.Rational(3, 4) * m2 ** 2 - m3 / 3)) == 0
    assert sp.expand(c["c1"] - (m2 / 2 - EW)) == 0
    assert sp.expand(c["c2"] - (sp.Rational(3, 4) * m2 ** 2 - m3 / 3 - m2 * EW + EW2 / 2)) == 0
    assert sp.expand(c["d1t"] - Eab / tau) == 0
    assert sp.expand(c["d2t"] - (3 * Eab * Eb2 - Eab2) / tau) == 0
    assert sp.expand(c["d1"] - (c["d1t"] - (c["c1t"] - c["c1"]))) == 0


@pytest.mark.parametrize("d", X.DERIVATIONS, ids=[d.id for d in X.DERIVATIONS])
def test_expansion_derivations_proved(d):
    assert d.run().verdict == "proved"


def _law3():
    mp = mpmath.mp
    f = mp.mpf
    return AnchorLaw(f(1), (f("0.9"), f("-0.3"), f("0.2")), (f("0.2"), f("0.5"), f("0.3")),
                     (f("2.5"), f("0.4"), f(1)), (f("0.9"), f("0.2")), (f("0.7"), f("0.3")))


def _exact3(law, k, tau):
    """Exact InfoNCE gap, DCL gap and search CE - R~ (one anchor) by multinomial enumeration."""
    mp = mpmath.mp
    ws, ss, rs = law.negative_weight, law.negative_similarity, law.negative_ratio
    Xs = [mp.exp(s / tau) for s in ss]
    mu = mp.fsum(w * x for w, x in zip(ws, Xs))
    ers = mp.fsum(w * r * s for w, r, s in zip(ws, rs, ss))
    a = [r * (s - ers) for r, s in zip(rs, ss)]
    b = [r - 1 for r in rs]
    Ws = [mp.exp(p / tau) / mu for p in law.positive_similarity]
    info = dcl = srch = mp.mpf(0)
    for n0 in range(k + 1):
        for n1 in range(k + 1 - n0):
            ns = (n0, n1, k - n0 - n1)
            pr = mp.factorial(k) / mp.fprod(mp.factorial(n) for n in ns) * mp.fprod(w ** n for w, n in zip(ws, ns))
            Vb = mp.fsum(n * (x / mu - 1) for n, x in zip(ns, Xs)) / k
            Ab = mp.fsum(n * x for n, x in zip(ns, a)) / k
            Bb = mp.fsum(n * x for n, x in zip(ns, b)) / k
            dcl -= pr * mp.log(1 + Vb)
            info -= pr * mp.fsum(q * mp.log(1 + Vb + W / k) for q, W in zip(law.positive_weight, Ws))
            srch -= pr * Ab / (1 + Bb) / tau
    return {"infonce": info, "dcl": dcl, "search-dcl": srch, "search-infonce": srch - (dcl - info)}


PAIRS = {"infonce": ("c1", "c2"), "dcl": ("c1t", "c2t"), "search-dcl": ("d1t", "d2t"), "search-infonce": ("d1", "d2")}


def test_constants_against_enumeration_three_atoms():
    """k^2 (gap - c1/k) - c2 -> 0 like 1/k (k = 20, 40, 60, 50 digits)."""
    with mpmath.workdps(50):
        law, tau = _law3(), mpmath.mpf("0.7")
        C = X.constants([X.anchor_moments(law, tau, mpmath.mp)], tau, mpmath.mp)
        err = {key: [] for key in PAIRS}
        for k in (20, 40, 60):
            gaps = _exact3(law, k, tau)
            for key, (a, b) in PAIRS.items():
                err[key].append(k * k * (gaps[key] - C[a] / k) - C[b])
        for key, (e20, e40, e60) in err.items():
            assert abs(e60) < 0.45 * abs(e20), key            # decays like 1/k
            assert abs(e60) < abs(e40) < abs(e20), key
            # k * e(k) settles (it estimates the k^-3 constant)
            assert abs(60 * e60 - 40 * e40) < 0.25 * abs(60 * e60) + 1e-30, key


def test_constants_against_enumeration_two_atoms_large_k():
    """Two atoms: the binomial sum is cheap, so go to k = 800; a wrong c2 (off by 1%) is detected."""
    with mpmath.workdps(40):
        f = mpmath.mpf
        law = AnchorLaw(f(1), (f("0.8"), f("-0.4")), (f("0.3"), f("0.7")), (f(2), f(4) / 7), (f("0.8"),), (f(1),))
        tau = f("0.5")
        am = X.anchor_moments(law, tau, mpmath.mp)
        C = X.constants([am], tau, mpmath.mp)
        Xs = [mpmath.exp(s / tau) for s in law.negative_similarity]
        mu = sum(w * x for w, x in zip(law.negative_weight, Xs))
        W = mpmath.exp(f("0.8") / tau) / mu
        w0 = law.negative_weight[0]

        def gaps(k):
            info = dcl = f(0)
            for n in range(k + 1):
                pr = mpmath.binomial(k, n) * w0 ** n * (1 - w0) ** (k - n)
                Vb = (n * (Xs[0] / mu - 1) + (k - n) * (Xs[1] / mu - 1)) / k
                info -= pr * mpmath.log(1 + Vb + W / k)
                dcl -= pr * mpmath.log(1 + Vb)
            return info, dcl

        errs = []
        for k in (200, 800):
            info, dcl = gaps(k)
            errs.append([k * k * (g - C[a] / k) - C[b] for g, (a, b) in ((info, PAIRS["infonce"]), (dcl, PAIRS["dcl"]))])
        for (e200, e800), key in zip(zip(*errs), ("infonce", "dcl")):
            c2 = C[PAIRS[key][1]]
            assert abs(e800) < 0.3 * abs(e200)                   # ~ 1/k decay (ratio 1/4)
            assert abs(e800) < 0.01 * abs(c2)                    # a 1% error in c2 would show


def test_anchor_moments_of_models():
    with mpmath.workdps(30):
        model = nonreversible_model()
        laws = model.anchor_laws(mpmath.mp)
        ams = [X.anchor_moments(law, 0.5, mpmath.mp) for law in laws]
        for am in ams:
            assert am["m2"] > 0 and am["EW"] > 0
        C = X.model_constants(model, 0.5, mpmath.mp)
        assert set(C) == {"c1", "c2", "c1t", "c2t", "d1", "d2", "d1t", "d2t"}
        assert C["c1t"] > 0                           # DCL gap is >= 0 (11)
        assert C["c1"] == pytest.approx(C["c1t"] - sum(am["weight"] * am["EW"] for am in ams), rel=1e-20)


def test_c1t_is_half_the_variance_ratio_of_32():
    """(32): k (log mu - E log muhat) -> Var[e^{s/tau}] / (2 mu^2) = c1t."""
    with mpmath.workdps(30):
        law, tau = _law3(), mpmath.mpf("0.7")
        am = X.anchor_moments(law, tau, mpmath.mp)
        Xs = [mpmath.exp(s / tau) for s in law.negative_similarity]
        mu = mpmath.fsum(w * x for w, x in zip(law.negative_weight, Xs))
        var = mpmath.fsum(w * (x - mu) ** 2 for w, x in zip(law.negative_weight, Xs))
        assert mpmath.almosteq(X.evaluate("c1t", am, tau, mpmath.mp), var / (2 * mu ** 2), 1e-25)


# ---------------------------------------------------------------- the remainder bounds (issue 9, item 4)
from infonce_sym.proofs import asymptotics as AS  # noqa: E402
from infonce_sym.proofs.mutants import run_mutants  # noqa: E402
from infonce_sym.proofs.register import derivation  # noqa: E402
from infonce_sym.quantities.exact import exact_values  # noqa: E402
from infonce_sym.models import SphereModel  # noqa: E402

BOUND_IDS = ["A2.32.lower", "A2.32.upper", "A2.32", "EXP.dcl.lower", "EXP.dcl.upper",
             "EXP.infonce.lower", "EXP.infonce.upper", "EXP.search-dcl.lower", "EXP.search-dcl.upper"]


def _new_liminf():
    ratio, old = derivation("A2.ratio"), derivation("A2.liminf")
    return AS.a2_liminf(ratio, ratio.assumptions, old.errata)


@pytest.mark.parametrize("rid", BOUND_IDS)
def test_remainder_bounds_proved(rid):
    r = derivation(rid).run()
    assert r.verdict == "proved" and r.undischarged == []


def test_a2_liminf_concluded_from_32():
    """The liminf of A.2 from A2.32.lower (a citation with ell = e^{-2/tau}) and A2.ratio: same id and
    statement as section3's A2.liminf, quantity liminf_k k E[-log(1 + Vbar)]."""
    d, old = _new_liminf(), derivation("A2.liminf")
    r = d.run()
    assert r.verdict == "proved" and r.undischarged == []
    assert d.id == old.id and sp.simplify(d.statement - old.statement) == 0
    assert {"A2.32.lower", "A2.ratio"} <= set(r.cites)


def test_mutants_of_the_remainder_bounds_killed():
    """A seeded sample (1 per derivation and kind) of the mutants of the (32) chains and the DCL lower bound
    (the full run, every mutant of every bound including InfoNCE and the search ratio, kills all:
    ``infonce-sym derivations --mutate``)."""
    ds = [derivation(i) for i in ("A2.32.lower", "A2.32", "EXP.dcl.lower")] + [_new_liminf()]
    out = run_mutants(ds, sample=1, seed=1)
    assert out["mutants"] >= 15
    assert out["survivors"] == [], out["survivors"][:3]


def _statement_value(rid, values):
    expr = derivation(rid).statement
    syms = sorted(expr.free_symbols, key=lambda s: s.name)
    return sp.lambdify(syms, expr, "mpmath")(*[values[s.name] for s in syms])


def _averaged(rid, anchors, k):
    tw = mpmath.fsum(am["weight"] for am in anchors)
    return mpmath.fsum(am["weight"] * _statement_value(rid, {**am, "k": mpmath.mpf(k)}) for am in anchors) / tw


def _check_against_exact(anchors, model, tau, ks):
    """lower <= exact gap <= upper (both losses) and |k gap - m2/2| <= C/sqrt(k) (one anchor law)."""
    dcl = exact_values(model, tau, ks=ks, loss="dcl", digits=20)
    info = exact_values(model, tau, ks=ks, loss="infonce", digits=20)
    rows = []
    for kk, ed, ei in zip(ks, dcl, info):
        gd, gi = (e.gaps["cross_entropy_limit_minus_risk"] for e in (ed, ei))
        for name, g in (("dcl", gd), ("infonce", gi)):
            lo, up = _averaged(f"EXP.{name}.lower", anchors, kk), _averaged(f"EXP.{name}.upper", anchors, kk)
            assert lo <= g <= up, (name, kk, lo, g, up)
            rows.append((name, kk, lo, g, up))
        if len(anchors) == 1:
            am = anchors[0]
            assert abs(kk * gd - am["m2"] / 2) <= _averaged("A2.32", anchors, kk), kk
    return rows


def _finite_anchor_moments(model, tau):
    out = []
    for law in model.anchor_laws(mpmath.mp, tau):
        am = X.anchor_moments(law, tau, mpmath.mp)
        xs = [mpmath.exp(mpmath.mpf(s) / mpmath.mpf(tau)) for s in law.negative_similarity]
        mu = mpmath.fsum(mpmath.mpf(w) * x for w, x in zip(law.negative_weight, xs))
        am["ell_V"] = min(xs) / mu                 # 1 + V = X/mu >= its smallest atom
        out.append(am)
    return out


def test_bounds_contain_the_exact_gaps_finite_model():
    """Non-reversible 4-point model, tau = 1/2: the exact gaps (transform route, 20 digits) lie inside
    c1/k + c2/k^2 -+ B/k^3 (moments from the atoms), and the DCL lower bound is tight at large k."""
    with mpmath.workdps(30):
        tau = "0.5"
        model = nonreversible_model()
        anchors = _finite_anchor_moments(model, tau)
        rows = _check_against_exact(anchors, model, tau, [10, 100, 1000, 10000])
        (_, _, lo, g, _), = [r for r in rows if r[0] == "dcl" and r[1] == 10000]
        assert 0 <= g - lo < 1e-6 * g          # B_lo/k^3 = 1e-12 scale: the 1/k^2 term is checked to ~1e-4


def _sphere_anchor_moments(kappa, tau):
    """S^2: s uniform on [-1, 1], E e^{n s/tau} = sinh(n/tau)/(n/tau); p has density
    kappa e^{kappa p}/(2 sinh kappa), E e^{n p/tau} = kappa sinh(kappa + n/tau)/((kappa + n/tau) sinh kappa)."""
    mp = mpmath.mp
    tau, kappa = mp.mpf(tau), mp.mpf(kappa)
    EX = {i: (mp.sinh(i / tau) / (i / tau) if i else mp.mpf(1)) for i in range(7)}
    mu = EX[1]
    am = {"weight": mp.mpf(1), "ell_V": mp.exp(-1 / tau) / mu}
    for n in range(2, 7):
        am[f"m{n}"] = mp.fsum(mp.binomial(n, i) * (-1) ** (n - i) * EX[i] / mu ** i for i in range(n + 1))
    for n in range(1, 7):
        b = kappa + n / tau
        am["EW" if n == 1 else f"EW{n}"] = kappa * mp.sinh(b) / (b * mp.sinh(kappa)) / mu ** n
    return am


def test_bounds_contain_the_exact_gaps_sphere():
    """Sphere S^2, kappa = 2, tau = 1: closed-form moments (independent of the quadrature of exact.py)."""
    with mpmath.workdps(30):
        tau = "1"
        am = _sphere_anchor_moments(2, tau)
        assert mpmath.almosteq(am["m2"], mpmath.sinh(2) / 2 / mpmath.sinh(1) ** 2 - 1, 1e-25)   # Var/E^2 by hand
        rows = _check_against_exact([am], SphereModel(3, 2.0), tau, [100, 10000])
        (_, _, lo, g, up), = [r for r in rows if r[0] == "dcl" and r[1] == 10000]
        assert (up - lo) < 1e-4 * g


def test_search_bounds_contain_the_exact_gap_finite_model():
    """search CE - R~ (exact, ratio rule of exact.py) inside d1t/k + d2t/k^2 -+ B/k^3, the moments of
    a = r (s - E[r s]) and b = r - 1 from the atoms, r_lo the smallest density ratio."""
    with mpmath.workdps(30):
        mp, tau = mpmath.mp, "0.5"
        model = nonreversible_model()
        anchors = []
        for law in model.anchor_laws(mp, tau):
            am = X.anchor_moments(law, tau, mp)
            ws, rs, ss = ([mp.mpf(v) for v in seq] for seq in (law.negative_weight, law.negative_ratio,
                                                                 law.negative_similarity))
            ers = mp.fsum(w * r * s for w, r, s in zip(ws, rs, ss))
            a = [r * (s - ers) for r, s in zip(rs, ss)]
            b = [r - 1 for r in rs]
            for n in range(5):
                am["E_aa" if n == 0 else f"E_aab{n}"] = mp.fsum(w * x * x * y ** n for w, x, y in zip(ws, a, b))
            am["r_lo"], am["tau"] = min(rs), mp.mpf(tau)
            lib = X.search_remainder_moments(law, tau, mp)       # the moments verify's EXPANSION-BOUNDS reads
            for key in ("E_aa", "E_aab1", "E_aab2", "E_aab4", "r_lo"):
                assert mp.almosteq(lib[key], am[key], 1e-25), key
            for n in range(2, 7):
                assert mp.almosteq(lib[f"E_b{n}"], mp.fsum(w * y ** n for w, y in zip(ws, b)), 1e-25), n
            anchors.append(am)
        ks = [10, 100, 1000, 10000]
        for kk, ev in zip(ks, exact_values(model, tau, ks=ks, loss="dcl", digits=20)):
            g = ev.gaps["search_minus_dcl_risk"]
            lo, up = _averaged("EXP.search-dcl.lower", anchors, kk), _averaged("EXP.search-dcl.upper", anchors, kk)
            assert lo <= g <= up, (kk, lo, g, up)
        assert up - lo < 1e-4 * g                   # k = 10^4: the bounds pin the gap to ~4 digits


# ---------------------------------------------------------------- the sphere's moments in closed form
def _sphere_moments_by_quadrature(d, kappa, tau):
    """The moments from their definitions (the module docstring), by mpmath.quad on the density
    c_d (1 - s^2)^((d-3)/2) of s = <x, z> at 32 digits, mu and Z_d(kappa) by quadrature too: no Bessel
    function and no closed form; panels at the density's scale 1/sqrt(d) and at kappa's, 1/kappa, below 1."""
    mp = mpmath.mp
    kappa, it = mp.mpf(kappa), 1 / mp.mpf(tau)
    a = mp.mpf(d - 3) / 2
    logc = mp.loggamma(mp.mpf(d) / 2) - mp.loggamma(mp.mpf(d - 1) / 2) - mp.log(mp.pi) / 2
    step = 1 / (2 * mp.sqrt(d))
    cuts = {mp.mpf(-1), mp.mpf(1)} | {j * step for j in range(-12, 13) if abs(j * step) < 1}
    cuts |= {1 - mp.mpf(j) / kappa for j in (1, 3, 10, 30, 100, 300) if j < kappa}

    def E(f):
        return mp.quad(lambda s: f(s) * mp.exp(logc + a * mp.log1p(-s * s)) if abs(s) < 1 else 0, sorted(cuts))
    mu, Z = E(lambda s: mp.exp(it * s)), E(lambda s: mp.exp(kappa * s))
    r = lambda s: mp.exp(kappa * s) / Z                                       # noqa: E731
    V = lambda s: mp.exp(it * s) / mu - 1                                     # noqa: E731
    ers = E(lambda s: r(s) * s)
    return {"m2": E(lambda s: V(s) ** 2), "m3": E(lambda s: V(s) ** 3),
            "EW": E(lambda s: r(s) * (V(s) + 1)), "EW2": E(lambda s: r(s) * (V(s) + 1) ** 2),
            "E_b2": E(lambda s: (r(s) - 1) ** 2), "E_ab": E(lambda s: r(s) * (s - ers) * (r(s) - 1)),
            "E_ab2": E(lambda s: r(s) * (s - ers) * (r(s) - 1) ** 2)}


@pytest.mark.parametrize("d, kappa, tau", [(3, "1000", "0.5"), (16, "200", "0.1"), (256, "50", "1"),
                                           (4, "0.001", "100")])
def test_sphere_closed_form_moments_against_quadrature(d, kappa, tau):
    """``sphere_moments_arb`` (Bessel closed forms, expm1 and log-domain ratios) against the definitions
    integrated by quadrature, concentrated positives (kappa = 200, 1000) and heavy cancellation (m3 and
    E[a b^2] at tau = 100, kappa = 0.001) included: 25 digits."""
    import flint
    from infonce_sym.models.laws import sphere_moments_arb
    with mpmath.workdps(32):
        by_quadrature = _sphere_moments_by_quadrature(d, kappa, tau)
        saved, flint.ctx.prec = flint.ctx.prec, 256
        try:
            closed = sphere_moments_arb(d, flint.arb(kappa), 1 / flint.arb(tau))
        finally:
            flint.ctx.prec = saved
        for name, value in by_quadrature.items():
            assert mpmath.almosteq(mpmath.mpf(closed[name].mid().str(40, radius=False)), value, 1e-25), name


def test_sphere_closed_form_constants_against_s2_elementary_forms():
    """d = 3: the constants from the Bessel closed forms equal those from the elementary sinh forms of
    ``_sphere_anchor_moments`` (m2, m3, EW, EW2), at kappa = 2, 300 and tau = 1, 0.05."""
    with mpmath.workdps(40):
        for kappa, tau in (("2", "1"), ("300", "0.05")):
            am = _sphere_anchor_moments(kappa, tau)
            got = X.model_constants(SphereModel(3, kappa), tau, mpmath.mp)
            for name in ("c1", "c2", "c1t", "c2t"):
                assert mpmath.almosteq(got[name], X.evaluate(name, am, tau, mpmath.mp), 1e-33), (kappa, tau, name)


@pytest.mark.parametrize("d, kappa, tau, search", [(16, "200", "0.2", False), (8, "20", "0.5", True)])
def test_sphere_constants_against_exact_gaps_at_large_k(d, kappa, tau, search):
    """k^2 (gap - c1/k) - c2 = O(1/k) for the exact gaps (exact.py's transforms, 30 digits) at k = 10^5,
    10^6, 10^7: InfoNCE's c1, c2, DCL's c1t, c2t (through R - R~), and the search's d1, d2 where the
    expansion is reached for these k (|d2/d1| = 112 at (8, 20, 0.5); 3.8e10 at (16, 200, 0.2))."""
    model = SphereModel(d, kappa)
    runs = exact_values(model, float(tau), ks=[10**5, 10**6, 10**7], digits=30)
    with mpmath.workdps(40):
        C = X.model_constants(model, tau, mpmath.mp)
        pairs = [("cross_entropy_limit_minus_risk", C["c1"], C["c2"]),
                 ("infonce_minus_dcl_risk", C["c1t"] - C["c1"], C["c2t"] - C["c2"])]
        if search:
            pairs.append(("search_cross_entropy_minus_risk", C["d1"], C["d2"]))
        for gap, c1, c2 in pairs:
            errors = [abs(r.k ** 2 * (r.gaps[gap] - c1 / r.k) - c2) / abs(c2) for r in runs]
            assert errors[-1] < 1e-3, (gap, errors)
            assert errors[1] < 0.12 * errors[0] and errors[2] < 0.12 * errors[1], (gap, errors)


def test_expand_prints_the_closed_form_constants():
    """`expand` on the sphere at 60 digits prints the closed-form constants (the plain rule of the anchor
    laws, used before, was good to 40 digits only at (16, 50, 0.1)), and runs at kappa = 10^4, d = 4096,
    with the k at which the 1/k^2 term equals the 1/k term (5e34 there: no k of interest is in range)."""
    import json
    from infonce_sym.app.cli import main
    from contextlib import redirect_stdout
    import io
    for argv, digits in ((["--dim", "16", "--kappa", "50", "--tau", "0.1"], 60),
                         (["--dim", "4096", "--kappa", "10000", "--tau", "0.01"], 30)):
        buf = io.StringIO()
        with redirect_stdout(buf):
            assert main(["expand", *argv, "--digits", str(digits), "--json"]) == 0
        out = json.loads(buf.getvalue())
        with mpmath.workdps(digits + 20):
            model = SphereModel(int(argv[1]), argv[3])
            by_quadrature = _sphere_moments_by_quadrature(model.dim, argv[3], argv[5]) if model.dim == 16 else None
            C = X.model_constants(model, argv[5], mpmath.mp)
            for key in ("c1", "c2", "d1", "d2"):
                assert out["results"][key] == mpmath.nstr(C[key], digits, strip_zeros=False), key
            for gap, (one, two) in (("cross_entropy", ("c1", "c2")), ("search", ("d1", "d2"))):
                shown, ratio = out["k_crossover"][gap], abs(C[two] / C[one])      # 3 significant digits
                assert abs(mpmath.mpf(shown) - ratio) <= ratio / 200 and not shown.endswith(".0"), (gap, shown)
            if by_quadrature is not None:                 # the quadrature route at 80 digits, as a second check
                assert mpmath.almosteq(mpmath.mpf(out["results"]["c2"]), X.evaluate("c2", by_quadrature, argv[5], mpmath.mp),
                                       mpmath.mpf(10) ** (1 - digits))


def test_expand_says_why_a_crossover_k_is_missing():
    """At kappa = 0 (M = pi) the search constants d1, d2 are 0: |d2/d1| is 0/0, and the JSON gave null with
    no reason (a probe, Dec 2026); the reason is under "undefined" now, and the text says it.  A crossover of
    481 prints as 481, not 481.0."""
    import io
    import json
    from contextlib import redirect_stdout
    from infonce_sym.app.cli import main
    argv = ["expand", "--model", "sphere", "--dim", "5", "--kappa", "0", "--tau", "0.3", "--loss", "dcl"]
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(argv + ["--json"]) == 0
        assert main(argv) == 0
    text = buf.getvalue()
    out = json.loads(text[:text.index("\n}\n") + 2])
    assert mpmath.mpf(out["results"]["d1"]) == 0 and out["k_crossover"]["search"] is None
    assert out["undefined"] == {"k_crossover.search": "d1 = 0: the 1/k term vanishes"}
    assert "no crossover k for the search expansion: d1 = 0" in text
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["expand", "--model", "example-a2", "--tau", "0.3", "--mixing", "0.2", "--delta", "0.1", "--json"]) == 0
    out = json.loads(buf.getvalue())
    ratio = abs(mpmath.mpf(out["results"]["d2"]) / mpmath.mpf(out["results"]["d1"]))      # 481.0... here
    shown = out["k_crossover"]["search"]
    assert shown == str(int(mpmath.nint(ratio))) and 100 <= ratio < 1000, (shown, ratio)


def test_closed_form_constants_raise_the_precision_through_cancellation():
    """At kappa = 10^-20 the search constants cancel like kappa^3 (d2t ~ 1.6e-63 out of terms ~ 1e-3): the
    closed forms at the starting precision are noise, the certified value equals the quadrature of the
    definitions at 75 digits; where no precision up to MAX_CLOSED_FORM_BITS suffices, ArithmeticError."""
    with mpmath.workdps(75):
        by_quadrature = _sphere_moments_by_quadrature(3, "1e-20", "100")
        expected = X.evaluate("d2t", by_quadrature, "100", mpmath.mp)
    with mpmath.workdps(30):
        got = X.closed_form_constants(SphereModel(3, "1e-20"), "100", mpmath.mp)["d2t"]
        assert mpmath.almosteq(got, expected, 1e-28)
        with pytest.raises(ArithmeticError, match="d2t did not reach 30 digits"):
            X.closed_form_constants(SphereModel(2, "1e-30000"), "100", mpmath.mp)


def test_confirmed_constants_compare_two_passes_on_finite_models(monkeypatch):
    """A finite model's constants are recomputed 20 digits wider and must agree to the digits asked for: a
    second pass moved by 1e-25 (relative) passes at 20 digits and is refused at 30."""
    model = nonreversible_model()
    good = X.confirmed_constants(model, "0.5", 30)
    with mpmath.workdps(60):
        assert all(mpmath.almosteq(good[n], v, 1e-30) for n, v in X.model_constants(model, "0.5", mpmath.mp).items())
    real, calls = X.model_constants, []

    def moved(model_, tau_, ctx, names=X.CONSTANT_NAMES):      # the second pass of each call moved
        calls.append(ctx.dps)
        out = real(model_, tau_, ctx, names)
        return {n: v * (1 + mpmath.mpf(10) ** -25) if len(calls) % 2 == 0 else v for n, v in out.items()}
    monkeypatch.setattr(X, "model_constants", moved)
    X.confirmed_constants(model, "0.5", 20)
    with pytest.raises(ArithmeticError, match="agrees to only 2[45]"):
        X.confirmed_constants(model, "0.5", 30)


def test_confirmed_constants_take_noise_below_both_floors_as_zero(monkeypatch):
    """A constant that is 0 comes out of the two passes as their rounding noise, which never agrees: it is 0
    when below 10^-(digits+10) in the first pass and 10^-(digits+30) in the second, and a value above the
    first floor that the passes do not agree on is still refused."""
    model = nonreversible_model()
    real, calls = X.model_constants, []

    def noisy(first_size, second_size):
        def constants(model_, tau_, ctx, names=X.CONSTANT_NAMES):
            calls.append(ctx.dps)
            out = real(model_, tau_, ctx, names)
            out["c1"] = mpmath.mpf(10) ** -(first_size if len(calls) % 2 else second_size)
            return out
        return constants
    monkeypatch.setattr(X, "model_constants", noisy(31, 52))
    got = X.confirmed_constants(model, "0.5", 20)
    assert got["c1"] == 0 and got["c2"] != 0
    monkeypatch.setattr(X, "model_constants", noisy(28, 52))
    with pytest.raises(ArithmeticError, match="c1 agrees"):
        X.confirmed_constants(model, "0.5", 20)
    monkeypatch.setattr(X, "model_constants", noisy(31, 48))
    with pytest.raises(ArithmeticError, match="c1 agrees"):
        X.confirmed_constants(model, "0.5", 20)


def test_exact_route_reads_kappa_as_the_decimal_typed():
    """kappa = 3.14159265358979323846 (21 digits): the exact route took its float 3.141592653589793 (a
    relative change of 4e-17, which moves the gap at k = 10^9 by 80 times its 1/k^3 term); the closed-form
    constants at the decimal typed then expand the exact gaps at 10^8 and 10^9 with the 1/k decay."""
    kappa, tau = "3.14159265358979323846", "0.333333333333333333"
    model = SphereModel(7, kappa)
    runs = exact_values(model, tau, ks=[10**8, 10**9], digits=30)
    with mpmath.workdps(40):
        C = X.model_constants(model, tau, mpmath.mp)
        e = [abs(r.k ** 2 * (r.gaps["cross_entropy_limit_minus_risk"] - C["c1"] / r.k) - C["c2"]) / abs(C["c2"])
             for r in runs]
    assert e[1] < 2e-9 and e[1] < 0.2 * e[0], e
