"""Section 3 of the paper (and App. A, A.1, A.2) as checked chains.

Notation (per anchor z, conditional on it and on its positive):
``S(j) = <phi(z), phi(xi_j)>`` (i.i.d. negative / unseen similarities, |S| <= 1),
``P = <phi(z), phi(z+)>`` (positive similarity), ``r(j) = dM(z,.)/dpi(xi_j)``,
``mu = E e^{S/tau}``, ``muhat = (1/k) sum_j e^{S(j)/tau}``.  ``Ex`` integrates the
negatives, ``Ea`` the anchor and positive.  Hypotheses enter as slack symbols
(e.g. ``u = 1 - S(0) >= 0``).
"""
from __future__ import annotations

from functools import lru_cache

import sympy as sp

from .chain import (AsGap, Assumption as As, Derivation, Ea, Ex, Expm1, ByLemma, Identity, NonNegative,
                    Step, Var, eq, ge, gt, le, lt, numeric_form, parameter, random_family, random_symbol, relation_kind,
                    split)
from . import errata as _errata
from . import lemmas as L
from .register import cite, derivation, register

# ---------------------------------------------------------------- symbols
from .symbols import D2, k, tau  # noqa: E402  (the shared universe)
m = parameter("m", positive=True, integer=True)
b = parameter("b", positive=True)
c = parameter("c", positive=True)
ell = parameter("ell", r"\ell", nonnegative=True)
a = parameter("a", positive=True)
N = parameter("N", positive=True, integer=True)
piA = parameter("piA", r"\pi(A)", nonnegative=True)    # (8) holds at pi(A) = 0 too (then Q = 0)
j = sp.Symbol("j", integer=True, positive=True)

X = random_family("X", real=True)          # Lemma 2: i.i.d. X(j) in [-c, c]
S = random_family("S", real=True)          # similarities to negatives / unseen data
r = random_family("r", positive=True)      # density ratios dnu/dpi (xi_j)
f = random_family("f", real=True)          # Lemma 3: f(xi_j), |f| <= 1
t_xi = random_symbol("t_xi", "t", positive=True)  # Taylor's point y0 + (y - y0)/(1 + t): the witness t
A = random_symbol("A", real=True)                  # Lemma 3 numerator mean
B = random_symbol("B", positive=True)              # Lemma 3 denominator mean (> 0: erratum)
P = sp.Symbol("P", real=True)                      # positive similarity (anchor level)
NA = sp.Symbol("N_A", nonnegative=True)            # int_A e^{s/tau} dpi
Dn = sp.Symbol("D", positive=True)                 # int e^{s/tau} dpi
IA = random_family("1_A", nonnegative=True)        # the indicator of A at z' ~ pi (Q-bounds)

# slack symbols (hypotheses >= 0)
s_, u_, w_, h_, t_, s1, s2, a1, h65 = sp.symbols("s u w h t s1 s2 a1 h65", nonnegative=True)
t_pos = sp.Symbol("t", positive=True)
a1_pos = sp.Symbol("a1", positive=True)
T = random_symbol("T", positive=True)       # the random sum_j e^{(S_j - P)/tau} (random under Ex)

_y = sp.Symbol("y", positive=True)


def _sum(expr):
    return sp.Sum(expr, (j, 1, k))


# Lemma 2 objects
mu_X = Ex(sp.exp(X(0)))
muhat_X = _sum(sp.exp(X(j))) / k
# Section 3 objects
mu_S = Ex(sp.exp(S(0) / tau))
muhat_S = _sum(sp.exp(S(j) / tau)) / k
x = sp.exp(1 / tau)


# ================================================================ (8)
@register("Q-bounds.lower", "Q-bounds.upper")
def _q_bounds():
    q = NA / Dn
    up = Derivation(
        "Q-bounds.upper", "Softmax kernel upper bound", "eq. (8), from (5)", q, "le",
        sp.exp(2 / tau) * piA,
        [Step("numerator", "(5)", le(q, x * piA / Dn), "<phi(z),phi(z')> <= 1 on A",
              NonNegative([w_ / Dn], {w_: x * piA - NA}, by={w_: _pi_integral_bound(IA(0), 1)})),
         Step("normaliser", "(5)", le(x * piA / Dn, sp.exp(2 / tau) * piA), "D >= e^{-1/tau}",
              NonNegative([sp.exp(2 / tau) * piA * w_ / Dn], {w_: Dn - sp.exp(-1 / tau)},
                          by={w_: _pi_integral_bound(1, -1)}))],
        _q_assumptions())
    lo = Derivation(
        "Q-bounds.lower", "Softmax kernel lower bound", "eq. (8), from (5)", q, "ge",
        sp.exp(-2 / tau) * piA,
        [Step("numerator", "(5)", ge(q, piA / (x * Dn)), "<phi(z),phi(z')> >= -1 on A",
              NonNegative([w_ / Dn], {w_: NA - piA / x}, by={w_: _pi_integral_bound(IA(0), -1)})),
         Step("normaliser", "(5)", ge(piA / (x * Dn), sp.exp(-2 / tau) * piA), "D <= e^{1/tau}",
              NonNegative([sp.exp(-2 / tau) * piA * w_ / Dn], {w_: x - Dn}, by={w_: _pi_integral_bound(1, 1)}))],
        up.assumptions)
    return [lo, up]


def _pi_integral_bound(weight, side):
    """N_A = E_pi[1_A e^{S/tau}] (weight 1_A) or D = E_pi[e^{S/tau}] (weight 1) against e^{side/tau} times
    E_pi[weight]: monotonicity of E, termwise from -1 <= S <= 1 (S = <phi(z), phi(z')>, z' ~ pi)."""
    g_ = sp.Symbol("sigma_S", nonnegative=True)
    lhs, rhs = (weight * sp.exp(S(0) / tau), weight * sp.exp(1 / tau)) if side == 1 else \
        (weight * sp.exp(-1 / tau), weight * sp.exp(S(0) / tau))
    witness = [lhs * Expm1(g_ / tau)]
    return AsGap(ByLemma(L.monotone(Ex), {"U": lhs, "V": rhs},
                         hyp_checks={0: NonNegative(witness, {g_: 1 - S(0) if side == 1 else S(0) + 1})}),
                 defs={NA: Ex(IA(0) * sp.exp(S(0) / tau)), Dn: Ex(sp.exp(S(0) / tau)), piA: Ex(IA(0))})


def _q_assumptions():
    return [As("Q(z,A) = N_A / D with N_A = int_A e^{<phi(z),phi(z')>/tau} pi(dz'), D the same over Z, "
               "pi(A) = int 1_A dpi (pi a probability measure)"),
            As("S <= 1 (S = <phi(z), phi(z')> for unit embeddings)", le(S(0), 1)),
            As("S >= -1", ge(S(0), -1))]


# ================================================================ Lemma 2
@register("L2.22", "L2.lower", "L2.upper")
def _lemma2():
    fl = sp.Lambda(_y, sp.log(ell + _y))
    q22 = fl(b * mu_X) - Ex(fl(b * muhat_X))
    d = muhat_X - mu_X
    xi2 = b * mu_X + (b * muhat_X - b * mu_X) / (1 + t_xi)      # Taylor's point between b mu and b muhat
    remainder = Ex(b ** 2 * d ** 2 / (2 * (ell + xi2) ** 2))
    bound_var = sp.exp(2 * c) * Var(sp.exp(X(0))) / (2 * k)
    assumptions = [As("X, X_1, ..., X_k i.i.d.; b, c > 0; ell >= 0"),
                   As("X <= c", le(X(0), c)), As("X >= -c", ge(X(0), -c)),
                   As("X_j >= -c for every j", ge(X(j), -c))]
    l22 = Derivation(
        "L2.22", "Lemma 2, second difference of (20), with f(y) = log(ell + y)", "App. A, (22)",
        q22, "le", (sp.exp(2 * c) - 1) ** 2 / (8 * k),
        [Step("Taylor", "proof of Lemma 2",
              eq(q22, fl(b * mu_X) - Ex(fl(b * mu_X) + b * d / (ell + b * mu_X) - b ** 2 * d ** 2 / (2 * (ell + xi2) ** 2))),
              "Taylor expansion of f about b mu, Lagrange remainder at xi = b mu + b (muhat - mu)/(1 + t), t > 0",
              ByLemma(L.taylor2(), {"F": fl, "Y": b * muhat_X, "Y0": b * mu_X, "T": t_xi},
                      context=sp.Lambda(_y, fl(b * mu_X) - Ex(_y)))),
         Step("E muhat = mu", "proof of Lemma 2",
              eq(fl(b * mu_X) - Ex(fl(b * mu_X) + b * d / (ell + b * mu_X) - b ** 2 * d ** 2 / (2 * (ell + xi2) ** 2)), remainder),
              "linearity of E, E[muhat] = mu (i.i.d.)", Identity()),
         Step("xi >= b e^{-c}", "proof of Lemma 2", le(remainder, Ex(sp.exp(2 * c) * d ** 2 / 2)),
              "b^2/(ell + xi)^2 <= e^{2c} since xi >= b e^{-c} (xi between b mu and b muhat, both >= b e^{-c})",
              ByLemma(L.monotone(Ex), {"U": b ** 2 * d ** 2 / (2 * (ell + xi2) ** 2), "V": sp.exp(2 * c) * d ** 2 / 2},
                      hyp_checks={0: NonNegative(
                          [d ** 2 * sp.exp(c) * (ell + s_) * (sp.exp(c) * (ell + s_) + 2 * b)
                           / (2 * (ell + b * sp.exp(-c) + s_) ** 2)], {s_: xi2 - b * sp.exp(-c)},
                          by={s_: _between_at_least(b * mu_X, b * muhat_X, t_xi, b * sp.exp(-c),
                                                    _mean_at_least(X(0), b, c), _sample_mean_at_least(X(j), b, c))})})),
         Step("i.i.d. variance", "proof of Lemma 2; A.1", eq(Ex(sp.exp(2 * c) * d ** 2 / 2), bound_var),
              "E(muhat - mu)^2 = Var(e^X)/k (i.i.d.)", Identity()),
         Step("Popoviciu", "proof of Lemma 2", le(bound_var, sp.exp(2 * c) * (sp.exp(c) - sp.exp(-c)) ** 2 / (8 * k)),
              "e^X in [e^{-c}, e^{c}]",
              ByLemma(L.popoviciu(Var), {"Y": sp.exp(X(0)), "lo": sp.exp(-c), "hi": sp.exp(c)},
                      context=sp.Lambda(_y, sp.exp(2 * c) * _y / (2 * k)),
                      hyp_checks={0: NonNegative([sp.exp(X(0)) * Expm1(u_)], {u_: c - X(0)}),
                                  1: NonNegative([sp.exp(-c) * Expm1(u_)], {u_: X(0) + c})})),
         Step("(22)", "(22)", eq(sp.exp(2 * c) * (sp.exp(c) - sp.exp(-c)) ** 2 / (8 * k), (sp.exp(2 * c) - 1) ** 2 / (8 * k)),
              "algebra", Identity())],
        assumptions)

    f1 = sp.Lambda(_y, sp.log(1 / k + _y))
    q2 = sp.log(b * mu_X) - Ex(f1(b * muhat_X))
    first, second = sp.log(b * mu_X) - f1(b * mu_X), f1(b * mu_X) - Ex(f1(b * muhat_X))
    L22 = cite(l22, {"b": b, "c": c, "X": X, "ell": ell})       # the sibling built just above
    upper = Derivation(
        "L2.upper", "Lemma 2, upper bound", "App. A, Lemma 2, (20)-(22)", q2, "le",
        (sp.exp(2 * c) - 1) ** 2 / (8 * k),
        [Step("(20)", "(20)", eq(q2, split(first, second)), "add and subtract f(b mu)", Identity()),
         Step("(21)", "(21)", le(split(first, second), second), "log(b mu) - f(b mu) <= 0",
              NonNegative([sp.log(1 + 1 / (k * b * mu_X))])),
         Step("(22)", "(22)", le(second, (sp.exp(2 * c) - 1) ** 2 / (8 * k)), "derivation L2.22 with ell = 1/k",
              ByLemma(L22, {"b": b, "c": c, "X": X, "ell": 1 / k},
                      hyp_checks={0: NonNegative([w_], {w_: c - X(0)}), 1: NonNegative([w_], {w_: X(0) + c})}))],
        assumptions)
    lower = Derivation(
        "L2.lower", "Lemma 2, lower bound", "App. A, Lemma 2, (20)-(22)", q2, "ge",
        -sp.log(1 + sp.exp(c) / (b * k)),
        [Step("(20)", "(20)", eq(q2, split(first, second)), "add and subtract f(b mu)", Identity()),
         Step("Jensen", "(22), left", ge(split(first, second), first), "f concave, E[b muhat] = b mu",
              ByLemma(L.jensen_concave(Ex), {"F": f1, "Y": b * muhat_X},
                      context=sp.Lambda(_y, sp.log(b * mu_X) - _y))),
         Step("(21) rewrite", "(21)", eq(first, -sp.log(1 + 1 / (k * b * mu_X))), "log(b mu) - log(b mu (1 + 1/(k b mu)))",
              Identity()),
         Step("(21) mu >= e^{-c}", "(21)", ge(-sp.log(1 + 1 / (k * b * mu_X)), -sp.log(1 + sp.exp(c) / (b * k))),
              "mu >= e^{-c}",
              NonNegative([sp.log(1 + sp.exp(c) * w_ / (b * k * mu_X + 1))], {w_: mu_X - sp.exp(-c)},
                          by={w_: AsGap(ByLemma(L.monotone(Ex), {"U": sp.exp(-c), "V": sp.exp(X(0))},
                                                hyp_checks={0: NonNegative([sp.exp(-c) * Expm1(u_)],
                                                                           {u_: X(0) + c})}))}))],
        assumptions)
    return [l22, lower, upper]


def risk_definitions():
    """The integrated cross-entropy ``ce`` (7), the InfoNCE risk ``R`` (2) and the DCL risk ``Rt`` (26)."""
    return dict(ce=Ea(-P / tau + sp.log(mu_S)),
                R=Ea(Ex(sp.log(1 + _sum(sp.exp((S(j) - P) / tau))))) - sp.log(k),
                Rt=Ea(Ex(sp.log(_sum(sp.exp((S(j) - P) / tau))))) - sp.log(k))


# ================================================================ Prop 1, DCL (11), Lemma 4
@register("P1.lower", "P1.upper", "DCL-11.lower", "DCL-11.upper", "L4")
def _section32():
    bP = sp.exp(-P / tau)
    ce, R, Rt = (risk_definitions()[n] for n in ("ce", "R", "Rt"))
    gap = ce - R
    per_anchor = Ea(sp.log(bP * mu_S) - Ex(sp.log(1 / k + bP * muhat_S)))
    subs = {"b": bP, "c": 1 / tau, "X": sp.Lambda(j, S(j) / tau)}
    rng = {0: NonNegative([u_ / tau], {u_: 1 - S(0)}), 1: NonNegative([u_ / tau], {u_: 1 + S(0)}),
           2: _similarity_floor(S(j))}
    Lup = cite("L2.upper", {"b": b, "c": c, "X": X})
    Llo = cite("L2.lower", {"b": b, "c": c, "X": X})
    L22 = cite("L2.22", {"b": b, "c": c, "X": X, "ell": ell})
    assumptions = [As("Z ~ pi, Z+ ~ M(Z, .), negatives i.i.d. pi (A); |phi| = 1"),
                   As("S <= 1", le(S(0), 1)), As("S >= -1", ge(S(0), -1)), As("P <= 1", le(P, 1)),
                   As("P >= -1", ge(P, -1)),
                   As("b = e^{-P/tau}, c = 1/tau, X_j = S_j/tau (erratum P1-Xj)"), every_negative()]
    p1_bound = -sp.log(1 + sp.exp(2 / tau) / k)
    lemma2_lo = -sp.log(1 + sp.exp(1 / tau) / (bP * k))
    first = Step("(7), (2)", "(7), (2)", eq(gap, per_anchor),
                 "CrossEnt = log(b mu) per anchor; R = E log(1/k + b muhat)", Identity())
    p1l = Derivation(
        "P1.lower", "Proposition 1, lower bound", "Prop. 1; proof in App. A", gap, "ge", p1_bound,
        [first,
         Step("Lemma 2", "Lemma 2", ge(per_anchor, Ea(lemma2_lo)), "Lemma 2 (lower) per anchor, then E over (Z, Z+)",
              ByLemma(Llo, subs, under=Ea, hyp_checks=rng)),
         Step("b >= e^{-1/tau}", "proof of Prop. 1", ge(Ea(lemma2_lo), Ea(p1_bound)), "P <= 1",
              ByLemma(L.monotone(Ea), {"U": p1_bound, "V": lemma2_lo},
                      hyp_checks={0: NonNegative([sp.log(1 + sp.exp((1 + P) / tau) * Expm1(u_ / tau)
                                                         / (k + sp.exp((1 + P) / tau)))], {u_: 1 - P})})),
         Step("constant", "", eq(Ea(p1_bound), p1_bound), "E of a constant", Identity())],
        assumptions, errata=[_errata.get("P1-Xj")])
    p1_up = (sp.exp(2 / tau) - 1) ** 2 / (8 * k)
    p1u = Derivation(
        "P1.upper", "Proposition 1, upper bound", "Prop. 1; proof in App. A", gap, "le", p1_up,
        [first,
         Step("Lemma 2", "Lemma 2", le(per_anchor, Ea(p1_up)), "Lemma 2 (upper) per anchor, then E over (Z, Z+)",
              ByLemma(Lup, subs, under=Ea, hyp_checks=rng)),
         Step("constant", "", eq(Ea(p1_up), p1_up), "E of a constant", Identity())],
        assumptions, errata=[_errata.get("P1-Xj")])

    gapt = ce - Rt
    d31 = Ea(sp.log(mu_S) - Ex(sp.log(muhat_S)))
    first_t = Step("(31)", "(31)", eq(gapt, d31), "the positive term cancels", Identity())
    dcl_lo = Derivation(
        "DCL-11.lower", "DCL: integrated cross-entropy minus DCL risk is >= 0", "(11), App. A.1", gapt, "ge",
        sp.Integer(0),
        [first_t,
         Step("Jensen", "A.1", ge(d31, sp.Integer(0)), "log concave, E muhat = mu",
              ByLemma(L.jensen_concave(Ex), {"F": sp.Lambda(_y, sp.log(_y)), "Y": muhat_S},
                      context=sp.Lambda(_y, sp.log(mu_S) - _y), under=Ea))],
        assumptions[:3])
    dcl_up_b = (sp.exp(2 / tau) - 1) ** 2 / (8 * k)
    dcl_up = Derivation(
        "DCL-11.upper", "DCL: upper bound (11)", "(11), App. A.1", gapt, "le", dcl_up_b,
        [first_t,
         Step("(22) with ell = 0", "A.1", le(d31, Ea(dcl_up_b)), "derivation L2.22 with ell = 0, b = 1, c = 1/tau",
              ByLemma(L22, {"b": 1, "c": 1 / tau, "X": sp.Lambda(j, S(j) / tau), "ell": 0}, under=Ea,
                      hyp_checks=rng)),
         Step("constant", "", eq(Ea(dcl_up_b), dcl_up_b), "E of a constant", Identity())],
        assumptions[:3] + [every_negative()])
    l4 = Derivation(
        "L4", "Lemma 4: DCL gap <= 2/tau for every k", "Lemma 4, App. A", gapt, "le", 2 / tau,
        [first_t,
         Step("ratio", "proof of Lemma 4", eq(d31, Ea(Ex(sp.log(mu_S / muhat_S)))), "log of a ratio", Identity()),
         Step("bounded ratio", "proof of Lemma 4", le(Ea(Ex(sp.log(mu_S / muhat_S))), Ea(Ex(2 / tau))),
              "mu <= e^{1/tau}, muhat >= e^{-1/tau}",
              ByLemma(L.monotone(Ex), {"U": sp.log(mu_S / muhat_S), "V": 2 / tau}, under=Ea,
                      hyp_checks={0: NonNegative([h_, w_], {h_: 1 / tau - sp.log(mu_S),
                                                            w_: sp.log(muhat_S) + 1 / tau},
                                                 by={h_: _log_mu_at_most(), w_: _log_muhat_at_least()})})),
         Step("constant", "", eq(Ea(Ex(2 / tau)), 2 / tau), "E of a constant", Identity())],
        assumptions[:3] + [every_negative()])
    return [p1l, p1u, dcl_lo, dcl_up, l4]


# ================================================================ Lemma 3
def _abs_A_at_most_2B(defs, Ef, m):
    """2B - |A| >= 0 for A = m^-1 sum_j r_j (f_j - E_nu f), B = m^-1 sum_j r_j: |A| <= m^-1 sum_j |r_j (f_j - E_nu f)|
    (triangle) <= m^-1 sum_j 2 r_j (termwise, |f_j - E_nu f| <= 2 and r_j > 0)."""
    xj = sp.Lambda(j, r(j) * (f(j) - Ef) / m)
    p1, p2, hh = sp.symbols("p_mono p_tri h_j", nonnegative=True)
    sum_abs = sp.Sum(sp.Abs(xj(j)), (j, 1, m))
    termwise = AsGap(ByLemma(L.sum_monotone(j), {"U": sp.Lambda(j, sp.Abs(xj(j))), "V": sp.Lambda(j, 2 * r(j) / m), "k": m},
                             hyp_checks={0: NonNegative([r(j) * hh / m], {hh: 2 - sp.Abs(f(j) - Ef)},
                                                        by={hh: _centred_at_most_2(f(j))})}), defs=defs)
    triangle = AsGap(ByLemma(L.triangle_sum(j), {"x": xj, "k": m}), defs=defs)
    return NonNegative([p1, p2], {p1: 2 * B - sum_abs, p2: sum_abs - sp.Abs(A)}, by={p1: termwise, p2: triangle})


def _centred_at_most_2(fx):
    """2 - |f - E_nu f| >= 0 for a copy f = ``fx`` with |f| <= 1:  (1 - |f|) + (1 - |E_nu f|) + (|f| + |E_nu f| -
    |f - E_nu f|), the last by the triangle inequality, the middle from |E_pi[r f]| <= E_pi[r |f|] <= E_pi r = 1."""
    Ef = Ex(r(0) * f(0))
    t1, t2, t3, q1, q2, hf = sp.symbols("t_f t_Ef t_tri q_mono q_abs h_f", nonnegative=True)
    mean_in_unit = NonNegative([q1, q2], {q1: Ex(r(0)) - Ex(r(0) * sp.Abs(f(0))), q2: Ex(sp.Abs(r(0) * f(0))) - sp.Abs(Ef)},
                               facts={Ex(r(0)): 1},
                               by={q1: AsGap(ByLemma(L.monotone(Ex), {"U": r(0) * sp.Abs(f(0)), "V": r(0)},
                                                     hyp_checks={0: NonNegative([r(0) * hf], {hf: 1 - sp.Abs(f(0))})})),
                                   q2: AsGap(ByLemma(L.abs_expectation(Ex), {"Y": r(0) * f(0)}))})
    return NonNegative([t1, t2, t3], {t1: 1 - sp.Abs(fx), t2: 1 - sp.Abs(Ef), t3: sp.Abs(fx) + sp.Abs(Ef) - sp.Abs(fx - Ef)},
                       by={t2: mean_in_unit, t3: AsGap(ByLemma(L.triangle(), {"x": fx, "y": -Ef}))})


@register("L3.24", "L3.25", "L3")
def _lemma3():
    m_sum = lambda e: sp.Sum(e, (j, 1, m))  # noqa: E731
    Ef = Ex(r(0) * f(0))                     # E_nu f
    g0 = f(0) - Ef
    defs = {A: m_sum(r(j) * (f(j) - Ef)) / m, B: m_sum(r(j)) / m}
    facts = {Ex(r(0)): 1}
    assumptions = [As("|f| <= 1", le(sp.Abs(f(0)), 1)), As("E_pi r = 1 (r = dnu/dpi)", eq(Ex(r(0)), 1)),
                   As("nu << pi, r = dnu/dpi >= 0; xi_1..xi_m i.i.d. pi"),
                   As("A = (1/m) sum r_j (f_j - E_nu f), B = (1/m) sum r_j; A/B := 0 on {B = 0}, where A = 0 too "
                      "(erratum L3-B>0); the CAS treats B as a positive symbol, i.e. it checks (23)-(25) on {B > 0}, "
                      "and on {B = 0} every term of (23) vanishes under the convention")]
    every_copy = As("|f_j| <= 1 for every j (|f| <= 1 at each xi_j)", le(sp.Abs(f(j)), 1), every=(j,))
    D = Ex(r(0) ** 2)
    bound2 = 2 * D / m
    d24 = Derivation(
        "L3.24", "Lemma 3, bound (24)", "(24)", sp.Abs(Ex(A * B)), "le", bound2,
        [Step("cross terms", "(24)", eq(sp.Abs(Ex(A * B)), sp.Abs(Ex(r(0) ** 2 * g0)) / m),
              "i.i.d.; E[r (f - E_nu f)] = 0 kills the cross terms", Identity(defs=defs, facts=facts)),
         Step("|E| <= E| |", "(24)", le(sp.Abs(Ex(r(0) ** 2 * g0)) / m, Ex(sp.Abs(r(0) ** 2 * g0)) / m), "",
              ByLemma(L.abs_expectation(Ex), {"Y": r(0) ** 2 * g0}, context=sp.Lambda(_y, _y / m))),
         Step("|f - E_nu f| <= 2", "(24)", le(Ex(sp.Abs(r(0) ** 2 * g0)) / m, Ex(2 * r(0) ** 2) / m), "|f| <= 1",
              ByLemma(L.monotone(Ex), {"U": sp.Abs(r(0) ** 2 * g0), "V": 2 * r(0) ** 2}, context=sp.Lambda(_y, _y / m),
                      hyp_checks={0: NonNegative([r(0) ** 2 * h_], {h_: 2 - sp.Abs(g0)}, by={h_: _centred_at_most_2(f(0))})})),
         Step("", "(24)", eq(Ex(2 * r(0) ** 2) / m, bound2), "linearity", Identity())],
        assumptions)
    q25 = sp.Abs(Ex(A * (B - 1) ** 2 / B))
    d25 = Derivation(
        "L3.25", "Lemma 3, bound (25)", "(25)", q25, "le", bound2,
        [Step("|E| <= E| |", "(25)", le(q25, Ex(sp.Abs(A * (B - 1) ** 2 / B))), "",
              ByLemma(L.abs_expectation(Ex), {"Y": A * (B - 1) ** 2 / B})),
         Step("|A| <= 2B", "(25)", le(Ex(sp.Abs(A * (B - 1) ** 2 / B)), Ex(2 * (B - 1) ** 2)), "|f| <= 1, r >= 0",
              ByLemma(L.monotone(Ex), {"U": sp.Abs(A * (B - 1) ** 2 / B), "V": 2 * (B - 1) ** 2},
                      hyp_checks={0: NonNegative([(B - 1) ** 2 * h_ / B], {h_: 2 * B - sp.Abs(A)},
                                                 by={h_: _abs_A_at_most_2B(defs, Ef, m)})})),
         Step("i.i.d.", "(25)", eq(Ex(2 * (B - 1) ** 2), 2 * Ex((r(0) - 1) ** 2) / m), "E(B - 1)^2 = E(r - 1)^2/m",
              Identity(defs=defs, facts=facts)),
         Step("E(r-1)^2 <= E r^2", "(25)", le(2 * Ex((r(0) - 1) ** 2) / m, bound2), "E r = 1",
              NonNegative([2 / m], facts=facts))],
        assumptions + [every_copy])
    q = sp.Abs(Ex(m_sum(f(j) * r(j)) / m_sum(r(j))) - Ef)
    t1, t2 = sp.Abs(Ex(A * B)), sp.Abs(Ex(A * (B - 1) ** 2 / B))
    inv = split(2, -B, (B - 1) ** 2 / B)
    l24, l25 = cite(d24), cite(d25)                               # siblings built above
    main = Derivation(
        "L3", "Lemma 3: self-normalised importance sampling bias", "Lemma 3, App. A", q, "le", 4 * D / m,
        [Step("A/B", "proof of Lemma 3", eq(q, sp.Abs(Ex(A / B))), "definitions of A, B", Identity(defs=defs, facts=facts)),
         Step("1/B", "proof of Lemma 3", eq(sp.Abs(Ex(A / B)), sp.Abs(Ex(A * inv))), "1/B = 2 - B + (B-1)^2/B",
              ByLemma(L.reciprocal_identity(), {"B": B}, context=sp.Lambda(_y, sp.Abs(Ex(A * _y))),
                      hyp_checks={0: Identity()})),
         Step("(23)", "(23)", eq(sp.Abs(Ex(A * inv)), sp.Abs(-Ex(A * B) + Ex(A * (B - 1) ** 2 / B))),
              "E[A] = 0 (E_pi[r f] = E_nu f)", Identity(defs=defs, facts=facts)),
         Step("triangle", "proof of Lemma 3", le(sp.Abs(-Ex(A * B) + Ex(A * (B - 1) ** 2 / B)), t1 + t2), "",
              ByLemma(L.triangle(), {"x": -Ex(A * B), "y": Ex(A * (B - 1) ** 2 / B)})),
         Step("(24)", "(24)", le(t1 + t2, bound2 + t2), "", ByLemma(l24, {}, context=sp.Lambda(_y, _y + t2))),
         Step("(25)", "(25)", le(bound2 + t2, split(bound2, bound2)), "", ByLemma(l25, {}, context=sp.Lambda(_y, bound2 + _y))),
         Step("", "", eq(split(bound2, bound2), 4 * D / m), "", Identity())],
        assumptions + [every_copy], errata=[_errata.get("L3-B>0")])
    return [d24, d25, main]


# ================================================================ Prop 2 and (12)
def _between_at_least(y0, y, t, low, above0, above):
    """y0 + (y - y0)/(1 + t) - low >= 0 (t > 0): (t (y0 - low) + (y - low))/(1 + t), both >= 0 by the checks."""
    w0, w1 = sp.symbols("w_y0 w_y", nonnegative=True)
    return NonNegative([t * w0 / (1 + t), w1 / (1 + t)], {w0: y0 - low, w1: y - low}, by={w0: above0, w1: above})


def _mean_at_least(X0, scale, c_, floor=None):
    """scale E e^{X0} - scale e^{-c} >= 0 by monotonicity of E, from X0 + c >= 0 (``floor`` shows it; else a premise)."""
    g_ = sp.Symbol("sigma_X", nonnegative=True)
    return AsGap(ByLemma(L.monotone(Ex), {"U": scale * sp.exp(-c_), "V": scale * sp.exp(X0)},
                         hyp_checks={0: NonNegative([scale * sp.exp(-c_) * Expm1(g_)], {g_: X0 + c_},
                                                    by={g_: floor} if floor else None)}))


def _sample_mean_at_least(Xj, scale, c_, floor=None, defs=None):
    """scale k^-1 sum_j e^{X_j} - scale e^{-c} >= 0 termwise, from X_j + c >= 0 (``floor`` shows it; else a premise);
    ``defs``: a name for the sum (the AsGap's gap is compared under them)."""
    g_ = sp.Symbol("sigma_Xj", nonnegative=True)
    return AsGap(ByLemma(L.sum_monotone(j), {"U": sp.Lambda(j, scale * sp.exp(-c_) / k),
                                             "V": sp.Lambda(j, scale * sp.exp(Xj) / k), "k": k},
                         hyp_checks={0: NonNegative([scale * sp.exp(-c_) * Expm1(g_) / k], {g_: Xj + c_},
                                                    by={g_: floor} if floor else None)}), defs=defs)


def _similarity_floor(Sx):
    """Sx/tau + 1/tau >= 0 from |Sx| <= 1."""
    c_ = sp.Symbol("c_S", nonnegative=True)
    return NonNegative([c_ / tau], {c_: Sx + 1}, by={c_: _at_least_minus_one(Sx)})


def _point_above_floor(xi):
    """e^{1/tau} xi - 1 >= 0 for Taylor's point xi = mu + (muhat - mu)/(1 + t) of A.1: mu, muhat >= e^{-1/tau}."""
    z = sp.Symbol("z_xi", nonnegative=True)
    return NonNegative([sp.exp(1 / tau) * z], {z: xi - sp.exp(-1 / tau)},
                       by={z: _between_at_least(mu_S, muhat_S, t_xi, sp.exp(-1 / tau),
                                                _mean_at_least(S(0) / tau, 1, 1 / tau, _similarity_floor(S(0))),
                                                _sample_mean_at_least(S(j) / tau, 1, 1 / tau, _similarity_floor(S(j))))})


def every_negative():
    """|S_j| <= 1 for every negative j: the hypothesis |S| <= 1 (unit embeddings) at each copy S(j)."""
    return As("|S_j| <= 1 for every negative j (|phi| = 1)", le(sp.Abs(S(j)), 1), every=(j,))


def _at_least_minus_one(Sx):
    """Sx + 1 >= 0 from |Sx| <= 1: (1 - |Sx|) + (|Sx| + Sx), the second since -Sx <= |Sx|."""
    c1, c2 = sp.symbols("c_abs c_sign", nonnegative=True)
    return NonNegative([c1, c2], {c1: 1 - sp.Abs(Sx), c2: sp.Abs(Sx) + Sx},
                       by={c2: AsGap(ByLemma(L.le_abs_difference(), {"x": -Sx, "y": 0}))})


def _cube_below_abs_cube(y):
    """|y|^3 - y^3 = (|y| - y)((y + |y|/2)^2 + 3|y|^2/4) >= 0, with y <= |y|."""
    u = sp.Symbol("u_abs", nonnegative=True)
    return NonNegative([u * ((y + sp.Abs(y) / 2) ** 2 + 3 * sp.Abs(y) ** 2 / 4)], {u: sp.Abs(y) - y},
                       by={u: AsGap(ByLemma(L.le_abs_difference(), {"x": y, "y": 0}))})


def _mu_at_most():
    """e^{1/tau} - mu >= 0: mu = E e^{S/tau} <= e^{1/tau} by monotonicity of E (S <= 1)."""
    g_ = sp.Symbol("sigma_mu", nonnegative=True)
    return AsGap(ByLemma(L.monotone(Ex), {"U": sp.exp(S(0) / tau), "V": sp.exp(1 / tau)},
                         hyp_checks={0: NonNegative([sp.exp(S(0) / tau) * Expm1(g_ / tau)], {g_: 1 - S(0)})}))


def _log_mu_at_most():
    """1/tau - log mu >= 0: mu <= e^{1/tau}, then log(e^{1/tau}/mu) >= 0."""
    v_ = sp.Symbol("v_mu", nonnegative=True)
    return NonNegative([sp.log(1 + v_ / mu_S)], {v_: sp.exp(1 / tau) - mu_S}, by={v_: _mu_at_most()})


def _log_muhat_at_least():
    """log muhat + 1/tau >= 0: muhat = k^-1 sum_j e^{S_j/tau} >= e^{-1/tau} termwise (every |S_j| <= 1)."""
    v_ = sp.Symbol("v_muhat", nonnegative=True)
    return NonNegative([sp.log(1 + v_ * sp.exp(1 / tau))], {v_: muhat_S - sp.exp(-1 / tau)},
                       by={v_: _sample_mean_at_least(S(j) / tau, 1, 1 / tau, _similarity_floor(S(j)))})


def _T_above(Tsum):
    """T := sum_j e^{(S_j - P)/tau} >= k e^{-2/tau}: k times a sample mean, termwise, each exponent
    (S_j - P)/tau + 2/tau = ((S_j + 1) + (1 - P))/tau >= 0."""
    a_, b_, u = sp.symbols("sigma_S sigma_P u_SP", nonnegative=True)
    floor = NonNegative([u / tau], {u: S(j) - P + 2},
                        by={u: NonNegative([a_, b_], {a_: S(j) + 1, b_: 1 - P}, by={a_: _at_least_minus_one(S(j))})})
    return _sample_mean_at_least((S(j) - P) / tau, k, 2 / tau, floor, defs={T: Tsum})


@register("DCL-12", "P2.28", "P2")
def _prop2():
    R, Rt = risk_definitions()["R"], risk_definitions()["Rt"]
    rs = _sum(r(j) * S(j)) / _sum(r(j))
    sce = Ea(-Ex(rs) / tau + Ex(sp.log(muhat_S)))                 # (9) with m = k
    facts = {Ex(r(0)): 1, Ea(P): Ea(Ex(r(0) * S(0))), Ea(Ex(r(0) ** 2)): D2}
    Y = Ex(rs) - Ex(r(0) * S(0))
    assumptions = [As("|S| <= 1", le(sp.Abs(S(0)), 1)), As("E_pi r = 1 (r = dM(z,.)/dpi)", eq(Ex(r(0)), 1)),
                   As("E_{Z+ ~ M(z,.)}[P] = E_pi[r S] (change of measure)", eq(Ea(P), Ea(Ex(r(0) * S(0))))),
                   As("(B): M(z,.) << pi, r(j) = dM(z,.)/dpi(xi_j) >= 0; xi_j i.i.d. pi; |P| <= 1"),
                   As("S <= 1", le(S(0), 1)), As("S >= -1", ge(S(0), -1)), As("P <= 1", le(P, 1)),
                   As("P >= -1", ge(P, -1)), every_negative()]
    l3lem = cite("L3", {"m": m, "f": f, "r": r})
    b12 = 4 * D2 / (tau * k)
    d12 = Derivation(
        "DCL-12", "Search cross-entropy vs DCL risk, (12) = bound on (27)", "(12), (27), (29)-(30)",
        sp.Abs(sce - Rt), "le", b12,
        [Step("(29)-(30)", "(29), (30)", eq(sp.Abs(sce - Rt), sp.Abs(Ea(Y)) / tau),
              "rearrangement (29), density (30), definition of M_k (corrected third equality)", Identity(facts=facts)),
         Step("|E| <= E| |", "", le(sp.Abs(Ea(Y)) / tau, Ea(sp.Abs(Y)) / tau), "",
              ByLemma(L.abs_expectation(Ea), {"Y": Y}, context=sp.Lambda(_y, _y / tau))),
         Step("Lemma 3", "Lemma 3", le(Ea(sp.Abs(Y)) / tau, Ea(4 * Ex(r(0) ** 2) / k) / tau),
              "nu = M(z,.), pi = pi_data, f = <phi(z), phi(.)>, m = k",
              ByLemma(l3lem, {"m": k, "f": sp.Lambda(j, S(j)), "r": sp.Lambda(j, r(j))},
                      context=sp.Lambda(_y, _y / tau), under=Ea,
                      hyp_checks={0: NonNegative([h_], {h_: 1 - sp.Abs(S(0))})})),
         Step("", "Prop. 2", eq(Ea(4 * Ex(r(0) ** 2) / k) / tau, b12), "D2 = E|dM(Z,.)/dpi(Z')|^2", Identity(facts=facts))],
        assumptions, errata=[_errata.get("P2-third-eq"), _errata.get("P2-support"), _errata.get("L3-B>0")])
    Tsum = _sum(sp.exp((S(j) - P) / tau))
    b28 = sp.log(1 + sp.exp(2 / tau) / k)
    inner = Ea(Ex(sp.log(1 + 1 / Tsum)))
    d28 = Derivation(
        "P2.28", "InfoNCE vs DCL risk, the difference (28)", "(28), proof of Prop. 2", sp.Abs(Rt - R), "le", b28,
        [Step("R >= R~", "(28)", eq(sp.Abs(Rt - R), R - Rt), "monotonicity of log: R - R~ is the E of log(1 + 1/T) >= 0",
              ByLemma(L.abs_nonpositive(), {"x": Rt - R}, hyp_checks={0: NonNegative([inner])})),
         Step("(28)", "(28)", eq(R - Rt, inner), "log(1/k + c) - log c = log(1 + 1/(kc))", Identity()),
         Step("|S - P| <= 2", "(28)", le(inner, Ea(Ex(b28))), "each summand >= e^{-2/tau}",
              ByLemma(L.monotone(Ex), {"U": sp.log(1 + 1 / Tsum), "V": b28}, under=Ea,
                      hyp_checks={0: NonNegative([sp.log(1 + sp.exp(2 / tau) * t_ / (k * (k * sp.exp(-2 / tau) + t_ + 1)))],
                                                 {t_: T - k * sp.exp(-2 / tau)}, rename={Tsum: T},
                                                 by={t_: _T_above(Tsum)})})),
         Step("constant", "", eq(Ea(Ex(b28)), b28), "E of a constant", Identity())],
        assumptions[3:])
    L12, L28 = cite(d12), cite(d28)                               # siblings built above
    q = sp.Abs(sce - R)
    t1, t2 = sp.Abs(sce - Rt), sp.Abs(Rt - R)
    p2 = Derivation(
        "P2", "Proposition 2", "Prop. 2; proof in App. A", q, "le", b12 + b28,
        [Step("(27)-(28)", "(27), (28)", eq(q, sp.Abs(split(sce - Rt, Rt - R))), "add and subtract R~", Identity()),
         Step("triangle", "", le(sp.Abs(split(sce - Rt, Rt - R)), t1 + t2), "",
              ByLemma(L.triangle(), {"x": sce - Rt, "y": Rt - R})),
         Step("(27) bound", "(12)", le(t1 + t2, b12 + t2), "derivation DCL-12",
              ByLemma(L12, {}, context=sp.Lambda(_y, _y + t2))),
         Step("(28) bound", "(28)", le(b12 + t2, b12 + b28), "derivation P2.28",
              ByLemma(L28, {}, context=sp.Lambda(_y, b12 + _y)))],
        assumptions, errata=[_errata.get("P2-third-eq"), _errata.get("L3-B>0")])
    return [d12, d28, p2]


def a2_two_point_limit(N_):
    """A.2: Var/E^2 of the two-point mixture (mass eps = 1/N at similarity 1) as delta -> 0."""
    eps = 1 / N_
    return eps * (1 - eps) * (x - 1) ** 2 / (1 + eps * (x - 1)) ** 2


# ================================================================ A.1 remainder (corrected) and A.2
@register("A1.32", "A2.eps", "A2.ratio", "A2.liminf", "A2.13")
def _appendix():
    mu, d = mu_S, muhat_S - mu_S
    flog = sp.Lambda(_y, sp.log(_y))
    M3 = Ex(sp.Abs(d) ** 3)
    q = sp.log(mu) - Ex(sp.log(muhat_S))
    xi = mu + d / (1 + t_xi)                 # Taylor's point between mu and muhat
    t3 = flog(mu) - Ex(flog(mu) + d / mu - d ** 2 / (2 * mu ** 2) + d ** 3 / (3 * xi ** 3))
    main = Ex(d ** 2) / (2 * mu ** 2)
    stmt = Var(sp.exp(S(0) / tau)) / (2 * k * mu ** 2) - sp.exp(3 / tau) * M3 / 3
    v = sp.Symbol("v", nonnegative=True)   # |y|^3 - y^3 >= 0
    a1_ = Derivation(
        "A1.32", "A.1: third-order expansion behind (32), corrected remainder", "App. A.1, (32)", q, "ge", stmt,
        [Step("Taylor", "A.1", eq(q, t3), "third-order Taylor expansion of log about mu",
              ByLemma(L.taylor3(), {"F": flog, "Y": muhat_S, "Y0": mu, "T": t_xi}, context=sp.Lambda(_y, flog(mu) - Ex(_y)))),
         Step("E muhat = mu", "A.1", eq(t3, main - Ex(d ** 3 / (3 * xi ** 3))), "linearity", Identity()),
         Step("xi >= e^{-1/tau}", "A.1", ge(main - Ex(d ** 3 / (3 * xi ** 3)), main - sp.exp(3 / tau) * M3 / 3),
              "xi between mu and muhat, both >= e^{-1/tau} (not mu v muhat <= e^{1/tau})",
              ByLemma(L.monotone(Ex), {"U": d ** 3 / (3 * xi ** 3), "V": sp.exp(3 / tau) * sp.Abs(d) ** 3 / 3},
                      context=sp.Lambda(_y, main - _y),
                      hyp_checks={0: NonNegative(
                          [v / (3 * xi ** 3),
                           sp.Abs(d) ** 3 * (3 * w_ + 3 * w_ ** 2 + w_ ** 3) / (3 * xi ** 3)],
                          {v: sp.Abs(d) ** 3 - d ** 3, w_: sp.exp(1 / tau) * xi - 1},
                          by={v: _cube_below_abs_cube(d), w_: _point_above_floor(xi)})})),
         Step("i.i.d.", "A.1", eq(main - sp.exp(3 / tau) * M3 / 3, stmt), "E(muhat - mu)^2 = (1/k) Var (not 1/n)",
              Identity())],
        [As("negatives i.i.d. pi"), As("|S| <= 1", le(sp.Abs(S(0)), 1)), every_negative()],
        errata=[_errata.get("A1-1/n"), _errata.get("A1-remainder")])

    eps = 1 / N
    em1 = Expm1(1 / tau)
    hyp = {t_pos: x - 2, s1: N - x + 1, s2: x - N, a1_pos: 1 - a}
    assumptions = [As("e^{1/tau} > 2", gt(x, 2)),
                   As("N = ceil(e^{1/tau} - 1): N >= e^{1/tau} - 1", ge(N, x - 1)),
                   As("N = ceil(e^{1/tau} - 1): N < e^{1/tau}", lt(N, x)), As("eps = 1/N"),
                   As("a < 1", lt(a, 1)), As("a > 0")]
    d_eps = Derivation(
        "A2.eps", "A.2: 1/2 <= eps (e^{1/tau} - 1) <= 1", "App. A.2, after (33)", sp.Rational(1, 2), "le", sp.Integer(1),
        [Step("e^{1/tau} > 2", "A.2", le(sp.Rational(1, 2), (x - 1) / x), "", NonNegative([t_pos / (2 * x)], hyp)),
         Step("N < e^{1/tau}", "(33)", le((x - 1) / x, eps * (x - 1)), "", NonNegative([em1 * s2 / (x * N)], hyp)),
         Step("N >= e^{1/tau} - 1", "(33)", le(eps * (x - 1), sp.Integer(1)), "", NonNegative([s1 / N], hyp))],
        assumptions)
    m0 = sp.Symbol("m0", positive=True)       # E e^{X0/tau}
    v0 = sp.Symbol("v0", nonnegative=True)    # Var e^{X0/tau}
    EY = eps * x + (1 - eps) * m0
    EY2 = eps * x ** 2 + (1 - eps) * (v0 + m0 ** 2)
    ratio = (EY2 - EY ** 2) / EY ** 2
    formula = (eps * (1 - eps) * (x - m0) ** 2 + (1 - eps) * v0) / EY ** 2
    Lim = a2_two_point_limit(N)
    u = em1 / N                                # eps (e^{1/tau} - 1)
    u0 = em1 / x                               # (e^{1/tau} - 1)/e^{1/tau}
    one_m_eps = (s1 + t_pos) / N               # 1 - eps = (N - 1)/N
    # The paper's "delta small enough", made explicit (the limit step held F >= (1 - a) L at any (m0, v0)):
    # with g(m) = (x - m)/(eps x + (1 - eps) m), decreasing in m, formula >= eps (1 - eps) g(m0)^2 (v0 >= 0)
    # >= eps (1 - eps) c^2 once m0 <= m_a, where g(m_a) = c = (1 - a/2) g(1); and (1 - a/2)^2 >= 1 - a.
    # m_a > 1 (g(1) > c), so e^{delta/tau} <= m_a, i.e. delta <= tau log m_a, suffices (m0 <= e^{delta/tau}).
    ga = (x - m0) / EY                                 # g(m0)
    c_a = N * (1 + a1_pos) * (t_pos + 1) / (2 * (x + s1 + t_pos))     # (1 - a/2) g(1), in the slacks
    c_def = (1 - a / 2) * (x - 1) / (eps * x + 1 - eps)
    m_a = x * (1 - c_def * eps) / (1 + c_def * (1 - eps))
    w_small = sp.Symbol("w_delta", nonnegative=True)  # m_a - m0 >= 0
    den_a = x / (1 + c_a * one_m_eps)                  # eps x + (1 - eps) m_a
    small = As("delta small enough: m0 = E e^{X0/tau} <= e^{delta/tau} <= m_a (delta <= tau log m_a, m_a > 1)",
               le(m0, m_a))
    hyp_small = {**hyp, w_small: m_a - m0}
    r3 = (1 - a) * (1 - eps) * (x - 1) ** 2 / (4 * x)
    r4 = (1 - a) * (x - 1 - (x - 1) / N) / 8
    r5 = (1 - a) * (x - 2) / 8
    d_ratio = Derivation(
        "A2.ratio", "A.2: variance ratio lower bound", "App. A.2", ratio, "ge", r5,
        [Step("mixture", "A.2", eq(ratio, formula), "Var/E^2 of the two-point mixture (prob. eps at similarity 1)", Identity()),
         Step("Var e^{X0/tau} >= 0", "A.2", ge(formula, eps * (1 - eps) * ga ** 2), "drop (1 - eps) v0 / E^2",
              NonNegative([one_m_eps * v0 / EY ** 2], hyp)),
         Step("delta small", "A.2", ge(eps * (1 - eps) * ga ** 2, eps * (1 - eps) * c_def ** 2),
              "g decreasing: g(m0) - g(m_a) = x (m_a - m0)/(E(m0) E(m_a)), and g(m_a) = c",
              NonNegative([one_m_eps / N * x * w_small / (EY * den_a)
                           * ((x * c_a / (1 + c_a * one_m_eps) + w_small) / EY + c_a)], hyp_small)),
         Step("(1 - a/2)^2 >= 1 - a", "A.2", ge(eps * (1 - eps) * c_def ** 2, (1 - a) * Lim),
              "c^2 = (1 - a/2)^2 g(1)^2 and eps (1 - eps) g(1)^2 is the delta -> 0 limit",
              NonNegative([one_m_eps / N * (t_pos + 1) ** 2 * N ** 2 / (x + s1 + t_pos) ** 2 * a ** 2 / 4], hyp)),
         Step("1/2 <= eps(e^{1/tau}-1) <= 1", "A.2", ge((1 - a) * Lim, r3), "u/(1+u)^2 >= u0/4 for u0 <= u <= 1",
              NonNegative([a1_pos * one_m_eps * em1 * em1 * s2 / (N * x * (1 + u) ** 2),
                           a1_pos * one_m_eps * em1 * u0 * (s1 / N) * (3 + u) / (4 * (1 + u) ** 2)], hyp)),
         Step("(e^{1/tau}-1)/e^{1/tau} >= 1/2", "A.2", ge(r3, r4), "", NonNegative([a1_pos * one_m_eps * em1 * t_pos / (8 * x)], hyp)),
         Step("N >= e^{1/tau} - 1", "A.2", ge(r4, r5), "", NonNegative([a1_pos * s1 / (8 * N)], hyp))],
        assumptions + [As("m0 = E e^{X0/tau}, v0 = Var e^{X0/tau} with |X0| <= delta"), small])
    liminf = (1 - a) * (x - 2) / 16
    from .asymptotics import a2_liminf         # (32) with its explicit remainder (A2.32.lower), then A2.ratio
    d_lim = a2_liminf(d_ratio, assumptions + [small], errata=[_errata.get("A2-k")])
    d13 = _ratio13(d_lim, assumptions + [small], hyp, liminf)
    return [a1_, d_eps, d_ratio, d_lim, d13]


def _ratio13(d_lim, assumptions, hyp, liminf):
    """A2.13: limsup_k |search CE - R~| / (int CE - R~) <= 65 D2/(tau (e^{1/tau} - 2)), the paper's (13), from
    (12) for every k (DCL-12), the per-anchor liminf of A.2 (A2.liminf, with V_j = X_j/mu - 1 at each anchor)
    averaged over the anchors by Fatou's lemma, and the limsup of a ratio."""
    from .expansions import V
    defs = risk_definitions()
    ce, Rt = defs["ce"], defs["Rt"]
    d12 = derivation("DCL-12")
    num = d12.quantity                                   # |search CE - R~|, DCL-12's quantity (for every k)
    g = sp.log(mu_S) - Ex(sp.log(muhat_S))               # (31): int CE - R~ = Ea[log mu - E log muhat]
    Vx = sp.Lambda(j, sp.exp(S(j) / tau) / mu_S - 1)     # V_j = X_j/mu - 1, X_j = e^{S_j/tau}, at each anchor
    Llim = cite(d_lim, {"V": V})                          # the sibling built above, V instantiated
    lim_q, hyps_lim = Llim.written_at({"V": Vx})
    f_k = lim_q.lhs.args[0]                               # k E[-log(1 + Vbar)] per anchor (A2.liminf's sequence)
    u_k, v_k = k * num, Ea(f_k)                           # k |search CE - R~|, k (int CE - R~)
    A13, B13 = 4 * D2 / tau, liminf                      # limsup u_k <= A13, liminf v_k >= B13 > 0
    q13 = L.Limsup(num / (ce - Rt), k)
    b13 = 65 * D2 / (tau * (x - 2))
    r64 = 64 * D2 / ((1 - a) * tau * (x - 2))
    w1, w2 = sp.symbols("w1 w2", nonnegative=True)
    # hypotheses of A2.liminf at each anchor: E V = 0 (the CAS), 1 + V_j = X_j/mu >= e^{-2/tau} from |S| <= 1
    rng_idx = next(i for i, h in enumerate(hyps_lim) if h.has(S) and relation_kind(h) != "eq")
    mu_le = _mu_at_most()
    rng_check = NonNegative([sp.exp(-1 / tau) * Expm1(s_ / tau) / mu_S, sp.exp(-2 / tau) * w_ / mu_S],
                            {s_: S(j) + 1, w_: x - mu_S}, by={w_: mu_le, s_: _at_least_minus_one(S(j))})
    # liminf_k k (int CE - R~) >= Ea[liminf_k f_k] (Fatou, f_k >= 0 by Jensen) >= Ea[(1-a)(e^{1/tau}-2)/16]
    jensen = ByLemma(L.jensen_concave(Ex), {"F": sp.Lambda(_y, sp.log(_y)), "Y": muhat_S},
                     context=sp.Lambda(_y, k * (sp.log(mu_S) - _y)))
    fatou = AsGap(ByLemma(L.fatou(Ea), {"F": f_k, "n": k}, hyp_checks={0: jensen}))
    per_anchor_liminf = AsGap(ByLemma(L.monotone(Ea), {"U": B13, "V": L.Liminf(f_k, k)},
                                      hyp_checks={0: AsGap(ByLemma(Llim, {"V": Vx}, hyp_checks={rng_idx: rng_check}))}))
    den_check = NonNegative([w1, w2], {w1: L.Liminf(v_k, k) - Ea(L.Liminf(f_k, k)), w2: Ea(L.Liminf(f_k, k)) - B13},
                            by={w1: fatou, w2: per_anchor_liminf})
    # 4 D2/tau - k |search CE - R~| = k w, w = 4 D2/(tau k) - |search CE - R~| >= 0 by (12) at this k
    num_check = AsGap(ByLemma(L.limsup_bounded(), {"U": u_k, "B": A13, "n": k},
                              hyp_checks={0: NonNegative([k * w_], {w_: d12.statement - num},
                                                         by={w_: AsGap(ByLemma(cite("DCL-12", {"k": k}), {"k": k}))})}))
    anchor_law = As("the A.2 law at every anchor: the similarity of a negative is 1 with probability eps and X0 "
                    "(|X0| <= delta) otherwise, so A2.liminf holds at each anchor with V_j = X_j/mu - 1, "
                    "X_j = e^{S_j/tau} (its X0 may depend on the anchor)")
    return Derivation(
        "A2.13", "A.2: the ratio bound (13)", "(13)", q13, "le", b13,
        [Step("(31)", "(31)", eq(q13, L.Limsup(num / Ea(g), k)),
              "int CE - R~ = int (log mu - E log muhat) dpi: the positive term cancels", Identity()),
         Step("V_j = X_j/mu - 1", "(31)-(32)", eq(L.Limsup(num / Ea(g), k), L.Limsup(u_k / v_k, k)),
              "log mu - E log muhat = E[-log(1 + Vbar)] with V_j = e^{S_j/tau}/mu - 1 (A2.liminf's sequence), "
              "numerator and denominator times k", Identity()),
         Step("limsup of a ratio", "(12), A.2",
              le(L.Limsup(u_k / v_k, k), r64),
              "limsup k|search CE - R~| <= 4 D2/tau by (12) for every k (DCL-12); liminf k (int CE - R~) >= "
              "(1-a)(e^{1/tau}-2)/16 > 0 by A2.liminf at each anchor and Fatou (k (log mu - E log muhat) >= 0, "
              "Jensen); (4 D2/tau)/((1-a)(e^{1/tau}-2)/16) = 64 D2/((1-a) tau (e^{1/tau}-2))",
              ByLemma(L.limsup_ratio(), {"U": u_k, "V": v_k, "n": k, "A": A13, "B": B13},
                      hyp_checks={1: num_check, 2: den_check,
                                  3: NonNegative([a1_pos * t_pos / 16], hyp)})),
         Step("a <= 1/65", "(13)", le(r64, b13), "64/(1-a) <= 65",
              NonNegative([65 * D2 * h65 / (a1_pos * tau * t_pos)], {**hyp, h65: sp.Rational(1, 65) - a}))],
        assumptions + [As("a <= 1/65", le(a, sp.Rational(1, 65))), anchor_law]
        + [a_ for a_ in d12.assumptions if all(a_.text != b_.text for b_ in assumptions)]
        # A2.liminf's assumed consequences at each anchor (V_j = X_j/mu - 1), which its citation checks
        + [As(a_.text, h_, derived=True) for a_, h_ in zip([b_ for b_ in d_lim.structured_assumptions()
                                                             if b_.rel is not None], hyps_lim) if a_.derived],
        errata=[_errata.get("S3.4-appendix-ref")])


# ---------------------------------------------------------------- statements for numerics
def _registered_expr(rid):
    """The registered statement's expression in the numeric symbols (``statement_registry``: Lemma 3's
    E_pi|dnu/dpi|^2 as D2), not a typed twin (a probe changed L3's derivation and the check followed the
    typed 4 D2/m, Dec 2026)."""
    from .statement_registry import statement
    return statement(rid).expr


@lru_cache(maxsize=1)
def _statements():
    st = lambda rid: derivation(rid).statement  # noqa: E731
    return {
        "Q-bounds": {"lower": st("Q-bounds.lower"), "upper": st("Q-bounds.upper")},
        "L2": {"lower": st("L2.lower"), "upper": st("L2.upper")},
        "P1": {"lower": st("P1.lower"), "upper": st("P1.upper")},
        "L3": {"upper": _registered_expr("L3")},
        "P2": {"upper": st("P2")},
        "DCL-11": {"lower": st("DCL-11.lower"), "upper": st("DCL-11.upper")},
        "DCL-12": {"upper": st("DCL-12")},
        "L4": {"upper": st("L4")},
        "A2": {"eps_lower": derivation("A2.eps").quantity, "eps_upper": st("A2.eps"),
               "limit": a2_two_point_limit(sp.ceiling(x - 1)), "ratio_lower": st("A2.ratio"),
               "liminf": st("A2.liminf"), "ratio13": st("A2.13")},
    }


# the registered results of this module (the chains are built on first use, by the registry)
IDS = [i for f in (_q_bounds, _lemma2, _section32, _lemma3, _prop2, _appendix) for i in f.registered_ids]
_NAMED = {  # named statements: (id, which) in STATEMENTS
    "q_lower": ("Q-bounds", "lower"), "q_upper": ("Q-bounds", "upper"),
    "lemma2_lower": ("L2", "lower"), "lemma2_upper": ("L2", "upper"),
    "prop1_lower": ("P1", "lower"), "prop1_upper": ("P1", "upper"),      # -log(1+e^{2/tau}/k), (e^{2/tau}-1)^2/(8k)
    "lemma3_bound": ("L3", "upper"), "prop2_bound": ("P2", "upper"),      # 4 D2/m; 4 D2/(tau k) + log(1+e^{2/tau}/k)
    "dcl_lower": ("DCL-11", "lower"), "dcl_upper": ("DCL-11", "upper"),
    "dcl_search_bound": ("DCL-12", "upper"), "lemma4_bound": ("L4", "upper"),   # 4 D2/(tau k); 2/tau
    "a2_ratio13": ("A2", "ratio13"),                                     # 65 D2/(tau (e^{1/tau} - 2))
}


def __getattr__(name):
    """``DERIVATIONS``, ``BY_ID``, ``STATEMENTS``, ``DEFS`` and the named statements, from the registry."""
    if name == "DERIVATIONS":
        return [derivation(i) for i in IDS]
    if name == "BY_ID":
        return {i: derivation(i) for i in IDS}
    if name == "STATEMENTS":
        return _statements()
    if name == "DEFS":
        return risk_definitions()
    if name in _NAMED:
        id_, which = _NAMED[name]
        return _statements()[id_][which]
    raise AttributeError(name)


def bound_args(id, which):
    """The argument order of :func:`bound_function` (symbols sorted by name)."""
    return sorted(sp.sympify(_statements()[id][which]).free_symbols, key=lambda s: s.name)


def bound_function(id, which, module="numpy"):
    """``STATEMENTS[id][which]`` lambdified for ``module`` ("numpy" or "mpmath");
    arguments in the order of :func:`bound_args` (e.g. ``(k, tau)`` for P1)."""
    expr = _statements()[id][which]
    return sp.lambdify(bound_args(id, which), numeric_form(expr), modules=module)
