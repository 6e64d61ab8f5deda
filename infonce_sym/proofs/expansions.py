"""Exact 1/k and 1/k^2 constants of the finite-k gaps, derived symbolically.

Per anchor, with X = e^{s/tau}, mu = E X, V = X/mu - 1 (E V = 0), m_n = E V^n,
W = e^{p/tau}/mu (p the positive similarity, independent of the negatives),
r = dM/dpi(xi) (E r = 1), a = r (s - E[r s]), b = r - 1 (E a = E b = 0),
bars = means of k i.i.d. copies:

* InfoNCE  int CE - R        = -E log(1 + Vbar + W/k)            = c1/k  + c2/k^2  + O(k^-3)
* DCL      int CE - R~       = -E log(1 + Vbar)                  = c1t/k + c2t/k^2 + O(k^-3)
* search   search CE - R~    = -(1/tau) E[Abar/(1 + Bbar)]       = d1t/k + d2t/k^2 + O(k^-3)
* search   search CE - R     = (search CE - R~) - (R - R~)       = d1/k  + d2/k^2  + O(k^-3),
  with R - R~ = (int CE - R~) - (int CE - R).

Method (exact up to the stated remainder): Taylor polynomial of the function of the
sample means (Lagrange remainder of order 6 in the means, E|mean|^6 = O(k^-3)), then
E[prod of sums of i.i.d. copies] by the set-partition formula
(:func:`~infonce_sym.derivation.iid_product_moment`), then collection in 1/k.

EXP.* are exact identities whose statement keeps the Lagrange remainder as an expectation; the
remainders are bounded explicitly (c1/k + c2/k^2 -+ B/k^3, B a closed form in the moments and the
lower bounds ell of X/mu, r_lo of dM/dpi) in :mod:`~infonce_sym.proofs.asymptotics`:
EXP.dcl.lower/upper, EXP.infonce.lower/upper, EXP.search-dcl.lower/upper.
"""
from __future__ import annotations

import math
from functools import lru_cache

import flint
import sympy as sp

from ..models.laws import arb_decimal, arb_mid_in_ctx, mpf_to_arb
from .chain import (Assumption, ByLemma, Derivation, Ea, Ex, Identity, Lemma, Step, eq, gt, iid_product_moment,
                    parameter, random_family, random_symbol)
from .lemmas import taylor_n
from .register import derivation, register

__all__ = ["MOMENTS", "expansion_constants", "anchor_moments", "constants", "model_constants", "closed_form_constants",
           "confirmed_constants",
           "DERIVATIONS", "evaluate"]

from .symbols import k, tau  # noqa: E402
ORDER = 5                                   # Taylor degree; remainder E|mean|^6 = O(k^-3)
m = {n: parameter(f"m{n}", f"m_{n}", **({"nonnegative": True} if n % 2 == 0 else {"real": True}))   # even moments >= 0
     for n in range(2, ORDER + 2)}
EW = {n: parameter(f"EW{n}" if n > 1 else "EW", rf"\mathbb{{E}}[W^{{{n}}}]" if n > 1 else r"\mathbb{E}[W]",
                   positive=True) for n in range(1, ORDER + 2)}
E_b = {n: parameter(f"E_b{n}", rf"\mathbb{{E}}[b^{{{n}}}]", real=True) for n in range(2, ORDER + 2)}
E_ab = {n: parameter(f"E_ab{n}" if n > 1 else "E_ab", rf"\mathbb{{E}}[a b^{{{n}}}]" if n > 1 else r"\mathbb{E}[a b]",
                     real=True) for n in range(1, ORDER + 2)}
MOMENTS = {**{s.name: s for s in m.values()}, **{s.name: s for s in EW.values()},
           **{s.name: s for s in E_b.values()}, **{s.name: s for s in E_ab.values()}}

V = random_family("V", real=True)
af = random_family("a", real=True)
bf = random_family("b", real=True)
W = sp.Symbol("W", positive=True)           # anchor-level (integrated by Ea)
theta = random_symbol("theta", r"\theta", real=True)
j = sp.Symbol("j", integer=True, positive=True)
_e = sp.Symbol("epsilon")


def _mean(fam):
    return sp.Sum(fam(j), (j, 1, k)) / k


FACTS = {Ex(V(0)): 0, Ex(af(0)): 0, Ex(bf(0)): 0,
         **{Ex(V(0) ** n): m[n] for n in m}, **{Ea(W ** n): EW[n] for n in EW},
         **{Ex(bf(0) ** n): E_b[n] for n in E_b}, **{Ex(af(0) * bf(0) ** n): E_ab[n] for n in E_ab}}


# ---------------------------------------------------------------- the direct computation
def _block_moment(block_vars):
    """Moment of a block of generic copies: V^n -> m_n, a b^n -> E_ab_n, b^n -> E_b_n."""
    nv, na, nb = (block_vars.count(x) for x in ("V", "a", "b"))
    if nv and (na or nb):
        raise ValueError("V and (a, b) never share a block here")
    if nv:
        return 0 if nv == 1 else m[nv]
    if na == 0:
        return 0 if nb == 1 else E_b[nb]
    if na == 1:
        return 0 if nb == 0 else E_ab[nb]
    raise ValueError("a appears at most once")


def mean_moment(names):
    """E[prod of sample means] (means of k i.i.d. copies) for factor names in {"V","a","b"}."""
    names = list(names)
    if not names:
        return sp.Integer(1)
    def block(e):
        return _block_moment([str(b) for b, n in e.as_powers_dict().items() for _ in range(int(n))])
    total = iid_product_moment([sp.Lambda(j, sp.Symbol(n)) for n in names], k, block)
    return sp.expand(total / k ** len(names))


def _moment_of_monomial(e):
    """E of a monomial in the symbols Vb, Ab, Bb (means) and W (independent of them)."""
    pw = e.as_powers_dict()
    coeff = sp.Integer(1)
    names = []
    for base, ex in pw.items():
        if base.is_Symbol and base.name in ("Vb", "Ab", "Bb"):
            names += [base.name[0].replace("A", "a").replace("B", "b")] * int(ex)
        elif base == W:
            coeff *= EW[int(ex)]
        else:
            coeff *= base ** ex
    return coeff * mean_moment(names)


def _expect_poly(poly):
    poly = sp.expand(poly)
    return sp.Add(*[_moment_of_monomial(t) for t in sp.Add.make_args(poly)])


def _collect(expr):
    h = sp.Symbol("h", positive=True)
    e = sp.expand(expr.subs(k, 1 / h))
    return sp.expand(e.coeff(h, 1)), sp.expand(e.coeff(h, 2))


@lru_cache(maxsize=1)
def expansion_constants():
    """Per-anchor constants as SymPy expressions in the moment symbols (``MOMENTS``)."""
    Vb, Ab, Bb = sp.symbols("Vb Ab Bb")
    T = sp.series(-sp.log(1 + _e), _e, 0, ORDER + 1).removeO()
    c1, c2 = _collect(_expect_poly(T.subs(_e, Vb + W / k)))
    c1t, c2t = _collect(_expect_poly(T.subs(_e, Vb)))
    geo = sp.Add(*[(-Bb) ** n for n in range(ORDER)])
    d1t, d2t = (sp.expand(-x / tau) for x in _collect(_expect_poly(Ab * geo)))
    d1, d2 = sp.expand(d1t - (c1t - c1)), sp.expand(d2t - (c2t - c2))
    return dict(c1=c1, c2=c2, c1t=c1t, c2t=c2t, d1=d1, d2=d2, d1t=d1t, d2t=d2t)


# ---------------------------------------------------------------- as derivations
# The moments m_n, E_b, E_ab stand outside E_{Z,Z^+} (Ea): the chains read them as constants.  So, read over
# (Z, Z^+) jointly, the negatives' law given the anchor must be the same at every anchor; read at one anchor, the
# same chains prove the per-anchor statement, which a law of anchors averages (as ``constants`` and the
# EXPANSION-BOUNDS check do).  A probe (Dec 2026): with two anchors of different laws, the joint reading of
# EXP.infonce.upper fails by 3/4 Var(m_2)/k^2.
ANCHOR_READING = ("one anchor z: E_{Z,Z^+} is the expectation over Z^+ given z, m_n = E[V^n | z] (and E_b, E_ab, "
                  "E[W^n] those of z); over a law of anchors the statement is averaged anchor by anchor (the "
                  "constants and bounds evaluated per anchor, as expand and the EXPANSION-BOUNDS check do), and "
                  "read with E over (Z, Z^+) jointly it needs the negatives' law to be the same at every anchor "
                  "(the sphere models)")
# E V = 0 (V = X/mu - 1), E a = 0, E b = 0 (E r = 1): the centring facts every expansion uses
_CENTRED = [Assumption("E V = 0 (V = X/mu - 1)", eq(Ex(V(0)), 0)), Assumption("E a = 0 (a = r (s - E[r s]))", eq(Ex(af(0)), 0)),
            Assumption("E b = 0 (b = r - 1, E r = 1)", eq(Ex(bf(0)), 0))]


def _series_derivation(id, title, eps, const1, const2):
    F = sp.Lambda(_e, -sp.log(1 + _e))
    q = Ea(Ex(F(eps)))
    lem = taylor_n(ORDER)          # the library's Taylor theorem
    concl, _ = lem.written_at({"F": F, "Y": eps, "XI": theta})
    taylor = Ea(Ex(concl.rhs))
    remainder = Ea(Ex(sp.diff(F(_e), _e, ORDER + 1).subs(_e, theta) * eps ** (ORDER + 1) / sp.factorial(ORDER + 1)))
    body = Ea(Ex(concl.rhs)) - remainder
    exact = Identity(facts=FACTS).difference(body, 0)       # a polynomial in 1/k
    h = sp.Symbol("h", positive=True)
    poly = sp.expand(exact.subs(k, 1 / h))
    high = sp.expand(sp.Add(*[poly.coeff(h, n) * h ** n for n in range(3, 2 * ORDER + 2)]).subs(h, 1 / k))
    stmt = const1 / k + const2 / k ** 2 + high + remainder
    return Derivation(
        id, title, "companion (beyond the paper); Prop. 1, (11), (32)", q, "eq", stmt,
        [Step("series", "", eq(q, taylor), f"Taylor expansion of -log(1 + e) to order {ORDER}, Lagrange remainder",
              ByLemma(lem, {"F": F, "Y": eps, "XI": theta}, context=sp.Lambda(_e, Ea(Ex(_e))))),
         Step("i.i.d. means", "", eq(taylor, exact + remainder),
              "E of products of means of k i.i.d. copies (set partitions), E V = 0, E V^n = m_n, E W^n",
              Identity(facts=FACTS)),
         Step("collect", "", eq(exact + remainder, stmt), "collect the 1/k and 1/k^2 coefficients", Identity())],
        _CENTRED + [Assumption("the log's argument is positive: 1 + eps = (1/k) sum_j X_j/mu (+ W/k), X_j = "
                               "e^{s_j/tau} > 0, W > 0 (Taylor's theorem needs the segment [0, eps] inside (-1, oo))",
                               gt(1 + eps, 0)),
                    ANCHOR_READING, "V_j = X_j/mu - 1 i.i.d., W = e^{p/tau}/mu independent of the V_j; bounded",
         "the remainder is kept exactly (an expectation); its explicit bound B/k^3 is proved in "
         f"{id}.lower / {id}.upper",
         "the terms of order k^-3 and beyond are exact (listed in the statement)"], exists=(theta,))


def _geometric(order):
    """1/(1+x) = sum_{n<N} (-x)^n + (-x)^N/(1+x); its hypothesis is the identity itself (checked)."""
    def concl(x):
        return eq(1 / (1 + x), sp.Add(*[(-x) ** n for n in range(order)]) + (-x) ** order / (1 + x))
    return Lemma(f"finite geometric series (order {order})", "1/(1+x) = sum_(n<N) (-x)^n + (-x)^N/(1+x)",
                 {"x": sp.Symbol("x")}, concl, lambda x: [concl(x)], source="checked")


def _search_derivation(const1, const2):
    Abar, Bbar = _mean(af), _mean(bf)
    q = -Ea(Ex(Abar / (1 + Bbar))) / tau
    geo = sp.Add(*[(-Bbar) ** n for n in range(ORDER)])
    rem = -Ea(Ex(Abar * (-Bbar) ** ORDER / (1 + Bbar))) / tau
    series = -Ea(Ex(Abar * geo)) / tau + rem
    exact = Identity(facts=FACTS).difference(-Ea(Ex(Abar * geo)) / tau, 0)
    h = sp.Symbol("h", positive=True)
    poly = sp.expand(exact.subs(k, 1 / h))
    high = sp.expand(sp.Add(*[poly.coeff(h, n) * h ** n for n in range(3, 2 * ORDER + 2)]).subs(h, 1 / k))
    stmt = const1 / k + const2 / k ** 2 + high + rem
    return Derivation(
        "EXP.search-dcl", "Expansion of search CE - R~ in 1/k", "companion; (12), Lemma 3", q, "eq", stmt,
        [Step("geometric series", "", eq(q, series), f"1/(1+B) = sum_(n<{ORDER}) (-B)^n + (-B)^{ORDER}/(1+B)",
              ByLemma(_geometric(ORDER), {"x": Bbar}, context=sp.Lambda(_e, -Ea(Ex(Abar * _e)) / tau),
                      hyp_checks={0: Identity()})),
         Step("i.i.d. means", "", eq(series, exact + rem), "E of products of means (set partitions), E a = E b = 0",
              Identity(facts=FACTS)),
         Step("collect", "", eq(exact + rem, stmt), "collect the 1/k and 1/k^2 coefficients", Identity())],
        _CENTRED + [ANCHOR_READING, "a = r (s - E[r s]), b = r - 1 i.i.d. over the unseen points; 1 + Bbar > 0 a.s.",
         "the remainder is kept exactly (an expectation); its explicit bound B/k^3 is proved in "
         "EXP.search-dcl.lower / EXP.search-dcl.upper"])


@register("EXP.infonce", "EXP.dcl", "EXP.search-dcl")
def _derivations():
    c = expansion_constants()
    return [_series_derivation("EXP.infonce", "Expansion of int CE - R in 1/k", _mean(V) + W / k, c["c1"], c["c2"]),
            _series_derivation("EXP.dcl", "Expansion of int CE - R~ in 1/k", _mean(V), c["c1t"], c["c2t"]),
            _search_derivation(c["d1t"], c["d2t"])]


def __getattr__(name):
    """``DERIVATIONS``: this module's registered results, built by the registry."""
    if name == "DERIVATIONS":
        return [derivation(i) for i in _derivations.registered_ids]
    raise AttributeError(name)


# ---------------------------------------------------------------- numbers from models
@lru_cache(maxsize=None)
def constant_orders() -> dict:
    """The highest power of each moment family (m, EW, E_b, E_ab) that the constants of
    :func:`expansion_constants` read (m3, EW2, E_b2, E_ab2); the others serve the remainder bounds."""
    used = set().union(*(e.free_symbols for e in expansion_constants().values()))
    return {name: max((n for n, sym in family.items() if sym in used), default=0)
            for name, family in (("m", m), ("EW", EW), ("E_b", E_b), ("E_ab", E_ab))}


def anchor_moments(law, tau, ctx, orders=None):
    """The moments in ``MOMENTS`` (plus ``weight``) for one :class:`~infonce_sym.models.AnchorLaw`;
    ``orders`` ({"m": 3, ...}, as :func:`constant_orders`) stops each family at that power."""
    top = {"m": ORDER + 1, "EW": ORDER + 1, "E_b": ORDER + 1, "E_ab": ORDER + 1, **(orders or {})}
    tau = ctx.mpf(tau)
    ws = [ctx.mpf(w) for w in law.negative_weight]
    X = [ctx.exp(ctx.mpf(s) / tau) for s in law.negative_similarity]
    mu = ctx.fsum(w * x for w, x in zip(ws, X))
    Vs = [x / mu - 1 for x in X]
    out = {"weight": ctx.mpf(law.weight)}
    for n in (n for n in m if n <= top["m"]):
        out[m[n].name] = ctx.fsum(w * v ** n for w, v in zip(ws, Vs))
    Ws = [ctx.exp(ctx.mpf(p) / tau) / mu for p in law.positive_similarity]
    for n in (n for n in EW if n <= top["EW"]):
        out[EW[n].name] = ctx.fsum(ctx.mpf(q) * x ** n for q, x in zip(law.positive_weight, Ws))
    if law.negative_ratio is not None:
        rs = [ctx.mpf(r) for r in law.negative_ratio]
        ss = [ctx.mpf(s) for s in law.negative_similarity]
        ers = ctx.fsum(w * r * s for w, r, s in zip(ws, rs, ss))
        A = [r * (s - ers) for r, s in zip(rs, ss)]
        Bs = [r - 1 for r in rs]
        for n in (n for n in E_b if n <= top["E_b"]):
            out[E_b[n].name] = ctx.fsum(w * x ** n for w, x in zip(ws, Bs))
        for n in (n for n in E_ab if n <= top["E_ab"]):
            out[E_ab[n].name] = ctx.fsum(w * x * y ** n for w, x, y in zip(ws, A, Bs))
    return out


def search_remainder_moments(law, tau, ctx, top=6):
    """The extra moments the search remainder bounds (EXP.search-dcl.lower/upper) read, for a law with
    density ratios: E[b^n] (n <= ``top``), E[a b^n], E[a^2 b^n] (n <= 4) with a = r (s - E[r s]),
    b = r - 1, and r_lo, the smallest density ratio of the law's atoms (a lower bound of r)."""
    ws, rs, ss = ([ctx.mpf(v) for v in seq] for seq in (law.negative_weight, law.negative_ratio, law.negative_similarity))
    ers = ctx.fsum(w * r * s for w, r, s in zip(ws, rs, ss))
    a = [r * (s - ers) for r, s in zip(rs, ss)]
    b = [r - 1 for r in rs]
    out = {"r_lo": min(rs), "tau": ctx.mpf(tau)}
    for n in range(2, top + 1):
        out[f"E_b{n}"] = ctx.fsum(w * y ** n for w, y in zip(ws, b))
    for n in range(0, 5):
        out["E_ab" if n == 1 else f"E_ab{n}"] = ctx.fsum(w * x * y ** n for w, x, y in zip(ws, a, b))
        out["E_aa" if n == 0 else f"E_aab{n}"] = ctx.fsum(w * x * x * y ** n for w, x, y in zip(ws, a, b))
    return out


@lru_cache(maxsize=None)
def _lambdified(name):
    expr = expansion_constants()[name]
    syms = sorted(expr.free_symbols, key=lambda s: s.name)
    return syms, sp.lambdify(syms, expr, modules="mpmath")


def evaluate(name, moments, tau_value, ctx):
    """One per-anchor constant (e.g. "c2") at the given moments."""
    syms, f = _lambdified(name)
    args = [ctx.mpf(tau_value) if s == tau else moments[s.name] for s in syms]
    return f(*args)


CONSTANT_NAMES = ("c1", "c2", "c1t", "c2t", "d1", "d2", "d1t", "d2t")


def constants(anchor_moments_list, tau_value, ctx, names=CONSTANT_NAMES):
    """Weighted average over anchors of the per-anchor constants (the gaps are E over anchors).
    Search constants are skipped when a moment they need is missing (assumption (B) fails)."""
    total_w = ctx.fsum(am["weight"] for am in anchor_moments_list)
    out = {}
    for name in names:
        try:
            out[name] = ctx.fsum(am["weight"] * evaluate(name, am, tau_value, ctx)
                                 for am in anchor_moments_list) / total_w
        except KeyError:
            continue
    return out


def model_constants(model, tau_value, ctx, names=CONSTANT_NAMES):
    """:func:`constants` ``names`` for a model of :mod:`infonce_sym.models`: from the model's closed-form
    moments where it has them (the sphere, any d and kappa: :func:`closed_form_constants`), else from its
    anchor laws' atoms."""
    if _has_closed_forms(model):
        return closed_form_constants(model, tau_value, ctx, names)
    laws = model.anchor_laws(ctx, tau_value)
    return constants([anchor_moments(law, tau_value, ctx, constant_orders()) for law in laws], tau_value, ctx,
                     names)


def _has_closed_forms(model):
    return getattr(model, "expansion_moments_arb", None) is not None


def confirmed_constants(model, tau_value, digits: int, names=CONSTANT_NAMES, shown=None):
    """The constants ``names`` of :func:`model_constants` at ``digits`` significant digits, as mpf of a
    15-digit wider context.  The closed forms (the sphere) are certified by their balls; the atoms' sums
    (finite models) are recomputed 20 digits wider, and every constant must agree to ``digits`` across the
    two passes (the difference measures the rounding of the first).  A constant that cancels (terms of 1e598
    leaving 5e558, at pi = (1e-300, 1); a probe, Dec 2026) loses the digits the passes then disagree by: both
    passes are raised by that shortfall and run again, up to CONFIRM_RAISES times, else ArithmeticError names the
    constant (by ``shown``: internal name -> the name printed).  A constant below 10^-(p1 - 5) in the first
    pass (p1 digits) and 10^-(p2 - 5) in the second, the rounding floors of the two passes, is 0 (as
    ``exact_values`` takes a value that both passes put below their floor): a constant that is 0 (all
    similarities equal, say) is rounding noise in both, and no precision makes its noise agree."""
    import mpmath
    with mpmath.workdps(digits + 15):
        first = model_constants(model, tau_value, mpmath.mp, names)
    if _has_closed_forms(model):
        return first
    extra = 15
    for attempt in range(CONFIRM_RAISES + 1):
        p1, p2 = digits + extra, digits + extra + 20
        if attempt:
            with mpmath.workdps(p1):
                first = model_constants(model, tau_value, mpmath.mp, names)
        with mpmath.workdps(p2):
            second = model_constants(model, tau_value, mpmath.mp, names)
            short = {}
            for name, value in second.items():
                gap = abs(first[name] - value)
                if gap > abs(value) * mpmath.mpf(10) ** -(digits + 1):
                    if abs(first[name]) <= mpmath.mpf(10) ** -(p1 - 5) and abs(value) <= mpmath.mpf(10) ** -(p2 - 5):
                        second[name] = mpmath.mpf(0)
                        continue
                    short[name] = -float(mpmath.log10(gap / abs(value))) if value else 0.0
        if not short:
            return second
        name, agree = min(short.items(), key=lambda item: item[1])
        extra += int(math.ceil(digits + 1 - agree)) + 10
    label = (shown or {}).get(name, name)
    raise ArithmeticError(f"{model.label}, tau = {tau_value}: {label} agrees to only {agree:.1f} digits between "
                          f"the passes at {p1} and {p2} digits (cancellation beyond {CONFIRM_RAISES} raises of the "
                          f"precision)")


# raises of both passes' precision by their shortfall in ``confirmed_constants``
CONFIRM_RAISES = 4


def _arb_value(expr, values):
    """A constant of :func:`expansion_constants` (sums, products, integer powers, rationals) in arb balls."""
    arb = flint.arb
    if expr.is_Symbol:
        return values[expr]
    if expr.is_Rational:
        return arb(int(expr.p)) / int(expr.q)
    if expr.is_Add or expr.is_Mul:
        parts = [_arb_value(a, values) for a in expr.args]
        out = parts[0]
        for part in parts[1:]:
            out = out + part if expr.is_Add else out * part
        return out
    if expr.is_Pow and expr.exp.is_Integer:
        return _arb_value(expr.base, values) ** int(expr.exp)
    raise ValueError(f"not a polynomial in the moments: {expr}")


# the precision at which closed_form_constants gives up: the d constants at kappa -> 0 cancel like
# kappa^3 (about 10^4 bits at kappa = 10^-1000, one second at d = 4096)
MAX_CLOSED_FORM_BITS = 2 ** 16


def _tight(ball, bits):
    return ball.is_finite() and (ball.rad().is_zero() or ball.rad() <= abs(ball.mid()) * flint.arb(2) ** -bits)


def closed_form_constants(model, tau_value, ctx, names=CONSTANT_NAMES):
    """The per-anchor constants from the model's closed-form moments (``expansion_moments_arb``, one anchor
    class), evaluated in arb: every ball is within 2^-(ctx.prec + 8) of its midpoint, the precision doubled
    until it is (cancellation: m3 at large tau, E_ab2 at small kappa), so the digits of ctx are certified.
    tau as typed (a decimal text or Decimal, or a float read as its shortest decimal, as ``exact_values`` reads
    it) enters as the ball around that decimal; an mpf exactly."""
    target = int(ctx.prec) + 8
    exprs = {name: expansion_constants()[name] for name in names}
    saved, prec = flint.ctx.prec, int(ctx.prec) + 32
    try:
        while True:
            flint.ctx.prec = prec
            tau_ball = mpf_to_arb(ctx, tau_value) if hasattr(tau_value, "_mpf_") else arb_decimal(tau_value)
            moments = model.expansion_moments_arb(1 / tau_ball)
            values = {MOMENTS[n]: v for n, v in moments.items()}
            values[tau] = tau_ball
            balls = {name: _arb_value(e, values) for name, e in exprs.items()}
            if all(_tight(b, target) for b in balls.values()):
                break
            if prec > MAX_CLOSED_FORM_BITS:
                wide = [n for n, b in balls.items() if not _tight(b, target)]
                raise ArithmeticError(f"{model.label}, tau = {tau_value}: the closed forms of {', '.join(wide)} "
                                      f"did not reach {ctx.dps} digits at {prec} bits (cancellation)")
            prec *= 2
    finally:
        flint.ctx.prec = saved
    return {name: arb_mid_in_ctx(ctx, ball) for name, ball in balls.items()}
