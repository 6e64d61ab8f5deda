"""Exact values of the Section 3 quantities at any k, by one-dimensional transforms.

For S > 0 (MATH.md, "Exact finite-k values"):

    E log S = int_0^oo (e^{-t} - E e^{-tS}) dt/t,        E[A/B] = int_0^oo E[A e^{-tB}] dt,

and with i.i.d. negatives E e^{-tS} is a one-dimensional transform raised to the
power k.  Everything is written relative to mu = E e^{s/tau} so that the *gaps*
(∫CE - R, ∫CE - R~, search CE - R~) come out directly, with no cancellation:

    ∫CE - R~  = -E log(mu_hat/mu)            (DCL gap, eq. (31))
    ∫CE - R   = -E log(mu_hat/mu + W/k)      (W = e^{p/tau}/mu, p the positive similarity)
    search CE - R~ = -(1/tau) E[ sum_j r_j (s_j - m) / sum_j r_j ]   (r = dM/dpi, m = E_M p)

Integrands are formed as e^{-t} expm1(k log1p(E g(.)) ...) with g(y) = e^y - 1 - y, so
nothing of size one is subtracted from something of size one.  The working
precision is digits + 2 log10(k) + guard, and every value is recomputed at a
higher precision (and, for the sphere, a refined quadrature rule) to confirm the
requested digits.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import mpmath

from .errors import InputError, check_digits, check_k, check_tau
from .models import _gauss_legendre

try:                      # FLINT's arb is ~8x faster than mpf for the inner sums
    import flint
except ImportError:       # pragma: no cover - python-flint is a declared dependency
    flint = None


def _to_arb(x):
    sign, man, exp, _ = x._mpf_
    return flint.arb((int(-man if sign else man), int(exp)))


def _from_arb(a):
    man, exp = a.mid().man_exp()
    return mpmath.mpf((int(man), int(exp)))


def _arb_sum(terms):
    total = flint.arb(0)
    for t in terms:
        total += t
    return total

__all__ = ["exact_values", "ExactValues", "QUANTITIES"]

QUANTITIES = ("risk", "cross_entropy_limit", "search_cross_entropy", "density_ratio_second_moment")


@dataclass
class ExactValues:
    """Exact values (mpf) at ``digits`` significant digits, plus the gaps computed directly."""
    model: str
    tau: str
    k: int
    loss: str
    digits: int
    values: dict
    gaps: dict
    undefined: dict = field(default_factory=dict)
    seconds: float = 0.0
    agreement_digits: float = math.inf

    def as_strings(self) -> dict:
        out = {}
        for key in QUANTITIES:
            if key in self.values:
                out[key] = mpmath.nstr(self.values[key], self.digits, strip_zeros=False)
            else:
                out[key] = None
        return out


def _decimal(ctx, value):
    """The decimal value the user typed (0.01 means 1/100, not the nearest double)."""
    if isinstance(value, float):
        return ctx.mpf(repr(value))
    return ctx.mpf(value)


class _Backend:
    """The number system of the inner sums: FLINT arb balls (midpoints used) or mpmath mpf."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.arb = flint is not None

    def num(self, x):
        return _to_arb(x) if self.arb else x

    def back(self, x):
        return _from_arb(x) if self.arb else x

    def zero(self):
        return flint.arb(0) if self.arb else self.ctx.zero

    def exp(self, x):
        return x.exp() if self.arb else self.ctx.exp(x)

    def expm1(self, x):
        return x.expm1() if self.arb else self.ctx.expm1(x)


class _Atoms:
    """Weighted atoms (x_i >= 0 sorted, weights u_i of any sign) with fast transform sums.

    For a given c the atoms split into bands: c x <= 1/2 (Taylor series about 0 from
    prefix moment sums), c x >= Lambda (e^{-cx} below 10^-dps, handled by suffix sums)
    and a thin band in between summed directly.  The band is about tau log(2 Lambda)
    wide in s, so each transform costs a few hundred exponentials whatever the rule size.
    Public methods take and return mpf; the sums run in the backend's number system.
    """

    def __init__(self, ctx, x, u):
        order = sorted(range(len(x)), key=lambda i: x[i])
        self.ctx = ctx
        self.be = be = _Backend(ctx)
        self.x = [x[i] for i in order]                         # mpf, for band cuts
        self.n = len(self.x)
        self.bx = [be.num(x[i]) for i in order]
        self.bu = [be.num(u[i]) for i in order]
        self.big = ctx.dps * ctx.log(10) + 10                   # Lambda
        # enough terms for Taylor bands (|y| <= 1/2) and for the moment series (ratio 1/16)
        self.terms = int(math.ceil((ctx.dps + 5) * math.log(10) / math.log(16))) + 1
        # prefix sums of u y^j / j! for y = x (centre 0) and y = x - 1 (centre 1)
        self.scaled0 = self._prefix(self.bx)
        self.scaled1 = self._prefix([v - 1 for v in self.bx])
        self.u_total = be.back(self.scaled0[0][-1])
        self.ux_total = be.back(self.scaled0[1][-1])
        suf0, suf1 = [be.zero()] * (self.n + 1), [be.zero()] * (self.n + 1)
        for i in range(self.n - 1, -1, -1):
            suf0[i] = suf0[i + 1] + self.bu[i]
            suf1[i] = suf1[i + 1] + self.bu[i] * (self.bx[i] - 1)
        self.suf0, self.suf1 = suf0, suf1
        self.direct = self.n <= 64          # few atoms: plain sums beat the band bookkeeping

    def _prefix(self, ys):
        be = self.be
        table = []
        powers = list(self.bu)
        for j in range(self.terms + 1):
            acc, row = be.zero(), [be.zero()]
            for v in powers:
                acc += v
                row.append(acc)
            table.append(row)
            powers = [p * y / (j + 1) for p, y in zip(powers, ys)]
        return table

    def _band(self, c, lo, hi, kind):
        """sum_{lo<=i<hi} u_i h(c, x_i) for h = exp(-cx), expm1(-cx) or g(-c(x-1)); backend number."""
        be = self.be
        total = be.zero()
        if hi <= lo:
            return total
        bc = be.num(c)
        nc = -bc
        x, u = self.bx, self.bu
        if kind == "exp":
            for i in range(lo, hi):
                total += u[i] * be.exp(nc * x[i])
        elif kind == "expm1":
            for i in range(lo, hi):
                total += u[i] * be.expm1(nc * x[i])
        else:
            for i in range(lo, hi):
                y = x[i] - 1
                total += u[i] * (be.expm1(nc * y) + bc * y)
        return total

    def _cut(self, value):
        lo, hi = 0, self.n
        while lo < hi:
            mid = (lo + hi) // 2
            if self.x[mid] <= value:
                lo = mid + 1
            else:
                hi = mid
        return lo

    def _series(self, table, c, hi, lo=0, start=0):
        """sum_{j>=start} (-c)^j sum_{lo<=i<hi} u_i y_i^j / j!  (backend number)."""
        total = self.be.zero()
        if hi <= lo:
            return total
        m = -self.be.num(c)
        for j in range(self.terms, start - 1, -1):                # Horner in -c
            total = total * m + (table[j][hi] - table[j][lo])
        for _ in range(start):
            total = total * m
        return total

    def exp_sum(self, c):
        """sum u e^{-c x}."""
        if self.direct:
            return self.be.back(self._band(c, 0, self.n, "exp"))
        a, d = self._cut(1 / (2 * c)), self._cut(self.big / c)
        return self.be.back(self._series(self.scaled0, c, a) + self._band(c, a, d, "exp"))

    def expm1_sum(self, c):
        """sum u (e^{-c x} - 1)."""
        if self.direct:
            return self.be.back(self._band(c, 0, self.n, "expm1"))
        a, d = self._cut(1 / (2 * c)), self._cut(self.big / c)
        return self.be.back(self._series(self.scaled0, c, a, start=1) + self._band(c, a, d, "expm1")
                            - self.suf0[d])

    def centred_sum(self, c):
        """sum u g(-c (x - 1)),  g(y) = e^y - 1 - y  (>= 0 termwise, no cancellation for c <= 1)."""
        ctx, be = self.ctx, self.be
        if self.direct:
            return be.back(self._band(c, 0, self.n, "centred"))
        if c > 1:
            return ctx.exp(c) * self.exp_sum(c) - self.u_total + c * (self.ux_total - self.u_total)
        bc = be.num(c)
        lo = self._cut(1 - 1 / (2 * c)) if c > ctx.mpf(1) / 2 else 0
        total = be.zero()
        if lo:
            # atoms with c x <= 1/2: e^{-c(x-1)} = e^c * sum_j (-c x)^j / j!
            total += (be.exp(bc) * self._series(self.scaled0, c, lo)
                      - self.scaled0[0][lo] + bc * self.scaled1[1][lo])
        hi = self._cut(1 + 1 / (2 * c))
        total += self._series(self.scaled1, c, hi, lo, start=2)
        d = self._cut(1 + self.big / c)
        total += self._band(c, hi, d, "centred")
        total += -self.suf0[d] + bc * self.suf1[d]
        return be.back(total)

    def moments(self, centre):
        """sum u (x - centre)^j for j = 0..terms (mpf)."""
        table = self.scaled1 if centre == 1 else self.scaled0
        return [self.be.back(row[-1]) * self.ctx.factorial(j) for j, row in enumerate(table)]

    def spread(self, centre):
        return max(abs(self.x[0] - centre), abs(self.x[-1] - centre))

    def log_transform(self, c):
        """log sum u e^{-c x} (u a probability vector)."""
        ctx = self.ctx
        if c * self.x[0] < 1:
            return ctx.log1p(self.expm1_sum(c))
        value = self.exp_sum(c)
        return ctx.log(value) if value > 0 else ctx.ninf

    def log_centred_transform(self, c):
        """log sum u e^{-c (x - 1)} for a probability vector u with sum u x = 1."""
        ctx = self.ctx
        if c <= 1:
            return ctx.log1p(self.centred_sum(c))
        value = self.exp_sum(c)
        return c + ctx.log(value) if value > 0 else ctx.ninf


class _Anchor:
    """Transforms of one anchor class's similarity laws, at the current precision."""

    def __init__(self, ctx, law, tau):
        self.ctx = ctx
        self.weight = law.weight
        s, a = law.negative_similarity, law.negative_weight
        keep = [i for i, w in enumerate(a) if w > 0]
        self.s = [s[i] for i in keep]
        self.a = [a[i] for i in keep]
        x = [ctx.exp(v / tau) for v in self.s]
        self.log_mu = ctx.log(ctx.fsum(w * v for w, v in zip(self.a, x)))
        mu = ctx.exp(self.log_mu)
        v = [xi / mu for xi in x]                             # X / mu, mean one
        self.v_min = min(v)
        self.negatives = _Atoms(ctx, v, self.a)
        self.mean_positive = ctx.fsum(q * p for p, q in zip(law.positive_similarity, law.positive_weight))
        pos = [(ctx.exp(p / tau - self.log_mu), q)
               for p, q in zip(law.positive_similarity, law.positive_weight) if q > 0]
        self.positives = _Atoms(ctx, [w for w, _ in pos], [q for _, q in pos])   # W = e^{p/tau}/mu
        self.mean_negative = ctx.fsum(w * v for w, v in zip(self.a, self.s))
        self.r = None
        if law.negative_ratio is not None:
            r = [law.negative_ratio[i] for i in keep]
            total = ctx.fsum(w * v for w, v in zip(self.a, r))
            self.r = [v / total for v in r]                  # exact E r = 1 on the atoms
            self.ratio_second_moment = ctx.fsum(w * v * v for w, v in zip(self.a, self.r))
            self.m = ctx.fsum(w * v * si for w, v, si in zip(self.a, self.r, self.s))
            self.r_zero_mass = ctx.fsum(w for w, v in zip(self.a, self.r) if v == 0)
            if self.r_zero_mass == 0:
                self.r_min = min(self.r)
                self.ratio = _Atoms(ctx, self.r, self.a)
                self.ratio_numerator = _Atoms(ctx, self.r, [w * ri * (si - self.m)
                                                            for w, ri, si in zip(self.a, self.r, self.s)])


def _series_log(ctx, a):
    """Coefficients of log(sum a_n c^n), a_0 = 1 (truncated power series)."""
    b = [ctx.zero] * len(a)
    for n in range(1, len(a)):
        b[n] = a[n] - ctx.fsum(j * b[j] * a[n - j] for j in range(1, n)) / n
    return b


def _series_exp(ctx, a):
    """Coefficients of exp(sum a_n c^n) for a_0 = 0."""
    b = [ctx.one] + [ctx.zero] * (len(a) - 1)
    for n in range(1, len(a)):
        b[n] = ctx.fsum(j * a[j] * b[n - j] for j in range(1, n + 1)) / n
    return b


def _log_mgf_series(ctx, atoms, centre, scale):
    """Power series in t of log sum u e^{-(t/scale)(x - centre)}."""
    moments = atoms.moments(centre)
    coeffs = [moments[j] * (-1 / ctx.mpf(scale)) ** j / ctx.factorial(j) for j in range(len(moments))]
    coeffs = [c / coeffs[0] for c in coeffs]
    return _series_log(ctx, coeffs)


def _head_integral_plain(ctx, coefficients, t0):
    """int_0^t0 sum_n coefficients[n] t^n dt."""
    return ctx.fsum(c * t0 ** (i + 1) / (i + 1) for i, c in enumerate(coefficients))


def _head_integral(ctx, series, t0):
    """int_0^t0 F(t) dt/t for F(t) = -e^{-t} expm1(sum_n series[n] t^n)."""
    ex = _series_exp(ctx, series)
    ex[0] = ctx.zero
    n = len(series)
    decay = [(-1) ** j / ctx.factorial(j) for j in range(n)]
    f = [-ctx.fsum(ex[j] * decay[i - j] for j in range(i + 1)) for i in range(n)]
    return ctx.fsum(f[i] * t0 ** i / i for i in range(1, n))


def _outer_integral(ctx, integrand, decay_floor, refinement, head=None):
    """int_0^oo integrand(t) dt/t... as int integrand(e^y) dy, Gauss-Legendre panels in y = log t.

    ``integrand(t)`` must already include the 1/t; it is integrated against dt, i.e. we sum
    t * integrand(t) over y.  Panels march upwards until the integrand, which decreases
    in t past t = dps log 10, times the distance to y_end = log(decay_floor) is negligible.
    """
    nodes = 10 + int(0.4 * ctx.dps) + 4 * (refinement - 1)
    gx, gw = _gauss_legendre(nodes, ctx.dps)
    width = ctx.mpf(1) / refinement
    eps = ctx.mpf(10) ** (-ctx.dps)
    y_start = -ctx.dps * ctx.log(10) - 3                  # the integrand is O(t) at 0
    y_past_exp = ctx.log(ctx.dps * ctx.log(10) + 20)
    y_end = max(ctx.log(decay_floor), y_past_exp + 1)
    total = ctx.zero

    def panel(a, b):
        half, mid = (b - a) / 2, (a + b) / 2
        vals = []
        for xi, wi in zip(gx, gw):
            t = ctx.exp(mid + half * xi)
            vals.append(wi * half * t * integrand(t))
        return ctx.fsum(vals), max(abs(v) / (wi * half) for v, wi in zip(vals, gw))

    y = y_start
    if head is not None:            # the integral from 0 to t0, from the integrand's power series
        total += head[0]
        y = ctx.log(head[1])
    # lower part: the integrand is a power series in t there, wide panels suffice
    while y < -4:
        value, _ = panel(y, min(y + 4 / refinement, ctx.mpf(-4)))
        total += value
        y = min(y + 4 / refinement, ctx.mpf(-4))
    while y < y_end:
        value, peak = panel(y, y + width)
        total += value
        y += width
        if y > y_past_exp and peak * (y_end - y + 1) < eps * abs(total):
            break
    return total


def _log_ratio_expectation(ctx, anchor, k, with_positive, refinement):
    """J = E log(mu_hat/mu [+ W/k]) for one anchor class."""
    kk = ctx.mpf(k)

    def integrand(t):
        c = t / kk
        a = kk * anchor.negatives.log_centred_transform(c)   # = k log E e^{-c V} + t
        if with_positive:
            a += anchor.positives.log_transform(c)
        return -ctx.exp(-t) * ctx.expm1(a) / t

    # series of k log E e^{-(t/k)(V-1)} [+ log E e^{-(t/k) W}] about t = 0, valid for
    # t <= t0 where (t0/k) * spread <= 1/16
    neg = anchor.negatives
    series = [kk * c for c in _log_mgf_series(ctx, neg, 1, kk)]
    spread = neg.spread(1)
    if with_positive:
        pos = _log_mgf_series(ctx, anchor.positives, 0, kk)
        series = [a + b for a, b in zip(series, pos)]
        spread = max(spread, anchor.positives.spread(0))
    t0 = min(ctx.exp(-4), kk / (16 * spread))
    # E e^{-t mu_hat/mu} <= e^{-t v_min}
    return _outer_integral(ctx, integrand, (ctx.dps * ctx.log(10) + 20) / anchor.v_min, refinement,
                           head=(_head_integral(ctx, series, t0), t0))


def _ratio_bias(ctx, anchor, k, refinement):
    """E[sum r_j (s_j - m) / sum r_j] = int_0^oo k E[r (s-m) e^{-t r}] (E e^{-t r})^{k-1} dt."""
    kk = ctx.mpf(k)

    def integrand(v):                                        # v = k t, integrated in dv
        c = v / kk
        first = anchor.ratio_numerator.expm1_sum(c)          # E[r(s-m)(e^{-cr} - 1)], E[r(s-m)] = 0
        rest = -v * (kk - 1) / kk + (kk - 1) * anchor.ratio.log_centred_transform(c)
        return first * ctx.exp(rest)

    # power series of the integrand about v = 0, valid for (v0/k) * spread <= 1/16
    num = anchor.ratio_numerator.moments(0)
    n = len(num)
    first = [ctx.zero] + [num[j] * (-1 / kk) ** j / ctx.factorial(j) for j in range(1, n)]
    rest = [(kk - 1) * c for c in _log_mgf_series(ctx, anchor.ratio, 1, kk)]
    rest[1] += -(kk - 1) / kk
    rest = _series_exp(ctx, rest)
    product = [ctx.fsum(first[j] * rest[i - j] for j in range(i + 1)) for i in range(n)]
    v0 = min(ctx.exp(-4), kk / (16 * max(anchor.ratio.spread(1), anchor.ratio.spread(0))))
    floor = (ctx.dps * ctx.log(10) + 20) / anchor.r_min * 2
    return _outer_integral(ctx, integrand, floor, refinement,
                           head=(_head_integral_plain(ctx, product, v0), v0))


def _compute(model, tau_value, k, loss, dps, refinement):
    ctx = mpmath.mp
    saved = flint.ctx.prec if flint is not None else None
    try:
        with mpmath.workdps(dps):
            if flint is not None:
                flint.ctx.prec = ctx.prec + 16
            return _compute_at_precision(ctx, model, tau_value, k, loss, refinement)
    finally:
        if flint is not None:
            flint.ctx.prec = saved


def _compute_at_precision(ctx, model, tau_value, k, loss, refinement):
    tau = _decimal(ctx, tau_value)
    laws = model.anchor_laws(ctx, tau_value, refinement)
    anchors = [_Anchor(ctx, law, tau) for law in laws]
    values, gaps, undefined = {}, {}, {}
    ce_limit = ctx.fsum(an.weight * (-an.mean_positive / tau + an.log_mu) for an in anchors)
    values["cross_entropy_limit"] = ce_limit
    if k == 1:
        # mu_hat = X_1: E log(mu_hat/mu) = E s/tau - log mu exactly
        dcl_gap = ctx.fsum(an.weight * (an.log_mu - an.mean_negative / tau) for an in anchors)
    else:
        dcl_gap = -ctx.fsum(an.weight * _log_ratio_expectation(ctx, an, k, False, refinement)
                            for an in anchors)
    info_gap = -ctx.fsum(an.weight * _log_ratio_expectation(ctx, an, k, True, refinement)
                         for an in anchors)
    gap = info_gap if loss == "infonce" else dcl_gap
    values["risk"] = ce_limit - gap
    gaps["cross_entropy_limit_minus_risk"] = gap
    gaps["infonce_minus_dcl_risk"] = dcl_gap - info_gap          # R - R~ >= 0
    dominated = all(an.r is not None for an in anchors)
    if not dominated:
        reason = getattr(model, "domination_reason", "assumption (B) fails")
        undefined["search_cross_entropy"] = reason
        undefined["density_ratio_second_moment"] = reason
    else:
        values["density_ratio_second_moment"] = ctx.fsum(an.weight * an.ratio_second_moment for an in anchors)
        if any(an.r_zero_mass > 0 for an in anchors):
            undefined["search_cross_entropy"] = (
                "the empirical kernel M_hat_k is undefined with positive probability: dM(z,.)/dpi "
                "vanishes on a set of positive pi-mass, so sum_j dM/dpi(xi_j) = 0 can happen")
        else:
            if k == 1:
                bias = ctx.fsum(an.weight * (an.mean_negative - an.m) for an in anchors)
            elif all(min(an.r) == max(an.r) for an in anchors):
                bias = ctx.zero          # M = pi (e.g. kappa = 0): M_hat_k = uniform, no bias
            else:
                bias = ctx.fsum(an.weight * _ratio_bias(ctx, an, k, refinement) for an in anchors)
            search_minus_dcl = -bias / tau
            gaps["search_minus_dcl_risk"] = search_minus_dcl
            gaps["search_cross_entropy_minus_risk"] = search_minus_dcl - (dcl_gap - gap)
            values["search_cross_entropy"] = ce_limit - dcl_gap + search_minus_dcl
            if k == 1:   # M_hat_1 = Q_hat_1 = delta_xi: the cross-entropy is exactly zero
                values["search_cross_entropy"] = ctx.zero
    return values, gaps, undefined


def exact_values(model, tau, k, digits: int = 30, loss: str = "infonce", verify: bool = True) -> ExactValues:
    """Exact R (or R~), ∫CE, search CE and E|dM/dpi|^2 at ``digits`` significant digits.

    k = 1 on the sphere S^2 is a 2-D integral, E log(1 + e^{(s - p)/tau}) with s uniform on
    [-1, 1] and p of density kappa e^{kappa p}/(2 sinh kappa); mpmath.quad gives
    0.47652149796660589834 for kappa = 2, tau = 1/2:

    >>> from infonce_sym.models import SphereModel
    >>> r = exact_values(SphereModel(3, 2.0), 0.5, 1, digits=15)
    >>> r.as_strings()["risk"]
    '0.476521497966606'
    """
    check_tau(tau)
    k = check_k(k)
    digits = check_digits(digits)
    if loss not in ("infonce", "dcl"):
        raise InputError("loss", f"must be 'infonce' or 'dcl', got {loss!r}")
    start = time.perf_counter()
    guard = 12
    dps = digits + guard + int(2 * math.log10(k)) + 1
    first = _compute(model, tau, k, loss, dps, 1)
    agreement = math.inf
    if verify:
        second = _compute(model, tau, k, loss, dps + guard, 2)
        agreement = _agreement(first, second, dps)
        if agreement < digits:
            raise ArithmeticError(
                f"exact values agree to only {agreement:.1f} digits when the precision is raised; "
                f"asked for {digits}")
        first = second
    values, gaps, undefined = first
    return ExactValues(model=getattr(model, "label", str(model)), tau=repr(tau), k=k, loss=loss,
                       digits=digits, values=values, gaps=gaps, undefined=undefined,
                       seconds=time.perf_counter() - start, agreement_digits=agreement)


def _agreement(first, second, floor_digits=60):
    worst = math.inf
    for a, b in ((first[0], second[0]), (first[1], second[1])):
        for key in a:
            x, y = a[key], b[key]
            if x == y:
                continue
            scale = max(abs(x), abs(y))
            if scale < mpmath.mpf(10) ** (-floor_digits):     # both zero at working precision
                continue
            worst = min(worst, float(-mpmath.log10(abs(x - y) / scale)))
    return worst
