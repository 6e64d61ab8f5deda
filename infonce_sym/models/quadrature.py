"""Quadrature rules in FLINT arb: Gauss-Legendre nodes and the composite rule for the law of
s = cos(theta) of the sphere model (``SphereModel.negative_atoms``)."""
from __future__ import annotations

import math
from functools import lru_cache

import flint
import mpmath

__all__ = ["gauss_legendre_arb", "sphere_rule", "sphere_rule_arb", "arb_to_mpf"]


@lru_cache(maxsize=32)
def sphere_rule(dim: int, tau: float, dps: int, refinement):
    """Composite Gauss-Legendre rule for the law of s = cos(theta) on [0, pi].

    Panels are about tau wide in s (the scale of exp(-u e^{s/tau})) and at most
    min(0.5, 1.5/sqrt(d)) wide in theta, both divided by ``refinement``; theta ranges
    where sin^{d-2} theta < 10^-(dps+12) are dropped.  Returns (s nodes, probability
    weights) as mpf tuples (computed by ``sphere_rule_arb`` at dps + 10 digits).
    """
    s_nodes, weights = sphere_rule_arb(dim, tau, dps, refinement)
    return tuple(arb_to_mpf(v) for v in s_nodes), tuple(arb_to_mpf(v) for v in weights)


def arb_to_mpf(a):
    man, exp = a.mid().man_exp()
    return mpmath.mpf((int(man), int(exp)))


@lru_cache(maxsize=64)
def gauss_legendre_arb(nodes: int, prec: int):
    """Gauss-Legendre nodes and weights on [-1, 1] (exact arb midpoints of ``prec`` bits)."""
    saved = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        pairs = [flint.arb.legendre_p_root(nodes, i, weight=True) for i in range(nodes)]
    finally:
        flint.ctx.prec = saved
    return tuple(x.mid() for x, _ in pairs), tuple(w.mid() for _, w in pairs)


@lru_cache(maxsize=32)
def sphere_rule_arb(dim: int, tau: float, dps: int, refinement):
    """``sphere_rule`` in FLINT arb arithmetic: (s nodes, weights) as exact arb midpoints."""
    arb = flint.arb
    saved = flint.ctx.prec
    prec = int((dps + 10) * 3.3219280948873626) + 16
    flint.ctx.prec = prec
    try:
        pi = arb.pi()
        half = pi / 2
        # half-width of the theta range carrying non-negligible mass
        if dim > 3:
            target = -(dps + 12) * arb(10).log() / (dim - 2)
            x = target.exp().acos() if target.mid() > -50 else half
            x = x if x.mid() < half.mid() else half
            lo, hi = half - x, half + x
        else:
            lo, hi = arb(0), pi
        step_s = arb(min(tau, 0.5)) / refinement
        step_t = arb(min(0.5, 1.5 / math.sqrt(dim))) / refinement   # the mass has width ~ 1/sqrt(d)
        cuts = [lo, hi]
        s, s_end = hi.cos(), lo.cos()
        while s.mid() < s_end.mid():
            cuts.append(s.acos())
            s += step_s
        t = lo
        while t.mid() < hi.mid():
            cuts.append(t)
            t += step_t
        lo_m, hi_m = lo.mid(), hi.mid()
        cuts = sorted((c.mid() for c in cuts if lo_m <= c.mid() <= hi_m))
        nodes = 10 + int(0.35 * dps)
        gx, gw = gauss_legendre_arb(nodes, prec)
        d = arb(dim)
        c_d = (d / 2).gamma() / (pi.sqrt() * ((d - 1) / 2).gamma())
        tiny = arb(10) ** (-dps)
        s_nodes, weights = [], []
        for a, b in zip(cuts[:-1], cuts[1:]):
            if (b - a).mid() < tiny.mid():
                continue
            half_w, mid = (b - a) / 2, (a + b) / 2
            scale = half_w * c_d
            for xi, wi in zip(gx, gw):
                sin_th, cos_th = (mid + half_w * xi).sin_cos()
                s_nodes.append(cos_th)
                weights.append(wi * scale * sin_th ** (dim - 2))
        total = sum(weights, arb(0))
        return tuple(v.mid() for v in s_nodes), tuple((v / total).mid() for v in weights)
    finally:
        flint.ctx.prec = saved
