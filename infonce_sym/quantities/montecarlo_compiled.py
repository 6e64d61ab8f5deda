"""Compiled (numba) kernels of the sphere Monte Carlo: sampler and accumulator fused.

Imported only when numba is installed (``pip install "infonce-sym[fast]"``);
``montecarlo.py`` chooses this backend automatically and falls back to NumPy.

Streams.  Each work unit (a block of tuples and one segment of their negatives,
fixed by the sample index, see ``montecarlo.py``) owns a xoshiro256** generator
(Blackman and Vigna) whose 256-bit state is four words of
``SeedSequence(seed, spawn_key=(tag, block, segment)).generate_state(8, uint64)``;
words 4-7 seed the positives of the block (segment 0 only).  A unit's draws depend
on its state only, and partial sums are merged in a fixed order, so the result does
not depend on the chunk size or on the number of threads.

Per negative: one 64-bit draw gives the ziggurat layer, the sign and a 53-bit
abscissa (the tables of ``montecarlo.ziggurat_tables``, exact law of s = <x, z>);
one or two exponentials by ``fast_exp`` (within 1 ulp of the correctly rounded exp
for x > -708, 0 below; the terms are e^{(s - m)/tau} <= 1 with m the running row
maximum, so a flushed term is < 1e-307 of the sum).  The compile is cached on disk
(``cache=True``): it is paid once per machine, not per process.
"""
from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
import numba
from numba import njit, prange, types
from numba.extending import intrinsic

__all__ = ["numba_threads", "sphere_chunk", "sphere_chunk_serial", "merge_block_stats", "fast_exp_array", "limit_uniform_exp",
           "ziggurat_fill", "wood_fill", "N_STATS"]

_U = np.uint64


def numba_threads() -> int:
    """Threads numba's parallel loops use from the calling thread."""
    return numba.get_num_threads()

_TWO_M53 = 1.0 / 9007199254740992.0
_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01     # Cody-Waite split of log 2 (fdlibm)
_LN2_LO = 1.90821492927058770002e-10
# Taylor coefficients 1/j!, j = 0..13: truncation error < 4e-18 on |r| <= log(2)/2
_E0, _E1, _E2, _E3, _E4, _E5, _E6, _E7, _E8, _E9, _E10, _E11, _E12, _E13 = (
    1.0 / math.factorial(j) for j in range(14))
PIECE = 512          # negatives drawn into a buffer before the exp pass (fixed: part of the layout)
N_STATS = 5          # risk, sampled CE integrand, search CE, CE - risk, search CE - risk


@intrinsic
def _bits_as_float(typingctx, x):
    """Reinterpret an int64 as a float64 (a bitcast, vectorisable)."""
    sig = types.float64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())
    return sig, codegen


@njit(inline="always", fastmath={"contract"}, cache=True)
def _fast_exp(x):
    ok = x > -708.0
    xc = max(x, -708.0)
    n = math.floor(xc * _LOG2E + 0.5)
    r = xc - n * _LN2_HI
    r = r - n * _LN2_LO
    r2 = r * r
    r4 = r2 * r2
    r8 = r4 * r4     # Estrin's scheme: short dependency chains
    q0 = (_E0 + _E1 * r) + (_E2 + _E3 * r) * r2
    q1 = (_E4 + _E5 * r) + (_E6 + _E7 * r) * r2
    q2 = (_E8 + _E9 * r) + (_E10 + _E11 * r) * r2
    q3 = _E12 + _E13 * r
    p = (q0 + q1 * r4) + (q2 + q3 * r4) * r8
    scale = _bits_as_float((np.int64(n) + 1023) << 52)
    return p * scale if ok else 0.0


@njit(fastmath={"contract"}, cache=True)
def _exp_scaled(src, n, factor, dst):
    """dst[i] = exp(factor * src[i]) for i < n (vectorised)."""
    for i in range(n):
        dst[i] = _fast_exp(factor * src[i])


@njit(fastmath={"contract"}, cache=True)
def _exp_shifted(src, n, shift, factor, dst):
    """dst[i] = exp(factor * (src[i] - shift)) for i < n (vectorised)."""
    for i in range(n):
        dst[i] = _fast_exp(factor * (src[i] - shift))


@njit(fastmath={"contract"}, cache=True)
def _exp_pair(src, n, shift, f1, f2, d1, d2):
    """d1[i] = exp(f1 (src[i] - shift)), d2[i] = exp(f2 (src[i] - shift)) (vectorised)."""
    for i in range(n):
        t = src[i] - shift
        d1[i] = _fast_exp(f1 * t)
        d2[i] = _fast_exp(f2 * t)


@njit(fastmath={"reassoc", "contract"}, cache=True)
def _sums3(e1, e2, s, n):
    """(sum e1, sum e2, sum e2 s) over i < n (vectorised)."""
    a1 = a2 = a3 = 0.0
    for i in range(n):
        a1 += e1[i]
        a2 += e2[i]
        a3 += e2[i] * s[i]
    return a1, a2, a3


@njit(fastmath={"reassoc"}, cache=True)
def _sum(a, n):
    s = 0.0
    for i in range(n):
        s += a[i]
    return s


@njit(fastmath={"reassoc", "contract"}, cache=True)
def _dot(a, b, n):
    s = 0.0
    for i in range(n):
        s += a[i] * b[i]
    return s


@njit(cache=True)
def fast_exp_array(x):
    """``_fast_exp`` over an array (for tests)."""
    out = np.empty_like(x)
    _exp_scaled(x, x.size, 1.0, out)
    return out


# ------------------------------------------------------------------ xoshiro256**
# The state is a tuple of four uint64 passed by value, so that it stays in registers.

@njit(inline="always", cache=True)
def _next(s):
    s0, s1, s2, s3 = s
    x = s1 * _U(5)
    r = ((x << _U(7)) | (x >> _U(57))) * _U(9)
    t = s1 << _U(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = (s3 << _U(45)) | (s3 >> _U(19))
    return r, (s0, s1, s2, s3)


@njit(inline="always", cache=True)
def _uniform(s):
    """Uniform on [0, 1), 53 bits."""
    r, s = _next(s)
    return np.float64(r >> _U(11)) * _TWO_M53, s


@njit(inline="always", cache=True)
def _load(state):
    return (state[0], state[1], state[2], state[3])


@njit(inline="always", cache=True)
def _store(s, state):
    state[0], state[1], state[2], state[3] = s


# ------------------------------------------------------------------ the law of s = <x, z>

@njit(inline="always", cache=True)
def _draw_similarity(s, dim, xsig, ratio, ylo, yhi, a):
    """One draw of s, density c_d (1 - s^2)^((d-3)/2) on [-1, 1] (as SimilaritySampler)."""
    if dim == 3:
        u, s = _uniform(s)
        return 2.0 * u - 1.0, s
    if dim == 2:
        u, s = _uniform(s)
        return math.cos(math.pi * u), s
    while True:
        r, s = _next(s)
        j = np.int64(r & _U(2047))
        u = np.float64(r >> _U(11)) * _TWO_M53
        x = u * xsig[j]
        if u < ratio[j]:
            return x, s
        layer = j & 1023
        ax = abs(x)
        v, s = _uniform(s)
        y = ylo[layer] + v * (yhi[layer] - ylo[layer])
        if ax < 1.0 and y < math.exp(a * math.log1p(-ax * ax)):
            return x, s


@njit(cache=True)
def _fill_similarities(s, n, buf, dim, xsig, ratio, ylo, yhi, a):
    """buf[:n] = draws of s; returns the state."""
    for i in range(n):
        x, s = _draw_similarity(s, dim, xsig, ratio, ylo, yhi, a)
        buf[i] = x
    return s


@njit(cache=True)
def _max(a, n):
    """max(a[:n]) with 8 independent running maxima (exact whatever the order)."""
    m0 = m1 = m2 = m3 = m4 = m5 = m6 = m7 = -np.inf
    n8 = n - n % 8
    for i in range(0, n8, 8):
        v0, v1, v2, v3 = a[i], a[i + 1], a[i + 2], a[i + 3]
        v4, v5, v6, v7 = a[i + 4], a[i + 5], a[i + 6], a[i + 7]
        m0 = v0 if v0 > m0 else m0
        m1 = v1 if v1 > m1 else m1
        m2 = v2 if v2 > m2 else m2
        m3 = v3 if v3 > m3 else m3
        m4 = v4 if v4 > m4 else m4
        m5 = v5 if v5 > m5 else m5
        m6 = v6 if v6 > m6 else m6
        m7 = v7 if v7 > m7 else m7
    for i in range(n8, n):
        m0 = a[i] if a[i] > m0 else m0
    return max(max(max(m0, m1), max(m2, m3)), max(max(m4, m5), max(m6, m7)))


@njit(cache=True)
def ziggurat_fill(state, dim, xsig, ratio, ylo, yhi, a, out):
    """Fill ``out`` with draws of s from ``state`` (advanced in place; for tests)."""
    s = _fill_similarities(_load(state), out.size, out, dim, xsig, ratio, ylo, yhi, a)
    _store(s, state)


@njit(inline="always", cache=True)
def _wood(s, dim, kappa, xsig, ratio, ylo, yhi, a):
    """t = <x, y>, y ~ vMF(x, kappa): Wood (1994), written in 1 - w so that large kappa is stable.

    z ~ Beta((d-1)/2, (d-1)/2) is (1 + s)/2 with s the negative similarity; with
    b = (d-1)/(2 kappa + sqrt(4 kappa^2 + (d-1)^2)), x0 = (1-b)/(1+b):
    1 - w = 2 b z / (1 - (1-b) z), and Wood's test
    kappa w + (d-1) log(1 - x0 w) - c >= log u, c = kappa x0 + (d-1) log(1 - x0^2), reads
    kappa (1 - x0 - (1-w)) + (d-1) [log1p(x0 (1-w)/(1-x0)) - log1p(x0)] >= log u.
    """
    if kappa == 0.0:
        return _draw_similarity(s, dim, xsig, ratio, ylo, yhi, a)
    d1 = dim - 1.0
    b = d1 / (2.0 * kappa + math.sqrt(4.0 * kappa * kappa + d1 * d1))
    x0 = (1.0 - b) / (1.0 + b)
    omx0 = 2.0 * b / (1.0 + b)
    lx0 = math.log1p(x0)
    while True:
        t, s = _draw_similarity(s, dim, xsig, ratio, ylo, yhi, a)
        z = 0.5 * (1.0 + t)
        omw = 2.0 * b * z / (0.5 * (1.0 - t) + b * z)
        r, s = _next(s)
        u = np.float64((r >> _U(11)) + _U(1)) * _TWO_M53      # (0, 1]
        if kappa * (omx0 - omw) + d1 * (math.log1p(x0 * omw / omx0) - lx0) >= math.log(u):
            return 1.0 - omw, s


@njit(cache=True)
def wood_fill(state, dim, kappa, xsig, ratio, ylo, yhi, a, out):
    """Fill ``out`` with draws of <x, y>, y ~ vMF(x, kappa) (for tests)."""
    s = _load(state)
    for i in range(out.size):
        out[i], s = _wood(s, dim, kappa, xsig, ratio, ylo, yhi, a)
    _store(s, state)


# ------------------------------------------------------------------ one work unit

@njit(cache=True)
def _unit(state, rows, cols, dim, xsig, ratio, ylo, yhi, a, inv_tau, kappa, weights,
          out_m, out_se, out_sw, out_sws):
    """Streamed row sums of e^{(s - m)/tau}, e^{kappa (s - m)}, e^{kappa (s - m)} s (m = row max)."""
    buf = np.empty(PIECE)
    e1 = np.empty(PIECE)
    e2 = np.empty(PIECE)
    st = _load(state)
    for r in range(rows):
        m = -np.inf
        se = sw = sws = 0.0
        for start in range(0, cols, PIECE):
            n = min(PIECE, cols - start)
            st = _fill_similarities(st, n, buf, dim, xsig, ratio, ylo, yhi, a)
            bm = _max(buf, n)
            if bm > m:
                if m > -np.inf:
                    se *= math.exp((m - bm) * inv_tau)
                    if weights:
                        f = math.exp(kappa * (m - bm))
                        sw *= f
                        sws *= f
                m = bm
            if weights:
                _exp_pair(buf, n, m, inv_tau, kappa, e1, e2)
                a1, a2, a3 = _sums3(e1, e2, buf, n)
                se += a1
                sw += a2
                sws += a3
            else:
                _exp_shifted(buf, n, m, inv_tau, e1)
                se += _sum(e1, n)
        out_m[r] = m
        out_se[r] = se
        out_sw[r] = sw
        out_sws[r] = sws


@njit(inline="always", cache=True)
def _log1p_exp(x):
    """log(1 + e^x)."""
    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))


@njit(cache=True)
def _block_values(states, b, rows, segments, dim, kappa, inv_tau, log_k, xsig, ratio, ylo, yhi, a,
                  weights, infonce, log_mu, pm, pse, psw, psws, block_stats):
    """Positives of block b, merge of its segments in order, per-tuple values, block (mean, M2)."""
    st = _load(states[b, 0, 4:8])
    vals = np.empty((N_STATS, rows))
    u0 = b * segments
    for r in range(rows):
        p, st = _wood(st, dim, kappa, xsig, ratio, ylo, yhi, a)
        m, se, sw, sws = pm[u0, r], pse[u0, r], psw[u0, r], psws[u0, r]
        for g in range(1, segments):
            m2 = pm[u0 + g, r]
            mm = max(m, m2)
            se = se * math.exp((m - mm) * inv_tau) + pse[u0 + g, r] * math.exp((m2 - mm) * inv_tau)
            if weights:
                w1, w2 = math.exp(kappa * (m - mm)), math.exp(kappa * (m2 - mm))
                sw = sw * w1 + psw[u0 + g, r] * w2
                sws = sws * w1 + psws[u0 + g, r] * w2
            m = mm
        big_l = m * inv_tau + math.log(se)
        pt = p * inv_tau
        risk = big_l - pt
        if infonce:
            risk = _log1p_exp(risk)
        risk -= log_k
        ce = log_mu - pt
        search = big_l - log_k - inv_tau * (sws / sw) if weights else 0.0
        vals[0, r] = risk
        vals[1, r] = ce
        vals[2, r] = search
        vals[3, r] = ce - risk
        vals[4, r] = search - risk
    for q in range(N_STATS):
        mean = 0.0
        for r in range(rows):
            mean += vals[q, r]
        mean /= rows
        m2 = 0.0
        for r in range(rows):
            dv = vals[q, r] - mean
            m2 += dv * dv
        block_stats[b, q, 0] = mean
        block_stats[b, q, 1] = m2


@njit(cache=True)
def _chunk_scratch(block_rows, segments):
    rows_max = 0
    for b in range(block_rows.size):
        rows_max = max(rows_max, block_rows[b])
    nunits = block_rows.size * segments
    return (np.empty((nunits, rows_max)), np.empty((nunits, rows_max)), np.empty((nunits, rows_max)),
            np.empty((nunits, rows_max)))


@njit(parallel=True, cache=True)
def sphere_chunk(states, block_rows, segments, k, seg, dim, kappa, tau, xsig, ratio, ylo, yhi, a,
                 weights, infonce, log_mu, block_stats):
    """Blocks of a chunk: per-block means and sums of squared deviations of the per-tuple values.

    ``states[b, g]`` (8 words) seeds unit (b, g): words 0-3 its negatives, and for
    g = 0 words 4-7 the block's positives.  ``block_rows[b]`` tuples per block, each
    with k negatives in ``segments`` segments of ``seg`` columns (the last shorter).
    ``block_stats[b, q] = (mean, M2)`` of value q (N_STATS values, see above; the
    search values are 0 when ``weights`` is false).  Units run in parallel; every unit
    writes its own slots, so the result does not depend on the number of threads.
    """
    nblocks = block_rows.size
    inv_tau = 1.0 / tau
    log_k = math.log(k)
    pm, pse, psw, psws = _chunk_scratch(block_rows, segments)
    if segments == 1:              # one parallel pass: the unit, then its block's values
        for b in prange(nblocks):
            _unit(states[b, 0], block_rows[b], k, dim, xsig, ratio, ylo, yhi, a,
                  inv_tau, kappa, weights, pm[b], pse[b], psw[b], psws[b])
            _block_values(states, b, block_rows[b], 1, dim, kappa, inv_tau, log_k, xsig, ratio,
                          ylo, yhi, a, weights, infonce, log_mu, pm, pse, psw, psws, block_stats)
        return
    for u in prange(nblocks * segments):
        b = u // segments
        g = u - b * segments
        _unit(states[b, g], block_rows[b], min(seg, k - g * seg), dim, xsig, ratio, ylo, yhi, a,
              inv_tau, kappa, weights, pm[u], pse[u], psw[u], psws[u])
    for b in prange(nblocks):
        _block_values(states, b, block_rows[b], segments, dim, kappa, inv_tau, log_k, xsig, ratio,
                      ylo, yhi, a, weights, infonce, log_mu, pm, pse, psw, psws, block_stats)


@njit(cache=True)
def sphere_chunk_serial(states, block_rows, segments, k, seg, dim, kappa, tau, xsig, ratio, ylo, yhi, a,
                        weights, infonce, log_mu, block_stats):
    """``sphere_chunk`` on one thread (the same result; no thread start-up for small chunks)."""
    nblocks = block_rows.size
    inv_tau = 1.0 / tau
    log_k = math.log(k)
    pm, pse, psw, psws = _chunk_scratch(block_rows, segments)
    for u in range(nblocks * segments):
        b = u // segments
        g = u - b * segments
        _unit(states[b, g], block_rows[b], min(seg, k - g * seg), dim, xsig, ratio, ylo, yhi, a,
              inv_tau, kappa, weights, pm[u], pse[u], psw[u], psws[u])
    for b in range(nblocks):
        _block_values(states, b, block_rows[b], segments, dim, kappa, inv_tau, log_k, xsig, ratio,
                      ylo, yhi, a, weights, infonce, log_mu, pm, pse, psw, psws, block_stats)


@njit(cache=True)
def merge_block_stats(block_rows, block_stats, acc_n, acc):
    """Chan et al.'s merge of per-block (mean, M2) into acc[q] = (mean, M2), blocks in order."""
    n = acc_n[0]
    for b in range(block_rows.size):
        nb = block_rows[b]
        tot = n + nb
        for q in range(acc.shape[0]):
            mb, m2b = block_stats[b, q, 0], block_stats[b, q, 1]
            if n == 0:
                acc[q, 0] = mb
                acc[q, 1] = m2b
            else:
                delta = mb - acc[q, 0]
                acc[q, 0] += delta * nb / tot
                acc[q, 1] += m2b + delta * delta * n * nb / tot
        n = tot
    acc_n[0] = n


# ------------------------------------------------------------------ the machine's limit

@njit(cache=True)
def _limit_unit(state, per_unit):
    st = _load(state)
    buf = np.empty(PIECE)
    e = np.empty(PIECE)
    tot = 0.0
    for start in range(0, per_unit, PIECE):
        n = min(PIECE, per_unit - start)
        for i in range(n):
            v, st = _uniform(st)
            buf[i] = -v
        _exp_scaled(buf, n, 10.0, e)
        tot += _sum(e, n)
    return tot


@njit(parallel=True, cache=True)
def limit_uniform_exp(states, per_unit):
    """One uniform draw and one exp per element (xoshiro256**, ``_fast_exp``), summed; units in parallel."""
    nunits = states.shape[0]
    out = np.zeros(nunits)
    for u in prange(nunits):
        out[u] = _limit_unit(states[u], per_unit)
    return out
