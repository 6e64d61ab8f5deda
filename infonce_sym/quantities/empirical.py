"""The empirical model of a user's own embeddings: exact R(k), R~(k), ∫CE in float64.

The model (MATH.md, "The empirical model"): n pairs (a_i, p_i) of unit vectors, pi-hat
uniform on the anchors, the positive of anchor i is p_i, and the k negatives are drawn
i.i.d. with replacement from a pool q_1..q_m (default: the positives, own row included;
``exclude_own`` leaves row i out of anchor i's pool).  With s_ij = <a_i, q_j>,
mu_i = mean_j e^{s_ij/tau}, x_ij = e^{s_ij/tau}/mu_i (so mean_j x_ij = 1) and
W_i = e^{<a_i,p_i>/tau}/mu_i:

    ∫CE     = (1/n) sum_i [ -<a_i,p_i>/tau + log mu_i ]                          (7)
    ∫CE - R  = -(1/n) sum_i E log(W_i/k + xbar_i),   xbar_i = mean of k draws of x_i.
    ∫CE - R~ = -(1/n) sum_i E log(xbar_i)                                        (11)

For S > 0, E log S = int_0^oo (e^{-t} - E e^{-tS}) dt/t, and the draws are i.i.d., so with
c = t/k and L_i(c) = log E e^{-c(x_i - 1)} (>= 0, Jensen)

    ∫CE - R  = (1/n) sum_i int_0^oo e^{-t} expm1(k L_i(t/k) - (t/k) W_i) dt/t,
    ∫CE - R~ = (1/n) sum_i int_0^oo e^{-t} expm1(k L_i(t/k)) dt/t,

the gaps themselves, with nothing of size one subtracted (as in ``quantities/exact.py``).
L_i is tabulated once on a geometric grid c_m = e^{y0 + m h}; since dt/t = dy for y = log t, the
rule for any k is the same grid shifted by log k, so one table serves every k.  The outer
integral is the trapezoidal rule in y (the integrand is analytic for |Im y| < pi/2, so the
error falls like e^{-pi^2/h}); its error is estimated by the rule of step 2h on the even nodes.

L_i(c) at a node:
* c max_j |x_ij - 1| <= 1: the centred Taylor series log1p(sum_{r=2}^R (-c)^r M_r / r!),
  M_r = mean_j (x_ij - 1)^r (no cancellation at small c);
* otherwise c + log(phi_low + phi_band): atoms with c x <= 1 by the Taylor series about 0
  (prefix power sums of x^r, collected per node by bincount), atoms with 1 < c x <= e^{h nb}
  by direct exponentials, and atoms beyond neglected (each < e^{-FAR}, counted in the error).

Everything is chunked over anchors (the n x m similarity matrix is never held), in float64.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

import numpy as np

from ..errors import TAU_RANGE, InputError, check_k, check_tau
from ..models.laws import row_norms, scaled_rows
from .loss import loss_from_similarities
from .montecarlo import block_moments, sampled_result

__all__ = ["EmpiricalPairs", "make_pairs", "AnchorTables", "anchor_tables", "gaps_at",
           "GapValues", "k_for_gap", "brute_force_risk", "monte_carlo_gap", "continuity_sample",
           "mc_blocks", "mc_draw", "mc_block_count", "mc_losses", "mc_summary", "tuple_similarities_rows",
           "normalise_rows", "unit_rows", "block_similarities", "block_tables", "block_bytes",
           "anchor_gap_sums", "exact_partials", "k_for_gap_search", "k_for_gap_candidates", "POOL_CHUNK", "similarity_chunks", "similarity_rows", "check_tau_range", "grid_size",
           "LawModel", "EPS", "STEP", "moment_rounding", "similarity_rounding",
           "TAU_RANGE", "K_MAX"]

K_MAX = 10 ** 12                 # the grid reaches every k <= K_MAX
STEP = 0.25                      # h, grid step in y = log c
TAYLOR_CUT = 1.0                 # Taylor band: c x <= 1 (or c |x - 1| <= 1)
TAYLOR_TERMS = 18                # r = 0..18: 1/19! < 1e-16
FAR = 50.0                       # atoms with c x > FAR neglected: e^{-50} < 2e-22
LOG_T_LOW = -48.0                # t below e^{-48}: tail t W/k, counted in the error
LIMIT_LOG = 60.0                 # an anchor's integrand is < e^{-60} once c W >= 60 or c x_min >= 30
EPS = np.finfo(float).eps
ROUNDING = 256 * EPS             # relative rounding allowance of one table value L (generous)
_FACT = np.array([math.factorial(r) for r in range(TAYLOR_TERMS + 1)], dtype=float)


# ------------------------------------------------------------------ the model
@dataclass(frozen=True)
class EmpiricalPairs:
    """Unit-normalised anchors (n x d), positives (n x d) and the negatives' pool (m x d)."""
    anchors: np.ndarray
    positives: np.ndarray
    pool: np.ndarray
    exclude_own: bool = False
    pool_name: str = "positives"
    rescaled_rows: int = 0            # rows whose norm differed from 1 by more than 1e-6
    # the rows as given (float64, before normalising: anchors, positives, pool), from which the arb route
    # (LawModel) forms the exact cosines; None: the unit rows are taken as given
    given: tuple = None

    @property
    def n(self) -> int:
        return self.anchors.shape[0]

    @property
    def dim(self) -> int:
        return self.anchors.shape[1]

    @property
    def pool_size(self) -> int:
        """Atoms of each anchor's negative law."""
        return self.pool.shape[0] - (1 if self.exclude_own else 0)


def normalise_rows(name: str, arr) -> tuple[np.ndarray, int]:
    """float64 copy with unit rows; InputError(name, ...) for NaN/inf, zero rows, wrong shape."""
    arr = np.asarray(arr)
    if arr.dtype.kind not in "fiu":
        raise InputError(name, f"must be a numeric array, got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise InputError(name, f"must be a 2-d array (rows = items), got shape {arr.shape}")
    if arr.shape[0] < 1 or arr.shape[1] < 1:
        raise InputError(name, f"is empty (shape {arr.shape})")
    out = np.array(arr, dtype=np.float64)
    finite = np.isfinite(out).all(axis=1)
    if not finite.all():
        raise InputError(name, f"row {int(np.flatnonzero(~finite)[0])} has a NaN or infinite entry")
    zero = ~np.any(out != 0, axis=1)
    if zero.any():
        raise InputError(name, f"row {int(np.flatnonzero(zero)[0])} is zero (cannot be normalised)")
    rescaled = int(np.count_nonzero(np.abs(row_norms(out) - 1) > 1e-6))
    return _to_unit(out), rescaled


def _to_unit(rows):
    """The (nonzero, finite) float64 rows divided by their norms, through :func:`scaled_rows`: rows of
    1e300s or of subnormals are normalised like any other, ordinary rows get the same bits as without."""
    out, _ = scaled_rows(rows)
    out /= np.sqrt(np.einsum("ij,ij->i", out, out))[:, None]
    return out


def make_pairs(anchors, positives, negatives=None, negatives_from: str = "positives",
               exclude_own: bool = False, names=("anchors", "positives", "negatives")) -> EmpiricalPairs:
    """The empirical model; rows are normalised (``rescaled_rows`` says how many needed it)."""
    a, ra = normalise_rows(names[0], anchors)
    p, rp = normalise_rows(names[1], positives)
    if p.shape != a.shape:
        raise InputError(names[1], f"shape {p.shape} does not match the anchors' {a.shape}")
    rescaled = ra + rp
    if negatives is not None:
        q, rq = normalise_rows(names[2], negatives)
        rescaled += rq
        if q.shape[1] != a.shape[1]:
            raise InputError(names[2], f"dimension {q.shape[1]} does not match the anchors' {a.shape[1]}")
        pool_name = "negatives"
    elif negatives_from == "positives":
        q, pool_name = p, "positives"
    elif negatives_from == "anchors":
        q, pool_name = a, "anchors"
    else:
        raise InputError("negatives-from", f"must be 'positives' or 'anchors', got {negatives_from!r}")
    if exclude_own:
        if q.shape[0] != a.shape[0]:
            raise InputError("exclude-own", f"needs one pool row per anchor ({a.shape[0]}), the pool has {q.shape[0]}")
        if a.shape[0] < 2:
            raise InputError("exclude-own", "needs at least 2 pairs")
    given = [np.asarray(x, dtype=np.float64) for x in (anchors, positives)]
    given.append(given[1] if pool_name == "positives" else given[0] if pool_name == "anchors"
                 else np.asarray(negatives, dtype=np.float64))
    return EmpiricalPairs(a, p, q, bool(exclude_own), pool_name, rescaled, tuple(given))


def similarity_rows(model: EmpiricalPairs, start: int, stop: int):
    """S = <a_i, q_j> for anchors start..stop-1 (own column removed under exclude_own), p = <a_i, p_i>."""
    a = model.anchors[start:stop]
    s = a @ model.pool.T
    p = np.einsum("ij,ij->i", a, model.positives[start:stop])
    return (_own_column_removed(s, start, stop) if model.exclude_own else s), p


def _own_column_removed(rows, start: int, stop: int):
    """Rows start..stop-1 of an (anchor x pool row) array without each anchor's own column."""
    keep = np.ones(rows.shape, dtype=bool)
    keep[np.arange(stop - start), np.arange(start, stop)] = False
    return rows[keep].reshape(stop - start, rows.shape[1] - 1)


def similarity_chunks(model: EmpiricalPairs, chunk: int):
    """(start, stop, S, p) over chunks of anchors (see :func:`similarity_rows`)."""
    for start in range(0, model.n, chunk):
        stop = min(model.n, start + chunk)
        yield (start, stop) + similarity_rows(model, start, stop)


POOL_CHUNK = 4096                # pool rows normalised and multiplied at a time (fixed, whatever the row block)


def unit_rows(arr, start: int, stop: int) -> np.ndarray:
    """Rows start..stop-1 of ``arr`` (any array-like, a memory map say; checked elsewhere) as float64
    unit vectors; each row's value depends on that row only."""
    return _to_unit(np.array(arr[start:stop], dtype=np.float64))


def block_similarities(anchors, positives, pool, start: int, stop: int, exclude_own: bool = False):
    """S = <a_i, q_j> (B x pool, float64) and p = <a_i, p_i> for anchors start..stop-1 from the raw
    (unnormalised, possibly memory-mapped) matrices: the pool is read once, POOL_CHUNK rows at a time,
    normalised on the fly; under exclude_own the own column is removed."""
    a = unit_rows(anchors, start, stop)
    p = np.einsum("ij,ij->i", a, unit_rows(positives, start, stop))
    m = pool.shape[0]
    s = np.empty((stop - start, m))
    # a block of one row goes to the matrix product as two (a 1-row product is a matrix-vector
    # product, which BLAS sums in another order): the similarities do not depend on the block
    a2 = np.vstack([a, a]) if a.shape[0] == 1 else a
    for j in range(0, m, POOL_CHUNK):
        q = unit_rows(pool, j, min(m, j + POOL_CHUNK))
        s[:, j:j + q.shape[0]] = (a2 @ q.T)[:a.shape[0]]
    del a, a2
    return (_own_column_removed(s, start, stop) if exclude_own else s), p


def block_tables(s, p, tau, pool_size: int, with_dcl: bool = True) -> AnchorTables:
    """:class:`AnchorTables` of one block of anchors from its similarities (:func:`block_similarities`):
    the same grid as :func:`anchor_tables` (it depends on tau and the pool size only)."""
    tau = check_tau_range(tau)
    y0, N = grid_size(tau, pool_size)
    t = _row_tables(s, p, tau, y0, N, with_dcl)
    return AnchorTables(tau=tau, y0=y0, log_c=y0 + STEP * np.arange(N), L=t["L"], log_phi=t["log_phi"],
                        log_phi_up=t["log_phi_up"], log_w=t["log_w"], log_mu=t["log_mu"],
                        positive_similarity=np.asarray(p, dtype=float), moments=t["moments"],
                        gap1=t["gap1"], dcl_gap1=t["dcl_gap1"], mean_log_x=t["mean_log_x"],
                        pool_size=pool_size, extras={"with_dcl": with_dcl})


# the per-anchor moments of AnchorTables: x's centred moments, and the mean and central moments of a k = 1 tuple's
# value, -log(W + x) (InfoNCE) and -log x (DCL), over the anchor's pool
K1_MOMENTS = ("k1_mean", "k1_m2", "k1_m3", "k1_dcl_mean", "k1_dcl_m2", "k1_dcl_m3")
# and, for the rounding bounds of m2 and m3 (``moment_rounding``), the means of |v|^a (1 + x)^b, v = x - 1, named r{a}{b}
ROUNDING_SUMS = ("r11", "r21", "r02", "r12", "r03", "r30")
MOMENT_KEYS = tuple(f"m{r}" for r in range(2, 7)) + K1_MOMENTS + ROUNDING_SUMS


def similarity_rounding(dim: int) -> float:
    """|error| of one float64 similarity of unit rows against the exact cosine of the rows as given (the rows'
    normalisation and a dot product of length d: at most about (d + 3) eps; 2 d eps allowed)."""
    return 2 * dim * EPS


def moment_rounding(moments: dict, tau: float, pool_size: int, dim: int) -> dict:
    """Bounds on how far the float64 tables (``moments`` of :class:`AnchorTables`, at ``tau``, over pools of
    ``pool_size`` rows of dimension ``dim``) are from the exact values of the rows as given: ``log_w`` (|error| of
    every log W_i), and ``m2`` and ``m3`` (per anchor: |error| of the centred moments of x = e^{s/tau}/mu).

    log x = s/tau - log mu and log W = <a, p>/tau - log mu are each off by at most e = 2 delta/tau (delta the
    similarities' rounding, :func:`similarity_rounding`; log-sum-exp is 1-Lipschitz) plus their own rounding: s/tau and
    log x = z - log mu eps |.| each (|z|, |log mu| <= 1/tau), the mean of m exponentials in (0, 1] (16 + log2 m) eps
    relative, its log, the exponentials 2 eps: at most (20 + log2 m) eps + 4 eps/tau, allowed twice over.  So the
    computed x is x (1 + theta), |theta| <= expm1(e) + 2 eps, and v = fl(x - 1) is off by at most eta (1 + x), eta = expm1(e) + 4 eps; then
    |fl(v)^r - v^r| <= (|v| + eta (1 + x))^r - |v|^r, whose mean over the pool is the expansion in the sums
    r{a}{b} = mean |v|^a (1 + x)^b, plus the mean's own rounding ((16 + log2 m) eps of mean |v|^r).  With near-equal
    rows (x - 1 ~ 1e-7) the similarities' rounding moves m3 by about 1e-4 of itself (an embeddings probe, Dec 2026)."""
    m = max(2, pool_size)
    sums = (16 + math.log2(m)) * EPS
    e = 2 * similarity_rounding(dim) / tau + 2 * ((20 + math.log2(m)) * EPS + 4 * EPS / tau)
    eta = math.expm1(e) + 4 * EPS
    m2 = 2 * eta * moments["r11"] + eta ** 2 * moments["r02"] + sums * moments["m2"]
    m3 = (3 * eta * moments["r21"] + 3 * eta ** 2 * moments["r12"] + eta ** 3 * moments["r03"]
          + sums * moments["r30"])
    return {"log_w": e, "m2": m2, "m3": m3}


def k1_skewness(moments, loss: str = "infonce"):
    """The skewness of a k = 1 tuple's value over the whole empirical model (anchor uniform, negative uniform in its
    pool) from the per-anchor means and central moments (the law of total cumulants); None where it has no spread.
    A rare pool row can carry the mean (each anchor's own row, at k = 1 and scale 20, 0.03% of the tuples and 99.9% of
    R(1)): the sample never drew it, its own skewness was small, and the check said "outside the 95% interval"
    (an embeddings probe, Dec 2026)."""
    name = "k1" if loss == "infonce" else "k1_dcl"
    mean_i, m2_i, m3_i = (np.asarray(moments[f"{name}_{part}"], dtype=float) for part in ("mean", "m2", "m3"))
    d = mean_i - mean_i.mean()
    m2 = float(np.mean(m2_i + d * d))
    m3 = float(np.mean(m3_i + 3 * m2_i * d + d * d * d))
    if not m2 > 0 or not math.isfinite(m3):
        return None
    return m3 / m2 ** 1.5


def block_bytes(rows: int, pool_size: int, tau: float) -> int:
    """Working memory of one block of ``rows`` anchors (similarities and temporaries of
    :func:`_row_tables`, about 14 float64 per similarity; its per-node arrays, about 40 float64 per
    grid node), an upper estimate measured on n = 10^4, d = 768."""
    return rows * (14 * 8 * pool_size + 40 * 8 * grid_size(tau, pool_size)[1])


def _chunk_rows(model: EmpiricalPairs, budget: int = 1_000_000) -> int:
    return max(1, min(model.n, budget // max(1, model.pool.shape[0])))


# ------------------------------------------------------------------ the tables
def grid_size(tau: float, pool_size: int = 1) -> tuple[float, int]:
    """y0 and node count of the grid c_m = e^{y0 + m h}: from t = e^{-48}/W_max at k = K_MAX
    (W = e^{p/tau}/mu <= m e^{2/tau}, so the neglected t W/k stays below e^{-48}) up to
    c = 60 e^{2/tau} (>= 60/W and 30/x_min, past which every integrand is below e^{-60})."""
    y0 = LOG_T_LOW - math.log(K_MAX) - (2.0 / tau + math.log(max(1, pool_size)))
    y_hi = math.log(LIMIT_LOG) + 2.0 / tau
    return y0, int(math.ceil((y_hi - y0) / STEP)) + 1


@dataclass
class AnchorTables:
    """Per-anchor quantities at one tau, and L_i(c_m) on the grid (one row per anchor)."""
    tau: float
    y0: float
    log_c: np.ndarray                  # (N,)
    L: np.ndarray                      # (n, N): log E e^{-c(x-1)}, -inf where negligible
    log_phi: np.ndarray                # (n, N): log E e^{-c x} in region (ii), nan in region (i)
    log_phi_up: np.ndarray             # (n, N): the same if the neglected far atoms sat at x = 0
    log_w: np.ndarray                  # (n,) log W_i
    log_mu: np.ndarray                 # (n,)
    positive_similarity: np.ndarray    # (n,)
    moments: dict                      # "m2".."m6": (n,) centred moments of x_i; K1_MOMENTS: of a k = 1 tuple's value
    gap1: np.ndarray                   # (n,) -E log(W + x): ∫CE - R at k = 1, per anchor
    dcl_gap1: np.ndarray               # (n,) -E log x
    mean_log_x: np.ndarray             # (n,)
    pool_size: int
    seconds: float = 0.0
    extras: dict = field(default_factory=dict)

    @property
    def cross_entropy_terms(self) -> np.ndarray:
        return -self.positive_similarity / self.tau + self.log_mu

    @property
    def cross_entropy_limit(self) -> float:
        terms = self.cross_entropy_terms
        return math.fsum(terms) / terms.size          # correctly rounded sum: any row blocking


def _second_and_third(negated):
    """Row means of d^2 and d^3 for d = -negated (the central moments of a value from its negated deviations)."""
    power = negated * negated
    second = power.mean(axis=1)
    power *= negated
    return second, -power.mean(axis=1)


def _row_tables(s, p, tau, y0, N, with_dcl=True):
    """Tables for one chunk of anchors: s (B x m) similarities, p (B,) positive similarities."""
    B, m = s.shape
    h = STEP
    z = s / tau
    zmax = z.max(axis=1)
    log_mu = zmax + np.log(np.mean(np.exp(z - zmax[:, None]), axis=1))
    log_x = z - log_mu[:, None]
    del z
    x = np.exp(log_x)
    log_w = p / tau - log_mu
    # k = 1 directly: -E log(W + x) and -E log x
    t = np.logaddexp(log_w[:, None], log_x)
    gap1 = -np.mean(t, axis=1)
    mean_log_x = np.mean(log_x, axis=1)
    # and the central moments of a k = 1 tuple's values -log(W + x) and -log x over the anchor's pool (the Monte Carlo
    # check judges its sample by the model's skewness: ``k1_skewness``); at most two more (B x m) arrays, freed before
    # the Taylor moments' two
    k1 = {"k1_mean": gap1, "k1_dcl_mean": -mean_log_x}
    t += gap1[:, None]                                     # -(value - its mean)
    k1["k1_m2"], k1["k1_m3"] = _second_and_third(t)
    del t
    k1["k1_dcl_m2"], k1["k1_dcl_m3"] = _second_and_third(log_x - mean_log_x[:, None])
    # centred moments M_r, r = 2..R
    v = x - 1.0
    max_v = np.abs(v).max(axis=1)
    M = np.zeros((TAYLOR_TERMS + 1, B))
    vr = v * v
    for r in range(2, TAYLOR_TERMS + 1):
        M[r] = vr.mean(axis=1)
        if r < TAYLOR_TERMS:
            vr *= v
    # the means that bound the moments' float64 rounding (``moment_rounding``): |v|^a (1 + x)^b per anchor, in the
    # two arrays of the moments and one more
    sums = {}
    np.abs(v, out=vr)                                    # |v|
    np.add(x, 1.0, out=v)                                # 1 + x
    t = vr * v
    sums["r11"] = t.mean(axis=1)
    t *= vr
    sums["r21"] = t.mean(axis=1)
    np.multiply(v, v, out=t)
    sums["r02"] = t.mean(axis=1)
    t *= vr
    sums["r12"] = t.mean(axis=1)
    np.multiply(v, v, out=t)
    t *= v
    sums["r03"] = t.mean(axis=1)
    np.multiply(vr, vr, out=t)
    t *= vr
    sums["r30"] = t.mean(axis=1)
    del v, vr, t
    log_c = y0 + h * np.arange(N)
    c = np.exp(log_c)
    # the last node each anchor needs (beyond it e^{-cW} phi^2 < e^{-60}); x_min > 0
    x_min = np.exp(log_x.min(axis=1))
    c_lim = LIMIT_LOG / (2 * x_min)                    # the DCL integrand needs this far
    if not with_dcl:
        c_lim = np.minimum(LIMIT_LOG / np.exp(log_w), c_lim)
    m_lim = np.minimum(N, np.ceil((np.log(c_lim) - y0) / h).astype(np.int64) + 2)
    # region (i): centred Taylor series
    L = np.full((B, N), -np.inf)
    cen = c[None, :] * max_v[:, None] <= TAYLOR_CUT
    y = -c[None, :]
    P = np.broadcast_to((M[TAYLOR_TERMS] / _FACT[TAYLOR_TERMS])[:, None], (B, N)).copy()
    with np.errstate(over="ignore", invalid="ignore"):       # overflow only outside region (i)
        for r in range(TAYLOR_TERMS - 1, 1, -1):          # Horner: sum_{r>=2} M_r y^r / r!
            P *= y
            P += (M[r] / _FACT[r])[:, None]
        G = P * (y * y)
    del P
    L[cen] = np.log1p(G[cen])
    del G
    # region (ii): phi(c) = mean_j e^{-c x_j}, by bands
    # e_j = number of nodes with c_m x_j <= TAYLOR_CUT
    e = np.floor((math.log(TAYLOR_CUT) - log_x - y0) / h).astype(np.int64) + 1
    np.clip(e, 0, N, out=e)
    rows = np.arange(B, dtype=np.int64)[:, None]
    # the low band, scaled so that nothing under- or overflows: Q_r[m] = sum_{j: e_j > m} (c_m x_j)^r
    # (each term in [0, 1]).  An atom enters at its last low node e_j - 1 with z_j = c_{e_j - 1} x_j,
    # and Q_r[m] = D_r[m] + e^{-r h} Q_r[m + 1], D_r[m] = sum_{j: e_j - 1 = m} z_j^r.
    low_atoms = e > 0
    last = (e - 1)[low_atoms]
    z = np.exp(log_c[last] + log_x[low_atoms])
    flat = (np.broadcast_to(rows, e.shape)[low_atoms] * N + last)
    D = np.empty((TAYLOR_TERMS + 1, B, N))
    zr = np.ones_like(z)
    for r in range(TAYLOR_TERMS + 1):
        D[r] = np.bincount(flat, weights=zr, minlength=B * N).reshape(B, N)
        if r < TAYLOR_TERMS:
            zr *= z
    del z, zr, flat, last
    decay = np.exp(-h * np.arange(TAYLOR_TERMS + 1))[:, None]
    alt = ((-1.0) ** np.arange(TAYLOR_TERMS + 1) / _FACT)[:, None]
    low = np.empty((B, N))
    Q = np.zeros((B, TAYLOR_TERMS + 1))                 # one row per anchor: each sum along a row, so an
    decay, alt = decay.T, alt.T                          # anchor's value does not depend on the block
    for node in range(N - 1, -1, -1):
        Q *= decay
        Q += D[:, :, node].T
        low[:, node] = (alt * Q).sum(axis=1)
    low /= m
    del D, Q
    # the direct band: nodes e_j .. e_j + nb - 1, only those an anchor needs
    nb = int(math.ceil(math.log(FAR / TAYLOR_CUT) / h))
    need = e < m_lim[:, None]                          # atoms entering the band at a node in use
    ee = e[need]
    xs = x[need]
    lim = np.broadcast_to(m_lim[:, None], e.shape)[need]
    base = np.broadcast_to(rows * (N + 1), e.shape)[need]
    dump = base + N                                      # column N collects unused terms
    cx = np.exp(log_c[ee] + np.log(xs))                  # c_{e_j} x_j in (1, e^h]
    grow = math.exp(h)
    band = np.zeros(B * (N + 1))
    for o in range(nb):
        node = ee + o
        idx = np.where(node < lim, base + node, dump)
        band += np.bincount(idx, weights=np.exp(-cx), minlength=B * (N + 1))
        cx *= grow
    del ee, xs, lim, base, dump, cx
    band = band.reshape(B, N + 1)[:, :N] / m
    # atoms past the band at node m: e_j + nb <= m, each weighing < e^{-FAR}
    past = np.bincount((rows * (N + 1) + np.minimum(e + nb, N)).ravel(), minlength=B * (N + 1)).reshape(B, N + 1)
    far_mass = np.cumsum(past, axis=1)[:, :N] / m
    phi = low + band
    direct = ~cen & (np.arange(N)[None, :] < m_lim[:, None])
    rr, cc = np.nonzero(direct)
    with np.errstate(divide="ignore"):
        lp = np.log(phi[direct])
        lp_up = np.log(phi[direct] + far_mass[direct] * math.exp(-FAR))
    L[direct] = c[cc] + lp
    log_phi = np.full((B, N), np.nan)
    log_phi_up = np.full((B, N), np.nan)
    log_phi[direct] = lp
    log_phi_up[direct] = lp_up
    moments = {f"m{r}": M[r].copy() for r in range(2, 7)} | k1 | sums
    return dict(L=L, log_phi=log_phi, log_phi_up=log_phi_up, log_w=log_w, log_mu=log_mu,
                moments=moments, gap1=gap1, dcl_gap1=-mean_log_x, mean_log_x=mean_log_x)


_WORK: dict = {}


def _table_job(start, stop, tau, y0, N, with_dcl):
    s, p = similarity_rows(_WORK["model"], start, stop)
    out = _row_tables(s, p, tau, y0, N, with_dcl)
    out["p"] = p
    return start, stop, out


def anchor_tables(model: EmpiricalPairs, tau, chunk_rows: int | None = None, with_dcl: bool = True,
                  workers: int | None = None) -> AnchorTables:
    """L_i(c) on the grid for every anchor, plus the per-anchor moments, at temperature tau.

    ``with_dcl=False`` stops each anchor's table where the InfoNCE integrand is negligible
    (c W >= 60), which is much sooner than the DCL one needs; ``workers`` > 1 forks that many
    processes over chunks of anchors (default: 2 when n m > 4e7, else 1)."""
    import time
    tau = check_tau_range(tau)
    t0 = time.perf_counter()
    y0, N = grid_size(tau, model.pool_size)
    n = model.n
    chunk = chunk_rows or _chunk_rows(model)
    if workers is None:
        workers = min(2, os.cpu_count() or 1) if n * model.pool.shape[0] > 4e7 else 1
    L, log_phi, log_phi_up = (np.empty((n, N)) for _ in range(3))
    out = {key: np.empty(n) for key in ("log_w", "log_mu", "gap1", "dcl_gap1", "mean_log_x", "p")}
    mom = {key: np.empty(n) for key in MOMENT_KEYS}
    jobs = [(a, min(n, a + chunk), tau, y0, N, with_dcl) for a in range(0, n, chunk)]

    def store(start, stop, t):
        L[start:stop], log_phi[start:stop], log_phi_up[start:stop] = t["L"], t["log_phi"], t["log_phi_up"]
        for key in out:
            out[key][start:stop] = t[key]
        for key in mom:
            mom[key][start:stop] = t["moments"][key]

    _WORK["model"] = model
    try:
        if workers > 1 and len(jobs) > 1:
            import gc
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor
            # forked workers share the parent's pages; without freezing, the children's garbage
            # collector touches every object of the parent's heap (SymPy's, say) and copies it
            gc.collect()
            gc.freeze()
            try:
                with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
                    for start, stop, t in pool.map(_table_job, *zip(*jobs)):
                        store(start, stop, t)
            finally:
                gc.unfreeze()
        else:
            for job in jobs:
                store(*_table_job(*job))
    finally:
        _WORK.clear()
    return AnchorTables(tau=tau, y0=y0, log_c=y0 + STEP * np.arange(N), L=L, log_phi=log_phi,
                        log_phi_up=log_phi_up,
                        log_w=out["log_w"], log_mu=out["log_mu"], positive_similarity=out["p"], moments=mom,
                        gap1=out["gap1"], dcl_gap1=out["dcl_gap1"], mean_log_x=out["mean_log_x"],
                        pool_size=model.pool_size, seconds=time.perf_counter() - t0,
                        extras={"with_dcl": with_dcl, "workers": workers})


def check_tau_range(tau) -> float:
    tau = check_tau(tau)
    lo, hi = TAU_RANGE
    if not lo <= tau <= hi:
        raise InputError("tau", f"must lie in [{lo:g}, {hi:g}] for the empirical model, got {tau:g}")
    return tau


# ------------------------------------------------------------------ the gaps at given k
@dataclass
class GapValues:
    """∫CE - R and ∫CE - R~ (averaged over anchors) at each k, with error bounds."""
    k: list
    gap: np.ndarray
    dcl_gap: np.ndarray
    error: np.ndarray
    dcl_error: np.ndarray
    cross_entropy_limit: float

    @property
    def risk(self) -> np.ndarray:
        return self.cross_entropy_limit - self.gap

    @property
    def dcl_risk(self) -> np.ndarray:
        return self.cross_entropy_limit - self.dcl_gap


NODE_BLOCK = 64


def _anchor_gaps(tab: AnchorTables, k: int, rows: slice, names=("gap", "dcl")):
    """Per-anchor gap integrals at one k >= 2 (trapezoid in y = log t) and their error bounds:
    |T_h - T_2h| + rounding (L_err) + the neglected far atoms (L_up) + the two ends.

    Each anchor's value depends on its own table row only (its first node m0_i from its own W_i,
    node blocks aligned to absolute node numbers, its own stop), so the values do not depend on
    which other anchors share the call: any row blocking gives the same numbers, bit for bit."""
    h = STEP
    N = tab.log_c.size
    log_w = tab.log_w[rows]
    B = log_w.size
    m0 = np.ceil((LOG_T_LOW - np.maximum(0.0, log_w) - math.log(k) - tab.y0) / h).astype(np.int64)
    m0 = np.maximum(0, m0)
    m0 -= m0 % 2                                         # the 2h rule uses the even nodes
    w = np.exp(log_w)[:, None]
    fine = {nm: np.zeros(B) for nm in names}
    coarse = {nm: np.zeros(B) for nm in names}
    err = {nm: np.zeros(B) for nm in names}
    live = np.ones(B, dtype=bool)                        # anchors whose integrand is not yet negligible
    m = int(m0.min()) // NODE_BLOCK * NODE_BLOCK if B else N
    while m < N:
        sl = slice(m, min(N, m + NODE_BLOCK))
        nodes = np.arange(sl.start, sl.stop)
        use = live[:, None] & (nodes[None, :] >= m0[:, None])
        c = np.exp(tab.log_c[sl])[None, :]
        t = k * c
        e_t = np.exp(-t)
        L = tab.L[rows, sl]
        lphi = tab.log_phi[rows, sl]
        region2 = ~np.isnan(lphi)
        kphi = k * lphi
        kphi_up = k * tab.log_phi_up[rows, sl]
        even = (nodes % 2 == 0)[None, :]
        alive = np.full(B, bool(t[0, 0] < 100))
        with np.errstate(over="ignore", invalid="ignore"):
            kL = k * L
            # rounding allowance of the exponent: region (i) relative to L (the centred series),
            # region (ii) absolute in log phi (relative in phi)
            err_exp = np.where(region2, k * ROUNDING, ROUNDING * np.abs(kL))
            small_t = t < 1
            for nm in names:
                shift = c * w if nm == "gap" else np.zeros_like(c)
                A = kL - shift                                  # k log E e^{-c(x-1)} [- c W]
                # E e^{-tS} = e^{A - t}; in region (ii) from k log phi (no c - c cancellation)
                lea = np.where(region2, kphi - shift, A - t)
                ea = np.exp(lea)
                use_expm1 = (A < 0.5) & (~region2 | small_t)
                f = np.where(use_expm1, e_t * np.expm1(A), ea - e_t)
                f[np.isnan(f) | ~use] = 0.0
                fine[nm] += h * f.sum(axis=1)
                coarse[nm] += 2 * h * np.where(even, f, 0.0).sum(axis=1)
                trunc = np.where(region2, np.exp(kphi_up - shift) - ea, 0.0)
                bound = ea * (err_exp + 4 * EPS * (np.abs(lea) + shift)) + trunc + 4 * EPS * np.abs(f)
                bound[~np.isfinite(bound) | ~use] = 0.0
                err[nm] += h * bound.sum(axis=1)
                alive |= np.any(use & (ea > 1e-40), axis=1)
        live &= alive | (m0 >= sl.stop)                  # an anchor not yet started stays live
        m = sl.stop
        if not live.any():
            break
    t_low = np.exp(tab.y0 + h * m0) * k
    tail = t_low * (1 + w[:, 0]) + math.exp(-LIMIT_LOG)
    return {nm: (fine[nm], np.abs(fine[nm] - coarse[nm]) + err[nm] + tail) for nm in names}


def exact_partials(values, partials=None) -> list:
    """A short list of floats whose exact sum is the exact sum of ``values`` (and of ``partials``):
    s_1 = fsum(values), s_2 = fsum(values, -s_1), ... until the remainder is exactly 0 (a nonzero sum of
    doubles is at least 2^-1074, so fsum, correctly rounded, returns 0 only for an exact 0).  ``math.fsum``
    of the partials of several blocks is the correctly rounded total, whatever the blocking."""
    vals = np.asarray(values, dtype=float).ravel().tolist() + list(partials or [])
    out = []
    while True:
        rest = math.fsum(vals + [-x for x in out])
        if rest == 0.0:
            return out
        out.append(rest)


def anchor_gap_sums(tab: AnchorTables, k: int, with_dcl: bool = True, rows_per_block: int = 2048) -> dict:
    """Exact partials (:func:`exact_partials`) of the per-anchor gaps and error bounds at one k >= 2
    over all anchors of ``tab``: keys gap, gap_error (and dcl, dcl_error)."""
    names = ("gap", "dcl") if with_dcl else ("gap",)
    out = {}
    for start in range(0, tab.L.shape[0], rows_per_block):
        res = _anchor_gaps(tab, k, slice(start, min(tab.L.shape[0], start + rows_per_block)), names)
        for nm in names:
            out[nm] = exact_partials(res[nm][0], out.get(nm))
            out[nm + "_error"] = exact_partials(res[nm][1], out.get(nm + "_error"))
    return out


def gaps_at(tab: AnchorTables, ks, with_dcl: bool = True, rows_per_block: int = 2048) -> GapValues:
    """The gaps at each k of ``ks`` (k = 1 directly, k >= 2 by the transform route)."""
    ks = [check_k(k) for k in ks]
    if with_dcl and not tab.extras.get("with_dcl", True):
        raise ValueError("these tables were built with with_dcl=False (InfoNCE only)")
    for k in ks:
        if k > K_MAX:
            raise InputError("k", f"must be <= {K_MAX:.0e} for the empirical model, got {k}")
    n = tab.L.shape[0]
    gap, dcl, err, derr = (np.zeros(len(ks)) for _ in range(4))
    for a, k in enumerate(ks):
        if k == 1:
            gap[a] = math.fsum(tab.gap1) / n
            dcl[a] = math.fsum(tab.dcl_gap1) / n
            err[a] = derr[a] = 64 * EPS * float(np.mean(np.abs(tab.gap1) + np.abs(tab.log_w) + 1))
            continue
        sums = anchor_gap_sums(tab, k, with_dcl, rows_per_block)
        gap[a], err[a] = math.fsum(sums["gap"]) / n, math.fsum(sums["gap_error"]) / n
        dcl[a], derr[a] = ((math.fsum(sums["dcl"]) / n, math.fsum(sums["dcl_error"]) / n) if with_dcl
                           else (np.nan, np.nan))
    return GapValues(k=ks, gap=gap, dcl_gap=dcl, error=err, dcl_error=derr,
                     cross_entropy_limit=tab.cross_entropy_limit)


def k_for_gap(tab: AnchorTables, thresholds=(0.1, 0.01, 0.001), loss: str = "infonce", max_power: int = 39):
    """For each threshold: the least k with |gap(k)| <= threshold beyond the last sampled k at which |gap| still
    exceeds it (see :func:`k_for_gap_search`); None when |gap(2^max_power)| still exceeds it."""
    name = "gap" if loss == "infonce" else "dcl_gap"

    def evaluate(ks):
        return getattr(gaps_at(tab, ks, with_dcl=(loss == "dcl")), name)
    return k_for_gap_search(evaluate, thresholds, max_power)


def k_for_gap_candidates(lo, hi, glo, ghi, thr) -> list:
    """Points of (lo, hi) to evaluate next: the regula falsi estimate in log|gap| against log k (the
    gap is close to c1/k), its neighbours and the midpoint, evaluated in one pass over the anchors."""
    if glo > 0 and ghi > 0 and glo > ghi:
        a, b = math.log(lo), math.log(hi)
        frac = (math.log(glo) - math.log(thr)) / (math.log(glo) - math.log(ghi))
        est = int(round(math.exp(a + min(max(frac, 0.0), 1.0) * (b - a))))
    else:
        est = (lo + hi) // 2
    est = min(max(est, lo + 1), hi - 1)
    pts = {est - 1, est, est + 1, (lo + hi) // 2}      # the midpoint: the bracket at least halves
    return sorted(x for x in pts if lo < x < hi)


PEAK_POINTS = 9          # points per pass of the search for a peak of |gap| between doublings


def _peaks_between_doublings(evaluate, samples, powers, signed, floor):
    """Adds to ``samples`` (k -> gap) the peak of |gap| near each doubling where the gap changes sign or |gap| rises:
    there |gap| may exceed a threshold between two doublings at which it is below (an embeddings probe, Dec 2026: at
    n = 3, tau = 0.5 the gap fell from 0.021 at k = 4 through 0 near k = 6 to -0.0105 at k = 12, and |gap(8)|, |gap(16)|
    < 0.01 hid it).  The peak is searched on [2^j, 2^(j+2)] by passes of PEAK_POINTS points, each keeping the
    neighbours of the largest |gap|, then every k of the last few; ``floor``: excursions whose sampled |gap| all lie
    below it are not searched."""
    last = len(powers) - 1
    for j in range(last):
        a, b = signed[j], signed[j + 1]
        c = signed[min(j + 2, last)]
        if not (a * b < 0 or abs(b) > abs(a)) or max(abs(a), abs(b), abs(c)) < floor:
            continue
        lo, hi = powers[j], powers[min(j + 2, last)]
        while True:
            pts = sorted({int(round(v)) for v in np.linspace(lo, hi, PEAK_POINTS)} if hi - lo > PEAK_POINTS
                         else range(lo, hi + 1))
            new = [k for k in pts if k not in samples]
            if new:
                samples.update(zip(new, np.asarray(evaluate(new), dtype=float).tolist()))
            if hi - lo <= PEAK_POINTS:
                break
            i = max(range(len(pts)), key=lambda m: abs(samples[pts[m]]))
            lo, hi = pts[max(i - 1, 0)], pts[min(i + 1, len(pts) - 1)]


def k_for_gap_search(evaluate, thresholds=(0.1, 0.01, 0.001), max_power: int = 39, scan=None):
    """The k-for-gap search with ``evaluate(list of k) -> gap at each`` (signed, or |gap|; one pass over the anchors
    per call, so that a streaming run can evaluate many k at once). ``scan``: the gap at k = 2^0..2^max_power if
    already known.  The sampled points are the doublings and, where the gap changes sign or |gap| rises between two,
    the peak of |gap| near them (:func:`_peaks_between_doublings`); the bracket (lo, hi), |gap(lo)| > thr >= |gap(hi)|,
    starts at the last sampled point above thr and the next one; each pass evaluates :func:`k_for_gap_candidates` and
    keeps the last sampled point above thr and the next one, until hi = lo + 1.  A search, not a bound: |gap| may still
    exceed thr at a k between sampled points if it has more excursions there than the samples show."""
    powers = [2 ** j for j in range(max_power + 1)]
    signed = np.asarray(evaluate(powers) if scan is None else scan, dtype=float)
    samples = dict(zip(powers, signed.tolist()))
    _peaks_between_doublings(evaluate, samples, powers, signed, min(thresholds) / 4)
    ks_sampled = sorted(samples)
    absolute = np.abs([samples[k] for k in ks_sampled])
    out, brackets = {}, {}
    for thr in thresholds:
        above = np.flatnonzero(absolute > thr)
        if above.size == 0:
            out[thr] = 1
        elif ks_sampled[above[-1]] == powers[-1]:
            out[thr] = None
        else:
            j = int(above[-1])
            brackets[thr] = (ks_sampled[j], ks_sampled[j + 1], float(absolute[j]), float(absolute[j + 1]))
    while brackets:
        cand = {thr: k_for_gap_candidates(*br, thr) for thr, br in brackets.items() if br[1] - br[0] > 1}
        for thr in [t for t in brackets if t not in cand]:
            out[thr] = brackets.pop(thr)[1]
        if not cand:
            break
        ks = sorted(set().union(*cand.values()))
        vals = dict(zip(ks, np.abs(np.asarray(evaluate(ks), dtype=float)).tolist()))
        for thr, pts in cand.items():
            lo, hi, glo, ghi = brackets[thr]
            seq = [(lo, glo)] + [(x, vals[x]) for x in pts] + [(hi, ghi)]
            i = max(i for i, (_, g) in enumerate(seq) if i == 0 or g > thr)
            (lo, glo), (hi, ghi) = seq[i], seq[i + 1]
            brackets[thr] = (lo, hi, glo, ghi)
    return {thr: out[thr] for thr in thresholds}


# ------------------------------------------------------------------ independent routes
def _anchor_pool(model: EmpiricalPairs, i: int) -> np.ndarray:
    if model.exclude_own:
        return np.delete(model.pool, i, axis=0)
    return model.pool


def brute_force_risk(model: EmpiricalPairs, tau, k: int, loss: str = "infonce") -> float:
    """R(k) by enumerating all m^k ordered negative tuples of every anchor (tiny n only)."""
    import itertools
    tau = check_tau(tau)
    k = check_k(k)
    total = 0.0
    for i in range(model.n):
        q = _anchor_pool(model, i)
        s_all = q @ model.anchors[i]
        p = float(model.anchors[i] @ model.positives[i])
        idx = np.array(list(itertools.product(range(q.shape[0]), repeat=k)), dtype=np.int64)
        vals = loss_from_similarities(np.full(idx.shape[0], p), s_all[idx], tau, loss)
        total += math.fsum(vals) / idx.shape[0]
    return total / model.n


MC_BLOCK = 256                    # tuples per work unit (one SeedSequence child each)


def mc_draw(n: int, pool_size: int, exclude_own: bool, k: int, samples: int, seed: int, b: int):
    """Block b of MC_BLOCK tuples (the last one shorter): anchor indices and the k pool rows of each,
    from SeedSequence(seed, spawn_key=(k, b)) -- a work unit draws its own block."""
    size = min(MC_BLOCK, samples - b * MC_BLOCK)
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(k, b))))
    anchors = rng.integers(0, n, size=size)
    neg = rng.integers(0, pool_size, size=(size, k))
    if exclude_own:                                  # index j >= i means pool row j + 1
        neg = neg + (neg >= anchors[:, None])
    return anchors, neg


def mc_block_count(samples: int) -> int:
    return -(-samples // MC_BLOCK)


def mc_blocks(model: EmpiricalPairs, k: int, samples: int, seed: int):
    """Yield (anchor index, negative pool-row matrix) per block of MC_BLOCK tuples; block b at k
    uses SeedSequence(seed, spawn_key=(k, b)), so the draws do not depend on how blocks are grouped
    and different k use independent streams."""
    for b in range(mc_block_count(samples)):
        yield mc_draw(model.n, model.pool_size, model.exclude_own, k, samples, seed, b)


def tuple_similarities_rows(anchors, positives, pool, idx, neg):
    """As :func:`_tuple_similarities`, from the raw (unnormalised, memory-mapped) matrices: only the
    rows a block of tuples uses are read and normalised (each row as :func:`unit_rows` does)."""
    uniq, order = np.unique(idx, return_inverse=True)
    a = unit_rows(anchors[uniq], 0, uniq.size)[order]
    p = np.einsum("bd,bd->b", a, unit_rows(positives[uniq], 0, uniq.size)[order])
    m = pool.shape[0]
    if 4 * neg.shape[1] < m:                          # few negatives: gather them
        rows, inv = np.unique(neg, return_inverse=True)
        q = unit_rows(pool[rows], 0, rows.size)
        inv = inv.reshape(neg.shape)
        s = np.stack([q[inv[r]] @ a[r] for r in range(a.shape[0])])
    else:                                            # (block, m), pool chunk by chunk
        s = np.empty((a.shape[0], m))
        for j in range(0, m, POOL_CHUNK):
            q = unit_rows(pool, j, min(m, j + POOL_CHUNK))
            s[:, j:j + q.shape[0]] = a @ q.T
        s = np.take_along_axis(s, neg, axis=1)
    return np.clip(s, -1.0, 1.0), np.clip(p, -1.0, 1.0)


def mc_losses(anchors, positives, pool, exclude_own: bool, tau, k: int, samples: int, seed: int, b: int,
              loss: str = "infonce"):
    """One Monte Carlo work unit: the anchor indices and the losses of block b's tuples."""
    idx, neg = mc_draw(anchors.shape[0], pool.shape[0] - (1 if exclude_own else 0), exclude_own, k, samples, seed, b)
    s, p = tuple_similarities_rows(anchors, positives, pool, idx, neg)
    return idx, loss_from_similarities(p, s, tau, loss)


def mc_summary(values) -> dict:
    """Estimate, standard error, 95% interval of the mean of ``values``."""
    return _summary(np.asarray(values, dtype=float))


def _tuple_similarities(model: EmpiricalPairs, anchors, neg):
    """s[b, j] = <a_{anchors[b]}, q_{neg[b, j]}> and p[b] = <a, p> for one block of tuples."""
    a = model.anchors[anchors]
    if 4 * neg.shape[1] < model.pool.shape[0]:       # few negatives: gather them
        s = np.einsum("bd,bkd->bk", a, model.pool[neg]) if neg.shape[1] * model.dim <= 65536 else \
            np.stack([model.pool[neg[r]] @ a[r] for r in range(a.shape[0])])
    else:                                            # (block, m): one matmul per block
        s = np.take_along_axis(a @ model.pool.T, neg, axis=1)
    p = np.einsum("bd,bd->b", a, model.positives[anchors])
    return np.clip(s, -1.0, 1.0), np.clip(p, -1.0, 1.0)


def _summary(values: np.ndarray) -> dict:
    return sampled_result(int(values.size), *block_moments(values))


def monte_carlo_gap(model: EmpiricalPairs, tau, k: int, samples: int = 4096, seed: int = 0,
                    loss: str = "infonce") -> dict:
    """Monte Carlo over sampled tuples (anchor uniform, k negatives i.i.d. from the pool) of
    R(k) and of ∫CE - R(k), the latter as the mean of the paired difference CE_i - loss(tuple)
    (CE_i = -<a_i,p_i>/tau + log mu_i, the anchor's term of ∫CE, in log-sum-exp)."""
    tau = check_tau(tau)
    k = check_k(k)
    samples = check_k(samples, "samples")
    ce_terms = np.empty(model.n)
    for start, stop, s, p in similarity_chunks(model, _chunk_rows(model)):
        z = s / tau
        zmax = z.max(axis=1)
        ce_terms[start:stop] = -p / tau + zmax + np.log(np.mean(np.exp(z - zmax[:, None]), axis=1))
    losses, diffs = [], []
    for anchors, neg in mc_blocks(model, k, samples, seed):
        s, p = _tuple_similarities(model, anchors, neg)
        val = loss_from_similarities(p, s, tau, loss)
        losses.append(val)
        diffs.append(ce_terms[anchors] - val)
    return {"risk": _summary(np.concatenate(losses)), "gap": _summary(np.concatenate(diffs)), "k": k,
            "seed": seed}


def _version_distances(model: EmpiricalPairs, other: EmpiricalPairs):
    """||a_i - a_i'||, ||p_i - p_i'|| and ||q_j - q_j'|| of a second version of the same items (same shapes)."""
    if other.anchors.shape != model.anchors.shape or other.pool.shape != model.pool.shape:
        raise InputError("compare", f"the second version must have the shapes of the first: anchors "
                         f"{model.anchors.shape}, pool {model.pool.shape}; got {other.anchors.shape}, {other.pool.shape}")
    return tuple(np.linalg.norm(x - y, axis=1) for x, y in ((model.anchors, other.anchors),
                                                             (model.positives, other.positives), (model.pool, other.pool)))


def continuity_sample(model: EmpiricalPairs, other: EmpiricalPairs, tau, k: int, samples: int = 2048,
                      seed: int = 0, loss: str = "infonce") -> dict:
    """Prop. 4 inputs over sampled tuples: |l(phi) - l(phi')| and Da, Dp, PM (beta = 1 v 2/tau).

    ``other`` embeds the same items (same n, same pool rule); Da = ||a_i - a_i'||,
    Dp = ||p_i - p_i'||, PM = (k^-1 sum_j ||q_J_j - q_J_j'||^beta)^(1/beta)."""
    tau = check_tau(tau)
    k = check_k(k)
    beta = max(1.0, 2.0 / tau)
    da_all, dp_all, dq_all = _version_distances(model, other)
    change, Da, Dp, PM = [], [], [], []
    for anchors, neg in mc_blocks(model, k, samples, seed):
        vals = []
        for mod in (model, other):
            s, p = _tuple_similarities(mod, anchors, neg)
            vals.append(loss_from_similarities(p, s, tau, loss))
        change.append(np.abs(vals[0] - vals[1]))
        Da.append(da_all[anchors])
        Dp.append(dp_all[anchors])
        dq = dq_all[neg]
        top = dq.max(axis=1)
        safe = np.where(top > 0, top, 1.0)
        PM.append(np.where(top > 0, safe * np.mean((dq / safe[:, None]) ** beta, axis=1) ** (1 / beta), 0.0))
    return {"change": np.concatenate(change), "Da": np.concatenate(Da), "Dp": np.concatenate(Dp),
            "PM": np.concatenate(PM), "beta": beta, "k": k, "tau": tau, "seed": seed}


# continuity_every_k1_tuple takes every tuple up to this many (n x pool): 4 arrays of that many doubles, in row blocks
EVERY_K1_TUPLE_MAX = 2 ** 22


def continuity_every_k1_tuple(model: EmpiricalPairs, other: EmpiricalPairs, tau, loss: str = "infonce",
                              rows_per_block: int = 512) -> dict:
    """``continuity_sample``'s figures at k = 1 over every tuple (anchor i, row j of its pool), not a sample: each
    anchor block's similarities under both versions by one matrix product each; PM = ||q_j - q_j'|| (one negative)."""
    tau = check_tau(tau)
    da_all, dp_all, dq_all = _version_distances(model, other)
    change, Da, Dp, PM = [], [], [], []
    for start in range(0, model.n, rows_per_block):
        stop = min(model.n, start + rows_per_block)
        vals = []
        for mod in (model, other):
            s, p = similarity_rows(mod, start, stop)
            s, p = np.clip(s, -1.0, 1.0), np.clip(p, -1.0, 1.0)
            vals.append(loss_from_similarities(np.repeat(p, s.shape[1]), s.reshape(-1, 1), tau, loss))
        change.append(np.abs(vals[0] - vals[1]))
        width = s.shape[1]
        Da.append(np.repeat(da_all[start:stop], width))
        Dp.append(np.repeat(dp_all[start:stop], width))
        dq = np.broadcast_to(dq_all, (stop - start, dq_all.size))
        PM.append((_own_column_removed(dq, start, stop) if model.exclude_own else dq).ravel())
    return {"change": np.concatenate(change), "Da": np.concatenate(Da), "Dp": np.concatenate(Dp),
            "PM": np.concatenate(PM), "beta": max(1.0, 2.0 / tau), "k": 1, "tau": tau, "every_tuple": True}


class LawModel:
    """The empirical model as anchor laws for the arb route of :mod:`quantities.exact` (small n):
    anchor i has weight 1/n, negative similarities <a_i, q_j> (weights 1/m) and the single
    positive similarity <a_i, p_i>; the similarities are the cosines of the rows as given (float64
    values, exactly), <x, y>/(|x| |y|) at the working precision, not the inner products of their
    float64 unit rows, which differ from them by about 1e-16 (without ``given``: those)."""

    domination_reason = "the empirical model has no density ratio dM/dpi (the positive is a fixed row)"

    def __init__(self, model: EmpiricalPairs):
        self.model = model
        self.label = f"empirical(n={model.n}, d={model.dim})"

    def anchor_laws(self, ctx, tau=None, refinement: int = 1):
        from ..models import AnchorLaw
        mod = self.model
        laws = []
        weight = ctx.mpf(1) / mod.n
        anchors, positives, pool = mod.given if mod.given is not None else (mod.anchors, mod.positives, mod.pool)

        def unit(row):            # the row's entries over its norm, at ctx's precision
            row = [ctx.mpf(float(v)) for v in row]
            norm = ctx.sqrt(ctx.fsum(v * v for v in row))
            return [v / norm for v in row]
        pool_units = [unit(row) for row in pool]
        for i in range(mod.n):
            a = unit(anchors[i])
            q = [u for j, u in enumerate(pool_units) if not (mod.exclude_own and j == i)]
            sims = tuple(ctx.fsum(x * y for x, y in zip(a, row)) for row in q)
            u = ctx.mpf(1) / len(sims)
            pos = ctx.fsum(x * y for x, y in zip(a, unit(positives[i])))
            laws.append(AnchorLaw(weight, sims, tuple([u] * len(sims)), None, (pos,), (ctx.mpf(1),)))
        return laws
