"""Quadrature rules in FLINT arb: Gauss-Legendre nodes and the composite rule for the law of
s = cos(theta) of the sphere model (``SphereModel.negative_atoms``)."""
from __future__ import annotations

import math
from functools import lru_cache

import flint
import mpmath

__all__ = ["widened_nodes", "gauss_legendre_arb", "sphere_rule", "sphere_rule_arb", "arb_to_mpf", "sphere_density_rule",
           "sphere_theta_range", "sphere_mode_theta"]


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


# ---------------------------------------------------------------- density-adapted sphere rules

def _log_density_theta(dim, b, theta):
    """l(theta) = (d - 2) log sin(theta) + b cos(theta): the log density of theta in [0, pi] of the
    law with density proportional to sin^(d-2)(theta) e^(b cos theta) (b = 0: the uniform law pi,
    b = kappa: the positive similarity under vMF(x, kappa))."""
    sin = math.sin(theta)
    if sin <= 0:
        return 0.0 + b * math.cos(theta) if dim == 2 else -math.inf
    return (dim - 2) * math.log(sin) + b * math.cos(theta)


def sphere_mode_theta(dim: int, b: float) -> float:
    """The mode of l: (d - 2) cot(theta) = b sin(theta), i.e. b c^2 + (d - 2) c - b = 0, c = cos theta."""
    if b == 0:
        return math.pi / 2 if dim > 2 else 0.0
    c = 2 * b / ((dim - 2) + math.sqrt((dim - 2) ** 2 + 4 * b * b))
    return math.acos(min(1.0, c))


def sphere_theta_range(dim: int, b: float, digits: float):
    """[theta_lo, theta_hi]: where the density of theta is at least 10^-digits of its maximum."""
    mode = sphere_mode_theta(dim, b)
    top = _log_density_theta(dim, b, mode)
    drop = digits * math.log(10)

    def edge(inside, outside):
        if _log_density_theta(dim, b, outside) >= top - drop:
            return outside
        for _ in range(200):
            mid = (inside + outside) / 2
            if _log_density_theta(dim, b, mid) >= top - drop:
                inside = mid
            else:
                outside = mid
        return outside
    lo, hi = edge(mode, 0.0), edge(mode, math.pi)
    # an edge within END_SNAP of 0 or pi is set by the factor sin^(d-2) theta of a small d: the
    # density is analytic there, and a rule from the end itself needs no panels graded down to a
    # tiny edge (d = 3 at 55 digits: 2046 nodes from theta = 1e-55, 252 from 0); the range only grows
    if lo < END_SNAP:
        lo = 0.0
    if math.pi - hi < END_SNAP:
        hi = math.pi
    return lo, hi


END_SNAP = 1e-3


def _theta_cuts(dim, b, s_step, lo, hi, refinement, drop_per_panel, depth=None, nodes=None, widen=1.0,
                widened=None):
    """Panel ends in [lo, hi]: each panel changes s = cos(theta) by at most s_step, the log density
    l by at most about ``drop_per_panel`` (|l'| h + sqrt(|l''|) h), and is at most 0.5 wide.

    With ``depth`` (theta -> digits by which every law the rule serves lies below its peak there)
    both bounds are relaxed by phi = 10^((D - 5)/(2 nodes)) (at most 4) where the panel lies D >= 5
    digits deep: a panel phi times wider has a Bernstein ellipse parameter rho(x/phi) >= rho(x)/phi
    (rho(x) = x + sqrt(1 + x^2), x the strip half-width over the half-width), so its Gauss error
    grows by at most phi^(2 nodes) = 10^(D - 5) against its mass, which is 10^-D of the peak's.

    With ``widen`` = W > 1: both bounds W times looser (phi from ``widened`` nodes, a smaller phi
    than that of the fewer nodes a panel may get).  Returns (cuts, ratios), ratios[i] the width of
    panel i over the width the unwidened bounds allow at its start (1 when W = 1)."""
    def relax(theta, right, nodes):
        if depth is None:
            return 1.0
        digits = min(depth(theta), depth(right)) - 5
        return min(4.0, 10 ** (digits / (2 * nodes))) if digits > 0 else 1.0

    def width(theta, widen=1.0, nodes=nodes):
        h = 0.5
        for _ in range(4):            # the bounds at the far end of the panel too
            right = min(theta + h, math.pi)
            phi = relax(theta, right, nodes) * widen
            sin_max = max(math.sin(theta), math.sin(right)) if not theta <= math.pi / 2 <= right else 1.0
            h_s = min(math.sqrt(2 * s_step * phi), s_step * phi / max(sin_max, 1e-300))
            slope = curv = 0.0
            for t in (theta, right):
                sin, cos = math.sin(t), math.cos(t)
                if dim > 2 and sin > 0:
                    # (d - 2) log sin: a low power near theta = 0 or pi is harmless (the density is
                    # analytic there); bound its slope only away from the ends
                    slope = max(slope, (dim - 2) * abs(cos) / max(sin, theta - lo + 1e-300, 1e-300))
                    curv = max(curv, (dim - 2) / max(sin, 1e-300) ** 2 if sin > 1e-3 else 0.0)
                slope = max(slope, abs(b * sin))
                curv = max(curv, abs(b * cos))
            drop = drop_per_panel * phi
            h_l = drop / (slope + math.sqrt(drop * curv) + 1e-300)
            h_new = min(0.5, h_s, h_l) / refinement
            if h_new >= h * 0.999:
                return h_new
            h = h_new
        return h
    cuts = [lo]
    ratios = []
    theta = lo
    while theta < hi:
        start = theta
        if widen == 1.0:
            theta = min(hi, theta + width(theta))
            ratios.append(1.0)
        else:
            theta = min(hi, theta + width(theta, widen, widened))
            ratios.append((theta - start) / width(start))
        if hi - theta < 1e-12 * max(1.0, hi):
            theta = hi
        cuts.append(theta)
    return cuts, ratios


DROP_PER_PANEL = 8.0


def _ratio_step(ratio, widen):
    """A panel ``ratio`` times as wide as the unwidened one at its start, rounded up to a quarter (at
    least 1, at most ``widen``): a few Gauss rules serve every panel."""
    return min(widen, max(1.0, math.ceil(ratio * 4 - 1e-9) / 4))


def _log_rho(a):
    """log rho for a function analytic in the strip |Im z| < a about [-1, 1] (half-widths): the
    largest Bernstein ellipse in it has rho = a + sqrt(1 + a^2)."""
    return math.log(a + math.sqrt(1 + a * a))


def widened_nodes(nodes, widen):
    """Gauss nodes for a panel ``widen`` = W times wider than one with ``nodes``, at the same error bound.

    The integrands are e^{-c x(s)} (x = e^{s/tau} or e^{kappa s}; s_step = tau or 1/kappa) times the
    density.  The first factor is at most 1 in modulus for |Im s| < (pi/2) s_step, so on a panel of
    s-width h its n-node Gauss error bound is ~ rho^-2n with rho = rho(pi s_step/h); W-wide panels keep
    it with n log rho(pi) / log rho(pi/W) nodes.  The density's factor on that ellipse,
    e^{(D/2)((rho + 1/rho)/2 - 1)} for a log-density drop D across the panel, is then smaller with
    D = 8 W than with D = 8 at W = 1 (W = 2: e^6.9 against e^9.2)."""
    if widen == 1:
        return nodes
    return int(math.ceil(nodes * _log_rho(math.pi) / _log_rho(math.pi / widen)))


def sphere_panel_nodes(dps):
    """Gauss-Legendre nodes per panel of the sphere rules at dps digits.  Beyond 60 digits the
    exponentials e^{-c x} that the rules integrate span e^-(dps log 10) on panels of a fixed width,
    so the count grows faster than the precision (100 digits at kappa = 10^4 need it)."""
    return 12 + int(0.45 * dps) + max(0, int(0.15 * (dps - 60)))


@lru_cache(maxsize=32)
def sphere_density_rule(dim: int, b: str, s_step: float, dps: int, refinement, theta_lo: float = None,
                        theta_hi: float = None, absolute: bool = False, tilts: tuple = None,
                        widen: float = 1.0):
    """Composite Gauss-Legendre rule in theta for the law of s = cos(theta) with density
    proportional to (1 - s^2)^((d-3)/2) e^(b s) on [-1, 1] (b a decimal string: "0" for pi, kappa for
    the positive similarity under vMF).

    The theta range is where the density is at least 10^-(dps+12) of its maximum (or
    [theta_lo, theta_hi] if given); panels follow the density (log density change per panel
    bounded, so a concentrated law at large b, width ~ 1/sqrt(b) in theta, is resolved) and are
    at most ``s_step`` wide in s; all widths divided by ``refinement``.  Returns (s nodes,
    weights) as exact arb midpoints (precision dps + 10 digits).  The weights are probabilities
    (normalised on the rule) unless ``absolute``: then they are the pi-masses c_d sin^(d-2)(theta)
    d theta of the panels (b must be "0"), whose sum is pi([theta_lo, theta_hi]).

    ``tilts`` (floats t): the rule also serves the laws tilted by e^{t cos theta} (the integrands'
    leading factors, e.g. e^{s/tau} for mu = E e^{s/tau}); with it, panels deep below the peaks of
    the law and of every tilted law (D digits, D >= 5) are wider (``_theta_cuts``): their error,
    relative to their own mass, may grow by 10^(D - 5).

    ``widen`` = W >= 1: panels up to W s_step wide in s and W times the log-density drop; a panel r
    times as wide as the unwidened one at its start (r <= W, rounded up to a quarter) gets
    ``widened_nodes(nodes, r)`` nodes, so that no panel's Gauss error bound is larger than at W = 1.
    """
    arb = flint.arb
    b_float = float(b)
    lo, hi = sphere_theta_range(dim, b_float, dps + 12)
    if theta_lo is not None:
        lo, hi = theta_lo, theta_hi
    nodes = sphere_panel_nodes(dps) + int(4 * (refinement - 1))
    depth = None
    if tilts is not None:
        laws = [b_float + t for t in (0.0,) + tuple(tilts)]
        tops = []
        for bb in laws:      # each law's peak on [lo, hi]
            mode = min(max(sphere_mode_theta(dim, bb), lo), hi)
            tops.append(max(_log_density_theta(dim, bb, th) for th in (mode, lo, hi)))
        ln10 = math.log(10)

        def depth(theta):
            return min((top - _log_density_theta(dim, bb, theta)) / ln10 for bb, top in zip(laws, tops))
    cuts, ratios = _theta_cuts(dim, b_float, s_step, lo, hi, refinement, DROP_PER_PANEL, depth, nodes,
                               widen, widened_nodes(nodes, widen))
    counts = [widened_nodes(nodes, _ratio_step(r, widen)) for r in ratios]
    saved = flint.ctx.prec
    prec = int((dps + 10) * 3.3219280948873626) + 16
    flint.ctx.prec = prec
    try:
        b_arb = arb(b)
        mode = sphere_mode_theta(dim, b_float)
        mode = min(max(mode, lo), hi)
        sin_m, cos_m = arb(mode).sin_cos()
        # log density at the (float) mode, so that the weights stay near 1 at the peak
        top = b_arb * cos_m + ((dim - 2) * sin_m.log() if dim > 2 and sin_m.mid() > 0 else 0)
        s_nodes, weights = [], []
        for a, c, count in zip(cuts[:-1], cuts[1:], counts):
            if c <= a:
                continue
            gx, gw = gauss_legendre_arb(count, prec)
            a = arb.pi() if a == math.pi else arb(a)
            c = arb.pi() if c == math.pi else arb(c)
            half_w, mid = (c - a) / 2, (a + c) / 2
            for xi, wi in zip(gx, gw):
                sin_th, cos_th = (mid + half_w * xi).sin_cos()
                s_nodes.append(cos_th)
                if absolute:
                    weights.append(wi * half_w * sin_th ** (dim - 2))
                else:
                    log_w = b_arb * cos_th - top
                    if dim > 2:
                        log_w += (dim - 2) * sin_th.log()
                    weights.append(wi * half_w * log_w.exp())
        if absolute:
            d = arb(dim)
            c_d = (d / 2).gamma() / (arb.pi().sqrt() * ((d - 1) / 2).gamma())
            weights = [w * c_d for w in weights]
        else:
            total = sum(weights, arb(0))
            weights = [v / total for v in weights]
        return tuple(v.mid() for v in s_nodes), tuple(v.mid() for v in weights)
    finally:
        flint.ctx.prec = saved
