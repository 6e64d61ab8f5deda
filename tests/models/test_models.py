"""The models layer against independent routes: the sphere model's partition function, mean
resultant and density-ratio moment against quadrature and d = 3 closed forms; its samplers against
those moments; the quadrature rules against exact integrals; the finite models' laws."""
import math
import re
from fractions import Fraction

import flint
import mpmath
import numpy as np
import pytest

from infonce_sym.models import SphereModel, example_a2, log_partition
from infonce_sym.models.laws import log_partition_arb, mean_resultant_arb
from infonce_sym.models.quadrature import gauss_legendre_arb, sphere_rule


def _sphere_moment(dim, b, power=0):
    """E_pi[s^power e^{b s}], s = <x, z> with density c_d (1 - s^2)^((d-3)/2), by mpmath.quad."""
    c = mpmath.gamma(mpmath.mpf(dim) / 2) / (mpmath.sqrt(mpmath.pi) * mpmath.gamma(mpmath.mpf(dim - 1) / 2))
    f = lambda s: c * s ** power * mpmath.exp(b * s) * (1 - s * s) ** (mpmath.mpf(dim - 3) / 2)  # noqa: E731
    return mpmath.quad(f, [-1, 0, 1])


@pytest.mark.parametrize("dim,b", [(3, 0.5), (3, 7), (5, 2), (16, 3.5), (64, 10)])
def test_log_partition_against_quadrature(dim, b):
    with mpmath.workdps(30):
        assert abs(log_partition(mpmath.mp, dim, b) - mpmath.log(_sphere_moment(dim, mpmath.mpf(b)))) < mpmath.mpf(10) ** -20


def _log_partition_by_laplace_quadrature(dim, b):
    """log Z_d(b) = log c_d + h(s*) + log int e^{h(s) - h(s*)} ds, h(s) = b s + (d-3)/2 log(1 - s^2), s* its
    mode: quadrature around the mode in log domain (no Bessel function, nothing overflows)."""
    b, m = mpmath.mpf(b), mpmath.mpf(dim - 3) / 2
    star = (-m + mpmath.sqrt(m * m + b * b)) / b if m > 0 else mpmath.mpf(1) - mpmath.mpf(10) ** -30
    h = lambda s: b * s + (m * mpmath.log(1 - s * s) if m > 0 else 0)  # noqa: E731
    width = 1 / mpmath.sqrt(b * b / (2 * m) + b) if m > 0 else 1 / b
    pts = sorted({mpmath.mpf(-1), mpmath.mpf(1)} | {min(max(star + j * width, mpmath.mpf(-1)), mpmath.mpf(1))
                                                    for j in (-60, -20, -6, -2, 0, 2, 6, 20, 60)})
    hs = h(star)
    integral = mpmath.quad(lambda s: mpmath.exp(h(s) - hs), pts)
    c = mpmath.loggamma(mpmath.mpf(dim) / 2) - mpmath.log(mpmath.sqrt(mpmath.pi)) - mpmath.loggamma(mpmath.mpf(dim - 1) / 2)
    return c + hs + mpmath.log(integral)


def test_log_partition_d3_closed_form_and_arb_at_the_ends_of_the_range():
    """Z_3(b) = sinh(b)/b; the arb route (scaled Bessel) against log-domain quadrature up to b = 2 10^4,
    d = 4096 (where mpmath's Bessel series no longer converges)."""
    with mpmath.workdps(40):
        for b in (mpmath.mpf("0.01"), mpmath.mpf(3), mpmath.mpf(200)):
            assert abs(log_partition(mpmath.mp, 3, b) - mpmath.log(mpmath.sinh(b) / b)) < mpmath.mpf(10) ** -30
    flint.ctx.prec = 200
    try:
        with mpmath.workdps(30):
            for dim, b in ((3, 200), (10, 50), (768, 2000), (4096, 20000)):
                a = log_partition_arb(dim, flint.arb(b))
                q = _log_partition_by_laplace_quadrature(dim, b)
                assert abs(mpmath.mpf(a.mid().str(40, radius=False)) - q) < mpmath.mpf(10) ** -20 * max(1, abs(q))
                assert a.rad() < 1e-40
    finally:
        flint.ctx.prec = 53


@pytest.mark.parametrize("dim,kappa", [(3, 2), (3, 50), (10, 4), (128, 40)])
def test_mean_resultant_against_quadrature(dim, kappa):
    with mpmath.workdps(30):
        k = mpmath.mpf(kappa)
        by_quad = _sphere_moment(dim, k, 1) / _sphere_moment(dim, k)
        m = SphereModel(dim=dim, kappa=kappa).mean_positive_similarity(mpmath.mp)
        assert abs(m - by_quad) < mpmath.mpf(10) ** -20
        flint.ctx.prec = 120
        try:
            assert abs(mpmath.mpf(mean_resultant_arb(dim, flint.arb(kappa)).mid().str(30, radius=False)) - by_quad) < 1e-25
        finally:
            flint.ctx.prec = 53
        if dim == 3:                                               # coth(kappa) - 1/kappa
            assert abs(m - (mpmath.coth(k) - 1 / k)) < mpmath.mpf(10) ** -25


def test_density_ratio_second_moment_d3_closed_form():
    """E|dM/dpi|^2 = Z(2 kappa)/Z(kappa)^2 = (sinh(2k)/(2k)) / (sinh(k)/k)^2 for d = 3."""
    with mpmath.workdps(30):
        for kappa in ("0.5", "4", "40"):
            k = mpmath.mpf(kappa)
            m = SphereModel(dim=3, kappa=kappa).density_ratio_second_moment(mpmath.mp)
            assert abs(m / ((mpmath.sinh(2 * k) / (2 * k)) / (mpmath.sinh(k) / k) ** 2) - 1) < mpmath.mpf(10) ** -25


@pytest.mark.parametrize("dim,kappa", [(3, 0.0), (3, 5.0), (16, 40.0), (768, 2000.0)])
def test_samplers_match_the_exact_moments(dim, kappa):
    """Mean and second moment of the positive (Wood's sampler) and negative (Beta) similarities, seeded,
    within 5 standard errors of the values by quadrature (E s = 0 and E s^2 = 1/d for the negatives)."""
    model = SphereModel(dim=dim, kappa=kappa)
    rng = np.random.default_rng(np.random.SeedSequence([dim, int(kappa)]))
    n = 200_000
    t = model.sample_positive_similarity(rng, n)
    s = model.sample_negative_similarity(rng, n)
    assert t.shape == (n,) and np.all(np.abs(t) <= 1) and np.all(np.abs(s) <= 1)
    with mpmath.workdps(30):
        z = _sphere_moment(dim, mpmath.mpf(kappa))
        m1 = float(_sphere_moment(dim, mpmath.mpf(kappa), 1) / z)
        m2 = float(_sphere_moment(dim, mpmath.mpf(kappa), 2) / z)
    for sample, mean, second in ((t, m1, m2), (s, 0.0, 1.0 / dim)):
        var = max(second - mean ** 2, 1e-300)
        assert abs(sample.mean() - mean) <= 5 * math.sqrt(var / n)
        sd2 = math.sqrt(max(np.var(sample ** 2), 1e-300) / n)
        assert abs(np.mean(sample ** 2) - second) <= 5 * sd2


def test_gauss_legendre_is_exact_to_degree_2n_minus_1():
    nodes, weights = gauss_legendre_arb(6, 200)
    flint.ctx.prec = 200
    try:
        for p in range(12):
            exact = flint.arb(0) if p % 2 else flint.arb(2) / (p + 1)
            got = sum((w * x ** p for x, w in zip(nodes, weights)), flint.arb(0))
            assert abs(float(got - exact)) < 1e-50, p
        p = 12                                                      # degree 2n: no longer exact
        got = sum((w * x ** p for x, w in zip(nodes, weights)), flint.arb(0))
        assert abs(float(got - flint.arb(2) / 13)) > 1e-6
    finally:
        flint.ctx.prec = 53


@pytest.mark.parametrize("dim,tau", [(3, 0.5), (32, 0.1), (768, 0.05)])
def test_sphere_rule_integrates_the_similarity_law(dim, tau):
    """The composite rule of s's law: total mass 1, E s = 0, E s^2 = 1/d, and E e^{s/tau} = Z_d(1/tau)."""
    with mpmath.workdps(30):
        s, w = sphere_rule(dim, tau, 20, 1)
        tot = mpmath.fsum(w)
        assert abs(tot - 1) < 1e-18
        assert abs(mpmath.fsum(a * b for a, b in zip(s, w))) < 1e-18
        assert abs(mpmath.fsum(a * a * b for a, b in zip(s, w)) - mpmath.mpf(1) / dim) < 1e-18
        ez = mpmath.fsum(mpmath.exp(a / tau) * b for a, b in zip(s, w))
        assert abs(mpmath.log(ez) - log_partition(mpmath.mp, dim, 1 / mpmath.mpf(tau))) < 1e-15


def test_example_a2_is_the_construction_of_the_paper():
    """Example A.2 (eq. (33)): 1/eps = ceil(e^{1/tau} - 1) points, pi uniform, every row of M a probability
    vector keeping its point with 1 - mixing + mixing/n, pi M-invariant, Gram matrix 1 on the diagonal and
    delta off it."""
    tau, delta, mixing = 0.5, "0.3", "0.2"
    n = math.ceil(math.exp(1 / tau) - 1)
    m = example_a2(tau, delta=delta, mixing=mixing)
    with mpmath.workdps(30):
        pi, M, emb = m.exact_arrays(mpmath.mp)[:3]
        assert len(pi) == n and all(abs(p - mpmath.mpf(1) / n) < 1e-25 for p in pi)
        for i, row in enumerate(M):
            assert abs(mpmath.fsum(row) - 1) < 1e-25 and all(x >= 0 for x in row)
            assert abs(row[i] - (1 - mpmath.mpf(mixing) + mpmath.mpf(mixing) / n)) < 1e-25
        for j in range(n):
            assert abs(mpmath.fsum(pi[i] * M[i][j] for i in range(n)) - pi[j]) < 1e-25
        for i in range(n):
            for j in range(n):
                g = mpmath.fsum(a * b for a, b in zip(emb[i], emb[j]))
                assert abs(g - (1 if i == j else mpmath.mpf(delta))) < 1e-25
    assert m.is_pi_invariant()


def test_bessel_closed_forms_keep_full_precision_where_flint_loses_digits():
    """log Z_d(b) and E_M <x, y> in arb against mpmath's besseli (an independent implementation, at 200
    digits) at (d, kappa) = (748, 512.58), at 466 bits (140 digits): FLINT's I_373 at 1025.16 lost 60 of
    them there (the midpoint of Z_d(2 kappa)/Z_d(kappa)^2 was off at the 83rd digit), which cost a
    100-digit exact value its first precision check. Now both are right to 135 digits."""
    import flint
    from infonce_sym.models.laws import log_partition_arb, mean_resultant_arb
    saved = flint.ctx.prec
    try:
        flint.ctx.prec = 466
        kappa = flint.arb("512.58")
        got_z = log_partition_arb(748, 2 * kappa) - 2 * log_partition_arb(748, kappa)
        got_m = mean_resultant_arb(748, kappa)
    finally:
        flint.ctx.prec = saved
    with mpmath.workdps(200):
        k = mpmath.mpf("512.58")
        def log_z(b):           # Gamma(d/2) (2/b)^nu I_nu(b), nu = d/2 - 1, by mpmath's Bessel series
            return mpmath.loggamma(374) + 373 * mpmath.log(2 / b) + mpmath.log(mpmath.besseli(373, b))
        want_z = log_z(2 * k) - 2 * log_z(k)
        want_m = mpmath.besseli(374, k) / mpmath.besseli(373, k)
        for got, want in ((got_z, want_z), (got_m, want_m)):
            value = mpmath.mpf(got.mid().str(150, radius=False))
            assert abs(value / want - 1) < mpmath.mpf(10) ** -135, (got, want)


def test_finite_model_names_the_true_norm_of_a_huge_row_without_a_warning():
    """A row of 1e300s has norm 1.41e300 (not inf), and checking it warns of no overflow."""
    import warnings
    from infonce_sym.errors import InputError
    from infonce_sym.models.laws import FiniteModel
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InputError, match=r"row 0 has norm 1\.41421356237309\d*e\+300"):
            FiniteModel([0.5, 0.5], [[0.9, 0.1], [0.1, 0.9]], [[1e300, 1e300], [0.0, 1.0]])
        FiniteModel([0.5, 0.5], [[0.9, 0.1], [0.1, 0.9]], [[0.6, 0.8], [0.0, 1.0]])     # unit rows pass


@pytest.mark.parametrize("pi,M,where", [
    (np.array([5e-324, 1.0]), np.eye(2), "pi[0]"),                       # a subnormal double
    (["1e-400", "1"], [[1, 0], [0, 1]], "pi[0]"),                        # a decimal no double holds
    ([0.5, 0.5], [[1, 0], [Fraction(1, 10 ** 320), 1 - Fraction(1, 10 ** 320)]], "M[1][0]"),
])
def test_finite_model_refuses_probabilities_below_the_normal_doubles(pi, M, where):
    """A probability that is not 0 but below 2.2e-308 is 0 (or overflows M/pi) on the float routes and not
    on the exact one: refused, naming the entry; 0 and 1e-300 pass."""
    from infonce_sym.errors import InputError
    from infonce_sym.models.laws import FiniteModel
    with pytest.raises(InputError, match=re.escape(where) + ".*below the smallest normal double"):
        FiniteModel(pi, M, np.eye(2))
    FiniteModel([0.0, 1.0], np.eye(2), np.eye(2))
    FiniteModel(["1e-300", "1"], [[1, 0], [0, 1]], np.eye(2))


def test_mpmath_closed_forms_at_the_largest_order_and_argument():
    """log Z_d and E_M <x, y> for an mpmath context (``mp`` and ``fp``) at d = 4096, kappa = 10^4 (2 kappa =
    2 10^4 in E|dM/dpi|^2), where mpmath's Bessel series raised NoConvergence (``mc`` printed an internal
    error there): against log-domain quadrature, and E_M <x, y> = d/dkappa log Z_d(kappa) by a central
    difference of that quadrature."""
    with mpmath.workdps(40):
        for b in (10000, 20000, 100):
            q = _log_partition_by_laplace_quadrature(4096, b)
            assert abs(log_partition(mpmath.mp, 4096, b) - q) < mpmath.mpf(10) ** -25 * abs(q)
            assert abs(log_partition(mpmath.fp, 4096, b) - float(q)) < 1e-12 * abs(float(q))
        h = mpmath.mpf(10) ** -9
        slope = (_log_partition_by_laplace_quadrature(4096, 10000 + h)
                 - _log_partition_by_laplace_quadrature(4096, 10000 - h)) / (2 * h)
        got = SphereModel(4096, 10000).mean_positive_similarity(mpmath.mp)
        assert abs(got - slope) < mpmath.mpf(10) ** -14
    from infonce_sym.app.cli import main
    assert main(["mc", "--tau", "0.01", "--k", "10", "--samples", "2", "--seed", "0", "--dim", "4096",
                 "--kappa", "10000"]) == 0


def test_uniform_points_of_theta_fill_the_ball_uniformly():
    """Uniform on the ball of radius R about theta0: P(|theta - theta0| <= r) = (r/R)^d (d = 4: 1/16 at
    r = R/2, 81/256 at 3R/4, within 4 standard errors of 200000 points), every point inside, mean theta0."""
    from infonce_sym.models.fourier_class import FourierEmbedding
    E = FourierEmbedding(2, 2, 1.5, theta0=[0.3, -0.2, 0.1, 0.0])
    pts = E.uniform_points(np.random.default_rng(11), 200000)
    dist = np.linalg.norm(pts - E.theta0, axis=1)
    assert pts.shape == (200000, 4) and dist.max() <= 1.5
    for frac, p in ((0.5, 1 / 16), (0.75, 81 / 256)):
        se = np.sqrt(p * (1 - p) / 200000)
        assert abs(np.mean(dist <= frac * 1.5) - p) < 4 * se
    assert np.abs(pts.mean(axis=0) - E.theta0).max() < 4 * 1.5 / np.sqrt(6 * 200000)   # sd R/sqrt(d + 2)


def test_example_a2_s_number_of_points_is_decided_at_any_precision_of_tau():
    """1/eps = ceil(e^(1/tau) - 1), e^(1/tau) > 2: at 40 digits tau = 1/log 2 - 1e-42 was refused (a probe, Dec 2026).
    Reference: mpmath at 120 digits, far beyond the 45 digits that separate these taus from the cut-offs."""
    from infonce_sym.models.laws import a2_points
    with mpmath.workdps(120):
        for cut, points in ((1 / mpmath.log(2), 2), (1 / mpmath.log(8), 8), (1 / mpmath.log(401), 401)):
            for shift in ("1e-42", "1e-45"):
                below = mpmath.nstr(cut - mpmath.mpf(shift), 110)
                above = mpmath.nstr(cut + mpmath.mpf(shift), 110)
                assert a2_points(below) == points                      # e^(1/tau) just above the integer
                assert a2_points(above) == (points - 1 if points > 2 else 0)
    assert [a2_points(t) for t in ("0.4", "1", "2", "0.1")] == [12, 2, 0, 22026]
