"""infonce_loss / loss_from_similarities against independent routes (float loop, mpmath)."""
import math

import mpmath
import numpy as np
import pytest

from infonce_sym.errors import InputError
from infonce_sym.quantities.loss import infonce_loss, loss_from_similarities


def unit_rows(rng, *shape):
    x = rng.standard_normal(shape)
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def tuples(seed, n, k, d):
    rng = np.random.default_rng(seed)
    return unit_rows(rng, n, d), unit_rows(rng, n, d), unit_rows(rng, n, k, d)


def loop_loss(a, p, negs, tau, loss):
    """Eq. (14) literally, one tuple at a time, in Python floats."""
    out = []
    for i in range(a.shape[0]):
        k = negs.shape[1]
        terms = [math.exp(sum(a[i, t] * (negs[i, j, t] - p[i, t]) for t in range(a.shape[1])) / tau)
                 for j in range(k)]
        head = 1.0 if loss == "infonce" else 0.0
        out.append(math.log(head / k + sum(terms) / k))
    return np.array(out)


def mp_loss(a, p, negs, tau, loss, dps=40):
    with mpmath.workdps(dps):
        tau = mpmath.mpf(tau)
        out = []
        for i in range(a.shape[0]):
            k = negs.shape[1]
            ai = [mpmath.mpf(float(v)) for v in a[i]]
            pi = [mpmath.mpf(float(v)) for v in p[i]]
            total = mpmath.mpf(1 if loss == "infonce" else 0)
            for j in range(k):
                nj = [mpmath.mpf(float(v)) for v in negs[i, j]]
                total += mpmath.exp(mpmath.fsum(x * (y - z) for x, y, z in zip(ai, nj, pi)) / tau)
            out.append(mpmath.log(total / k))
        return out


@pytest.mark.parametrize("loss", ["infonce", "dcl"])
@pytest.mark.parametrize("tau", [0.1, 1.0, 3.0])
def test_matches_direct_loop(loss, tau):
    a, p, negs = tuples(1, 6, 7, 3)
    got = infonce_loss(a, p, negs, tau, loss=loss)
    assert got.shape == (6,)
    np.testing.assert_allclose(got, loop_loss(a, p, negs, tau, loss), rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("loss", ["infonce", "dcl"])
@pytest.mark.parametrize("tau", [0.01, 1e-3])
def test_small_tau_stable_and_matches_mpmath(loss, tau):
    a, p, negs = tuples(2, 5, 9, 4)
    # make one tuple extreme: anchor = positive, a negative antipodal (exponent -2/tau)
    p[0] = a[0]
    negs[0, 0] = -a[0]
    got = infonce_loss(a, p, negs, tau, loss=loss)
    assert np.all(np.isfinite(got))
    ref = mp_loss(a, p, negs, tau, loss)
    for g, r in zip(got, ref):
        # values are O(1/tau); float64 keeps ~1e-13 relative of the exponents
        assert abs(g - float(r)) <= 1e-12 * (1 + 2 / tau), (g, r)


def test_chunking_over_k_and_large_k():
    rng = np.random.default_rng(3)
    k, tau = 1_000_000, 0.01
    s = 2 * rng.beta(5, 5, size=(2, k)) - 1
    p = np.array([0.3, 0.9])
    ref = []
    for i in range(2):  # independent route: exact-sum (fsum) of shifted exponentials
        x = (s[i] - p[i]) / tau
        m = max(0.0, float(x.max()))
        total = math.fsum(np.exp(x - m).tolist()) + math.exp(-m)
        ref.append(m + math.log(total) - math.log(k))
    for chunk in (999, 65536, k):
        got = loss_from_similarities(p, s, tau, chunk_size=chunk)
        np.testing.assert_allclose(got, ref, rtol=0, atol=1e-11)


def test_vector_and_similarity_routes_agree():
    a, p, negs = tuples(4, 8, 33, 5)
    s = np.einsum("nkd,nd->nk", negs, a)
    pp = np.einsum("nd,nd->n", a, p)
    for loss in ("infonce", "dcl"):
        v1 = infonce_loss(a, p, negs, 0.2, loss=loss, chunk_size=5)
        v2 = loss_from_similarities(pp, s, 0.2, loss=loss)
        np.testing.assert_allclose(v1, v2, rtol=1e-13, atol=1e-13)


def test_structure_k1_permutation_and_dcl_below_infonce():
    a, p, negs = tuples(5, 10, 1, 3)
    x = (np.einsum("nkd,nd->n", negs, a) - np.einsum("nd,nd->n", a, p)) / 0.3
    np.testing.assert_allclose(infonce_loss(a, p, negs, 0.3), np.log1p(np.exp(x)), rtol=1e-13)
    np.testing.assert_allclose(infonce_loss(a, p, negs, 0.3, loss="dcl"), x, rtol=1e-13, atol=1e-14)
    a, p, negs = tuples(6, 10, 12, 3)
    perm = np.random.default_rng(0).permutation(12)
    np.testing.assert_allclose(infonce_loss(a, p, negs, 0.3), infonce_loss(a, p, negs[:, perm], 0.3), rtol=1e-14)
    assert np.all(infonce_loss(a, p, negs, 0.3, loss="dcl") < infonce_loss(a, p, negs, 0.3))
    # every exponent lies in [-2/tau, 2/tau], so l lies in [log(1/k + e^{-2/tau}), log(1/k + e^{2/tau})]
    vals = infonce_loss(a, p, negs, 0.3)
    assert np.all(vals >= math.log(1 / 12 + math.exp(-2 / 0.3)))
    assert np.all(vals <= math.log(1 / 12 + math.exp(2 / 0.3)))


def _raises(param, fn, *args, **kw):
    with pytest.raises(InputError) as exc:
        fn(*args, **kw)
    assert exc.value.parameter == param, str(exc.value)
    return str(exc.value)


def test_validation_errors():
    a, p, negs = tuples(7, 3, 4, 2)
    _raises("tau", infonce_loss, a, p, negs, 0.0)
    _raises("tau", infonce_loss, a, p, negs, -1)
    _raises("tau", infonce_loss, a, p, negs, float("nan"))
    _raises("loss", infonce_loss, a, p, negs, 0.5, loss="nce")
    _raises("positive", infonce_loss, a, p[:2], negs, 0.5)
    _raises("negatives", infonce_loss, a, p, negs[:, :, :1], 0.5)
    _raises("negatives", infonce_loss, a, p, negs[0], 0.5)
    _raises("negatives", infonce_loss, a, p, negs[:, :0], 0.5)
    _raises("anchor", infonce_loss, a[:, :, None], p, negs, 0.5)
    bad = a.copy()
    bad[1, 0] = np.nan
    _raises("anchor", infonce_loss, bad, p, negs, 0.5)
    bad = negs.copy()
    bad[2, 1, 1] = np.inf
    _raises("negatives", infonce_loss, a, p, bad, 0.5)
    msg = _raises("positive", infonce_loss, a, 2 * p, negs, 0.5)
    assert "unit norm" in msg and "(0,)" in msg
    _raises("chunk_size", infonce_loss, a, p, negs, 0.5, chunk_size=0)
    _raises("p", loss_from_similarities, np.array([1.5]), np.array([[0.0]]), 1.0)
    _raises("s", loss_from_similarities, np.array([0.5]), np.array([[0.0], [0.1]]), 1.0)
    _raises("s", loss_from_similarities, np.array([0.5]), np.zeros((1, 0)), 1.0)
    _raises("s", loss_from_similarities, np.array([0.5]), np.array([[np.nan]]), 1.0)
    _raises("s", loss_from_similarities, np.array([0.5]), "abc", 1.0)
