"""Exact values of the Section 3 quantities at any k, by one-dimensional transforms.

For S > 0 (MATH.md, "Exact finite-k values"):

    E log S = int_0^oo (e^{-t} - E e^{-tS}) dt/t,        E[A/B] = int_0^oo E[A e^{-tB}] dt,

and with i.i.d. negatives E e^{-tS} is a one-dimensional transform raised to the
power k.  Everything is written relative to mu = E e^{s/tau} so that the *gaps*
(∫CE - R, ∫CE - R~, search CE - R~) come out directly, with no cancellation:

    ∫CE - R~  = -E log(mu_hat/mu)            (DCL gap, eq. (31))
    ∫CE - R   = -E log(mu_hat/mu + W/k)      (W = e^{p/tau}/mu, p the positive similarity)
    search CE - R~ = -(1/tau) E[ sum_j r_j (s_j - m) / sum_j r_j ]   (r = dM/dpi, m = E_M p)

except R(1) itself, which is integrated directly, R(1) = E log(1 + V/W) =
int_0^oo E e^{-tW} E(1 - e^{-tV}) dt/t (V = e^{s/tau}/mu): at small tau and large kappa
R(1) ~ 1e-33 is far below ∫CE ~ 76, and ∫CE - gap would lose those digits.

Integrands are formed as e^{-t} expm1(k log1p(E g(.)) ...) with g(y) = e^y - 1 - y, so
nothing of size one is subtracted from something of size one.  The working
precision is digits + 2 log10(k) + guard, and every value is recomputed at a
higher precision with every quadrature rule refined (``REFINED``) to confirm the
requested digits.

The outer integrals run in y = log c (``_outer``): by the trapezoid rule on the whole line where
their range is short (``_trapezoid_integral``; the integrands are analytic and bounded in the strip
|Im y| < pi/2, so the rule converges geometrically at about 15 nodes per unit of y for 56 digits,
and its nodes below the first one are summed in closed form from the head power series), by
adaptive Gauss-Legendre panels where it is long (``_outer_integral``: small tau, where the range
runs to hundreds and the integrand is smooth on most of it; the per-c cells at large kappa).

The inner sums run in FLINT/Arb (python-flint): the band exponentials at an outer node
are computed once and serve every weight vector that shares the atoms (negatives and
positives share x = e^{s/tau}/mu; the ratio and its numerator share r), the DCL and
InfoNCE integrals share one outer node grid, and the Taylor parts come from prefix
power series (``_Atoms``).

The sphere (``_SphereAnchor``): each law has its own density-adapted rule in theta
(``models.quadrature.sphere_density_rule``): pi for the negatives, the vMF positive
similarity (concentrated near s = 1 at width ~1/kappa when kappa >> d) for the positives (each
over its law's range joined with that of the law tilted by e^{s/tau}, resp. e^{-p/tau}, which
carry mu = E e^{s/tau} and E 1/W), and
for the ratio integral pi's masses on [s_cut, 1] at s-steps 2/kappa, twice the scale of e^{-c r}
(as the other two rules take s-steps 2 tau: RULE_WIDEN, with ``widened_nodes`` nodes per panel).
Where a law's range ends where every law it serves is negligible (or at a pole), the rule is the
trapezoid rule in theta instead if that has fewer nodes (``models.quadrature._trapezoid_plan``: the
integrands are periodic in theta and analytic in a strip): 15-50% fewer for pi at small tau, 5-30x
fewer for a concentrated vMF positive similarity, none for d = 3 (whose pole term forbids it).  Where
both laws' rules are trapezoid rules of similar size, one grid serves both (``sphere_shared_rule``), so
that the band exponentials at an outer node are computed once for pi and M.
Where that fixed rule would need more than ``_ratio_rule_panels`` panels (600 at 30 digits, 1100
at 100: kappa above ~400), the ratio integral instead builds its rule per outer node c
(``_RatioCells``): in u = kappa (1 - s), r = r_top e^{-u}, and e^{-cr} changes on the unit scale in u only near its transition
u_c = log(c r_top); unit cells there, cells as wide as pi's or M's density allows elsewhere
(where e^{-cr} is 0 or 1 to working precision, or its power series in c r has a few terms), from
a cache of aligned dyadic cells that neighbouring c share.
∫CE and E|dM/dpi|^2 are closed forms (scaled Bessel functions, log domain).  Where a value is
a difference of much larger parts (R = ∫CE - gap), the precision is raised by the digits lost.

The precision check: the second pass recomputes everything from scratch at CHECK_DIGITS (8)
more digits with every rule refined (REFINED = 1.1: panels 1.1x narrower and set for the higher
precision, so that no node of the first pass is reused (the trapezoid rules in theta: 1.1x the nodes,
set for the higher precision, shifted by half a step), the theta ranges extended by 8 digits of
mass, the adaptive outer panels accepted against a 10^-8 tighter tolerance and capped 1.1x
narrower, the trapezoid's step 1.1x smaller, set for the higher precision and its grid shifted by
half a step; the per-c cells of ``_RatioCells`` sit on a lattice 1.1x finer, the Taylor series
and kernel moments of their closed forms run to more terms, and the Gauss rule of its head in c
has more nodes).  Quadrature, truncation and rounding errors of the first pass therefore change
in the second, and, every rule converging geometrically in its refinement (the trapezoid's error
e^{-2 pi b/h} becomes about its 1.1th power, a Gauss panel's rho^{-2n} falls by at least 1.1^{2n},
about 10^3 at 40 nodes, and every truncation and adaptive tolerance is 10^-8 tighter), the second
pass is far more accurate: the difference of the two is the first pass's error.  The agreement is
reported and must reach the digits asked for.  When it does not, both passes are run once more at
GUARD + twice the shortfall more digits (at small tau the first pass can lose more than the
cancellation measured above); the result stands only if those two passes agree.  The closed forms
are computed in arb, whose balls bound their own rounding.  The shared parts (the transform
identities, the band/Taylor split) are exact identities, checked against independent routes in
the tests.
"""
from __future__ import annotations

import bisect
import importlib
import math
import operator
import time
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import accumulate

import flint             # FLINT/Arb: the inner sums run in C
import mpmath

from ..errors import InputError, check_digits, check_k, check_tau
from ..models.laws import KERNEL_VANISHES, AnchorLaw, SphereModel, log_partition_arb, mean_resultant_arb
from ..models.quadrature import (gauss_legendre_arb, sphere_density_rule, sphere_panel_nodes, sphere_shared_rule,
                                 sphere_theta_range)

arb = flint.arb
_mul = operator.mul

__all__ = ["exact_values", "ExactValues", "QUANTITIES", "benchmark_exact", "benchmark_line", "BENCHMARK_POINTS"]

# The precision check's second evaluation: CHECK_DIGITS more digits and every quadrature rule
# refined (panels REFINED times narrower, hence different and more nodes everywhere; the
# trapezoid's step REFINED times smaller and its grid shifted by half a step).  Every rule converges
# geometrically in its refinement, so this pass is far more accurate than the first and their
# difference measures the first pass's error: at eight benchmark points the agreement digits are
# the same as with (1.25, 12), which cost 20% more CPU in all.
REFINED = 1.1
CHECK_DIGITS = 8

# The Taylor bands: atoms with c x <= TAYLOR_CUT (or |c (x - 1)| <= TAYLOR_CUT for the centred
# sums) come from prefix power series, the band above it from direct exponentials.  A wider
# Taylor band means fewer direct exponentials per outer node (the band spans log(Lambda/TAYLOR_CUT)
# in log x) for a few more series terms (_series_terms); the alternating Taylor sums lose at
# most e^(2 TAYLOR_CUT) in relative accuracy, which _guard_bits adds to the 32 guard bits.
# 4 rather than 1: 6-20% less CPU at (512, 200, 0.01, 1e9), (3, 1000, 0.1, 16), (3, 4, 0.01, 10),
# the same values and agreement digits.
TAYLOR_CUT = 4
# S^2's transforms (``_Sphere2Law``) by their closed-form moment series where c max X <= this, with
# GUARD_MOMENT_BITS for the alternating sum.  The series length is the Taylor band's (TAYLOR_CUT^T/T! <
# 10^-(dps+5)); at half that cut the truncation (carried as the ball's radius) is 2^-T smaller again,
# below the rounding, so the balls are as narrow as the incomplete gamma functions' they replace
MOMENT_SERIES_CUT = TAYLOR_CUT / 2
GUARD_MOMENT_BITS = int(math.ceil(2 * MOMENT_SERIES_CUT / math.log(2))) + 8
# The prefix tables keep the series at every PREFIX_STRIDE-th atom only (and at the last): the Taylor
# cuts are rounded down to those indices, and the few atoms between a cut and its rounding join the
# band's direct exponentials (c x just below TAYLOR_CUT: no cancellation).  Tables at every atom held
# atoms x terms arbs per weight vector and centre (780 MB at (512, 200, 0.01, 1e9) and 100 digits),
# whose first touch alone cost about a quarter of the CPU
PREFIX_STRIDE = 8
# the outer integrals' series heads reach t = k c up to e^HEAD_LOG_REACH (and c up to 1/(64 spread))
HEAD_LOG_REACH = -4

# The sphere rules' panels (models.quadrature.sphere_density_rule, widen): up to twice the s-width and
# the log-density drop, up to 1.51x the nodes (per panel, by how much wider it is), the same error
# bound per panel.  At 100 digits 14-22% fewer atoms at (512, 200, 0.01, 1e9) and (3, 1000, 0.1, 16),
# and the same strings at all 13 BENCHMARK_POINTS; (512, 200, 0.01, 1e9) 14.1 -> 11.0 s, (768, 1e4,
# 0.01, 1e9) 20.9 -> 16.7 s.  3 gives 3% fewer atoms again.
RULE_WIDEN = 2.0

# the fixed ratio rule of the sphere (s-steps 1/kappa, ~40 nodes each) serves up to this many
# panels at 30 digits (the rules aiming at 39), RATIO_RULE_PANELS_100 at 100 (aiming at 115), in
# between linearly; beyond, the per-c cells of ``_RatioCells``. The fixed rule's prefix tables cost
# atoms x series terms for two weight vectors. At 30 digits, 12 points with 100-1500 panels took 25.4 s
# in all with 1500, 19.7 s with 600, 19.3 s with 300 (where (256, 400, 0.07, 65536), 419 panels, lost
# 25%), 22.8 s with 150; (66, 1050.37, 0.09, 288), 1106 panels, 4.2 s on the rule, 1.1 s on the cells.
# At 100 digits the cells cost more: (256, 400, 0.07, 65536), 616 panels, 13.4 s on the rule, 24.5 s on
# the cells; (1024, 600, 0.05, 100), 904: 19.1 s against 27.7 s; (416, 1079.59, 0.295, 5760), 1256:
# 29.0 s against 23.0 s. The same digits on either route.  With the rules widened (RULE_WIDEN), at 100
# digits: (1024, 600, 0.05, 100) 17.2 s on the rule, 17.4 s on the cells; (416, 1079.59, 0.295, 5760)
# 22.6 s against 14.4 s: the crossover still lies between 900 and 1250 panels.  Re-measured with every
# other change since (Dec 2026, 100 digits, CPU of both passes), the cells forced: (512, 200, 0.01, 1e9)
# 13.4 s against 6.8 s on the rule, (128, 100, 0.02, 4096) 16.2 s against 6.0 s, (256, 400, 0.07, 65536)
# 9.4 s against 6.1 s
RATIO_RULE_PANELS = 600
RATIO_RULE_PANELS_100 = 1100


def _ratio_rule_panels(dps):
    """The panel count up to which the fixed ratio rule serves, for rules aiming at dps digits."""
    share = min(1.0, max(0.0, (dps - 39) / (115 - 39)))
    return RATIO_RULE_PANELS + share * (RATIO_RULE_PANELS_100 - RATIO_RULE_PANELS)

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
    seconds: float = 0.0                 # CPU (process time) of both passes
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


def _to_arb(x):
    """mpf (or arb) -> arb, exactly."""
    if isinstance(x, arb):
        return x
    sign, man, exp, _ = x._mpf_
    return arb((int(-man if sign else man), int(exp)))


def _from_arb(a):
    """The midpoint of an arb ball as an mpf (rounded to the mpmath precision)."""
    man, exp = a.mid().man_exp()
    return mpmath.mpf((int(man), int(exp)))


def _arbs(values):
    return [_to_arb(v) for v in values]


def _arb_max(a, b):
    return a if a.mid() > b.mid() else b


def _suffix_sums(u):
    """out[i] = sum_{l >= i} u_l (length len(u) + 1)."""
    out = list(accumulate(reversed(u), initial=arb(0)))
    out.reverse()
    return out


class _Atoms:
    """Atoms 0 <= x_1 <= ... <= x_n (arb) carrying several named weight vectors (any sign).

    For a given c the atoms split into bands: c x <= TAYLOR_CUT (a Taylor series about 0 whose
    coefficients are prefix sums of u e^{x X}, stored as FLINT power series at every
    ``stride``-th atom, the cut rounded down to one of those), c x >= Lambda (e^{-cx} below
    10^-dps, handled by suffix sums), and a band in between summed directly.  The band is about
    tau log(2 Lambda) wide in s, and its exponentials are computed once per c and shared by every
    weight vector asked for.
    Centred sums sum u g(-c(x - 1)), g(y) = e^y - 1 - y, use a Taylor series about 1
    for |c(x - 1)| <= TAYLOR_CUT instead, so that nothing of size one cancels.
    ``scaled={name: (base, factors)}`` declares w[name] = w[base] * factors atom by atom (the ratio
    rule's numerator): the two tables about 0 then grow together, name's series as factor times base's.
    """

    def __init__(self, x, weights, terms, big, scaled=None, stride=PREFIX_STRIDE):
        n = len(x)
        order = sorted(range(n), key=lambda i: x[i].mid())
        self.x = [x[i] for i in order]
        self.xm = [v.mid() for v in self.x]                     # exact, for the band cuts
        self.n = n
        self.stride = stride                                    # the tables' checkpoints
        self.terms = terms
        self.big = big                                          # Lambda
        xm1 = [v - 1 for v in self.x]
        self.w, self.suf0, self.suf1, self.support = {}, {}, {}, {}
        for name, u in weights.items():
            u = [u[i] for i in order]
            self.w[name] = u
            nz = [i for i, v in enumerate(u) if not v.is_zero()] or [0]
            self.support[name] = (nz[0], nz[-1])
            self.suf0[name] = _suffix_sums(u)
            self.suf1[name] = _suffix_sums(list(map(_mul, u, xm1)))
        # the factors in x's order as given; the two tables about 0 are always asked for together, and
        # a scalar product replaces a log and a second series exponential per atom
        self._scaled = {}
        for name, (base, factors) in (scaled or {}).items():
            if name in self._scaled or base in self._scaled:
                # the pair's tables grow in lockstep from the base's length: one pair per weight vector
                raise ValueError(f"{name!r} or {base!r} is already in a scaled pair")
            factors = [factors[i] for i in order]
            if not all(d.overlaps(b * f) for d, b, f in zip(self.w[name], self.w[base], factors)):
                raise ValueError(f"weights {name!r} are not those of {base!r} times the factors")
            self._scaled[name] = self._scaled[base] = (base, name, factors)
        self.direct = n <= 64          # few atoms: plain sums beat the band bookkeeping
        self._tables = {}              # (name, centre) -> [prefix series], grown on demand
        self._exps = {}                # centre -> [e^{(x_i - centre) X}], shared by the names
        self._polys = {}               # (name, centre, i, start, minus) -> arb_poly of a prefix's coefficients
        self._band = None              # (c, prec, lo, hi, [e^{-c x_i}, lo <= i < hi]) of the last node

    # ---------------------------------------------------------------- Taylor tables
    def _exp_series(self, centre, i):
        """e^{(x_i - centre) X} to ``terms`` coefficients (shared by every weight vector)."""
        exps = self._exps.setdefault(centre, [])
        while len(exps) <= i:
            y = self.x[len(exps)] - centre if centre else self.x[len(exps)]
            exps.append(flint.arb_series([0, y], prec=self.terms).exp())
        return exps[i]

    def checkpoint(self, i):
        """The largest index <= i at which the prefix tables keep their series (every stride-th atom,
        and the last)."""
        return self.n if i >= self.n else i - i % self.stride

    def built_to(self, name, centre):
        """The largest index whose prefix series is already built (0 when none is)."""
        table = self._tables.get((name, centre))
        return 0 if table is None else min((len(table) - 1) * self.stride, self.n)

    def prefix(self, name, centre, i):
        """sum_{l < i} u_l e^{(x_l - centre) X}: coefficient j is sum u (x - centre)^j / j!, for i a
        checkpoint (a multiple of the stride, or n and beyond).

        The tables keep the checkpoints' series, built only as far as asked for (the table about 0
        of the negatives, say, is only ever asked for below x = TAYLOR_CUT)."""
        i = min(i, self.n)
        if i != self.checkpoint(i):
            raise ValueError(f"prefix series are kept at multiples of {self.stride} only, not at {i}")
        slot = -(-i // self.stride)
        table = self._tables.get((name, centre))
        if table is None or len(table) <= slot:
            pair = self._scaled.get(name) if not centre else None
            if pair is None:
                self._extend(name, centre, slot)
            else:
                self._extend_pair(*pair, slot)
            table = self._tables[(name, centre)]
        return table[slot]

    def _term(self, ul, centre, l):
        """u_l e^{(x_l - centre) X} as +-e^{log |u_l| + yX}: one series exponential, no series product (a
        weight whose ball holds 0 but is not 0 times e^{yX} instead); None for u_l = 0."""
        if ul.is_zero():
            return None
        y = self.x[l] - centre if centre else self.x[l]
        if ul > 0:
            return flint.arb_series([ul.log(), y], prec=self.terms).exp()
        if ul < 0:
            return -flint.arb_series([(-ul).log(), y], prec=self.terms).exp()
        return ul * self._exp_series(centre, l)

    def _table(self, name, centre):
        table = self._tables.get((name, centre))
        if table is None:
            table = self._tables[(name, centre)] = [flint.arb_series(0, prec=self.terms)]
        return table

    def _spans(self, table, slot):
        """(first atom, end) of each table slot from len(table) to slot."""
        for s in range(len(table), slot + 1):
            yield min((s - 1) * self.stride, self.n), min(s * self.stride, self.n)

    def _extend(self, name, centre, slot):
        table = self._table(name, centre)
        u, acc = self.w[name], table[-1]
        for first, end in self._spans(table, slot):
            for l in range(first, end):
                term = self._term(u[l], centre, l)
                if term is not None:
                    acc = acc + term
            table.append(acc)

    def _extend_pair(self, base, name, factors, slot):
        """The tables about 0 of ``base`` and of ``name`` (= base times factors) up to slot, together."""
        table, scaled = self._table(base, 0), self._table(name, 0)
        u, acc, acc_scaled = self.w[base], table[-1], scaled[-1]
        for first, end in self._spans(table, slot):
            for l in range(first, end):
                term = self._term(u[l], 0, l)
                if term is not None:
                    acc = acc + term
                    acc_scaled = acc_scaled + factors[l] * term
            table.append(acc)
            scaled.append(acc_scaled)

    def total_series(self, name, centre):
        return self.prefix(name, centre, self.n)

    def prefix_value(self, name, centre, i, m, start=0):
        """sum_{j >= start} a_j m^j for the coefficients a_j of prefix(name, centre, i) (FLINT Horner);
        the polynomial is built once per prefix, since the cut indices recur from one outer node to the
        next."""
        key = (name, centre, i, start)
        poly = self._polys.get(key, False)
        if poly is False:
            coeffs = self.prefix(name, centre, i).coeffs()[start:]
            poly = self._polys[key] = flint.arb_poly(coeffs) if coeffs else None
        if poly is None:
            return arb(0)
        value = poly(m)
        return value * m ** start if start else value

    # ---------------------------------------------------------------- sums at one c
    def _cut(self, value):
        """Number of atoms with x <= value."""
        return bisect.bisect_right(self.xm, value.mid())

    def sums(self, c, requests):
        """For (name, kind) in requests: sum u h(c, x), h = e^{-cx} ("exp"), e^{-cx} - 1
        ("expm1") or g(-c(x - 1)) ("centred", c <= 1).  One set of band exponentials.  The Taylor
        cuts are rounded down to the tables' checkpoints: the band starts there."""
        if self.direct:
            return [self._direct(c, name, kind) for name, kind in requests]
        m = -c
        inv = 1 / c
        half = inv * TAYLOR_CUT
        a = d = None
        plans = []
        lo_b, hi_b = self.n, 0
        for name, kind in requests:
            if kind == "centred":
                if c.mid() > 1:
                    # the table about 1 serves the atoms with |c(x - 1)| <= TAYLOR_CUT: all of those below 1
                    raise ValueError(f"centred sums are for c <= 1, not c = {c.mid()}")
                start = self.checkpoint(self._cut(1 + half))
                end = self._cut(1 + self.big * inv)
            else:
                if a is None:
                    a, d = self.checkpoint(self._cut(half)), self._cut(self.big * inv)
                start, end = a, d
            plans.append((name, kind, start, end))
            if end > start:
                lo_b, hi_b = min(lo_b, start), max(hi_b, end)
        if hi_b > lo_b:
            last = self._band
            if last is not None and last[0] is c and last[1] == flint.ctx.prec and last[2] <= lo_b and hi_b <= last[3]:
                # the same node again (the outer integrand asks for E e^{-cW} after E e^{-cW} - 1 came out
                # below -1/2): its exponentials are those of the last call
                band = last[4][lo_b - last[2]:hi_b - last[2]]
            else:
                # (each exponential at the bits its term needs, 2^-(prec + 8) of the sum's largest weight
                # spread over the band, was measured at 100 digits: the 60% of the band with c x < 35 need
                # them all, the rest saved 11% of the exponentials' CPU, and the bookkeeping per node more:
                # (512, 200, 0.01, 1e9) 6.8 -> 7.3 s)
                band = list(map(arb.exp, map(m.__mul__, self.x[lo_b:hi_b])))
                self._band = (c, flint.ctx.prec, lo_b, hi_b, band)
        out = []
        for name, kind, start, end in plans:
            u = self.w[name]
            direct = (sum(map(_mul, u[start:end], band[start - lo_b:end - lo_b]), arb(0))
                      if end > start else arb(0))
            if kind == "exp":
                total = direct
                if start:
                    total += self.prefix_value(name, 0, start, m)
            elif kind == "expm1":
                total = direct - self.suf0[name][start]
                if start:
                    total += self.prefix_value(name, 0, start, m, 1)
            else:
                ec = c.exp()
                total = ec * direct - self.suf0[name][start] + c * self.suf1[name][start]
                if start:
                    total += self.prefix_value(name, 1, start, m, 2)
            out.append(total)
        return out

    def _direct(self, c, name, kind):
        u, x = self.w[name], self.x
        nc = -c
        total = arb(0)
        if kind == "exp":
            for ui, xi in zip(u, x):
                total += ui * (nc * xi).exp()
        elif kind == "expm1":
            for ui, xi in zip(u, x):
                total += ui * (nc * xi).expm1()
        else:
            for ui, xi in zip(u, x):
                y = xi - 1
                total += ui * ((nc * y).expm1() + c * y)
        return total

    # ---------------------------------------------------------------- helpers
    def log1p_series(self, name, k, dps):
        """E log(1 + X/k) in closed form, where a law has one (``_Sphere2Law``); None here."""
        return None

    def x_min(self, name):
        return self.x[self.support[name][0]]

    def spread(self, name, centre):
        lo, hi = self.support[name]
        return _arb_max(abs(self.x[lo] - centre), abs(self.x[hi] - centre))


def _gamma_lower_series(s, z):
    """gamma(s, z) = z^s e^-z sum_{n >= 0} z^n / (s (s+1) ... (s+n)) (s, z > 0): positive terms, no
    cancellation; once q = z/(s+n+1) < 1/2 the rest is below term q/(1 - q)."""
    eps = arb(2) ** (-flint.ctx.prec - 4)
    term = 1 / s
    total, n = term, 1
    while True:
        term = term * z / (s + n)
        total += term
        q = z / (s + n + 1)
        if q.mid() < 0.5 and term.mid() <= (eps * total).mid():
            return (s * z.log() - z).exp() * (total + arb(0, (term * q / (1 - q)).upper()))
        n += 1


def _gamma_lower(s, z):
    """gamma(s, z): its series for z <= s, Gamma(s) - Gamma(s, z) above (Gamma(s, z) < Gamma(s)/2
    there, nothing cancels).  Not arb's own: at s = 200, z = 148 it lost 280 of 180 bits, at z = 176
    it took 1 s, and at s = 1000, z = 400 it gave -417 bits in 3 ms."""
    return _gamma_lower_series(s, z) if z.mid() <= s.mid() else s.gamma() - _gamma_upper(s, z)


class _Sphere2Law:
    """E e^{-cX} in closed form on S^2 (d = 3), in place of the band sums of the atoms it wraps.

    X = e^{s/tau}/mu with s of density n(kappa) e^{kappa s} on [-1, 1], n(kappa) = kappa/(2 sinh kappa)
    (kappa = 0: pi's uniform law, n = 1/2; else the vMF positive similarity).  With y = e^{s/tau},
    t = c y/mu, alpha = kappa tau, a = c e^{-1/tau}/mu, b = c e^{1/tau}/mu:

        E e^{-cX} = n(kappa) tau (mu/c)^alpha int_a^b t^(alpha-1) e^-t dt,

    the integral being Gamma(alpha, a) - Gamma(alpha, b) for a >= alpha and gamma(alpha, b) -
    gamma(alpha, a) below (no cancellation: the second term is the smaller), and at alpha = 0
    E1(a) - E1(b), or 1 - E e^{-cX} = tau/2 (Ein(b) - Ein(a)) for a < 1.  E e^{-cX} - 1 and
    e^c E e^{-cX} - 1 (E X = 1 when mu = E e^{s/tau}) cancel for small c: each is computed at the
    working precision plus the bits it loses.  The moment series about 0 is closed form too
    (``total_series``); everything else (the series about 1, the Frullani sum, x_min, spread) is
    read from the atoms."""

    def __init__(self, atoms, kappa, tau, log_mu):
        self.atoms = atoms
        self.kappa, self.tau, self.log_mu = kappa, tau, log_mu
        self._series = {}
        self.alpha = kappa * tau
        self.log_lo, self.log_hi = -1 / tau - log_mu, 1 / tau - log_mu           # log(e^{-+1/tau}/mu)
        self.log_prefactor = self._log_density_norm(kappa) + tau.log()
        # log2 E X and log2 Var X (E X^j = n(kappa)/(n(kappa + j/tau) mu^j)), for the bits that
        # E e^{-cX} - 1 (~ c E X) and e^c E e^{-cX} - 1 (~ c^2 Var X/2) lose
        moment = [self._log_moment(kappa, tau, log_mu, j).exp() for j in (1, 2)]
        self.log2_mean = float(moment[0].log().mid()) / math.log(2)
        self.log2_var = float((moment[1] - moment[0] ** 2).log().mid()) / math.log(2)
        self._last = None       # (c, working prec, bits, transforms) of the last node: asked again there
        self._moment_polys = {}  # bits -> the moment series as an arb_poly (``_moment_poly``)

    def log1p_series(self, name, k, dps):
        """E log(1 + X/k) by ``_log1p_series`` from the closed-form moments where max X <= k/64 (the whole
        law within the series' reach), else None (the caller sums over the atoms)."""
        x_max = self.log_hi.exp()
        if not (x_max * 64).mid() <= k:
            return None
        return _log1p_series(self.total_series(name, 0).coeffs(), arb(1), x_max, k, dps)

    def __getattr__(self, name):            # terms, w, x, x_min, spread, _polys: the atoms'
        return getattr(self.atoms, name)

    def total_series(self, name, centre):
        """``_Atoms.total_series``: coefficient j = E (X - centre)^j / j!.  About 0 in closed form, from
        E X^j = n(kappa)/(n(kappa + j/tau) mu^j) (no cancellation); about 1 for pi's law (alpha = 0) from
        those by ``_central_series`` where that holds the working precision; else the atoms'."""
        series = self._series.get(centre)
        if series is None:
            if centre == 0:
                series = self._raw_series(self.kappa, self.tau, self.log_mu)
            elif centre == 1 and self.alpha.is_zero():
                series = self._central_series()
            if series is None:
                series = self.atoms.total_series(name, centre)
            self._series[centre] = series
        return series

    @classmethod
    def _log_moment(cls, kappa, tau, log_mu, j):
        """log E X^j = log n(kappa) - log n(kappa + j/tau) - j log mu."""
        return cls._log_density_norm(kappa) - cls._log_density_norm(kappa + j / tau) - j * log_mu

    def _raw_series(self, kappa, tau, log_mu):
        """sum_j E X^j X^j / j! (X^j the series variable's power) at the current precision."""
        terms = self.atoms.terms
        return flint.arb_series([arb(1)] + [(self._log_moment(kappa, tau, log_mu, j) - arb(j + 1).lgamma()).exp()
                                            for j in range(1, terms)], prec=terms)

    def _central_series(self):
        """E (V - 1)^j / j!: the series e^{-X} E e^{VX}, formed at tau's midpoint with twice the working
        bits (its sums cancel: a few bits at tau = 0.01, about j log2(100) at tau = 50); tau's radius r
        then adds at most (4 j/tau^2) r E (V + 1)^j/j! to coefficient j (|dV/dtau| <= 2V/tau^2, so
        |d/dtau E (V - 1)^j| <= (2j/tau^2) E |V - 1|^(j-1) V <= (2j/tau^2) E (V + 1)^j; doubled).  E (V - 1)
        = 0 exactly.  None (the atoms' series is taken) when a coefficient holds fewer than the working bits."""
        prec, terms = flint.ctx.prec, self.atoms.terms
        try:
            flint.ctx.prec = 2 * prec + 64
            tau = arb(self.tau.mid())
            raw = self._raw_series(arb(0), tau, log_partition_arb(3, 1 / tau))
            central = (raw * flint.arb_series([0, -1], prec=terms).exp()).coeffs()     # e^{-X} E e^{VX}
            spread = (raw * flint.arb_series([0, 1], prec=terms).exp()).coeffs()       # E (V + 1)^j / j!
            bound = 4 / tau ** 2 * self.tau.rad()
            coeffs = [arb(1), arb(0)] + [central[j] + arb(0, (bound * j * spread[j]).upper()) for j in range(2, terms)]
        finally:
            flint.ctx.prec = prec
        if min(v.rel_accuracy_bits() for v in coeffs[2:]) < prec:
            return None
        return flint.arb_series(coeffs, prec=terms)

    @staticmethod
    def _log_density_norm(kappa):
        """log n(kappa) = log(kappa/(2 sinh kappa)) (log 1/2 at 0)."""
        if kappa.is_zero():
            return -arb(2).log()
        return kappa.log() - kappa - (-(-2 * kappa).expm1()).log()      # 2 sinh k = e^k (1 - e^-2k)

    @staticmethod
    def _at_midpoints(func, args, bits):
        """func at the (exact) midpoints of the balls args, at a precision raised until its value
        holds ``bits`` relative bits (arb's incomplete gamma functions can lose hundreds of bits to
        cancellation inside, and spread a ball argument's radius far beyond its effect)."""
        prec = flint.ctx.prec
        mids = [arb(v.mid()) for v in args]
        extra = 16
        try:
            for _attempt in range(6):
                flint.ctx.prec = bits + extra
                value = func(*mids)
                got = value.rel_accuracy_bits()
                if got >= bits:
                    break
                extra += max(32, min(bits - got, 8 * bits))
        finally:
            flint.ctx.prec = prec
        return value

    def _moment_poly(self, bits):
        """sum_{j >= 1} E X^j X^j / j! as an arb_poly (constant term 0) at ``bits`` bits rounded up to a
        multiple of 64, cached per such precision (``_raw_series``: closed-form moments)."""
        bits = -(-bits // 64) * 64
        poly = self._moment_polys.get(bits)
        if poly is None:
            prec = flint.ctx.prec
            flint.ctx.prec = bits
            try:
                coeffs = self._raw_series(self.kappa, self.tau, self.log_mu).coeffs()
            finally:
                flint.ctx.prec = prec
            coeffs[0] = arb(0)
            poly = self._moment_polys[bits] = flint.arb_poly(coeffs)
        return poly, bits

    def _series_minus_one(self, c, b, bits):
        """E e^{-cX} - 1 = sum_{j >= 1} (-c)^j E X^j / j! for b = c max X <= MOMENT_SERIES_CUT, a polynomial
        in place of the incomplete gamma functions (about 0.2 ms a node at 30 digits).  The terms from
        j = T (the series' length) on are below b^T/T! (1 - b/(T + 1))^-1 (E X^j <= (max X)^j), carried as
        the ball's radius; the alternating sum loses at most e^(2b) in relative accuracy, which the
        GUARD_MOMENT_BITS above ``bits`` cover."""
        poly, work = self._moment_poly(bits + GUARD_MOMENT_BITS)
        terms = poly.degree() + 1
        prec = flint.ctx.prec
        flint.ctx.prec = work
        try:
            value = poly(-c)
            tail = b ** terms / arb(terms + 1).gamma() / (1 - b / (terms + 1))
        finally:
            flint.ctx.prec = prec
        return value + arb(0, tail.upper())

    def _e1_gap(self, a, b, bits):
        """(E1(a) - E1(b) = int_a^b e^{-t} dt/t at the midpoints of a, b to ``bits`` bits, the first-order effect of their
        radii): the integral at alpha = 0."""
        integral = self._at_midpoints(lambda x, y: _expint1_raised(x, E1_LOST_BITS) - _expint1(y), (a, b), bits)
        return integral, (-a).exp() / a * a.rad() + (-b).exp() / b * b.rad()

    def _transform_minus_one(self, c, bits):
        """(E e^{-cX}, E e^{-cX} - 1), the second None unless it is formed without cancellation
        (alpha = 0, a < 1, or by the moment series for small c); the integral's value at the midpoints
        of a, b, alpha to ``bits`` bits, their radii added to first order, doubled (the radii are
        ~2^-prec, the derivatives below change by a factor 1 + O(2^-prec) over the balls):
        d/da, d/db of int_a^b f = -f(a), f(b); |d/d alpha| <= max(|log a|, |log b|) times the integral."""
        log_c = c.log()
        a, b = (self.log_lo + log_c).exp(), (self.log_hi + log_c).exp()
        if b.mid() <= MOMENT_SERIES_CUT:
            minus_one = self._series_minus_one(c, b, bits)
            return 1 + minus_one, minus_one
        if a.mid() > self.atoms.big.mid():
            # c X >= a > Lambda everywhere: 0 <= E e^{-cX} <= e^{-a} (as the atoms' suffix sums take it;
            # a's radius, ~c 2^-prec, would swamp a value of e^{-a} itself)
            return arb(0, (-arb(a.lower())).exp().upper()), None
        half_tau = self.tau / 2
        if self.alpha.is_zero():
            if a.mid() >= 1:
                integral, rad = self._e1_gap(a, b, bits)
                return half_tau * (integral + arb(0, (2 * rad).upper())), None
            ein_gap = self._at_midpoints(lambda x, y: _ein(y) - _ein(x), (a, b), bits)
            rad = -(-a).expm1() / a * a.rad() - (-b).expm1() / b * b.rad()       # d/dt Ein = (1 - e^-t)/t
            minus_one = -half_tau * (ein_gap + arb(0, (2 * rad).upper()))
            return 1 + minus_one, minus_one
        alpha = self.alpha
        spread = _arb_max(abs(a.log()), abs(b.log()))
        if (alpha.upper() * (spread + 1)).mid() < arb(2) ** -(bits + 16):
            # alpha = kappa tau below the working precision (kappa = 1e-300): the integral at alpha = 0, E1(a) - E1(b),
            # whose change up to alpha, at most alpha max|log t| times the integral (t^alpha <= e^{alpha max|log t|}
            # ~ 1), joins the radius below. Gamma(alpha, .) itself cancels about log2(1/alpha) bits (Gamma(alpha) ~
            # 1/alpha), which took minutes at kappa = 1e-1000 (a probe, Dec 2026)
            integral, rad = self._e1_gap(a, b, bits)
            rad += spread * abs(integral) * alpha.upper()
        else:
            if a.mid() >= alpha.mid():
                integral = self._at_midpoints(lambda s, x, y: _gamma_upper(s, x) - _gamma_upper(s, y), (alpha, a, b),
                                              bits)
            else:
                integral = self._at_midpoints(lambda s, x, y: _gamma_lower(s, y) - _gamma_lower(s, x), (alpha, a, b),
                                              bits)
            rad = (((alpha - 1) * a.log() - a).exp() * a.rad() + ((alpha - 1) * b.log() - b).exp() * b.rad()
                   + spread * abs(integral) * alpha.rad())
        integral = integral + arb(0, (2 * rad).upper())
        return (self.log_prefactor + alpha * (self.log_mu - log_c)).exp() * integral, None

    def _lost_bits(self, c, kind):
        log2_c = float(c.log().mid()) / math.log(2)
        if kind == "expm1":
            return max(0.0, -(log2_c + self.log2_mean))
        if kind == "centred":
            return max(0.0, -(2 * log2_c + self.log2_var - 1))
        return 0.0

    def sums(self, c, requests):
        """``_Atoms.sums`` for this law: E e^{-cX} ("exp"), E e^{-cX} - 1 ("expm1"), E g(-c(X - 1))
        ("centred", E X = 1) = e^c E e^{-cX} - 1, each computed with the bits that its cancellation
        loses (from E X and Var X) added to the working precision."""
        prec = flint.ctx.prec
        out = []
        for _, kind in requests:
            if kind == "centred" and not self.alpha.is_zero():
                raise ValueError("the centred sum is formed for E X = 1 (pi's law) only")
            lost = int(self._lost_bits(c, kind)) + 8
            flint.ctx.prec = prec + lost
            try:
                last = self._last
                if last is not None and last[0] is c and last[1] == prec and last[2] >= prec + lost:
                    # the same node at as many bits or more (the outer integrand asks for E e^{-cX}
                    # after E e^{-cX} - 1 when the latter is below -1/2): the same balls, or narrower
                    transform, minus_one = last[3]
                else:
                    transform, minus_one = self._transform_minus_one(c, prec + lost)
                    self._last = (c, prec, prec + lost, (transform, minus_one))
                if kind == "exp":
                    value = transform
                elif kind == "expm1":
                    value = transform - 1 if minus_one is None else minus_one
                else:           # centred: alpha = 0 and c <= 1, so a = c e^{-1/tau}/mu < 1 and minus_one is formed
                    value = c.expm1() + c.exp() * minus_one
            finally:
                flint.ctx.prec = prec
            out.append(value)
        return out


def _log_or_none(value):
    """log of a positive arb, None for -infinity (value <= 0 at working precision)."""
    return value.log() if value.mid() > 0 else None


def _expm1_of(a):
    return arb(-1) if a is None else a.expm1()


class _Anchor:
    """Transforms of one anchor class's similarity laws, at the current precision (arb)."""

    def __init__(self, law, tau, terms, big, ratio_law=None):
        self.weight = law.weight
        s_all, a_all = _arbs(law.negative_similarity), _arbs(law.negative_weight)
        keep = [i for i, w in enumerate(a_all) if w.mid() > 0]
        s = [s_all[i] for i in keep]
        a = [a_all[i] for i in keep]
        x = [(v / tau).exp() for v in s]
        mu = sum(map(_mul, a, x), arb(0))
        self.log_mu = mu.log()
        self.mean_negative = sum(map(_mul, a, s), arb(0))
        p_all, q_all = _arbs(law.positive_similarity), _arbs(law.positive_weight)
        self.mean_positive = sum(map(_mul, p_all, q_all), arb(0))
        if law.positive_similarity == law.negative_similarity:
            # the usual case (sphere, finite models): one set of atoms x = e^{s/tau}/mu
            # carries both the negative law (V = X/mu) and the positive one (W = e^{p/tau}/mu)
            idx = [i for i in range(len(s_all)) if a_all[i].mid() > 0 or q_all[i].mid() > 0]
            xs = [(s_all[i] / tau).exp() / mu for i in idx]
            weights = {"neg": [a_all[i] if a_all[i].mid() > 0 else arb(0) for i in idx],
                       "pos": [q_all[i] if q_all[i].mid() > 0 else arb(0) for i in idx]}
            self.negatives = self.positives = _Atoms(xs, weights, terms, big)
        else:
            self.negatives = _Atoms([v / mu for v in x], {"neg": a}, terms, big)
            pos = [((p / tau - self.log_mu).exp(), q) for p, q in zip(p_all, q_all) if q.mid() > 0]
            self.positives = _Atoms([w for w, _ in pos], {"pos": [q for _, q in pos]}, terms, big)
        self.v_min = self.negatives.x_min("neg")
        self.r = None
        self.ratio = None
        if law.negative_ratio is not None:
            if ratio_law is not None:
                # the density ratio's own (coarser) rule: r = e^{kappa s}/Z varies on the
                # scale 1/kappa in s, not tau
                s_all, a_all = _arbs(ratio_law.negative_similarity), _arbs(ratio_law.negative_weight)
                keep = [i for i, w in enumerate(a_all) if w.mid() > 0]
                s = [s_all[i] for i in keep]
                a = [a_all[i] for i in keep]
                law = ratio_law
            r_all = _arbs(law.negative_ratio)
            r = [r_all[i] for i in keep]
            total = sum(map(_mul, a, r), arb(0))
            r = [v / total for v in r]                         # exact E r = 1 on the atoms
            self.r = r
            self.ratio_second_moment = sum(map(_mul, a, [v * v for v in r]), arb(0))
            self.m = sum(map(_mul, a, map(_mul, r, s)), arb(0))
            self.mean_negative_ratio_rule = sum(map(_mul, a, s), arb(0))
            self.r_zero_mass = sum((w for w, v in zip(a, r) if v.is_zero()), arb(0))
            self.r_constant = all(v.mid() == r[0].mid() for v in r)
            if self.r_zero_mass.is_zero():
                factors = [ri * d for ri, d in zip(r, _centred_similarities(s, a, r, self.m))]
                self.ratio = _Atoms(r, {"ratio": a, "num": list(map(_mul, a, factors))}, terms, big,
                                    scaled={"num": ("ratio", factors)})
                self.r_min = self.ratio.x_min("ratio")


Anchor = _Anchor      # public for exact_finite, which builds the finite models' anchors


def _centred_similarities(s, a, r, m):
    """s_i - m, m = sum_j a_j r_j s_j (sum_j a_j r_j = 1): where the subtraction cancels (s_i within a few
    bits of m, e.g. s = 1 against m = 1 - 6e-101 in App. A.2 at mixing 1e-100, whose search CE then agreed
    to 0 digits), as sum_j a_j r_j (s_i - s_j) / sum_j a_j r_j, which has no cancellation of that size."""
    total = None
    out = []
    for si in s:
        d = si - m
        if d.is_zero() or d.rel_accuracy_bits() >= flint.ctx.prec - 24:
            out.append(d)
            continue
        if total is None:
            total = sum(map(_mul, a, r), arb(0))
        out.append(sum((aj * rj * (si - sj) for aj, rj, sj in zip(a, r, s)), arb(0)) / total)
    return out


def _log_mgf_series(atoms, name, centre, scale, terms=None):
    """Power series in t of log sum u e^{-(t/scale)(x - centre)} (u a probability vector): the
    series at scale 1 (computed once per atoms, name and centre) with coefficient j divided by scale^j."""
    key = ("log_mgf", name, centre)
    base = atoms._polys.get(key)
    if base is None:
        coeffs = atoms.total_series(name, centre).coeffs()
        coeffs = [cj if j % 2 == 0 else -cj for j, cj in enumerate(coeffs)]
        series = flint.arb_series(coeffs, prec=atoms.terms) / coeffs[0]
        base = atoms._polys[key] = _zero_constant(series.log(), atoms.terms).coeffs()
    terms = atoms.terms if terms is None else terms
    return _rescaled(base[:terms], scale, terms)


def _rescaled(coeffs, scale, terms):
    """The power series sum_j coeffs[j] (t/scale)^j in t (``scale`` an int or an arb)."""
    inv, power, scaled = 1 / arb(scale), arb(1), []
    for cj in coeffs:
        scaled.append(cj * power)
        power *= inv
    return flint.arb_series(scaled, prec=terms)


def _mgf_series(atoms, name, scale, terms=None):
    """Power series in t of sum u e^{-(t/scale) x} / sum u (``_log_mgf_series`` before its log)."""
    key = ("mgf", name)
    base = atoms._polys.get(key)
    if base is None:
        coeffs = atoms.total_series(name, 0).coeffs()
        base = atoms._polys[key] = [(cj if j % 2 == 0 else -cj) / coeffs[0] for j, cj in enumerate(coeffs)]
    terms = atoms.terms if terms is None else terms
    return _rescaled(base[:terms], scale, terms)


def _zero_constant(series, terms):
    coeffs = series.coeffs() or [arb(0)]
    coeffs[0] = arb(0)
    return flint.arb_series(coeffs, prec=terms)


class _Head:
    """An outer integrand below the rule's first node c0, as a power series: at c = c0 e^u (u <= 0)
    the integrand against dy (y = log c) is sum_{i >= 1} f_i (x0 e^u)^i (x0 = c0, or k c0 for a series
    in t = k c).  ``integral()`` is its integral over y < log c0; ``trapezoid(h)`` the trapezoid
    rule's nodes log c0 - m h, m = 1, 2, ..., summed in closed form:
    sum_{m >= 1} h f_i x0^i e^{-i m h} = f_i x0^i h / (e^{i h} - 1)."""

    __slots__ = ("coeffs", "x0")

    def __init__(self, coeffs, x0):
        self.coeffs, self.x0 = coeffs, arb(x0)

    def integral(self):
        return sum((fi * self.x0 ** i / i for i, fi in enumerate(self.coeffs) if i), arb(0))

    def trapezoid(self, h, factors=None):
        """``factors``: h / (e^{ih} - 1) for i >= 1 (``trapezoid_factors``), shared by the heads of one rule."""
        if factors is None:
            factors = trapezoid_factors(h, len(self.coeffs))
        total, power = arb(0), arb(1)
        for fi, factor in zip(self.coeffs[1:], factors):
            power *= self.x0
            total += fi * power * factor
        return total


def trapezoid_factors(h, count):
    """h / (e^{ih} - 1), i = 1 .. count - 1: the trapezoid rule's nodes below a head's x0 summed (``_Head``)."""
    return [h / (h * i).expm1() for i in range(1, count)]


@lru_cache(maxsize=16)
def _decay_series(terms, prec):
    """The power series of e^{-t} to ``terms`` coefficients at ``prec`` bits."""
    saved = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        return flint.arb_series([0, -1], prec=terms).exp()
    finally:
        flint.ctx.prec = saved


def _head_integral(series, t0, terms):
    """The head of F(t) = -e^{-t} expm1(sum_n series[n] t^n) against dt/t, below t0 (``_Head``)."""
    ex = _zero_constant(series.exp(), terms)
    return _Head((-(ex * _decay_series(terms, flint.ctx.prec))).coeffs(), t0)


def _head_integral_plain(series, t0):
    """The head of sum_n series[n] t^n against dt (t times it against dt/t), below t0 (``_Head``)."""
    return _Head([arb(0)] + list(series.coeffs()), t0)


def head_values(heads):
    """The integrals of the heads below the first node (``_Head`` objects, or numbers as they are)."""
    return [hd.integral() if isinstance(hd, _Head) else hd for hd in heads]


@lru_cache(maxsize=16)
def _legendre_tail(nodes, prec):
    """(2j+1)/2 w_i P_j(x_i) for j = nodes-2, nodes-1: the two highest Legendre coefficients of
    the interpolant through the Gauss nodes, an estimate of the panel's truncation error."""
    gx, gw = gauss_legendre_arb(nodes, prec)
    saved = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        rows = []
        for j in (nodes - 2, nodes - 1):
            rows.append(tuple(((2 * j + 1) * w * arb(x).legendre_p(j) / 2).mid() for x, w in zip(gx, gw)))
        return tuple(rows)
    finally:
        flint.ctx.prec = saved


# outer panels in y = log t: at least this wide (times 1/refinement) and at most MAX_PANEL wide
MIN_PANEL, MAX_PANEL = arb(1) / 8, arb(32)
# an accepted panel's successor is at most GROW_CAP times as wide (4: fewer nodes than 2 or 8 at the
# benchmark points, e.g. 7360 / 6990 / 7178 integrand evaluations at (768, 1e4, 0.01, 1e9))
GROW_CAP = 4.0


def _outer_integral(integrand, count, decay_floor, refinement, dps, heads, t0, y_past=None,
                    max_panel=MAX_PANEL, scale_floor=None, grade_about=(), watch=None, first_width=4):
    """int_0^oo of ``count`` integrands, as int G(e^y) dy with Gauss-Legendre panels in y = log t.

    ``integrand(t)`` returns the list of G_i(t) = t f_i(t) (the integrands against dt/t).
    Below t0 the integrals are ``heads`` (from power series).  Above, the panels adapt:
    a panel is accepted when the two highest Legendre coefficients of the interpolant through
    its nodes are below 10^-dps of the running totals (or of ``scale_floor``, a lower estimate of
    the final totals, if larger; else it is narrowed, by the factor that the proxy's scaling
    ~ width^(2 nodes) predicts, with a margin, within [0.5, 0.9]), and the next panel's width is
    the one that scaling predicts from the accepted panel's proxy (with the same margin, within
    [0.5, GROW_CAP] times the last: geometric panels where the integrand is smooth, e.g. the far tail at
    small k, narrower ones ahead of a steepening integrand); the widths lie in
    [MIN_PANEL, MAX_PANEL]/refinement, and narrower still where the proxy grew from the last panel to
    this one (predictive control).  With ``grade_about`` (points y_b where the integrands, smooth
    on long stretches around them, change on the unit scale), no panel starting below a y_b is wider
    than a quarter of its distance to y_b, none starting above it wider than its distance from y_b
    (neither narrower than a unit, 1/refinement, for this reason): the proxy reads only the panel's
    own nodes, and a wide panel ending short of y_b, or straddling it, can look converged while it is
    not.  Panels march
    upwards until every integrand, which decreases in t past t = dps log 10, times the distance
    to y_end = log(decay_floor) is negligible.  All integrals share the nodes, so whatever the
    integrands have in common is computed once per node.  ``watch``: a ``_Retirement`` whose totals
    are kept current (after each accepted panel).
    """
    # (at (512, 200, 0.01, 1e9) and 100 digits, 10 + 0.6 / 0.8 / 1.2 dps nodes per panel took 1659 / 1734 /
    # 1480 nodes in the first pass's log-ratio integral against 1848, and 2528 / 2550 / 2960 in its ratio
    # integral against 2576; an error proxy 10^10 times laxer 1680 and 2352, 10^30 times laxer 1512 and 1848,
    # where the precision check failed: the panels are not held back much by a pessimistic proxy)
    nodes = 10 + int(0.4 * dps) + int(4 * (refinement - 1))
    prec = flint.ctx.prec + 20
    gx, gw = gauss_legendre_arb(nodes, prec)
    tail = _legendre_tail(nodes, prec)
    refinement = arb(refinement)
    eps = arb(10) ** (-dps)
    y_past_exp, y_end = _outer_bounds(decay_floor, dps, t0, y_past)
    totals = head_values(heads)

    def panel(a, b):
        half, mid = (b - a) / 2, (a + b) / 2
        rows = [integrand((mid + half * xi).exp()) for xi in gx]
        # the weighted sums and the two Legendre coefficients of every integrand: one ball matrix
        # product (3 x nodes times nodes x count) in C
        weights = flint.arb_mat([[wi * half for wi in gw], *tail]) * flint.arb_mat(rows)
        sums, *coeffs = ([weights[r, i] for i in range(count)] for r in range(3))
        peaks = [max((abs(row[i]) for row in rows), key=arb.mid) for i in range(count)]
        # error proxy: the Gauss rule's error is about the Legendre coefficient of degree 2n,
        # which for geometric decay a_j ~ peak rho^-j is (tail of degree n)^2 / peak
        errors = []
        for c0, c1, p in zip(*coeffs, peaks):
            t = abs(c0) + abs(c1)
            errors.append(2 * half * (t * t / p if (p.mid() > 0 and t.mid() < p.mid()) else p))
        return sums, peaks, errors

    y = t0.log().mid()
    h_min, h_max = (MIN_PANEL / refinement).mid(), (max_panel / refinement).mid()
    width = (arb(first_width) / refinement).mid()
    last = None
    while y.mid() < y_end.mid():
        for y_b in grade_about:         # graded about y_b: a quarter of the distance below, the distance above
            distance = y_b - float(y.mid())
            cap = (arb(max(1.0, distance / 4 if distance > 0 else -distance)) / refinement).mid()
            if width > cap:
                width = cap
        sums, peaks, errors = panel(y, y + width)
        scale = [_arb_max(abs(tot + s), abs(s)) for tot, s in zip(totals, sums)]
        if scale_floor is not None:
            # a lower estimate of the final totals: early panels of a growing integrand are
            # judged against it, not against the small running totals
            scale = [_arb_max(sc, fl) for sc, fl in zip(scale, scale_floor)]
        ratio = max(((e / (eps * sc)).mid() if sc.mid() > 0 else (arb(0) if e.is_zero() else arb(1e300)))
                    for e, sc in zip(errors, scale))
        if ratio > 1 and width > h_min:
            # the error proxy scales like width^(2 nodes): shrink to where it predicts acceptance
            # (with a margin), by a factor in [0.5, 0.9]
            shrink = min(0.9, max(0.5, 0.8 * math.exp(-float(ratio.log().mid()) / (2 * nodes))))
            width = _arb_max(width * shrink, h_min).mid()
            continue
        totals = [tot + s for tot, s in zip(totals, sums)]
        if watch is not None:
            watch.totals = totals
        y = (y + width).mid()
        if y.mid() > y_past_exp.mid() and all(
                (p * (y_end - y + 1)).mid() < (eps * abs(tot)).mid() for p, tot in zip(peaks, totals)):
            break
        # the next width from the same model of the proxy (~ width^(2 nodes)): grow where it is far
        # below the tolerance, shrink ahead of a steepening integrand, by a factor in [0.5, GROW_CAP]
        log_ratio = float(ratio.log().mid()) if ratio > 0 else -math.inf
        grow = min(GROW_CAP, max(0.5, 0.8 * math.exp(min(50.0, -log_ratio / (2 * nodes))))) if log_ratio > -1e300 else GROW_CAP
        if last is not None and log_ratio > -1e300:
            # Gustafsson's predictive control (BIT 31 (1991) 656): the proxy's growth per unit of width^(2 nodes)
            # from the last accepted panel to this one, carried on to the next; used only to narrow it
            # (approaching a steepening stretch, such as V's smallest atoms' turn-over at small tau, the
            # width the model predicts from this panel alone was rejected at every step: 12 of 51 panels
            # at (d, kappa, tau, k) = (3, 4, 0.01, 10) and 100 digits, 7 of 45 with this)
            log_factor = math.log(width / last[0]) + (last[1] - log_ratio) / (2 * nodes)
            if log_factor < 0:
                grow = min(grow, max(0.5, math.exp(min(50.0, -log_ratio / (2 * nodes)) + log_factor)))
        last = (width, log_ratio) if log_ratio > -1e300 else None
        width = min(max(width * grow, h_min), h_max)
    return totals


# The trapezoid rule in y = log c (``_trapezoid_integral``): the strip half-width b < pi/2 that its step
# assumes, h = 2 pi b / (dps log 10 + 10) (b = 1.0 to 1.65 gave the same digits at seven points of
# the benchmark: the first pass's agreement with a 45-digit reference was set by its precision)
STRIP = 1.3
# outer integrals whose range in y (log t0 to the decay floor) is at most this use the trapezoid rule
# (about 15 nodes per unit of y at 56 digits); longer ones the adaptive Gauss panels, which need
# 25-70 nodes per unit where the integrand is limited by its strip but few on long smooth stretches
# (small tau: ranges of hundreds, e.g. 207 at (d, kappa, tau) = (3, 4, 0.01), 784 nodes against 3096).
# A k sweep's integrands are strip-limited over the whole stretch of their windows, log(k_max/k_min)
# plus about WINDOW_SPAN: there the trapezoid rule serves ranges up to 2.5 times that stretch
# ((128, 16, 0.05), 20 values of k, range 49: 740 trapezoid nodes per pass against 2139 Gauss nodes)
TRAPEZOID_SPAN = 48.0
WINDOW_SPAN = 12.0


# The per-c cells' ratio integral (``_ratio_bias_cells``) takes the trapezoid rule on ranges up to
# CELLS_SPAN_BASE + CELLS_SPAN_PER_DIGIT dps + CELLS_SPAN_PER_LOG_SPREAD log(k_max/k_min): there the Gauss
# panels narrow about every k's window (60+ nodes per unit of y at 30 digits) and take wide panels only on
# the smooth stretch of about 2 kappa between 1/r_max and 1/r_min.  Measured on S^2 (tau = 0.1, CPU of both
# passes, trapezoid against panels) the crossovers lie near ranges of 110 (kappa = 50) at 30 digits and 270
# (kappa ~ 130) at 100 for one k, near 300 and 420 for the 20-point sweep k = 2^0..2^19; for two k far apart at
# few digits nearer the single k's (12 per unit of log spread let in (3, 153.138, 1), k = 2 and 10^9, 22 digits:
# 0.39 s against 0.25 s on the panels; a probe, Dec 2026)
CELLS_SPAN_BASE, CELLS_SPAN_PER_DIGIT, CELLS_SPAN_PER_LOG_SPREAD = 30.0, 2.0, 9.0


def _cells_trapezoid_span(dps, k_spread):
    """The longest range in y on which the cells' ratio integral takes the trapezoid rule (see above)."""
    return CELLS_SPAN_BASE + CELLS_SPAN_PER_DIGIT * dps + CELLS_SPAN_PER_LOG_SPREAD * math.log(k_spread)


def _outer_bounds(decay_floor, dps, t0, y_past):
    """(y_past, y_end) of an outer integral from t0: y_end = log(decay_floor), at least y_past + 1."""
    y_past = (dps * arb(10).log() + 20).log() if y_past is None else y_past
    return y_past, _arb_max(decay_floor.log(), y_past + 1)


def _trapezoid_integral(integrand, count, decay_floor, refinement, dps, heads, t0, y_past=None, watch=None,
                        reach=None):
    """int_0^oo of ``count`` integrands as int G(e^y) dy by the trapezoid rule on the whole line.

    The integrands (against dy) are entire functions of c = e^y built from finite sums
    sum_j w_j e^{-c x_j} (x_j >= 0), which on the line Im y = eta are bounded by sum_j |w_j|
    e^{-|c| cos(eta) x_j}: analytic and bounded in the strip |Im y| < pi/2, decaying like e^y or
    faster as y -> -oo and double-exponentially as y -> +oo.  The trapezoid rule with step h then
    errs by at most 2 M / (e^{2 pi b / h} - 1) for b < pi/2, M = sup_{|eta| < b} int |G(e^{y + i eta})| dy
    (Trefethen and Weideman, SIAM Review 56 (2014), Thm. 5.1); h = 2 pi STRIP / (dps log 10 + 10),
    divided by ``refinement``.  M is not computed: the precision check's second pass, with a smaller
    step and other nodes, confirms the digits.  The nodes log t0 - m h (m >= 1) are summed in closed
    form from the heads' power series (``_Head.trapezoid``); with ``reach`` (per head, the largest x0
    its series serves, or None) and a ``watch``, head i serves the grid's nodes up to the last one below
    its reach: it starts m_i steps up (x0 e^{m_i h}), and ``watch.started_at[i]`` tells the integrand
    to give 0 for it below there (a sweep's small k, whose series reach far above the shared t0 of
    its largest k, are not evaluated node by node there).  The nodes log t0 + m h (m >= 0) march
    upwards until, past y_past, every integrand times the distance to y_end is below 10^-dps of its
    total, or y_end is passed (as ``_outer_integral``).  ``heads``: ``_Head`` objects.  With a
    ``refinement`` (the precision check) the grid starts half a step lower.  ``watch``: a
    ``_Retirement`` whose totals are kept current.
    """
    eps = arb(10) ** (-dps)
    h = arb(2 * math.pi * STRIP / (dps * math.log(10) + 10) / float(refinement)).mid()
    y_past, y_end = _outer_bounds(decay_floor, dps, t0, y_past)
    if refinement != 1:
        # the precision check's grid: shifted by half a step, so that no node of the first pass
        # recurs (the heads' series hold below t0, so they serve the lower start as well)
        shift = (-h / 2).exp()
        heads = [_Head(hd.coeffs, hd.x0 * shift) for hd in heads]
        t0 = arb(t0) * shift
    factors = trapezoid_factors(h, max((len(hd.coeffs) for hd in heads), default=0))
    y0 = arb(t0).log()
    if reach is not None and watch is not None:
        heads, watch.started_at = _head_starts(heads, reach, h, y0)
    totals = [hd.trapezoid(h, factors) for hd in heads]
    m = 0
    while True:
        y = y0 + m * h
        if y.mid() > y_end.mid():
            return totals
        values = integrand(y.exp())
        totals = [tot if v is _ZERO else tot + h * v for tot, v in zip(totals, values)]
        if watch is not None:
            watch.totals = totals
        if y.mid() > y_past.mid() and all((abs(v) * (y_end - y + 1)).mid() < (eps * abs(tot)).mid()
                                          for v, tot in zip(values, totals)):
            return totals
        m += 1


def _head_starts(heads, reach, h, y0):
    """(heads, starts) for the trapezoid rule's per-head starts (``_trapezoid_integral``): a head whose
    reach (the largest x0 its series serves; None: no reach) lies m >= 1 steps h above its x0 is moved up
    m steps (x0 e^{m h}: it then serves the grid's nodes y0 + j h, j < m), and its integrand is 0 below
    starts = y0 + (m - 1/2) h; -inf for the others."""
    moved, starts = [], []
    for hd, top in zip(heads, reach):
        steps = 0 if top is None else math.floor(float((arb(top) / hd.x0).log().mid()) / float(h) - 1e-9)
        if steps > 0:
            moved.append(_Head(hd.coeffs, hd.x0 * (steps * h).exp()))
            starts.append(float(y0.mid()) + (steps - 0.5) * float(h))
        else:
            moved.append(hd)
            starts.append(-math.inf)
    return moved, starts


LOG_TWO = math.log(2)
# arb 0 as one object: the 0 that a sweep's integrands give for a retired (or cut off) integral, which the
# march skips by identity (and E1's s = 0)
_ZERO = arb(0)


class _Retirement:
    """Early stopping of single integrals in a sweep over k, whose integrals share one march in y =
    log c and whose larger k have long finished where the smaller still need nodes.

    Integral i is retired from y on once a bound B, |integrand i| <= e^B against dy at every c' >= c =
    e^y, times the weight the march can still give above y (y_end - y, plus ``widest``, a panel's
    most past y_end, plus 1) is below 10^-dps e^-3 of its running total: each integrand being of one
    sign, the running total is below the final one in size, so what retirement drops is below
    10^-dps e^-3 of the integral (past y_end, the decay floor's argument holds as before).  A
    retired integral is 0 at every node the march visits at or above that y (a rejected panel's
    narrower successor may revisit lower y: there it is computed).  ``totals`` are the march's
    running totals (``_outer``'s ``watch``)."""

    __slots__ = ("totals", "retired_at", "started_at", "log_eps", "hopeless", "y_end", "widest")

    def __init__(self, count, dps, decay_floor, t0, y_past, widest):
        self.totals = [arb(0)] * count
        self.retired_at = [math.inf] * count
        # integral i is 0 below started_at[i], where its head serves the nodes (``_trapezoid_integral``)
        self.started_at = [-math.inf] * count
        self.log_eps = -dps * math.log(10) - 3
        # a bound at or above this retires nothing unless a total exceeds e^50 (the callers skip ``retire``)
        self.hopeless = self.log_eps + 50
        self.y_end = float(_outer_bounds(decay_floor, dps, t0, y_past)[1].mid())
        self.widest = float(widest)

    def retire(self, indices, log_bound, y):
        """Whether the integrals ``indices`` (together) are 0 at y, given a bound ``log_bound`` (float)
        on the log of their integrands against dy at every c >= e^y."""
        if y >= self.retired_at[indices[0]]:
            return True
        limit = log_bound + math.log(max(self.y_end - y, 0.0) + self.widest + 1) - self.log_eps
        for i in indices:
            size = float(abs(self.totals[i]).lower())
            if not (size > 0 and math.isfinite(size)) or math.log(size) <= limit:
                return False
        for i in indices:
            self.retired_at[i] = y
        return True


def _outer(integrand, count, decay_floor, refinement, dps, heads, t0, y_past=None, single_signed=None,
           k_spread=1.0, scales=None, grade_about=(), watch=None, reach=None, span=None):
    """The outer integral by the trapezoid rule when its range in y is at most TRAPEZOID_SPAN (or
    2.5 (log k_spread + WINDOW_SPAN) for a sweep over k_max/k_min = ``k_spread``), else by the
    adaptive Gauss panels of ``_outer_integral`` (same interface).  For the panels, the
    integrands flagged in ``single_signed`` (of one sign on (0, oo)) get a lower estimate of their
    totals (``_scan_floor``): their tails towards t0, growing like t or t^2, are then judged against
    it instead of against running totals of their own size (panels about 2 wide in y where up to
    32 do).  ``scales`` (arb or None per integrand): the size of what an integral is added to (its
    floor is then at least 1/100 of it).  ``grade_about``: the panels' grading points (the
    trapezoid rule's uniform step needs none).  ``watch``: a ``_Retirement`` that the march keeps
    current; ``reach``: the heads' reaches, for the trapezoid rule's per-head starts."""
    span = _trapezoid_span(k_spread) if span is None else span
    if _trapezoid_serves(decay_floor, dps, t0, y_past, span) and all(isinstance(hd, _Head) for hd in heads):
        return _trapezoid_integral(integrand, count, decay_floor, refinement, dps, heads, t0, y_past, watch, reach)
    floor = None
    if single_signed is not None and any(single_signed):
        floor = _scan_floor(integrand, count, decay_floor, dps, heads, t0, y_past, single_signed)
    if scales is not None:
        floor = [_arb_max(f, abs(sc) / 100) if sc is not None else f
                 for f, sc in zip(floor or [arb(0)] * count, scales)]
    return _outer_integral(integrand, count, decay_floor, refinement, dps, heads, t0, y_past=y_past,
                           scale_floor=floor, grade_about=grade_about, watch=watch)


def _trapezoid_span(k_spread):
    """The longest range in y on which ``_outer`` takes the trapezoid rule: TRAPEZOID_SPAN, or
    2.5 (log k_spread + WINDOW_SPAN) for a sweep over k_max/k_min = k_spread."""
    return max(TRAPEZOID_SPAN, 2.5 * (math.log(k_spread) + WINDOW_SPAN))


def _trapezoid_serves(decay_floor, dps, t0, y_past, span):
    """Whether the range in y from log t0 to the decay floor's (``_outer_bounds``) is at most ``span``."""
    _, y_end = _outer_bounds(decay_floor, dps, t0, y_past)
    return (y_end - arb(t0).log()).mid() <= span


def _scan_floor(integrand, count, decay_floor, dps, heads, t0, y_past, single_signed):
    """1/100 of each flagged integral's trapezoid estimate with step 1 in y (the nodes below log t0
    from its head, those from log t0 up to where every integrand has fallen below 1/1000 of its
    peak past y_past), 0 for the others.  For an integrand of one sign, analytic and bounded in the strip
    |Im y| < pi/2, the estimate errs by about e^{-pi^2} ~ 5e-5 of the integral of its modulus,
    i.e. of itself: the floor is below the total by a factor of about 100."""
    y_past, y_end = _outer_bounds(decay_floor, dps, t0, y_past)
    # the whole-line rule: the nodes below log t0 from the heads' series (a head given as a number,
    # the integral below t0, takes the first node at weight 1/2 instead)
    one = arb(1)
    estimates = [hd.trapezoid(one) if isinstance(hd, _Head) else hd for hd in heads]
    first = [one if isinstance(hd, _Head) else one / 2 for hd in heads]
    peaks = [arb(0)] * count
    y = arb(t0).log()
    while y.mid() < y_end.mid():
        values = integrand(y.exp())
        estimates = [e + w * v for e, w, v in zip(estimates, first, values)]
        first = [one] * count
        peaks = [_arb_max(p, abs(v)) for p, v in zip(peaks, values)]
        if y.mid() > y_past.mid() and all((abs(v) * 1000).mid() <= p.mid() for p, v in zip(peaks, values)):
            break
        y += 1
    return [abs(e) / 100 if flag else arb(0) for e, flag in zip(estimates, single_signed)]


def _log_ratio_expectations(an, ks, refinement, dps):
    """For each k in ks: J = E log(mu_hat/mu + W/k) and, if k > 1, J~ = E log(mu_hat/mu); at k = 1,
    the risk R(1) = E log(1 + V/W) itself instead of J.

    Returns one list per k, [J~, J] (or [R(1)] at k = 1).  The integrals run in c = t/k on one node
    grid for every k: the transforms E e^{-cV}, E e^{-cW} at a node (the costly band sums) do
    not depend on k and serve every k of a sweep; the negatives' transform serves both
    integrals, and when positives and negatives share their atoms (x = e^{s/tau}/mu) one set of
    band exponentials serves both laws.

    J = E log(1 + W/k) + J2, J2 = int_0^oo P(t/k) (e^{-t} - L(t/k)^k) dt/t with L(c) = E e^{-cV},
    P(c) = E e^{-cW}: the integrand of J, e^{-t} - L^k P, is e^{-t} (1 - P) + P (e^{-t} - L^k), and the
    first part integrates to E log(1 + W/k) (Frullani), a plain sum over W's atoms.  J's integrand is
    about 1 - P on a plateau from P's drop (c ~ 1/W) to the window of k (c ~ 1/k), tens of units of
    y at small tau with the costly band sums of W at P's drop; J2's integrand, P times the DCL
    integrand (<= 0, ~ t^2 below the window), is negligible there, so the panels over it are wide.

    At k = 1, log(1 + V/W) = int_0^oo e^{-cW} (1 - e^{-cV}) dc/c (Frullani), so with V and W
    independent R(1) = int_0^oo E e^{-cW} E(1 - e^{-cV}) dc/c: a positive integrand, no
    cancellation, where R(1) = ∫CE + J would lose the digits of ∫CE / R(1) (10^35 at d = 256,
    kappa = 2000, tau = 0.01, where R(1) ~ 1e-33).  In a sweep, k = 1 has a grid of its own when its
    integrand's range (to c ~ big/W_min) ends more than WINDOW_SPAN units of y from that of the k > 1
    (c ~ big/(k v_min)): the shared grid then carries V's expm1 sums and R(1)'s tiny integrand over
    the others' whole range ((768, 1e4, 0.01), k = 2^0..2^19: 9-11 s shared, 8.2-9.0 s split); where
    the ranges end together, sharing is cheaper ((3, 4, 0.01): 7.0-7.4 s shared, 7.9-8.5 s split).
    """
    if 1 in ks and len(ks) > 1 and _own_grid_for_k_one(an, min(k for k in ks if k > 1), dps):
        rest = [k for k in ks if k != 1]
        by_k = dict(zip(rest, _log_ratio_expectations(an, rest, refinement, dps)))
        by_k[1], = _log_ratio_expectations(an, [1], refinement, dps)
        return [by_k[k] for k in ks]
    neg, pos = an.negatives, an.positives
    shared = neg is pos
    pos_x_min = pos.x_min("pos")
    kks = [arb(k) for k in ks]
    with_dcl = [k > 1 for k in ks]
    one = 1 in ks                 # R(1) directly
    need_j = any(with_dcl)        # J (and J~) for the k > 1
    # past c_k both terms of k's integrands are below e^-(dps log 10 + 30) / k of their O(1/k) totals
    # (E e^{-tS} <= L(c)^k <= e^{-k c v_min}, e^{-kc} <= e^{-k c v_min}): 0 there (a sweep's nodes
    # mostly lie past the windows of its larger k)
    zero = _ZERO
    cutoffs = [float((arb(dps * math.log(10) + 30 + 2 * math.log(k)) / (arb(k) * an.v_min)).mid()) for k in ks]
    pair_of_zeros = (zero, zero)
    # each k's place among the integrands ([J~, J] for k > 1, [R(1)] for k = 1), for its retirement
    positions, i = [], 0
    for dcl in with_dcl:
        positions.append((i, i + 1) if dcl else (i,))
        i += 2 if dcl else 1
    retirement = None

    def integrand(c):
        small = c.mid() <= 1
        neg_kind = "centred" if small else "exp"
        pos_kind = "expm1" if (c * pos_x_min).mid() < 1 else "exp"
        neg_requests = ([("neg", neg_kind)] if need_j else []) + ([("neg", "expm1")] if one else [])
        if shared:
            got = neg.sums(c, neg_requests + [("pos", pos_kind)])
            neg_sums, s_pos = got[:-1], got[-1]
        else:
            neg_sums = neg.sums(c, neg_requests)
            s_pos, = pos.sums(c, [("pos", pos_kind)])
        if pos_kind == "expm1" and s_pos.mid() < -0.5:
            # c W_min < 1 but E e^{-cW} < 1/2 (W spread over many orders of magnitude, as at small
            # tau and large kappa): log1p of E e^{-cW} - 1 would cancel, take E e^{-cW} itself
            pos_kind = "exp"
            s_pos, = pos.sums(c, [("pos", pos_kind)])
        out = []
        if one:
            # E e^{-cW} E(1 - e^{-cV}), both factors without cancellation
            transform_pos = 1 + s_pos if pos_kind == "expm1" else s_pos
            direct_one = -(transform_pos * neg_sums[-1])
        if not need_j:
            return [direct_one]
        s_neg = neg_sums[0]
        transform_pos = 1 + s_pos if pos_kind == "expm1" else s_pos         # P(c)
        if small:
            centred = s_neg.log1p()
        else:
            log_value = _log_or_none(s_neg)
        c_float = float(c.mid())
        if retirement is not None:
            # log E e^{-cV} from above, for the bound e^{-kc} + (E e^{-cV})^k on |e^{-t} - L^k| (and on P
            # times it, P <= 1) at every c' >= c
            y, retired_at, hopeless = float(c.log().mid()), retirement.retired_at, retirement.hopeless
            started_at = retirement.started_at
            log_mgf_neg = (float(centred.upper()) - c_float if small
                           else -math.inf if log_value is None else float(log_value.upper()))
        for k, kk, dcl, cut, where in zip(ks, kks, with_dcl, cutoffs, positions):
            if retirement is not None and y < started_at[where[0]]:
                # below k's own head reach: its head serves these nodes
                out += pair_of_zeros if dcl else (zero,)
                continue
            if not dcl:
                out.append(direct_one)
                continue
            if c_float > cut:
                out += pair_of_zeros
                continue
            if retirement is not None:
                if y >= retired_at[where[0]]:
                    out += pair_of_zeros
                    continue
                bound = LOG_TWO + max(-k * c_float, k * log_mgf_neg)
                if bound < hopeless and retirement.retire(where, bound, y):
                    out += pair_of_zeros
                    continue
            if small:
                # e^{-t} expm1(a) with a = k log E e^{-c V} + t [+ log E e^{-cW}], no cancellation
                dcl_value = -(-(kk * c)).exp() * (kk * centred).expm1()          # e^{-t} - L^k
            else:
                # t > k: e^{-t} - E e^{-tS} directly (a = ... + t would carry an absolute error t 2^-prec)
                decay = (-(kk * c)).exp()
                dcl_value = decay if log_value is None else decay - (kk * log_value).exp()
            out += [dcl_value, transform_pos * dcl_value]
        return out

    # series of k log E e^{-(t/k)(V-1)} [+ log E e^{-(t/k)W}] about t = 0, valid for
    # t <= t0 = k c0 where c0 * spread <= 1/64 (c0 common to every k; on the trapezoid rule a smaller
    # k's head then serves the nodes up to its own reach, ``_head_starts``)
    terms = min(neg.terms, _head_terms(dps))
    spread = _arb_max(neg.spread("neg", 1), pos.spread("pos", 0))
    c0 = _head_reach(spread, max(ks))
    heads = []
    for k, kk, dcl in zip(ks, kks, with_dcl):
        if not dcl:
            # int_0^c0 E e^{-cW} E(1 - e^{-cV}) dc/c from the power series of both transforms
            product = _transform_series(pos, "pos", terms) * _zero_constant(-_transform_series(neg, "neg", terms),
                                                                            terms)
            heads.append(_head_integral_plain(flint.arb_series(product.coeffs()[1:], prec=terms), c0))
            continue
        t0 = (kk * c0).mid()
        head = _head_integral(_log_mgf_series(neg, "neg", 1, k, terms) * kk, t0, terms)
        heads.append(head)
        # J2's head: that of e^{-t} - L^k P less that of e^{-t} (1 - P), i.e. P = E e^{-(t/k) W} times J~'s
        heads.append(_Head((_mgf_series(pos, "pos", k, terms) * flint.arb_series(head.coeffs, prec=terms)).coeffs(), t0))
    # E e^{-tS} <= e^{-t (v_min + w_min/k)}: S = mu_hat/mu + W/k >= v_min + w_min/k, i.e. in c,
    # e^{-c (k v_min + w_min)} (the DCL integrand only has e^{-c k v_min}); R(1)'s integrand is
    # below E e^{-cW} <= e^{-c w_min}
    big = dps * arb(10).log() + 20
    k_min = min(kks, key=lambda v: v.mid())
    y_past = (big / k_min).log()
    floor = big / (min((kk for kk, dcl in zip(kks, with_dcl) if dcl), key=lambda v: v.mid()) * an.v_min) \
        if need_j else arb(0)
    if one:
        floor = _arb_max(floor, big / pos_x_min)
        # R(1)'s integrand, E e^{-cW} times the increasing E(1 - e^{-cV}), need not decrease past
        # y_past: the march runs to the floor, past which it is below 10^-dps e^-20
        y_past = floor.log()
    # J~ (DCL: e^{-t} - E e^{-t mu_hat/mu} <= 0 by Jensen), J2 (P >= 0 times it) and R(1)'s integrand
    # (>= 0) are of one sign
    signs = [flag for dcl in with_dcl for flag in ((True, True) if dcl else (True,))]
    # E log(1 + W/k) over W's atoms, the part of J outside the outer integral
    frullani = [_log1p_expectation(pos, "pos", k, dps) if dcl else None for k, dcl in zip(ks, with_dcl)]
    scales = [sc for f, dcl in zip(frullani, with_dcl) for sc in ((None, f) if dcl else (None,))]
    reach = None
    if sum(with_dcl) > 1:
        retirement = _Retirement(len(heads), dps, floor, c0, y_past, MAX_PANEL / refinement)
        # each k's own head reach, as a single k's, in its head's variable (t = k c, or c for R(1))
        reach = []
        for k, dcl in zip(ks, with_dcl):
            own = _head_reach(spread, k)
            reach += [(k * own).mid()] * 2 if dcl else [own]
    totals = _outer(integrand, len(heads), floor, refinement, dps, heads, c0, y_past=y_past, single_signed=signs,
                    k_spread=max(ks) / min(ks), scales=scales, watch=retirement, reach=reach)
    out, i = [], 0
    for dcl, f in zip(with_dcl, frullani):
        if dcl:
            out.append([totals[i], f + totals[i + 1]])
            i += 2
        else:
            out.append(totals[i:i + 1])
            i += 1
    return out


def _log1p_expectation(atoms, name, k, dps):
    """sum u log(1 + x/k) over the atoms (E log(1 + W/k) for the positives' law): the atoms with x <= k/64
    by ``_log1p_series`` from their prefix of the table about 0 (rho <= 1/64: the rest is negligible
    unless their x are tiny), the others (or all, where the series is refused) atom by atom, one log1p
    each.  The table is read only where it is already built that far (the heads' moment series builds
    it, except where that series is a closed form, as on S^2): building it costs a series exponential
    per atom, far more than a log1p."""
    closed = atoms.log1p_series(name, k, dps)           # S^2: from the law's closed-form moments
    if closed is not None:
        return closed
    weights, n = atoms.w[name], atoms.n
    cut = atoms.checkpoint(bisect.bisect_right(atoms.xm, (arb(k) / 64).mid()))
    series = None
    if cut and atoms.built_to(name, 0) >= cut:
        key = ("abs_prefix", name)
        masses = atoms._polys.get(key)
        if masses is None:
            masses = atoms._polys[key] = [arb(0)]
            for u in weights:
                masses.append(masses[-1] + abs(u))
        series = _log1p_series(atoms.prefix(name, 0, cut).coeffs(), masses[cut], atoms.x[cut - 1], k, dps)
    start = cut if series is not None else 0
    inv = 1 / arb(k)
    direct = sum((w * (x * inv).log1p() for w, x in zip(weights[start:n], atoms.x[start:n]) if not w.is_zero()),
                 arb(0))
    return direct if series is None else series + direct


def _log1p_series(coeffs, mass, x_max, k, dps):
    """sum u log(1 + x/k) for atoms 0 <= x <= x_max with weights u (sum |u| = ``mass``) from the coefficients
    a_j = sum u x^j / j! of sum u e^{xX}: sum_{j >= 1} (-1)^(j+1) (j - 1)! a_j / k^j, the series of log1p
    with E[x^j] = j! a_j, one term per coefficient.  After J terms the rest is below
    mass rho^(J+1)/((J+1)(1 - rho)), rho = x_max/k, and is carried as the ball's radius.  None unless
    rho <= 1/8 and that radius is below 10^-(dps+5) of the first term."""
    rho = x_max / k
    terms = len(coeffs) - 1
    if terms < 1 or not (rho * 8).mid() <= 1:
        return None
    rest = mass * rho ** (terms + 1) / ((terms + 1) * (1 - rho))
    if not (rest * arb(10) ** (dps + 5)).mid() < abs(coeffs[1] / k).mid():
        return None
    total, scale, inv = arb(0), arb(1), 1 / arb(k)      # scale = (j - 1)! / k^j
    for j in range(1, terms + 1):
        scale *= inv
        total = total + coeffs[j] * scale if j % 2 else total - coeffs[j] * scale
        scale *= j
    return total + arb(0, rest.upper())


def _own_grid_for_k_one(an, k_min, dps):
    """Whether R(1)'s outer range, to log(big/W_min), ends more than WINDOW_SPAN from that of the
    k > 1, log(big/(k_min v_min)) (the floors of ``_log_ratio_expectations``)."""
    big = dps * arb(10).log() + 20
    gap = (big / an.positives.x_min("pos")).log() - (big / (k_min * an.v_min)).log()
    return abs(float(gap.mid())) > WINDOW_SPAN


def _transform_series(atoms, name, terms):
    """Power series in c of E e^{-c x} = sum u e^{-c x} (from the prefix table about 0)."""
    coeffs = atoms.total_series(name, 0).coeffs()
    return flint.arb_series([cj if j % 2 == 0 else -cj for j, cj in enumerate(coeffs)], prec=terms)


def _ratio_bias(an, k, refinement, dps):
    """E[sum r_j (s_j - m) / sum r_j] = int_0^oo k E[r (s-m) e^{-t r}] (E e^{-t r})^{k-1} dt."""
    kk = arb(k)
    atoms = an.ratio
    k1 = kk - 1

    def integrand(v):                                        # v = k t, integrated in dv
        c = v / kk
        small = c.mid() <= 1
        # first = E[r(s-m)(e^{-cr} - 1)] = E[r(s-m) e^{-cr}] (E[r(s-m)] = 0): beyond c = 1 the second form, whose terms
        # do not cancel (the first's -E[r(s-m)] over the atoms with c r >> 1 cancelled, to the working precision,
        # against the few with r ~ 1e-150 that carry the integral there; a probe, Dec 2026)
        first, s_ratio = atoms.sums(c, [("num", "expm1" if small else "exp"), ("ratio", "centred" if small else "exp")])
        if small:
            rest = -v * k1 / kk + k1 * s_ratio.log1p()
        else:
            # (k-1) log E e^{-cr} directly (adding c back would cost an absolute error v 2^-prec)
            log_value = _log_or_none(s_ratio)
            if log_value is None:
                return [arb(0)]
            rest = k1 * log_value
        return [v * first * rest.exp()]

    # power series of the integrand about v = 0, valid for (v0/k) * spread <= 1/64
    terms = atoms.terms
    num = atoms.total_series("num", 0).coeffs()
    m = -1 / kk
    first = flint.arb_series([arb(0)] + [cj * m ** j for j, cj in enumerate(num) if j], prec=terms)
    rest = _log_mgf_series(atoms, "ratio", 1, k) * k1
    rest = rest + flint.arb_series([0, -k1 / kk], prec=terms)
    product = first * rest.exp()
    spread = _arb_max(atoms.spread("ratio", 1), atoms.spread("ratio", 0))
    v0 = (kk / (64 * spread)).mid()
    if v0.mid() > arb(HEAD_LOG_REACH).exp().mid():
        v0 = arb(HEAD_LOG_REACH).exp().mid()
    floor = (dps * arb(10).log() + 20) / an.r_min * 2
    # the march stops where the integrand, past y_past, is negligible to the end; with ratio atoms far apart it
    # rises again near v = k/r for the smallest r (every negative there: the tuple's weighted mean is theirs), so
    # y_past lies past that (it stopped before: O(1) errors at r_min = 1e-150, both passes agreeing)
    y_past = _arb_max((kk / an.r_min).log() + 2, (dps * arb(10).log() + 20).log())
    return _outer(integrand, 1, floor, refinement, dps, [_head_integral_plain(product, v0)], v0,
                  y_past=y_past, single_signed=[True])[0]


class _SphereAnchor:
    """The sphere's one anchor class, each law on its own density-adapted rule (arb).

    * negatives: the rule of pi (s-steps tau) over pi's range joined with that of e^{s/tau} pi,
      atoms V = e^{s/tau}/mu_rule (E V = 1 on the atoms);
    * positives: the rule of the vMF positive similarity (density ~ (1-s^2)^((d-3)/2) e^{kappa s},
      concentrated near s = 1 at width ~1/kappa for kappa >> d) over its range joined with that
      of the law tilted by e^{-p/tau}, atoms W = e^{p/tau}/mu_rule;
    * the ratio r = e^{kappa s}/Z_d(kappa) under pi (search CE): a rule with s-steps 1/kappa
      (the scale of e^{-c r}) over [s_cut, 1], covering the vMF rule and pi above s_cut, with pi's
      own masses as weights; the pi-mass below s_cut is one atom at r = 0 (``pi_zero``).  s_cut
      is the lower end of pi's range, or at large k a point below which all k negatives fall with
      probability < 10^-(dps+5), lowered by (dps log 10 + log k + 10)/kappa so that atoms
      below it weigh < 10^-dps e^-10/k against one above: ignoring them changes E[sum r f/sum r]
      by < 10^-dps.  When that rule would exceed ``_ratio_rule_panels(dps)`` panels (counted at
      refinement 1), ``cells`` holds the
      per-c cells of ``_RatioCells`` instead, over all of [-1, 1] (no s_cut).
    """

    def __init__(self, model, tau, tau_value, kappa_text, terms, big, dps, refinement, k_min):
        dim = model.dim
        self.weight = arb(1)
        kappa = arb(kappa_text)
        tau_f = float(tau_value)
        step = min(tau_f, 0.5)
        # each rule covers its law and the law tilted by the integrands' leading factor: E V = mu
        # (V ~ e^{s/tau}) and E 1/W (W ~ e^{p/tau}) weigh pi by e^{s/tau} and M by e^{-p/tau},
        # whose mass lies beyond the laws' own ranges at large d and small tau (the tilted pi at
        # its own range's edge is 1e-29 of its peak at d = 256, tau = 0.01, 55 digits)
        kappa_f = float(kappa_text)
        neg_range = _tilted_theta_range(dim, 0.0, 1 / tau_f, dps)
        pos_range = _tilted_theta_range(dim, kappa_f, -1 / tau_f, dps)
        shared = None if dim == 3 else sphere_shared_rule(
            dim, (("0", *neg_range, (1 / tau_f,)), (kappa_text, *pos_range, (-1 / tau_f,))), step, dps, refinement,
            RULE_WIDEN)
        if shared is not None:
            # one trapezoid grid for both laws: x = e^{s/tau}/mu on the same nodes, one set of band
            # exponentials per outer node for both (``_log_ratio_expectations``: neg is pos)
            s = _arbs_mid(shared[0])
            a, q = (_arbs_mid(w) for w in shared[1])
            x = [(v / tau).exp() for v in s]
            mu = sum(map(_mul, a, x), arb(0))
            self.negatives = self.positives = _Atoms([v / mu for v in x], {"neg": a, "pos": q}, terms, big)
        else:
            s, a = map(_arbs_mid, sphere_density_rule(dim, "0", step, dps, refinement, *neg_range,
                                                       tilts=(1 / tau_f,), widen=RULE_WIDEN))
            x = [(v / tau).exp() for v in s]
            mu = sum(map(_mul, a, x), arb(0))
            self.negatives = _Atoms([v / mu for v in x], {"neg": a}, terms, big)
            p, q = map(_arbs_mid, sphere_density_rule(dim, kappa_text, step, dps, refinement, *pos_range,
                                                       tilts=(-1 / tau_f,), widen=RULE_WIDEN))
            log_mu = mu.log()
            self.positives = _Atoms([(v / tau - log_mu).exp() for v in p], {"pos": q}, terms, big)
        self.v_min = self.negatives.x_min("neg")
        # closed forms (log domain)
        self.log_mu = log_partition_arb(dim, 1 / tau)
        if dim == 3:
            # S^2: the transforms in closed form (incomplete gamma functions), not the atoms' band sums
            self.negatives = _Sphere2Law(self.negatives, arb(0), tau, self.log_mu)
            self.positives = _Sphere2Law(self.positives, kappa, tau, self.log_mu)
        self.mean_positive = mean_resultant_arb(dim, kappa)
        self.mean_negative = arb(0)
        log_z = log_partition_arb(dim, kappa)
        self.ratio_second_moment = (log_partition_arb(dim, 2 * kappa) - 2 * log_z).exp()
        self.r_constant = kappa.is_zero()
        self.r_zero_mass = arb(0)
        self.m = self.mean_positive
        self.mean_negative_ratio_rule = arb(0)
        self.r = True
        self.ratio = None
        self.cells = None
        if self.r_constant or k_min == 1:
            return
        # 1/kappa as a double: infinite for a kappa below the smallest double (1e-400 is a decimal, not 0)
        inv_kappa = 1 / kappa_f if kappa_f > 0 else math.inf
        # the ratio's rule
        lo_m, hi_m = sphere_theta_range(dim, kappa_f, dps + 12)
        lo_p, hi_p = sphere_theta_range(dim, 0.0, dps + 12)
        theta_cut = hi_p
        if k_min > 1:
            # P_pi(s < s_q)^k_min <= 10^-(dps + 5): the upper pi-quantile of mass (dps+5) ln10 / k_min
            upper = (dps + 5) * math.log(10) / k_min
            if upper < 0.5:
                s_q = _pi_upper_quantile(dim, upper)
                s_cut = s_q - (dps * math.log(10) + math.log(k_min) + 10) * inv_kappa
                if s_cut > -1:
                    theta_cut = min(theta_cut, math.acos(s_cut))
        theta_hi = max(hi_m, theta_cut)
        theta_lo = min(lo_m, lo_p)
        covers = theta_hi >= hi_p
        # the fixed ratio rule has about kappa (s_hi - s_lo) panels of s-width 1/kappa; beyond
        # _ratio_rule_panels(dps) (counted at refinement 1) the ratio integral runs on per-c cells
        # instead (``_RatioCells``), and so on S^2 from kappa = 10, where the cells' transforms are
        # closed forms (``_sphere2_transforms``): (3, 20, 0.5, 10) at 100 digits 4.8 -> 2.6 s, the same
        # strings; below 10 the rule is the cheaper (kappa = 1e-6: 0.2 s against 1.0 s at 30 digits)
        panels = kappa_f * (math.cos(theta_lo) - math.cos(theta_hi))
        if panels > _ratio_rule_panels(dps) or (dim == 3 and kappa_f >= 10):
            self.cells = _RatioCells(dim, kappa_text, self.m, dps, refinement)
            return
        # the ratio's integrands weigh pi by e^{-cr} and by r = e^{kappa s}/Z (M's law)
        theta_fine = _ratio_fine_theta(dim, kappa_f, dps, k_min, theta_lo, theta_hi)
        sr, ar = map(_arbs_mid, sphere_density_rule(dim, "0", min(inv_kappa, 0.5), dps, refinement,
                                                     theta_lo, theta_fine, True, tilts=(kappa_f,),
                                                     widen=RULE_WIDEN))
        if theta_fine < theta_hi:
            # below s_fine c r < e^-C wherever the integrand is not negligible: e^{-cr} = sum_j (-c r)^j/j!
            # needs pi r^j integrated only for the first few j, functions of rate j kappa in s: s-steps of
            # 8/kappa (8x fewer atoms) do that to ~1e-65 for j <= 3 (against steps of 1/kappa, at d = 2,
            # 256, 512), and (c r)^4 < e^-4C makes the rest negligible
            s2, a2 = map(_arbs_mid, sphere_density_rule(dim, "0", min(8 * inv_kappa, 0.5), dps, refinement, theta_fine,
                                                         theta_hi, True, tilts=(kappa_f,)))
            sr, ar = sr + s2, ar + a2
        if covers:
            total = sum(ar, arb(0))
            ar = [w / total for w in ar]
            self.pi_zero = arb(0)
        else:
            self.pi_zero = 1 - sum(ar, arb(0))
        # r = e^{kappa (s - s_top)}, normalised so that E_pi r = 1 on the atoms (the r = 0 atom
        # carries none); the normalisation replaces 1/Z_d(kappa) exactly on the rule
        top = max(sr, key=lambda v: v.mid())
        r = [(kappa * (v - top)).exp() for v in sr]
        total = sum(map(_mul, ar, r), arb(0))
        r = [v / total for v in r]
        qr = list(map(_mul, ar, r))
        m = sum(map(_mul, qr, sr), arb(0))
        self.m_rule = m
        factors = [ri * (v - m) for ri, v in zip(r, sr)]
        self.ratio = _Atoms(r, {"ratio": ar, "num": list(map(_mul, ar, factors))}, terms, big,
                            scaled={"num": ("ratio", factors)})
        self.r_min = self.ratio.x_min("ratio")
        self.r_max = self.ratio.x[self.ratio.support["ratio"][1]]


def _tilted_theta_range(dim, b, tilt, dps):
    """The theta range of the law with log density (d - 2) log sin theta + b cos theta (at least
    10^-(dps+12) of its peak) joined with that of the law tilted by e^{tilt cos theta}."""
    lo, hi = sphere_theta_range(dim, b, dps + 12)
    lo_t, hi_t = sphere_theta_range(dim, b + tilt, dps + 12)
    return min(lo, lo_t), max(hi, hi_t)


def _ratio_fine_theta(dim, kappa, dps, k_min, theta_lo, theta_hi):
    """theta of s_fine, below which the ratio's rule needs no s-steps of 1/kappa (theta_hi: none).

    The ratio integrand k c E[r (s - m)(e^{-cr} - 1)] T(c)^(k-1) (T = E e^{-cr}, r normalised so that
    E r = 1) is at most 2 c k T^(k-1), and T <= 1 - (1 - e^-1) P_pi(c r > 1), so it is below
    e^-(dps log 10 + 20) unless the transition s_c (c r = 1) has P_pi(s > s_c) <= (dps log 10 + 20 +
    log(2 c k))/((1 - e^-1)(k - 1)), with log c <= 2 kappa (r spans e^{2 kappa} at most): s_c >= s_q,
    the pi-quantile of that mass.  Below s_fine = s_q - (log(dps log 10 + 20) + 10)/kappa every c
    that matters has c r < e^-C = e^-10/(dps log 10 + 20), where e^{-cr} is its power series in c r,
    of which the terms j <= 3 need pi r^j (rate j kappa in s) resolved."""
    if k_min < 2:
        return theta_hi
    big = dps * math.log(10) + 20
    mass = (big + 2 * kappa + math.log(2 * k_min)) / ((1 - math.exp(-1)) * (k_min - 1))
    if mass >= 0.5:
        return theta_hi
    s_fine = _pi_upper_quantile(dim, mass) - (math.log(big) + 10) / kappa
    if s_fine <= -1:
        return theta_hi
    return min(theta_hi, max(theta_lo, math.acos(s_fine)))


def _arbs_mid(values):
    return [arb(v) for v in values]


def _pi_upper_quantile(dim, mass):
    """s with pi(s' >= s) = mass (float): (1 + s)/2 ~ Beta((d-1)/2, (d-1)/2), and by its symmetry
    pi(s' >= s) = I_{(1-s)/2}((d-1)/2, (d-1)/2), inverted by scipy (no 1 - mass, so tiny masses
    keep their digits; the mpmath bisection this replaces took 0.13 s and failed below ~1e-60)."""
    from scipy.special import betaincinv
    a = (dim - 1) / 2
    return 1.0 - 2.0 * float(betaincinv(a, a, mass))


def _ratio_heads(atoms, kks, c0, terms=None):
    """For each k (arb) in kks, the head below v0 = k c0 of int_0^oo k E[r (s-m) e^{-(v/k) r}] (E e^{-(v/k) r})^(k-1)
    dv in v = k c (``_Head``), from the atoms' tables about 0 (``_ratio_heads_of_moments``).
    ``terms``: the series' length (default the atoms')."""
    terms = atoms.terms if terms is None else terms
    return _ratio_heads_of_moments(atoms.total_series("ratio", 0).coeffs()[:terms],
                                   atoms.total_series("num", 0).coeffs()[:terms], kks, c0, terms)


def _ratio_heads_of_moments(ratio_moments, num_moments, kks, c0, terms):
    """``_ratio_heads`` from the moments E r^j / j! (``ratio_moments``, j = 0 being 1) and
    E[r (s - m) r^j] / j! (``num_moments``, j = 0 being 0): E[r (s - m) e^{-cr}] and log E e^{-cr} as
    power series in c, the log taken once; in v = k c their coefficient j is divided by k^j."""
    log_ratio = flint.arb_series([arb(1)] + [cj if j % 2 == 0 else -cj for j, cj in enumerate(ratio_moments) if j],
                                 prec=terms).log().coeffs()
    # E[r (s - m) e^{-cr}] less its constant term, E[r (s - m)] = 0
    num = [arb(0)] + [cj if j % 2 == 0 else -cj for j, cj in enumerate(num_moments) if j]
    return [_head_integral_plain(_rescaled(num, kk, terms) * (_rescaled(log_ratio, kk, terms) * (kk - 1)).exp(),
                                 (kk * c0).mid()) for kk in kks]


def _sphere_ratio_moments(dim, kappa, m, terms):
    """(E_pi r^j / j!, E_pi[r (s - m) r^j] / j!) for j < ``terms``, r = e^{kappa s}/Z_d(kappa) under pi
    (uniform on S^(d-1)), in closed form: E_pi e^{a s} = Z_d(a), so E_pi r^j = Z_d(j kappa)/Z_d(kappa)^j,
    and E_pi[s e^{a s}] = Z_d'(a) = Z_d(a) A_d(a) (A_d the vMF mean resultant), so
    E_pi[r^(j+1) (s - m)] = E_pi r^(j+1) (A_d((j + 1) kappa) - m) (m = A_d(kappa); both in log domain)."""
    log_z = log_partition_arb(dim, kappa)
    ratio, num, log_factorial = [], [], arb(0)
    for j in range(terms):
        if j:
            log_factorial += arb(j).log()
        ratio.append((log_partition_arb(dim, j * kappa) - j * log_z - log_factorial).exp())
        a = (j + 1) * kappa
        num.append((log_partition_arb(dim, a) - (j + 1) * log_z - log_factorial).exp()
                   * (mean_resultant_arb(dim, a) - m) if j else arb(0))
    return ratio, num


def _ratio_bias_sphere(an, ks, refinement, dps):
    """For each k in ks (all > 1): E[sum r_j (s_j - m) / sum r_j]
    = int_0^oo E[r (s-m) e^{-(v/k) r}] (E e^{-(v/k) r})^{k-1} dv on the ratio rule of
    ``_SphereAnchor`` (E e^{-cr} = pi_zero + sum a' e^{-c r}), in c = v/k on one node grid for
    every k (the band sums at a node do not depend on k).

    The Gauss panels are graded about y = log(1/r_max), where the largest ratio atoms' e^{-c r} turn
    over: ungraded, the panel that straddled it, 6.3 wide, passed the error proxy with an error of
    5e-103 of the total (against the same panel at twice the nodes, and against unit panels) at
    (d, kappa, tau, k) = (64, 300, 1, 30) and 100 digits (115 aimed at; the two passes agreed to 104
    digits); graded, no panel errs by more than 3e-113, and the benchmark's agreement digits and CPU
    at 30 digits are unchanged."""
    atoms = an.ratio
    zero = an.pi_zero

    def transform(c):
        small = c.mid() <= 1
        kind = "expm1" if small else "exp"
        first, s_ratio = atoms.sums(c, [("num", kind), ("ratio", kind)])
        return (s_ratio.log1p() if small else _log_or_none(zero + s_ratio)), first

    c0 = _head_reach(an.r_max, max(ks))
    heads = _ratio_heads(atoms, [arb(k) for k in ks], c0, min(atoms.terms, _head_terms(dps)))
    return _ratio_bias_march(transform, ks, an.r_max, an.r_min, zero, heads, c0, refinement, dps)


def _ratio_bias_floor(r_min, zero, k_min, dps):
    """(decay floor, y_past) of the ratio integral: E e^{-cr} <= 1 and E_pi[r e^{-cr}] <= e^{-c r_min},
    so c up to big/r_min (with no r = 0 atom, the whole product is below e^{-k c r_min}: c up to
    2 big/(k r_min)), big = dps log 10 + 20."""
    big = dps * arb(10).log() + 20
    k_min = arb(k_min)
    return big / r_min * (1 if not zero.is_zero() else 2 / k_min), (big / k_min).log()


def _ratio_bias_march(transform, ks, r_max, r_min, zero, heads, c0, refinement, dps, span=None):
    """The ratio integrals of ``_ratio_bias_sphere`` for every k in ks from ``transform(c)`` = (log E e^{-cr}
    or None for -oo, E[r (s - m)(e^{-cr} - 1)]) at the outer nodes and the series ``heads`` below c0
    (``_ratio_heads``): one march in y = log c (``_outer``), graded about log(1/r_max); ``zero``: pi's
    mass at r = 0."""
    kks = [arb(k) for k in ks]
    # a sweep's retirement bound: |c E[r (s - m) e^{-cr}]| <= 2 E[c r e^{-cr}] <= 2/e and T = E e^{-cr}
    # decreases in c, so k's integrand is below (2k/e) T(c)^(k-1) at every c' >= c
    retirement = None
    log_factors = [math.log(2 * k) - 1 for k in ks]

    def integrand(c):
        log_transform, first = transform(c)
        if log_transform is None:
            return [arb(0)] * len(kks)
        if retirement is None:
            return [kk * c * first * ((kk - 1) * log_transform).exp() for kk in kks]
        y, log_upper = float(c.log().mid()), float(log_transform.upper())
        retired_at, hopeless, started_at = retirement.retired_at, retirement.hopeless, retirement.started_at
        scaled, out = c * first, []
        for i, (k, kk, log_factor) in enumerate(zip(ks, kks, log_factors)):
            if y >= retired_at[i] or y < started_at[i]:       # retired, or below k's own head reach
                out.append(_ZERO)
                continue
            bound = log_factor + (k - 1) * log_upper
            if bound < hopeless and retirement.retire((i,), bound, y):
                out.append(_ZERO)
            else:
                out.append(kk * scaled * ((kk - 1) * log_transform).exp())
        return out

    floor, y_past = _ratio_bias_floor(r_min, zero, min(ks), dps)
    reach = None
    if len(ks) > 1:
        retirement = _Retirement(len(ks), dps, floor, c0, y_past, MAX_PANEL / refinement)
        # each k's own head reach in v = k c, as a single k's
        reach = [(k * _head_reach(r_max, k)).mid() for k in ks]
    # E_M[(s - m) h(s)] <= 0 for h = e^{-cr} - 1 decreasing in s: every integrand is of one sign
    return _outer(integrand, len(kks), floor, refinement, dps, heads, c0, y_past=y_past,
                  k_spread=max(ks) / min(ks), single_signed=[True] * len(kks),
                  grade_about=(float((-r_max.log()).mid()),), watch=retirement, reach=reach, span=span)


def _series_8178_terms(x, p_plus_q, p_plus_1, bits, cap=100000):
    """The number of terms of sum_n (P)_n/(Q)_n x^n (P = p + q, Q = p + 1, 0 <= x < 1) before the
    rest falls below 2^-bits of the sum, counted in floats (rescaled): the cost of DLMF 8.17.8."""
    term = total = 1.0
    eps = 2.0 ** -bits
    for n in range(cap):
        r = (p_plus_q + n) / (p_plus_1 + n) * x
        term *= r
        total += term
        if total > 1e250:
            term, total = term * 1e-250, total * 1e-250
        r = (p_plus_q + n + 1) / (p_plus_1 + n + 1) * x
        if r < 1 and term * r / (1 - r) < eps * total:
            return n + 1
    return cap


def _series_8178(x, p_plus_q, p_plus_1):
    """sum_n (P)_n/(Q)_n x^n (arb, 0 <= x < 1, P > Q): positive terms whose ratios (P + n) x/(Q + n)
    decrease in n; past a term t with ratio r < 1 the rest is below t r/(1 - r), added to the ball."""
    eps = arb(2) ** (-flint.ctx.prec)
    term = total = arb(1)
    n = 0
    while True:
        term = term * ((p_plus_q + n) / (p_plus_1 + n) * x)
        total += term
        n += 1
        r = (p_plus_q + n) / (p_plus_1 + n) * x          # bounds every later ratio
        if r < 1 and (term * r / (1 - r)).mid() < (eps * total).mid():
            return total + arb(0, (term * r / (1 - r)).upper())


@lru_cache(maxsize=64)
def _log_beta_norms(two_a, prec):
    """(log(a B(a, a)), log(B(1/2, a)/2)) for a = two_a/2, at ``prec`` bits."""
    saved = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        a = arb(two_a) / 2
        half = arb(1) / 2
        return (a.log() + 2 * a.lgamma() - (2 * a).lgamma(),
                half.lgamma() + a.lgamma() - (a + half).lgamma() - arb(2).log())
    finally:
        flint.ctx.prec = saved


def _symmetric_beta_lower(z, a):
    """I_z(a, a) (regularised) for 0 < z < 1, a = (d - 1)/2 > 1 (2a an integer: the normalisations
    are cached by it), by one of two series of positive terms
    (DLMF 8.17.8: I_x(p, q) = x^p (1 - x)^q / (p B(p, q)) 2F1(p + q, 1; p + 1; x), ``_series_8178``):

    * "direct": I_z(a, a) itself, p = q = a;
    * "centred": I_z(a, a) = (1 - I_y(1/2, a))/2 with y = (1 - 2z)^2
      (I_x(a, a) = I_{4x(1-x)}(a, 1/2)/2 for x <= 1/2, DLMF 8.17.4 and 8.17.5);
      its series is short where z is near 1/2: there the direct one needs ~sqrt(a * bits) terms
      (ratios start near 2z ~ 1), e.g. 500 at a = 2000.

    z > 1/2 is taken as 1 - I_{1-z}(a, a) (no cancellation: I_{1-z}(a, a) < 1/2).  The form with fewer
    terms (``_series_8178_terms``) is summed, 32 bits above the working precision; the centred form
    cancels about a log2(1/(4z(1 - z))) bits, added to its precision and its count.  FLINT's
    ``beta_lower`` takes an integer a (odd d) as a terminating series with cancellation: 16-20 ms per
    value at d >= 1001, against 0.1-3 ms here."""
    if z.mid() > 0.5:
        return 1 - _symmetric_beta_lower(1 - z, a)
    saved = flint.ctx.prec
    bits = saved + 32
    zf, af = float(z.mid()), float(a.mid())
    y = (1 - 2 * zf) ** 2
    lost = af * -math.log2(max(1 - y, 1e-300)) + 0.5 * math.log2(af) + 8
    centred = False
    if lost < bits:
        # each count stops at the other's (the likelier shorter first): at most twice the terms summed, in floats
        weight = 1 + lost / bits

        def centred_cost(cap=100000):
            return weight * _series_8178_terms(y, af + 0.5, 1.5, bits + lost, cap=int(cap / weight) + 1)

        def direct_cost(cap=100000):
            return _series_8178_terms(zf, 2 * af, af + 1, bits, cap=int(cap) + 1)

        nats = bits * math.log(2)                       # rough counts, to choose which to count first
        guess_direct = min(nats / -math.log(2 * zf) if zf < 0.5 else math.inf, math.sqrt(4 * af * nats / 3))
        if weight * ((af + 0.5) * y + nats / max(-math.log(max(y, 1e-300)), 1e-9)) < guess_direct:
            cost = centred_cost()
            centred = direct_cost(cost) > cost
        else:
            cost = direct_cost()
            centred = centred_cost(cost) < cost
    flint.ctx.prec = bits + (int(lost) if centred else 0)
    try:
        log_direct, log_centred = _log_beta_norms(int(round(2 * af)), flint.ctx.prec)
        if not centred:
            factor = (a * z.log() + a * (1 - z).log() - log_direct).exp()
            return +(factor * _series_8178(z, 2 * a, a + 1))
        # at z's midpoint (the ball would carry z's radius through the cancellation, amplified), then
        # z's radius times the density z^(a-1) (1 - z)^(a-1)/B(a, a) over the ball
        zm = arb(z.mid())
        signed = 1 - 2 * zm                                 # y = signed^2, 1 - y = 4 z (1 - z)
        factor = abs(signed) * (a * (4 * zm * (1 - zm)).log() - log_centred).exp()
        tail = factor * _series_8178(signed * signed, a + arb(1) / 2, arb(3) / 2)      # I_y(1/2, a)
        half = (1 - tail) / 2
        if not z.rad().is_zero():
            density = ((a - 1) * (z.log() + (1 - z).log()) - log_direct + a.log()).exp()
            half += arb(0, (density * z.rad()).upper())
        flint.ctx.prec = saved
        return +half
    finally:
        flint.ctx.prec = saved


def _ein_series(z):
    """Ein(z) = int_0^z (1 - e^{-t}) dt/t = sum_{n>=1} (-1)^(n+1) z^n/(n n!) (arb, 0 <= z <= 1, where
    the alternating terms lose under a bit): past a term t the rest is below |t| (decreasing terms)."""
    eps = arb(2) ** (-flint.ctx.prec)
    total, power, n = arb(0), arb(1), 1
    while True:
        power = power * z / n                        # z^n/n!
        term = power / n
        total = total + term if n % 2 else total - term
        if term.mid() <= (eps * abs(total)).mid() or total.is_zero():
            return total + arb(0, term.upper())
        n += 1


def _sphere2_constants(kappa):
    """(r_top, e^{-2 kappa}, 1 - m) on S^2 at the current precision: r_top = e^kappa/Z_3(kappa) =
    2 kappa/(1 - e^{-2 kappa}), 1 - m = 1/kappa - 2 e^{-2 kappa}/(1 - e^{-2 kappa}) (m = coth kappa - 1/kappa,
    without cancellation)."""
    decay = (-2 * kappa).exp()
    below_one = -(-2 * kappa).expm1()                  # 1 - e^{-2 kappa}
    return 2 * kappa / below_one, decay, 1 / kappa - 2 * decay / below_one


def _ein(z):
    """Ein(z) for z >= 0: its series up to 1, E1(z) + gamma + log z beyond (no cancellation there; E1 with
    EIN_LOST_BITS more bits per unit of z, which arb's route would lose relative to log z)."""
    return _ein_series(z) if z.mid() <= 1 else _expint1_raised(z, EIN_LOST_BITS) + arb.const_euler() + z.log()


# E1 by its continued fraction for prec/6 <= z < prec/1.4 (prec: the working bits), arb's own expint
# elsewhere. arb's asymptotic route gives only about 1.44 z bits, so below z ~ prec/1.44 it takes a
# slower route, and with _at_midpoints' retries a value to 420 bits took (us, fraction/arb): z = 65: 480/438,
# 95: 370/1541, 131: 351/1284, 221: 150/2419, 280: 131/517 (and arb 41 bits short), 400: 109/29; to 200
# bits z = 31: 285/210, 45: 214/567, 131: 122/1005, 170: 96/28; to 800 bits z = 131: 635/535,
# 170: 483/3668, 400: 296/14519, 600: 244/72. The fraction converges more slowly at small z.
E1_FRACTION_WINDOW = (6.0, 1.4)
E1_FRACTION_TERMS = 20000
# the same for Gamma(s, z), 0 <= s < 1 (_gamma_upper), measured at s = 0.04, 0.5, 0.95 (us, fraction/arb
# with retries, s = 0.04): to 420 bits z = 95: 436/330, 131: 329/351, 170: 284/565, 221: 252/3421,
# 280: 230/848, 400: 48/45; to 200 bits z = 45: 228/169, 65: 189/511, 131: 116/1188, 170: 33/29
GAMMA_FRACTION_WINDOW = (3.6, 1.4)


def _expint1(z):
    """E1(z) = Gamma(0, z) for z > 0, to the working precision (arb): ``_gamma_upper`` at s = 0, whose
    fraction is then that of Abramowitz & Stegun 5.1.22, e^z E1(z) = 1/(z + 1/(1 + 1/(z + 2/(1 + ...)))),
    used for prec/6 <= z < prec/1.4 (E1_FRACTION_WINDOW), arb's expint elsewhere.

    >>> import flint
    >>> flint.ctx.prec = 200
    >>> v = _expint1(arb(100))                       # the fraction (33 <= 100 < 143)
    >>> flint.ctx.prec = 1000
    >>> w = arb(100).expint(1)                       # arb's own, at 1000 bits
    >>> flint.ctx.prec = 53
    >>> v.rel_accuracy_bits() >= 200, v.overlaps(w), abs(v - w) < arb(2) ** -340    # E1(100) ~ 2^-151
    (True, True, True)
    """
    return _gamma_upper(_ZERO, z)


# Below the fraction's window (1 < z < prec/6) arb sums Ein(z) ~ e^z/z down to E1(z) ~ e^-z/z: E1 loses
# 2z/log 2 bits relative to itself (measured 2.9 z + 4 at z = 5..41), and E1(z) + gamma + log z (Ein) z/log 2
# relative to log z (measured 1.39 z); _at_midpoints found them by a retry, in 98 of 450 calls of the
# (3, 4, 0.5) sweep.  Where only an absolute accuracy matters (a small E1 beside a large one) nothing is lost.
E1_LOST_BITS = 2 / LOG_TWO
EIN_LOST_BITS = 1 / LOG_TWO


def _expint1_small(z):
    """``_expint1(z)`` for 0 < z: below 2^-(prec + 4) as -gamma - log z + Ein(z), 0 <= Ein(z) <= z
    (Ein(z) = int_0^z (1 - e^{-t}) dt/t), which is then within 2^-prec of E1(z) >= 1; arb's own elsewhere.
    (7 us against 1 us at 156 bits, on every node of the S^2 ratio integral's long middle stretch.)"""
    if z.upper() < arb(2) ** (-flint.ctx.prec - 4):
        return -arb.const_euler() - z.log() + arb(0).union(z)
    return _expint1(z)


def _expint1_beside(z, a, bits):
    """E1(z) to be subtracted from E1(a), 0 < a < z: the enclosure [0, e^{-z}/z] when z - a > bits log 2 + 8,
    where it is below 2^-bits e^-8 of E1(a) (E1(a) > e^{-a}/(a + 1)); ``_expint1(z)`` otherwise."""
    if (z - a).lower() > bits * LOG_TWO + 8:
        return arb(0).union((-z).exp() / z)
    return _expint1(z)


def _expint1_raised(z, bits_per_unit):
    """``_expint1(z)`` with ``bits_per_unit`` z more bits below the fraction's window (E1_LOST_BITS,
    EIN_LOST_BITS), rounded back to the working precision."""
    prec = flint.ctx.prec
    if not 1 < z.mid() < prec / E1_FRACTION_WINDOW[0]:
        return _expint1(z)
    try:
        flint.ctx.prec = prec + int(bits_per_unit * float(z.mid())) + 8
        value = _expint1(z)
    finally:
        flint.ctx.prec = prec
    return +value


def _gamma_upper(s, z):
    """Gamma(s, z) for z > 0 (arb, exact s), to the working precision.

    For 0 <= s < 1 and z in the window (E1_FRACTION_WINDOW at s = 0, GAMMA_FRACTION_WINDOW otherwise) by
    the S-fraction of A&S 6.5.31, Gamma(s, z) = e^{-z} z^s (1/(z + (1 - s)/(1 + 1/(z + (2 - s)/(1 + 2/(z +
    ...)))))): a_1 = 1, b_1 = z; a_2k = k - s, b_2k = 1; a_2k+1 = k, b_2k+1 = z (k >= 1). Every element is
    then positive, so the value is Phi_1 o ... o Phi_n(t) with Phi_j(u) = a_j/(b_j + u) decreasing on u >= 0
    and t > 0 the tail's value, while the n-th convergent is the same composition at u = 0: the value lies
    below the convergent for n odd and above it for n even, hence between any two consecutive convergents.
    Convergents by the forward recurrence (A_n, B_n, all positive: nothing cancels), 16 guard bits for its
    roundings, until two agree to the working precision (their distance is a_1...a_n/(B_n B_{n-1})); the
    union of the two balls encloses the fraction, truncation included. Elsewhere, or if the fraction has
    not settled within E1_FRACTION_TERMS, arb's own (expint at s = 0, gamma_upper otherwise)."""
    prec = flint.ctx.prec
    exponential_integral = s.is_zero()
    low, high = E1_FRACTION_WINDOW if exponential_integral else GAMMA_FRACTION_WINDOW
    value = None
    if 0 <= s.mid() < 1 and prec / low <= z.mid() < prec / high:
        try:
            flint.ctx.prec = prec + 16
            value = _upper_gamma_fraction(s, z, prec)
            if value is not None and not exponential_integral:
                value = value * (s * z.log()).exp()
        finally:
            flint.ctx.prec = prec
    if value is None:
        value = z.expint(1) if exponential_integral else z.gamma_upper(s)
    return value


def _upper_gamma_fraction(s, z, prec):
    """e^{-z} times the S-fraction of ``_gamma_upper``, enclosed by two consecutive convergents that agree to
    2^-prec (relative); None if they do not within E1_FRACTION_TERMS."""
    eps = arb(2) ** (-prec - 2)
    a_prev, a_now = arb(1), arb(0)          # A_{n-1}, A_n from A_{-1} = 1, A_0 = 0
    b_prev, b_now = arb(0), arb(1)          # B_{n-1}, B_n from B_{-1} = 0, B_0 = 1
    product = arb(1)                        # a_1 ... a_n
    for n in range(1, E1_FRACTION_TERMS + 1):
        a_n = 1 if n == 1 else n // 2 - s if n % 2 == 0 else n // 2
        b_n = z if n % 2 else 1
        a_prev, a_now = a_now, b_n * a_now + a_n * a_prev
        b_prev, b_now = b_now, b_n * b_now + a_n * b_prev
        product = product * a_n
        if n >= 2 and product < eps * a_now * b_prev:
            return (-z).exp() * (a_now / b_now).union(a_prev / b_prev)
    return None


class _RatioCells:
    """The law of r = e^{kappa s}/Z_d(kappa) under pi on cells of the line u = kappa (1 - s) in
    [0, 2 kappa] (r = r_top e^{-u}), for the ratio integral at large kappa.

    At an outer node c the integrands e^{-cr}, 1 - e^{-cr} change on the unit scale in u only
    near the transition u_c = log(c r_top) (c r = 1); a fixed rule at that scale over the whole
    line would need ~kappa panels.  So the rule is built per c from cells of a lattice of
    spacing h0 = 1/refinement in u, aligned dyadic cells (width 2^j h0 at a multiple of it),
    each a Gauss-Legendre rule in theta (s = cos theta, pi's density c_d sin^(d-2) theta)
    computed once and cached (neighbouring c share most cells):

    * W, u in [u_c - B, u_c + 2] (B = log(dps log 10 + 20)): unit cells;
    * above W, e^{-cr} < e^-(dps log 10 + 20): 1 - e^{-cr} = 1 there, so only pi's mass (for
      1 - T) and M's mass (for the numerator) enter, on cells widened as far as pi's (or M's) log
      density changes by at most 8 (4 for M) per cell, clipped to pi's (M's) range;
    * below W (c r < e^-2): T on pi-adapted cells that also widen with the depth u - u_c, and
      1 - T and the numerator (integrands ~ c dM, ~ (s - m) dM) on M-adapted cells, marching
      down until a cell adds less than 10^-(dps+3) of the running totals.

    T = E e^{-cr} and 1 - T are summed separately (each without cancellation), the numerator
    E[r (s - m)(e^{-cr} - 1)] as -E_M[(s - m)(1 - e^{-cr})] when the transition lies above the
    mean m of M and as E_M[(s - m) e^{-cr}] below it (equal since E_M[s - m] = 0).

    Where pi's density f(u) = (c_d/kappa) (u/kappa)^nu (2 - u/kappa)^nu (nu = (d-3)/2) varies
    slowly on the unit scale of the kernels (the transition far inside (0, 2 kappa) and below M's
    mean), ``_taylor_transforms`` replaces all the cells by closed forms: with v = u - u_c and
    c r = e^{-v}, pi's mass above W is the regularised incomplete beta function
    F(u_c - B) = I_{(u_c - B)/(2 kappa)}((d-1)/2, (d-1)/2), and the rest is f's Taylor series
    at u_c against the kernels' moments on [-B, oo), which are universal:
    int_{-B}^oo v^n (1 - exp(-e^{-v})) dv = (-1)^n n! [b^{n+1}] (e^{B b} - Gamma(1 + b)) and
    int_{-B}^oo v^n e^{-v} exp(-e^{-v}) dv = (-1)^n n! [b^n] Gamma(1 + b) (w = e^{-v}: the
    integrals are derivatives of int_0^{e^B} w^{b-1} (1 - e^{-w}) dw = (e^{B b} - Gamma(1 + b))/b and
    of Gamma(1 + b), up to incomplete-gamma tails below e^{-e^B} = 10^-dps e^-20).  So 1 - T =
    F + sum_n f_n M^a_n (or T = 1 - F - sum_n f_n M^a_n below s = 0) and the numerator
    E[r (s - m) e^{-cr}] = (1/c) sum_n g_n M^g_n, g the Taylor coefficients of f (1 - m - u/kappa).
    Used only where the last terms (of 16 + dps, at most FLINT's series cap) are below 10^-(dps+12) of the sum, u_c >= 4 B + 4
    (the series of f converges fast on [-B, 0]) and 2 kappa - u_c >= 2 (dps log 10 + 20) (the
    kernels' weight e^{-v} beyond u = 2 kappa, where f is 0 and its series is not, is negligible).
    Between M's mean and pi's bulk (d = 768, kappa = 1000) those series diverge: the tilt nears 1 and
    pi's curvature nu/u_c^2 outgrows the kernels' slow decay.  There ``_window_transforms`` takes f's
    Taylor series (untilted) on the finite window v in [-B, V] only, V = ``deep`` (where the power
    sums take over), against the kernels' moments on that window (``_window_moments``, once per
    instance); a Gauss strip up to the next lattice point and the cells' power sums below complete it.
    The series are tried in that order (the infinite window is not tried again below a u_c of pi's
    upper half where it diverged); the cells serve where neither applies.
    """

    def __init__(self, dim, kappa_text, m, dps, refinement):
        self.dim = dim
        self.kappa_text = kappa_text
        self.kappa = arb(kappa_text)
        self.kappa_f = float(kappa_text)
        self.refinement = refinement
        self.h0 = arb(1) / arb(refinement)
        self.h0_f = 1 / refinement
        self.u_end = 2 * self.kappa_f
        self.last = int(math.ceil(self.u_end / self.h0_f - 1e-9))     # lattice points 0..last
        self.nodes = sphere_panel_nodes(dps) + int(4 * (refinement - 1))
        self.gx, self.gw = gauss_legendre_arb(self.nodes, flint.ctx.prec)
        d = arb(dim)
        self.cd = ((d / 2).lgamma() - ((d - 1) / 2).lgamma() - arb.pi().log() / 2).exp()     # pi's c_d
        self.log_z = log_partition_arb(dim, self.kappa)
        self.log_r_top = self.kappa - self.log_z                      # r at s = 1
        self.m = m
        self.big = dps * math.log(10) + 20
        self.width_above = math.log(self.big)
        self.eps = arb(10) ** (-(dps + 12))
        self._taylor_setup(dim, dps)
        lo_p, hi_p = sphere_theta_range(dim, 0.0, dps + 12)
        lo_m, hi_m = sphere_theta_range(dim, self.kappa_f, dps + 12)
        self.pi_range = (self._index_below(self._u_of(lo_p)), self._index_above(self._u_of(hi_p)))
        self.m_range = (self._index_below(self._u_of(lo_m)), self._index_above(self._u_of(hi_m)))
        self.u_mean = float(self.kappa_f * (1 - float(m.mid())))
        self._cells = {}
        self._drops = {}
        self._sphere2_at = {}
        self._finite_moments = None
        self._diverges_up_to = -math.inf
        self._power_mats = {}
        # below depth ``deep`` (c r < e^-deep) 1 - e^{-cr} is POWERS terms of its series (32 rather
        # than 8: the finite window of ``_window_transforms`` ends at ``deep``, 7.2 rather than 39 at
        # 132 digits, so that pi's Taylor series converge on it)
        self.powers = 32
        # 1 - e^{-x} - sum_{j <= POWERS} (-1)^(j+1) x^j/j! is at most x^(POWERS+1)/(POWERS+1)!, below
        # 2 10^-(dps+5) of 1 - e^{-x} >= x/2 where x <= e^-deep
        self.deep = max(2.0, ((dps + 5) * math.log(10) - math.lgamma(self.powers + 2)) / self.powers)

    # ---------------------------------------------------------------- the lattice
    def _u_of(self, theta):
        return self.kappa_f * (1 - math.cos(theta))

    def _index_below(self, u):
        return max(0, min(self.last, int(math.floor(u / self.h0_f))))

    def _index_above(self, u):
        return max(0, min(self.last, int(math.ceil(u / self.h0_f))))

    def _theta_f(self, j):
        if j >= self.last:
            return math.pi
        return math.acos(max(-1.0, 1 - j * self.h0_f / self.kappa_f))

    def _drop(self, ja, jb, b):
        """About how far the log density (d - 2) log sin theta + b cos theta moves on the cell."""
        key = (ja, jb, b)
        got = self._drops.get(key)
        if got is None:
            got = self._drops[key] = self._drop_uncached(ja, jb, b)
        return got

    def _drop_uncached(self, ja, jb, b):
        ta, tb = self._theta_f(ja), self._theta_f(jb)
        h = tb - ta
        if h > 0.5 / self.refinement:
            return math.inf
        slope = curv = 0.0
        for t in (ta, tb):
            sin, cos = math.sin(t), math.cos(t)
            if self.dim > 2:
                if sin > 1e-300:
                    slope = max(slope, (self.dim - 2) * abs(cos) / sin)
                    curv = max(curv, (self.dim - 2) / sin ** 2)
                elif self.dim - 2 > self.nodes:
                    # sin^(d-2) theta at theta = 0 or pi: a polynomial the rule does not integrate
                    return math.inf
            slope = max(slope, abs(b * sin))
            curv = max(curv, abs(b * cos))
        return slope * h + math.sqrt(curv) * h

    def decompose(self, ja, jb, allowed):
        """[ja, jb) as aligned dyadic cells (ja, ja + w), each as wide as ``allowed`` permits."""
        j = ja
        while j < jb:
            w = 1
            while j % (2 * w) == 0 and j + 2 * w <= jb and allowed(j, j + 2 * w):
                w *= 2
            yield j, j + w
            j += w

    def cell(self, ja, jb):
        """(r, pi weights, M weights times (s - m), P_0, G_0) of the cell's nodes (cached): P_0 = sum pw
        (pi's mass), G_0 = sum g; the higher power sums are ``_power_matrix``'s."""
        key = (ja, jb)
        got = self._cells.get(key)
        if got is not None:
            return got
        kappa = self.kappa
        ta = arb(0) if ja == 0 else (1 - ja * self.h0 / kappa).acos()
        tb = arb.pi() if jb >= self.last else (1 - jb * self.h0 / kappa).acos()
        r, pw, g = self._rule_theta(ta, tb)
        zero = arb(0)
        got = self._cells[key] = (r, pw, g, sum(pw, zero), sum(g, zero))
        return got

    def _rule_theta(self, ta, tb):
        """(r, pi weights, M weights times (s - m)) at the Gauss nodes of [ta, tb] in theta."""
        half, mid = (tb - ta) / 2, (ta + tb) / 2
        r, pw, g = [], [], []
        power = self.dim - 2
        c_half = self.cd * half
        kappa = self.kappa
        for xi, wi in zip(self.gx, self.gw):
            sin, cos = (mid + half * xi).sin_cos()
            w = wi * c_half * sin ** power if power else wi * c_half      # pi's density c_d sin^(d-2)
            ri = (kappa * cos - self.log_z).exp()
            r.append(ri)
            pw.append(w)
            g.append(w * ri * (cos - self.m))
        return r, pw, g

    def _power_matrix(self, ja, jb, cell):
        """The power sums P_j = sum pw r^j and G_j = sum g r^j, j = 0..POWERS, of the cell (ja, jb) from
        ``cell`` as a (POWERS + 1) x 2 ball matrix [P | G] (cached; deep cells only)."""
        got = self._power_mats.get((ja, jb))
        if got is None:
            r, pw, g, _, _ = cell
            # [r_i^j] (j = 0..POWERS, i over the nodes) times [pw | g]: one ball matrix product in C
            powers = [[arb(1)] * len(r), r]
            for _ in range(self.powers - 1):
                powers.append(list(map(_mul, powers[-1], r)))
            got = self._power_mats[ja, jb] = flint.arb_mat(powers) * flint.arb_mat(list(map(list, zip(pw, g))))
        return got

    # ---------------------------------------------------------------- the transforms at c
    # ---------------------------------------------------------------- the closed forms
    def _taylor_setup(self, dim, dps):
        """The closed forms' constants (class docstring) at the current precision."""
        terms = self.taylor_terms = min(16 + dps, flint.ctx.cap - 2)     # series length: FLINT caps at ctx.cap
        b = arb(self.width_above)
        self.taylor_b = b
        signed_factorial = self.signed_factorial = [arb(1)]
        for n in range(1, terms + 1):
            signed_factorial.append(-signed_factorial[-1] * n)
        self._moments = {}
        self.taylor_eps = arb(10) ** (-(dps + 2))
        self.nu = (arb(dim) - 3) / 2
        self.beta_param = (arb(dim) - 1) / 2
        # odd d: a = (d - 1)/2 an integer, FLINT's incomplete beta slow (``_symmetric_beta_lower``)
        self.beta_series = dim % 2 == 1 and dim >= 21
        self.log_f_const = self.cd.log() - self.kappa.log()
        self.two_kappa = 2 * self.kappa

    def _kernel_moments(self, kind, tilt):
        """int_{-B}^oo v^n e^{b v} K(v) dv, n < taylor_terms, b = tilt/20 < 1, tilt odd (cached per (kind, tilt)):

        * "a": K = 1 - G (G(v) = exp(-e^{-v})): (-1)^n n! [t^n] J(t - b), J(x) = (e^{Bx} - Gamma(1 + x))/x;
        * "g": K = e^{-v} G: (-1)^n n! [t^n] Gamma(1 - b + t).
        (w = e^{-v}: the integrals are derivatives in x of int_0^{e^B} w^{x-1} h(w) dw for h = 1 - e^{-w}
        and w e^{-w}, up to incomplete-gamma tails below e^{-e^B} = 10^-dps e^-20; J continues
        analytically to x > -1.)  The division of series by x near 0 loses about log2(1/|x|) bits per
        term: the precision is raised by that much for it."""
        key = (kind, tilt)
        got = self._moments.get(key)
        if got is not None:
            return got
        series, terms, b, signs = flint.arb_series, self.taylor_terms, self.taylor_b, self.signed_factorial
        if kind == "g":
            coeffs = series([1 - arb(tilt) / 20, 1], prec=terms).gamma().coeffs()
        else:
            saved = flint.ctx.prec          # tilt != 0 (odd): x0 = -tilt/20 is never 0
            flint.ctx.prec = saved + int(terms * math.log2(20 / abs(tilt))) + 20
            try:
                x0 = -arb(tilt) / 20          # at the raised precision
                numerator = (b * x0).exp() * series([0, b], prec=terms).exp() - series([1 + x0, 1], prec=terms).gamma()
                coeffs = (numerator / series([x0, 1], prec=terms)).coeffs()
            finally:
                flint.ctx.prec = saved
        coeffs = coeffs + [arb(0)] * (terms - len(coeffs))
        got = self._moments[key] = [signs[n] * (+coeffs[n]) for n in range(terms)]
        return got

    def _density_series(self, uc, rest, tilt):
        """(f, g): the coefficients of ``_taylor_series`` (taylor_terms of them) and those of g(v) =
        f(v) (1 - m - (u_c + v)/kappa), pi's density times s - m."""
        kappa, terms = self.kappa, self.taylor_terms
        f = self._taylor_series(uc, rest, tilt, terms)
        alpha = 1 - self.m - uc / kappa
        return f, [alpha * f[0]] + [alpha * f[n] - f[n - 1] / kappa for n in range(1, terms)]

    def _taylor_series(self, uc, rest, tilt, terms):
        """pi's density at u_c + v as f0 e^{(tilt/20) v} Q(v): the coefficients of f0 Q.

        Q(v) = (1 + v/u_c)^nu (1 - v/rest)^nu e^{-t v} (t = tilt/20) solves q(v) Q' = p(v) Q with
        q = (u_c + v)(rest - v) = q0 + q1 v - v^2 and p = nu (rest - u_c) - 2 nu v - t q, so its
        coefficients follow q0 (n+1) Q_{n+1} = (p0 - q1 n) Q_n + (p1 + n - 1) Q_{n-1} + t Q_{n-2}
        (Q_0 = 1): O(terms) ball operations, against a series log and exp (3.5-5x the time)."""
        kappa, nu = self.kappa, self.nu
        log_f0 = self.log_f_const + nu * ((uc / kappa).log() + (rest / kappa).log())
        f0 = log_f0.exp()
        t = arb(tilt) / 20 if tilt else None
        q0, q1 = uc * rest, rest - uc
        p0, p1 = nu * q1, -2 * nu
        if t is not None:
            p0, p1 = p0 - t * q0, p1 - t * q1
        out = [f0]
        before = before2 = arb(0)          # Q_{n-1}, Q_{n-2} (times f0)
        for n in range(terms - 1):
            now = out[n]
            total = (p0 - q1 * n) * now + (p1 + (n - 1)) * before
            if t is not None:
                total += t * before2
            out.append(total / (q0 * (n + 1)))
            before, before2 = now, before
        return out

    def _window(self, coeffs, moments):
        """sum_n coeffs_n moments_n, or None when its last three terms are not below 10^-(dps+2) of it."""
        total = sum(map(_mul, coeffs, moments), arb(0))
        n = len(coeffs)
        tail = max(abs(coeffs[i] * moments[i]) for i in range(n - 3, n))
        if tail.mid() > (self.taylor_eps * abs(total)).mid() or not total.is_finite():
            return None
        return total

    def _beta_lower(self, z):
        """I_z(a, a), a = (d - 1)/2: pi's mass of s >= 1 - 2z."""
        if self.beta_series:
            return _symmetric_beta_lower(z, self.beta_param)
        return z.beta_lower(self.beta_param, self.beta_param, 1)

    def _taylor_transforms(self, c, u_c):
        """``transforms(c)`` by the closed forms of the class docstring, or None where they do not
        apply (the caller then takes the cells)."""
        if (u_c < max(self.u_mean, 4 * self.width_above + 4) or self.u_end - u_c < 2 * self.big
                or u_c <= self._diverges_up_to):
            return None
        b, nu = self.taylor_b, self.nu
        uc = c.log() + self.log_r_top
        rest = self.two_kappa - uc
        # f(u_c + v) = f0 e^{b0 v} Q(v) with b0 = f'/f at u_c rounded to an odd multiple of 1/20: the tilt
        # e^{b0 v} goes into the kernels' moments (cached per b0), so that Q's series converges fast
        beta = float((nu / uc - nu / rest).mid())
        tilt = 2 * int(math.floor(beta * 10)) + 1
        if tilt >= 19:
            self._diverged(u_c)
            return None
        f, g = self._density_series(uc, rest, tilt)
        window = self._window(f, self._kernel_moments("a", tilt))
        first = self._window(g, self._kernel_moments("g", tilt))
        if window is None or first is None:
            self._diverged(u_c)
            return None
        first = first / c
        z = (uc - b) / self.two_kappa                   # F = I_z(a, a): pi's mass above u_c - B
        if u_c < self.kappa_f:
            log_transform = (-(self._beta_lower(z) + window)).log1p()
        else:
            log_transform = _log_or_none(self._beta_lower(1 - z) - window)
        return log_transform, first

    # ---------------------------------------------------------------- the finite window
    def _window_moments(self):
        """int_{-B}^{V} v^n K(v) dv, n < taylor_terms, V = ``deep``, for K = 1 - G, G and e^{-v} G
        (G(v) = exp(-e^{-v})): Gauss-Legendre panels about one unit wide, once per instance, with the
        cells' nodes and taylor_terms/4 more for the powers (at 30 digits the cells' nodes alone left
        n = 45 of v^n e^{-v} G at 31 digits, 12 more gave 42)."""
        if self._finite_moments is not None:
            return self._finite_moments
        lo, hi = -self.taylor_b, arb(self.deep)
        panels = int(math.ceil(float((hi - lo).mid())))
        half = (hi - lo) / (2 * panels)
        terms = self.taylor_terms
        gx, gw = gauss_legendre_arb(self.nodes + terms // 4, flint.ctx.prec)
        columns, powers = [], []
        for p in range(panels):
            mid = lo + (2 * p + 1) * half
            for xi, wi in zip(gx, gw):
                v = mid + half * xi
                e = (-v).exp()
                big_g = (-e).exp()
                w = wi * half
                columns.append([w * -((-e).expm1()), w * big_g, w * e * big_g])
                row, x = [], arb(1)
                for _ in range(terms):
                    row.append(x)
                    x = x * v
                powers.append(row)
        # (terms x nodes) times (nodes x 3), in C
        moments = flint.arb_mat(powers).transpose() * flint.arb_mat(columns)
        self._finite_moments = tuple([moments[n, k] for n in range(terms)] for k in range(3))
        return self._finite_moments

    def _window_transforms(self, c, u_c):
        """``transforms(c)`` with pi's density as its Taylor series at u_c on the window v = u - u_c in
        [-B, V] (V = ``deep``), against the kernels' moments there (``_window_moments``, which do not
        depend on c); above the window pi's mass (incomplete beta), below it a Gauss rule up to the
        next lattice point and the cells' power sums (``_below``).  Unlike ``_taylor_transforms`` the
        window is finite, so no tilt is needed and the series need not decay beyond it: this serves
        the transitions between M's mean and pi's bulk, where the infinite window's series diverge
        (d = 768, kappa = 1000).  None where it does not apply (the caller then takes the cells)."""
        depth = self.deep
        reach = 4 * (max(self.width_above, depth) + 1)
        if u_c < max(self.u_mean, reach) or self.u_end - u_c < reach:
            return None
        j_v = self._index_above(u_c + depth)
        if j_v >= self.last:
            return None
        kappa = self.kappa
        uc = c.log() + self.log_r_top
        f, g = self._density_series(uc, self.two_kappa - uc, 0)
        one_minus_g, big_g, tilted_g = self._window_moments()
        eps_window = self._window(f, one_minus_g)
        first = self._window(g, tilted_g)
        if eps_window is None or first is None:
            return None
        first = first / c
        small_form = u_c < self.kappa_f
        if not small_form:
            t_window = self._window(f, big_g)
            if t_window is None:
                return None
        # the strip from u_c + V to the lattice point j_v (at most a unit cell): the cells' Gauss rule
        u_top = uc + arb(depth)
        t_top = (1 - u_top / kappa).acos()
        t_bottom = (1 - j_v * self.h0 / kappa).acos()
        nc, zero = -c, arb(0)
        r, pw, gw = self._rule_theta(t_top, t_bottom)
        cr = [nc * v for v in r]
        e = list(map(arb.exp, cr))
        eps_window -= sum(map(_mul, pw, map(arb.expm1, cr)), zero)          # 1 - e^{-cr} = -expm1(-cr)
        first += sum(map(_mul, gw, e), zero)
        z = (uc - self.taylor_b) / self.two_kappa           # pi's mass above u_c - B: I_z(a, a)
        above = self._beta_lower(z) if small_form else zero
        eps_below, first = self._below(c, u_c, j_v, False, eps_window + above, eps_window, first)
        if small_form:
            return (-(above + eps_window + eps_below)).log1p(), first
        # T = int_window f G + the strip's + pi's mass below j_v less eps_below
        mass_below = self._beta_lower(1 - j_v * self.h0 / self.two_kappa)
        return _log_or_none(t_window + sum(map(_mul, pw, e), zero) + mass_below - eps_below), first

    def _diverged(self, u_c):
        """The infinite window's series diverge at u_c: in pi's upper half (transitions falling towards
        M's mean, where the tilt nears 1 and pi's curvature grows) they are not tried again at or below
        u_c (which route serves a node changes only the work: each is exact to the digits asked)."""
        if u_c < self.kappa_f:
            self._diverges_up_to = max(self._diverges_up_to, u_c)

    def transforms(self, c):
        """(log E e^{-cr}, E[r (s - m)(e^{-cr} - 1)]) at c (arb); the log is None for -infinity: by the
        closed forms where they apply (everywhere for d = 3), else by the finite window where it
        applies, else on the cells."""
        if self.dim == 3:
            return self._sphere2_transforms(c)
        u_c = float((c.log() + self.log_r_top).mid())
        closed = self._taylor_transforms(c, u_c)
        if closed is None:
            closed = self._window_transforms(c, u_c)
        return closed if closed is not None else self.cell_transforms(c)

    def _sphere2_transforms(self, c):
        """``transforms(c)`` on S^2 in closed form.  There pi is uniform in u on [0, 2 kappa]; with
        w = c r = A e^{-u} (A = c r_top, a0 = A e^{-2 kappa}) and s - m = (1 - m) - log(A/w)/kappa:

        * T = E e^{-cr} = (E1(a0) - E1(A))/(2 kappa), 1 - T = (Ein(A) - Ein(a0))/(2 kappa), Ein(z) =
          int_0^z (1 - e^{-t}) dt/t (the one that is not near 1 is formed, then log T or log1p(-(1 - T)));
        * N = E[r (s - m)(e^{-cr} - 1)] = (1/(2 kappa c)) int_a0^A (s - m)(e^{-w} - 1) dw, which by
          int log w e^{-w} dw = -e^{-w} log w - E1(w) and s(A) = 1, s(a0) = -1 is
          (2T - (1 + m) e^{-a0} - (1 - m) e^{-A})/(2 kappa c), formed at raised precision until its
          ball is narrow (its terms cancel to O(A^2/kappa)); for A <= 1 by the series of 1 - e^{-w}:
          N = -(1/(2 kappa c)) sum_{j>=1} (-1)^(j+1)/(j! (j+1)) (A^(j+1) (1 - m - 1/(kappa (j+1)))
          + a0^(j+1) (1 + m + 1/(kappa (j+1)))).
        1 - m = 1/kappa - 2/(e^{2 kappa} - 1) (m = coth kappa - 1/kappa) is formed without cancellation.
        Computed at c's midpoint; c's radius r then adds r U/L to log T and r V to N, with bounds over
        the ball (arb evaluates them on it): U >= E[r e^{-cr}] = (e^{-a0} - e^{-A})/(2 kappa c) = -dT/dc,
        L = T(mid) - r U <= T (T decreases), V >= |dN/dc| = |E r^2 (s - m) e^{-cr}| from |s - m| <= u/kappa +
        (1 - m) and E[r^2 e^{-cr}] = (g(A) - g(a0))/(2 kappa c^2) <= E r^2 <= r_top^2/(4 kappa), g(x) = 1 - (1 + x)
        e^{-x} (when L <= 0 the cells serve)."""
        if not c.rad().is_zero():
            log_transform, first = self._sphere2_transforms(arb(c.mid()))
            if log_transform is None:
                return None, first
            radius = c.rad()
            kappa, r_top, decay, one_minus_m = self._sphere2_exact_constants()
            big_a = c * r_top
            a0 = big_a * decay
            u_bound = (((-a0).exp() - (-big_a).exp()) / (2 * kappa * c)).upper()
            lower = (log_transform.exp() - radius * u_bound).lower()
            if not lower > 0:
                return self.cell_transforms(c)
            g_gap = (a0 + 1) * (-a0).exp() - (big_a + 1) * (-big_a).exp()          # g(A) - g(a0) >= 0
            second = min((g_gap / (2 * kappa * c * c)).upper(), (r_top * r_top / (4 * kappa)).upper())
            # |s - m| <= u/kappa + (1 - m): E[r^2 u e^{-cr}] <= min(E r^2 u, 2 kappa E[r^2 e^{-cr}]), E r^2 u <= r_top^2/(8 kappa)
            tilted = min((r_top * r_top / (8 * kappa)).upper(), (2 * kappa * second).upper())
            v_bound = (2 * (one_minus_m * second + tilted / kappa)).upper()
            return (log_transform + arb(0, (radius * u_bound / lower).upper()),
                    first + arb(0, (radius * v_bound).upper()))
        prec = flint.ctx.prec
        eps = arb(2) ** (-prec)
        extra = 16
        while True:
            # everything from c and kappa's decimal at prec + extra: r_top = e^kappa/Z_3(kappa) =
            # 2 kappa/(1 - e^{-2 kappa}), so that the cancellations below meet exact inputs
            flint.ctx.prec = prec + extra
            try:
                kappa, r_top, decay, one_minus_m = self._sphere2_exact_constants()
                two_kappa = 2 * kappa
                big_a = c * r_top
                a0 = big_a * decay
                one_plus_m = 2 - one_minus_m
                if big_a.mid() <= 1:
                    # 1 - T small: Ein by its series, N by the series of 1 - e^{-w}
                    log_transform = (-(_ein_series(big_a) - _ein_series(a0)) / two_kappa).log1p()
                    total, term_a, term_0, j = arb(0), big_a * big_a, a0 * a0, 1     # A^(j+1)/j!
                    while True:
                        inv = 1 / (kappa * (j + 1))
                        piece = (term_a * (one_minus_m - inv) + term_0 * (one_plus_m + inv)) / (j + 1)
                        total = total + piece if j % 2 else total - piece
                        if abs(piece).mid() < (eps * abs(total)).mid() and j > 2:
                            break
                        j += 1
                        term_a, term_0 = term_a * big_a / j, term_0 * a0 / j
                    # alternating terms decreasing in j (A <= 1): the rest is below the last
                    first = -(total + arb(0, abs(piece).upper())) / (two_kappa * c)
                else:
                    e1_big = _expint1_beside(big_a, a0, flint.ctx.prec)
                    e1_gap = _expint1_small(a0) - e1_big                        # 2 kappa T
                    if not (e1_gap.is_finite() and e1_gap > 0):
                        # T below what FLINT's E1 represents (a0 ~ e^1000): as the cells, log T = -oo
                        return None, arb(0)
                    numerator = e1_gap / kappa - one_plus_m * (-a0).exp() - one_minus_m * (-big_a).exp()
                    transform = e1_gap / two_kappa
                    if transform.mid() > 0.5:
                        # Ein(A) = E1(A) + gamma + log A from the E1(A) above where _ein would compute the
                        # same (A at or past arb's lossy window, prec/6); else _ein raises the precision
                        ein_big = (e1_big + arb.const_euler() + big_a.log()
                                   if big_a.mid() >= flint.ctx.prec / E1_FRACTION_WINDOW[0] else _ein(big_a))
                        log_transform = (-(ein_big - _ein(a0)) / two_kappa).log1p()
                    else:
                        log_transform = transform.log()
                    first = numerator / (two_kappa * c)
                if ((first.rad() < (eps * abs(first)).mid() and log_transform.rad() < (eps * abs(log_transform)).mid())
                        or extra > 8 * prec):
                    break
            finally:
                flint.ctx.prec = prec
            extra *= 2
        return +log_transform, +first

    def _sphere2_exact_constants(self):
        """(kappa, r_top, e^{-2 kappa}, 1 - m) on S^2 from kappa's decimal at the current precision
        (``_sphere2_constants``), once per precision: parsing and forming them took 8 of the 30 us of a
        node of ``_sphere2_transforms``."""
        prec = flint.ctx.prec
        got = self._sphere2_at.get(prec)
        if got is None:
            kappa = arb(self.kappa_text)
            got = self._sphere2_at[prec] = (kappa, *_sphere2_constants(kappa))
        return got

    def cell_transforms(self, c):
        """``transforms(c)`` on the cells."""
        u_c = float((c.log() + self.log_r_top).mid())
        j0 = self._index_below(u_c - self.width_above)
        j1 = self._index_above(u_c + 2)
        upper_form = u_c < self.u_mean            # numerator as -E_M[(s - m)(1 - e^{-cr})]
        small_form = u_c < self.kappa_f           # transition above s = 0: sum 1 - T, else T
        nc = -c
        zero = arb(0)
        T_w = eps_w = first = zero
        # W: unit cells, direct exponentials
        for j in range(j0, j1):
            r, pw, g = self.cell(j, j + 1)[:3]
            cr = [nc * v for v in r]
            e = list(map(arb.exp, cr))
            one_minus = [-(x.expm1()) if x.mid() > -1 else 1 - y for x, y in zip(cr, e)]
            T_w += sum(map(_mul, pw, e), zero)
            eps_w += sum(map(_mul, pw, one_minus), zero)
            first += (-sum(map(_mul, g, one_minus), zero) if upper_form else sum(map(_mul, g, e), zero))
        # pi's mass above W (small form) or below it (else), M's above W (upper form)
        lo, hi = self.pi_range
        pi_cells = (self.decompose(lo, min(hi, j0), self._pi_cell) if small_form
                    else self.decompose(max(lo, j1), hi, self._pi_cell))
        pi_mass = sum((self.cell(ja, jb)[3] for ja, jb in pi_cells), zero)
        if upper_form:
            lo, hi = self.m_range
            first -= sum((self.cell(ja, jb)[4] for ja, jb in self.decompose(lo, min(hi, j0), self._m_cell)),
                         zero)
        # below W (c r < e^-2)
        eps_below, first = self._below(c, u_c, j1, upper_form, eps_w + (pi_mass if small_form else zero), eps_w,
                                       first)
        if small_form:
            log_transform = (-(pi_mass + eps_w + eps_below)).log1p()
        else:
            log_transform = _log_or_none(T_w + pi_mass - eps_below)
        return log_transform, first

    def _below(self, c, u_c, j_start, upper_form, eps_scale, eps_base, first):
        """Below the transition, from lattice point j_start down: 1 - e^{-cr} on M-adapted cells until
        negligible (against ``eps_scale`` and the running totals eps_base + eps_below, first); direct
        exponentials down to depth ``deep``, the power sums (c r < e^-deep: POWERS terms) below.
        Returns (eps_below = E_pi[(1 - e^{-cr}); below], first plus the numerator's part below)."""
        zero = arb(0)
        nc, h0 = -c, self.h0_f
        eps_below = zero
        first_scale = abs(first)
        # 1 - e^{-x} = sum_{j >= 1} (-1)^(j+1) x^j / j! and e^{-x} against the cells' power sums
        # (``_power_matrix``): one ball matrix product per deep cell
        ones_row, term = [arb(0)], arb(1)
        for j in range(1, self.powers + 1):
            term = term * c / j                              # c^j / j!
            ones_row.append(term if j % 2 else -term)
        rows = flint.arb_mat([ones_row, [arb(1)] + [-v for v in ones_row[1:]]])

        def m_deep(a, b):
            # e^{-u} (and e^{-2u} in the upper form's numerator) change by <= 4.5 per cell near
            # W; deeper cells carry exponentially less of the totals, so may be coarser
            return self._drop(a, b, self.kappa_f) <= 4.5 + max(0.0, a * h0 - u_c) / 12
        for ja, jb in self.decompose(j_start, self.last, m_deep):
            cell = self.cell(ja, jb)
            r, pw, g = cell[:3]
            if ja * h0 - u_c < self.deep:
                one_minus = [-(nc * v).expm1() for v in r]
                d_eps = sum(map(_mul, pw, one_minus), zero)
                if upper_form:
                    d_first = -sum(map(_mul, g, one_minus), zero)
                else:
                    d_first = sum(map(_mul, g, map(arb.exp, map(nc.__mul__, r))), zero)
            else:
                sums = rows * self._power_matrix(ja, jb, cell)
                d_eps = sums[0, 0]
                d_first = -sums[0, 1] if upper_form else sums[1, 1]
            eps_below += d_eps
            first += d_first
            eps_scale = _arb_max(eps_scale, abs(eps_base + eps_below))
            first_scale = _arb_max(first_scale, abs(first))
            # negligible, and M's density falling with depth (the node of least r is the deepest)
            deep, shallow = (g[0], g[-1]) if r[0].mid() < r[-1].mid() else (g[-1], g[0])
            if ((abs(d_eps) <= self.eps * eps_scale) and (abs(d_first) <= self.eps * first_scale)
                    and abs(deep).mid() < abs(shallow).mid()):
                break
        return eps_below, first

    def _pi_cell(self, a, b):
        return self._drop(a, b, 0.0) <= 8

    def _m_cell(self, a, b):
        return self._drop(a, b, self.kappa_f) <= 4.5


def _ratio_bias_cells(an, ks, refinement, dps):
    """``_ratio_bias_sphere`` on the per-c cells of ``_RatioCells`` (kappa large): the same outer
    integral in y = log c.  On a range up to ``_cells_trapezoid_span`` it is the march of the fixed rule
    (``_ratio_bias_march``: the trapezoid rule, the heads from the closed-form moments of
    ``_sphere_ratio_moments``); on longer ones (below) from c_s (below which the integrals are negligible, see below) or, if
    higher, from c1 (c r < e^-2 wherever pi or M has mass, (k-1) c <= 8) with a Gauss-Legendre
    rule in c itself below c1, where the integrand is a smooth function of c.

    The panels are graded about y_b = log(1/r_min) (``_outer_integral``'s ``grade_about``), where the
    transition u_c reaches pi's end s = -1 and T falls from pi's polynomial tail there to e^{-c r_min}:
    ungraded, panels as wide as kappa/4 ending a few hundred units below it passed the error proxy with
    errors of 10^-86 of the total at (d, kappa, tau, k) = (16, 10^4, 0.03, 2) and 100 digits (115
    aimed at; the precision check caught it, and the rerun at 48 more digits took 171 s in all, now
    34 s), 10^-103 at (5, 10^4, 0.01, 3) with a grading of half the distance; with a quarter every
    panel's error, against the same panel at twice the nodes, is below 10^-120 at both.  At 30 digits
    (39 aimed at) the benchmark's (3, 1000, 0.1, 16) and (3, 2000, 0.1, 16) went from 35.7 and 34.5
    digits of agreement to 41.1 and 40.2, at the same CPU."""
    cells = an.cells
    log_r_min = cells.log_r_top - 2 * cells.kappa
    r_max, r_min = cells.log_r_top.exp(), log_r_min.exp()
    c0 = _head_reach(r_max, max(ks))
    floor, y_past = _ratio_bias_floor(r_min, arb(0), min(ks), dps)
    span = _cells_trapezoid_span(dps, max(ks) / min(ks))
    if _trapezoid_serves(floor, dps, c0, y_past, span):
        # the march of the fixed rule (``_ratio_bias_march``): its trapezoid rule's step, set by the strip,
        # serves every k's window alike, where the panels narrow about each; heads from closed-form moments
        terms = _head_terms(dps)
        heads = _ratio_heads_of_moments(*_sphere_ratio_moments(cells.dim, cells.kappa, cells.m, terms),
                                        [arb(k) for k in ks], c0, terms)
        return _ratio_bias_march(cells.transforms, ks, r_max, r_min, arb(0), heads, c0, refinement, dps, span)
    kks = [arb(k) for k in ks]

    def values_of(log_transform, first):
        if log_transform is None:
            return [arb(0)] * len(kks)
        return [kk * first * ((kk - 1) * log_transform).exp() for kk in kks]

    def values(c):
        return values_of(*cells.transforms(c))

    def integrand(c):
        return [c * v for v in values(c)]

    u_top = min(cells.pi_range[0], cells.m_range[0]) * cells.h0
    c1 = ((u_top - 2 - cells.log_r_top).exp())
    k_max = max(kks, key=lambda v: v.mid())
    c1 = _arb_max(-c1, -8 / k_max)
    c1 = (-c1).mid()
    # the integrands (<= 0: E_M[(s - m) h(s)] <= 0 for h = e^{-cr} - 1 decreasing in s) grow like
    # c^2 above the head, so the running totals are no measure of the error allowed there: a scan
    # in steps of 16 in log c (or 1/64 of the range, when wider: at large kappa the range is
    # ~2 kappa and the integrands change on the scale kappa/sqrt(d) of pi's bulk), until they
    # have fallen to 1/1000 of their peaks, gives those peaks, and the totals are at least 1/100
    # of a peak (the integrands change on the unit scale in log c or slower); a low estimate
    # only costs panels
    peaks = [arb(0)] * len(kks)
    y_c1, y_end = c1.log(), floor.log()
    step = max(16.0, float((y_end - y_c1).mid()) / 64)
    # the scan starts where the transition enters pi's range (u_c = pi's lower end), if above c1: below,
    # 1 - T is pi's negligible mass there and the cut c_s below usually lies higher; cells there, in
    # M's bulk, cost 10-50 times more than the closed forms above (0.5-0.9 s of 100-digit scans at
    # kappa = 5000-10^4, d = 768)
    y = _arb_max(y_c1, arb(cells.pi_range[0]) * cells.h0 - cells.log_r_top)
    log_ts = []
    while y.mid() < y_end.mid():
        log_transform, first = cells.transforms(y.exp())
        log_ts.append((y, log_transform))
        got = [abs(y.exp() * v) for v in values_of(log_transform, first)]
        peaks = [_arb_max(p, v) for p, v in zip(peaks, got)]
        if y.mid() > y_past.mid() and all((v * 1000).mid() < p.mid() for p, v in zip(peaks, got)):
            break
        y += step
    # below c_s the integrals are negligible: |E[r (s - m)(e^{-cr} - 1)]| = |E_M[(s - m) e^{-cr}]| (E_M s = m)
    # <= 2 E[r e^{-cr}] = -2 T'(c), so |values| <= -2 (T^k)'(c) and int_0^c_s |values| dc <= 2 (1 - T(c_s)^k),
    # which c_s keeps below 10^-dps e^-10 of a total's lower estimate (peak/100): the highest scan node
    # where it holds (it holds below it: T decreases), scanning on down to c1 if none does.  And
    # 1 - T(c) <= c E r = c gives c_s >= the cut where 2 k c_s is that small, which also serves.  At large
    # kappa, pi's mass lies far below r's top and 1 - T stays tiny for thousands of units of y above
    # the 2 k c cut: at 100 digits (768, 5000, 0.05, 65536) 4.9 -> 3.0 s and (768, 10^4, 0.01, 10^9) 6.1 -> 3.4 s
    # (CPU, both passes, with the scan's start above and the cut's secant steps and the first panel's
    # width below; 102 points, 5-100 digits, the same strings)
    eps = arb(10) ** (-dps) * arb(-10).exp()
    tolerances = [eps * p / 100 for p in peaks]
    cut = _ratio_cells_cut(cells, kks, tolerances, log_ts, step, y_c1)
    c_s = min((tol / (2 * kk) for tol, kk in zip(tolerances, kks)), key=lambda v: v.mid()).mid()
    first_width = 4
    if cut is not None and cut.exp().mid() > c_s.mid():
        # the panels start at the cut, as wide as the scan's step (the scale on which the integrands
        # change, far below their peaks there); 4 wide, they took 4 panels to grow to it: at 100
        # digits (768, 5000, 0.05, 65536) 3.16 -> 2.8 s, (768, 10^4, 0.01, 10^9) 3.54 -> 3.4 s
        c_s, first_width = cut.exp().mid(), step
    if c_s.mid() > c1.mid():
        heads, c1 = [arb(0)] * len(kks), c_s
    else:
        nodes = 10 + int(0.4 * dps) + int(4 * (refinement - 1))
        gx, gw = gauss_legendre_arb(nodes, flint.ctx.prec + 20)
        heads = [arb(0)] * len(kks)
        half = c1 / 2
        for xi, wi in zip(gx, gw):
            heads = [h + wi * half * v for h, v in zip(heads, values(half * (1 + xi)))]
    return _outer_integral(integrand, len(kks), floor, refinement, dps, heads, c1, y_past=y_past,
                           max_panel=_arb_max(MAX_PANEL, cells.kappa / 4),
                           scale_floor=[p / 100 for p in peaks], grade_about=(float((-log_r_min).mid()),),
                           first_width=first_width)


def _ratio_cells_cut(cells, kks, tolerances, log_ts, step, y_c1):
    """A y = log c below which the ratio integrals are within ``tolerances``, 2 (1 - T(c)^k) < tolerance
    for every k as balls (see ``_ratio_bias_cells``), from the scan's (y, log T) (``log_ts``, from the
    lowest up); None if there is none above y_c1.  The highest scan node where it holds (it holds below:
    T decreases), or, if none does, a point below the lowest, extrapolated from the two lowest and then
    stepping on down by ``step``; then moved up towards the next node by up to CUT_SECANTS secant steps
    on the margin log(2 (1 - T^k)/tolerance), which changes smoothly with y (cells below pi's range
    cost 10-50 times those above; at (768, 5000, 0.05, 65536) and 100 digits the scan's nodes lay 255
    units apart, the cut at the lower of two nodes 0.68 s of cells below the bound's own)."""
    def margin(log_transform):
        """(the bound holds as balls, max over k of log(2 (1 - T^k)/tolerance) as a float or +-inf)."""
        if log_transform is None:
            return False, math.inf
        bounds = [2 * -(kk * log_transform).expm1() for kk in kks]
        holds = all(b < tol for b, tol in zip(bounds, tolerances))
        logs = [float((b / tol).log().mid()) if b.mid() > 0 else -math.inf for b, tol in zip(bounds, tolerances)]
        return holds, max(logs)

    def at(y):
        return margin(cells.transforms(y.exp())[0])

    if not all(tol > 0 for tol in tolerances):
        return None                    # no peak seen: nothing to measure negligible against
    below, above = None, None          # (y, margin) of the highest node where the bound holds, the next up
    for y, log_transform in log_ts:
        holds, g = margin(log_transform)
        if not holds:
            above = (y, g)
            break
        below = (y, g)
    if below is None:
        if not log_ts:
            return None
        y = log_ts[0][0]
        if len(log_ts) > 1 and math.isfinite(above[1]):
            # the margin's slope between the two lowest nodes, extrapolated down to a margin of -2
            g2 = margin(log_ts[1][1])[1]
            slope = (g2 - above[1]) / float((log_ts[1][0] - y).mid())
            if math.isfinite(slope) and slope > 0:
                y = y - min(float(step), max(1.0, (above[1] + 2) / slope))
        else:
            y = y - step
        while y.mid() > y_c1.mid():
            holds, g = at(y)
            if holds:
                below = (y, g)
                break
            above, y = (y, g), y - step
        if below is None:
            return None
    for _ in range(CUT_SECANTS if above is not None else 0):
        (y0, g0), (y1, g1) = below, above
        if not (math.isfinite(g0) and math.isfinite(g1)) or g1 <= g0 or float((y1 - y0).mid()) < 2:
            break
        # aim at a margin of -1 (e^-1 below the tolerance), at least a unit inside the interval
        y = y0 + min(float((y1 - y0).mid()) - 1, max(1.0, (-1 - g0) / (g1 - g0) * float((y1 - y0).mid())))
        holds, g = at(y)
        if holds:
            below = (y, g)
        else:
            above = (y, g)
    return below[0]


# secant steps that move the cells' cut up between two scan nodes (``_ratio_cells_cut``)
CUT_SECANTS = 2


def _guard_bits():
    """Bits above the working digits: 32, plus the at most e^(2 TAYLOR_CUT) that the alternating
    Taylor band sums lose in relative accuracy."""
    return 32 + int(math.ceil(2 * TAYLOR_CUT / math.log(2)))


def _head_reach(spread, k):
    """The largest c at which the outer integrals' series heads hold for k (a midpoint): c spread <= 1/64
    and k c <= e^HEAD_LOG_REACH.  A sweep's heads start at that of its largest k (``_head_starts``)."""
    c = (1 / (64 * spread)).mid()
    cap = (arb(HEAD_LOG_REACH).exp() / k).mid()
    return cap if c.mid() > cap.mid() else c


def _head_terms(dps):
    """The outer integrals' heads' series length (``_Head``), shorter than the Taylor bands' (``_series_terms``:
    TAYLOR_CUT^j/j!): at a head's reach (c spread <= 1/64, t = k c <= e^HEAD_LOG_REACH) its terms fall by at
    least 64^-j from the second on.  28 terms against 60 at 39 digits; the heads' values agree with the
    full series' to 1e-45 or better at (3, 4, 0.5), (16, 8, 0.1), (128, 100, 0.02) (tests)."""
    return int(math.ceil((dps + 5) * math.log(10) / math.log(64))) + 3


def _series_terms(dps):
    # enough terms for the Taylor bands (|c y| <= TAYLOR_CUT: TAYLOR_CUT^j / j! < 10^-(dps+5))
    # and for the Frullani series of ``_log1p_expectation`` (ratio 1/64; the heads take ``_head_terms``)
    target = (dps + 5) * math.log(10)
    j = 1
    while math.lgamma(j + 1) - j * math.log(TAYLOR_CUT) < target:
        j += 1
    return max(j, int(math.ceil(target / math.log(64)))) + 1


def _anchor_laws(model, ctx, tau_value, refinement):
    return _merged_laws(model.anchor_laws(ctx, tau_value, refinement))


def _merged_laws(laws):
    """The same laws with exactly equal atoms merged and anchors with exactly equal laws merged.

    Within a law, atoms with the same (similarity, density ratio) are one atom carrying the sum
    of their negative and positive weights; anchors whose merged laws are equal are one anchor
    carrying the sum of their weights.  Both are exact (equal mpf values only): every quantity
    is a function of the laws, so nothing changes but the work (a symmetric model such as
    App. A.2 with an exactly given Gram matrix reduces to one anchor with two atoms).
    """
    merged = {}
    for law in laws:
        shared = law.positive_similarity == law.negative_similarity
        ratio = law.negative_ratio
        groups = {}
        for i, s in enumerate(law.negative_similarity):
            key = (s, None if ratio is None else ratio[i])
            neg, pos = groups.get(key, (0, 0))
            groups[key] = (neg + law.negative_weight[i], pos + (law.positive_weight[i] if shared else 0))
        keys = sorted(groups)
        if shared:
            positive_similarity = tuple(key[0] for key in keys)
            positive_weight = tuple(groups[key][1] for key in keys)
        else:
            pos_groups = {}
            for p, q in zip(law.positive_similarity, law.positive_weight):
                pos_groups[p] = pos_groups.get(p, 0) + q
            positive_similarity = tuple(sorted(pos_groups))
            positive_weight = tuple(pos_groups[p] for p in positive_similarity)
        signature = (tuple(key[0] for key in keys), tuple(groups[key][0] for key in keys),
                     None if ratio is None else tuple(key[1] for key in keys),
                     positive_similarity, positive_weight)
        merged[signature] = merged.get(signature, 0) + law.weight
    return [AnchorLaw(weight, *signature) for signature, weight in merged.items()]


def _kappa_text(model):
    """kappa as the decimal given (``SphereModel.kappa_decimal``), never its float: 3.14159265358979323846
    typed is not 3.141592653589793."""
    return model.kappa_decimal


def _compute(model, tau_value, ks, loss, dps, refinement, rule_dps=None):
    """[(values, gaps, undefined) for k in ks]: arithmetic at dps digits, every rule (quadrature,
    series truncation, neglected tails) aimed at 10^-rule_dps (default dps); the k-independent
    work (rules, atoms, prefix tables, closed forms) is done once."""
    ctx = mpmath.mp
    saved = flint.ctx.prec, flint.ctx.cap
    try:
        with mpmath.workdps(dps):
            flint.ctx.prec = ctx.prec + _guard_bits()
            flint.ctx.cap = _series_terms(dps)      # power series length (FLINT caps at this)
            return _compute_at_precision(ctx, model, tau_value, ks, loss, refinement, rule_dps)
    finally:
        flint.ctx.prec, flint.ctx.cap = saved


def _checked(name, compute):
    """Run one quantity's computation; a failure of the route is an ArithmeticError naming it."""
    try:
        value = compute()
    except (ValueError, ZeroDivisionError, OverflowError) as exc:
        raise ArithmeticError(f"{name}: the exact route failed ({type(exc).__name__}: {exc})") from None
    if not _all_finite(value):
        raise ArithmeticError(f"{name}: the exact route gave a non-finite value (an integrand lost "
                              f"all its precision: its ball arithmetic returned nan or inf)")
    return value


def _all_finite(value):
    """Every arb in a (nested) list or tuple is finite."""
    if isinstance(value, arb):
        return value.is_finite()
    if isinstance(value, (list, tuple)):
        return all(map(_all_finite, value))
    return True


def _compute_at_precision(ctx, model, tau_value, ks, loss, refinement, rule_dps=None):
    dps = ctx.dps if rule_dps is None else min(rule_dps, ctx.dps)     # the rules' target
    tau = _to_arb(_decimal(ctx, tau_value))
    terms = _series_terms(dps)
    big = dps * arb(10).log() + 10
    sphere = isinstance(model, SphereModel)
    if sphere:
        above_one = [k for k in ks if k > 1]          # the ratio rule serves every k > 1
        anchors = [_SphereAnchor(model, tau, tau_value, _kappa_text(model), terms, big, dps, refinement,
                                 min(above_one) if above_one else 1)]
    elif hasattr(model, "arb_arrays"):
        from .exact_finite import finite_anchors       # finite models (exact_finite imports this module)
        anchors = finite_anchors(model, tau, terms, big)
    else:
        laws = _anchor_laws(model, ctx, tau_value, refinement)
        anchors = [_Anchor(law, tau, terms, big) for law in laws]
    F = _from_arb
    tau_m = F(tau)
    weights = [ctx.mpf(an.weight) if not isinstance(an.weight, arb) else F(an.weight) for an in anchors]
    ce_limit = ctx.fsum(w * (-F(an.mean_positive) / tau_m + F(an.log_mu)) for w, an in zip(weights, anchors))
    dominated = all(an.r is not None for an in anchors)
    # every k's log-ratio integrals on one node grid per anchor
    shared_integrals = [_checked("risk", lambda: _log_ratio_expectations(an, ks, refinement, dps))
                        for an in anchors]
    ratio_ks = [k for k in ks if k > 1]
    sphere_bias = {}
    if sphere and dominated and ratio_ks and not anchors[0].r_constant:
        sphere_bias = dict(zip(ratio_ks, _checked(
            "search_cross_entropy", lambda: (_ratio_bias_cells if anchors[0].cells is not None
                                             else _ratio_bias_sphere)(anchors[0], ratio_ks, refinement, dps))))
    out = []
    for index, k in enumerate(ks):
        values, gaps, undefined = {}, {}, {}
        values["cross_entropy_limit"] = ce_limit
        integrals = [per_k[index] for per_k in shared_integrals]
        if k == 1:
            # mu_hat = X_1: E log(mu_hat/mu) = E s/tau - log mu exactly; R(1) itself is integrated
            dcl_gap = ctx.fsum(w * (F(an.log_mu) - F(an.mean_negative) / tau_m) for w, an in zip(weights, anchors))
            risk_one = ctx.fsum(w * F(j[0]) for w, j in zip(weights, integrals))
            info_gap = ce_limit - risk_one
        else:
            dcl_gap = -ctx.fsum(w * F(j[0]) for w, j in zip(weights, integrals))
            info_gap = -ctx.fsum(w * F(j[-1]) for w, j in zip(weights, integrals))
        gap = info_gap if loss == "infonce" else dcl_gap
        values["risk"] = risk_one if (k == 1 and loss == "infonce") else ce_limit - gap
        gaps["cross_entropy_limit_minus_risk"] = gap
        gaps["infonce_minus_dcl_risk"] = dcl_gap - info_gap          # R - R~ >= 0
        if not dominated:
            reason = getattr(model, "domination_reason", "assumption (B) fails")
            undefined["search_cross_entropy"] = reason
            undefined["density_ratio_second_moment"] = reason
        else:
            values["density_ratio_second_moment"] = ctx.fsum(w * F(an.ratio_second_moment)
                                                              for w, an in zip(weights, anchors))
            if any(not an.r_zero_mass.is_zero() for an in anchors):
                undefined["search_cross_entropy"] = KERNEL_VANISHES
            else:
                if k == 1:
                    bias = ctx.fsum(w * (F(an.mean_negative_ratio_rule) - F(an.m)) for w, an in zip(weights, anchors))
                elif all(an.r_constant for an in anchors):
                    bias = ctx.zero          # M = pi (e.g. kappa = 0): M_hat_k = uniform, no bias
                elif sphere:
                    bias = F(sphere_bias[k])
                else:
                    bias = ctx.fsum(w * F(_checked("search_cross_entropy",
                                                   lambda: _ratio_bias(an, k, refinement, dps)))
                                    for w, an in zip(weights, anchors))
                search_minus_dcl = -bias / tau_m
                gaps["search_minus_dcl_risk"] = search_minus_dcl
                gaps["search_cross_entropy_minus_risk"] = search_minus_dcl - (dcl_gap - gap)
                values["search_cross_entropy"] = ce_limit - dcl_gap + search_minus_dcl
                if k == 1:   # M_hat_1 = Q_hat_1 = delta_xi: the cross-entropy is exactly zero
                    values["search_cross_entropy"] = ctx.zero
                    gaps["search_cross_entropy_minus_risk"] = -values["risk"]
        out.append((values, gaps, undefined))
    return out


GUARD = 12      # extra digits of the first pass's arithmetic (the precision check adds CHECK_DIGITS more)


def _rule_digits(digits):
    """The first pass's rules (quadrature, series, neglected tails) aim at 10^-(this): the two passes'
    agreement follows the rules' target, not the arithmetic's digits (at 30 digits and k = 10^9 the
    first pass agreed to 61 digits when its rules aimed at the working 61). The ratio rule delivers
    about 5% fewer digits than it aims at (2 of 38, 6 of 108), hence a margin growing with the digits.
    At 100 digits, digits + 6 alone cost 11-17% less CPU at (512, 200, 0.01, 1e9), (128, 100, 0.02, 4096),
    (256, 400, 0.07, 65536) and (64, 1e4, 0.05, 16), whose passes then agreed to 110.6, 106.8, 107.3 and 109.4
    digits instead of 119.4, 116.8, 117.1 and 115.2 (Dec 2026): the margin is kept."""
    return digits + 6 + -(-digits // 12)


def working_digits(digits, k):
    """The first pass's arithmetic digits at k (public: exact_finite's estimates size runs by them)."""
    return digits + GUARD + int(2 * math.log10(k)) + 1


def exact_values(model, tau, k=None, digits: int = 30, loss: str = "infonce", verify: bool = True,
                 ks=None):
    """Exact R (or R~), ∫CE, search CE and E|dM/dpi|^2 at ``digits`` significant digits.

    ``k=`` gives one ExactValues; ``ks=[k1, k2, ...]`` gives a list of ExactValues, one per k, in
    the order given, sharing every k-independent part of the work (rules, atoms, prefix tables,
    closed forms; the working precision is that of the largest k).

    k = 1 on the sphere S^2 is a 2-D integral, E log(1 + e^{(s - p)/tau}) with s uniform on
    [-1, 1] and p of density kappa e^{kappa p}/(2 sinh kappa); mpmath.quad gives
    0.47652149796660589834 for kappa = 2, tau = 1/2:

    >>> from infonce_sym.models import SphereModel
    >>> r = exact_values(SphereModel(3, 2.0), 0.5, 1, digits=15)
    >>> r.as_strings()["risk"]
    '0.476521497966606'
    """
    check_tau(tau)
    if (k is None) == (ks is None):
        raise InputError("k", "give exactly one of k (one value) and ks (a list of values)")
    single = ks is None
    ks = [check_k(k)] if single else [check_k(v) for v in ks]
    if not ks:
        raise InputError("ks", "must be a non-empty list of integers >= 1")
    digits = check_digits(digits)
    if loss not in ("infonce", "dcl"):
        raise InputError("loss", f"must be 'infonce' or 'dcl', got {loss!r}")
    start = time.process_time()
    dps = working_digits(digits, max(ks))
    rule = _rule_digits(digits)
    order = sorted(set(ks))

    def floor(kv):
        # each k's floor digits are those a run of that k alone would have (plus any raise below): the shared
        # precision of a sweep's largest k put a small k's exact 0 (rounding noise at its rules' 10^-39) above a
        # floor of 10^-61, and the passes' noise then "disagreed" (exit 1 at --k 7,10^9; a probe, Dec 2026)
        return working_digits(digits, kv) + (dps - working_digits(digits, max(ks)))

    first = _compute(model, tau, order, loss, dps, 1, rule)
    lost = max(_cancelled_digits(result, floor(k), k == 1 and loss == "infonce") for result, k in zip(first, order))
    if lost > (rule - digits) / 2:
        # R = ∫CE - gap (or the search CE) is much smaller than its parts: its parts are needed to
        # the digits lost more (rules), and beyond the guard digits (arithmetic)
        rule += int(math.ceil(lost)) + 1
        if lost > GUARD / 2:
            dps += int(math.ceil(lost)) + 1
        first = _compute(model, tau, order, loss, dps, 1, rule)
    agreements = [math.inf] * len(order)
    if verify:
        second = _compute(model, tau, order, loss, dps + CHECK_DIGITS, REFINED, rule + CHECK_DIGITS)
        agreements = [_agreement(a, b, floor(kv)) for a, b, kv in zip(first, second, order)]
        if min(agreements) < digits:
            # once more with more digits (twice the shortfall, and the guard): a part of the
            # route lost more than the cancellation measured above; the result still stands
            # only if both passes then agree
            more = GUARD + 2 * int(math.ceil(digits - min(agreements)))
            dps, rule = dps + more, rule + more
            first = _compute(model, tau, order, loss, dps, 1, rule)
            second = _compute(model, tau, order, loss, dps + CHECK_DIGITS, REFINED, rule + CHECK_DIGITS)
            agreements = [_agreement(a, b, floor(kv)) for a, b, kv in zip(first, second, order)]
        second = [_zero_below_floor(a, b, floor(kv), digits, _known_nonzero(model, tau, kv))
                  for a, b, kv in zip(first, second, order)]
        for kv, agreement in zip(order, agreements):
            if agreement < digits:
                worst = _worst_quantity(first[order.index(kv)], second[order.index(kv)], floor(kv))
                raise ArithmeticError(
                    f"{worst}: exact values agree to only {agreement:.1f} digits when the precision is "
                    f"raised (k = {kv}); asked for {digits}")
        first = second
    seconds = (time.process_time() - start) / len(order)
    results = {}
    for kv, (values, gaps, undefined), agreement in zip(order, first, agreements):
        results[kv] = ExactValues(model=getattr(model, "label", str(model)), tau=str(tau), k=kv, loss=loss,
                                  digits=digits, values=values, gaps=gaps, undefined=undefined,
                                  seconds=seconds, agreement_digits=agreement)
    return results[ks[0]] if single else [results[kv] for kv in ks]


def _cancelled_digits(result, dps, risk_direct=False):
    """Digits lost when a value or gap is formed as a difference of larger parts (∫CE - gap; not the
    risk when ``risk_direct``: R(1) is integrated itself); a value below 10^-dps of its parts is zero at
    working precision (no precision raise recovers digits of 0)."""
    values, gaps, _ = result
    parts = {} if risk_direct else {"risk": [values["cross_entropy_limit"], gaps["cross_entropy_limit_minus_risk"]]}
    if "search_minus_dcl_risk" in gaps and values.get("search_cross_entropy"):
        parts["search_cross_entropy"] = [values["cross_entropy_limit"], gaps["search_minus_dcl_risk"],
                                         gaps["cross_entropy_limit_minus_risk"] + gaps["infonce_minus_dcl_risk"]]
        # search CE - R = (search CE - R~) - (R - R~) (k > 1; at k = 1 it is -R exactly)
        parts["search_cross_entropy_minus_risk"] = [gaps["search_minus_dcl_risk"], gaps["infonce_minus_dcl_risk"]]
    worst = 0.0
    for key, terms in parts.items():
        value = values[key] if key in values else gaps[key]
        scale = max(abs(t) for t in terms)
        if value != 0 and scale > abs(value) and abs(value) >= scale * mpmath.mpf(10) ** (-dps):
            worst = max(worst, float(mpmath.log10(scale / abs(value))))
    return worst


def _zero_below_floor(first, second, dps, digits, known_nonzero=None):
    """``second`` with every value that lies below 10^-dps in both passes and on which the two passes do
    not agree to ``digits`` (rounding noise of a quantity that is 0, e.g. R~ of a one-state model) set to
    exactly 0: 0 is what both passes confirm to 10^-dps. A tiny value both passes agree on is kept.
    ``known_nonzero`` ({key: reason}): quantities the model makes nonzero, which are then not set to 0 but
    reported undefined with the reason (their digits are beneath the working precision)."""
    floor = mpmath.mpf(10) ** (-dps)
    known_nonzero = known_nonzero or {}
    undefined = dict(second[2])
    out = []
    for a, b in ((first[0], second[0]), (first[1], second[1])):
        fixed = dict(b)
        for key, y in b.items():
            x = a[key]
            if x == y or max(abs(x), abs(y)) >= floor:
                continue
            if _agreement(({key: x}, {}), ({key: y}, {}), floor_digits=10 * dps + 1000) < digits:
                if key in known_nonzero:
                    del fixed[key]
                    undefined[key] = f"{known_nonzero[key]}; its size is below 10^-{dps}, the working precision"
                else:
                    fixed[key] = mpmath.mpf(0)
        out.append(fixed)
    return (out[0], out[1], undefined)


def _known_nonzero(model, tau, k):
    """{gap: reason} for the gaps ``model`` makes nonzero though they may lie below the working precision: on
    the sphere with 0 < kappa, search CE - R~ = kappa/(d k tau) + O(kappa^3) (odd in kappa; for kappa below
    ~10^-dps the quadrature's O(1) terms cancel to it only within 10^-dps)."""
    from ..models.laws import SphereModel as _Sphere
    if not isinstance(model, _Sphere) or k == 1:
        return {}
    kappa = mpmath.mpf(_kappa_text(model))
    if kappa == 0:
        return {}
    first_order = kappa / (model.dim * k * mpmath.mpf(str(tau)))
    needed = int(-mpmath.log10(first_order)) + 10
    how = (f"raise --digits past {needed} to resolve it" if needed <= 100 else
           f"resolving it needs about {needed} digits, beyond the 100 of --digits")
    return {"search_minus_dcl_risk": f"not 0 (about kappa/(d k tau) = {mpmath.nstr(first_order, 3)} to first order "
                                     f"in kappa): {how}"}


def _worst_quantity(first, second, dps=60):
    """The value the two passes agree on least, judged as the agreement itself is (``dps``: values below 10^-dps
    agree); with the default floor of 60 digits a search CE of 1e-101 against 0 counted as agreeing while the
    check at 101 digits did not, and the message blamed E|dM/dpi|^2 (a probe, Dec 2026)."""
    worst, name = math.inf, "exact values"
    for key in first[0]:
        a = _agreement(({key: first[0][key]}, {}), ({key: second[0][key]}, {}), dps)
        if a < worst:
            worst, name = a, key
    return name


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


# the points of issue 10's table (d, kappa, tau, k), then kappa = 2000 .. 10^4 (the per-c cells)
BENCHMARK_POINTS = ((512, 200.0, "0.01", 10**9), (512, 200.0, "0.01", 1), (128, 100.0, "0.02", 4096),
                    (1024, 100.0, "0.01", 1), (256, 400.0, "0.07", 65536), (3, 1000.0, "0.1", 16),
                    (3, 20.0, "0.5", 10), (3, 4.0, "0.01", 1), (3, 4.0, "0.01", 10),
                    (3, 2000.0, "0.1", 16), (768, 5000.0, "0.05", 65536), (64, 10000.0, "0.05", 16),
                    (768, 10000.0, "0.01", 10**9))


def benchmark_line(row) -> str:
    """One row of ``benchmark_exact`` as a line of text."""
    return (f"  d={row['d']:<5d} kappa={row['kappa']:<7g} tau={row['tau']:<5s} k={row['k']:<11d} "
            f"{row['cpu_seconds']:7.2f} s CPU  agreement {row['agreement_digits']:5.1f} digits  {row['status']}")


def benchmark_exact(digits: int = 30, points=BENCHMARK_POINTS, sweep=(16, 8.0, "0.1"), out=print,
                    every_single=False, repeat=3):
    """CPU seconds per exact value (both passes of the precision check included) at ``points``,
    and (unless ``sweep`` is None) a 20-point k sweep (k = 2^0..2^19) against single values: k = 2^19
    (the cheapest), k = 2^10 and, with ``every_single``, each of the 20 alone (their mean and sum);
    the sweep and each single value the best of ``repeat`` runs (the machine is shared: a ratio of
    two single runs moved by 10 %); returns the figures."""
    from ..models.laws import SphereModel as _Sphere
    # scipy.special is imported on first use by the ratio rule: 0.2 s once per process, not per value
    importlib.import_module("scipy.special")
    rows = []
    for dim, kappa, tau, k in points:
        start = time.process_time()
        try:
            ev = exact_values(_Sphere(dim, kappa), tau, k, digits=digits)
            status, agreement = "ok", ev.agreement_digits
        except ArithmeticError as exc:
            status, agreement = f"ArithmeticError: {exc}", float("nan")
        seconds = time.process_time() - start
        rows.append({"d": dim, "kappa": kappa, "tau": tau, "k": k, "cpu_seconds": seconds,
                     "agreement_digits": agreement, "status": status})
        out(benchmark_line(rows[-1]))
    if sweep is None:
        return {"points": rows}
    dim, kappa, tau = sweep
    ks = [2 ** j for j in range(20)]

    def best(**which):
        times = []
        for _ in range(repeat):
            start = time.process_time()
            exact_values(_Sphere(dim, kappa), tau, digits=digits, **which)
            times.append(time.process_time() - start)
        return min(times)
    singles = {k: best(k=k) for k in (ks if every_single else (ks[-1], ks[10]))}
    many = best(ks=ks)
    figures = {"model": [dim, kappa, tau], "k_2_19_seconds": singles[ks[-1]],
               "k_2_10_seconds": singles[ks[10]], "twenty_values_seconds": many}
    line = (f"  sweep d={dim} kappa={kappa:g} tau={tau}: 20 values {many:.2f} s CPU = "
            f"{many / singles[ks[-1]]:.1f}x k=2^19 alone ({singles[ks[-1]]:.2f} s), "
            f"{many / singles[ks[10]]:.1f}x k=2^10 alone ({singles[ks[10]]:.2f} s)")
    if every_single:
        mean = sum(singles.values()) / len(singles)
        figures |= {"mean_single_seconds": mean, "sum_of_singles_seconds": sum(singles.values())}
        line += f", {many / mean:.1f}x the mean single value ({mean:.2f} s; sum {sum(singles.values()):.1f} s)"
    out(line)
    return {"points": rows, "sweep": figures}
