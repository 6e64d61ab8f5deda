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
