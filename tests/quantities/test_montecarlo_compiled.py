"""The compiled (numba) Monte Carlo backend: its generator, its laws, its invariances, and its
agreement with the NumPy path and with the exact values (skipped when numba is absent).

The kernels are compiled once per machine (``cache=True``); these tests reuse the cache.
"""
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import stats

from infonce_sym.errors import InputError
from infonce_sym.models import SphereModel
from infonce_sym.quantities import montecarlo
from infonce_sym.quantities.montecarlo import GAPS, QUANTITIES, monte_carlo, ziggurat_arrays

numba = pytest.importorskip("numba")
kernels = pytest.importorskip("infonce_sym.quantities.montecarlo_compiled")

SIGMA = 4.0
MASK = (1 << 64) - 1


def _xoshiro_reference(state, n):
    """xoshiro256** (Blackman and Vigna), written from the reference C code in Python integers."""
    s = [int(v) for v in state]
    out = []
    for _ in range(n):
        x = (s[1] * 5) & MASK
        out.append((((x << 7) | (x >> 57)) & MASK) * 9 & MASK)
        t = (s[1] << 17) & MASK
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = ((s[3] << 45) | (s[3] >> 19)) & MASK
    return out


def _draws(dim, n, seed, kappa=None):
    state = np.random.SeedSequence(seed).generate_state(4, np.uint64)
    out = np.empty(n)
    xsig, ratio, ylo, yhi, a = ziggurat_arrays(dim)
    if kappa is None:
        kernels.ziggurat_fill(state, dim, xsig, ratio, ylo, yhi, a, out)
    else:
        kernels.wood_fill(state, dim, float(kappa), xsig, ratio, ylo, yhi, a, out)
    return out


def test_generator_is_xoshiro256starstar():
    # d = 3 draws are 2 U - 1 with U = (word >> 11) 2^-53: the words can be read back exactly
    state = np.random.SeedSequence(7).generate_state(4, np.uint64)
    ref = _xoshiro_reference(state, 1000)
    s = _draws(3, 1000, 7)
    u = (s + 1) / 2
    assert [int(v) for v in np.round(u * 2.0 ** 53)] == [w >> 11 for w in ref]


def test_fast_exp_within_two_ulp():
    x = np.concatenate([np.linspace(-707.9, 0, 400_001), -np.random.default_rng(0).exponential(2, 200_000)])
    x = x[x > -707.9]
    e, ref = kernels.fast_exp_array(x), np.exp(x)
    assert np.max(np.abs(e - ref) / np.spacing(ref)) <= 2
    assert np.all(kernels.fast_exp_array(np.array([-708.5, -1e4, -np.inf])) == 0)   # < 1e-307: flushed


def test_fast_exp_within_one_ulp_of_the_correctly_rounded_value():
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.uniform(-707.9, 709, 4000), -rng.exponential(2, 4000), rng.uniform(-1, 1, 4000),
                        rng.uniform(-300, 300, 4000)])
    e = kernels.fast_exp_array(x)
    with mpmath.workprec(120):
        ref = np.array([float(mpmath.exp(mpmath.mpf(float(v)))) for v in x])
    assert np.max(np.abs(e - ref) / np.spacing(ref)) <= 1
    assert np.array_equal(kernels.exp8_array(x), e)      # the 8-wide kernels give the same bits


@pytest.mark.parametrize("seed", [0, 1, 2 ** 32 - 1, 2 ** 32, 12345678901234567890, 2 ** 130 + 5])
def test_unit_states_are_those_of_seed_sequence(seed):
    blocks, segments = range(3, 40, 7), 3
    got = kernels.unit_states(seed, 2, blocks, segments)
    ref = [[np.random.SeedSequence(seed, spawn_key=(2, b, g)).generate_state(8, np.uint64) for g in range(segments)]
           for b in blocks]
    assert got.dtype == np.uint64 and np.array_equal(got, np.array(ref))
    assert np.array_equal(got, montecarlo._unit_states(seed, blocks, segments))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2 ** 128 - 1), first=st.integers(0, 2 ** 32 - 8), segments=st.integers(1, 4),
       tag=st.integers(0, 2 ** 32 - 1))
def test_unit_states_are_those_of_seed_sequence_at_random_keys(seed, first, segments, tag):
    """The compiled SeedSequence against numpy's at random seeds (the CLI's range), tags and spawn keys."""
    blocks = [first, first + 1, first + 7]
    got = kernels.unit_states(seed, tag, blocks, segments)
    ref = [[np.random.SeedSequence(seed, spawn_key=(tag, b, g)).generate_state(8, np.uint64) for g in range(segments)]
           for b in blocks]
    assert np.array_equal(got, np.array(ref))


def test_limit_sums_the_uniforms_of_the_stream():
    # two pieces, the second ending in a partial group of 8
    words = kernels.PIECE + 491
    states = np.random.SeedSequence(4).generate_state(8, np.uint64)[None, :]
    u = np.array([w >> 11 for w in _xoshiro_reference(states[0, :4], words)], dtype=np.float64) * 2.0 ** -53
    # `two` passed, as the benchmark passes it: an omitted argument is a numba signature of its own,
    # one more compile (about 3 s) on a new machine
    got = kernels.limit_uniform_exp(states, words, False)[0]
    assert got == pytest.approx(np.exp(-10 * u).sum(), rel=1e-13)
    two = kernels.limit_uniform_exp(states, words, True)[0]       # and e^{-16 u}: two exps per element
    assert two == pytest.approx(np.exp(-10 * u).sum() + np.exp(-16 * u).sum(), rel=1e-13)


@pytest.mark.parametrize("dim,rows,cols,shrink", [
    (128, 3, 4096, 1.0), (16, 5, 1000, 0.3), (5, 40, 37, 0.5), (8, 7, 513, 0.0), (128, 2, 1, 1.0), (9, 3, 2003, 0.9),
    (16, 3, 2 * kernels.PIECE + 5, 0.3), (8, 2, kernels.PIECE + 1, 0.0),      # rows over several pieces
])
def test_vectorised_ziggurat_sums_the_sequential_draws(dim, rows, cols, shrink):
    # the fixed-shift path (8-wide groups, then the walk over rejected words) consumes the words
    # as ziggurat_fill does: the same draws.  shrink < 1 lowers the fast-accept ratios (the law
    # does not change: the exact test decides more points), so that rejections, rejections of
    # the uniform word, and rejections at group and piece boundaries all occur
    xsig, ratio, ylo, yhi, a = ziggurat_arrays(dim)
    tables = (xsig, ratio * shrink, ylo, yhi, a)
    state = np.random.SeedSequence(dim).generate_state(4, np.uint64)
    draws = np.empty(rows * cols)
    kernels.ziggurat_fill(state.copy(), dim, *tables, draws)
    s = draws.reshape(rows, cols)
    inv_tau, kappa = 5.0, 3.0
    w = np.exp(kappa * s)
    for weights in (True, False):
        out = [np.full(rows, np.nan) for _ in range(4)]
        kernels._unit(state.copy(), rows, cols, dim, *tables, kernels.squeeze_table(*tables), inv_tau, kappa,
                      weights, *out)
        assert np.all(out[0] == 0)                   # the fixed shift m = 0
        np.testing.assert_allclose(out[1], np.exp(inv_tau * s).sum(1), rtol=1e-13)
        if weights:
            np.testing.assert_allclose(out[2], w.sum(1), rtol=1e-13)
            np.testing.assert_allclose(out[3], (w * s).sum(1), rtol=0, atol=1e-13 * (w * np.abs(s)).sum(1).max())


@pytest.mark.parametrize("dim", [7, 16, 128, 1024])
def test_squeeze_gives_the_answer_of_the_exact_test(dim):
    xsig, ratio, ylo, yhi, a = ziggurat_arrays(dim)
    sq = kernels.squeeze_table(xsig, ratio, ylo, yhi, a)
    rng = np.random.default_rng(dim)
    words = rng.integers(0, 2 ** 64 - 1, 4_000_000, dtype=np.uint64)
    j = (words & np.uint64(2047)).astype(np.int64)
    u = (words >> np.uint64(11)).astype(np.float64) * 2.0 ** -53
    rej = u >= ratio[j]                                 # the points that reach the exact test
    words, j, v = words[rej], j[rej], rng.random(rej.sum())
    layer, ax = j & 1023, np.abs(u[rej] * xsig[j])
    y = ylo[layer] + v * (yhi[layer] - ylo[layer])
    with np.errstate(invalid="ignore"):
        exact = (ax < 1) & (y < np.exp(a * np.log1p(-ax * ax)))
    got = kernels.squeeze_decisions(words, v, xsig, ratio, ylo, yhi, sq)
    decided = got >= 0
    assert np.array_equal(got[decided] == 1, exact[decided])
    assert decided.mean() > 0.75


@pytest.mark.parametrize("dim", [2, 3, 4, 16, 128])
def test_similarity_law(dim):
    s = _draws(dim, 200_000, dim)
    a = (dim - 1) / 2
    assert np.all(np.abs(s) <= 1)
    assert stats.kstest((s + 1) / 2, stats.beta(a, a).cdf).pvalue > 1e-4
    for power, exact in ((2, 1 / dim), (4, 3 / (dim * (dim + 2)))):   # moments of 2 Beta(a, a) - 1
        v = s ** power
        assert abs(v.mean() - exact) <= 5 * v.std() / math.sqrt(v.size)


@pytest.mark.parametrize("dim,kappa", [(3, 2.0), (16, 8.0), (5, 0.0), (2, 3.0)])
def test_wood_law_against_numpy_sampler(dim, kappa):
    p = _draws(dim, 100_000, 11, kappa=kappa)
    q = SphereModel(dim, kappa).sample_positive_similarity(np.random.default_rng(12), 100_000)
    assert stats.ks_2samp(p, q).pvalue > 1e-4
    with mpmath.workdps(20):
        exact = float(SphereModel(dim, kappa).mean_positive_similarity(mpmath.mp))
    assert abs(p.mean() - exact) <= 5 * p.std() / math.sqrt(p.size)


@pytest.mark.parametrize("dim", [3, 128])
def test_wood_at_huge_kappa(dim):
    # E_M<x,y> = I_{d/2}(kappa)/I_{d/2-1}(kappa) ~ 1 - (d-1)/(2 kappa): 1 - p to 5 sigma
    kappa = 1e6
    q = 1 - _draws(dim, 400_000, dim, kappa=kappa)
    with mpmath.workdps(30):
        exact = float(1 - SphereModel(dim, kappa).mean_positive_similarity(mpmath.mp))
    assert np.all(q >= 0)
    assert abs(q.mean() - exact) <= 5 * q.std() / math.sqrt(q.size)
    # 1 - p is Gamma((d-1)/2, 1/kappa) to O(1/kappa): its second moment too
    m2 = (dim - 1) / 2 * ((dim - 1) / 2 + 1) / kappa ** 2
    assert abs((q * q).mean() / m2 - 1) < 0.02


@pytest.mark.parametrize("model,k,samples", [
    (SphereModel(16, 4.0), 100, 3000),       # several blocks, one segment
    (SphereModel(5, 1.0), 300_000, 3),       # k > 2^18: two segments per tuple, merged in order
    (SphereModel(3, 2.0), 1, 20_000),        # d = 3, many tuples per block
])
def test_bit_identical_for_every_chunk_size_and_thread_count(model, k, samples):
    saved = numba.get_num_threads()
    try:
        runs = []
        for threads in sorted({1, saved}):
            numba.set_num_threads(threads)
            runs += [monte_carlo(model, 0.3, k, samples, seed=11, chunk_size=c, backend="numba")
                     for c in (None, 1, 150_000, 10**8)]
    finally:
        numba.set_num_threads(saved)
    assert runs[0]["backend"] == "numba"
    for r in runs[1:]:
        for q in QUANTITIES + GAPS:
            assert r[q] == runs[0][q]


def test_thread_count_invariance_with_two_threads():
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one thread only")
    saved = numba.get_num_threads()
    model = SphereModel(8, 3.0)
    try:
        out = []
        for threads in (1, 2):
            numba.set_num_threads(threads)
            out.append(monte_carlo(model, 0.2, 64, 40_000, seed=3, backend="numba"))
    finally:
        numba.set_num_threads(saved)
    assert out[0]["threads"] == 1 and out[1]["threads"] == 2
    assert all(out[0][q] == out[1][q] for q in QUANTITIES + GAPS)


@pytest.mark.parametrize("dim,kappa,tau,k,loss", [
    (3, 2.0, 0.5, 16, "infonce"), (16, 8.0, 0.3, 64, "dcl"), (2, 1.0, 0.4, 5, "infonce"),
    (32, 10.0, 0.05, 512, "infonce"), (3, 1e6, 0.1, 100, "dcl"),
])
def test_compiled_and_numpy_paths_sample_the_same_law(dim, kappa, tau, k, loss):
    model = SphereModel(dim, kappa)
    fast = monte_carlo(model, tau, k, 40_000, seed=1, loss=loss, backend="numba")
    slow = monte_carlo(model, tau, k, 40_000, seed=2, loss=loss, backend="numpy")
    assert (fast["backend"], slow["backend"]) == ("numba", "numpy")
    for q in QUANTITIES + GAPS:
        a, b = fast[q], slow[q]
        assert a["method"] == b["method"], q
        if a["method"] == "closed form":
            assert a == b
            continue
        se = math.hypot(a["stderr"], b["stderr"])
        assert 0 < se and abs(a["estimate"] - b["estimate"]) <= SIGMA * se, (q, a, b)
        # the skewness of the same law (at these points the two samples of 40000 differ by at most 0.063)
        assert abs(a["skewness"] - b["skewness"]) <= 0.15, (q, a["skewness"], b["skewness"])
    assert fast["risk"]["estimate"] != slow["risk"]["estimate"]   # different streams, really sampled


@pytest.mark.parametrize("dim,kappa,tau,k,loss", [(3, 2.0, 0.5, 4, "infonce"), (8, 4.0, 0.5, 10, "dcl")])
def test_both_paths_against_exact_values(dim, kappa, tau, k, loss):
    exact = pytest.importorskip("infonce_sym.quantities.exact")
    model = SphereModel(dim, kappa)
    ev = exact.exact_values(model, tau, k, digits=10, loss=loss)
    for backend, seed in (("numba", 5), ("numpy", 6)):
        mc = monte_carlo(model, tau, k, 100_000, seed=seed, loss=loss, backend=backend)
        for q in QUANTITIES:
            ref, r = float(ev.values[q]), mc[q]
            if r["method"] == "closed form":
                assert abs(r["estimate"] - ref) <= 1e-9 * max(1, abs(ref)), (q, r, ref)
            else:
                assert abs(r["estimate"] - ref) <= SIGMA * r["stderr"], (q, backend, loss, r, ref)


def test_auto_falls_back_to_numpy_without_numba(monkeypatch):
    monkeypatch.setattr(montecarlo, "_KERNELS", [None])
    r = monte_carlo(SphereModel(4, 1.0), 0.5, 8, 100, seed=0)
    assert r["backend"] == "numpy" and "threads" not in r
    with pytest.raises(InputError) as exc:
        monte_carlo(SphereModel(4, 1.0), 0.5, 8, 100, seed=0, backend="numba")
    assert exc.value.parameter == "backend"
    with pytest.raises(InputError):
        monte_carlo(SphereModel(4, 1.0), 0.5, 8, 100, seed=0, backend="cuda")


def test_compiled_merge_of_block_moments_equals_the_whole_sample():
    """``merge_block_stats`` (compiled) on per-block (mean, M2, M3) of uneven blocks: those of the whole
    heavy-tailed sample by two fsum passes, to 1e-10 relative, for each of N_STATS columns."""
    from infonce_sym.quantities.montecarlo import block_moments
    rng = np.random.default_rng(9)
    x = rng.lognormal(0.0, 1.5, (kernels.N_STATS, 20_000)) * rng.choice([-1.0, 1.0], (kernels.N_STATS, 1))
    cuts = np.sort(rng.choice(np.arange(1, x.shape[1]), 30, replace=False))
    edges = np.concatenate([[0], cuts, [x.shape[1]]])
    rows = np.diff(edges).astype(np.int64)
    stats = np.array([[block_moments(x[q, a:b]) for q in range(kernels.N_STATS)] for a, b in zip(edges[:-1], edges[1:])])
    acc_n, acc = np.zeros(1, dtype=np.int64), np.zeros((kernels.N_STATS, 3))
    kernels.merge_block_stats(rows[:12], stats[:12], acc_n, acc)         # two calls, as chunks do
    kernels.merge_block_stats(rows[12:], stats[12:], acc_n, acc)
    assert acc_n[0] == x.shape[1]
    for q in range(kernels.N_STATS):
        v = x[q].tolist()
        mean = math.fsum(v) / len(v)
        d = [t - mean for t in v]
        for got, want in zip(acc[q], (mean, math.fsum(t * t for t in d), math.fsum(t ** 3 for t in d))):
            assert abs(got - want) <= 1e-10 * abs(want), (q, got, want)
