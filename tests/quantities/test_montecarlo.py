"""Monte Carlo: reproducibility, exact laws, and agreement with independent exact routes."""
import itertools
import math

import mpmath
import numpy as np
import pytest
from scipy import stats

from infonce_sym.errors import InputError
from infonce_sym.models import FiniteModel, SphereModel, example_a2, nonreversible_model
from infonce_sym.models.laws import KERNEL_VANISHES
from infonce_sym.quantities.montecarlo import (GAPS, QUANTITIES, SimilaritySampler, closed_forms, interval_doubt,
                                              monte_carlo, naive_vector_monte_carlo)

SIGMA = 4.0


def close(mc, exact, sigma=SIGMA):
    """|estimate - exact| <= sigma * stderr; a closed form must agree to 1e-12 (relative)."""
    est, se = mc["estimate"], mc["stderr"]
    if mc["method"] == "closed form":
        assert se is None and mc["ci95"] is None
        assert abs(est - float(exact)) <= 1e-12 * max(1.0, abs(float(exact))), (est, float(exact))
        return
    if se < 1e-12:  # a per-tuple identity (e.g. the search CE integrand is 0 when k = 1)
        assert abs(est - float(exact)) <= 1e-12, (est, float(exact))
        return
    assert se > 0 and math.isfinite(se)
    assert abs(est - float(exact)) <= sigma * se, (est, float(exact), se)


# ------------------------------------------------------------------ reproducibility

@pytest.mark.parametrize("model,k,samples", [
    (SphereModel(16, 4.0), 100, 3000),          # several blocks, one segment
    (SphereModel(5, 1.0), 70_000, 3),           # k > segment: two segments per tuple
    (SphereModel(3, 2.0), 1, 20_000),           # d = 3 path, many tuples per block
    (nonreversible_model(), 2, 20_000),         # finite, index path
    (nonreversible_model(), 50, 3000),          # finite, multinomial-count path
])
@pytest.mark.parametrize("backend", ["numpy", "auto"])
def test_bit_identical_for_every_chunk_size(model, k, samples, backend):
    runs = [monte_carlo(model, 0.3, k, samples, seed=11, chunk_size=c, backend=backend)
            for c in (None, 1, 150_000, 10**8)]
    for r in runs[1:]:
        for q in QUANTITIES + GAPS:
            assert r[q] == runs[0][q]


def test_seed_determinism():
    m = SphereModel(8, 3.0)
    a = monte_carlo(m, 0.2, 64, 2000, seed=5)
    b = monte_carlo(m, 0.2, 64, 2000, seed=5)
    c = monte_carlo(m, 0.2, 64, 2000, seed=6)
    assert a == b
    assert a["risk"]["estimate"] != c["risk"]["estimate"]
    f = nonreversible_model()
    assert monte_carlo(f, 0.5, 3, 500, seed=2) == monte_carlo(f, 0.5, 3, 500, seed=2)


# ------------------------------------------------------------------ the exact law of s

@pytest.mark.parametrize("dim", [2, 3, 4, 5, 16, 128, 1000])
def test_similarity_sampler_law(dim):
    s = SimilaritySampler(dim).draw(np.random.default_rng(dim), 200_000)
    a = (dim - 1) / 2
    assert np.all(np.abs(s) <= 1)
    assert stats.kstest((s + 1) / 2, stats.beta(a, a).cdf).pvalue > 1e-4
    # E s^2 = 1/d, E s^4 = 3/(d(d+2)) (moments of 2 Beta(a, a) - 1)
    for power, exact in ((2, 1 / dim), (4, 3 / (dim * (dim + 2)))):
        v = s ** power
        assert abs(v.mean() - exact) <= 5 * v.std() / math.sqrt(v.size)
    assert abs(s.mean()) <= 5 * s.std() / math.sqrt(s.size)


def test_similarity_sampler_tail_layers():
    # d = 4: density sqrt(1 - s^2) reaches 0 with infinite slope at +-1: check the far tail mass
    s = SimilaritySampler(4).draw(np.random.default_rng(0), 400_000)
    a = 1.5
    exact = 2 * stats.beta(a, a).sf((0.95 + 1) / 2)
    frac = np.mean(np.abs(s) > 0.95)
    assert abs(frac - exact) <= 5 * math.sqrt(exact / s.size)


# ------------------------------------------------------------------ finite model: brute force

def _finite_exact_tuples(model, tau, k):
    """R, R~, search CE by enumerating every tuple (a, +, xi_1..xi_k), mpmath at 30 digits."""
    with mpmath.workdps(30):
        pi = [mpmath.mpf(x) for x in model.pi]
        M = [[mpmath.mpf(x) for x in row] for row in model.M]
        G = model.gram(mpmath.mp)
        tau = mpmath.mpf(tau)
        N = len(pi)
        R = Rt = S = mpmath.mpf(0)
        for a in range(N):
            for j in range(N):
                for xs in itertools.product(range(N), repeat=k):
                    w = pi[a] * M[a][j] * mpmath.fprod(pi[x] for x in xs)
                    if w == 0:
                        continue
                    e = mpmath.fsum(mpmath.exp((G[a][x] - G[a][j]) / tau) for x in xs)
                    R += w * mpmath.log((1 + e) / k)
                    Rt += w * mpmath.log(e / k)
                    if j == 0:  # the search CE does not involve the positive
                        wt = [M[a][x] / pi[x] for x in xs]
                        S += pi[a] * mpmath.fprod(pi[x] for x in xs) * (
                            -mpmath.fsum(v * G[a][x] for v, x in zip(wt, xs)) / (tau * mpmath.fsum(wt))
                            + mpmath.log(mpmath.fsum(mpmath.exp(G[a][x] / tau) for x in xs) / k))
        return R, Rt, S


def _finite_exact_counts(model, tau, k):
    """The same three quantities by enumerating negative count vectors (multinomial law)."""
    with mpmath.workdps(30):
        pi = [mpmath.mpf(x) for x in model.pi]
        M = [[mpmath.mpf(x) for x in row] for row in model.M]
        G = model.gram(mpmath.mp)
        tau = mpmath.mpf(tau)
        N = len(pi)
        R = Rt = S = mpmath.mpf(0)
        for c in itertools.product(range(k + 1), repeat=N - 1):
            if sum(c) > k:
                continue
            c = c + (k - sum(c),)
            prob = mpmath.factorial(k) * mpmath.fprod(pi[l] ** c[l] / mpmath.factorial(c[l]) for l in range(N))
            for a in range(N):
                esum = mpmath.fsum(c[l] * mpmath.exp(G[a][l] / tau) for l in range(N))
                wsum = mpmath.fsum(c[l] * M[a][l] / pi[l] for l in range(N))
                ws = mpmath.fsum(c[l] * M[a][l] / pi[l] * G[a][l] for l in range(N))
                S += prob * pi[a] * (-ws / (tau * wsum) + mpmath.log(esum / k))
                for j in range(N):
                    e = esum * mpmath.exp(-G[a][j] / tau)
                    R += prob * pi[a] * M[a][j] * mpmath.log((1 + e) / k)
                    Rt += prob * pi[a] * M[a][j] * mpmath.log(e / k)
        return R, Rt, S


@pytest.mark.parametrize("k,route", [(1, "tuples"), (2, "tuples"), (6, "counts")])
def test_finite_model_against_enumeration(k, route):
    model, tau = nonreversible_model(), 0.4
    R, Rt, S = (_finite_exact_tuples if route == "tuples" else _finite_exact_counts)(model, tau, k)
    mc = monte_carlo(model, tau, k, 200_000, seed=k)
    mcd = monte_carlo(model, tau, k, 200_000, seed=k, loss="dcl")
    close(mc["risk"], R)
    close(mcd["risk"], Rt)
    close(mc["search_cross_entropy"], S)
    close(mc["cross_entropy_limit"], model.cross_entropy_limit(mpmath.mp, tau))
    close(mc["density_ratio_second_moment"], model.density_ratio_second_moment(mpmath.mp))
    close(mc["search_cross_entropy_minus_risk"], S - R)
    close(mcd["cross_entropy_limit_minus_risk"], model.cross_entropy_limit(mpmath.mp, tau) - Rt)
    assert mcd["cross_entropy_limit_minus_risk"]["stderr"] < mcd["risk"]["stderr"]  # pairing pays
    # the MC is not trivially exact: the standard errors are real
    assert mc["risk"]["stderr"] > 1e-4


def test_enumeration_routes_agree():
    # the two brute-force routes are independent of each other: check them on k = 2
    a = _finite_exact_tuples(nonreversible_model(), 0.4, 2)
    b = _finite_exact_counts(nonreversible_model(), 0.4, 2)
    for x, y in zip(a, b):
        assert abs(x - y) < mpmath.mpf(10) ** -25


# ------------------------------------------------------------------ sphere: closed forms

def _quad_closed_forms(dim, kappa, tau):
    """Integrated CE limit and E|dM/dpi|^2 from their defining integrals over s = <x, z>
    (density proportional to (1 - s^2)^((d-3)/2)), by mpmath quadrature at 30 digits."""
    with mpmath.workdps(30):
        a = mpmath.mpf(dim - 3) / 2
        kappa, tau = mpmath.mpf(kappa), mpmath.mpf(tau)

        def mean(f):
            return (mpmath.quad(lambda s: f(s) * (1 - s * s) ** a, [-1, 0, 1])
                    / mpmath.quad(lambda s: (1 - s * s) ** a, [-1, 0, 1]))
        z_kappa = mean(lambda s: mpmath.exp(kappa * s))
        mean_p = mean(lambda s: s * mpmath.exp(kappa * s)) / z_kappa        # E_M <x, y>
        ce = -mean_p / tau + mpmath.log(mean(lambda s: mpmath.exp(s / tau)))
        dr2 = mean(lambda s: (mpmath.exp(kappa * s) / z_kappa) ** 2)
        return ce, dr2


@pytest.mark.parametrize("dim,kappa,tau", [(3, 2.0, 0.5), (16, 8.0, 0.2), (5, 30.0, 0.1), (2, 3.0, 0.3)])
def test_sphere_closed_forms_against_quadrature(dim, kappa, tau):
    model = SphereModel(dim, kappa)
    mc = monte_carlo(model, tau, 256, 20_000, seed=dim)
    ce, dr2 = _quad_closed_forms(dim, kappa, tau)
    close(mc["density_ratio_second_moment"], dr2)
    close(mc["cross_entropy_limit"], ce)
    # Prop. 1 (and Lemma 4 for DCL) at the level of the estimates, with 4 sigma slack
    gap = float(ce) - mc["risk"]["estimate"]
    assert gap <= (math.exp(2 / tau) - 1) ** 2 / (8 * 256) + SIGMA * mc["risk"]["stderr"]
    assert gap >= -math.log1p(math.exp(2 / tau) / 256) - SIGMA * mc["risk"]["stderr"]


@pytest.mark.parametrize("kappa", [1e6, 12345.5])
def test_sphere_closed_forms_huge_kappa(kappa):
    # d = 3 elementary forms: E|dM/dpi|^2 = kappa coth kappa, E_M<x,y> = coth kappa - 1/kappa,
    # Z_3(b) = sinh(b)/b (issue 8: the sampled value at kappa = 1e6 was 0.0022 +- 0.0022)
    tau = 0.25
    cf = closed_forms(SphereModel(3, kappa), tau)
    with mpmath.workdps(40):
        k, t = mpmath.mpf(kappa), mpmath.mpf(tau)
        dr2 = k * mpmath.coth(k)
        ce = -(mpmath.coth(k) - 1 / k) / t + mpmath.log(mpmath.sinh(1 / t) * t)
    close(cf["density_ratio_second_moment"], dr2)
    close(cf["cross_entropy_limit"], ce)
    assert cf["density_ratio_second_moment"]["value"] == mpmath.nstr(dr2, 15)


def test_finite_closed_forms_against_mpmath():
    # double-precision finite sums against the model's own mpmath sums (exact decimals, 30 digits)
    for model in (nonreversible_model(), example_a2(0.5, delta=0.1, mixing=0.3)):
        cf = closed_forms(model, 0.3)
        with mpmath.workdps(30):
            close(cf["cross_entropy_limit"], model.cross_entropy_limit(mpmath.mp, 0.3))
            close(cf["density_ratio_second_moment"], model.density_ratio_second_moment(mpmath.mp))


@pytest.mark.parametrize("dim", [3, 128])
def test_numpy_wood_sampler_at_huge_kappa(dim):
    # E_M<x,y> = I_{d/2}(kappa)/I_{d/2-1}(kappa) ~ 1 - (d-1)/(2 kappa): test 1 - p to 5 sigma
    kappa = 1e6
    p = SphereModel(dim, kappa).sample_positive_similarity(np.random.default_rng(dim), 400_000)
    q = 1 - p
    with mpmath.workdps(30):
        exact = 1 - SphereModel(dim, kappa).mean_positive_similarity(mpmath.mp)
    assert np.all(q >= 0)
    assert abs(q.mean() - float(exact)) <= 5 * q.std() / math.sqrt(q.size)
    assert abs(float(exact) * 2 * kappa / (dim - 1) - 1) < 1e-4


def test_against_exact_module_if_available():
    """Cross-check the lead's exact.py (when present) against brute force and MC (finite, k = 2)."""
    exact = pytest.importorskip("infonce_sym.quantities.exact")
    model, tau, k = nonreversible_model(), 0.5, 2
    ex = exact.exact_values(model, tau, k, digits=8)
    values = {}
    for q, v in ex.values.items():
        z = complex(v)
        assert abs(z.imag) < 1e-20, (q, v)     # exact values must be real
        values[q] = z.real
    R, _, S = _finite_exact_tuples(model, tau, k)
    assert abs(values["risk"] - float(R)) < 1e-7
    assert abs(values["search_cross_entropy"] - float(S)) < 1e-7
    mc = monte_carlo(model, tau, k, 200_000, seed=3)
    for q in QUANTITIES:
        if q in values:
            close(mc[q], values[q])


def test_similarity_law_matches_naive_vectors():
    model, tau, k = SphereModel(16, 4.0), 0.5, 64
    for loss in ("infonce", "dcl"):
        fast = monte_carlo(model, tau, k, 100_000, seed=21, loss=loss)
        naive = naive_vector_monte_carlo(model, tau, k, 10_000, seed=22, loss=loss)
        for q in QUANTITIES + GAPS:
            a, b = fast[q], naive[q]
            if a["method"] == "closed form":
                assert a == b
                continue
            se = math.hypot(a["stderr"], b["stderr"])
            assert abs(a["estimate"] - b["estimate"]) <= SIGMA * se, (q, loss, a, b)


def test_huge_k_streams():
    # k = 10^6 must run by streaming (segments of 2^16): a few tuples, finite values
    r = monte_carlo(SphereModel(128, 16.0), 0.1, 10**6, 2, seed=0)
    assert all(math.isfinite(r[q]["estimate"]) for q in QUANTITIES)
    r = monte_carlo(nonreversible_model(), 0.01, 10**9, 1000, seed=0)  # counts: O(N) per tuple
    assert all(math.isfinite(r[q]["estimate"]) for q in QUANTITIES)


@pytest.mark.parametrize("backend", ["numpy", "auto"])
def test_small_tau_finite(backend):
    r = monte_carlo(SphereModel(32, 10.0), 0.01, 512, 500, seed=4, backend=backend)
    assert all(math.isfinite(r[q]["estimate"]) for q in QUANTITIES)
    assert all(math.isfinite(r[q]["stderr"]) for q in QUANTITIES if r[q]["method"] == "Monte Carlo")


# ------------------------------------------------------------------ undefined quantities

def test_not_dominated_model():
    pi = [0.5, 0.5, 0.0]
    M = [[0.5, 0.25, 0.25], [0.5, 0.5, 0.0], [0.0, 0.0, 1.0]]
    emb = [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]]
    model = FiniteModel(pi, M, emb)
    r = monte_carlo(model, 0.5, 3, 1000, seed=0)
    for q in ("search_cross_entropy", "density_ratio_second_moment", "search_cross_entropy_minus_risk"):
        assert r[q]["estimate"] is None and "assumption (B)" in r[q]["reason"]
    assert math.isfinite(r["risk"]["estimate"])


def test_zero_weight_sum_positive_probability():
    model = example_a2(0.5, mixing=0)  # M = identity: sum_j M(z, xi_j)/pi(xi_j) = 0 unless some xi_j = z
    r = monte_carlo(model, 0.5, 3, 20_000, seed=1)
    assert r["search_cross_entropy"]["estimate"] is None
    # the text risk and expand give (one reason, three commands), with this k's probability bound
    assert r["search_cross_entropy"]["reason"].startswith(KERNEL_VANISHES)
    # M = identity: M(0, .) vanishes off state 0, on pi-mass 1 - pi(0)
    mass = f"{1 - float(model.pi[0]):g}"
    assert f"on pi-mass {mass}: probability >= pi(0) * {mass}^3 at k = 3" in r["search_cross_entropy"]["reason"]
    close(r["density_ratio_second_moment"], model.density_ratio_second_moment(mpmath.mp))
    close(r["cross_entropy_limit"], model.cross_entropy_limit(mpmath.mp, 0.5))
    r = monte_carlo(example_a2(0.5, mixing=0.3), 0.5, 3, 2000, seed=1)
    assert math.isfinite(r["search_cross_entropy"]["estimate"])


@pytest.mark.parametrize("backend", ["numpy", "auto"])
def test_search_false_skips_weights(backend):
    r = monte_carlo(SphereModel(8, 2.0), 0.3, 16, 500, seed=0, search=False, backend=backend)
    assert r["search_cross_entropy"]["estimate"] is None
    assert r["density_ratio_second_moment"]["method"] == "closed form"     # free: still reported
    full = monte_carlo(SphereModel(8, 2.0), 0.3, 16, 500, seed=0, backend=backend)
    assert r["risk"] == full["risk"]


# ------------------------------------------------------------------ validation

@pytest.mark.parametrize("kwargs,param", [
    (dict(tau=0), "tau"), (dict(tau=float("nan")), "tau"), (dict(tau=-1), "tau"),
    (dict(k=0), "k"), (dict(k=1.5), "k"), (dict(samples=1), "samples"), (dict(samples=0), "samples"),
    (dict(seed=-1), "seed"), (dict(seed=1.5), "seed"), (dict(seed=None), "seed"),
    (dict(loss="nce"), "loss"), (dict(chunk_size=0), "chunk_size"), (dict(model="sphere"), "model"),
])
def test_validation(kwargs, param):
    args = dict(model=SphereModel(4, 1.0), tau=0.5, k=4, samples=10, seed=0)
    args.update(kwargs)
    with pytest.raises(InputError) as exc:
        monte_carlo(**args)
    assert exc.value.parameter == param
    if param not in ("chunk_size",):
        args.pop("chunk_size", None)
        if param == "model":
            args["model"] = nonreversible_model()
        with pytest.raises(InputError):
            naive_vector_monte_carlo(**args)


# ------------------------------------------------------------------ the sample's skewness

def _moments_by_fsum(x):
    """(mean, M2, M3) of a sample by two passes of math.fsum (the independent route)."""
    mean = math.fsum(x) / len(x)
    d = [v - mean for v in x]
    return mean, math.fsum(v * v for v in d), math.fsum(v * v * v for v in d)


def test_merged_moments_equal_those_of_the_whole_sample():
    """Blocks of uneven sizes, merged in order (Chan et al., Pebay): the mean, M2 and M3 of the whole
    heavy-tailed sample (lognormal, skewness ~ 40), to 1e-10 relative."""
    from infonce_sym.quantities.montecarlo import _Stats
    rng = np.random.default_rng(8)
    x = rng.lognormal(0.0, 2.0, 30_000)
    cuts = np.sort(rng.choice(np.arange(1, x.size), 40, replace=False))
    st = _Stats()
    for block in np.split(x, cuts):
        st.add_block(block)
    ref = _moments_by_fsum(x.tolist())
    assert st.n == x.size
    for got, want in zip(st.moments, ref):
        assert abs(got - want) <= 1e-10 * abs(want), (got, want)
    r = st.result()
    g1 = math.sqrt(x.size) * ref[2] / ref[1] ** 1.5
    assert abs(r["skewness"] - g1) <= 1e-9 * g1 and r["samples_for_normal_interval"] == math.ceil(25 * g1 * g1)
    assert r["ci95_reliable"] is (x.size > 25 * g1 * g1)


@pytest.mark.parametrize("backend", ["numpy", "auto"])
def test_cochran_flags_a_mean_carried_by_a_tail_the_sample_barely_saw(backend):
    """(d, kappa, tau, k) = (16, 5401.3925, 0.01, 256): R + log k ~ 6e-8 comes from rare negatives near the
    positive, which 4882 tuples hardly ever draw; the sample's skewness is in the tens, Cochran's rule
    (n > 25 g1^2) fails, and the output says that its interval is not a 95% interval (a random sweep found
    the exact R 10.7 standard errors from such an estimate).  At (16, 8, 0.5, 10) the rule holds."""
    heavy = monte_carlo(SphereModel(16, 5401.3925), 0.01, 256, 4882, seed=5, backend=backend)["risk"]
    assert heavy["ci95_reliable"] is False and heavy["skewness"] > 10
    assert heavy["samples_for_normal_interval"] > 4882
    plain = monte_carlo(SphereModel(16, 8.0), 0.5, 10, 20_000, seed=5, backend=backend)
    for q in ("risk", "search_cross_entropy") + GAPS:
        assert plain[q]["ci95_reliable"] is True and abs(plain[q]["skewness"]) < 1.5, (q, plain[q])


# ------------------------------------------------------------------ float64 rounding

@pytest.mark.parametrize("tau,kappa,k,loss", [(0.01, 5000.0, 700, "infonce"), (0.05, 20.0, 800, "dcl"),
                                              (1.0, 1e6, 50, "infonce"), (0.01, 0.0, 1, "infonce")])
def test_per_tuple_rounding_bounds_the_float64_values(tau, kappa, k, loss):
    """The NumPy path's per-tuple values (``_SphereAccumulator``) from float64 draws against the same
    formulas in mpmath at 40 digits on the same draws: every error within ``per_tuple_rounding``."""
    from infonce_sym.quantities.montecarlo import (_SphereAccumulator, _sphere_log_mu, _with_gaps,
                                                  per_tuple_rounding, rounding_inputs, _SAMPLED)
    model = SphereModel(16, kappa)
    rng = np.random.default_rng(4)
    rows = 6
    s = SimilaritySampler(16).draw(rng, rows * k).reshape(rows, k)
    p = model.sample_positive_similarity(rng, rows)
    s[:, 0] = np.maximum(s[:, 0], p - 1e-3)            # a negative near the positive: x of size one
    log_mu = _sphere_log_mu(model, tau)
    acc = _SphereAccumulator(tau, kappa, True)
    acc.update(s)
    vals = _with_gaps(acc.values(p, k, loss, log_mu))
    inputs = rounding_inputs(model, tau, k, "numpy")        # the bound monte_carlo itself uses (one segment)
    del inputs["rows"]
    assert inputs["segments"] == 0
    bound = per_tuple_rounding(tau, k, a_max=max(float(np.abs(v).max()) for v in vals), **inputs)
    with mpmath.workdps(40):
        t, lk, lm = mpmath.mpf(tau), mpmath.log(k), mpmath.mpf(log_mu)
        for r in range(rows):
            sr, pr = [mpmath.mpf(float(x)) for x in s[r]], mpmath.mpf(float(p[r]))
            big_l = mpmath.log(mpmath.fsum(mpmath.exp(x / t) for x in sr))
            x = big_l - pr / t
            risk = (mpmath.log1p(mpmath.exp(x)) if loss == "infonce" else x) - lk
            ce = lm - pr / t
            w = [mpmath.exp(kappa * (x - max(sr))) for x in sr]
            search = big_l - lk - mpmath.fsum(a * b for a, b in zip(w, sr)) / mpmath.fsum(w) / t
            exact = dict(zip(_SAMPLED, (risk, ce, search, ce - risk, search - risk)))
            for name, v in zip(_SAMPLED, vals):
                err = abs(float(v[r]) - exact[name])
                assert err <= bound[name], (name, r, err, bound[name])


@pytest.mark.parametrize("backend", ["numpy", "auto"])
def test_interval_holds_where_every_tuple_gives_the_same_value(backend):
    """(1024, 10^4, 0.01, 256): R = -log 256 + 1.84e-37 (the first-order term k mu E_M e^{-p/tau}); every
    tuple's value is -log k in float64, and the compiled path's float64 mean of 2000 of them lay 1.05e-13
    (43 standard errors) from R.  With the rounding bound the 95% interval holds R on both backends."""
    r = monte_carlo(SphereModel(1024, 10000.0), 0.01, 256, 2000, seed=5, backend=backend)["risk"]
    exact = -mpmath.log(256) + mpmath.mpf("1.84e-37")
    lo, hi = r["ci95"]
    assert lo <= exact <= hi, (r, exact)
    assert r["rounding"] < 1e-11


# ------------------------------------------------------------------ the interval at few samples (a probe, Dec 2026)
def test_the_interval_quantile_is_students_t():
    """quantile95(n) against an independent route: the x where mpmath's Student-t CDF with n - 1 degrees of
    freedom, 1 - I_{nu/(nu + x^2)}(nu/2, 1/2)/2, reaches 0.975 (findroot); 1.96 in the limit."""
    from infonce_sym.quantities.montecarlo import Z95, quantile95
    for n in (2, 3, 5, 10, 30, 1000, 10**7):
        nu = n - 1
        with mpmath.workdps(30):
            cdf = lambda x: 1 - mpmath.betainc(mpmath.mpf(nu) / 2, mpmath.mpf(1) / 2, 0,  # noqa: E731
                                               nu / (nu + x * x), regularized=True) / 2
            want = mpmath.findroot(lambda x: cdf(x) - mpmath.mpf("0.975"), 2.5)
        assert abs(quantile95(n) - float(want)) <= 1e-9 * float(want), n
    assert quantile95(10**7) - Z95 < 1e-6 and quantile95(1) == math.inf


def test_few_samples_widen_the_interval_and_are_not_called_reliable():
    """With 1.96 the intervals of 2 to 10 samples covered the exact R in 63-88% of 1000 seeds, and 2 samples
    (whose skewness is 0 by construction) were called reliable.  Now the interval is Student's t, and none of
    fewer than 30 samples is called reliable (the skewness is None below 3).  Against the exact R by brute
    force over every tuple, 300 seeds on the nonreversible model: at n = 3 the t intervals cover 0.89 (1.96's
    0.71), at n = 100 they are reliable and cover 0.96."""
    model, tau, k = nonreversible_model(), 0.5, 2
    exact = float(_finite_exact_tuples(model, tau, k)[0])
    two = monte_carlo(model, tau, k, 2, seed=3)["risk"]
    assert two["skewness"] is None and two["ci95_reliable"] is False and two["samples_for_normal_interval"] == 30
    for n, lo, hi in ((3, 0.85, 0.95), (100, 0.92, 0.99)):
        hits = reliable = 0
        for seed in range(300):
            r = monte_carlo(model, tau, k, n, seed=seed)["risk"]
            hits += r["ci95"][0] <= exact <= r["ci95"][1]
            reliable += r["ci95_reliable"]
        assert lo <= hits / 300 <= hi, (n, hits)
        # at n = 100 a run that never drew one of the rarer transitions (pi M = 0.01 .. 0.015) may be doubted too
        assert (reliable == 0) if n == 3 else (reliable >= 295), (n, reliable)


def test_a_constant_sample_has_no_skewness_from_rounding():
    """Every tuple gives one value (pi on one point): the float64 spread of the values is rounding, whose
    'skewness' once read as a heavy tail; it is 0 now.  Such a sample measures no spread, and the interval is not
    called a 95% interval: a sample flat to rounding was also what a rare, unseen tail left (R at (32, 100, 0.01, 2)
    from 30 tuples: none of 962 'reliable' intervals covered the exact value; a probe, Dec 2026).  The estimate is
    the exact per-tuple value (brute force: the one tuple)."""
    model = FiniteModel([1.0, 0.0], [[1.0, 0.0], [0.0, 1.0]], [[1.0, 0.0], [0.0, 1.0]])
    r = monte_carlo(model, 0.5, 4, 40, seed=1)["risk"]
    assert r["skewness"] == 0.0 and r["ci95_reliable"] is False and "measures no spread" in interval_doubt(r)
    # one anchor, its positive itself (s = 1), four negatives all equal to it: -log(1/k + 1) ... centred by -log k
    assert abs(r["estimate"] - (math.log(1 + 4) - math.log(4))) < 1e-12


def test_an_interval_that_never_saw_a_rare_anchor_group_is_not_called_reliable():
    """pi = (0.97, 0.01, 0.01, 0.01), k = 10^9: about 22% of 50-sample runs draw no anchor from the rare states, and
    their intervals, with standard errors near 1e-6, missed the exact R by 0.14 while called reliable (a probe,
    Dec 2026).  Over 40 seeds, every interval called reliable must cover the exact value (exact route, 20 digits),
    and the runs that drew no rare anchor are called unreliable, with the unseen mass named."""
    from infonce_sym.quantities.exact import exact_values
    model = FiniteModel([0.97, 0.01, 0.01, 0.01], [[0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [1, 0, 0, 0]],
                        [[1, 0, 0], [0, 1, 0], [-1, 0, 0], [0, -1, 0]])
    exact = float(exact_values(model, 0.05, 10 ** 9, digits=20).values["risk"])
    unseen_runs = 0
    for seed in range(40):
        r = monte_carlo(model, 0.05, 10 ** 9, 50, seed)["risk"]
        lo, hi = r["ci95"]
        if r["ci95_reliable"]:
            assert lo <= exact <= hi, (seed, r)
        if "unseen_anchors" in r and abs(r["unseen_anchors"]["mass"] - 0.03) < 1e-12:
            unseen_runs += 1
            assert not r["ci95_reliable"] and "pi-mass 0.03" in interval_doubt(r)
    assert unseen_runs >= 3          # 0.97^50 = 0.22 of the runs: about 9 of 40


def test_an_interval_that_never_saw_a_rare_positive_transition_is_not_called_reliable():
    """Both anchors drawn, but M(z, z') = 0.001 never: 94% of 60-sample runs at k = 1000, their intervals 4-5 standard
    errors from the exact R and called reliable (a probe, Dec 2026).  Exact value: the exact route (20 digits),
    confirmed by the probe's binomial enumeration (-0.671649927834915)."""
    from infonce_sym.quantities.exact import exact_values
    model = FiniteModel([0.5, 0.5], [[0.999, 0.001], [0.001, 0.999]], [[1, 0], [0, 1]])
    exact = float(exact_values(model, 0.05, 1000, digits=20).values["risk"])
    assert abs(exact - (-0.671649927834915)) < 1e-12
    for seed in range(20):
        r = monte_carlo(model, 0.05, 1000, 60, seed)["risk"]
        if r["ci95_reliable"]:
            assert r["ci95"][0] <= exact <= r["ci95"][1], (seed, r)


def test_the_search_ce_at_k_one_is_exactly_zero_and_not_doubted():
    """M_hat_1 = Q_hat_1: the search CE is 0 in every tuple at k = 1; the flat-sample rule called it doubtful and the
    search - R gap (= -R per tuple) inherited that (a probe, Dec 2026).  Exact -R from the exact route."""
    from infonce_sym.quantities.exact import exact_values
    model = SphereModel(3, 4.0)
    out = monte_carlo(model, 1.0, 1, 2000, 4)
    assert out["search_cross_entropy"]["estimate"] == 0 and out["search_cross_entropy"]["ci95_reliable"]
    gap = out["search_cross_entropy_minus_risk"]
    exact = -float(exact_values(model, 1.0, 1, digits=20).values["risk"])
    assert gap["ci95_reliable"] is out["risk"]["ci95_reliable"] is True and "part_doubt" not in gap
    assert gap["ci95"][0] <= exact <= gap["ci95"][1]


def test_an_unseen_positive_transition_casts_doubt_on_the_gaps_too():
    """The rule for never-drawn positive transitions read the risk only, against the risk's standard error; the CE-limit
    gap reads the positive as well (1-Lipschitz in p/tau) with a standard error 10x smaller: at this model, tau = 0.1,
    k = 8 and 40 samples, 31 of 300 runs called the gap's interval reliable and 30 missed (a probe, Dec 2026); then
    8 (all missing: a rare negative composition, which the model's own skewness now sees, next test).  Exact
    gap: the exact route (20 digits), confirmed by enumerating the 495 negative compositions per (anchor, positive)
    cell (0.236316078684447)."""
    from infonce_sym.quantities.exact import exact_values
    model = FiniteModel([0.5, 0.25, 0.125, 0.0625, 0.0625],
                        [[.5, .5, 0, 0, 0], [0, .5, .5, 0, 0], [0, 0, .5, .5, 0], [0, 0, 0, .5, .5], [.5, 0, 0, 0, .5]],
                        [[1, 0], [0, 1], [-1, 0], [0, -1], [0.6, 0.8]])
    exact = float(exact_values(model, "0.1", 8, digits=20).gaps["cross_entropy_limit_minus_risk"])
    assert abs(exact - 0.236316078684447) < 1e-12
    for seed in (12, 17, 27, 48):       # an unseen transition each; the risk's interval reliable, the gap's missing
        out = monte_carlo(model, 0.1, 8, 40, seed)
        gap = out["cross_entropy_limit_minus_risk"]
        assert not gap["ci95"][0] <= exact <= gap["ci95"][1]
        assert gap["ci95_reliable"] is False and gap["unseen_positives"]["shift"] > gap["stderr"]
        assert "positive transitions of probability" in interval_doubt(gap)


def test_a_rare_negative_composition_the_sample_never_weighed_is_judged_by_the_models_skewness():
    """The CE-limit gap at this 5-state model, tau = 0.1, k = 8, 40 samples: 8 of 300 intervals were called reliable
    (the sample's skewness small) and all 8 missed the exact gap: its per-tuple value has skewness 3.8 under the model
    (a rare composition of the negatives carries the mean), and Cochran's rule asks for 353 samples (a probe, Dec
    2026).  Now no interval called reliable misses; the risk's intervals stay reliable.  Exact gap: the exact route."""
    from infonce_sym.quantities.exact import exact_values
    model = FiniteModel([0.5, 0.25, 0.125, 0.0625, 0.0625],
                        [[.5, .5, 0, 0, 0], [0, .5, .5, 0, 0], [0, 0, .5, .5, 0], [0, 0, 0, .5, .5], [.5, 0, 0, 0, .5]],
                        [[1, 0], [0, 1], [-1, 0], [0, -1], [0.6, 0.8]])
    exact = float(exact_values(model, "0.1", 8, digits=20).gaps["cross_entropy_limit_minus_risk"])
    risk_reliable, by_skewness = 0, 0
    for seed in range(300):
        out = monte_carlo(model, 0.1, 8, 40, seed)
        gap = out["cross_entropy_limit_minus_risk"]
        if gap["ci95_reliable"]:
            assert gap["ci95"][0] <= exact <= gap["ci95"][1], (seed, gap)
        by_skewness += "the model's own skewness of the per-tuple value is 3.76" in interval_doubt(gap)
        risk_reliable += out["risk"]["ci95_reliable"]
    assert risk_reliable >= 290 and by_skewness >= 8
    assert abs(gap["model_skewness"] - 3.76) < 0.01 and gap["samples_for_normal_interval"] >= 353


def test_the_models_skewness_against_brute_force():
    """``model_skewness`` (compositions of the negatives, multinomial weights) against the skewness of the per-tuple
    values over every ordered tuple (anchor, positive, k = 3 negatives), in mpmath, both losses."""
    pi = [mpmath.mpf(x) for x in ("0.8", "0.15", "0.05")]
    M = [[mpmath.mpf(x) for x in row] for row in (("0.6", "0.1", "0.3"), ("0.2", "0.5", "0.3"), ("0.1", "0.1", "0.8"))]
    emb = [[1, 0], [0, 1], [-0.6, 0.8]]
    model = FiniteModel([float(x) for x in pi], [[float(x) for x in row] for row in M], emb)
    G = [[mpmath.mpf(emb[a][0]) * emb[b][0] + mpmath.mpf(emb[a][1]) * emb[b][1] for b in range(3)] for a in range(3)]
    tau, k = mpmath.mpf("0.2"), 3
    for loss in ("infonce", "dcl"):
        cells = {name: [] for name in ("risk", "search_cross_entropy", "cross_entropy_limit_minus_risk")}
        for a, j, *neg in itertools.product(range(3), range(3), *[range(3)] * k):
            prob = pi[a] * M[a][j] * mpmath.fprod(pi[n] for n in neg)
            esum = mpmath.fsum(mpmath.exp((G[a][n] - G[a][j]) / tau) for n in neg)
            risk = mpmath.log((1 + esum if loss == "infonce" else esum) / k)
            log_mu = mpmath.log(mpmath.fsum(pi[b] * mpmath.exp(G[a][b] / tau) for b in range(3)))
            w = [M[a][n] / pi[n] for n in neg]
            search = (mpmath.log(mpmath.fsum(mpmath.exp(G[a][n] / tau) for n in neg) / k)
                      - mpmath.fsum(wi * G[a][n] for wi, n in zip(w, neg)) / (tau * mpmath.fsum(w)))
            for name, v in zip(cells, (risk, search, log_mu - G[a][j] / tau - risk)):
                cells[name].append((prob, v))
        out = monte_carlo(model, 0.2, k, 200, seed=3, loss=loss)
        for name, pv in cells.items():
            mean = mpmath.fsum(p * v for p, v in pv)
            m2 = mpmath.fsum(p * (v - mean) ** 2 for p, v in pv)
            m3 = mpmath.fsum(p * (v - mean) ** 3 for p, v in pv)
            assert abs(out[name]["model_skewness"] - float(m3 / m2 ** 1.5)) < 1e-9, (loss, name)


def test_an_unseen_positive_transition_is_doubted_also_beside_an_unseen_light_anchor():
    """Anchor 3 (pi = 0.003) is rarely drawn, and its unseen group too light to doubt the interval; the rule for unseen
    positive transitions was then skipped, and runs that never drew (0, 3) (probability 0.066 per tuple, 12.7 above R)
    were called reliable: 6 of 29 reliable risk intervals missed over 200 seeds at tau = 0.1, k = 256, 30 samples (a
    probe, Dec 2026).  Exact R: the exact route."""
    from infonce_sym.quantities.exact import exact_values
    angles = (-1.0822, -0.6618, 0.3756, 1.5004)
    model = FiniteModel([0.1276, 0.1587, 0.7107, 0.003],
                        [[0.01, 0.464, 0.01, 0.516], [0.352, 0.049, 0.577, 0.022], [0.047, 0.445, 0.236, 0.272],
                         [0.624, 0.335, 0.031, 0.01]], [[math.cos(t), math.sin(t)] for t in angles])
    exact = float(exact_values(model, "0.1", 256, digits=20).values["risk"])
    beside = 0
    for seed in range(200):
        r = monte_carlo(model, 0.1, 256, 30, seed)["risk"]
        if r["ci95_reliable"]:
            assert r["ci95"][0] <= exact <= r["ci95"][1], (seed, r)
        beside += "unseen_anchors" in r and "unseen_positives" in r
    assert beside >= 5
