"""Monte Carlo estimates of R (or R~), the k -> infinity limit (7), the search
cross-entropy (9) and E|dM/dpi|^2, with standard errors.

Everything is reduced to the one-dimensional laws the loss sees (see ``models.py``):

* sphere (rotation invariant): the positive similarity p = <x, y>, y ~ vMF(x, kappa),
  is drawn by Wood's sampler, the negative similarities s = <x, z>, z uniform, from
  their exact law, density proportional to (1 - s^2)^((d-3)/2) on [-1, 1]
  (= 2 Beta((d-1)/2, (d-1)/2) - 1), by an exact ziggurat rejection sampler
  (``SimilaritySampler``; uniform for d = 3, cos(pi U) for d = 2).  No vectors.
* finite: anchor and positive indices; the k negatives enter every per-tuple
  quantity only through their counts per point, drawn as Multinomial(k, pi) when
  k >= N (cost O(N) per tuple whatever k) and as k indices otherwise.

Reproducibility.  Tuples are grouped in blocks of B tuples, and the negatives of
a block in segments of at most K0 columns; B and K0 depend on k (and N) only
(sphere: B = max(1, min(8192, 2^16 // k)), K0 = min(k, 2^16); finite: B = max(1,
min(8192, 2^16 // min(k, N)))).  Changing these constants changes the stream.
Block b draws its anchors/positives from ``SeedSequence(seed, spawn_key=(tag, b, 0))``
and its negative segment g from ``SeedSequence(seed, spawn_key=(tag, b, g + 1))``.
Per-tuple values are computed row by row, per-block means and sums of squares are
merged in block order (Chan et al.), so the result is bit-identical for every
``chunk_size``; ``chunk_size`` (negatives per vectorised batch) only decides how
many blocks are drawn and reduced together.
"""
from __future__ import annotations

import math
from functools import lru_cache

import mpmath
import numpy as np

from ..errors import InputError, check_k, check_tau
from .loss import check_loss, infonce_loss
from ..models import FiniteModel, SphereModel

__all__ = ["monte_carlo", "naive_vector_monte_carlo", "SimilaritySampler", "QUANTITIES", "GAPS"]

QUANTITIES = ("risk", "cross_entropy_limit", "search_cross_entropy", "density_ratio_second_moment")
# paired differences, estimated from the same tuples (much smaller standard errors)
GAPS = ("cross_entropy_limit_minus_risk", "search_cross_entropy_minus_risk")
_ALL = QUANTITIES + GAPS
UNIT = 1 << 16            # negatives per (block, segment) unit
MAX_BLOCK_TUPLES = 8192   # tuples per block when k is small
Z95 = 1.959963984540054

_TAG_SIMILARITY, _TAG_NAIVE = 0, 1


def _generator(seed: int, tag: int, block: int, part: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(tag, block, part))))


def _check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError("seed", f"must be an integer >= 0, got {seed!r}")
    return int(seed)


def _check_samples(samples) -> int:
    n = check_k(samples, "samples")
    if n < 2:
        raise InputError("samples", f"must be >= 2 (a standard error needs two tuples), got {n}")
    return n


# ------------------------------------------------------------------ sampler

@lru_cache(maxsize=64)
def _ziggurat_tables(dim: int, layers: int):
    """Equal-area layers covering {(x, y): 0 <= x <= 1, 0 <= y < f(x)}, f(x) = (1 - x^2)^a.

    Layer i is [0, x_i] x [y_i, y_{i+1}] with x_i = f^{-1}(y_i), y_0 = 0, x_0 = 1 and
    y_{i+1} = y_i + A / x_i; A is the smallest area for which ``layers`` layers reach
    y >= 1 = f(0).  x_i is rounded up (cover) and the fast-accept threshold x_{i+1}
    down, by 2^-50 relative, so float rounding can only waste area, never bias.
    """
    a = (dim - 3) / 2.0

    def finv(y):
        return math.sqrt(-math.expm1(math.log(y) / a)) if y < 1 else 0.0

    def run(area):
        xs, ys = [1.0], [0.0]
        for _ in range(layers):
            y = ys[-1] + area / xs[-1]
            ys.append(y)
            if y >= 1:
                return xs, ys
            xs.append(finv(y))
        return None

    total = 0.5 * math.exp(math.lgamma(0.5) + math.lgamma(a + 1) - math.lgamma(a + 1.5))  # int_0^1 f
    lo, hi = total / layers, 1.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if run(mid) is None:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-15 * hi:
            break
    xs, ys = run(hi)
    used = len(xs)
    up, down = 1 + 2.0 ** -50, 1 - 2.0 ** -50
    x = np.zeros(layers)
    ratio = np.zeros(layers)
    ylo = np.full(layers, 2.0)       # unused layers lie above the density: always rejected
    yhi = np.full(layers, 3.0)
    x[:used] = np.array(xs) * up
    x[used:] = 1.0
    for i in range(used):
        nxt = xs[i + 1] * down if i + 1 < used else 0.0
        ratio[i] = nxt / x[i]
    ylo[:used] = ys[:used]
    yhi[:used] = ys[1:used + 1]
    acceptance = total / (layers * hi)
    return x, ratio, ylo, yhi, a, acceptance


class SimilaritySampler:
    """Exact sampler of s = <x, z>, z uniform on S^{d-1} (x fixed): density c_d (1 - s^2)^((d-3)/2).

    d = 2: s = cos(pi U); d = 3: s uniform on [-1, 1]; d >= 4: a ziggurat of 1024
    equal-area layers on |s| plus a sign bit, all taken from one 64-bit word (53 bits
    for the abscissa); points outside the fast region get an extra uniform and the
    exact test y < (1 - s^2)^((d-3)/2).  The draws of ``draw(rng, n)`` depend only on
    the generator state and n.

    >>> smp = SimilaritySampler(128)
    >>> s = smp.draw(np.random.default_rng(1), 200000)
    >>> abs(float(np.mean(s * s)) * 128 - 1) < 0.02   # E s^2 = 1/d
    True
    """

    LAYERS = 1024
    PIECE = 1 << 15     # draws are made in pieces of this size (fixed: part of the stream layout)

    def __init__(self, dim: int):
        self.dim = int(dim)
        if self.dim >= 4:
            x, ratio, ylo, yhi, a, acc = _ziggurat_tables(self.dim, self.LAYERS)
            self._xsig = np.concatenate([x, -x])
            self._ratio = np.concatenate([ratio, ratio])
            self._ylo, self._yhi, self._a = ylo, yhi, a
            self.acceptance = acc
        else:
            self.acceptance = 1.0
        self._bufs = {}

    def _buf(self, name, n, dtype):
        b = self._bufs.get(name)
        if b is None or b.size < n:
            b = np.empty(max(n, 1024), dtype=dtype)
            self._bufs[name] = b
        return b[:n]

    def draw(self, rng: np.random.Generator, n: int, out=None) -> np.ndarray:
        n = int(n)
        if out is None:
            out = np.empty(n)
        if self.dim == 2:
            rng.random(out=out)
            out *= math.pi
            return np.cos(out, out=out)
        if self.dim == 3:
            rng.random(out=out)
            out *= 2.0
            out -= 1.0
            return out
        for start in range(0, n, self.PIECE):
            self._draw_piece(rng, out[start:start + self.PIECE])
        return out

    def _draw_piece(self, rng, out):
        # every position keeps its first accepted candidate: i.i.d. draws from the exact law
        bad = self._candidates(rng, out)
        while bad.size:
            retry = np.empty(bad.size)
            again = self._candidates(rng, retry)
            out[bad] = retry
            bad = bad[again]

    def _candidates(self, rng, out):
        """Fill ``out`` with ziggurat candidates (in place); return the rejected positions."""
        m = out.size
        raw = rng.bit_generator.random_raw(m)
        j = np.bitwise_and(raw.view(np.int64), 2 * self.LAYERS - 1, out=self._buf("j", m, np.int64))
        np.right_shift(raw, 11, out=raw)
        u = np.multiply(raw.view(np.int64), 2.0 ** -53, out=out)        # 53-bit uniform on [0, 1)
        tab = np.take(self._ratio, j, out=self._buf("t", m, np.float64))
        slow = np.flatnonzero(np.greater_equal(u, tab, out=self._buf("f", m, np.bool_)))
        np.take(self._xsig, j, out=tab)
        x = np.multiply(u, tab, out=out)
        if not slow.size:
            return slow
        layer = j[slow] & (self.LAYERS - 1)
        ax = np.abs(x[slow])
        v = rng.random(slow.size)
        y = self._ylo[layer] + v * (self._yhi[layer] - self._ylo[layer])
        with np.errstate(divide="ignore", invalid="ignore"):
            fx = np.where(ax < 1.0, np.exp(self._a * np.log1p(-np.minimum(ax, 1.0) ** 2)), 0.0)
        return slow[~(y < fx)]


# ------------------------------------------------------------------ per-tuple accumulators

class _SphereAccumulator:
    """Row-wise streamed sums over negative similarities s (shape (rows, cols) per update).

    With m the running row maximum of s:
      se  = sum e^{(s - m)/tau},  sw = sum e^{kappa (s - m)},
      sws = sum e^{kappa (s - m)} s,  sw2 = sum e^{2 kappa (s - m)}.
    """

    def __init__(self, tau: float, kappa: float, weights: bool):
        self.inv_tau = 1.0 / tau
        self.kappa = float(kappa)
        self.weights = weights
        self.m = None
        self._scratch = {}

    def _buf(self, name, shape):
        n = shape[0] * shape[1]
        b = self._scratch.get(name)
        if b is None or b.size < n:
            b = np.empty(n)
            self._scratch[name] = b
        return b[:n].reshape(shape)

    def reset(self):
        self.m = None

    def update(self, s: np.ndarray) -> None:
        cm = s.max(axis=1)
        if self.m is None:
            m = cm
        else:
            m = np.maximum(self.m, cm)
            d = self.m - m
            self.se *= np.exp(d * self.inv_tau)
            if self.weights:
                f = np.exp(self.kappa * d)
                self.sw *= f
                self.sws *= f
                self.sw2 *= f * f
        t = np.subtract(s, m[:, None], out=self._buf("t", s.shape))
        if self.weights:
            e2 = np.multiply(t, self.kappa, out=self._buf("e", s.shape))
            np.exp(e2, out=e2)
            prod = np.multiply(e2, s, out=self._buf("q", s.shape))
            sw, sws = e2.sum(axis=1), prod.sum(axis=1)
            np.multiply(e2, e2, out=prod)
            sw2 = prod.sum(axis=1)
        np.multiply(t, self.inv_tau, out=t)
        np.exp(t, out=t)
        se = t.sum(axis=1)
        if self.m is None:
            self.se = se
            if self.weights:
                self.sw, self.sws, self.sw2 = sw, sws, sw2
        else:
            self.se += se
            if self.weights:
                self.sw += sw
                self.sws += sws
                self.sw2 += sw2
        self.m = m

    def values(self, p, k, loss, log_mu, log_z_kappa):
        """Per-tuple integrands of the four quantities (None where not computed)."""
        log_k = math.log(k)
        L = self.m * self.inv_tau + np.log(self.se)
        pt = p * self.inv_tau
        risk = L - pt
        if loss == "infonce":
            risk = np.logaddexp(0.0, risk)
        risk -= log_k
        ce = log_mu - pt
        search = dr2 = None
        if self.weights:
            search = L - log_k - self.inv_tau * (self.sws / self.sw)
            with np.errstate(over="ignore"):
                dr2 = np.exp(2 * self.kappa * self.m - 2 * log_z_kappa + np.log(self.sw2) - log_k)
        return risk, ce, search, dr2


class _Stats:
    """Mean and sum of squared deviations, merged block by block in a fixed order."""

    def __init__(self):
        self.n, self.mean, self.m2 = 0, 0.0, 0.0

    def add_block(self, v: np.ndarray) -> None:
        nb = v.size
        mb = float(v.mean())
        m2b = float(np.square(v - mb).sum())
        if self.n == 0:
            self.n, self.mean, self.m2 = nb, mb, m2b
            return
        n = self.n + nb
        delta = mb - self.mean
        self.mean += delta * nb / n
        self.m2 += m2b + delta * delta * self.n * nb / n
        self.n = n

    def result(self) -> dict:
        se = math.sqrt(self.m2 / (self.n - 1) / self.n) if self.n > 1 else float("inf")
        return {"estimate": self.mean, "stderr": se,
                "ci95": [self.mean - Z95 * se, self.mean + Z95 * se], "samples": self.n}


def _with_gaps(vals):
    """Append the per-tuple paired differences (CE limit - risk, search CE - risk)."""
    risk, ce, search, _ = vals
    return list(vals) + [ce - risk, None if search is None else search - risk]


def _skipped(reason: str) -> dict:
    return {"estimate": None, "stderr": None, "ci95": None, "samples": 0, "reason": reason}


def _blocks(samples: int, block: int):
    return [(b, min(block, samples - b * block)) for b in range((samples + block - 1) // block)]


def _batches(blocks, per_batch: int):
    for i in range(0, len(blocks), per_batch):
        yield blocks[i:i + per_batch]


# ------------------------------------------------------------------ sphere

def _sphere_run(model: SphereModel, tau, k, samples, seed, loss, chunk_size, weights):
    block = max(1, min(MAX_BLOCK_TUPLES, UNIT // k))
    seg = min(k, UNIT)
    per_batch = 1 if chunk_size is None else max(1, chunk_size // (block * seg))
    sampler = SimilaritySampler(model.dim)
    log_mu = float(model.log_partition(mpmath.mp, 1 / tau))
    log_zk = float(model.log_partition(mpmath.mp, model.kappa))
    acc = _SphereAccumulator(tau, model.kappa, weights)
    stats = [_Stats() for _ in _ALL]
    buf = None
    for batch in _batches(_blocks(samples, block), per_batch):
        rows = sum(nb for _, nb in batch)
        p = np.concatenate([model.sample_positive_similarity(_generator(seed, _TAG_SIMILARITY, b, 0), nb)
                            for b, nb in batch])
        acc.reset()
        for g, start in enumerate(range(0, k, seg)):
            kc = min(seg, k - start)
            if buf is None or buf.size < rows * kc:
                buf = np.empty(rows * kc)
            s = buf[:rows * kc].reshape(rows, kc)
            r0 = 0
            for b, nb in batch:
                sampler.draw(_generator(seed, _TAG_SIMILARITY, b, g + 1), nb * kc, out=s[r0:r0 + nb].reshape(-1))
                r0 += nb
            acc.update(s)
        vals = _with_gaps(acc.values(p, k, loss, log_mu, log_zk))
        r0 = 0
        for _, nb in batch:
            for st, v in zip(stats, vals):
                if v is not None:
                    st.add_block(v[r0:r0 + nb])
            r0 += nb
    return stats


# ------------------------------------------------------------------ finite

def _finite_tables(model: FiniteModel, tau):
    pi, M, emb = model.arrays()
    G = emb @ emb.T
    N = pi.size
    cum_pi = np.cumsum(pi)
    cum_pi /= cum_pi[-1]
    cum_pi[-1] = 1.0
    cum_M = np.cumsum(M, axis=1)
    cum_M /= cum_M[:, -1:]
    cum_M[:, -1] = 1.0
    # log mu(z) = log sum_z' pi(z') e^{<phi(z), phi(z')>/tau}, in double precision
    support = pi > 0
    x = np.where(support[None, :], G / tau, -np.inf)
    mx = x.max(axis=1)
    log_mu = mx + np.log((pi[None, :] * np.exp(x - mx[:, None])).sum(axis=1))
    W = None
    if model.dominated:
        W = np.where(support[None, :], M / np.where(support, pi, 1.0)[None, :], 0.0)
    return pi, M, G, N, cum_pi, cum_M, log_mu, W


def _zero_sum_reason(model: FiniteModel, k):
    """Why sum_j dM/dpi(xi_j) = 0 has positive probability, or None."""
    pi, M, _ = model.arrays()
    for a in np.flatnonzero(pi > 0):
        mass = float(pi[M[a] == 0].sum())
        if mass > 0:
            return (f"sum_j dM(z,.)/dpi(xi_j) = 0 has positive probability (>= pi({a}) * {mass:g}^{k}) "
                    f"(M({a}, .) vanishes on a set of pi-mass {mass:g}), so eq. (9) is undefined")
    return None


def _finite_run(model: FiniteModel, tau, k, samples, seed, loss, chunk_size, weights):
    pi, M, G, N, cum_pi, cum_M, log_mu, W = _finite_tables(model, tau)
    use_counts = k >= N
    cost = N if use_counts else k
    block = max(1, min(MAX_BLOCK_TUPLES, UNIT // cost))
    per_batch = 1 if chunk_size is None else max(1, chunk_size // (block * cost))
    weights = weights and W is not None
    inv_tau, log_k = 1.0 / tau, math.log(k)
    stats = [_Stats() for _ in _ALL]
    for batch in _batches(_blocks(samples, block), per_batch):
        anchors, pos, counts = [], [], []
        for b, nb in batch:
            rng0 = _generator(seed, _TAG_SIMILARITY, b, 0)
            a = np.searchsorted(cum_pi, rng0.random(nb), side="right")
            jp = (cum_M[a] <= rng0.random(nb)[:, None]).sum(axis=1)
            rng1 = _generator(seed, _TAG_SIMILARITY, b, 1)
            if use_counts:
                C = rng1.multinomial(k, pi, size=nb).astype(np.float64)
            else:
                idx = np.searchsorted(cum_pi, rng1.random((nb, k)), side="right")
                C = np.bincount((np.arange(nb)[:, None] * N + idx).ravel(), minlength=nb * N)
                C = C.reshape(nb, N).astype(np.float64)
            anchors.append(a)
            pos.append(jp)
            counts.append(C)
        a = np.concatenate(anchors)
        jp = np.concatenate(pos)
        C = np.concatenate(counts)
        S = G[a]
        present = C > 0
        m = np.where(present, S, -np.inf).max(axis=1)
        e1 = np.exp(np.where(present, S - m[:, None], 0.0) * inv_tau)
        L = m * inv_tau + np.log((C * e1).sum(axis=1))
        pt = G[a, jp] * inv_tau
        risk = L - pt
        if loss == "infonce":
            risk = np.logaddexp(0.0, risk)
        risk -= log_k
        vals = [risk, log_mu[a] - pt, None, None]
        if weights:
            Wa = W[a] * C
            sw = Wa.sum(axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                vals[2] = L - log_k - inv_tau * (Wa * S).sum(axis=1) / sw
            vals[3] = (Wa * W[a]).sum(axis=1) / k
        vals = _with_gaps(vals)
        r0 = 0
        for _, nb in batch:
            for st, v in zip(stats, vals):
                if v is not None:
                    st.add_block(v[r0:r0 + nb])
            r0 += nb
    return stats


# ------------------------------------------------------------------ public API

def _check_common(model, tau, k, samples, seed, loss, chunk_size):
    if not isinstance(model, (SphereModel, FiniteModel)):
        raise InputError("model", f"must be a SphereModel or FiniteModel, got {type(model).__name__}")
    tau = check_tau(tau)
    k = check_k(k)
    samples = _check_samples(samples)
    seed = _check_seed(seed)
    loss = check_loss(loss)
    if chunk_size is not None:
        chunk_size = check_k(chunk_size, "chunk_size")
    return tau, k, samples, seed, loss, chunk_size


def monte_carlo(model, tau, k, samples, seed, loss: str = "infonce", chunk_size=None,
                search: bool = True) -> dict:
    """Monte Carlo estimates over ``samples`` i.i.d. tuples (assumption (A)).

    Returns a dict with, for each of ``risk`` (R of eq. (2), or R~ of Sec. 3.4 for
    ``loss="dcl"``), ``cross_entropy_limit`` (eq. (7) integrated against pi),
    ``search_cross_entropy`` (eq. (9) with m = k, expectation over xi_1..xi_k and
    integrated against pi; the xi_j are the tuple's own negatives) and
    ``density_ratio_second_moment`` (E|dM(Z,.)/dpi(Z')|^2), a dict
    ``{"estimate", "stderr", "ci95" (normal, [lo, hi]), "samples"}``.  Where a
    quantity is undefined it is ``{"estimate": None, ..., "reason": str}``: the search
    cross-entropy and the second moment when (B) fails, the search cross-entropy
    also when sum_j dM/dpi(xi_j) = 0 has positive probability; both when
    ``search=False`` (then only e^{s/tau} is computed per negative).
    The paired differences ``cross_entropy_limit_minus_risk`` (the gap of Prop. 1 /
    Lemma 4) and ``search_cross_entropy_minus_risk`` (Prop. 2 / eq. (12)) are
    estimated from the same tuples, with their own (much smaller) standard errors.

    What is exact and what is sampled: the ``cross_entropy_limit`` integrand is
    -p/tau + log mu(z^a) with log mu(z) = log E_pi e^{<phi(z), phi(Z')>/tau} exact
    (sphere: log Z_d(1/tau) from mpmath; finite: the finite sum in double
    precision), so only E[-p/tau] is sampled.  dM/dpi is exact: e^{kappa s}/Z_d(kappa)
    (log Z_d(kappa) from mpmath), resp. M(z, z')/pi(z').  All else is sampled.

    >>> r = monte_carlo(SphereModel(3, 2.0), tau=0.5, k=16, samples=4000, seed=1)
    >>> sorted(r["risk"])
    ['ci95', 'estimate', 'samples', 'stderr']
    >>> exact = float(SphereModel(3, 2.0).density_ratio_second_moment(mpmath.mp))
    >>> abs(r["density_ratio_second_moment"]["estimate"] - exact) < 5 * r["density_ratio_second_moment"]["stderr"]
    True
    """
    tau, k, samples, seed, loss, chunk_size = _check_common(model, tau, k, samples, seed, loss, chunk_size)
    reason_search = reason_dr2 = None
    if not search:
        reason_search = reason_dr2 = "not requested (search=False)"
    elif not model.dominated:
        reason_search = reason_dr2 = model.domination_reason
    elif isinstance(model, FiniteModel):
        reason_search = _zero_sum_reason(model, k)
    if isinstance(model, SphereModel):
        stats = _sphere_run(model, tau, k, samples, seed, loss, chunk_size, reason_dr2 is None)
        exact_parts = "log Z_d(1/tau), log Z_d(kappa) (mpmath); sampled: p by Wood, s by its exact law"
    else:
        stats = _finite_run(model, tau, k, samples, seed, loss, chunk_size, reason_dr2 is None)
        exact_parts = "log mu(z) and M/pi as finite sums; sampled: anchor, positive, negative counts"
    out = {name: st.result() for name, st in zip(_ALL, stats)}
    if reason_search is not None:
        out["search_cross_entropy"] = _skipped(reason_search)
        out["search_cross_entropy_minus_risk"] = _skipped(reason_search)
    if reason_dr2 is not None:
        out["density_ratio_second_moment"] = _skipped(reason_dr2)
    out.update({"model": model.label, "tau": tau, "k": k, "loss": loss, "seed": seed,
                "exact_parts": exact_parts})
    return out


def naive_vector_monte_carlo(model: SphereModel, tau, k, samples, seed, loss: str = "infonce") -> dict:
    """Baseline: the same estimates from actual vectors in R^d (sphere model only).

    Anchor x = g/|g| (g standard normal), positive y = t x + sqrt(1 - t^2) v with t
    from Wood's sampler and v a uniform unit tangent at x, negatives normalised
    Gaussians; similarities are dot products, the loss is ``infonce_loss`` on the
    vectors (when k fits in one segment).  Independent of ``monte_carlo`` except
    for Wood's sampler and the closed-form constants; used as a cross-check and as
    the benchmark baseline.
    """
    if not isinstance(model, SphereModel):
        raise InputError("model", f"naive_vector_monte_carlo needs a SphereModel, got {type(model).__name__}")
    tau, k, samples, seed, loss, _ = _check_common(model, tau, k, samples, seed, loss, None)
    d = model.dim
    budget = 1 << 21                      # floats per Gaussian array
    block = max(1, min(1024, budget // (k * d)))
    seg = max(1, min(k, budget // d))
    log_mu = float(model.log_partition(mpmath.mp, 1 / tau))
    log_zk = float(model.log_partition(mpmath.mp, model.kappa))
    acc = _SphereAccumulator(tau, model.kappa, True)
    stats = [_Stats() for _ in _ALL]
    for b, nb in _blocks(samples, block):
        rng = _generator(seed, _TAG_NAIVE, b, 0)
        x = rng.standard_normal((nb, d))
        x /= np.linalg.norm(x, axis=1, keepdims=True)
        t = model.sample_positive_similarity(rng, nb)
        g = rng.standard_normal((nb, d))
        g -= np.einsum("nd,nd->n", g, x)[:, None] * x
        g /= np.linalg.norm(g, axis=1, keepdims=True)
        y = t[:, None] * x + np.sqrt(np.maximum(0.0, 1 - t * t))[:, None] * g
        y /= np.linalg.norm(y, axis=1, keepdims=True)
        p = np.einsum("nd,nd->n", x, y)
        acc.reset()
        risk = None
        for gi, start in enumerate(range(0, k, seg)):
            kc = min(seg, k - start)
            neg = _generator(seed, _TAG_NAIVE, b, gi + 1).standard_normal((nb, kc, d))
            neg /= np.linalg.norm(neg, axis=2, keepdims=True)
            acc.update(np.einsum("nkd,nd->nk", neg, x))
            if kc == k:
                risk = infonce_loss(x, y, neg, tau, loss)
        vals = list(acc.values(p, k, loss, log_mu, log_zk))
        if risk is not None:
            vals[0] = risk
        vals = _with_gaps(vals)
        for st, v in zip(stats, vals):
            st.add_block(v)
    out = {name: st.result() for name, st in zip(_ALL, stats)}
    out.update({"model": model.label, "tau": tau, "k": k, "loss": loss, "seed": seed,
                "exact_parts": "log Z_d(1/tau), log Z_d(kappa) (mpmath); sampled: vectors"})
    return out
