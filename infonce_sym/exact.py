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
        self.v = [xi / mu for xi in x]                       # V + 1 = X / mu, mean one
        self.v_min = min(self.v)
        self.mean_positive = ctx.fsum(q * p for p, q in zip(law.positive_similarity, law.positive_weight))
        self.pos = [(q, ctx.exp(p / tau - self.log_mu))
                    for p, q in zip(law.positive_similarity, law.positive_weight) if q > 0]   # (weight, W)
        self.mean_negative = ctx.fsum(w * v for w, v in zip(self.a, self.s))
        if law.negative_ratio is None:
            self.r = None
        else:
            r = [law.negative_ratio[i] for i in keep]
            total = ctx.fsum(w * v for w, v in zip(self.a, r))
            self.r = [v / total for v in r]                  # exact E r = 1 on the atoms
            self.ratio_second_moment = ctx.fsum(w * v * v for w, v in zip(self.a, self.r))
            self.m = ctx.fsum(w * v * si for w, v, si in zip(self.a, self.r, self.s))
            self.r_zero_mass = ctx.fsum(w for w, v in zip(self.a, self.r) if v == 0)

    # E g(-c (V - 1)),  g(y) = e^y - 1 - y
    def centred_transform(self, c):
        ctx = self.ctx
        return ctx.fsum(w * (ctx.expm1(-c * (v - 1)) + c * (v - 1)) for w, v in zip(self.a, self.v))

    def positive_log_transform(self, c):
        ctx = self.ctx
        return ctx.log1p(ctx.fsum(q * ctx.expm1(-c * w) for q, w in self.pos))


def _outer_breaks(ctx, t_max):
    pts = [ctx.mpf(0), ctx.mpf(1)]
    t = ctx.mpf(2)
    while t < t_max:
        pts.append(t)
        t *= 4
    pts.append(t_max)
    return pts


def _log_ratio_expectation(ctx, anchor, k, with_positive):
    """J = E log(mu_hat/mu [+ W/k]) for one anchor class."""
    kk = ctx.mpf(k)
    tail = ctx.mpf(10) ** (-ctx.dps)

    def integrand(t):
        if t == 0:
            return ctx.zero
        c = t / kk
        a = kk * ctx.log1p(anchor.centred_transform(c))      # = k log L(c) + t
        if with_positive:
            a += anchor.positive_log_transform(c)
        return -ctx.exp(-t) * ctx.expm1(a) / t

    # E e^{-t mu_hat/mu} <= e^{-t v_min}: beyond t_max the integrand is below 10^-dps
    t_max = (ctx.dps * ctx.log(10) + 20) / anchor.v_min
    t_max = max(t_max, ctx.mpf(60))
    value = ctx.quad(integrand, _outer_breaks(ctx, t_max))
    del tail
    return value


def _ratio_bias(ctx, anchor, k):
    """E[sum r_j (s_j - m) / sum r_j] for one anchor class (self-normalised IS bias)."""
    kk = ctx.mpf(k)
    a, r, s, m = anchor.a, anchor.r, anchor.s, anchor.m

    def integrand(v):
        c = v / kk
        first = ctx.fsum(w * ri * (si - m) * ctx.expm1(-c * ri) for w, ri, si in zip(a, r, s))
        if k == 1:
            return first
        tr = ctx.fsum(w * (ctx.expm1(-c * (ri - 1)) + c * (ri - 1)) for w, ri in zip(a, r))
        return first * ctx.exp(-v * (kk - 1) / kk + (kk - 1) * ctx.log1p(tr))

    r_min = min(x for x in r if x > 0)
    v_max = (ctx.dps * ctx.log(10) + 20) / (r_min * (ctx.mpf(1) if k == 1 else (kk - 1) / kk)) * 2
    return ctx.quad(integrand, _outer_breaks(ctx, max(v_max, ctx.mpf(60))))


def _compute(model, tau_value, k, loss, dps, refinement):
    ctx = mpmath.mp
    with mpmath.workdps(dps):
        tau = _decimal(ctx, tau_value)
        laws = model.anchor_laws(ctx, tau_value, refinement) if hasattr(model, "dim") and model.name == "sphere" \
            else model.anchor_laws(ctx, tau_value)
        anchors = [_Anchor(ctx, law, tau) for law in laws]
        values, gaps, undefined = {}, {}, {}
        ce_limit = ctx.fsum(an.weight * (-an.mean_positive / tau + an.log_mu) for an in anchors)
        values["cross_entropy_limit"] = ce_limit
        if k == 1:
            # mu_hat = X_1: E log(mu_hat/mu) = E s/tau - log mu exactly
            dcl_gap = ctx.fsum(an.weight * (an.log_mu - an.mean_negative / tau) for an in anchors)
        else:
            dcl_gap = -ctx.fsum(an.weight * _log_ratio_expectation(ctx, an, k, False) for an in anchors)
        info_gap = -ctx.fsum(an.weight * _log_ratio_expectation(ctx, an, k, True) for an in anchors)
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
                else:
                    bias = ctx.fsum(an.weight * _ratio_bias(ctx, an, k) for an in anchors)
                search_minus_dcl = -bias / tau
                gaps["search_minus_dcl_risk"] = search_minus_dcl
                gaps["search_cross_entropy_minus_risk"] = search_minus_dcl + (dcl_gap - gap)
                values["search_cross_entropy"] = ce_limit - dcl_gap + search_minus_dcl
        return values, gaps, undefined


def exact_values(model, tau, k, digits: int = 30, loss: str = "infonce", verify: bool = True) -> ExactValues:
    """Exact R (or R~), ∫CE, search CE and E|dM/dpi|^2 at ``digits`` significant digits.

    >>> from infonce_sym.models import SphereModel
    >>> r = exact_values(SphereModel(3, 2.0), 0.5, 1, digits=15)
    >>> r.as_strings()["risk"]
    '1.64355548497271'
    """
    tau_f = check_tau(tau)
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
        agreement = _agreement(first, second)
        if agreement < digits + 2:
            raise ArithmeticError(
                f"exact values agree to only {agreement:.1f} digits when the precision is raised; "
                f"asked for {digits}")
        first = second
    values, gaps, undefined = first
    return ExactValues(model=getattr(model, "label", str(model)), tau=repr(tau), k=k, loss=loss,
                       digits=digits, values=values, gaps=gaps, undefined=undefined,
                       seconds=time.perf_counter() - start, agreement_digits=agreement)


def _agreement(first, second):
    worst = math.inf
    for a, b in ((first[0], second[0]), (first[1], second[1])):
        for key in a:
            x, y = a[key], b[key]
            if x == y:
                continue
            scale = max(abs(x), abs(y))
            worst = min(worst, float(-mpmath.log10(abs(x - y) / scale)))
    return worst
