"""Exact values against independent routes: brute-force enumeration, 2-D quadrature, closed forms."""
import itertools
import math

import mpmath
import numpy as np
import pytest

from infonce_sym.errors import InputError
from infonce_sym.quantities.exact import exact_values
from infonce_sym.models import FiniteModel, SphereModel, nonreversible_model

mp = mpmath.mp


def _brute_force(model, tau, k):
    """R, R~ and the search CE by enumerating every (anchor, positive, k negatives)."""
    with mpmath.workdps(40):
        pi, M, _ = model.exact_arrays(mp)
        G = model.gram(mp)
        tau = mp.mpf(tau)
        n = len(pi)
        R = Rt = S = mp.zero
        for i in range(n):
            for tup in itertools.product(range(n), repeat=k):
                pr = pi[i]
                for l in tup:
                    pr *= pi[l]
                sums = mp.fsum(mp.exp(G[i][l] / tau) for l in tup)
                for j in range(n):
                    R += pr * M[i][j] * mp.log((mp.exp(G[i][j] / tau) + sums) / k) - pr * M[i][j] * G[i][j] / tau
                    Rt += pr * M[i][j] * (mp.log(sums / k) - G[i][j] / tau)
                w = [M[i][l] / pi[l] for l in tup]
                S += pr * (-mp.fsum(wi * G[i][l] for wi, l in zip(w, tup)) / mp.fsum(w) / tau + mp.log(sums / k))
        return R, Rt, S


@pytest.mark.parametrize("k", [1, 2, 4])
def test_finite_model_against_enumeration(k):
    model = nonreversible_model()
    R, Rt, S = _brute_force(model, "0.5", k)
    info = exact_values(model, 0.5, k, digits=20)
    dcl = exact_values(model, 0.5, k, digits=20, loss="dcl")
    mp.dps = 40
    assert abs(info.values["risk"] - R) < 1e-20 * abs(R)
    assert abs(dcl.values["risk"] - Rt) < 1e-20 * abs(Rt)
    assert abs(info.values["search_cross_entropy"] - S) < 1e-20 * max(abs(S), 1)
    # the directly integrated gaps agree with differences of the values
    gap = info.values["cross_entropy_limit"] - R
    assert abs(info.gaps["cross_entropy_limit_minus_risk"] - gap) < 1e-20
    assert abs(info.gaps["search_cross_entropy_minus_risk"] - (S - R)) < 1e-20
    assert abs(dcl.gaps["search_cross_entropy_minus_risk"] - (S - Rt)) < 1e-20
    mp.dps = 15


def test_sphere_k2_against_two_dimensional_quadrature():
    """d = 3: s uniform on [-1, 1], w = e^{kappa s}/Z_3(kappa); R~ and search CE at k = 2 by 2-D quadrature."""
    tau, kappa = mp.mpf("0.5"), mp.mpf(2)
    model = SphereModel(3, 2.0)
    ev = exact_values(model, 0.5, 2, digits=15, loss="dcl")
    with mpmath.workdps(25):
        mean_p = 1 / mp.tanh(kappa) - 1 / kappa
        log_mean = mp.quad(lambda a, b: mp.log((mp.exp(a / tau) + mp.exp(b / tau)) / 2) / 4, [-1, 0, 1], [-1, 0, 1])
        ratio = mp.quad(lambda a, b: (mp.exp(kappa * a) * a + mp.exp(kappa * b) * b)
                        / (mp.exp(kappa * a) + mp.exp(kappa * b)) / 4, [-1, 0, 1], [-1, 0, 1])
        dcl_risk = -mean_p / tau + log_mean
        search = -ratio / tau + log_mean
    assert abs(ev.values["risk"] - dcl_risk) < 1e-13
    assert abs(ev.values["search_cross_entropy"] - search) < 1e-13


def test_sphere_k1_infonce_against_quadrature_and_closed_forms():
    tau, kappa = mp.mpf(1), mp.mpf(3)
    model = SphereModel(3, 3.0)
    ev = exact_values(model, 1.0, 1, digits=15)
    with mpmath.workdps(25):
        density_p = lambda p: kappa * mp.exp(kappa * p) / (2 * mp.sinh(kappa))
        risk = mp.quad(lambda p, s: density_p(p) / 2 * mp.log(1 + mp.exp((s - p) / tau)), [-1, 0, 1], [-1, 0, 1])
        limit = -(1 / mp.tanh(kappa) - 1 / kappa) / tau + mp.log(mp.sinh(1 / tau) * tau)
        d2 = (mp.sinh(2 * kappa) / (2 * kappa)) / (mp.sinh(kappa) / kappa) ** 2
    assert abs(ev.values["risk"] - risk) < 1e-13
    assert abs(ev.values["cross_entropy_limit"] - limit) < 1e-14
    assert abs(ev.values["density_ratio_second_moment"] - d2) < 1e-14
    assert ev.values["search_cross_entropy"] == 0      # M_hat_1 = Q_hat_1


def test_large_k_and_small_tau_are_finite_and_precise():
    ev = exact_values(SphereModel(16, 8.0), 0.05, 10**9, digits=12)
    gap = ev.gaps["cross_entropy_limit_minus_risk"]
    assert ev.agreement_digits >= 13
    # Prop. 1 bounds hold and the gap is O(1/k)
    assert -mp.log(1 + mp.exp(40) / 10**9) <= gap <= (mp.exp(40) - 1) ** 2 / (8 * 10**9)
    assert abs(gap) < 1e-3


def test_non_dominated_model_reports_undefined():
    model = FiniteModel([0.5, 0.5, 0.0], [[0.5, 0.25, 0.25], [0.5, 0.5, 0.0], [1.0, 0.0, 0.0]],
                        [[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]])
    ev = exact_values(model, 0.5, 3, digits=10)
    assert "search_cross_entropy" in ev.undefined and "pi(2) = 0" in ev.undefined["search_cross_entropy"]
    assert "density_ratio_second_moment" in ev.undefined
    assert ev.as_strings()["search_cross_entropy"] is None


@pytest.mark.parametrize("kwargs,param", [
    ({"tau": 0}, "tau"), ({"tau": float("nan")}, "tau"), ({"k": 0}, "k"), ({"k": 2.5}, "k"),
    ({"digits": 4}, "digits"), ({"digits": 1001}, "digits"), ({"loss": "nce"}, "loss")])
def test_bad_input_names_the_parameter(kwargs, param):
    args = {"tau": 0.5, "k": 2, "digits": 10}
    args.update(kwargs)
    loss = args.pop("loss", "infonce")
    with pytest.raises(InputError) as err:
        exact_values(SphereModel(3, 1.0), args["tau"], args["k"], digits=args["digits"], loss=loss)
    assert err.value.parameter == param


def test_high_dimensional_sphere_passes_its_precision_check():
    """d = 128 concentrates s within ~1/sqrt(d); the rule must resolve it (this once gave 11 digits)."""
    ev = exact_values(SphereModel(128, 16.0), 0.5, 10, digits=15)
    assert ev.agreement_digits >= 15
    gap = ev.gaps["cross_entropy_limit_minus_risk"]
    assert -mp.log(1 + mp.e ** 4 / 10) <= gap <= (mp.e ** 4 - 1) ** 2 / 80


# Reference values for hard sphere cases, produced by the *previous* implementation of
# exact.py (git e0c1d91, before the FLINT/shared-grid rewrite) at digits=45 with its own
# precision check (agreement 50-62 digits; the cross_entropy_limit strings also agree with
# the closed form SphereModel.cross_entropy_limit to ~1e-48).  dcl_risk = risk minus
# gaps["infonce_minus_dcl_risk"] of that run.  The current code, at digits=30, must
# reproduce them to 30 significant digits.
SPHERE_REFERENCE = {
    (1024, 16.0, 0.01, 10**9): dict(
        risk="3.29773829636413300041356386042209491194137009058",
        cross_entropy_limit="3.29774456944651274129727591852446487232508223666",
        search_cross_entropy="3.297738293682942924323786540948453461939481971",
        dcl_risk="3.29773829168049426182660858908514643369019873503"),
    (1024, 16.0, 0.01, 1): dict(
        risk="1.22410681120431441232611705774573600758895552056",
        cross_entropy_limit="3.29774456944651274129727591852446487232508223666",
        search_cross_entropy="0.0",
        dcl_risk="-1.56211945894488377130532960478729893911032515544"),
    (3, 4.0, 0.05, 1): dict(
        risk="0.654008514897826378599726666491619265856539265315",
        cross_entropy_limit="1.29769753785241389465695515842025503272019406566",
        search_cross_entropy="0.0",
        dcl_risk="-15.0134230080336497982422348886874386191742124549"),
    (3, 4.0, 0.05, 10): dict(
        risk="0.791181568243409692886669622374503640704544199133",
        cross_entropy_limit="1.29769753785241389465695515842025503272019406566",
        search_cross_entropy="0.726472349461557065619398656278906956115425460257",
        dcl_risk="-0.759969878432200916857568736967261343504799369846"),
    (3, 4.0, 0.5, 1): dict(
        risk="0.320890943221327168722658945600071282808375960211",
        cross_entropy_limit="-0.906122108749142159187609075526266626595786272424",
        search_cross_entropy="0.0",
        dcl_risk="-1.50134230080336497982422348886874386191742124549"),
    (3, 4.0, 0.5, 10): dict(
        risk="-0.703526171658947802977413616586838540001941935738",
        cross_entropy_limit="-0.906122108749142159187609075526266626595786272424",
        search_cross_entropy="-0.815242104827663281808299322350444559804619077169",
        dcl_risk="-0.963886327617039080055996061675061389766641560179"),
    (128, 16.0, 0.1, 10**6): dict(
        risk="-0.841867856769593687296217036788236308796473485358",
        cross_entropy_limit="-0.841870627766161957688277859566750675198727378507",
        search_cross_entropy="-0.841863633495473624884742944389919204049161848323",
        dcl_risk="-0.84187120265727629413270199867434286111056186039"),
}


@pytest.mark.parametrize("case", list(SPHERE_REFERENCE), ids=lambda c: "d{}-kappa{}-tau{}-k{}".format(*c))
def test_sphere_hard_cases_against_reference(case):
    dim, kappa, tau, k = case
    ref = SPHERE_REFERENCE[case]
    info = exact_values(SphereModel(dim, kappa), tau, k, digits=30)
    dcl = exact_values(SphereModel(dim, kappa), tau, k, digits=30, loss="dcl")
    with mpmath.workdps(60):
        got = dict(info.values, dcl_risk=dcl.values["risk"])
        # the two runs' gaps agree: R - R~ of the infonce run gives the same R~
        assert abs(info.values["risk"] - info.gaps["infonce_minus_dcl_risk"] - dcl.values["risk"]) \
            <= mp.mpf(10) ** -30 * max(1, abs(dcl.values["risk"]))
        for key, text in ref.items():
            want = mp.mpf(text)
            if want == 0:
                assert got[key] == 0, key
            else:
                assert abs(got[key] - want) <= mp.mpf(10) ** -30 * abs(want), (key, got[key], want)


@pytest.mark.parametrize("digits", [20, 30, 50])
def test_trapezoid_rule_against_frullani_and_gamma(digits):
    """``_trapezoid_integral`` on the whole line in y = log t, its nodes below t0 summed from the head
    series in closed form: int_0^oo (e^-t - e^-2t) dt/t = log 2 (Frullani) and int_0^oo t^4 e^-t dt = 24 (t^5 e^-t against dt/t),
    each to ``digits`` digits; the closed-form head sum equals the plain sum of the series at those
    nodes; and the rule needs far fewer nodes than the adaptive Gauss panels on the same integrand."""
    import flint
    from infonce_sym.quantities import exact as ex
    saved = flint.ctx.prec
    flint.ctx.prec = int((digits + 12) * 3.33) + 30
    try:
        arb = flint.arb
        t0 = arb("0.25")
        terms = 4 * digits
        fact = [arb(1)]
        for i in range(1, terms):
            fact.append(fact[-1] * i)
        frullani = ex._Head([arb(0)] + [arb(-1) ** i * (1 - arb(2) ** i) / fact[i] for i in range(1, terms)], t0)
        gamma5 = ex._Head([arb(0)] * 5 + [arb(-1) ** i / fact[i] for i in range(terms - 5)], t0)
        calls = []

        def integrand(t):
            calls.append(t)
            return [(-t).exp() - (-2 * t).exp(), (5 * t.log() - t).exp()]     # against dy = dt/t
        got = ex._trapezoid_integral(integrand, 2, arb(10) ** 3, 1, digits, [frullani, gamma5], t0)
        trapezoid_nodes = len(calls)
        calls.clear()
        ex._outer_integral(integrand, 2, arb(10) ** 3, 1, digits, [frullani, gamma5], t0)
        h = arb("0.1")
        plain = sum((h * integrand(t0 * (-m * h).exp())[0] for m in range(1, 3000)), arb(0))
        closed = frullani.trapezoid(h)
    finally:
        flint.ctx.prec = saved
    with mpmath.workdps(digits + 20):
        for value, want in zip(got, (mpmath.log(2), mpmath.mpf(24))):
            err = abs(mpmath.mpf(value.mid().str(digits + 15, radius=False)) - want) / want
            assert err < mpmath.mpf(10) ** -digits, (digits, err)
        assert abs(mpmath.mpf((plain - closed).mid().str(30, radius=False))) < mpmath.mpf(10) ** -digits
    assert trapezoid_nodes < 0.6 * len(calls), (trapezoid_nodes, len(calls))


def test_scan_floor_is_a_lower_estimate_of_the_total():
    """``_scan_floor``: 1/100 of the step-1 trapezoid estimate of a one-signed integral bounded in the
    strip lies within 0.1% of 1/100 of the integral (Frullani: int (e^-t - e^-bt) dt/t = log b for
    b = 2, 3), so below the total; an integrand not flagged gets 0."""
    import flint
    from infonce_sym.quantities import exact as ex
    saved = flint.ctx.prec
    flint.ctx.prec = 200
    try:
        arb = flint.arb
        t0, terms = arb("0.25"), 80
        fact = [arb(1)]
        for i in range(1, terms):
            fact.append(fact[-1] * i)
        heads = [ex._Head([arb(0)] + [arb(-1) ** i * (1 - arb(b) ** i) / fact[i] for i in range(1, terms)], t0)
                 for b in (2, 3, 3)]

        def integrand(t):
            return [(-t).exp() - (-2 * t).exp()] + [(-t).exp() - (-3 * t).exp()] * 2
        floor = ex._scan_floor(integrand, 3, arb(10) ** 3, 30, heads, t0, None, [True, True, False])
        ratios = [float((f * 100 / arb(b).log()).mid()) for f, b in zip(floor, (2, 3))]
    finally:
        flint.ctx.prec = saved
    assert all(0.999 < r < 1.001 for r in ratios), ratios
    assert floor[2].is_zero()


@pytest.mark.parametrize("a,digits", [(2.5, 30), (7, 40), (0.5, 20)])
def test_outer_integral_against_the_gamma_function(a, digits):
    """The adaptive panels of ``_outer_integral`` (narrowed where the error proxy rejects them):
    int_0^oo t^(a-1) e^-t dt = Gamma(a), with the head below t0 = 1/4 from mpmath's incomplete gamma."""
    import flint
    from infonce_sym.quantities import exact as ex
    saved = flint.ctx.prec
    flint.ctx.prec = int((digits + 12) * 3.33) + 30
    try:
        with mpmath.workdps(digits + 20):
            head = flint.arb(mpmath.nstr(mpmath.gammainc(a, 0, 0.25), digits + 15))
            want = mpmath.gamma(a)
        a_arb = flint.arb(str(a))
        calls = []

        def integrand(t):
            calls.append(t)
            return [(a_arb * t.log() - t).exp()]          # t f(t), f(t) = t^(a-1) e^-t
        got, = ex._outer_integral(integrand, 1, flint.arb(10) ** 3, 1, digits, [head], flint.arb("0.25"))
    finally:
        flint.ctx.prec = saved
    with mpmath.workdps(digits + 20):
        err = abs(mpmath.mpf(got.mid().str(digits + 15, radius=False)) - want) / want
    assert err < mpmath.mpf(10) ** -digits, (a, err)
    assert len(calls) > 20


def _panels_of_exponential_integral(digits, grade_about):
    """int_0^oo e^-t dt over y = log t in [-69, 7] by ``_outer_integral`` (the head below t0 = 1e-30,
    1 - e^-t0, in closed form): (value, the y-spans of the rule's node groups, one per panel tried)."""
    import flint
    from infonce_sym.quantities import exact as ex
    saved = flint.ctx.prec
    flint.ctx.prec = int((digits + 12) * 3.33) + 30
    try:
        t0 = flint.arb("1e-30")
        calls = []

        def integrand(t):
            calls.append(float(t.log().mid()))
            return [t * (-t).exp()]
        got, = ex._outer_integral(integrand, 1, flint.arb(10) ** 3, 1, digits, [-(-t0).expm1()], t0,
                                  grade_about=grade_about)
    finally:
        flint.ctx.prec = saved
    nodes = 10 + int(0.4 * digits)
    assert len(calls) % nodes == 0
    return got, [(min(calls[i:i + nodes]), max(calls[i:i + nodes])) for i in range(0, len(calls), nodes)]


def test_outer_panels_are_graded_about_the_given_points():
    """``grade_about``: with a grading point at y = -20, on the smooth integrand e^-t (against dt), no
    panel starting below it spans more than a quarter of its distance to it, none above more than its
    distance from it (a unit at least), where without it a panel 4 units wide straddles it; both values
    are 1 to the digits asked."""
    digits, y_b = 30, -20.0
    plain, spans = _panels_of_exponential_integral(digits, ())
    assert max(hi - lo for lo, hi in spans if lo - 1 < y_b < hi + 1) > 3
    graded, spans = _panels_of_exponential_integral(digits, (y_b,))
    x_max = np.polynomial.legendre.leggauss(10 + int(0.4 * digits))[0][-1]     # the outermost node
    for lo, hi in spans:
        width = (hi - lo) / x_max
        start = (lo + hi - width) / 2
        allowed = max(1.0, (y_b - start) / 4 if start < y_b else start - y_b)
        assert width <= allowed * (1 + 1e-9), (start, width, allowed)
    for got in (plain, graded):
        assert abs(float((got - 1).mid())) < 10.0 ** -digits, got


@pytest.mark.parametrize("spoil", ["outer", "rules"])
def test_precision_check_catches_a_first_pass_too_coarse(spoil, monkeypatch):
    """The second pass (8 more digits, every rule 1.1x finer) must expose a first pass whose rules are
    too coarse: with the first pass's trapezoid step 4x too wide, or its sphere rules with 24 fewer
    nodes per panel (Gauss) or aimed 20 digits lower (trapezoid in theta), the first comparison of the two passes falls short of the 30 digits asked for,
    and what exact_values then returns (after its retry at more digits) equals the unspoilt values
    to 30 digits, or it refuses with an ArithmeticError: never the spoilt digits."""
    from infonce_sym.models import quadrature
    from infonce_sym.quantities import exact as ex
    model = SphereModel(16, 8.0)
    good = ex.exact_values(model, "0.1", 1024, digits=30)
    assert good.agreement_digits > 40
    if spoil == "outer":
        real = ex._trapezoid_integral

        def coarse(integrand, count, decay_floor, refinement, dps, heads, t0, *rest):
            monkeypatch.setattr(ex, "STRIP", 5.0 if refinement == 1 else 1.3)
            return real(integrand, count, decay_floor, refinement, dps, heads, t0, *rest)
        monkeypatch.setattr(ex, "_trapezoid_integral", coarse)
    else:
        real_nodes = quadrature.sphere_panel_nodes
        real_rule = quadrature.sphere_density_rule.__wrapped__

        def rule(dim, b, s_step, dps, refinement, *args, **kwargs):
            monkeypatch.setattr(quadrature, "sphere_panel_nodes",
                                (lambda d: real_nodes(d) - 24) if refinement == 1 else real_nodes)
            # the trapezoid rules (which these are at d = 16) aimed 20 digits lower
            monkeypatch.setattr(quadrature, "TRAPEZOID_SAFETY", -17 if refinement == 1 else 3)
            return real_rule(dim, b, s_step, dps, refinement, *args, **kwargs)
        monkeypatch.setattr(ex, "sphere_density_rule", rule)
    agreements = []
    real_agreement = ex._agreement

    def agreement(*args, **kwargs):
        agreements.append(real_agreement(*args, **kwargs))
        return agreements[-1]
    monkeypatch.setattr(ex, "_agreement", agreement)
    try:
        spoilt = ex.exact_values(model, "0.1", 1024, digits=30)
    except ArithmeticError as exc:
        assert "agree to only" in str(exc)
    else:
        for key, value in good.values.items():
            assert abs(spoilt.values[key] - value) <= mpmath.mpf(10) ** -30 * abs(value), key
    assert agreements[0] < 30, agreements


@pytest.mark.parametrize("prec", [64, 200, 436, 800])
def test_exponential_integral_by_its_continued_fraction_encloses_mpmath(prec):
    """_expint1: E1(z) by A&S 5.1.22's S-fraction (the union of two consecutive convergents) inside its window
    prec/6 <= z < prec/1.4, arb's expint outside; either way a ball that holds mpmath's e1 (at 100 bits
    more), and in the window one as accurate as the working precision: at its ends, inside it and beyond.
    Below the window (1 < z < prec/6) arb's series loses about 2z/log 2 bits, which _expint1_raised adds:
    as accurate there; and Ein(z) = E1(z) + gamma + log z (its z/log 2 bits added) as well."""
    import flint
    from infonce_sym.quantities import exact as ex
    low, high = ex.E1_FRACTION_WINDOW
    zs = [prec / low, prec / low * 1.01, (prec / low) * 1.7, prec / 2, prec / high * 0.99, prec / high, 3.5, 1e6,
          1.5, prec / low * 0.97]
    saved = flint.ctx.prec
    try:
        flint.ctx.prec = prec
        used = 0
        for z in zs:
            x = flint.arb(z)                      # a double: an exact ball
            with mpmath.workprec(prec + 100):
                ref = mpmath.e1(mpmath.mpf(z))
                text = mpmath.nstr(ref, int((prec + 100) * 0.30103))
            got = ex._expint1(x)
            assert got.overlaps(flint.arb(text)), (prec, z)
            if prec / low <= z < prec / high:       # arb's own may come out short (the caller then retries)
                assert got.rel_accuracy_bits() >= prec - 2, (prec, z, got.rel_accuracy_bits())
                used += 1
            if 1 < z < prec / low:
                raised = ex._expint1_raised(x, ex.E1_LOST_BITS)
                assert raised.overlaps(flint.arb(text)) and raised.rel_accuracy_bits() >= prec - 2, (prec, z)
                with mpmath.workprec(prec + 100):
                    ein = mpmath.nstr(mpmath.e1(mpmath.mpf(z)) + mpmath.euler + mpmath.log(z), int((prec + 100) * 0.30103))
                got_ein = ex._ein(x)
                assert got_ein.overlaps(flint.arb(ein)) and got_ein.rel_accuracy_bits() >= prec - 4, (prec, z)   # three roundings
                used += 10
        assert used == 35
    finally:
        flint.ctx.prec = saved


@pytest.mark.parametrize("prec", [64, 156, 436])
def test_exponential_integral_shortcuts_enclose_mpmath(prec):
    """_expint1_small (tiny z: -gamma - log z + [0, z]) holds mpmath's E1 (100 bits more) to the working precision
    where it takes the shortcut, and arb's own just above; _expint1_beside(z, a) holds E1(z) and, where it takes
    the enclosure [0, e^{-z}/z] (z - a past prec log 2 + 8), is within 2^-prec of E1(a), not where it does not."""
    import flint
    from infonce_sym.quantities import exact as ex
    saved = flint.ctx.prec
    try:
        flint.ctx.prec = prec
        tiny = 2.0 ** (-prec - 4)
        for z in (tiny * 0.99, tiny * 1e-30, 1e-300, tiny * 1.01, 1e-3, 0.5):
            with mpmath.workprec(prec + 100):
                text = mpmath.nstr(mpmath.e1(mpmath.mpf(z)), int((prec + 100) * 0.30103))
            got = ex._expint1_small(flint.arb(z))
            assert got.overlaps(flint.arb(text)), (prec, z)
            if z < tiny:
                assert got.rel_accuracy_bits() >= prec - 3, (prec, z)
        edge = prec * math.log(2) + 8
        for a, z, shortcut in ((1e-20, edge * 1.01, True), (3.0, 3.0 + edge * 1.01, True), (1e-20, edge * 0.99, False),
                               (40.0, 40.0 + edge * 0.99, False)):
            with mpmath.workprec(prec + 100):
                e1_z, e1_a = mpmath.e1(mpmath.mpf(z)), mpmath.e1(mpmath.mpf(a))
                digits = int((prec + 100) * 0.30103)
            got = ex._expint1_beside(flint.arb(z), flint.arb(a), prec)
            assert got.overlaps(flint.arb(mpmath.nstr(e1_z, digits))), (prec, a, z)
            assert got.contains(0) is shortcut, (prec, a, z)          # the enclosure [0, e^{-z}/z] holds 0
            if shortcut:
                assert got.rad() < flint.arb(mpmath.nstr(e1_a, 20)) * flint.arb(2) ** (-prec), (prec, a, z)
    finally:
        flint.ctx.prec = saved


@pytest.mark.parametrize("prec", [64, 200, 436])
def test_upper_gamma_by_its_continued_fraction_encloses_mpmath(prec):
    """_gamma_upper: Gamma(s, z) by A&S 6.5.31's S-fraction for 0 <= s < 1 in its window, arb's gamma_upper
    otherwise (s >= 1 or z outside); a ball that holds mpmath's gammainc (100 bits more), as accurate as
    the working precision where the fraction serves."""
    import flint
    from infonce_sym.quantities import exact as ex
    low, high = ex.GAMMA_FRACTION_WINDOW
    zs = [prec / low, prec / 2, prec / high * 0.99, prec / high, 2.5]
    saved = flint.ctx.prec
    try:
        flint.ctx.prec = prec
        used = 0
        for s, z in itertools.product([0.0, 0.04, 0.5, 0.96875, 1.0, 7.25], zs):
            with mpmath.workprec(prec + 100):
                text = mpmath.nstr(mpmath.gammainc(mpmath.mpf(s), mpmath.mpf(z)), int((prec + 100) * 0.30103))
            got = ex._gamma_upper(flint.arb(s), flint.arb(z))
            assert got.overlaps(flint.arb(text)), (prec, s, z)
            if 0 <= s < 1 and prec / low <= z < prec / high:
                assert got.rel_accuracy_bits() >= prec - 2, (prec, s, z, got.rel_accuracy_bits())
                used += 1
        assert used == 12
    finally:
        flint.ctx.prec = saved


def test_scaled_prefix_tables_against_direct_moments():
    """A weight vector declared as another's times factors (the ratio rule's numerator: ratio weights
    times r (s - m)) gets its table about 0 from the base's series times the factor; both tables, grown
    together in either order of asking, against the moments summed directly in mpmath at 60 digits.
    Factors of both signs, one a ball around 0, and a base weight 0; factors that do not give the
    declared weights are refused."""
    import flint
    from infonce_sym.quantities import exact
    saved = flint.ctx.prec, flint.ctx.cap
    flint.ctx.prec, flint.ctx.cap = 200, 40
    try:
        xs = ["2.25", "0.125", "0.75", "0.5", "1.5"]            # unsorted: the factors follow the atoms
        base = ["0.3", "0.2", "0", "0.45", "0.7"]
        factors = ["-1.25", "0.5", "3", None, "2"]              # None: the ball [0 +/- 1e-30]
        f_arb = [flint.arb(0, 1e-30) if f is None else flint.arb(f) for f in factors]
        b_arb = [flint.arb(b) for b in base]
        scaled = [b * f for b, f in zip(b_arb, f_arb)]
        mpmath.mp.dps = 60
        order = sorted(range(len(xs)), key=lambda i: float(xs[i]))
        for first in ("ratio", "num"):
            atoms = exact._Atoms([flint.arb(x) for x in xs], {"ratio": b_arb, "num": scaled}, 30, flint.arb(100),
                                 scaled={"num": ("ratio", f_arb)}, stride=1)
            other = "num" if first == "ratio" else "ratio"
            for name in (first, other):
                for i in range(len(xs) + 1):
                    got = atoms.prefix(name, 0, i).coeffs() + [flint.arb(0)] * 30
                    for j in range(30):
                        want = mpmath.fsum(
                            mpmath.mpf(base[l]) * (mpmath.mpf(factors[l]) if name == "num" and factors[l] else
                                                   (0 if name == "num" else 1)) * mpmath.mpf(xs[l]) ** j
                            for l in order[:i]) / mpmath.factorial(j)
                        # the ball factor (base 0.45 at x = 0.5) adds at most 0.45e-30 0.5^j / j!
                        allowed = 1e-45 + (0.46e-30 * 0.5 ** j / math.factorial(j) if name == "num" else 0)
                        assert abs(float(got[j].mid()) - float(want)) <= allowed, (first, name, i, j)
                        assert got[j].rad() <= allowed + 1e-50
            assert len(atoms._tables[("ratio", 0)]) == len(atoms._tables[("num", 0)]) == len(xs) + 1
        with pytest.raises(ValueError, match="not those of"):
            exact._Atoms([flint.arb(x) for x in xs], {"ratio": b_arb, "num": scaled}, 30, flint.arb(100),
                         scaled={"num": ("ratio", f_arb[1:] + f_arb[:1])})
        with pytest.raises(ValueError, match="already in a scaled pair"):      # two pairs on one base
            exact._Atoms([flint.arb(x) for x in xs], {"ratio": b_arb, "num": scaled, "num2": scaled}, 30,
                         flint.arb(100), scaled={"num": ("ratio", f_arb), "num2": ("ratio", f_arb)})
    finally:
        flint.ctx.prec, flint.ctx.cap = saved


@pytest.mark.parametrize("centre,stride", [(0, 1), (1, 1), (0, 2), (1, 3)])
def test_prefix_tables_of_signed_weights_against_direct_moments(centre, stride):
    """_Atoms' prefix series of a weight vector of both signs (as the ratio rule's numerator r (s - m)),
    with one weight a ball around 0 (the product route), against the moments
    sum_{l < i} u_l (x_l - centre)^j / j! summed directly in mpmath at 60 digits, at every checkpoint i
    (the multiples of the stride, and the last atom's end); between checkpoints there is no series."""
    import flint
    from infonce_sym.quantities import exact
    saved = flint.ctx.prec, flint.ctx.cap
    flint.ctx.prec, flint.ctx.cap = 200, 40
    try:
        xs = ["0.125", "0.5", "0.75", "1.5", "2.25"]
        us = ["0.3", "-0.2", None, "-0.45", "0.7"]               # None: the ball [0 +/- 1e-30]
        weights = [flint.arb(0, 1e-30) if u is None else flint.arb(u) for u in us]
        atoms = exact._Atoms([flint.arb(x) for x in xs], {"num": weights}, 30, flint.arb(100), stride=stride)
        mpmath.mp.dps = 60
        checkpoints = sorted(set(range(0, len(xs), stride)) | {len(xs)})
        assert [atoms.checkpoint(i) for i in range(len(xs) + 2)] == [
            max(p for p in checkpoints if p <= i) for i in range(len(xs) + 2)]
        for i in set(range(len(xs))) - set(checkpoints):
            with pytest.raises(ValueError, match="kept at multiples"):
                atoms.prefix("num", centre, i)
        for i in checkpoints:
            got = atoms.prefix("num", centre, i).coeffs() + [flint.arb(0)] * 30
            for j in range(30):
                want = mpmath.fsum(mpmath.mpf(u) * (mpmath.mpf(x) - centre) ** j
                                   for x, u in zip(xs[:i], us[:i]) if u is not None) / mpmath.factorial(j)
                # the ball weight adds at most 1e-30 (x - centre)^j / j! <= 1e-30 2.25^j / j!
                allowed = 1.01e-30 * 2.25 ** j / math.factorial(j) + 1e-45     # radii round up (30-bit mag)
                assert abs(float(got[j].mid()) - float(want)) <= allowed, (i, j)
                assert got[j].rad() <= allowed
                if i > 2:           # the ball weight's uncertainty is carried, not dropped
                    assert got[j].rad() >= 0.99e-30 * abs(0.75 - centre) ** j / math.factorial(j)
    finally:
        flint.ctx.prec, flint.ctx.cap = saved


@pytest.mark.parametrize("seed", [1, 2])
def test_band_sums_from_checkpoint_tables_against_direct_sums(seed):
    """``_Atoms.sums`` (the Taylor tables read at checkpoints every PREFIX_STRIDE atoms, the band of direct
    exponentials starting at the checkpoint below the cut) against sum u h(c, x) in mpmath at 100
    digits: 150 atoms over six decades (more than the 64 that are summed directly), weights of both
    signs, h = e^{-cx}, e^{-cx} - 1 and (c <= 1) e^{-c(x-1)} - 1 + c(x-1), at 25 values of c from 10^-4
    to 10^4, the Taylor series as long as the exact route's for 40 digits.  Each midpoint is within
    10^-40 of sum |u| |h| of the reference, and so is each radius."""
    import random
    import flint
    from infonce_sym.quantities import exact
    rng = random.Random(seed)
    n, dps = 150, 40
    xs = sorted(10 ** rng.uniform(-3, 3) for _ in range(n))
    us = [rng.uniform(-1, 1) for _ in range(n)]
    saved = flint.ctx.prec, flint.ctx.cap
    flint.ctx.prec, flint.ctx.cap = int(dps * 3.33) + exact._guard_bits(), exact._series_terms(dps)
    try:
        atoms = exact._Atoms([flint.arb(x) for x in xs], {"u": [flint.arb(u) for u in us]},
                             exact._series_terms(dps), dps * flint.arb(10).log() + 10)
        assert not atoms.direct and atoms.stride == exact.PREFIX_STRIDE
        rounded = 0
        for j in range(25):
            c_text = mpmath.nstr(mpmath.mpf(10) ** (-4 + j / 3), 12)
            c = flint.arb(c_text)
            kinds = ["exp", "expm1"] + (["centred"] if c.mid() <= 1 else [])
            got = atoms.sums(c, [("u", kind) for kind in kinds])
            cut = atoms._cut(exact.TAYLOR_CUT / c)
            rounded += 0 < cut < n and atoms.checkpoint(cut) < cut
            with mpmath.workdps(100):
                cm = mpmath.mpf(c_text)
                for kind, value in zip(kinds, got):
                    terms = [mpmath.mpf(u) * (mpmath.exp(-cm * x) if kind == "exp" else
                                              mpmath.expm1(-cm * x) if kind == "expm1" else
                                              mpmath.expm1(-cm * (x - 1)) + cm * (x - 1))
                             for x, u in zip(map(mpmath.mpf, xs), us)]
                    want, size = mpmath.fsum(terms), mpmath.fsum(map(abs, terms))
                    # the Taylor series' truncation (below 10^-(dps+5) of the band's weights) is not in the
                    # radius: the midpoint's error and the radius are both measured against the tolerance
                    error = abs(mpmath.mpf(value.mid().str(90, radius=False)) - want)
                    assert error < mpmath.mpf(10) ** -40 * size, (c_text, kind, error / size)
                    assert mpmath.mpf(value.rad().str(5, radius=False)) < mpmath.mpf(10) ** -40 * size, (c_text, kind)
        assert rounded >= 10                # most cuts fall between checkpoints
    finally:
        flint.ctx.prec, flint.ctx.cap = saved


def test_log1p_series_against_mpmath():
    """sum u log(1 + x/k) by ``_log1p_series`` (the series in 1/k from the table's coefficients) against the
    sum of u log1p(x/k) in mpmath at 80 digits, its ball holding that sum: used at k >= 8 x_max when the
    rest is below 10^-(dps+5) of the first term (k = 10^3 .. 10^9 here), refused (None) at rho = x_max/k
    above 1/8 (k = 20) and where 40 coefficients leave too large a rest for 45 digits (k = 30); and
    ``_log1p_expectation``, which takes the series for the atoms with x <= k/64 and sums the others."""
    import flint
    from infonce_sym.quantities import exact
    saved = flint.ctx.prec, flint.ctx.cap
    flint.ctx.prec, flint.ctx.cap = 220, 60
    try:
        xs = ["0.03125", "0.5", "1.25", "2", "3"]
        us = ["0.1", "0.25", "0.3", "0.2", "0.15"]
        atoms = exact._Atoms([flint.arb(x) for x in xs], {"pos": [flint.arb(u) for u in us]}, 40, flint.arb(100),
                             stride=1)
        coeffs = atoms.total_series("pos", 0).coeffs()
        assert len(coeffs) == 40
        mass = sum((flint.arb(u) for u in us), flint.arb(0))
        for k, used in ((20, False), (30, False), (1000, True), (12345, True), (10**9, True)):
            got = exact._log1p_series(coeffs, mass, flint.arb(3), k, 45)
            assert (got is not None) == used, k
            if got is None:
                continue
            with mpmath.workdps(80):
                want = mpmath.fsum(mpmath.mpf(u) * mpmath.log1p(mpmath.mpf(x) / k) for x, u in zip(xs, us))
                assert abs(mpmath.mpf(got.mid().str(70, radius=False)) - want) <= mpmath.mpf(got.rad().str(5, radius=False)) * 1.01
            assert got.rad() < 1e-50 * abs(float(want))
        # the atoms' own route: the series for the atoms with x <= k/64 (none at k = 2, three of five at
        # k = 100, all from k = 192), the others atom by atom; with tables kept at every second atom the
        # series stops at the checkpoint below (two of five at k = 100)
        strided = exact._Atoms([flint.arb(x) for x in xs], {"pos": [flint.arb(u) for u in us]}, 40, flint.arb(100),
                               stride=2)
        strided.total_series("pos", 0)
        for k in (2, 100, 192, 12345, 10**9):
            for table in (atoms, strided):
                got = exact._log1p_expectation(table, "pos", k, 45)
                with mpmath.workdps(80):
                    want = mpmath.fsum(mpmath.mpf(u) * mpmath.log1p(mpmath.mpf(x) / k) for x, u in zip(xs, us))
                    assert abs(mpmath.mpf(got.mid().str(70, radius=False)) - want) <= mpmath.mpf(got.rad().str(5, radius=False)) * 1.01
                assert got.rad() < 1e-50 * abs(float(want))
    finally:
        flint.ctx.prec, flint.ctx.cap = saved


def test_heads_of_the_dcl_and_ratio_integrals_against_their_defining_series():
    """The series heads as built (J2's as P(t/k) times J~'s, the ratio's from one log of E e^{-cr} rescaled
    per k) against the formulas they replace, computed independently from the atoms' tables: J2's head
    as the head of e^{-t} - L^k P less that of e^{-t}(1 - P) (series exponentials of k log E e^{-(t/k)(V - 1)}
    + log E e^{-(t/k)W} and of log E e^{-(t/k)W}); the ratio's from the log of E e^{-(v/k) r} taken
    per k.  Each coefficient's ball meets that of the formula replaced, which holds 40 digits or more,
    at 200 bits and k = 2, 37 and 10^6."""
    import flint
    from infonce_sym.quantities import exact
    saved = flint.ctx.prec, flint.ctx.cap
    flint.ctx.prec, flint.ctx.cap = 200, 40
    try:
        terms = 30
        x_neg = [flint.arb(x) for x in ("0.25", "0.75", "1.5", "2.5")]
        u_neg = [flint.arb(u) for u in ("0.4", "0.3", "0.2", "0.1")]
        x_pos = [flint.arb(x) for x in ("0.5", "1", "4")]
        u_pos = [flint.arb(u) for u in ("0.5", "0.25", "0.25")]
        neg = exact._Atoms(x_neg, {"neg": u_neg}, terms, flint.arb(100))
        pos = exact._Atoms(x_pos, {"pos": u_pos}, terms, flint.arb(100))
        r = [flint.arb(v) for v in ("0.5", "0.9", "1.3", "2")]
        a = [flint.arb(v) for v in ("0.3", "0.3", "0.25", "0.1")]          # pi_zero = 0.05
        factors = [ri * (flint.arb(si) - flint.arb("0.2")) for ri, si in zip(r, ("-0.5", "0.1", "0.4", "0.9"))]
        ratio = exact._Atoms(r, {"ratio": a, "num": [ai * f for ai, f in zip(a, factors)]}, terms, flint.arb(100))

        def close(got, want):
            # the balls meet, and the formula replaced keeps 40 digits (so that meeting says something)
            size = max(len(got), len(want))
            assert size <= terms + 1
            got, want = got + [flint.arb(0)] * (size - len(got)), want + [flint.arb(0)] * (size - len(want))
            for g, w in zip(got, want):
                assert g.overlaps(w) and w.rad() <= 1e-40 * abs(w).mid() + 1e-80, (g, w)

        for k in (2, 37, 10**6):
            kk = flint.arb(k)
            series_neg = exact._log_mgf_series(neg, "neg", 1, k) * kk
            series_pos = exact._log_mgf_series(pos, "pos", 0, k)
            dcl = exact._head_integral(series_neg, 0.01, terms)
            new = (exact._mgf_series(pos, "pos", k) * flint.arb_series(dcl.coeffs, prec=terms)).coeffs()
            both, first = exact._head_integral(series_neg + series_pos, 0.01, terms), exact._head_integral(series_pos, 0.01, terms)
            close(new, [p - q for p, q in zip(both.coeffs, first.coeffs)])
            # the ratio's head, the log taken per k
            m = -1 / kk
            ratio_series = ratio.total_series("ratio", 0).coeffs()
            num_series = ratio.total_series("num", 0).coeffs()
            per_k = flint.arb_series([flint.arb(1)] + [cj * m ** j for j, cj in enumerate(ratio_series) if j], prec=terms).log()
            first_k = flint.arb_series([flint.arb(0)] + [cj * m ** j for j, cj in enumerate(num_series) if j], prec=terms)
            head, = exact._ratio_heads(ratio, [kk], 0.001)
            close(head.coeffs, exact._head_integral_plain(first_k * (per_k * (kk - 1)).exp(), 0.001).coeffs)
    finally:
        flint.ctx.prec, flint.ctx.cap = saved


@pytest.mark.parametrize("d,kappa,tau,tight", [(3, "4", "0.5", True), (16, "8", "0.1", True), (128, "100", "0.02", False)])
def test_heads_series_length_holds_their_reach(d, kappa, tau, tight):
    """The outer integrals' heads use ``_head_terms(dps)`` coefficients, not the Taylor bands' longer series:
    at their reach (c0 spread <= 1/64, k c0 <= e^-4) the terms fall by 64^-j.  For J~, J2 and the search
    CE's ratio integral at k = 2, 4096 and 2^20, each head's integral and trapezoid sum at the reach (c as
    large as the heads ever serve) agree with those of the full-length series to 10^-(dps + 3) relatively
    (28 terms against 60 at 39 digits; the gap falls about 10^-2.5 a term, to the rounding at ~22).  Where
    the spread bounds the reach (``tight``), 12 terms fewer miss it (1e-34 and 1e-36)."""
    import flint
    from infonce_sym.quantities import exact as ex
    dps = 39
    saved = flint.ctx.prec, flint.ctx.cap
    try:
        with mpmath.workdps(dps):
            flint.ctx.prec = mpmath.mp.prec + ex._guard_bits()
            flint.ctx.cap = ex._series_terms(dps)
            t = ex._to_arb(ex._decimal(mpmath.mp, tau))
            an = ex._SphereAnchor(SphereModel(d, float(kappa)), t, tau, kappa, ex._series_terms(dps),
                                  dps * flint.arb(10).log() + 10, dps, 1, 2)
            neg, pos, atoms = an.negatives, an.positives, an.ratio
            spread = ex._arb_max(neg.spread("neg", 1), pos.spread("pos", 0))
            h = flint.arb(0.08)

            def heads(k, terms):
                kk = flint.arb(k)
                c_j, c_r = ex._head_reach(spread, k), ex._head_reach(an.r_max, k)
                j_tilde = ex._head_integral(ex._log_mgf_series(neg, "neg", 1, k, terms) * kk, (kk * c_j).mid(), terms)
                j_two = ex._Head((ex._mgf_series(pos, "pos", k, terms)
                                  * flint.arb_series(j_tilde.coeffs, prec=terms)).coeffs(), (kk * c_j).mid())
                ratio, = ex._ratio_heads(atoms, [kk], c_r, terms)
                return j_tilde, j_two, ratio

            def worst(terms):
                gap = 0.0
                for k in (2, 4096, 2**20):
                    for short, full in zip(heads(k, terms), heads(k, neg.terms)):
                        for a, b in ((short.integral(), full.integral()), (short.trapezoid(h), full.trapezoid(h))):
                            gap = max(gap, float((abs(a - b) / abs(b)).mid()))
                return gap
            assert ex._head_terms(dps) < neg.terms
            assert worst(ex._head_terms(dps)) < 10.0 ** -(dps + 3)
            if tight:
                assert worst(ex._head_terms(dps) - 12) > 10.0 ** -(dps + 3)
    finally:
        flint.ctx.prec, flint.ctx.cap = saved


def test_k_sweep_heads_start_each_k_at_its_own_reach(monkeypatch):
    """On the trapezoid rule a sweep's heads start at the shared c0 of its largest k; a smaller k's series
    reaches further (c up to min(1/(64 spread), e^-4/k), as in a single call), so its head serves the grid's
    nodes up to there and the integrand gives 0 for it below (``_Retirement.started_at``).  At d = 3,
    kappa = 4, tau = 0.5 (small spread: the heads reach far) and k = 1, 2, 64, 4096, 2^20, R and the search
    CE are the single calls' strings at 25 digits, and heads were moved up.  A head left at the shared
    c0 while the integrand skips its nodes, or an integrand that does not skip them (the nodes counted
    twice), misses the single values."""
    from infonce_sym.quantities import exact
    model, ks = SphereModel(3, 4.0), [1, 2, 64, 4096, 2**20]
    singles = {k: exact_values(model, "0.5", k, digits=25).as_strings() for k in ks}
    keys = ("risk", "search_cross_entropy")

    def sweep_matches():
        try:
            return all(ev.as_strings()[key] == singles[ev.k][key] for ev in exact_values(model, "0.5", ks=ks, digits=25)
                       for key in keys if key in singles[ev.k])
        except ArithmeticError:            # the precision check refused
            return False
    started = []
    original_init = exact._Retirement.__init__

    def recording(self, *args):
        original_init(self, *args)
        started.append(self)
    monkeypatch.setattr(exact._Retirement, "__init__", recording)
    assert sweep_matches()
    assert sum(y > -math.inf for seen in started for y in seen.started_at) >= 8    # J's and the ratio's, both passes
    monkeypatch.undo()

    original_starts = exact._head_starts
    for mutant in (lambda heads, *args: (heads, original_starts(heads, *args)[1]),     # heads left at c0
                   lambda *args: (original_starts(*args)[0], [-math.inf] * len(args[0]))):  # nodes counted twice
        monkeypatch.setattr(exact, "_head_starts", mutant)
        assert not sweep_matches()


def test_k_sweep_retirement_keeps_the_single_values(monkeypatch):
    """In a sweep over k the larger k's integrals stop at their own ends (``_Retirement``) while the smaller
    still need nodes; the values are those of single calls (where nothing is retired) to the digits asked,
    at d = 16, kappa = 8, tau = 0.1 and k = 2, 64, 4096, 2^20 (R and the search CE), and integrals are
    retired.  A retirement that ignores the bound (an integral retired once its running total is not 0)
    makes the sweep miss the single values (or fail its precision check).  (Retiring at the first node
    where the bound passes e^-18, instead of 10^-dps of the total, changes these values by 10^-39 or
    less: past there the integrands are far below their bounds.)"""
    from infonce_sym.quantities import exact
    model, ks = SphereModel(16, 8.0), [2, 64, 4096, 2**20]
    singles = {k: exact_values(model, "0.1", k, digits=20).as_strings() for k in ks}
    original = exact._Retirement.retire
    retired = []

    def counting(self, indices, log_bound, y):
        done = original(self, indices, log_bound, y)
        retired.append(done)
        return done
    monkeypatch.setattr(exact._Retirement, "retire", counting)
    for ev in exact_values(model, "0.1", ks=ks, digits=20):
        for key in ("risk", "search_cross_entropy"):
            assert ev.as_strings()[key] == singles[ev.k][key], (ev.k, key)
    assert sum(retired) >= 6          # each retirement is asked for once (then the integrand skips it)

    class Eager(exact._Retirement):
        """Retires an integral as soon as its running total is not 0, whatever its bound."""

        def __init__(self, *args):
            super().__init__(*args)
            self.hopeless = math.inf

        def retire(self, indices, log_bound, y):
            return original(self, indices, -math.inf, y)
    monkeypatch.setattr(exact, "_Retirement", Eager)
    missed = False
    try:
        for ev in exact_values(model, "0.1", ks=ks, digits=20):
            for key in ("risk", "search_cross_entropy"):
                missed |= ev.as_strings()[key] != singles[ev.k][key]
    except ArithmeticError:
        missed = True
    assert missed


def test_a_search_gap_beneath_the_working_precision_is_undefined_not_zero():
    """On the sphere with 0 < kappa, search CE - R~ = kappa/(d k tau) + O(kappa^3): at kappa = 1e-60 and 12 digits
    it lies below the working precision, and was printed 0.0 (a probe, Dec 2026); now it is undefined with the
    reason, and at 75 digits it is resolved.  Independent route: the first-order term, whose relative remainder
    O(kappa^2) = 1e-120 is far below the 75 digits compared."""
    model = SphereModel(3, "1e-60")
    ev = exact_values(model, "0.5", k=10, digits=12)
    assert "search_minus_dcl_risk" not in ev.gaps
    assert ev.undefined["search_minus_dcl_risk"].startswith("not 0 (about kappa/(d k tau) = 6.67e-62")
    assert ev.values["search_cross_entropy"] == exact_values(SphereModel(3, 0), "0.5", k=10, digits=12).values["search_cross_entropy"]
    fine = exact_values(model, "0.5", k=10, digits=75)
    with mpmath.workdps(80):
        want = mpmath.mpf("1e-60") / (3 * 10 * mpmath.mpf("0.5"))
        assert abs(fine.gaps["search_minus_dcl_risk"] / want - 1) < mpmath.mpf(10) ** -70


@pytest.mark.parametrize("mixing", ["1e-100", "1e-300"])
def test_a2_with_a_tiny_mixing_against_enumeration(mixing):
    """App. A.2 at mixing 1e-100: M's diagonal is 1 - 6e-101 of its row, so s - m = 1 - E_M s cancelled to 0 digits
    at the working precision and the search CE 'agreed to 0.0 digits' (exit 1; a probe, Dec 2026).  Independent
    route: every (anchor, positive, 3 negatives) enumerated in mpmath (no s - m formed)."""
    from infonce_sym.models import example_a2
    model = example_a2("0.5", mixing=mixing)
    R, _, S = _brute_force(model, "0.5", 3)
    got = exact_values(model, "0.5", 3, digits=20)
    with mpmath.workdps(40):
        assert abs(got.values["search_cross_entropy"] - S) < mpmath.mpf(10) ** -20 * abs(S)
        assert abs(got.values["risk"] - R) < mpmath.mpf(10) ** -20 * abs(R)


@pytest.mark.parametrize("k", [2, 3])
def test_near_deterministic_m_against_enumeration(k):
    """M = [[1e-150, 1 - 1e-150], [1 - 1e-150, 1e-150]]: the search CE's ratio integral rises again near c = 1/r for
    r = 2e-150, where every negative has the tiny ratio; the march stopped before it and the numerator's
    E[r(s - m)(e^{-cr} - 1)] cancelled to the working precision there.  The search CE came out 0.9454 against
    0.5454, both passes agreeing (a probe, Dec 2026).  Independent route: enumeration in mpmath."""
    from infonce_sym.models import FiniteModel
    one = "0." + "9" * 150
    model = FiniteModel(["0.5", "0.5"], [["1e-150", one], [one, "1e-150"]], [["1", "0"], ["-0.6", "0.8"]])
    R, _, S = _brute_force(model, "1", k)
    got = exact_values(model, "1", k, digits=25)
    with mpmath.workdps(40):
        assert abs(got.values["search_cross_entropy"] - S) < mpmath.mpf(10) ** -24 * abs(S)
        assert abs(got.values["risk"] - R) < mpmath.mpf(10) ** -24 * abs(R)


def test_the_failing_quantity_is_named_with_the_check_s_own_floor():
    """The precision check at 101 digits saw a search CE of -1.4e-101 against 0 disagree; naming the quantity with a
    floor of 60 digits counted it as agreeing and blamed E|dM/dpi|^2, which agreed to 101 digits (a probe, Dec 2026)."""
    from infonce_sym.quantities import exact as ex
    with mpmath.workdps(120):
        first = ({"density_ratio_second_moment": mpmath.mpf("2.6883960956562422517449785098e307"),
                  "search_cross_entropy": mpmath.mpf("-1.4287342391028437e-101")}, {})
        second = ({"density_ratio_second_moment": first[0]["density_ratio_second_moment"] * (1 + mpmath.mpf(10) ** -105),
                   "search_cross_entropy": mpmath.mpf(0)}, {})
        assert ex._agreement(first, second, 101) == 0.0
        assert ex._worst_quantity(first, second, 101) == "search_cross_entropy"


@pytest.mark.parametrize("tau", [0.01, 0.1])
def test_a_kappa_far_below_the_working_precision_is_the_uniform_model(tau):
    """At d = 3 and kappa = 1e-1000 (a probe found the run still going after 10 minutes: Gamma(kappa tau, .) cancels
    about log2(1/(kappa tau)) bits) the values are those of kappa = 0 to every printed digit: they differ by O(kappa).
    The kappa = 0 route shares only the E1 difference at a >= 1 (``_e1_gap``): it takes Ein below 1 and its own
    prefactor tau/2, where the tiny kappa takes E1 everywhere and the vMF prefactor."""
    tiny, uniform = (exact_values(SphereModel(3, kappa), tau, k=5, digits=30) for kappa in ("1e-1000", 0))
    for key in ("risk", "cross_entropy_limit", "search_cross_entropy"):
        assert tiny.as_strings()[key] == uniform.as_strings()[key], key
    assert tiny.agreement_digits >= 30
