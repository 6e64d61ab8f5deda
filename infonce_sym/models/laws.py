"""Models: what the data are.

Every model reduces, for each anchor class, to the law of the similarities the
loss sees (MATH.md, "Models with closed forms"):

* the negative similarity ``s = <phi(z), phi(xi)>`` with ``xi ~ pi`` and the
  density ratio ``w = dM(z, .)/dpi(xi)`` at the same point, as weighted atoms;
* the positive similarity ``p = <phi(z), phi(z+)>`` with ``z+ ~ M(z, .)``.

For a finite model the atoms are exact.  For the sphere they are the nodes of a
composite Gauss-Legendre rule for ``s = cos(theta)``; the rule is refined until
raising it does not change the digits asked for (see ``exact.py``).
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from decimal import Decimal, localcontext
from fractions import Fraction
from pathlib import Path

import flint
import mpmath
import numpy as np

from .quadrature import arb_to_mpf, sphere_rule, sphere_rule_arb
from ..errors import InputError, check_dim, check_kappa, check_tau, read_real, shown

__all__ = [
    "AnchorLaw", "SphereModel", "FiniteModel", "example_a2", "load_finite_model",
    "default_models", "nonreversible_model",
]


@dataclass(frozen=True)
class AnchorLaw:
    """Similarity laws seen from one anchor class (weights are probabilities).

    ``negative_ratio`` is ``None`` where dM(z,.)/dpi is undefined (assumption (B) fails).
    """
    weight: object
    negative_similarity: tuple
    negative_weight: tuple
    negative_ratio: tuple | None
    positive_similarity: tuple
    positive_weight: tuple


# ---------------------------------------------------------------- sphere model

def log_partition(ctx, dim: int, b):
    """log Z_d(b), Z_d(b) = E_pi exp(b <x, z>) = Gamma(d/2) (2/b)^nu I_nu(b), nu = d/2 - 1, as a number
    of the mpmath context ``ctx`` (``mp`` or ``fp``): :func:`log_partition_arb` at ctx's precision plus
    32 bits, its midpoint rounded to ctx (mpmath's own Bessel series stops converging at large order
    and argument: d = 4096, b = 2 10^4 raised NoConvergence).  Z_d is even in b."""
    b = ctx.mpf(b)
    if b == 0:
        return ctx.mpf(0)
    return _arb_in_ctx(ctx, lambda: log_partition_arb(dim, abs(mpf_to_arb(ctx, b))))


def _arb_in_ctx(ctx, compute):
    """``compute()`` (an arb) at ctx's precision plus 32 bits, its midpoint as a number of ctx."""
    saved = flint.ctx.prec
    flint.ctx.prec = int(ctx.prec) + 32
    try:
        value = compute()
    finally:
        flint.ctx.prec = saved
    if not value.is_finite():
        raise ArithmeticError(f"a Bessel-function closed form is not finite ({value})")
    return arb_mid_in_ctx(ctx, value)


def arb_mid_in_ctx(ctx, value):
    """The midpoint of the arb ``value`` as a number of the mpmath context ``ctx`` (rounded to ctx)."""
    man, exp = value.mid().man_exp()
    return ctx.ldexp(ctx.mpf(int(man)), int(exp))


def _scaled_bessel_i(nu, b):
    """(e^-b I_nu(b) at b's midpoint, b's radius), to the current precision.  FLINT's Bessel function can
    come back far less accurate than the precision it ran at (I_373(1025.16) e^-1025.16 at 466 bits:
    relative radius 2.2e-81, i.e. 60 digits lost, the midpoint off by as much; the loss grows with the
    precision), so it is rerun with the bits lost added until its ball is within 2^-(prec - 8) relative;
    at a ball argument the loss is larger still, so it runs at b's midpoint (exact) and the callers
    propagate b's radius themselves."""
    arb = flint.arb
    target = flint.ctx.prec
    mid, rad = arb(b.mid()), b.rad()
    extra = 0
    try:
        for _ in range(8):
            flint.ctx.prec = target + extra
            value = mid.bessel_i(nu, scaled=True)
            if value.is_finite() and not value.is_zero():
                relative = value.rad() / abs(value.mid())
                if relative.is_zero() or relative.mid() < arb(2) ** (8 - target):
                    break
                lost = float(relative.log().mid()) / math.log(2) + target + extra
                extra += int(lost) + 32
            else:
                extra += 64
    finally:
        flint.ctx.prec = target
    return +value, rad


def log_partition_arb(dim: int, b):
    """log Z_d(b) in FLINT arb at the current precision, in log domain throughout:
    lgamma(d/2) + nu log(2/b) + log(e^-b I_nu(b)) + b, with the exponentially scaled Bessel
    function, so nothing overflows (b = 2 10^4, d = 4096 are fine).  The Bessel function is taken at
    b's midpoint; b's radius r adds (1 + nu/(b - r)) r to log(e^-b I_nu(b)), whose derivative
    I_{nu+1}/I_nu + nu/b - 1 lies in [nu/b - 1, nu/b]."""
    arb = flint.arb
    b = b if isinstance(b, arb) else arb(b)
    if b.is_zero():
        return arb(0)
    nu = arb(dim) / 2 - 1
    scaled, rad = _scaled_bessel_i(nu, b)
    mid = arb(b.mid())
    log_scaled = scaled.log()
    if not rad.is_zero():
        log_scaled += arb(0, ((1 + nu / (mid - rad)) * rad).upper())
    return (arb(dim) / 2).lgamma() + nu * (2 / b).log() + log_scaled + b


def mean_resultant_arb(dim: int, kappa):
    """E_M <x, y> = I_{d/2}(kappa) / I_{d/2-1}(kappa) (arb, ratio of scaled Bessel functions), at kappa's
    midpoint (``_scaled_bessel_i``); kappa's radius r adds r: the ratio A(kappa) has 0 <= A' <= 1."""
    arb = flint.arb
    kappa = kappa if isinstance(kappa, arb) else arb(kappa)
    if kappa.is_zero():
        return arb(0)
    nu = arb(dim) / 2
    upper, rad = _scaled_bessel_i(nu, kappa)
    lower, _ = _scaled_bessel_i(nu - 1, kappa)
    ratio = upper / lower
    return ratio + arb(0, rad) if not rad.is_zero() else ratio


def sphere_moments_arb(dim: int, kappa, inv_tau) -> dict:
    """Closed forms (arb, current precision) of the per-anchor moments that the 1/k and 1/k^2
    constants read (``proofs.expansions``: X = e^{s/tau}, V = X/mu - 1, W = e^{p/tau}/mu, r = dM/dpi,
    a = r (s - E[r s]), b = r - 1), for the sphere with vMF(kappa) positives.  With
    F(b) = Z_d(b) = E_pi e^{b s}, A = F'/F (``mean_resultant_arb``: F'(b) = E_pi s e^{b s}),
    R_j = E r^j = F(j kappa)/F(kappa)^j and E[r^j s] = A(j kappa) R_j:

        m2 = F(2/tau)/F(1/tau)^2 - 1,   m3 = F(3/tau)/F(1/tau)^3 - 3 F(2/tau)/F(1/tau)^2 + 2,
        EW^n = E_M W^n = F(kappa + n/tau) / (F(kappa) F(1/tau)^n),   n = 1, 2,
        E_b2 = R_2 - 1,   E_ab = R_2 (A(2 kappa) - A(kappa)),
        E_ab2 = R_3 (A(3 kappa) - A(kappa)) - 2 R_2 (A(2 kappa) - A(kappa)),

    each written with expm1 and log-domain ratios (``log_partition_arb``), so nothing overflows at
    kappa = 10^4, d = 4096.  The balls bound every rounding; cancellation (m3 at large tau, E_ab2 at
    small kappa) shows as a wide ball, which the caller narrows by raising the precision.

    d = 3 has F(b) = sinh(b)/b, so at tau = 1, kappa = 0: m2 = sinh(2)/(2 sinh(1)^2) - 1,
    0.31303528549933...

    >>> import flint
    >>> sphere_moments_arb(3, flint.arb(0), flint.arb(1))["m2"].mid().str(12, radius=False)
    '0.313035285499'
    """
    arb = flint.arb
    kappa = kappa if isinstance(kappa, arb) else arb(kappa)
    inv_tau = inv_tau if isinstance(inv_tau, arb) else arb(inv_tau)

    def log_f(b):
        return log_partition_arb(dim, b)

    def mean(b):
        return mean_resultant_arb(dim, b)

    l1 = log_f(inv_tau)
    lk = log_f(kappa)
    e2 = (log_f(2 * inv_tau) - 2 * l1).expm1()
    e3 = (log_f(3 * inv_tau) - 3 * l1).expm1()
    r2m1 = (log_f(2 * kappa) - 2 * lk).expm1()
    r2, r3 = 1 + r2m1, (log_f(3 * kappa) - 3 * lk).exp()
    a1, a2, a3 = mean(kappa), mean(2 * kappa), mean(3 * kappa)
    return {
        "m2": e2,
        "m3": e3 - 3 * e2,
        "EW": (log_f(kappa + inv_tau) - lk - l1).exp(),
        "EW2": (log_f(kappa + 2 * inv_tau) - lk - 2 * l1).exp(),
        "E_b2": r2m1,
        "E_ab": r2 * (a2 - a1),
        "E_ab2": r3 * (a3 - a1) - 2 * r2 * (a2 - a1),
    }


@dataclass(frozen=True)
class SphereModel:
    """Z = S^{d-1}, pi uniform, phi = identity, M(x, .) = von Mises-Fisher(x, kappa).

    >>> m = SphereModel(dim=3, kappa=2.0)
    >>> mpmath.nstr(m.mean_positive_similarity(mpmath.mp), 13)  # coth(2) - 1/2 = 0.53731472072754...
    '0.5373147207275'
    """
    dim: int
    kappa: float
    name: str = "sphere"
    # kappa as the decimal given ("4.1" or Decimal("4.1") stays 41/10; a float is its repr);
    # ``kappa`` itself is its float, for the NumPy samplers
    kappa_decimal: str = field(default="", compare=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "dim", check_dim(self.dim))
        text = decimal_text("kappa", self.kappa)
        object.__setattr__(self, "kappa", check_kappa(float(Decimal(text))))
        object.__setattr__(self, "kappa_decimal", text)

    def kappa_mpf(self, ctx):
        """kappa at ctx's precision, from the decimal given."""
        return ctx.mpf(self.kappa_decimal)

    @property
    def label(self) -> str:
        # the decimal typed, never rounded: Decimal.normalize labelled kappa = 9999.99... (50 digits) 10000 while the
        # values were those of the kappa typed (a probe, Dec 2026)
        return f"sphere(d={self.dim}, kappa={_decimal_label(self.kappa_decimal)})"

    dominated = True
    domination_reason = "vMF(x, kappa) has density exp(kappa<x,z>)/Z_d(kappa) w.r.t. the uniform law"
    kernel_vanishes_reason = None           # dM/dpi > 0 everywhere

    def log_partition(self, ctx, b):
        return log_partition(ctx, self.dim, b)

    def mean_positive_similarity(self, ctx):
        """E_M <x, y> = I_{d/2}(kappa) / I_{d/2-1}(kappa)."""
        if self.kappa == 0:
            return ctx.mpf(0)
        kappa = mpf_to_arb(ctx, self.kappa_mpf(ctx))
        return _arb_in_ctx(ctx, lambda: mean_resultant_arb(self.dim, kappa))

    def cross_entropy_limit(self, ctx, tau):
        """Closed form of eq. (7) integrated: -E_M<x,y>/tau + log Z_d(1/tau)."""
        tau = ctx.mpf(tau)
        return -self.mean_positive_similarity(ctx) / tau + self.log_partition(ctx, 1 / tau)

    def expansion_moments_arb(self, inv_tau) -> dict:
        """:func:`sphere_moments_arb` at this model's kappa (the decimal given), arb at the current precision."""
        return sphere_moments_arb(self.dim, flint.arb(self.kappa_decimal), inv_tau)

    def density_ratio_second_moment(self, ctx):
        """E|dM(Z,.)/dpi(Z')|^2 = Z_d(2 kappa) / Z_d(kappa)^2."""
        kappa = self.kappa_mpf(ctx)
        return ctx.exp(self.log_partition(ctx, 2 * kappa) - 2 * self.log_partition(ctx, kappa))

    def similarity_density(self, ctx, s):
        """Density of s = <x, z>, z uniform: c_d (1 - s^2)^((d-3)/2) on [-1, 1]."""
        d = ctx.mpf(self.dim)
        c = ctx.gamma(d / 2) / (ctx.sqrt(ctx.pi) * ctx.gamma((d - 1) / 2))
        return c * (1 - s * s) ** ((d - 3) / 2)

    arb_laws = True          # anchor_laws(..., as_arb=True) gives FLINT arb atoms (exact.py)

    def anchor_laws(self, ctx, tau, refinement=1, as_arb: bool = False):
        """One anchor class (rotation invariance); atoms from a composite rule in theta.

        ``as_arb=True`` returns the same law with ``flint.arb`` entries (at the FLINT
        precision in force), skipping the conversions to mpf.
        """
        tau = float(check_tau(tau))
        dps = ctx.dps if hasattr(ctx, "dps") else 15
        if as_arb:
            arb = flint.arb
            s, w = sphere_rule_arb(self.dim, tau, dps, refinement)
            logz = mpf_to_arb(ctx, self.log_partition(ctx, self.kappa_mpf(ctx)))
            kappa = mpf_to_arb(ctx, self.kappa_mpf(ctx))
            ratio = [(kappa * v - logz).exp() for v in s]
            pw = [a * r for a, r in zip(w, ratio)]
            total = sum(pw, arb(0))
            pw = [v / total for v in pw]
            return [AnchorLaw(arb(1), s, w, tuple(ratio), s, tuple(pw))]
        nodes_s, weights = sphere_rule(self.dim, tau, dps, refinement)
        s = [ctx.mpf(v) for v in nodes_s]
        w = [ctx.mpf(v) for v in weights]
        kappa = self.kappa_mpf(ctx)
        logz = self.log_partition(ctx, kappa)
        ratio = [ctx.exp(kappa * v - logz) for v in s]
        # positive similarity law: density ratio times the negative law (renormalised
        # on the rule so that it is an exact probability vector on the atoms)
        pw = [a * r for a, r in zip(w, ratio)]
        total = ctx.fsum(pw)
        pw = [v / total for v in pw]
        return [AnchorLaw(ctx.mpf(1), tuple(s), tuple(w), tuple(ratio), tuple(s), tuple(pw))]

    # ------------------------------------------------------------ sampling
    def sample_negative_similarity(self, rng: np.random.Generator, size):
        """s = <x, z>, z uniform on S^{d-1}: s = 2B - 1, B ~ Beta((d-1)/2, (d-1)/2)."""
        a = (self.dim - 1) / 2
        return 2.0 * rng.beta(a, a, size=size) - 1.0

    def sample_positive_similarity(self, rng: np.random.Generator, size):
        """t = <x, y>, y ~ vMF(x, kappa): Wood's (1994) rejection sampler for the w-component."""
        return _wood_sample(rng, self.dim, self.kappa, size)

    def log_density_ratio(self, s):
        """log dM(x,.)/dpi(z) as a function of s = <x, z> (NumPy)."""
        logz = float(self.log_partition(mpmath.mp, self.kappa))
        return self.kappa * np.asarray(s) - logz


def decimal_text(name, x) -> str:
    """The decimal a number was given as: str/Decimal as written (checked), int exactly, float by repr."""
    if isinstance(x, (str, Decimal)):
        return str(read_real(name, x))
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return str(int(x))
    if isinstance(x, (float, np.floating)):
        return repr(float(x))
    raise InputError(name, f"must be a real number, got {x!r}")


def scaled_rows(rows):
    """(the rows of the float64 matrix ``rows``, each times 2^-e, and e): each row scaled exactly, by a
    power of two, to a largest |entry| in [1/2, 1) (a zero row stays 0, e = 0).  The squares of the
    scaled rows neither overflow (entries of 1e300) nor underflow (subnormal entries), and every
    operation on them scales exactly, so a norm or a unit row comes out with the same bits as from the
    unscaled row wherever that one is finite."""
    _, e = np.frexp(np.max(np.abs(rows), axis=1))
    return np.ldexp(rows, -e[:, None]), e


def row_norms(rows):
    """The Euclidean norm of each row of ``rows`` (float64), from :func:`scaled_rows`: 1.41e300 for a row
    (1e300, 1e300), not inf; inf (without a warning) only where the norm itself is above the largest
    float64, as for a row of several entries 1e308 (its unit row, from :func:`scaled_rows`, is finite)."""
    scaled, e = scaled_rows(np.asarray(rows, dtype=np.float64))
    with np.errstate(over="ignore"):
        return np.ldexp(np.sqrt(np.einsum("ij,ij->i", scaled, scaled)), e)


def mpf_to_arb(ctx, x):
    """x (a number of the mpmath context ctx: an mpf, or a float under ``fp``) as an exact arb."""
    x = ctx.mpf(x)
    if not hasattr(x, "_mpf_"):
        return flint.arb(float(x))
    sign, man, exp, _ = x._mpf_
    return flint.arb((int(-man if sign else man), int(exp)))


def _wood_sample(rng, dim, kappa, size):
    size = int(np.prod(size)) if np.ndim(size) else int(size)
    if kappa == 0:
        a = (dim - 1) / 2
        return 2.0 * rng.beta(a, a, size=size) - 1.0
    d1 = dim - 1.0
    b = d1 / (2.0 * kappa + math.sqrt(4.0 * kappa * kappa + d1 * d1))
    x0 = (1.0 - b) / (1.0 + b)
    c = kappa * x0 + d1 * math.log(1.0 - x0 * x0)
    out = np.empty(size)
    filled = 0
    while filled < size:
        m = max(16, int(1.3 * (size - filled)) + 16)
        z = rng.beta(d1 / 2.0, d1 / 2.0, size=m)
        w = (1.0 - (1.0 + b) * z) / (1.0 - (1.0 - b) * z)
        u = rng.random(m)
        ok = kappa * w + d1 * np.log1p(-x0 * w) - c >= np.log(u)
        take = w[ok][: size - filled]
        out[filled:filled + take.size] = take
        filled += take.size
    return out


# ---------------------------------------------------------------- finite model

# why the search cross-entropy is undefined where dM/dpi vanishes on positive pi-mass (every k)
KERNEL_VANISHES = ("the empirical kernel M_hat_k is undefined with positive probability: dM(z,.)/dpi vanishes on "
                   "a set of positive pi-mass, so sum_j dM/dpi(xi_j) = 0 can happen")


@dataclass(frozen=True)
class FiniteModel:
    """Z = {0..N-1}, pi a probability vector, M a stochastic matrix, embedding rows of unit norm."""
    pi: tuple
    M: tuple
    embedding: tuple
    name: str = "finite"
    description: str = ""
    # (pi, M, embedding) as given when not float arrays (Decimal, str, Fraction, int entries), read
    # exactly by ``exact_arrays``; pi, M, embedding themselves are their floats
    exact: tuple = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        if self.exact is None:
            object.__setattr__(self, "exact", tuple(_exact_copy(x) for x in (self.pi, self.M, self.embedding)))
        pi = np.asarray(self.pi, dtype=float)
        M = np.asarray(self.M, dtype=float)
        emb = np.asarray(self.embedding, dtype=float)
        if pi.ndim != 1 or pi.size < 1:
            raise InputError("pi", "must be a non-empty vector")
        if not np.all(np.isfinite(pi)) or np.any(pi < 0):
            raise _bad_entry("pi", pi, self.exact[0], nonnegative=True)
        if abs(pi.sum() - 1) > 1e-12:
            raise InputError("pi", f"must sum to 1 (within 1e-12), sums to {_sum_text(self.exact[0], pi)}")
        _refuse_underflow("pi", self.exact[0], pi)
        n = pi.size
        if M.shape != (n, n):
            raise InputError("M", f"must be {n}x{n} to match pi, got shape {M.shape}")
        if not np.all(np.isfinite(M)) or np.any(M < 0):
            raise _bad_entry("M", M, self.exact[1], nonnegative=True)
        bad = np.flatnonzero(np.abs(M.sum(axis=1) - 1) > 1e-12)
        if bad.size:
            row = None if self.exact[1] is None else self.exact[1][bad[0]]
            raise InputError("M", f"rows must sum to 1 within 1e-12 (stochastic matrix); row {bad[0]} sums to "
                                  f"{_sum_text(row, M[bad[0]])}")
        _refuse_underflow("M", self.exact[1], M)
        if emb.ndim != 2 or emb.shape[0] != n:
            raise InputError("embedding", f"must have {n} rows (one per point of pi), got shape {emb.shape}")
        if emb.shape[1] < 1:
            raise InputError("embedding", "rows must have at least one entry")
        if not np.all(np.isfinite(emb)):
            raise _bad_entry("embedding", emb, self.exact[2], nonnegative=False)
        norms = row_norms(emb)
        bad = np.flatnonzero(np.abs(norms - 1) > 1e-12)
        if bad.size:
            raise InputError("embedding", f"rows must have unit norm to 1e-12; row {bad[0]} has norm {norms[bad[0]]:.17g}")
        object.__setattr__(self, "pi", tuple(map(float, pi)))
        object.__setattr__(self, "M", tuple(tuple(map(float, r)) for r in M))
        object.__setattr__(self, "embedding", tuple(tuple(map(float, r)) for r in emb))

    @property
    def label(self) -> str:
        return self.description or f"finite(N={len(self.pi)})"

    @property
    def size(self) -> int:
        return len(self.pi)

    @property
    def dim(self) -> int:
        return len(self.embedding[0])

    def arrays(self):
        return np.array(self.pi), np.array(self.M), np.array(self.embedding)

    @property
    def dominated(self) -> bool:
        pi, M, _ = self.arrays()
        return not np.any((pi[None, :] == 0) & (M > 0))

    @property
    def domination_reason(self) -> str:
        pi, M, _ = self.arrays()
        bad = np.argwhere((pi[None, :] == 0) & (M > 0))
        if bad.size == 0:
            return "M(z, .) << pi for every z"
        z, zp = bad[0]
        return (f"assumption (B) fails: M({z}, {{{zp}}}) = {M[z, zp]:g} > 0 but pi({zp}) = 0, "
                "so dM(z,.)/dpi is undefined")

    @property
    def kernel_vanishes_reason(self):
        """Why the search cross-entropy is undefined at every k (None when it is not): for an anchor z with
        pi(z) > 0, dM(z,.)/dpi = 0 on a state of positive pi-mass, so that all k negatives can land there and
        sum_j dM/dpi(xi_j) = 0 with positive probability (``quantities.exact`` says the same of its anchor laws)."""
        pi, M, _ = self.arrays()
        bad = np.argwhere((pi[:, None] > 0) & (pi[None, :] > 0) & (M == 0))
        if bad.size == 0:
            return None
        z, zp = bad[0]
        return f"{KERNEL_VANISHES} (M({z}, {{{zp}}}) = 0, pi({zp}) = {pi[zp]:g})"

    def is_reversible(self) -> bool:
        pi, M, _ = self.arrays()
        flow = pi[:, None] * M
        return bool(np.allclose(flow, flow.T, atol=1e-14))

    def is_pi_invariant(self) -> bool:
        pi, M, _ = self.arrays()
        return bool(np.allclose(pi @ M, pi, atol=1e-14))

    def exact_arrays(self, ctx):
        """pi, M and the embedding as the decimals given, renormalised exactly at ctx's precision.

        Input is validated to 1e-12 in double precision; the exact model is the one whose
        probability vectors sum to one and whose embedding rows have norm one exactly.
        """
        def decimal(x):
            if isinstance(x, Fraction):
                return ctx.mpf(x.numerator) / x.denominator
            if isinstance(x, (str, Decimal)):
                return ctx.mpf(str(x))
            if isinstance(x, (int, np.integer)):
                return ctx.mpf(int(x))
            return ctx.mpf(repr(float(x)))
        exact_pi, exact_M, exact_emb = self.exact
        pi = [decimal(x) for x in (exact_pi if exact_pi is not None else self.pi)]
        total = ctx.fsum(pi)
        pi = [x / total for x in pi]
        M = []
        for row in (exact_M if exact_M is not None else self.M):
            row = [decimal(x) for x in row]
            total = ctx.fsum(row)
            M.append([x / total for x in row])
        emb = []
        for row in (exact_emb if exact_emb is not None else self.embedding):
            row = [decimal(x) for x in row]
            norm = ctx.sqrt(ctx.fsum(x * x for x in row))
            emb.append([x / norm for x in row])
        return pi, M, emb

    def arb_arrays(self, prec: int):
        """(pi, M, Gram) in FLINT arb at ``prec`` bits, from the decimals given: pi and the rows
        of M as lists of arb, the Gram matrix <phi(z), phi(z')> as an arb_mat (one product in C).

        Rows that do not sum to one exactly (pi, M) or have no exact unit norm (embedding) are
        renormalised in arb, as in ``exact_arrays``; the exact test runs on the decimals (Python's
        decimal module), so the usual spec, whose rows sum to one as written, is not divided.
        Cached per precision (the model is immutable).
        """
        cache = self.__dict__.setdefault("_arb_arrays", {})
        if prec in cache:
            return cache[prec]
        saved = flint.ctx.prec
        flint.ctx.prec = prec
        try:
            exact_pi, exact_M, exact_emb = self.exact
            pi = _arb_probabilities(exact_pi if exact_pi is not None else self.pi)
            M = [_arb_probabilities(row) for row in (exact_M if exact_M is not None else self.M)]
            rows = []
            for row in (exact_emb if exact_emb is not None else self.embedding):
                values = [arb_decimal(x) for x in row]
                if _exact_sum(row, squares=True) != 1:
                    norm = sum((v * v for v in values), flint.arb(0)).sqrt()
                    values = [v / norm for v in values]
                rows.append(values)
            A = flint.arb_mat(rows)
            out = cache[prec] = (pi, M, A * A.transpose())
            return out
        finally:
            flint.ctx.prec = saved

    def gram(self, ctx):
        """The similarities <phi(z), phi(z')> at the precision of ``ctx``: one arb matrix product
        (FLINT) at 20 guard bits, rounded to ``ctx`` (N^2 d products in C, not in Python)."""
        _, _, emb = self.exact_arrays(ctx)
        saved = flint.ctx.prec
        flint.ctx.prec = ctx.prec + 20
        try:
            A = flint.arb_mat([[flint.arb(x) for x in row] for row in emb])
            G = A * A.transpose()
            n = len(emb)
            return [[ctx.mpf(arb_to_mpf(G[i, l])) for l in range(n)] for i in range(n)]
        finally:
            flint.ctx.prec = saved

    def anchor_laws(self, ctx, tau=None, refinement: int = 1):
        gram = self.gram(ctx)
        pi, M, _ = self.exact_arrays(ctx)
        dominated = self.dominated
        laws = []
        for i, wi in enumerate(pi):
            if wi == 0:
                continue
            ratio = None
            if dominated:
                ratio = tuple((M[i][l] / pi[l]) if pi[l] > 0 else ctx.mpf(0) for l in range(self.size))
            laws.append(AnchorLaw(wi, tuple(gram[i]), tuple(pi), ratio, tuple(gram[i]), tuple(M[i])))
        return laws

    def cross_entropy_limit(self, ctx, tau):
        """Eq. (7) integrated against pi, as a finite sum."""
        tau = ctx.mpf(tau)
        total = ctx.mpf(0)
        for law in self.anchor_laws(ctx):
            mean_p = ctx.fsum(q * p for p, q in zip(law.positive_similarity, law.positive_weight))
            log_mu = ctx.log(ctx.fsum(w * ctx.exp(s / tau) for s, w in zip(law.negative_similarity, law.negative_weight)))
            total += law.weight * (-mean_p / tau + log_mu)
        return total

    def density_ratio_second_moment(self, ctx):
        """E|dM(Z,.)/dpi(Z')|^2 = sum_z pi(z) sum_z' M(z,z')^2 / pi(z')."""
        if not self.dominated:
            raise InputError("model", self.domination_reason)
        pi, M, _ = self.exact_arrays(ctx)
        return ctx.fsum(pi[i] * ctx.fsum(M[i][l] ** 2 / pi[l]
                                         for l in range(self.size) if pi[l] > 0)
                        for i in range(self.size))

    def to_json(self) -> str:
        return json.dumps({"pi": list(self.pi), "M": [list(r) for r in self.M],
                           "embedding": [list(r) for r in self.embedding]})


def _decimal_of(x):
    """An entry as the exact rational it was given as (Decimal or Fraction); floats by their repr."""
    if isinstance(x, (Decimal, Fraction)):
        return x
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return Decimal(int(x))
    if isinstance(x, str):
        return Decimal(x)
    return Decimal(repr(float(x)))


def arb_decimal(x):
    """An entry in arb at the current precision (a ball around the decimal given; a float by its repr)."""
    x = _decimal_of(x)
    if isinstance(x, Fraction):
        return flint.arb(x.numerator) / x.denominator
    return flint.arb(str(x))


def _exact_sum(values, squares=False):
    """The exact sum of the entries (or of their squares) as given; None if Decimal arithmetic
    at 2000 digits could not hold it exactly."""
    import decimal
    values = [_decimal_of(v) for v in values]
    if any(isinstance(v, Fraction) for v in values):
        values = [Fraction(v) for v in values]
        return sum((v * v for v in values) if squares else values, Fraction(0))
    with decimal.localcontext() as dctx:
        dctx.prec = 2000
        dctx.traps[decimal.Inexact] = False
        dctx.clear_flags()
        total = sum((v * v for v in values) if squares else values, Decimal(0))
        if dctx.flags[decimal.Inexact]:
            return None
    return total


def _arb_probabilities(entries):
    """A probability vector in arb: the decimals given, divided by their sum unless it is 1 exactly."""
    values = [arb_decimal(x) for x in entries]
    if _exact_sum(entries) != 1:
        total = sum(values, flint.arb(0))
        values = [v / total for v in values]
    return values


def _bad_entry(name, floats, exact, nonnegative):
    """The InputError for the first entry of ``floats`` (pi, M or embedding) that is not finite or, with
    ``nonnegative``, is negative: it names the entry (pi[1], M[2][0]) and says why; a decimal beyond the
    doubles (1e999) is named as such, not as infinite."""
    bad = ~np.isfinite(floats) | ((floats < 0) if nonnegative else False)
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    where = name + "".join(f"[{i}]" for i in index)
    value = exact
    for i in index:
        value = None if value is None else value[i]
    typed = str(value) if value is not None else repr(float(floats[index]))
    if np.isfinite(floats[index]):
        return InputError(where, f"must be >= 0, got {typed}")
    try:
        typed_is_finite = value is not None and Decimal(str(value)).is_finite()
    except ArithmeticError:                       # decimal.InvalidOperation: not a decimal
        typed_is_finite = False
    if typed_is_finite:
        return InputError(where, f"{typed} is beyond the range of a double (|x| < 1.8e308)"
                          + ("; entries of pi and M are probabilities" if nonnegative else "; rows are unit vectors"))
    return InputError(where, f"must be finite, got {typed}")


def _refuse_underflow(name, exact, floats):
    """An InputError for the first entry of pi or M that is not 0 but lies below the smallest normal double
    (``floats``: the entries' doubles; ``exact``: as given, a vector or rows, or None for float arrays): the
    float routes (Monte Carlo, the supports of dM/dpi, dM/dpi = M/pi itself) would read it as 0 or overflow
    on it, where the exact route reads the decimal typed, so the two would describe different models
    (pi(0) = 1e-400 gave a search CE 'undefined: pi(0) = 0' and an integral CE off by 43 %; a probe,
    Dec 2026).  Only the entries whose double is 0 or subnormal are read exactly."""
    floats = np.asarray(floats, dtype=float)
    small = np.abs(floats) < np.finfo(float).tiny
    if not small.any():
        return
    if exact is None:
        candidates = small & (floats != 0)
    else:
        given = np.empty(floats.shape, dtype=object)
        given[...] = exact if floats.ndim == 2 else list(exact)
        candidates = small & (given != 0)         # elementwise ==, in C; strings are confirmed below
    for index in np.argwhere(candidates):
        index = tuple(int(v) for v in index)
        x = floats[index] if exact is None else given[index]
        if not _is_zero(x):
            where = name + "".join(f"[{v}]" for v in index)
            raise InputError(where, f"{_compact(x)} is below the smallest normal double (2.2e-308) but not 0: give 0 "
                                    "or a probability of at least 2.3e-308")


_SMALLEST_NORMAL = Fraction(np.finfo(float).tiny)     # 2^-1022, exactly


def _sum_text(exact, floats) -> str:
    """The sum of a vector for a message: of the decimals as given when they are decimals (1.1, not the float
    sum 1.0999999999999999), else of the floats."""
    try:
        if exact is not None and all(isinstance(x, (Decimal, str, int)) and not isinstance(x, bool) for x in exact):
            with localcontext() as ctx:
                ctx.prec = 400
                return _compact(format(sum((Decimal(str(x).strip()) for x in exact), Decimal(0)).normalize(), "f"))
    except (ArithmeticError, ValueError):
        pass
    return f"{float(np.sum(floats)):.17g}"


def _decimal_label(text) -> str:
    """A decimal as written, trailing zeros dropped and never rounded (``Decimal.normalize`` rounds to 28
    digits: 0.99999999999999999999999999999 became 1); in E notation when its exponent passes +-30 (1e-999999
    was written out in a million characters)."""
    value = Decimal(text)
    if value.is_zero():
        return "0"
    sign, digits, exponent = value.as_tuple()
    digits = "".join(map(str, digits)).rstrip("0") or "0"
    value = Decimal((sign, tuple(map(int, digits)), exponent + len("".join(map(str, value.as_tuple()[1]))) - len(digits)))
    return format(value, "f") if abs(value.adjusted()) <= 30 else format(value, "E")


def _compact(x) -> str:
    """A number for a message: short, whatever its size (a Fraction of 5000-digit integers is not printed whole)."""
    if isinstance(x, Fraction):
        with mpmath.workdps(6):
            return mpmath.nstr(mpmath.mpf(x.numerator) / x.denominator, 4)
    return shown(str(x))


def _is_zero(x):
    """x (a number as given: Decimal, str, Fraction, int or float) is exactly 0; a string that is not a
    number counts as 0 here (the checks before name it)."""
    if isinstance(x, Decimal):
        return x.is_zero()
    if isinstance(x, str):
        try:
            return Decimal(x.strip()).is_zero()
        except ArithmeticError:
            return True
    return x == 0


def _exact_copy(x):
    """Nested tuples of the entries as given, or None for float arrays (read by their repr)."""
    if isinstance(x, np.ndarray) and x.dtype.kind == "f":
        return None
    if isinstance(x, (list, tuple)) and x and isinstance(x[0], (list, tuple, np.ndarray)):
        return tuple(map(tuple, x))         # a matrix given as rows
    return tuple(x)


def load_finite_model(path) -> FiniteModel:
    """Read ``{"pi": [...], "M": [[...]], "embedding": [[...]]}`` and validate it."""
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise InputError("spec", f"file not found: {path}") from None
    except (OSError, json.JSONDecodeError) as exc:
        raise InputError("spec", f"cannot read {path} as JSON ({exc})") from None
    if not isinstance(data, dict):
        raise InputError("spec", "must be a JSON object with keys pi, M, embedding")
    missing = [key for key in ("pi", "M", "embedding") if key not in data]
    if missing:
        raise InputError("spec", f"missing key(s): {', '.join(missing)}")
    try:
        pi = np.asarray(data["pi"], dtype=float)
        M = np.asarray(data["M"], dtype=float)
        emb = np.asarray(data["embedding"], dtype=float)
    except (TypeError, ValueError) as exc:
        raise InputError("spec", f"pi, M and embedding must be numeric arrays ({exc})") from None
    return FiniteModel(pi, M, emb, description=f"finite({Path(path).name})")


# App. A.2's temperatures: e^{1/tau} > 2 and at most 400 points (1/eps = ceil(e^{1/tau} - 1) <= 400), both
# ends exact, with their decimals rounded inward
A2_TAU_RANGE_TEXT = "[1/log 401 = 0.16683457..., 1/log 2 = 1.44269504...)"


def a2_points(tau_text) -> int:
    """App. A.2's number of points 1/eps = ceil(e^(1/tau) - 1) (eq. (33)) for tau as a decimal string; 0 when
    e^(1/tau) <= 2, where the construction does not exist.  Decided in ball arithmetic, the precision doubled
    until the ball of e^(1/tau) - 1 lies strictly between two integers (at 40 digits tau = 1/log 2 - 1e-42 was
    refused; a probe, Dec 2026).  e^(1/tau) is transcendental for a decimal tau > 0, never an integer."""
    fraction = Fraction(Decimal(str(tau_text)))
    saved, prec = flint.ctx.prec, 128
    try:
        while True:
            flint.ctx.prec = prec
            e_minus_one = (flint.arb(fraction.denominator) / fraction.numerator).exp() - 1
            lower = e_minus_one.lower().floor()
            if e_minus_one.upper() < lower + 1 and e_minus_one.lower() > lower:
                n = int(lower.unique_fmpz()) + 1          # ceil of a number strictly inside (lower, lower + 1)
                return n if n >= 2 else 0                 # e^(1/tau) > 2 iff e^(1/tau) - 1 > 1 iff ceil >= 2
            if prec > 1 << 16:                            # pragma: no cover - a decimal tau never needs this
                raise ArithmeticError(f"tau = {tau_text}: e^(1/tau) not separated from an integer")
            prec *= 2
    finally:
        flint.ctx.prec = saved


def example_a2(tau, delta=0, mixing="0.5") -> FiniteModel:
    """The construction of App. A.2: 1/eps delta-orthogonal unit vectors, pi uniform.

    eps = 1/ceil(e^{1/tau} - 1) (eq. (33)), requires e^{1/tau} > 2.  The vectors are
    equiangular, <u_i, u_j> = delta for i != j: u_i = sqrt(1 - delta) e_i + sqrt(delta) e_0
    (a valid delta-orthogonal family).  M keeps the point with probability 1 - mixing and
    otherwise resamples it from pi, so M(z, .) << pi as (B) requires (App. A.2 fixes only pi and the
    vectors; mixing 1/2 by default, as the CLI's --mixing and verify).  pi and M are exact
    rationals of the decimals given; the square roots are given to 200 digits.
    """
    tau_text = decimal_text("tau", tau)
    tau = check_tau(float(Decimal(tau_text)))
    n = a2_points(tau_text)
    if n == 0:
        raise InputError("tau", f"example A.2 needs e^(1/tau) > 2, i.e. tau in {A2_TAU_RANGE_TEXT}; got {tau_text}")
    if n > 400:
        raise InputError("tau", f"example A.2 with tau={tau_text} has 1/eps = {n} points; at most 400 need tau in "
                                f"{A2_TAU_RANGE_TEXT}")
    delta_text, mixing_text = decimal_text("delta", delta), decimal_text("mixing", mixing)
    d, mix = Fraction(Decimal(delta_text)), Fraction(Decimal(mixing_text))
    if not 0 <= d < 1:
        raise InputError("delta", f"must lie in [0, 1), got {delta_text}")
    if not 0 <= mix <= 1:
        raise InputError("mixing", f"must lie in [0, 1], got {mixing_text}")
    pi = [Fraction(1, n)] * n
    off, diag = mix / n, 1 - mix + mix / n
    if 0 < off < _SMALLEST_NORMAL:
        # M's entries mixing/N would be subnormal doubles or 0 on the float routes (FiniteModel refuses them)
        raise InputError("mixing", f"must be 0 or at least N x 2.2250738585072014e-308 = {float(n * _SMALLEST_NORMAL):.4g} "
                                   f"(N = {n} points; M's off-diagonal entries are mixing/N), got {_compact(mixing_text)}")
    M = [[diag if i == j else off for j in range(n)] for i in range(n)]
    if d == 0:
        emb = [[1 if i == j else 0 for j in range(n)] for i in range(n)]
    else:
        with mpmath.workdps(200):
            a = mpmath.nstr(mpmath.sqrt(1 - mpmath.mpf(delta_text)), 200)
            b = mpmath.nstr(mpmath.sqrt(mpmath.mpf(delta_text)), 200)
        emb = [[b] + [a if i == j else 0 for j in range(n)] for i in range(n)]
    label = _decimal_label
    return FiniteModel(pi, M, emb, name="example-a2",
                       description=f"example-a2(tau={label(tau_text)}, delta={label(delta_text)}, "
                                   f"mixing={label(mixing_text)}, 1/eps={n})")


def nonreversible_model() -> FiniteModel:
    """A built-in 4-point model whose M is not reversible and does not leave pi invariant."""
    pi = np.array([0.1, 0.2, 0.3, 0.4])
    M = np.array([[0.5, 0.3, 0.1, 0.1],
                  [0.1, 0.6, 0.2, 0.1],
                  [0.3, 0.05, 0.45, 0.2],
                  [0.2, 0.1, 0.1, 0.6]])
    angles = np.array([0.0, 0.9, 2.0, 3.6])
    emb = np.stack([np.cos(angles) * np.sqrt(0.75), np.sin(angles) * np.sqrt(0.75),
                    np.array([0.5, -0.5, 0.5, -0.5])], axis=1)
    return FiniteModel(pi, M, emb, name="finite", description="finite(nonreversible, N=4)")


def default_models():
    """The built-in models used by ``verify``: sphere d in {3, 16, 128}, a non-reversible finite model."""
    return [SphereModel(3, 4.0), SphereModel(16, 8.0), SphereModel(128, 16.0), nonreversible_model()]
