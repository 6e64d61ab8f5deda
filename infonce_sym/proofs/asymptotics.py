"""The asymptotics of Section 3 as theorems: explicit remainders (issue 9, item 4).

Per anchor, with X = e^{s/tau}, mu = E X, V_j = X_j/mu - 1 i.i.d. (E V = 0, m_n = E V^n),
Vbar the mean of k copies, and ``ell`` a lower bound of 1 + V = X/mu (ell <= 1; ell = e^{-2/tau}
when |s| <= 1, since X >= e^{-1/tau} and mu <= e^{1/tau}):

* **A2.32.lower / A2.32.upper / A2.32** -- (32) with an explicit remainder:
  |k (log mu - E log muhat) - m2/2| <= (3 m2^2 + m4)^{3/4} / (3 ell^3 sqrt(k)).
  Taylor of -log(1 + v) to order 2 with the Lagrange point v/(1+t) (so 1 + theta >= ell),
  E Vbar = 0, E Vbar^2 = m2/k, |E Vbar^3/(1+theta)^3| <= E|Vbar|^3/ell^3, Lyapunov
  E|Vbar|^3 <= (E Vbar^4)^{3/4} (Jensen, u^{3/4} concave), E Vbar^4 = (3(k-1) m2^2 + m4)/k^3.
  m2 = Var(X)/mu^2 is the paper's Var/E^2.
* **EXP.dcl.lower / EXP.dcl.upper** -- int CE - R~ = -E log(1 + Vbar) per anchor:
  c1t/k + c2t/k^2 - B_lo/k^3 <= gap <= c1t/k + c2t/k^2 + B_up/k^3 with B_lo, B_up closed forms
  in the moments and ell (Taylor to order 5, Lagrange remainder Vbar^6/(6 (1+theta)^6) in
  [0, Vbar^6/(6 ell^6)], E Vbar^n exact by set partitions, then |q| k^{-n} <= |q| k^{-3}).
* **EXP.infonce.lower / EXP.infonce.upper** -- the same for -E log(1 + Vbar + W/k), W = e^{p/tau}/mu
  independent of the negatives (1 + Vbar + W/k >= 1 + Vbar >= ell).
* :func:`a2_liminf` -- A.2's liminf from A2.32 (a builder for section3: same id and statement).
"""
from __future__ import annotations

import sympy as sp

from . import lemmas as L
from .chain import (AsGap, Assumption, ByLemma, Derivation, Ex, Expm1, ea_of_ex, Identity, Lemma, LimitCheck, NonNegative,
                    Step, eq, ge, le, parameter, random_symbol)
from .expansions import ANCHOR_READING, E_ab, E_b, FACTS, V, W, af, bf, expansion_constants, j, m
from .register import cite, derivation, register
from .symbols import k, tau

__all__ = ["ell", "LimitCheck", "a2_32", "expansion_bounds", "a2_liminf", "DERIVATIONS", "ORDER"]

ORDER = 5                                            # Taylor degree of the expansions (remainder order 6)
ell = parameter("ell_V", r"\ell", positive=True)     # 1 + V_j = X_j/mu >= ell, ell <= 1
t_L = random_symbol("t_L", "t", positive=True)       # Lagrange point theta = eps/(1 + t)
_u = sp.Symbol("u")
_e = sp.Symbol("epsilon")
# slack symbols (hypotheses >= 0)
sig, sig_j, kap, rho, a_abs = sp.symbols("sigma sigma_j kappa rho a_abs", nonnegative=True)

Vbar = sp.Sum(V(j), (j, 1, k)) / k
S_V = sp.Sum(V(j), (j, 1, k))
F_log = sp.Lambda(_e, -sp.log(1 + _e))
# the moments the chains use: E V = 0, E V^n = m_n, E W^n (the a, b facts of the search expansion are not used)
FACTS_V = {key: val for key, val in FACTS.items() if not key.atoms(sp.core.function.AppliedUndef)
           or all(f.func == V for f in key.atoms(sp.core.function.AppliedUndef))}

_ASSUMPTIONS = [
    Assumption("E V = 0 (V = X/mu - 1)", eq(Ex(V(0)), 0)),
    Assumption("1 + V_j = X_j/mu >= ell for every j (ell = e^{-2/tau} when |s| <= 1)", ge(1 + V(j), ell)),
    Assumption("ell <= 1 (ell bounds X/mu below and E[X/mu] = 1)", le(ell, 1)),
    "V_j = X_j/mu - 1 i.i.d. over the negatives, X_j = e^{s_j/tau}; m_n = E V^n",
]


# ---------------------------------------------------------------- the pieces every chain uses
def _range_check():
    """sigma = 1 + Vbar - ell >= 0: the mean of the 1 + V_j - ell >= 0 (assumption), monotonicity of sums."""
    return AsGap(ByLemma(L.sum_monotone(), {"U": sp.Lambda(j, ell / k), "V": sp.Lambda(j, (1 + V(j)) / k), "k": k},
                         hyp_checks={0: NonNegative([sig_j / k], {sig_j: 1 + V(j) - ell})}))


def _rho_check(extra, defs=None):
    """rho = 1 + theta - ell >= 0 with theta = eps/(1+t), eps = Vbar + extra (extra >= 0):
    1 + theta - ell = (t (1 - ell) + (1 + Vbar - ell) + extra)/(1 + t).  ``defs``: the name of eps."""
    terms = [t_L * kap / (1 + t_L), sig / (1 + t_L)] + ([extra / (1 + t_L)] if extra != 0 else [])
    return NonNegative(terms, {kap: 1 - ell, sig: 1 + Vbar - ell}, by={sig: _range_check()}, defs=defs)


def _taylor_step(q, eps, E, context, order):
    """q = context(E(Taylor polynomial + Lagrange remainder)) (library Taylor, point eps/(1+t))."""
    lem = L.taylor_lagrange_point(order)
    subs = {"F": F_log, "Y": eps, "T": t_L, "lo": -1}
    concl, _ = lem.written_at(subs)
    extra = sp.expand(eps - Vbar)
    # hypothesis 1: eps + 1 > 0, as ell + (1 + Vbar - ell) + extra
    hyp1 = NonNegative([ell, sig] + ([extra] if extra != 0 else []), {sig: 1 + Vbar - ell}, by={sig: _range_check()})
    rhs = context(E(concl.rhs))
    return Step("Taylor", "A.1", eq(q, rhs),
                f"-log(1 + eps) to order {order}, Lagrange remainder at theta = eps/(1+t), t > 0 "
                "(1 + eps > 0: eps + 1 = ell + (1 + Vbar - ell) + ...)",
                ByLemma(lem, subs, context=sp.Lambda(_u, context(E(_u))), hyp_checks={1: hyp1})), concl.rhs


def _poly_tail(Q, head, sign):
    """Q (a polynomial in 1/k) against head + sign * (sum_{n>=3} |q_n|)/k^3: returns (bound, witness
    terms, slacks, by-checks).  q/k^n <= |q|/k^3 (and >= -|q|/k^3) for k >= 1: the gap is
    (|q| -+ q)/k^n + |q| (k - 1)(1 + ... + k^{n-4})/k^n."""
    h = sp.Symbol("h", positive=True)
    poly = sp.expand(Q.subs(k, 1 / h))
    lo_coeffs = sp.expand(poly - sum(poly.coeff(h, n) * h ** n for n in range(3, 20)) - head.subs(k, 1 / h))
    if lo_coeffs != 0:
        raise ValueError(f"head does not match the 1/k, 1/k^2 coefficients: {lo_coeffs}")
    B, terms, hyps, by = sp.Integer(0), [], {}, {}
    for n in range(3, 20):
        q = sp.expand(poly.coeff(h, n))
        if q == 0:
            continue
        aq = sp.Abs(q)
        B += aq
        if n > 3:
            terms.append(aq * (k - 1) * sp.Add(*[k ** i for i in range(n - 3)]) / k ** n)
        x = q if sign > 0 else -q            # the slack is |x| - x >= 0 (x <= |x|)
        if sp.Abs(x) == x:
            continue                          # x >= 0 by assumptions: |x| - x = 0
        if sp.Abs(x) == -x:
            terms.append(-2 * x / k ** n)
            continue
        s = sp.Symbol(f"a{n}", nonnegative=True)
        hyps[s] = sp.Abs(x) - x
        by[s] = AsGap(ByLemma(L.le_abs_difference(), {"x": x, "y": 0}))
        terms.append(s / k ** n)
    return B, terms, hyps, by


# ---------------------------------------------------------------- (32) with its remainder
@register("A2.32.lower", "A2.32.upper", "A2.32")
def a2_32():
    """A2.32.lower, A2.32.upper and A2.32 (|k gap - m2/2| <= C/sqrt(k))."""
    q = k * Ex(F_log(Vbar))
    E = Ex
    step1, taylor = _taylor_step(q, Vbar, E, lambda e: k * e, 2)
    theta = Vbar / (1 + t_L)
    R3 = -Vbar ** 3 / (3 * (1 + theta) ** 3)
    m2, m4 = m[2], m[4]
    mid = m2 / 2 + k * Ex(R3)
    step2 = Step("E Vbar = 0, E Vbar^2 = m2/k", "A.1", eq(k * E(taylor), mid),
                 "linearity; E of powers of a mean of i.i.d. copies (set partitions)", Identity(facts=FACTS_V))
    A3 = (Vbar ** 4) ** sp.Rational(3, 4)          # = |Vbar|^3
    E4 = (3 * (k - 1) * m2 ** 2 + m4) / k ** 3     # E Vbar^4
    C = (3 * m2 ** 2 + m4) ** sp.Rational(3, 4) / (3 * ell ** 3)
    a_ = E4
    b_ = (3 * m2 ** 2 + m4) / k ** 2
    out = []
    for sign, name in ((-1, "lower"), (1, "upper")):
        # remainder: -+ |Vbar|^3/(3 ell^3) vs R3 = -Vbar^3/(3 (ell + rho)^3)
        x = S_V if sign < 0 else -S_V            # slack |S| - x >= 0
        wit = [S_V ** 2 * a_abs / (3 * k ** 3 * (ell + rho) ** 3)] + [
            S_V ** 2 * sp.Abs(S_V) * sp.binomial(3, i) * ell ** (3 - i) * rho ** i / (3 * k ** 3 * ell ** 3 * (ell + rho) ** 3)
            for i in range(1, 4)]
        hyp = NonNegative(wit, {a_abs: sp.Abs(S_V) - x, rho: 1 + theta - ell},
                          by={a_abs: AsGap(ByLemma(L.le_abs_difference(), {"x": x, "y": 0})), rho: _rho_check(0)})
        if sign < 0:
            mono = ByLemma(L.monotone(Ex), {"U": -A3 / (3 * ell ** 3), "V": R3}, context=sp.Lambda(_u, m2 / 2 + k * _u),
                           hyp_checks={0: hyp})
            rel = ge
        else:
            mono = ByLemma(L.monotone(Ex), {"U": R3, "V": A3 / (3 * ell ** 3)}, context=sp.Lambda(_u, m2 / 2 + k * _u),
                           hyp_checks={0: hyp})
            rel = le
        r3 = m2 / 2 + sign * k * Ex(A3) / (3 * ell ** 3)
        r4 = m2 / 2 + sign * k * Ex(Vbar ** 4) ** sp.Rational(3, 4) / (3 * ell ** 3)
        r5 = m2 / 2 + sign * k * E4 ** sp.Rational(3, 4) / (3 * ell ** 3)
        stmt = m2 / 2 + sign * C / sp.sqrt(k)
        ctx = sp.Lambda(_u, m2 / 2 + sign * k * _u / (3 * ell ** 3))
        steps = [
            step1, step2,
            Step("1 + theta >= ell", "A.1", rel(mid, r3),
                 "|Vbar^3/(1+theta)^3| <= |Vbar|^3/ell^3: 1 + theta >= ell since theta lies between 0 and Vbar, "
                 "1 + Vbar >= ell, ell <= 1 (monotonicity of E)", mono),
            Step("Lyapunov", "A.1", rel(r3, r4), "E|Y|^3 <= (E Y^4)^{3/4}: Jensen for the concave u^{3/4} "
                 "(replaces Marcinkiewicz-Zygmund)",
                 ByLemma(L.jensen_concave(Ex), {"F": sp.Lambda(_u, _u ** sp.Rational(3, 4)), "Y": Vbar ** 4},
                         context=ctx)),
            Step("E Vbar^4", "A.1", eq(r4, r5), "E Vbar^4 = (3(k-1) m2^2 + m4)/k^3 (set partitions; E V = 0)",
                 Identity(facts=FACTS_V)),
            Step("k >= 1", "A.1", rel(r5, stmt), "(3(k-1) m2^2 + m4)/k^3 <= (3 m2^2 + m4)/k^2 and u^{3/4} increasing",
                 ByLemma(L.power_monotone(), {"a": a_, "b": b_, "p": sp.Rational(3, 4)}, context=ctx,
                         hyp_checks={1: NonNegative([3 * m2 ** 2 / k ** 3, (k - 1) * m4 / k ** 3])})),
        ]
        out.append(Derivation(
            f"A2.32.{name}", f"(32) with an explicit remainder ({name} bound)", "App. A.1, (31)-(32)",
            q, "ge" if sign < 0 else "le", stmt, steps, list(_ASSUMPTIONS),
            notes="Per anchor: k (log mu - E log muhat) = k E[-log(1 + Vbar)] by (31).  With |s| <= 1, "
                  "ell = e^{-2/tau}, so the constant is e^{6/tau} (3 m2^2 + m4)^{3/4}/3."))
    lo, up = out
    both = Derivation(
        "A2.32", "(32) with an explicit remainder: |k gap - Var/(2 E^2)| <= C/sqrt(k)", "App. A.1, (31)-(32)",
        sp.Abs(q - m2 / 2), "le", C / sp.sqrt(k),
        [Step("both bounds", "(32)", le(sp.Abs(q - m2 / 2), C / sp.sqrt(k)), "A2.32.lower and A2.32.upper",
              ByLemma(L.abs_between(), {"x": q, "c": m2 / 2, "r": C / sp.sqrt(k)},
                      hyp_checks={0: AsGap(ByLemma(cite(lo), {})), 1: AsGap(ByLemma(cite(up), {}))}))],
        list(_ASSUMPTIONS),
        notes="Hence lim_k k (log mu - E log muhat) = m2/2 = Var(X)/(2 mu^2), the rate k^{-1/2} explicit.")
    return [lo, up, both]


# ---------------------------------------------------------------- the expansions with their remainder
def _expansion_pair(name, title, eps, E, c1, c2):
    """EXP.<name>.lower / .upper: c1/k + c2/k^2 -+ B/k^3 around E[-log(1 + eps)]."""
    q = E(F_log(eps))
    step1, taylor = _taylor_step(q, eps, E, lambda e: e, ORDER)
    theta = eps / (1 + t_L)
    N = ORDER + 1
    R = eps ** N / (N * (1 + theta) ** N)                 # F^(6)(theta) eps^6/6! = eps^6/(6 (1+theta)^6)
    ident = Identity(facts=FACTS_V)
    P = sp.expand(ident.difference(E(taylor - R), 0))     # E of the Taylor polynomial: exact in 1/k
    E6 = sp.expand(ident.difference(E(eps ** N), 0))
    head = c1 / k + c2 / k ** 2
    extra = sp.expand(eps - Vbar)
    step2 = Step("i.i.d. means", "", eq(E(taylor), P + E(R)),
                 "E of products of means of k i.i.d. copies (set partitions), E V = 0, E V^n = m_n, E W^n",
                 Identity(facts=FACTS_V))
    out = []
    # eps named by a symbol inside the remainder checks when it is a sum (InfoNCE): the CAS then
    # verifies a polynomial identity in eps instead of expanding (Vbar + W/k)^6
    if extra != 0:
        e_s = random_symbol("eps", real=True)        # Vbar + W/k is random under Ex: so is its name
        ren, defs, th = {eps: e_s}, {e_s: eps}, e_s / (1 + t_L)
    else:
        e_s, ren, defs, th = eps, {}, None, theta
    # lower: the remainder is >= 0
    wit0 = [e_s ** N / (N * (ell + rho) ** N)]
    pos = NonNegative(wit0, {rho: 1 + th - ell}, rename=ren, by={rho: _rho_check(extra, defs)})
    Bl, terms, hyps, by = _poly_tail(P, head, -1)
    lower_stmt = head - Bl / k ** 3
    out.append(Derivation(
        f"EXP.{name}.lower", f"{title}: lower bound with explicit k^-3 remainder", "companion; (11), (32)", q, "ge",
        lower_stmt,
        [step1, step2,
         Step("remainder >= 0", "", ge(P + E(R), P), "eps^6/(6 (1+theta)^6) >= 0 (1 + theta >= ell > 0)",
              ByLemma(L.monotone(E), {"U": 0, "V": R}, context=sp.Lambda(_u, P + _u), hyp_checks={0: pos})),
         Step("k >= 1", "", ge(P, lower_stmt), "q/k^n >= -|q|/k^3 for n >= 3",
              NonNegative(terms, hyps, by=by))],
        list(_ASSUMPTIONS) + ([ANCHOR_READING] if extra != 0 else [])))
    # upper: the remainder is <= eps^6/(6 ell^6)
    wit = [sp.binomial(N, i) * ell ** (N - i) * rho ** i * e_s ** N / (N * ell ** N * (ell + rho) ** N)
           for i in range(1, N + 1)]
    bound = NonNegative(wit, {rho: 1 + th - ell}, rename=ren, by={rho: _rho_check(extra, defs)})
    r3 = P + E(eps ** N) / (N * ell ** N)
    if extra == 0:
        # DCL: E Vbar^6 = [15 (k-1)(k-2) m2^3 + (k-1)(15 m2 m4 + 10 m3^2) + m6]/k^5 <= B6/k^3 (set partitions
        # into blocks of size >= 2; k(k-1).../k^6 <= k^-3), then the Taylor polynomial's tail by |h_n|/k^3
        m2, m3, m4, m6 = m[2], m[3], m[4], m[6]
        B6 = 15 * m2 ** 3 + 15 * m2 * m4 + 10 * m3 ** 2 + m6
        if sp.expand(E6 - (15 * (k - 1) * (k - 2) * m2 ** 3 + (k - 1) * (15 * m2 * m4 + 10 * m3 ** 2) + m6) / k ** 5) != 0:
            raise ValueError("E Vbar^6 is not the set-partition formula")
        w6 = [15 * m2 ** 3 * (3 * (k - 1) + 1) / k ** 5, (15 * m2 * m4 + 10 * m3 ** 2) * ((k - 1) * k + 1) / k ** 5,
              m6 * (k - 1) * (k + 1) / k ** 5]
        Bp, terms, hyps, by = _poly_tail(P, head, 1)
        upper_stmt = head + (Bp + B6 / (N * ell ** N)) / k ** 3
        r5 = P + B6 / (N * ell ** N * k ** 3)
        tail = [Step("E Vbar^6 <= B6/k^3", "", le(P + E6 / (N * ell ** N), r5),
                     "15 m2^3 (k-1)(k-2) + (15 m2 m4 + 10 m3^2)(k-1) + m6 <= k^2 B6 for k >= 1",
                     NonNegative([t / (N * ell ** N) for t in w6])),
                Step("k >= 1", "", le(r5, upper_stmt), "q/k^n <= |q|/k^3 for n >= 3", NonNegative(terms, hyps, by=by))]
    else:
        Q = sp.expand(P + E6 / (N * ell ** N))
        Bu, terms, hyps, by = _poly_tail(Q, head, 1)
        upper_stmt = head + Bu / k ** 3
        tail = [Step("k >= 1", "", le(P + E6 / (N * ell ** N), upper_stmt), "q/k^n <= |q|/k^3 for n >= 3",
                     NonNegative(terms, hyps, by=by))]
    out.append(Derivation(
        f"EXP.{name}.upper", f"{title}: upper bound with explicit k^-3 remainder", "companion; (11), (32)", q, "le",
        upper_stmt,
        [step1, step2,
         Step("1 + theta >= ell", "", le(P + E(R), r3), "eps^6/(6 (1+theta)^6) <= eps^6/(6 ell^6) (monotonicity of E)",
              ByLemma(L.monotone(E), {"U": R, "V": eps ** N / (N * ell ** N)}, context=sp.Lambda(_u, P + _u),
                      hyp_checks={0: bound})),
         Step("E eps^6", "", eq(r3, P + E6 / (N * ell ** N)), "E eps^6 exactly (set partitions)", Identity(facts=FACTS_V))]
        + tail,
        list(_ASSUMPTIONS) + ([Assumption("W = e^{p/tau}/mu > 0 independent of the negatives"), ANCHOR_READING]
                              if extra != 0 else [])))
    return out


@register("EXP.dcl.lower", "EXP.dcl.upper", "EXP.infonce.lower", "EXP.infonce.upper")
def expansion_bounds():
    """EXP.dcl.lower, EXP.dcl.upper, EXP.infonce.lower, EXP.infonce.upper."""
    c = expansion_constants()
    return (_expansion_pair("dcl", "int CE - R~ = -E log(1 + Vbar)", Vbar, Ex, c["c1t"], c["c2t"])
            + _expansion_pair("infonce", "int CE - R = -E log(1 + Vbar + W/k)", Vbar + W / k,
                              ea_of_ex, c["c1"], c["c2"]))


# ---------------------------------------------------------------- the search ratio with its remainder
r_lo = parameter("r_lo", r"r_{\min}", positive=True)     # r_j = 1 + b_j = dM(z, .)/dpi(xi_j) >= r_lo > 0
E_aab = {n: parameter(f"E_aab{n}" if n else "E_aa", rf"\mathbb{{E}}[a^2 b^{{{n}}}]" if n else r"\mathbb{E}[a^2]",
                      **({"nonnegative": True} if n % 2 == 0 else {"real": True})) for n in range(5)}
zeta = sp.Symbol("zeta", nonnegative=True)
zeta_j = sp.Symbol("zeta_j", nonnegative=True)
Abar_s = sp.Sum(af(j), (j, 1, k)) / k
Bbar_s = sp.Sum(bf(j), (j, 1, k)) / k
FACTS_AB = {Ex(af(0)): 0, Ex(bf(0)): 0, **{Ex(bf(0) ** n): E_b[n] for n in E_b},
            **{Ex(af(0) * bf(0) ** n): E_ab[n] for n in E_ab}, **{Ex(af(0) ** 2 * bf(0) ** n): E_aab[n] for n in E_aab}}
_SEARCH_ASSUMPTIONS = [
    Assumption("E a = 0 (a = r (s - E[r s]))", eq(Ex(af(0)), 0)),
    Assumption("E b = 0 (b = r - 1, E r = 1)", eq(Ex(bf(0)), 0)),
    Assumption("r_j = 1 + b_j >= r_lo > 0 for every j", ge(1 + bf(j), r_lo)),
    "a_j = r_j (s_j - E[r s]), b_j = r_j - 1 i.i.d. over the unseen points, r = dM(z, .)/dpi (assumption (B))",
]


def _geometric(order):
    """1/(1+x) = sum_{n<N} (-x)^n + (-x)^N/(1+x) (x != -1): an algebraic identity, checked by the CAS."""
    def concl(x):
        return eq(1 / (1 + x), sp.Add(*[(-x) ** n for n in range(order)]) + (-x) ** order / (1 + x))
    return Lemma(f"finite geometric series (order {order})", "1/(1+x) = sum_(n<N) (-x)^n + (-x)^N/(1+x)",
                 {"x": sp.Symbol("x")}, concl, lambda x: [concl(x)], source="checked")


def _zeta_check():
    """zeta = 1 + Bbar - r_lo >= 0: the mean of the r_j - r_lo >= 0 (monotonicity of sums)."""
    return AsGap(ByLemma(L.sum_monotone(), {"U": sp.Lambda(j, r_lo / k), "V": sp.Lambda(j, (1 + bf(j)) / k), "k": k},
                         hyp_checks={0: NonNegative([zeta_j / k], {zeta_j: 1 + bf(j) - r_lo})}))


def _abs_sum_bound(expr_k):
    """(sum_n |e_n|)/k^3 >= expr_k = sum_{n>=3} e_n/k^n (no terms below k^-3): (bound, NonNegative witness)."""
    B, terms, hyps, by = _poly_tail(expr_k, sp.Integer(0), 1)
    return B, terms, hyps, by


@register("EXP.search-dcl.lower", "EXP.search-dcl.upper")
def search_bounds():
    """search CE - R~ = -(1/tau) E[Abar/(1 + Bbar)] per anchor within d1t/k + d2t/k^2 -+ B/k^3:
    geometric series to order 5, remainder (1/tau) E[Abar Bbar^5/(1 + Bbar)], Cauchy-Schwarz with
    X = Abar Bbar^2, Y = Bbar^3/(1 + Bbar), 1 + Bbar >= r_lo, and E[Abar^2 Bbar^4], E Bbar^6 exact."""
    c = expansion_constants()
    head = c["d1t"] / k + c["d2t"] / k ** 2
    A_, B_ = Abar_s, Bbar_s
    q = -Ex(A_ / (1 + B_)) / tau
    geo = sp.Add(*[(-B_) ** n for n in range(ORDER)])
    rem = A_ * B_ ** ORDER / (1 + B_)
    ident = Identity(facts=FACTS_AB)
    P = sp.expand(ident.difference(-Ex(A_ * geo) / tau, 0))
    X_, Y_ = A_ * B_ ** 2, B_ ** 3 / (1 + B_)
    G = sp.expand(ident.difference(Ex(X_ ** 2), 0))          # E[Abar^2 Bbar^4]
    E6 = sp.expand(ident.difference(Ex(B_ ** 6), 0))         # E Bbar^6
    BG, tG, hG, byG = _abs_sum_bound(G)
    BE, tE, hE, byE = _abs_sum_bound(E6)
    step1 = Step("geometric series", "", eq(q, -Ex(A_ * geo) / tau + Ex(rem) / tau),
                 f"1/(1+B) = sum_(n<{ORDER}) (-B)^n + (-B)^{ORDER}/(1+B)",
                 ByLemma(_geometric(ORDER), {"x": B_}, context=sp.Lambda(_u, -Ex(A_ * _u) / tau),
                         hyp_checks={0: Identity()}))
    step2 = Step("i.i.d. means", "", eq(-Ex(A_ * geo) / tau + Ex(rem) / tau, P + Ex(rem) / tau),
                 "E of products of means (set partitions), E a = E b = 0", Identity(facts=FACTS_AB))
    # E[Y^2] <= E[Bbar^6]/r_lo^2 since (1 + Bbar)^2 >= r_lo^2: the gap is Bbar^6 (2 r_lo zeta + zeta^2)/(r_lo^2 (r_lo + zeta)^2)
    sB = random_symbol("s_B", real=True)             # the random sum_j b_j: its name is random under Ex too
    yb = NonNegative([sB ** 6 * (2 * r_lo * zeta + zeta ** 2) / (k ** 6 * r_lo ** 2 * (r_lo + zeta) ** 2)],
                     {zeta: 1 + sB / k - r_lo}, rename={sp.Sum(bf(j), (j, 1, k)): sB},
                     by={zeta: NonNegative([zeta], {zeta: 1 + B_ - r_lo}, by={zeta: _zeta_check()},
                                           defs={sB: sp.Sum(bf(j), (j, 1, k))})})
    yb_check = AsGap(ByLemma(L.monotone(Ex), {"U": Y_ ** 2, "V": B_ ** 6 / r_lo ** 2}, hyp_checks={0: yb}))
    zeta_by = NonNegative([zeta], {zeta: 1 + B_ - r_lo}, by={zeta: _zeta_check()}, defs={sB: sp.Sum(bf(j), (j, 1, k))})
    y2_pos = AsGap(ByLemma(L.monotone(Ex), {"U": 0, "V": Y_ ** 2}, hyp_checks={0: NonNegative(
        [sB ** 6 / (k ** 6 * (r_lo + zeta) ** 2)], {zeta: 1 + sB / k - r_lo}, rename={sp.Sum(bf(j), (j, 1, k)): sB},
        by={zeta: zeta_by})}))
    out = []
    for sign, name in ((-1, "lower"), (1, "upper")):
        rel = ge if sign < 0 else le
        ctx = sp.Lambda(_u, P + sign * _u / tau)
        s3 = P + sign * sp.Abs(Ex(rem)) / tau
        s4 = P + sign * sp.sqrt(Ex(X_ ** 2)) * sp.sqrt(Ex(Y_ ** 2)) / tau
        s5 = P + sign * sp.sqrt(Ex(X_ ** 2)) * sp.sqrt(Ex(B_ ** 6)) / (r_lo * tau)
        s6 = P + sign * sp.sqrt(Ex(X_ ** 2)) * sp.sqrt(BE / k ** 3) / (r_lo * tau)
        s7 = P + sign * sp.sqrt(BG / k ** 3) * sp.sqrt(BE / k ** 3) / (r_lo * tau)
        Bp, terms, hyps, by = _poly_tail(P, head, sign)
        stmt = head + sign * (Bp + sp.sqrt(BG) * sp.sqrt(BE) / (r_lo * tau)) / k ** 3
        steps = [
            step1, step2,
            Step("x <= |x|", "", rel(P + Ex(rem) / tau, s3), "the remainder by its absolute value",
                 ByLemma(L.le_abs_difference(), {"x": sign * Ex(rem), "y": 0}, context=sp.Lambda(_u, P + sign * _u / tau))),
            Step("Cauchy-Schwarz", "", rel(s3, s4), "|E[X Y]| <= sqrt(E X^2) sqrt(E Y^2), X = Abar Bbar^2, "
                 "Y = Bbar^3/(1 + Bbar)", ByLemma(L.cauchy_schwarz(Ex), {"X": X_, "Y": Y_}, context=ctx)),
            Step("1 + Bbar >= r_lo", "", rel(s4, s5), "E[Bbar^6/(1 + Bbar)^2] <= E[Bbar^6]/r_lo^2",
                 ByLemma(L.sqrt_product_monotone(), {"a": Ex(X_ ** 2), "b": Ex(Y_ ** 2), "c": Ex(B_ ** 6) / r_lo ** 2},
                         context=ctx, hyp_checks={1: y2_pos, 2: yb_check})),
            Step("E Bbar^6", "", rel(s5, s6), "E Bbar^6 (exact, set partitions) <= (sum |e_n|)/k^3",
                 ByLemma(L.sqrt_product_monotone(), {"a": Ex(X_ ** 2), "b": Ex(B_ ** 6), "c": BE / k ** 3},
                         context=sp.Lambda(_u, P + sign * _u / (r_lo * tau)),
                         hyp_checks={2: NonNegative(tE, hE, by=byE, facts=FACTS_AB)})),
            Step("E Abar^2 Bbar^4", "", rel(s6, s7), "E[Abar^2 Bbar^4] (exact, set partitions) <= (sum |g_n|)/k^3",
                 ByLemma(L.sqrt_product_monotone(), {"a": BE / k ** 3, "b": Ex(X_ ** 2), "c": BG / k ** 3},
                         context=sp.Lambda(_u, P + sign * _u / (r_lo * tau)),
                         hyp_checks={2: NonNegative(tG, hG, by=byG, facts=FACTS_AB)})),
            Step("k >= 1", "", rel(s7, stmt), "q/k^n vs |q|/k^3 for n >= 3", NonNegative(terms, hyps, by=by)),
        ]
        out.append(Derivation(
            f"EXP.search-dcl.{name}", f"search CE - R~ = -(1/tau) E[Abar/(1+Bbar)]: {name} bound with explicit k^-3 "
            "remainder", "companion; (12), Lemma 3", q, "ge" if sign < 0 else "le", stmt, steps,
            list(_SEARCH_ASSUMPTIONS)))
    return out


# ---------------------------------------------------------------- A.2's liminf, from A2.32
def a2_liminf(d_ratio, assumptions, errata=(), x=None, a=None):
    """A2.liminf: liminf_k k (int CE - R~) >= (1 - a)(e^{1/tau} - 2)/16 for the example of A.2, concluded
    from (32) with its remainder (A2.32.lower, ell = e^{-2/tau}) and A2.ratio.  ``d_ratio`` is the
    derivation A2.ratio (its ``quantity`` is Var/E^2 of the A.2 law), ``assumptions`` those of A2.ratio."""
    x = sp.exp(1 / tau) if x is None else x
    lo = derivation("A2.32.lower")
    ratio = d_ratio.quantity
    liminf = d_ratio.statement / 2
    e2 = sp.exp(-2 / tau)
    q_k = k * Ex(F_log(Vbar))
    low_k = lo.statement.subs(ell, e2)
    cited = cite("A2.32.lower", {"ell": ell})
    hyps = cited.written_at({"ell": e2})[1]
    idx = next(i for i, h in enumerate(hyps) if not h.has(V))      # e^{-2/tau} <= 1
    Lr = cite(d_ratio)                                   # the sibling built by section3's builder
    m2 = m[2]
    steps = [
        Step("(32) with remainder", "(32)", ge(L.Liminf(q_k, k), L.Liminf(low_k, k)),
             "k gap >= m2/2 - e^{6/tau}(3 m2^2 + m4)^{3/4}/(3 sqrt k) for every k (A2.32.lower, ell = e^{-2/tau})",
             ByLemma(L.liminf_monotone(), {"U": q_k, "V": low_k, "n": k},
                     hyp_checks={0: AsGap(ByLemma(cited, {"ell": e2},
                                                  hyp_checks={idx: NonNegative([e2 * Expm1(2 / tau)])}))})),
        Step("k -> oo", "(32)", eq(L.Liminf(low_k, k), m2 / 2), "the remainder is O(k^{-1/2})",
             ByLemma(L.liminf_of_limit(), {"V": low_k, "n": k, "L": m2 / 2}, hyp_checks={0: LimitCheck()})),
        Step("m2 = Var/E^2", "A.2", eq(m2 / 2, ratio / 2),
             "m2 = E V^2 (A2.32.lower's name) = E(X/mu - 1)^2 = Var(X)/mu^2 is the variance ratio of the A.2 law",
             Identity(defs={m2: Ex(V(0) ** 2)}, facts={Ex(V(0) ** 2): ratio})),
        Step("A2.ratio", "A.2", ge(ratio / 2, liminf), "A2.ratio", ByLemma(Lr, {}, context=sp.Lambda(_u, _u / 2))),
    ]
    ass = list(assumptions) + [
        Assumption("E V^2 = Var(X)/mu^2, the variance ratio of the A.2 law (V = X/mu - 1, mu = E X)",
                   eq(Ex(V(0) ** 2), ratio), derived=True),
        Assumption("E V = 0 (V = X/mu - 1)", eq(Ex(V(0)), 0)),
        Assumption("1 + V_j = X_j/mu >= e^{-2/tau}: |s| <= 1", ge(1 + V(j), e2)),
        "V_j = X_j/mu - 1, X_j = e^{s_j/tau}, s_j the similarity of the j-th negative under the A.2 law; "
        "k (int CE - R~) = k E[-log(1 + Vbar)] per anchor by (31), the same law at every anchor"]
    return Derivation("A2.liminf", "A.2: liminf_k k (CrossEnt - R~) >= (1 - a)(e^{1/tau} - 2)/16",
                      "App. A.2, with (31)-(32)", L.Liminf(q_k, k), "ge", liminf, steps, ass, errata=list(errata))


def __getattr__(name):
    """``DERIVATIONS``: this module's registered results, built by the registry."""
    if name == "DERIVATIONS":
        return [derivation(i) for b in (a2_32, expansion_bounds, search_bounds) for i in b.registered_ids]
    raise AttributeError(name)
