"""The empirical model's float64 transform route against independent routes: brute-force
enumeration of every k-tuple (k = 1, 2, 3), the arb route of quantities.exact on the equivalent
FiniteModel, Monte Carlo over sampled tuples, and the exact constant c1 at large k."""

import math

import mpmath
import numpy as np
import pytest

from infonce_sym.errors import InputError
from infonce_sym.quantities import empirical as emp


def _pairs(n, d, seed, noise=0.5):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(n, d))
    p = a + noise * rng.normal(size=(n, d))
    return a, p


CASES = [  # (n, d, tau, pool, exclude_own)
    (3, 4, 0.5, "positives", False),
    (4, 3, 0.1, "positives", False),
    (3, 5, 0.05, "positives", True),
    (4, 3, 2.0, "anchors", False),
    (3, 3, 0.01, "positives", False),
    (4, 6, 0.02, "anchors", True),
    (3, 2, 100.0, "positives", False),
]


@pytest.mark.parametrize("n,d,tau,pool,exclude", CASES)
def test_against_brute_force_enumeration(n, d, tau, pool, exclude):
    a, p = _pairs(n, d, seed=n * 10 + d)
    model = emp.make_pairs(a, p, negatives_from=pool, exclude_own=exclude)
    tab = emp.anchor_tables(model, tau)
    g = emp.gaps_at(tab, [1, 2, 3])
    for i, k in enumerate((1, 2, 3)):
        for loss, risk, err in (("infonce", g.risk[i], g.error[i]), ("dcl", g.dcl_risk[i], g.dcl_error[i])):
            brute = emp.brute_force_risk(model, tau, k, loss)
            diff = abs(risk - brute)
            assert diff <= err, (k, loss, risk, brute, err)           # the stated bound holds
            assert diff <= 1e-11 * max(1.0, abs(brute)), (k, loss, risk, brute)


def test_separate_negatives_file_against_brute_force():
    a, p = _pairs(3, 4, seed=5)
    q = np.random.default_rng(6).normal(size=(5, 4))
    model = emp.make_pairs(a, p, negatives=q)
    assert model.pool_size == 5
    g = emp.gaps_at(emp.anchor_tables(model, 0.3), [2, 3])
    for i, k in enumerate((2, 3)):
        assert abs(g.risk[i] - emp.brute_force_risk(model, 0.3, k)) <= 1e-12


@pytest.mark.parametrize("tau", ["0.2", "3"])
def test_against_arb_route_on_the_equivalent_finite_model(tau):
    """pi uniform on the anchors, M the permutation taking anchor i to its positive a_sigma(i),
    negatives from the anchors: the same model as a FiniteModel, by quantities.exact in arb."""
    from infonce_sym.models import FiniteModel
    from infonce_sym.quantities.exact import exact_values
    rng = np.random.default_rng(3)
    n, d = 6, 4
    a = rng.normal(size=(n, d))
    a /= np.linalg.norm(a, axis=1, keepdims=True)
    perm = rng.permutation(n)
    M = np.zeros((n, n))
    M[np.arange(n), perm] = 1
    finite = FiniteModel(tuple([1 / n] * n), M, a)
    model = emp.make_pairs(a, a[perm], negatives_from="anchors")
    ks = [2, 7, 100, 10 ** 4, 10 ** 7]
    g = emp.gaps_at(emp.anchor_tables(model, float(tau)), ks)
    for i, k in enumerate(ks):
        for loss, gap in (("infonce", g.gap[i]), ("dcl", g.dcl_gap[i])):
            ev = exact_values(finite, tau, k, digits=15, loss=loss)
            ref = float(ev.gaps["cross_entropy_limit_minus_risk"])
            assert abs(gap - ref) <= 1e-13 * abs(ref) + 1e-16, (k, loss, gap, ref)
        assert abs(g.cross_entropy_limit - float(ev.values["cross_entropy_limit"])) <= 1e-14


def test_law_model_matches_finite_model_in_arb():
    from infonce_sym.quantities.exact import exact_values
    a, p = _pairs(3, 3, seed=8)
    model = emp.make_pairs(a, p)
    ev = exact_values(emp.LawModel(model), "0.5", 5, digits=20)
    g = emp.gaps_at(emp.anchor_tables(model, 0.5), [5])
    assert abs(float(ev.gaps["cross_entropy_limit_minus_risk"]) - g.gap[0]) <= 1e-14
    assert abs(float(ev.values["risk"]) - emp.brute_force_risk(model, 0.5, 5)) <= 1e-12


def test_monte_carlo_agrees_within_its_interval():
    a, p = _pairs(40, 16, seed=11, noise=0.3)
    model = emp.make_pairs(a, p)
    tab = emp.anchor_tables(model, 0.1)
    for k in (4, 64):
        exact = emp.gaps_at(tab, [k]).gap[0]
        mc = emp.monte_carlo_gap(model, 0.1, k, samples=4096, seed=1)["gap"]
        assert mc["samples"] == 4096 and mc["stderr"] > 0
        assert abs(mc["estimate"] - exact) <= 4 * mc["stderr"], (k, mc, exact)


def test_monte_carlo_draws_do_not_depend_on_the_sample_count():
    a, p = _pairs(10, 3, seed=1)
    model = emp.make_pairs(a, p, exclude_own=True)
    short = list(emp.mc_blocks(model, 5, 300, 7))
    long = list(emp.mc_blocks(model, 5, 700, 7))
    assert np.array_equal(short[0][1], long[0][1]) and np.array_equal(short[1][0], long[1][0][:44])
    own = long[0][0][:, None] == long[0][1]          # exclude_own: never the anchor's own row
    assert not own.any()


def test_c1_is_the_limit_of_k_times_the_gap():
    """k (∫CE - R) = c1 + c2/k + O(1/k^2) with c1 = mean(m2/2 - W), c2 = mean(3 m2^2/4 - m3/3 - W m2 + W^2/2)
    (the registered expansion EXP.infonce), from the moments alone."""
    from infonce_sym.app.embeddings import expansion_values
    a, p = _pairs(30, 8, seed=2, noise=0.4)
    model = emp.make_pairs(a, p)
    tab = emp.anchor_tables(model, 0.25)
    c = expansion_values(tab)
    c1, c2 = float(c["c1"]), float(c["c2"])
    # the moments themselves, computed directly
    s = model.anchors @ model.pool.T / 0.25
    x = np.exp(s - np.log(np.mean(np.exp(s), axis=1))[:, None])
    w = np.exp(np.sum(model.anchors * model.positives, axis=1) / 0.25) / np.mean(np.exp(s), axis=1)
    m2 = np.mean((x - 1) ** 2, axis=1)
    assert abs(c1 - np.mean(m2 / 2 - w)) <= 1e-12 * abs(c1)
    for k in (10 ** 5, 10 ** 7, 10 ** 9):
        g = emp.gaps_at(tab, [k], with_dcl=False)
        assert abs(k * g.gap[0] - (c1 + c2 / k)) <= 1e-6 * abs(c1) * (1e5 / k) + k * g.error[0]
    g = emp.gaps_at(tab, [10 ** 9], with_dcl=False)
    assert abs(10 ** 9 * g.gap[0] / c1 - 1) < 1e-7


def test_chunking_and_workers_do_not_change_the_tables():
    a, p = _pairs(12, 5, seed=4)
    model = emp.make_pairs(a, p)
    t1 = emp.anchor_tables(model, 0.07, chunk_rows=5, workers=1)
    t2 = emp.anchor_tables(model, 0.07, chunk_rows=12, workers=1)
    t3 = emp.anchor_tables(model, 0.07, chunk_rows=3, workers=2)
    for t in (t2, t3):
        assert np.array_equal(t1.L, t.L) and np.array_equal(t1.log_mu, t.log_mu)


def test_infonce_only_tables_agree_with_full_ones():
    a, p = _pairs(8, 4, seed=9)
    model = emp.make_pairs(a, p)
    full = emp.gaps_at(emp.anchor_tables(model, 0.05), [2, 50, 10 ** 6])
    fast_tab = emp.anchor_tables(model, 0.05, with_dcl=False)
    fast = emp.gaps_at(fast_tab, [2, 50, 10 ** 6], with_dcl=False)
    assert np.allclose(full.gap, fast.gap, rtol=1e-13, atol=1e-16)
    with pytest.raises(ValueError):
        emp.gaps_at(fast_tab, [2], with_dcl=True)


def test_k_for_gap_is_the_crossing():
    a, p = _pairs(20, 6, seed=3)
    model = emp.make_pairs(a, p)
    tab = emp.anchor_tables(model, 0.2)
    found = emp.k_for_gap(tab, (0.01,))[0.01]
    g = emp.gaps_at(tab, [found - 1, found], with_dcl=False).gap
    assert abs(g[1]) <= 0.01 < abs(g[0])


def _unit(c):
    return [c, math.sqrt(1 - c * c)]


@pytest.mark.parametrize("anchors, positives, negatives, tau, expected", [
    # the gap 0.021 at k = 4, through 0 near 6, -0.0105 at 12, |gap| < 0.01 at 8 and 16 (an embeddings probe, Dec 2026)
    ([[0.7090205769753659, 0.7051877916027186], [0.7752783323830775, 0.6316197490083051],
      [-0.35483688251311735, -0.934928225484915]],
     [[-0.2586568584825571, -0.9659692694697561], [0.03920108589434638, 0.9992313420148029],
      [-0.35174449827877796, 0.9360960463171558]], None, 0.5, {0.01: 16}),
    # -0.0059 at k = 4, 0.0105 at 7, 0.0095 at 8: the peak lies between two doublings
    ([[1.0, 0.0]], [_unit(0.7102601050992061)],
     [_unit(-0.015395040950800132), _unit(0.11403455784071115), _unit(0.9353621594441468)], 0.2, {0.01: 8}),
])
def test_k_for_gap_sees_a_peak_between_doublings(anchors, positives, negatives, tau, expected):
    """The k beyond which |gap| stays below each threshold, against the gap at every k = 1..4096 (the same exact route,
    each k on its own; beyond, |gap| falls as |c1|/k with |gap(4096)| far below 0.001).  The doubling scan alone said 5
    and 4 for 0.01: the gap changes sign, and its peak between two doublings went unseen."""
    model = emp.make_pairs(np.array(anchors), np.array(positives), None if negatives is None else np.array(negatives))
    tab = emp.anchor_tables(model, tau)
    every = np.abs(emp.gaps_at(tab, list(range(1, 4097)), with_dcl=False).gap)
    assert every[-1] < 1e-4 and np.all(np.diff(every[-1000:]) < 0)
    found = emp.k_for_gap(tab)
    for thr, k in found.items():
        last_above = int(np.flatnonzero(every > thr)[-1]) + 1 if np.any(every > thr) else 0
        assert k == last_above + 1, (thr, k, last_above + 1)
    for thr, k in expected.items():
        assert found[thr] == k


def test_bad_inputs():
    a, p = _pairs(3, 4, seed=0)
    with pytest.raises(InputError, match="positives"):
        emp.make_pairs(a, p[:2])
    bad = a.copy()
    bad[1] = 0
    with pytest.raises(InputError, match="row 1 is zero"):
        emp.make_pairs(bad, p)
    bad[1] = np.nan
    with pytest.raises(InputError, match="row 1 has a NaN"):
        emp.make_pairs(bad, p)
    model = emp.make_pairs(a, p)
    with pytest.raises(InputError, match="tau"):
        emp.anchor_tables(model, 0.001)
    with pytest.raises(InputError, match="k"):
        emp.gaps_at(emp.anchor_tables(model, 1.0), [10 ** 13])


def _expansion_reference(model, tau, dps=50):
    """Per anchor (m2, m3, W) and the means c1, c2, c1~, c2~ (the registered expressions, written out) of the rows as
    given: their exact cosines (LawModel), x = e^{s/tau}/mean e^{s/tau}, at ``dps`` digits."""
    with mpmath.workdps(dps):
        t = mpmath.mpf(tau)
        per = []
        for law in emp.LawModel(model).anchor_laws(mpmath.mp):
            z = [s / t for s in law.negative_similarity]
            mu = mpmath.fsum(mpmath.exp(v) for v in z) / len(z)
            v = [mpmath.exp(q) / mu - 1 for q in z]
            m2 = mpmath.fsum(x ** 2 for x in v) / len(v)
            m3 = mpmath.fsum(x ** 3 for x in v) / len(v)
            per.append((m2, m3, mpmath.exp(law.positive_similarity[0] / t) / mu))
        consts = {"c1": [m2 / 2 - w for m2, m3, w in per],
                  "c2": [-w * m2 + w * w / 2 + 3 * m2 ** 2 / 4 - m3 / 3 for m2, m3, w in per],
                  "c1t": [m2 / 2 for m2, m3, w in per], "c2t": [3 * m2 ** 2 / 4 - m3 / 3 for m2, m3, w in per]}
        return per, {key: mpmath.fsum(vals) / len(vals) for key, vals in consts.items()}


@pytest.mark.parametrize("spread, tau", [(0.4, 0.25), (1e-3, 3.0), (1e-6, 3.0), (1e-6, 0.05), (1e-7, 100.0),
                                         (1e-5, 0.01)])
def test_expansion_constants_within_their_rounding_bounds_of_the_exact_cosines(spread, tau):
    """c1, c2, c1~, c2~ and the moments m2, m3 of each anchor against those of the exact cosines of the rows as given
    (50 digits): within the bounds of emp.moment_rounding and embeddings.expansion_error_bounds.  With rows equal up
    to ``spread`` the float64 similarities' rounding is a large part of x - 1: c1~ and c2~ were printed to 6 digits
    while off by 4e-4 of themselves at spread 1e-6, and by 89 % at spread 1e-7, tau = 100 (an embeddings probe,
    Dec 2026).  On spread-out rows the bounds are at most 1e-9 of the values (the bounds are not vacuous)."""
    from infonce_sym.app.embeddings import expansion_error_bounds, expansion_values
    rng = np.random.default_rng(3)
    base = rng.normal(size=16)
    a, p = (base + spread * rng.normal(size=(30, 16)) for _ in range(2))
    model = emp.make_pairs(a, p)
    tab = emp.anchor_tables(model, tau)
    per, ref = _expansion_reference(model, tau)
    rounding = emp.moment_rounding(tab.moments, tau, tab.pool_size, 16)
    for i, (m2, m3, w) in enumerate(per):
        assert abs(tab.moments["m2"][i] - m2) <= rounding["m2"][i], i
        assert abs(tab.moments["m3"][i] - m3) <= rounding["m3"][i], i
        assert abs(tab.log_w[i] - mpmath.log(w)) <= rounding["log_w"], i
    got, bound = expansion_values(tab), expansion_error_bounds(tab, tau, tab.pool_size, 16)
    errors = {key: abs(mpmath.mpf(float(got[key])) - ref[key]) for key in ref}
    for key in ref:
        assert errors[key] <= bound[key], (key, errors[key], bound[key])
    if spread == 0.4:
        assert all(bound[key] <= 1e-9 * abs(ref[key]) for key in ref), (bound, ref)
    elif spread <= 1e-5:                    # the float64 value is off (a zero bound would fail the test)
        assert errors["c1t"] > 1e-6 * abs(ref["c1t"]) and bound["c1t"] > 1e-3 * abs(ref["c1t"])
