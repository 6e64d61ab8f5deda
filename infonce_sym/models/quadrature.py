"""Quadrature rules in FLINT arb: Gauss-Legendre nodes and the composite rule for the law of
s = cos(theta) of the sphere model (``SphereModel.negative_atoms``)."""
from __future__ import annotations

import math
from functools import lru_cache

import flint
import mpmath
import numpy as np

__all__ = ["widened_nodes", "gauss_legendre_arb", "sphere_rule", "sphere_rule_arb", "arb_to_mpf", "sphere_density_rule",
           "sphere_theta_range", "sphere_mode_theta", "sphere_shared_rule"]


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
    # hypot: (d - 2)^2 + 4 b^2 underflows to 0 at d = 2 and |b| < 1e-162 (then 0/0; c = sign b there)
    c = 2 * b / ((dim - 2) + math.hypot(dim - 2, 2 * b))
    return math.acos(max(-1.0, min(1.0, c)))


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


def _log_peak(dim, b):
    """The maximum of l = (d - 2) log sin(theta) + b cos(theta) over [0, pi] (at ``sphere_mode_theta``)."""
    return _log_density_theta(dim, b, sphere_mode_theta(dim, b))


def _digits_below_peaks(dim, laws):
    """theta -> the digits by which the least deep of ``laws`` (values of b) lies below its peak there."""
    tops = [_log_peak(dim, b) for b in laws]
    return lambda theta: min((top - _log_density_theta(dim, b, theta)) / math.log(10) for b, top in zip(laws, tops))


# the trapezoid rule in theta aims this many digits beyond its target (``_trapezoid_plan``)
TRAPEZOID_SAFETY = 3


def _strip_growth(dim, laws, eta):
    """max over the laws b of sup_theta log|f_b(theta + i eta)| - sup_theta log f_b(theta), where
    f_b = sin^(d-2)(theta) e^(b cos theta): |sin(theta + i eta)|^2 = sin^2 theta + sinh^2 eta and
    Re cos(theta + i eta) = cos theta cosh eta (scanned on 4097 points of [0, pi] and the modes)."""
    theta = np.concatenate([np.linspace(0.0, math.pi, 4097), [sphere_mode_theta(dim, b) for b in laws]])
    sin2, cos = np.sin(theta) ** 2, np.cos(theta)
    growth = -math.inf
    for b in laws:
        top = _log_peak(dim, b)
        shifted = b * cos * math.cosh(eta)
        if dim > 2:
            shifted = shifted + (dim - 2) / 2 * np.log(sin2 + math.sinh(eta) ** 2)
        growth = max(growth, float(shifted.max()) - top)
    return growth


def _log_mass_over_peak(dim, b, h, shift, lo, hi):
    """log of h sum f_b(theta_j) / max f_b over the nodes theta_j = (j + shift) h in [lo, hi] (floats)."""
    j = np.arange(math.ceil(lo / h - shift - 1e-9), math.floor(hi / h - shift + 1e-9) + 1)
    theta = (j + shift) * h
    top = _log_peak(dim, b)
    with np.errstate(divide="ignore"):
        log_f = b * np.cos(theta) + ((dim - 2) * np.log(np.abs(np.sin(theta))) if dim > 2 else 0.0)
    log_f = log_f - top
    peak = float(log_f.max()) if len(log_f) else -math.inf
    if peak == -math.inf:
        return -math.inf         # no node where the law has mass: the grid is too coarse to see it
    return peak + math.log(h * float(np.exp(log_f - peak).sum()))


def _trapezoid_plan(dim, laws, s_step, dps, refinement, lo, hi, depth):
    """(N, shift) of the trapezoid rule theta_j = (j + shift) pi / N on [lo, hi], or None where it
    does not apply.

    In theta the integrands are F = f_b(theta) g(cos theta), f_b = sin^(d-2) theta e^(b cos theta) (b over
    ``laws``: the law and its tilts) and g bounded by 1 and analytic where |Im| of the exponent's s/s_step is
    below pi/2: e^{-c x} with x = e^{cos(theta)/s_step}, |sin theta| sinh eta / s_step < pi/2.  F extended
    evenly about 0 and pi is 2 pi-periodic, entire for even d; the periodic trapezoid rule with 2N points
    (h = pi/N; by the symmetry, the N nodes of [0, pi] with weights h, or h/2 at 0 and pi) errs by at most
    4 pi M / (e^{2 N eta} - 1), M = sup |F| on the strip |Im theta| < eta (Trefethen and Weideman, SIAM
    Review 56 (2014), Thm. 3.2), and M <= e^{G(eta)} max f_b (``_strip_growth``).  The step is the
    largest that this bound, relative to the integral of each law (its mass on the nodes over its peak),
    allows at 10^-(dps + TRAPEZOID_SAFETY), over eta up to 0.9 of its limit.  Nodes outside [lo, hi] are
    dropped: both ends must lie at least dps + 11 digits below every law's peak (``depth``) or be a
    pole.  For odd d, F has |theta|^(d-2) at a pole (where the range reaches it, or lies within it):
    its Fourier coefficients ~ 2 A (d-2)!/n^(d-1), A = lim f_b/theta^(d-2) = e^{+-b}, add
    8 pi A (d-2)!/(2N)^(d-1) at most; that must be below the same target.  ``refinement`` r (the
    precision check): N r nodes, shifted by half a step (no node in common with the first pass)."""
    for end in (lo, hi):
        if 0.0 < end < math.pi and (depth is None or depth(end) < dps + 11):
            return None
    sin_max = 1.0 if lo <= math.pi / 2 <= hi else max(math.sin(lo), math.sin(hi))
    eta_max = math.asinh(math.pi * s_step / (2 * max(sin_max, 1e-300)))
    digits = (dps + TRAPEZOID_SAFETY) * math.log(10)
    target = digits + math.log(4 * math.pi)
    best = None
    for i in range(1, 19):
        eta = eta_max * i / 20
        growth = _strip_growth(dim, laws, eta)
        n = (target + growth) / (2 * eta)            # 4 pi M / e^{2 N eta} at 10^-(dps+safety) of max f
        if best is None or n < best[0]:
            best = (n, eta, growth)
    _, eta, growth = best
    shift = 0.0 if refinement == 1 else 0.5
    n = max(8, math.ceil((target + growth) / (2 * eta)))
    for _ in range(8):
        h = math.pi / n
        masses = [_log_mass_over_peak(dim, b, h, shift, lo, hi) for b in laws]
        if min(masses) == -math.inf:
            n *= 4
            continue
        # the bound against the smallest law's integral (a law's mass over its peak, on the nodes)
        need = (target + growth - min(masses)) / (2 * eta)
        if dim % 2 == 1:
            for b, mass in zip(laws, masses):
                top = _log_peak(dim, b)
                for log_a in (b - top, -b - top):
                    log_term = math.log(8 * math.pi) + log_a + math.lgamma(dim - 1) - mass + digits
                    need = max(need, math.exp(min(log_term / (dim - 1), 700.0)) / 2)
        if need > 1e6:
            return None
        if n >= need:
            return math.ceil(n * refinement), shift
        n = math.ceil(need)
    return None


def _rule_output(dim, s_nodes, weights, absolute):
    """(s nodes, weights) as exact arb midpoints: the weights times c_d (pi-masses) if ``absolute``,
    else normalised to probabilities."""
    arb = flint.arb
    if absolute:
        d = arb(dim)
        c_d = (d / 2).gamma() / (arb.pi().sqrt() * ((d - 1) / 2).gamma())
        weights = [w * c_d for w in weights]
    else:
        total = sum(weights, arb(0))
        weights = [v / total for v in weights]
    return tuple(v.mid() for v in s_nodes), tuple(v.mid() for v in weights)


def _trapezoid_nodes(plan, lo, hi):
    """The indices j of the nodes (j + shift) pi / N in [lo, hi]."""
    n, shift = plan
    h = math.pi / n
    return range(math.ceil(lo / h - shift - 1e-12), math.floor(hi / h - shift + 1e-12) + 1)


def _trapezoid_count(plan, lo, hi):
    return len(_trapezoid_nodes(plan, lo, hi))


def _trapezoid_rule(dim, b, plan, dps, lo, hi, absolute, support=None):
    """``sphere_density_rule`` on the trapezoid plan (N, shift) of ``_trapezoid_plan``: nodes
    theta_j = (j + shift) pi/N in [lo, hi], weights h f(theta_j) (h/2 at theta = 0 or pi); with
    ``support`` = (a, b), the weights of the nodes outside [a, b] are 0 (the nodes are kept)."""
    arb = flint.arb
    n, shift = plan
    saved = flint.ctx.prec
    flint.ctx.prec = int((dps + 10) * 3.3219280948873626) + 16
    try:
        b_arb = arb(b)
        h = arb.pi() / n
        mode = min(max(sphere_mode_theta(dim, float(b)), lo), hi)
        sin_m, cos_m = arb(mode).sin_cos()
        top = b_arb * cos_m + ((dim - 2) * sin_m.log() if dim > 2 and sin_m.mid() > 0 else 0)
        s_nodes, weights = [], []
        for j in _trapezoid_nodes(plan, lo, hi):
            if not 0 <= j + shift <= n:
                continue
            theta = h * (arb(j) + shift) if shift else h * j
            sin_th, cos_th = theta.sin_cos()
            weight = h / 2 if j + shift in (0, n) else h
            if not absolute and dim > 2 and (sin_th.is_zero() or not sin_th > 0):
                continue                 # a pole, where the density is 0 (the same node for every law)
            if support is not None and not support[0] <= (j + shift) * math.pi / n <= support[1]:
                value = arb(0)
            elif absolute:
                value = weight * sin_th ** (dim - 2) if dim > 2 else weight
            else:
                log_w = b_arb * cos_th - top
                if dim > 2:
                    log_w += (dim - 2) * sin_th.log()
                value = weight * log_w.exp()
            s_nodes.append(cos_th)
            weights.append(value)
        return _rule_output(dim, s_nodes, weights, absolute)
    finally:
        flint.ctx.prec = saved


def _gauss_panels(dim, b_float, s_step, dps, refinement, lo, hi, tilts, widen):
    """(cuts, Gauss nodes per panel) of ``sphere_density_rule``'s composite Gauss rule."""
    nodes = sphere_panel_nodes(dps) + int(4 * (refinement - 1))
    depth = None
    if tilts is not None:
        laws = [b_float + t for t in (0.0,) + tuple(tilts)]
        tops = []
        for bb in laws:      # each law's peak on [lo, hi]
            mode = min(max(sphere_mode_theta(dim, bb), lo), hi)
            tops.append(max(_log_density_theta(dim, bb, th) for th in (mode, lo, hi)))
        ln10 = math.log(10)

        def digits_below_peaks(theta):
            return min((top - _log_density_theta(dim, bb, theta)) / ln10 for bb, top in zip(laws, tops))
        depth = digits_below_peaks
    cuts, ratios = _theta_cuts(dim, b_float, s_step, lo, hi, refinement, DROP_PER_PANEL, depth, nodes,
                               widen, widened_nodes(nodes, widen))
    return cuts, [widened_nodes(nodes, _ratio_step(r, widen)) for r in ratios]


# a shared rule (``sphere_shared_rule``) is taken when it has at most this many times the nodes of the
# larger of the laws' own trapezoid rules
SHARED_RULE_EXCESS = 1.1


@lru_cache(maxsize=16)
def sphere_shared_rule(dim: int, laws: tuple, s_step: float, dps: int, refinement, widen: float = 1.0):
    """One trapezoid rule in theta for several laws (``laws``: (b, theta_lo, theta_hi, tilts) each, as
    ``sphere_density_rule`` takes them): (s nodes, (weights of each law)), each law's weights its
    probabilities on the nodes of its own range [theta_lo, theta_hi] and exactly 0 outside it (the
    nodes its own rule would drop).  The grid is that of ``_trapezoid_plan`` for all the laws and their
    tilts at once over the union of the ranges, so its bound holds for each.  None unless that plan
    exists and has at most SHARED_RULE_EXCESS times the nodes of the larger law's own plan (both must
    exist): then atoms x = e^{s/tau}/mu on shared nodes let one set of band exponentials at an outer
    node serve every law (``_Atoms``).  Each law's own rule must be its trapezoid rule (fewer nodes than
    its Gauss panels, ``widen`` as in ``sphere_density_rule``)."""
    all_laws = []
    own = []
    for b, lo, hi, tilts in laws:
        bb = [float(b)] + [float(b) + t for t in tilts]
        all_laws += bb
        plan = _trapezoid_plan(dim, bb, s_step, dps, refinement, lo, hi, _digits_below_peaks(dim, bb))
        if plan is None:
            return None
        count = _trapezoid_count(plan, lo, hi)
        if count >= sum(_gauss_panels(dim, float(b), s_step, dps, refinement, lo, hi, tilts, widen)[1]):
            return None
        own.append(count)
    lo = min(law[1] for law in laws)
    hi = max(law[2] for law in laws)
    # every end of the union is an end of some law's range, where all that law's laws are negligible; the
    # others are below their thresholds there too (unimodal densities, their own ranges inside)
    plan = _trapezoid_plan(dim, all_laws, s_step, dps, refinement, lo, hi, lambda theta: math.inf)
    if plan is None or _trapezoid_count(plan, lo, hi) > SHARED_RULE_EXCESS * max(own):
        return None
    nodes = weights = None
    for b, law_lo, law_hi, _ in laws:
        s_nodes, w = _trapezoid_rule(dim, b, plan, dps, lo, hi, False, (law_lo, law_hi))
        if nodes is None:
            nodes, weights = s_nodes, []
        weights.append(w)
    return nodes, tuple(weights)


@lru_cache(maxsize=32)
def sphere_density_rule(dim: int, b: str, s_step: float, dps: int, refinement, theta_lo: float = None,
                        theta_hi: float = None, absolute: bool = False, tilts: tuple = None,
                        widen: float = 1.0, trapezoid: bool = True):
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

    With ``trapezoid`` (the default), the trapezoid rule in theta of ``_trapezoid_plan`` replaces the
    panels where it applies (both ends of the range negligible for every law, or poles) and has fewer
    nodes: for a concentrated law, whose Gaussian-like tails each Gauss panel may only cross with a
    bounded log-density drop, 5-30x fewer ((768, 5000, 0.05): 227 against 6317 nodes for the vMF
    positive similarity at 115 digits); where the s-steps of e^{-c x} set the scale, 15-50% fewer
    (pi at (512, 0.01): 6344 against 7649).
    """
    arb = flint.arb
    b_float = float(b)
    lo, hi = sphere_theta_range(dim, b_float, dps + 12)
    if theta_lo is not None:
        lo, hi = theta_lo, theta_hi
    cuts, counts = _gauss_panels(dim, b_float, s_step, dps, refinement, lo, hi, tilts, widen)
    # the trapezoid rule in theta instead, where it applies and needs fewer nodes (a concentrated law,
    # whose Gaussian-like tails cost Gauss panels a bounded log-density drop each, costs it none)
    laws = [b_float] + [b_float + t for t in (tilts or ())]
    plan = (_trapezoid_plan(dim, laws, s_step, dps, refinement, lo, hi, _digits_below_peaks(dim, laws))
            if trapezoid else None)
    if plan is not None and _trapezoid_count(plan, lo, hi) < sum(counts):
        return _trapezoid_rule(dim, b, plan, dps, lo, hi, absolute)
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
        return _rule_output(dim, s_nodes, weights, absolute)
    finally:
        flint.ctx.prec = saved
