"""Section 4 of the paper (and App. B) as checked chains.

Notation (one tuple z = (z^a, z^+, z_1^-, ..., z_k^-), Delta = phi - phi'):
``Da = ||Delta(z^a)||``, ``Dp = ||Delta(z^+)||``, ``PM = (k^-1 sum_j ||Delta(z_j^-)||^beta)^{1/beta}``
(the symbols of :mod:`infonce_sym.bounds_section4`, whose expressions the final statements equal).
Vectors of R^d are lists of d = 2 real symbols (components); norms that the CAS cannot see
through are nonnegative symbols tied to the components by the quoted Cauchy-Schwarz lemma, and
facts such as ``||xi|| <= 1`` enter as slack hypotheses (named in the step's reason).
Steps citing a quoted lemma are proved *conditional on that lemma*.
"""
from __future__ import annotations

from dataclasses import replace

import sympy as sp
from sympy.core.function import AppliedUndef

from .chain import (AsGap, Assumption as As, ByCases, ByLemma, Derivation, DoitIdentity, ExactInstance, Expm1, Identity, Lemma,
                    LimitCheck, NonNegative, PositiveMultiple, Step, eq, ge, gt, le, lt)
from . import errata as _errata
from . import statements as B4
from . import continuity as C
from . import lemmas as L
from .register import cite, derivation, register

# ---------------------------------------------------------------- symbols (shared with bounds_section4)
tau, k, beta, n, delta = B4.tau, B4.k, B4.beta, B4.n, B4.delta
d_Theta, R, C_Phi, B_tau, a, A = B4.d_Theta, B4.R, B4.C_Phi, B4.B_tau, B4.a, B4.A
Da, Dp, PM, Mx, Mv = B4.Da, B4.Dp, B4.PM, B4.Mx, B4.Mv
Ra, Rp, Nn, B_max = B4.Ra, B4.Rp, B4.Nn, B4.B_max
Lc, U, eps = B4.L, B4.U, B4.eps
D2, R_hat = B4.D2, B4.R_hat

j = sp.Symbol("j", integer=True, positive=True)
i = sp.Symbol("i", integer=True, positive=True)
u_ = sp.Symbol("u")
up = sp.Symbol("u", positive=True)
E = sp.E
_pmf = sp.exp(2 / (beta * tau))

# slack symbols (hypotheses >= 0)
s1, s2, s3, s4, s5, w_ = sp.symbols("s1 s2 s3 s4 s5 w", nonnegative=True)
h_pos = sp.Symbol("h", positive=True)


def _vec(name, d=2, **kw):
    return [sp.Symbol(f"{name}_{r + 1}", real=True, **kw) for r in range(d)]


def _ip(x, y):
    return sp.Add(*[p * q for p, q in zip(x, y)])


def _add(x, y, c=1):
    return [p + c * q for p, q in zip(x, y)]


def _scale(c, x):
    return [c * p for p in x]


def _norm(x):
    return sp.sqrt(sp.Add(*[p ** 2 for p in x]))


def _sqrt_conf():
    return sp.sqrt(sp.log(2 / delta) / (2 * n))


# ================================================================ Lemma 5, Prop. 3
lo = sp.log(1 / k + sp.exp(-2 / tau))            # a of the proof of Prop. 3
hi = sp.log(1 / k + sp.exp(2 / tau))             # b
range_exact = sp.log((1 + k * sp.exp(2 / tau)) / (1 + k * sp.exp(-2 / tau)))
x2 = sp.exp(2 / tau)


L5_T, L5_T2 = sp.symbols("T T'", positive=True)       # Lemma 5: sum_j e^{s_j/tau}, s_j in [-2, 2], for phi and phi'


def _rescaled_loss_in_unit_interval(W):
    """Mohri's hypotheses 3, 4 for g = (l - a)/W, l = log(1/k + T/k): g >= 0 from T >= k e^{-2/tau} and g <= 1
    from T <= k e^{2/tau} (Lemma 5's range of T, shown from unit embeddings), with W := b - a."""
    lower, upper = _T_range(L5_T, TUPLE_EMBEDDINGS["phi_a"], TUPLE_EMBEDDINGS["phi_p"], TUPLE_EMBEDDINGS["phi_n"])
    wdef = {W: hi - lo}
    return {3: NonNegative([sp.log(1 + w_ / (1 + k * sp.exp(-2 / tau))) / W], {w_: L5_T - k * sp.exp(-2 / tau)},
                           by={w_: lower}, defs=wdef),
            4: NonNegative([sp.log(1 + w_ / (1 + L5_T)) / W], {w_: k * x2 - L5_T}, by={w_: upper}, defs=wdef)}


def _similarity_gap(Fa, Fp, Fn):
    """s_j = <phi(z^a), phi(z_j^-) - phi(z^+)> (the exponent of (14) times tau)."""
    return sp.Sum(Fa(C.l) * (Fn(j, C.l) - Fp(C.l)), (C.l, 1, C.d))


def _T_range(T, Fa, Fp, Fn):
    """k e^{-2/tau} <= T <= k e^{2/tau} for T := sum_j e^{s_j/tau}: termwise, from |s_j| <= 2 for unit vectors,
    2 -+ s_j = ||a -+ n_j||^2/2 + ||a +- p||^2/2 (||a|| = ||n_j|| = ||p|| = 1)."""
    sj = _similarity_gap(Fa, Fp, Fn)
    tdef = {T: sp.Sum(sp.exp(sj / tau), (j, 1, k))}
    unit = {sp.Sum(F ** 2, (C.l, 1, C.d)): 1 for F in (Fa(C.l), Fp(C.l), Fn(j, C.l))}
    half_sq = lambda u, v: sp.Sum((u - v) ** 2, (C.l, 1, C.d)) / 2       # noqa: E731
    a_, p_, n_ = Fa(C.l), Fp(C.l), Fn(j, C.l)
    above = NonNegative([half_sq(a_, -n_), half_sq(a_, p_)], facts=unit)    # s_j + 2 >= 0
    below = NonNegative([half_sq(a_, n_), half_sq(a_, -p_)], facts=unit)    # 2 - s_j >= 0
    lower = AsGap(ByLemma(L.sum_monotone(j), {"U": sp.Lambda(j, sp.exp(-2 / tau)), "V": sp.Lambda(j, sp.exp(sj / tau)), "k": k},
                          hyp_checks={0: NonNegative([sp.exp(-2 / tau) * Expm1(s4 / tau)], {s4: sj + 2}, by={s4: above})}),
                  defs=tdef)
    upper = AsGap(ByLemma(L.sum_monotone(j), {"U": sp.Lambda(j, sp.exp(sj / tau)), "V": sp.Lambda(j, x2), "k": k},
                          hyp_checks={0: NonNegative([sp.exp(sj / tau) * Expm1(s5 / tau)], {s5: 2 - sj}, by={s5: below})}),
                  defs=tdef)
    return lower, upper


@register("L5.range", "L5.exact", "L5")
def _lemma5():
    T1, T2 = L5_T, L5_T2
    l1, l2 = sp.log(1 / k + T1 / k), sp.log(1 / k + T2 / k)
    E_ = TUPLE_EMBEDDINGS
    hyp_checks = {}
    for idx, T, fams in ((0, T1, (E_["phi_a"], E_["phi_p"], E_["phi_n"])), (2, T2, (E_["phi'_a"], E_["phi'_p"], E_["phi'_n"]))):
        lower, upper = _T_range(T, *fams)
        hyp_checks[idx] = NonNegative([sp.log(1 + w_ / (1 + k * sp.exp(-2 / tau)))], {w_: T - k * sp.exp(-2 / tau)},
                                      by={w_: lower})
        hyp_checks[idx + 1] = NonNegative([sp.log(1 + w_ / (1 + T))], {w_: k * x2 - T}, by={w_: upper})
    s_range = Step("a <= l <= b", "proof of Lemma 5; proof of Prop. 3",
                   le(sp.Abs(l1 - l2), hi - lo), "both losses lie in [a, b] since |s_j| <= 2",
                   ByLemma(L.abs_diff_interval(), {"x": l1, "y": l2, "lo": lo, "hi": hi}, hyp_checks=hyp_checks))
    s_b_a = Step("b - a", "proof of Lemma 5", eq(hi - lo, range_exact), "algebra", Identity())
    mid = sp.log(x2 * (1 + k * x2) / (x2 + k))
    s_mid = Step("factor e^{2/tau}", "proof of Lemma 5", eq(range_exact, mid), "algebra", Identity())
    top = sp.log(x2 * (x2 + k * x2) / (1 + k))
    s_ineq = Step("e^{2/tau} >= 1", "proof of Lemma 5", le(mid, top), "(1 + k x)/(x + k) <= x for x = e^{2/tau} >= 1",
                  NonNegative([sp.log(1 + Expm1(4 / tau) / (1 + k * x2))]))
    s_end = Step("= 4/tau", "Lemma 5", eq(top, 4 / tau), "algebra", Identity())
    ass = ["l = log(1/k + T/k) with T = sum_j e^{s_j/tau}, s_j = <phi(z^a), phi(z_j^-) - phi(z^+)>; the same for "
           "phi' (T')"] + C.unit_norm_assumptions()
    rng = Derivation("L5.range", "Lemma 5: exact loss range b - a <= 4/tau", "Lemma 5, proof of Prop. 3",
                     hi - lo, "le", 4 / tau, [s_b_a, s_mid, s_ineq, s_end],
                     ["a = log(1/k + e^{-2/tau}), b = log(1/k + e^{2/tau})"])
    exact = Derivation("L5.exact", "Lemma 5 with the exact range", "Lemma 5 (sharper)", sp.Abs(l1 - l2), "le",
                       range_exact, [s_range, s_b_a], ass)
    l5 = Derivation("L5", "Lemma 5: |l(phi) - l(phi')| <= 4/tau", "Lemma 5, App. B", sp.Abs(l1 - l2), "le", 4 / tau,
                    [s_range, s_b_a, s_mid, s_ineq, s_end], ass)
    return [rng, exact, l5]


P3_RAD = sp.Symbol("Rad", real=True)      # Rad of Prop. 3 (the constants explorer re-weights it)


@register("P3.exact", "P3")
def _prop3():
    Rpop, Eg, gbar = sp.symbols("R_pop Eg gbar", real=True)
    Radg, Radl = sp.Symbol("Rad_g", real=True), P3_RAD
    W = sp.Symbol("W", positive=True)
    c = sp.Symbol("c_delta", positive=True)          # sqrt(log(2/delta)/(2n))
    cdef = {c: _sqrt_conf()}
    g_of_loss = (sp.log(1 / k + L5_T / k) - lo) / W     # g = (l - a)/W at a generic sample, T as in Lemma 5
    s1_ = Step("rescale", "proof of Prop. 3", eq(Rpop, lo + W * Eg), "g = (l - a)/(b - a), W = b - a; E g = (R - a)/W",
               Identity(defs={Eg: (Rpop - lo) / W}))
    mid = lo + W * (gbar + 2 * Radg + 3 * c)
    s2_ = Step("(34)", "(34)", le(lo + W * Eg, mid), "Mohri et al. (2018, Thm 3.3) for g in [0, 1], times W > 0, plus a",
               ByLemma(L.mohri_3_3(), {"Eg": Eg, "mean": gbar, "Rad": Radg, "n": n, "delta": delta, "g": g_of_loss},
                       context=sp.Lambda(u_, lo + W * u_),
                       hyp_checks={2: NonNegative([h_pos], {h_pos: 1 - delta}), **_rescaled_loss_in_unit_interval(W)},
                       defs=cdef))
    s3_ = Step("undo the rescaling", "proof of Prop. 3", eq(mid, R_hat + 2 * W * Radg + 3 * W * c),
               "mean_i g = (R_hat - a)/W", Identity(defs={gbar: (R_hat - lo) / W}))
    s4_ = Step("Rademacher invariance", "proof of Prop. 3",
               eq(R_hat + 2 * W * Radg + 3 * W * c, R_hat + 2 * Radl + 3 * W * c),
               "Rad of the rescaled class = Rad(l)/W",
               ByLemma(L.rademacher_affine(), {"Radg": Radg, "Radl": Radl, "W": W},
                       context=sp.Lambda(u_, R_hat + 2 * W * u_ + 3 * W * c)))
    exact_rhs = R_hat + 2 * Radl + 3 * range_exact * c
    s5_ = Step("W = b - a", "proof of Prop. 3", eq(R_hat + 2 * Radl + 3 * W * c, exact_rhs), "b - a exactly",
               Identity(defs={W: hi - lo}))
    s5b = Step("confidence term", "Prop. 3", eq(exact_rhs, exact_rhs.subs(cdef)), "c_delta = sqrt(log(2/delta)/(2n))",
               Identity(defs=cdef))
    s6_ = Step("b - a <= 4/tau", "Prop. 3; Lemma 5", le(exact_rhs, R_hat + 2 * Radl + 12 / tau * c),
               "derivation L5.range", ByLemma(cite("L5.range"), {},
                                              context=sp.Lambda(up, R_hat + 2 * Radl + 3 * up * c)))
    s7_ = Step("confidence term", "Prop. 3", eq(R_hat + 2 * Radl + 12 / tau * c, (R_hat + 2 * Radl + 12 / tau * c).subs(cdef)),
               "c_delta = sqrt(log(2/delta)/(2n))", Identity(defs=cdef))
    ass = [As("0 < delta < 1", lt(delta, 1)),
           # Mohri's E g and sample mean of g, named in its words, at g = (l - a)/W: linearity of the expectation and mean
           As("E g = (R_pop - a)/W: g = (l - a)/W and R_pop = E l (linearity of the expectation)", eq(Eg, (Rpop - lo) / W)),
           As("mean_i g(Z_i) = (R_hat - a)/W: g = (l - a)/W and R_hat the sample mean of l", eq(gbar, (R_hat - lo) / W)),
           # positive names: c_delta (then log(2/delta) > 0) and W = b - a (log increasing, e^{2/tau} > e^{-2/tau})
           As("c_delta = sqrt(log(2/delta)/(2n)) > 0 (delta < 1)", gt(_sqrt_conf(), 0), derived=True),
           As("W = b - a > 0 (log is increasing)", gt(hi - lo, 0), derived=True),
           "with probability >= 1 - delta (the event of Mohri's theorem), simultaneously for all phi in Phi",
           "R_pop = R(phi; k, tau) = E R_hat_n; Rad = E[sup_phi n^-1 sum sigma_i l(phi, Z_i) | Z_1..Z_n]",
           "(A): Z_1, ..., Z_n i.i.d. (Mohri et al., Thm 3.3, needs an i.i.d. sample)",
           "l = log(1/k + T/k) at a sample, T = sum_j e^{s_j/tau} as in Lemma 5; g = (l - a)/W with W = b - a > 0 "
           "is [0, 1]-valued (shown from the range of T); Rad_g = E[sup_phi n^-1 sum sigma_i g(phi, Z_i) | Z_1..Z_n], "
           "the Rademacher complexity of the rescaled class, and Eg, gbar its mean and sample mean"] + [
        a_ for a_ in C.unit_norm_assumptions() if "phi'" not in a_.text]
    ex = Derivation("P3.exact", "Prop. 3 with the exact range 3 (b - a)", "Prop. 3 (sharper constant)", Rpop, "le",
                    exact_rhs.subs(cdef), [s1_, s2_, s3_, s4_, s5_, s5b], ass)
    p3 = Derivation("P3", "Proposition 3: R <= R_hat + 2 Rad + (12/tau) sqrt(log(2/delta)/(2n))", "Prop. 3, App. B",
                    Rpop, "le", (R_hat + 2 * Radl + 12 / tau * c).subs(cdef), [s1_, s2_, s3_, s4_, s5_, s6_, s7_], ass)
    return [ex, p3]


# ================================================================ Lemma 6 (Gateaux derivative)
ve = sp.Symbol("epsilon", real=True)       # the Gateaux increment
fx, fy, fz1, fz2 = (_vec(nm) for nm in ("f_x", "f_y", "f_z1", "f_z2"))
hx, hy, hz1, hz2 = (_vec(nm) for nm in ("eta_x", "eta_y", "eta_z1", "eta_z2"))
wts = sp.symbols("w_1 w_2", positive=True)
FZ, HZ = [fz1, fz2], [hz1, hz2]


def H35(fx_, fy_, fzs, w=wts):
    """(35) for mu = sum_j w_j delta_{z_j}: log sum_j w_j e^{<f(x), f(z_j) - f(y)>/tau}."""
    return sp.log(sp.Add(*[wj * sp.exp(_ip(fx_, _add(fz, fy_, -1)) / tau) for wj, fz in zip(w, fzs)]))


def G36(fx_, fzs, gzs, w=wts):
    """(36): sum_j w_j g(z_j) e^{<f(x), f(z_j)>/tau} / sum_j w_j e^{<f(x), f(z_j)>/tau} (a vector)."""
    ex_ = [wj * sp.exp(_ip(fx_, fz) / tau) for wj, fz in zip(w, fzs)]
    den = sp.Add(*ex_)
    return [sp.Add(*[e_ * gz[r] for e_, gz in zip(ex_, gzs)]) / den for r in range(len(fx_))]


def lemma6_formula(fx_, fy_, fzs, hx_, hy_, hzs, w=wts):
    """Lemma 6: (1/tau)[<eta(x), G(f, f) - f(y)> + <f(x), G(f, eta) - eta(y)>]."""
    return (_ip(hx_, _add(G36(fx_, fzs, fzs, w), fy_, -1)) + _ip(fx_, _add(G36(fx_, fzs, hzs, w), hy_, -1))) / tau


def lemma6_second(fx_, fy_, fzs, hx_, hy_, hzs, w=wts):
    """Second Gateaux derivative: (2/tau)<eta(x), G(f, eta) - eta(y)> + tau^-2 Var_p[<f(x), eta(z)> + <eta(x), f(z)>],
    p the softmax weights p_j = w_j e^{<f(x), f(z_j)>/tau} / sum."""
    ex_ = [wj * sp.exp(_ip(fx_, fz) / tau) for wj, fz in zip(w, fzs)]
    den = sp.Add(*ex_)
    p = [e_ / den for e_ in ex_]
    Aj = [_ip(fx_, hz) + _ip(hx_, fz) for fz, hz in zip(fzs, hzs)]
    mean = sp.Add(*[pj * x for pj, x in zip(p, Aj)])
    var = sp.Add(*[pj * x ** 2 for pj, x in zip(p, Aj)]) - mean ** 2
    return 2 * _ip(hx_, _add(G36(fx_, fzs, hzs, w), hy_, -1)) / tau + var / tau ** 2


@register("L6", "L6.second")
def _lemma6():
    """Lemma 6 and its second derivative in R^d for every d, mu finitely supported (proofs.continuity)."""
    return _declared(C.build_lemma6())


@register("L6.path")
def _lemma6_path():
    """(43) as an integral along xi_c = (1 - c) phi + c phi', citing L6 (every d, k)."""
    return _declared(C.build_lemma6_path(derivation("L6")))


# ================================================================ Lemma 7, Lemma 8 (App. B), in R^d (proofs.continuity)
@register("L7")
def _lemma7():
    return _declared(C.build_lemma7())


@register("L8")
def _lemma8():
    """Lemma 8 with G = sum_j p_j Delta(z_j^-) represented; cites L7."""
    return _declared(C.build_lemma8(derivation("L7")))


# ================================================================ Prop. 4 and its sharpened form (proofs.continuity), (18)
def _quoted(name, statement, concl):
    return Lemma(name, statement, {}, lambda: concl)


@register("P4.47", "P4.47.plus", "P4.47.minus")
def _norm_lemmas():
    """(47): norms of xi = (1 - c) phi + c phi' (and xi +- Delta) for unit phi, phi', c in [0, 1]."""
    return _declared(C.build_norm_lemmas())


@register("P4.48", "P4.G1")
def _softmax_norms():
    """(48): norms of the softmax averages G(xi, .) of (36)."""
    return _declared(C.build_softmax_norms([derivation(i_) for i_ in ("P4.47", "P4.47.plus", "P4.47.minus")]))


@register("P4", "P4.sharp")
def build_prop4(consts=(4, 1, 3), sharp=(2, 1, 1)):
    """[P4, P4.sharp] with constants c_a, c_p, c_n of (c_a Da + c_p Dp + c_n e^{2/(beta tau)} PM)/tau: (43) cites
    L6.path, (47)/(48) cite P4.47*, P4.48, P4.G1, (49) cites L8.  Constants the argument does not support fail at a
    named step (the explorer calls this with other constants and gets an unregistered variant)."""
    return _declared(C.build_prop4(derivation("L8"), consts, sharp, l6p=derivation("L6.path"),
                                   helpers=[derivation(i_) for i_ in C.HELPER_IDS]))


@register("L18.linear", "L18")
def _lemma18():
    """(17)-(18) for one negative, vectors of R^d for every d (indexed sums over the coordinates l)."""
    F = {nm: sp.Function(nm, real=True) for nm in ("u_a", "u_p", "u_m", "v_a", "v_p", "v_m")}
    ua, upl, um, va, vp, vm = (C.vec(F[nm](C.l)) for nm in ("u_a", "u_p", "u_m", "v_a", "v_p", "v_m"))
    lc, dim = C.l, C.d
    minus = lambda x, y: C.vec(x(lc) - y(lc))  # noqa: E731
    Dm = sp.Symbol("Dm", nonnegative=True)
    q = sp.Abs(C.ip(ua, minus(upl, um)) - C.ip(va, minus(vp, vm)))
    K1 = C.ip(minus(ua, va), minus(upl, um))
    dd = C.vec((upl(lc) - vp(lc)) - (um(lc) - vm(lc)))
    K2 = C.ip(va, dd)
    l1 = Step("split", "(18)", eq(q, sp.Abs(K1 + K2)), "<u^a, u^+ - u^-> - <v^a, v^+ - v^-> = <u^a - v^a, u^+ - u^-> + "
              "<v^a, Delta^+ - Delta^->", C.SumIdentity())
    l2 = Step("triangle", "(18)", le(sp.Abs(K1 + K2), sp.Abs(K1) + sp.Abs(K2)), "",
              ByLemma(L.triangle_n(), {"xs": [K1, K2]}))
    c1 = C.norm(minus(ua, va)) * C.norm(minus(upl, um))
    c2 = C.norm(va) * C.norm(dd)
    l3 = Step("Cauchy-Schwarz 1", "(18)", le(sp.Abs(K1) + sp.Abs(K2), c1 + sp.Abs(K2)), "in R^d",
              ByLemma(L.cauchy_schwarz_sum(), {"u": minus(ua, va), "v": minus(upl, um), "d": dim},
                      context=sp.Lambda(up, up + sp.Abs(K2))))
    l4 = Step("Cauchy-Schwarz 2", "(18)", le(c1 + sp.Abs(K2), c1 + c2), "in R^d",
              ByLemma(L.cauchy_schwarz_sum(), {"u": va, "v": dd, "d": dim}, context=sp.Lambda(up, c1 + up)))
    Npm, Nva, Ndd = sp.symbols("N_pm N_va N_dd", nonnegative=True)
    names = {Da: C.norm(minus(ua, va)), Npm: C.norm(minus(upl, um)), Nva: C.norm(va), Ndd: C.norm(dd)}
    l5 = Step("norms", "(18)", eq(c1 + c2, Da * Npm + Nva * Ndd), "name the norms", Identity(defs=names))
    unit = {C.ip(x_, x_): 1 for x_ in (upl, um, va)}
    ndefs = {Npm: names[Npm], Nva: names[Nva], Ndd: names[Ndd], Dp: C.norm(minus(upl, vp)), Dm: C.norm(minus(um, vm))}
    l6 = Step("unit vectors", "(18)", le(Da * Npm + Nva * Ndd, 2 * Da + Dp + Dm),
              "||u^+ - u^-|| <= ||u^+|| + ||u^-|| = 2 and ||Delta^+ - Delta^-|| <= ||Delta^+|| + ||Delta^-|| (Minkowski), "
              "||v^a|| = 1",
              NonNegative([Da * s1, Ndd * s2, s3], {s1: 2 - Npm, s2: 1 - Nva, s3: Dp + Dm - Ndd},
                          by={s1: AsGap(ByLemma(L.minkowski_sum(), {"x": upl, "y": C.vec(-um(lc)), "d": dim}),
                                        defs={**ndefs, **unit}),
                              s2: NonNegative([], defs={**ndefs, **unit}),
                              s3: AsGap(ByLemma(L.minkowski_sum(), {"x": minus(upl, vp), "y": C.vec(vm(lc) - um(lc)),
                                                                    "d": dim}), defs=ndefs)}))
    l7 = Step("Cauchy-Schwarz in R^3", "(18)", le(2 * Da + Dp + Dm, sp.sqrt(6) * sp.sqrt(Da ** 2 + Dp ** 2 + Dm ** 2)),
              "(2, 1, 1) has norm sqrt(6)", ByLemma(L.cauchy_schwarz_vectors(), {"a": [2, 1, 1], "b": [Da, Dp, Dm]}))
    ass18 = ["u^a, u^+, u^- (phi at z^a, z^+, z_j^-) and v^a, v^+, v^- (phi') vectors of R^d (every d); Delta = u - v; "
             "Da = ||Delta^a||, Dp = ||Delta^+||, Dm = ||Delta^-|| (one negative j)"]
    ass18 += [As(f"||{nm}|| = 1 (unit embeddings)", eq(unit_key, 1))
              for nm, unit_key in zip(("u^+", "u^-", "v^a"), unit)]
    lin = Derivation("L18.linear", "(17)-(18) per negative: |dv_j| tau <= 2 Da + Dp + D_j", "(18) (companion)", q, "le",
                     2 * Da + Dp + Dm, [l1, l2, l3, l4, l5, l6], ass18)
    l18 = Derivation("L18", "(18) per negative: |dv_j| tau <= sqrt(6) (Da^2 + Dp^2 + D_j^2)^{1/2}", "(18)", q, "le",
                     sp.sqrt(6) * sp.sqrt(Da ** 2 + Dp ** 2 + Dm ** 2), [l1, l2, l3, l4, l5, l6, l7], ass18,
                     errata=[_errata.get("18-sqrt6")])
    return _declared([lin, l18])


# ================================================================ (15)-(17), then (18): the Lipschitz route
@register("L17")
def _lipschitz_route():
    sp_, sq_ = sp.symbols("s_+ s'_+", real=True)          # <phi(z^a), phi(z^+)>, the same for phi'
    sf, sqf = sp.Function("s", real=True), sp.Function("s'", real=True)   # <phi(z^a), phi(z_j^-)>, ...
    ell = lambda a_, b_: sp.log(1 / k + sp.Sum(sp.exp((b_(j) - a_) / tau), (j, 1, k)) / k)  # noqa: E731  (14)
    v = sp.Lambda(j, (sp_ - sf(j)) / tau)                 # (15)
    w = sp.Lambda(j, (sq_ - sqf(j)) / tau)
    llog = lambda vv: sp.log(1 + sp.Sum(sp.exp(-vv(j)), (j, 1, k)))  # noqa: E731
    q = sp.Abs(ell(sp_, sf) - ell(sq_, sqf))
    s15 = Step("(15)", "(15), (14)", eq(q, sp.Abs(llog(v) - llog(w))),
               "l(phi, z, k, tau) = l^log(v) - log k with v_j = <phi(z^a), phi(z^+) - phi(z_j^-)>/tau", Identity())
    Vinf = sp.Symbol("V_inf", nonnegative=True)           # max_j |v_j - v'_j|
    s16 = Step("(16)", "(16)", le(sp.Abs(llog(v) - llog(w)), Vinf),
               "l^log is 1-Lipschitz for the sup norm [Lei et al. 2019]",
               ByLemma(L.logsumexp_lipschitz(), {"v": v, "w": w, "m": Vinf, "k": k},
                       hyp_checks={0: NonNegative([s1], {s1: Vinf - sp.Abs(v(j) - w(j))})}))
    # (17) is an assumption of the statement, not a definition the CAS checks: s_+, s_j are opaque functions here,
    # and v_j - v'_j = (<phi(z^a), phi(z^+) - phi(z_j^-)> - <phi'(z^a), ...>)/tau is the meaning of the names
    s17 = Step("(17)", "(17)", eq(Vinf, Mv / tau), "v_j - v'_j = (<phi(z^a), phi(z^+) - phi(z_j^-)> - <phi'(z^a), ...>)/tau",
               Identity(facts={Vinf: Mv / tau}))
    ass = ["(14): l = log(1/k + k^-1 sum_j e^{(s_j - s_+)/tau}), s_+ = <phi(z^a), phi(z^+)>, s_j = <phi(z^a), phi(z_j^-)>; "
           "s'_+, s'_j the same for phi'",
           As("V_inf = max_j |v_j - v'_j|, so V_inf >= |v_j - v'_j| for every j (definition of the max)",
              ge(Vinf, sp.Abs(v(j) - w(j)))),
           As("(17): V_inf = Mv/tau with Mv = max_j |<phi(z^a), phi(z^+) - phi(z_j^-)> - <phi'(z^a), phi'(z^+) - phi'(z_j^-)>| "
              "(assumed: it is what s_+ = <phi(z^a), phi(z^+)> and s_j = <phi(z^a), phi(z_j^-)> make of v_j - v'_j, which "
              "this chain's opaque s_+, s_j do not carry)", eq(Vinf, Mv / tau), derived=True)]
    l17 = Derivation("L17", "(15)-(17): |l(phi) - l(phi')| <= (1/tau) max_j |<phi(z^a), phi(z^+) - phi(z_j^-)> - <phi'...>|",
                     "(15), (16), (17)", q, "le", B4.BOUNDS["lipschitz17"], [s15, s16, s17], ass)
    return l17


@register("L17-18")
def _lipschitz_route_18():
    l17, l18 = derivation("L17"), derivation("L18")
    Dm = sp.Symbol("Dm", nonnegative=True)
    q = l17.quantity
    first = l17.steps
    s18 = Step("(18) at the maximising j*", "(18)", le(Mv / tau, l18.statement / tau),
               "Mv = |dv_{j*}| tau for a maximising j*; derivation L18 with Dm = ||Delta(z_{j*}^-)||",
               ByLemma(cite("L18"), {}, context=sp.Lambda(u_, u_ / tau),
                       defs={Mv: l18.quantity}))
    s_mx = Step("Dm <= max_j", "(18)", le(l18.statement / tau, B4.BOUNDS["lipschitz18"]),
                "||Delta(z_{j*}^-)|| <= Mx = max_j ||Delta(z_j^-)||; sqrt is increasing",
                ByLemma(_quoted("Dm <= Mx", "||Delta(z_{j*}^-)||^2 <= max_j ||Delta(z_j^-)||^2", le(Dm ** 2, Mx ** 2)), {},
                        context=sp.Lambda(up, sp.sqrt(6) / tau * sp.sqrt(Da ** 2 + Dp ** 2 + up))))
    return _declared(Derivation("L17-18", "(17)-(18): |l(phi) - l(phi')| <= (sqrt 6/tau)(Da^2 + Dp^2 + max_j ||Delta(z_j^-)||^2)^{1/2}",
                      "(15)-(18)", q, "le", B4.BOUNDS["lipschitz18"], first + [s18, s_mx],
                      l17.assumptions + [a_ for a_ in l18.structured_assumptions() if a_.rel is not None]
                      + [As("Dm = ||Delta(z_{j*}^-)|| at a maximising j*, Mx = max_j ||Delta(z_j^-)||, so Dm^2 <= Mx^2",
                            le(Dm ** 2, Mx ** 2))],
                      errata=[_errata.get("18-sqrt6")]))


@register("L17.linear")
def _lipschitz_route_linear():
    """(17) with (18)'s linear companion: |l(phi) - l(phi')| <= (2 Da + Dp + max_j ||Delta(z_j^-)||)/tau, the
    form the LIP-17-linear check attacks (its bound was an unregistered expression; a probe, Dec 2026)."""
    l17, lin = derivation("L17"), derivation("L18.linear")
    Dm = sp.Symbol("Dm", nonnegative=True)
    s18 = Step("(18) linear at the maximising j*", "(18)", le(Mv / tau, lin.statement / tau),
               "Mv = |dv_{j*}| tau for a maximising j*; derivation L18.linear with Dm = ||Delta(z_{j*}^-)||",
               ByLemma(cite("L18.linear"), {}, context=sp.Lambda(u_, u_ / tau), defs={Mv: lin.quantity}))
    s_mx = Step("Dm <= max_j", "(18)", le(lin.statement / tau, B4.BOUNDS["lipschitz17_linear"]),
                "||Delta(z_{j*}^-)|| <= Mx = max_j ||Delta(z_j^-)||",
                ByLemma(_quoted("Dm <= Mx", "||Delta(z_{j*}^-)|| <= max_j ||Delta(z_j^-)||", le(Dm, Mx)), {},
                        context=sp.Lambda(up, (2 * Da + Dp + up) / tau)))
    return _declared(Derivation("L17.linear", "(17) with (18)'s linear form: |l(phi) - l(phi')| <= (2 Da + Dp + max_j "
                                "||Delta(z_j^-)||)/tau", "(15)-(18)", l17.quantity, "le",
                                B4.BOUNDS["lipschitz17_linear"], l17.steps + [s18, s_mx],
                                l17.assumptions + [a_ for a_ in lin.structured_assumptions() if a_.rel is not None]
                                + [As("Dm = ||Delta(z_{j*}^-)|| at a maximising j*, Mx = max_j ||Delta(z_j^-)||, so "
                                      "Dm <= Mx", le(Dm, Mx))]))


# ================================================================ Lemma 1: (50)-(52), both temperature cases
dth = sp.Symbol("Dtheta", positive=True)          # ||theta - theta'||
naf, npf = sp.Function("n_a", nonnegative=True), sp.Function("n_p", nonnegative=True)   # ||z_i^a||, ||z_i^+||
zf = sp.Function("z", nonnegative=True)           # z(i, j) = ||z_ij^-||
dlf = sp.Function("dl", nonnegative=True)         # |l(phi_theta, z_i) - l(phi_theta', z_i)|
# Prop. 5 uses Lemma 1 at theta' = theta0 too: its own names for that pair, never the (theta, theta') ones
dl0f = sp.Function("dl_0", nonnegative=True)      # |l(phi_theta, z_i) - l(phi_theta0, z_i)|
dth0 = sp.Symbol("Dtheta_0", positive=True)       # ||theta - theta0||
Da0f, Dp0f = (sp.Function(nm, nonnegative=True) for nm in ("Da_0", "Dp_0"))
Daf, Dpf = (sp.Function(nm, nonnegative=True) for nm in ("Da", "Dp"))   # Da, Dp of tuple i
# Prop. 4's embeddings of one tuple (phi_a(l) = phi(z^a)_l, ...) and, for Lemma 1, those of tuple i: phi_a(i, l), ...
TUPLE_EMBEDDINGS = {"phi_a": C.phi_a, "phi_p": C.phi_p, "phi_n": C.phi_n, "phi'_a": C.psi_a, "phi'_p": C.psi_p,
                    "phi'_n": C.psi_n}
OF_TUPLE_I = {nm: sp.Lambda((j, C.l), f(i, j, C.l)) if nm.endswith("_n") else sp.Lambda(C.l, f(i, C.l))
              for nm, f in TUPLE_EMBEDDINGS.items()}


# the embeddings of tuple i under phi_theta0 (Lemma 1's phi' at theta' = theta0)
AT_THETA0 = {nm: sp.Function(nm.replace("phi'", "phi0"), real=True) for nm in TUPLE_EMBEDDINGS if nm.startswith("phi'")}


def _unit_norms_of_tuple_i(at_theta0=False):
    """Prop. 4's unit-norm assumptions at the embeddings of tuple i (Lemma 1 cites (50) at every tuple);
    ``at_theta0``: those of phi_theta0 (Lemma 1 at theta' = theta0)."""
    out = []
    for a in C.unit_norm_assumptions():
        rel, text = a.rel, a.text.replace("z_j^-", "z_ij^-").replace("z^", "z_i^") + ", every tuple i"
        for nm, f in TUPLE_EMBEDDINGS.items():
            rel = rel.replace(f, OF_TUPLE_I[nm])
        if at_theta0:
            if "phi'" not in text:
                continue
            for nm, f0 in AT_THETA0.items():
                rel = rel.replace(TUPLE_EMBEDDINGS[nm], f0)
            text = text.replace("phi'", "phi_0")
        out.append(As(text, rel, every=_tuple_indices(rel)))
    return out
_avg = lambda e_: sp.Sum(e_, (i, 1, n)) / n       # noqa: E731
_rms = lambda e_: sp.sqrt(_avg(e_ ** 2))          # noqa: E731

zn = sp.Function("z_n", nonnegative=True)         # ||z_j^-|| of one tuple (L1.50; Lemma 1's z(i, j))
# ||Delta(z_j^-)|| = ||phi(z_j^-) - phi'(z_j^-)|| of one tuple
_D_NEG = sp.sqrt(sp.Sum((C.phi_n(j, C.l) - C.psi_n(j, C.l)) ** 2, (C.l, 1, C.d)))
# PM = (k^-1 sum_j ||Delta(z_j^-)||^beta)^{1/beta}, Prop. 4's definition (a test compares it with P4's); built
# here, not read from P4's run, so that building L1.50 does not run Prop. 4's chain
_PM_OF_TUPLE = (sp.Sum(sp.Sum((C.phi_n(j, C.l) - C.psi_n(j, C.l)) ** 2, (C.l, 1, C.d)) ** (beta / 2), (j, 1, k)) / k) ** (1 / beta)


def _c_at_negatives(at_tuple_i=False, at_theta0=False):
    """(C) at every negative: ||Delta(z_j^-)|| <= C_Phi ||theta - theta'|| ||z_j^-|| (one tuple; or tuple i, or
    tuple i with theta' = theta0)."""
    rel = le(_D_NEG, C_Phi * dth * zn(j))
    if not at_tuple_i:
        return As("(C) at every z_j^-: ||Delta(z_j^-)|| <= C_Phi ||theta - theta'|| ||z_j^-||", rel, every=(j,))
    rel = rel.replace(C.phi_n, OF_TUPLE_I["phi_n"]).replace(C.psi_n, OF_TUPLE_I["phi'_n"]).replace(zn, sp.Lambda(j, zf(i, j)))
    if at_theta0:
        rel = rel.replace(C.psi_n, AT_THETA0["phi'_n"]).xreplace({dth: dth0})
        return As("(C) at z_ij^- for (theta, theta0), every tuple i and j", rel, every=(i, j))
    return As("(C) at z_ij^-, every tuple i and j", rel, every=(i, j))


def _tuple_indices(rel):
    """The tuple's index i and the negative's index j that an assumption "for every tuple i (and j)" mentions: it is
    read so, and a citation carries it so (Lemma.from_derivation)."""
    return tuple(v for v in (i, j) if v in sp.sympify(rel).free_symbols)


def _pm_at_most(m, pm_def):
    """C_Phi ||theta - theta'|| m - PM >= 0 with m := (k^-1 sum_j ||z_j^-||^beta)^{1/beta}: termwise (C) raised to the
    power beta > 0, summed, then u -> (u/k)^{1/beta} (increasing); the factor C_Phi ||theta - theta'|| comes out."""
    cz = C_Phi * dth * zn(j)
    w = sp.Symbol("w_PM", nonnegative=True)
    top = (sp.Sum(cz ** beta, (j, 1, k)) / k) ** (1 / beta)
    mono = AsGap(ByLemma(L.sum_monotone(j), {"U": sp.Lambda(j, _D_NEG ** beta), "V": sp.Lambda(j, cz ** beta), "k": k},
                         context=sp.Lambda(up, (up / k) ** (1 / beta)),
                         hyp_checks={0: AsGap(ByLemma(L.power_monotone(), {"a": _D_NEG, "b": cz, "p": beta}))}),
                 defs={PM: pm_def})
    return NonNegative([w], {w: top - PM}, defs={m: (sp.Sum(zn(j) ** beta, (j, 1, k)) / k) ** (1 / beta), PM: pm_def},
                       by={w: mono})


def build_lemma1_tuple(p4, consts, tag):
    """(50) for one tuple: Prop. 4 (or its sharpened form; an id, or an explorer's variant) and (C)."""
    p4 = derivation(p4) if isinstance(p4, str) else p4
    ca, cp, cn = consts
    dl, na, npos, m = sp.Symbol("dl", nonnegative=True), *sp.symbols("n_a n_p m", nonnegative=True)
    b4 = p4.statement
    s_p4 = Step(p4.id, p4.paper_ref, le(dl, b4), f"derivation {p4.id}; dl = |l(phi_theta, z) - l(phi_theta', z)|",
                ByLemma(cite(p4), {}, defs={dl: p4.quantity}))
    stmt = C_Phi * dth / tau * (ca * na + cp * npos + cn * _pmf * m)
    s_c = Step("(C)", "(50), (C)", le(b4, stmt),
               "(C): ||Delta(z)|| <= C_Phi ||z|| ||theta - theta'|| for Delta = phi_theta - phi_theta', hence "
               "PM <= C_Phi ||theta - theta'|| m (the power mean is monotone and homogeneous)",
               NonNegative([ca * s1 / tau, cp * s2 / tau, cn * _pmf * s3 / tau],
                           {s1: C_Phi * dth * na - Da, s2: C_Phi * dth * npos - Dp, s3: C_Phi * dth * m - PM},
                           by={s3: _pm_at_most(m, _PM_OF_TUPLE)}))
    d = Derivation(f"L1.50{tag}", f"(50) for one tuple, with Prop. 4's constants {list(consts)} (the paper's (50) puts "
                   f"4/tau on every term)", "(50), with Prop. 4's constants", dl, "le", stmt, [s_p4, s_c],
                   [As("(C) at z^a: ||Delta(z^a)|| <= C_Phi ||z^a|| ||theta - theta'||", le(Da, C_Phi * dth * na)),
                    As("(C) at z^+", le(Dp, C_Phi * dth * npos)),
                    As("beta >= 1", ge(beta, 1)),
                    _c_at_negatives(),
                    "n_a = ||z^a||, n_p = ||z^+||, m = (k^-1 sum_j ||z_j^-||^beta)^{1/beta}; "
                    "dl = |l(phi_theta, z) - l(phi_theta', z)|, Dtheta = ||theta - theta'||"]
                   + C.unit_norm_assumptions())
    d.params = dict(dl=dl, na=na, np=npos, m=m, zn=zn, **TUPLE_EMBEDDINGS)
    return _declared(d)


@register("L1.50")
def _lemma1_tuple():
    return build_lemma1_tuple("P4", (4, 1, 3), "")


@register("L1.50.sharp")
def _lemma1_tuple_sharp():
    return build_lemma1_tuple("P4.sharp", (2, 1, 1), ".sharp")


def _nn_at(power):
    """((nk)^-1 sum_ij ||z_ij^-||^{2/power})^{power/2}: Lemma 1's Nn at power = 1 ^ tau."""
    return (sp.Sum(sp.Sum(zf(i, j) ** (2 / power), (j, 1, k)), (i, 1, n)) / (n * k)) ** (power / 2)


def _nn_steps(around, case):
    """``around`` (a Lambda) at Nn at the case's power (tau, or 1) = ``around`` at Nn with Lemma 1's one definition,
    Nn = ((nk)^-1 sum_ij ||z_ij^-||^{2/(1 ^ tau)})^{(1 ^ tau)/2}: the same name in both cases (defined per case, a
    chain citing both read only the first meaning)."""
    w = sp.Symbol("w", positive=True)
    branch = {"p": sp.Integer(1), "q": tau} if case == "lt1" else {"p": tau, "q": sp.Integer(1)}
    nn = _nn_at(sp.Min(1, tau))
    return [Step("1 ^ tau", "Lemma 1", eq(around(_nn_at(branch["q"])), around(nn)),
                 "1 ^ tau = tau for tau < 1" if case == "lt1" else "1 ^ tau = 1 for tau >= 1",
                 ByLemma(L.min_branch(), branch, context=sp.Lambda(w, around(_nn_at(w))))),
            Step("Nn", "(52), Lemma 1", eq(around(nn), around(Nn)),
                 "Nn = ((nk)^-1 sum_ij ||z_ij^-||^{2/(1 ^ tau)})^{(1 ^ tau)/2}", Identity(defs={Nn: nn}))]


def build_lemma1(l50, consts, case, tag, paper):
    """rho_n <= ... for one temperature case of (52): case 'lt1' (tau < 1, beta = 2/tau) or 'ge1'
    (tau >= 1, beta = 1 v 2/tau in [1, 2] with beta tau = tau v 2 >= 2)."""
    l50 = derivation(l50) if isinstance(l50, str) else l50
    ca, cp, cn = consts
    b = 2 / tau if case == "lt1" else beta
    pmf = sp.exp(2 / (b * tau))
    S = sp.Lambda(i, sp.Sum(zf(i, j) ** b, (j, 1, k)) / k)          # m_i^beta
    m = sp.Lambda(i, S(i) ** (1 / b))
    V = sp.Lambda(i, C_Phi * dth / tau * (ca * naf(i) + cp * npf(i) + cn * pmf * m(i)))
    q = _rms(dlf(i))
    P = l50.params
    L50 = cite(l50, {"dl": P["dl"], "na": P["na"], "np": P["np"], "m": P["m"], "beta": beta,
                     "Da": Da, "Dp": Dp, "zn": P["zn"], **{nm: P[nm] for nm in TUPLE_EMBEDDINGS}})
    sub50 = {"dl": dlf(i), "na": naf(i), "np": npf(i), "m": m(i), "beta": b, "Da": Daf(i), "Dp": Dpf(i),
             "zn": sp.Lambda(j, zf(i, j)), **OF_TUPLE_I}
    beta_check = {2: NonNegative([1 / tau, s2 / tau], {s2: 1 - tau})} if case == "lt1" else {}
    s50 = Step("(50)", "(50)", le(q, _rms(V(i))),
               f"per tuple: derivation {l50.id}; squares, average over i, square root",
               ByLemma(L.sum_monotone(i), {"U": sp.Lambda(i, dlf(i) ** 2), "V": sp.Lambda(i, V(i) ** 2), "k": n},
                       context=sp.Lambda(up, sp.sqrt(up / n)),
                       hyp_checks={0: NonNegative([s1 * (V(i) + dlf(i))], {s1: V(i) - dlf(i)},
                                                  by={s1: AsGap(ByLemma(L50, sub50, hyp_checks=beta_check))})}))
    inner = _rms(ca * naf(i) + cp * npf(i) + cn * pmf * m(i))
    pre = C_Phi * dth / tau
    s_f = Step("factor", "(50)", eq(_rms(V(i)), pre * inner), "C_Phi ||theta - theta'||/tau > 0", Identity())
    mk = pre * (_rms(ca * naf(i)) + _rms(cp * npf(i)) + _rms(cn * pmf * m(i)))
    s51 = Step("(51)", "(51)", le(pre * inner, mk), "triangle inequality in R^n (Minkowski)",
               ByLemma(L.minkowski_mean(), {"xs": [sp.Lambda(i, ca * naf(i)), sp.Lambda(i, cp * npf(i)),
                                                   sp.Lambda(i, cn * pmf * m(i))], "n": n},
                       context=sp.Lambda(up, pre * up)))
    Ra_, Rp_ = _rms(naf(i)), _rms(npf(i))
    neg = _rms(m(i))
    s_c = Step("constants out", "(51)", eq(mk, pre * (ca * Ra_ + cp * Rp_ + cn * pmf * neg)), "", Identity())
    head = pre * (ca * Ra_ + cp * Rp_)
    steps = [s50, s_f, s51, s_c]
    if case == "lt1":
        # m_i^2 = S_i^tau; Jensen for the concave u^tau (tau < 1), then sqrt
        jen = sp.sqrt(_avg(S(i)) ** tau)
        steps.append(Step("(52), tau < 1: Jensen", "(52)", le(pre * (ca * Ra_ + cp * Rp_ + cn * pmf * neg), head + cn * E * pre * jen),
                          "beta = 2/tau: e^{2/(beta tau)} = e, m_i^2 = S_i^tau; u -> u^tau concave for tau <= 1",
                          ByLemma(L.jensen_concave_power(i), {"p": sp.Lambda(i, 1 / n), "S": S, "g": tau, "k": n},
                                  context=sp.Lambda(up, head + cn * E * pre * sp.sqrt(up)),
                                  hyp_checks={0: NonNegative([s1], {s1: 1 - tau}), 2: DoitIdentity()})))
        steps.append(Step("Nn at tau < 1", "(52), Lemma 1", eq(head + cn * E * pre * jen, head + cn * E * pre * _nn_at(tau)),
                          "((nk)^-1 sum_ij ||z_ij^-||^{2/tau})^{tau/2}", Identity()))
        steps += _nn_steps(sp.Lambda(up, head + cn * E * pre * up), case)
        ass_case = [As("tau < 1", lt(tau, 1)), "beta = 2/tau"]
    else:
        # m_i^2 = S_i^{2/beta} <= k^-1 sum_j z_ij^2 (power means, beta <= 2), then e^{2/(beta tau)} <= e
        m2 = _rms(sp.sqrt(sp.Sum(zf(i, j) ** 2, (j, 1, k)) / k))
        steps.append(Step("(52), tau >= 1: power means", "(52)",
                          le(pre * (ca * Ra_ + cp * Rp_ + cn * pmf * neg), head + cn * pmf * pre * m2),
                          "(k^-1 sum_j z^beta)^{2/beta} <= k^-1 sum_j z^2 for beta <= 2, termwise over i under sqrt",
                          ByLemma(L.sum_monotone(i), {"U": sp.Lambda(i, m(i) ** 2),
                                                      "V": sp.Lambda(i, sp.Sum(zf(i, j) ** 2, (j, 1, k)) / k), "k": n},
                                  context=sp.Lambda(up, head + cn * pmf * pre * sp.sqrt(up / n)),
                                  hyp_checks={0: AsGap(ByLemma(L.power_mean_monotone(j),
                                                               {"p": sp.Lambda(j, 1 / k), "a": sp.Lambda(j, zf(i, j)),
                                                                "r": beta, "s": 2, "k": k},
                                                               hyp_checks={0: NonNegative([s2], {s2: 2 - beta}),
                                                                           2: DoitIdentity()}))})))
        steps.append(Step("e^{2/(beta tau)} <= e", "(52)", le(head + cn * pmf * pre * m2, head + cn * E * pre * m2),
                          "beta tau = tau v 2 >= 2", NonNegative([cn * pre * m2 * pmf * Expm1(s3 / (beta * tau))],
                                                                 {s3: beta * tau - 2})))
        steps.append(Step("Nn at tau >= 1", "(52), Lemma 1", eq(head + cn * E * pre * m2, head + cn * E * pre * _nn_at(sp.Integer(1))),
                          "((nk)^-1 sum_ij ||z_ij^-||^2)^{1/2}", Identity()))
        steps += _nn_steps(sp.Lambda(up, head + cn * E * pre * up), case)
        ass_case = [As("tau >= 1", ge(tau, 1)), "beta = 1 v 2/tau", As("beta >= 1", ge(beta, 1)), As("beta <= 2", le(beta, 2)),
                    As("beta tau = tau v 2 >= 2", ge(beta * tau, 2))]
    last = head + cn * E * pre * Nn
    proof_form = C_Phi / tau * (ca * Ra + cp * Rp + cn * E * Nn) * dth
    steps.append(Step("Ra, Rp", "Lemma 1", eq(last, proof_form), "Ra = (n^-1 sum ||z_i^a||^2)^{1/2}, Rp likewise",
                      Identity(defs={Ra: Ra_, Rp: Rp_})))
    stmt = proof_form
    if paper:
        stmt = B4.BOUNDS["lemma1_L"] * dth
        steps.append(Step("<= 4e B_tau", "Lemma 1", le(proof_form, B4.BOUNDS["lemma1_L"].subs(B_tau, Ra + Rp + Nn) * dth),
                          "4 <= 4e, 1 <= 4e, 3e <= 4e",
                          NonNegative([(4 * E - ca) * Ra * pre, (4 * E - cp) * Rp * pre, (4 - cn) * E * Nn * pre])))
        steps.append(Step("B_tau", "Lemma 1", eq(B4.BOUNDS["lemma1_L"].subs(B_tau, Ra + Rp + Nn) * dth, stmt),
                          "B_tau = Ra + Rp + Nn", Identity(defs={B_tau: Ra + Rp + Nn})))
    which = "Lemma 1" if paper else f"Lemma 1 with constants {list(consts)}"
    title = f"{which}, case {'tau < 1' if case == 'lt1' else 'tau >= 1'} of (52): rho_n <= " + (
        "(4e/tau) B_tau C_Phi ||theta - theta'||" if paper else "(C_Phi/tau)(%s Ra + %s Rp + %s e Nn) ||theta - theta'||" % consts)
    d = _declared(Derivation(f"L1{tag}.{'tau-lt-1' if case == 'lt1' else 'tau-ge-1'}", title, "Lemma 1, (50)-(52), App. B",
                      q, "le", stmt, steps,
                      [As("(C) at z_i^a, every tuple i", le(Daf(i), C_Phi * dth * naf(i)), every=(i,)),
                       As("(C) at z_i^+, every tuple i", le(Dpf(i), C_Phi * dth * npf(i)), every=(i,)),
                       _c_at_negatives(at_tuple_i=True),
                       "(C); n tuples z_i, dl(i) = |l(phi_theta, z_i) - l(phi_theta', z_i)|, rho_n = (n^-1 sum_i dl(i)^2)^{1/2}",
                       "n_a(i) = ||z_i^a||, n_p(i) = ||z_i^+||, z(i, j) = ||z_ij^-||; Dtheta = ||theta - theta'||"] + ass_case
                      + ([_b_tau_positive()] if paper else []) + _unit_norms_of_tuple_i(),
                      errata=[_errata.get("L1-beta")] + ([_errata.get("L1-loose")] if paper else [])))
    # for all theta, theta': Prop. 5 instantiates theta' = theta0 (its own names for that pair)
    d.params = {"dl": dlf, "Dtheta": dth, "Da": Daf, "Dp": Dpf, **{nm: TUPLE_EMBEDDINGS[nm] for nm in AT_THETA0}}
    return d


def lemma1_at_theta0(lid):
    """Lemma 1 (derivation ``lid``) at theta' = theta0: rho_n(phi_theta, phi_theta0) <= L ||theta - theta0||."""
    l1 = derivation(lid)
    at = getattr(l1, "at_theta0", None) or {"dl": dl0f, "Dtheta": dth0, "Da": Da0f, "Dp": Dp0f, **AT_THETA0}
    return ByLemma(cite(l1, l1.params), at)


@register("L1.tau-lt-1", "L1.tau-ge-1")
def _lemma1():
    return [build_lemma1("L1.50", (4, 1, 3), case, "", True) for case in ("lt1", "ge1")]


@register("L1.sharp.tau-lt-1", "L1.sharp.tau-ge-1")
def _lemma1_sharp():
    return [build_lemma1("L1.50.sharp", (2, 1, 1), case, ".sharp", False) for case in ("lt1", "ge1")]


# ================================================================ Lemma 1 by the Lipschitz route (17)-(18)
def _l1718_names():
    """The names of derivation L17-18's statement and assumptions, and of L18's quantity (which defines its Mv)."""
    d, l18 = derivation("L17-18"), derivation("L18")
    found = {}
    for e in [d.quantity, d.statement, l18.quantity] + [a_.rel for a_ in d.structured_assumptions() if a_.rel is not None]:
        e = sp.sympify(e)
        for sym in e.free_symbols:
            found.setdefault(sym.name, sym)
        for f in e.atoms(AppliedUndef):
            found.setdefault(f.func.__name__, f.func)
    return found


# L17-18's names that a tuple carries (similarities, the max of (16)-(17), the embeddings u = phi, v = phi' of (18)), and
# those of them that depend on phi' (at theta' = theta0 they are phi_theta0's: names of their own)
_LIP_NAMES = ("s_+", "s'_+", "s", "s'", "V_inf", "Mv", "Dm", "u_a", "u_p", "u_m", "v_a", "v_p", "v_m")
# (u_m too: phi at the negative j* that maximises |v_j - v'_j|, which depends on the pair; a review, Dec 2026)
_LIP_OF_PHI_PRIME = ("s'_+", "s'", "V_inf", "Mv", "Dm", "u_m", "v_a", "v_p", "v_m")
Mxf, zmaxf = sp.Function("Mx", nonnegative=True), sp.Function("z_max", nonnegative=True)   # of tuple i
Mx0f = sp.Function("Mx_0", nonnegative=True)      # Mx of tuple i for (theta, theta0)


def _lip_tuple_functions(names, suffix=""):
    """{name: the function of tuple i (and of the name's own argument) that stands for it}, declared as the name is."""
    out = {}
    for nm, old in names.items():
        if isinstance(old, sp.Symbol):
            out[nm] = sp.Function(old.name + suffix, **old.assumptions0)
        else:
            out[nm] = sp.Function(old.__name__ + suffix, real=True)
    return out


def _at_tuple_i(fns, names):
    """The value at tuple i: f(i) for a symbol of L17-18, Lambda(v, f(i, v)) for one of its functions."""
    v = sp.Symbol("v_arg", integer=True, positive=True)
    return {nm: fns[nm](i) if isinstance(names[nm], sp.Symbol) else sp.Lambda(v, fns[nm](i, v)) for nm in fns}


@register("L1.lip.tuple")
def _lemma1_lip_tuple():
    """(17)-(18) and (C) for one tuple: |l(phi_theta, z) - l(phi_theta', z)| <= (sqrt 6/tau) C_Phi ||theta - theta'||
    (||z^a||^2 + ||z^+||^2 + max_j ||z_j^-||^2)^{1/2} (the Lipschitz route's counterpart of (50))."""
    l1718 = derivation("L17-18")
    dl, na, npos, zm = sp.Symbol("dl", nonnegative=True), *sp.symbols("n_a n_p z_max", nonnegative=True)
    cd = C_Phi * dth
    s_a = Step("L17-18", "(17)-(18)", le(dl, l1718.statement), "derivation L17-18; dl = |l(phi_theta, z) - l(phi_theta', z)|",
               ByLemma(cite(l1718), {}, defs={dl: l1718.quantity}))
    b, c = Da ** 2 + Dp ** 2 + Mx ** 2, cd ** 2 * (na ** 2 + npos ** 2 + zm ** 2)
    stmt = sp.sqrt(6) / tau * cd * sp.sqrt(na ** 2 + npos ** 2 + zm ** 2)
    s_c = Step("(C)", "(C)", le(l1718.statement, stmt),
               "(C): ||Delta(z)|| <= C_Phi ||theta - theta'|| ||z|| at z^a, z^+ and the negative with the largest ||Delta||; "
               "sqrt is increasing",
               ByLemma(L.sqrt_product_monotone(), {"a": 6 / tau ** 2, "b": b, "c": c},
                       hyp_checks={2: NonNegative([s1 * (cd * na + Da), s2 * (cd * npos + Dp), s3 * (cd * zm + Mx)],
                                                  {s1: cd * na - Da, s2: cd * npos - Dp, s3: cd * zm - Mx})}))
    ass = ([As("(C) at z^a: ||Delta(z^a)|| <= C_Phi ||z^a|| ||theta - theta'||", le(Da, cd * na)),
            As("(C) at z^+", le(Dp, cd * npos)),
            As("(C) at the negative z_j*^- with the largest ||Delta||, and ||z_j*^-|| <= z_max = max_j ||z_j^-||: "
               "Mx = max_j ||Delta(z_j^-)|| <= C_Phi ||theta - theta'|| z_max", le(Mx, cd * zm))]
           # L17-18's own, read as it reads them: those on its indices (the negative j) for every value
           + [replace(a_, every=tuple(sorted(set(a_.every) | (sp.sympify(a_.rel).free_symbols & l1718.indices()),
                                             key=sp.default_sort_key))) if a_.rel is not None else a_
              for a_ in l1718.structured_assumptions()]
           + ["n_a = ||z^a||, n_p = ||z^+||, z_max = max_j ||z_j^-||; dl = |l(phi_theta, z) - l(phi_theta', z)|, "
              "Dtheta = ||theta - theta'||"])
    d = Derivation("L1.lip.tuple", "(17)-(18) and (C) for one tuple: dl <= (sqrt 6/tau) C_Phi ||theta - theta'|| "
                   "(||z^a||^2 + ||z^+||^2 + max_j ||z_j^-||^2)^{1/2}", "(15)-(18), (C)", dl, "le", stmt, [s_a, s_c], ass)
    names = _l1718_names()
    d.params = dict(dl=dl, na=na, np=npos, zm=zm, Da=Da, Dp=Dp, Mx=Mx, **{nm: names[nm] for nm in _LIP_NAMES})
    return _declared(d)


@register("L1.lip")
def _lemma1_lip():
    """Lemma 1 by the Lipschitz route: derivation L1.lip.tuple at every tuple i, squares averaged:
    rho_n <= (sqrt 6/tau) C_Phi B_max ||theta - theta'||, B_max = (n^-1 sum_i (||z_i^a||^2 + ||z_i^+||^2
    + max_j ||z_ij^-||^2))^{1/2} (the constant ``lipschitz_route_L`` of the Prop. 5 comparison)."""
    tup = derivation("L1.lip.tuple")
    names = _l1718_names()
    fns = _lip_tuple_functions({nm: names[nm] for nm in _LIP_NAMES})
    inst = {"dl": dlf(i), "na": naf(i), "np": npf(i), "zm": zmaxf(i), "Da": Daf(i), "Dp": Dpf(i), "Mx": Mxf(i),
            **_at_tuple_i(fns, names)}
    lem = cite(tup, tup.params)
    concl, hyps = lem.written_at(inst)
    W_i = concl.rhs
    s_a = Step("per tuple", "(17)-(18), (C)", le(_rms(dlf(i)), _rms(W_i)),
               "derivation L1.lip.tuple at every tuple i; squares, average over i, square root",
               ByLemma(L.sum_monotone(i), {"U": sp.Lambda(i, dlf(i) ** 2), "V": sp.Lambda(i, W_i ** 2), "k": n},
                       context=sp.Lambda(up, sp.sqrt(up / n)),
                       hyp_checks={0: NonNegative([s1 * (W_i + dlf(i))], {s1: W_i - dlf(i)},
                                                  by={s1: AsGap(ByLemma(lem, inst))})}))
    cd = C_Phi * dth
    inner = sp.sqrt(_avg(naf(i) ** 2 + npf(i) ** 2 + zmaxf(i) ** 2))
    s_f = Step("factor", "", eq(_rms(W_i), sp.sqrt(6) / tau * cd * inner), "C_Phi ||theta - theta'||/tau > 0", Identity())
    stmt = B4.BOUNDS["lipschitz_route_L"] * dth
    s_b = Step("B_max", "", eq(sp.sqrt(6) / tau * cd * inner, stmt),
               "B_max = (n^-1 sum_i (||z_i^a||^2 + ||z_i^+||^2 + max_j ||z_ij^-||^2))^{1/2}", Identity(defs={B_max: inner}))
    rels = [a_ for a_ in tup.structured_assumptions() if a_.rel is not None]
    ass = [As(a_.text + ", every tuple i", h, derived=a_.derived, every=_tuple_indices(h)) for a_, h in zip(rels, hyps)]
    ass.append("(C); n tuples z_i; dl(i) = |l(phi_theta, z_i) - l(phi_theta', z_i)|, rho_n = (n^-1 sum_i dl(i)^2)^{1/2}; "
               "n_a(i) = ||z_i^a||, n_p(i) = ||z_i^+||, z_max(i) = max_j ||z_ij^-||; Dtheta = ||theta - theta'||")
    d = _declared(Derivation("L1.lip", "Lemma 1 by the Lipschitz route (17)-(18): rho_n <= (sqrt 6/tau) C_Phi B_max "
                             "||theta - theta'||", "(15)-(18), (C)", _rms(dlf(i)), "le", stmt, [s_a, s_f, s_b], ass))
    # for all theta, theta': Prop. 5 instantiates theta' = theta0 (the names that depend on phi' get their own there)
    prime = {nm: fns[nm] for nm in _LIP_OF_PHI_PRIME}
    d.params = {"dl": dlf, "Dtheta": dth, "Da": Daf, "Dp": Dpf, "Mx": Mxf, **prime}
    d.at_theta0 = {"dl": dl0f, "Dtheta": dth0, "Da": Da0f, "Dp": Dp0f, "Mx": Mx0f,
                   **_lip_tuple_functions({nm: names[nm] for nm in _LIP_OF_PHI_PRIME}, "_0")}
    return d


def _lip_hypotheses_at_theta0():
    """L1.lip's hypotheses at theta' = theta0 (its citation there), as assumptions of a statement that cites it so."""
    l1 = derivation("L1.lip")
    _, hyps = cite(l1, l1.params).written_at(l1.at_theta0)
    rels = [a_ for a_ in l1.structured_assumptions() if a_.rel is not None]
    return [As(a_.text.replace(", every tuple i", " for (theta, theta0), every tuple i"), h, derived=a_.derived,
               every=_tuple_indices(h))
            for a_, h in zip(rels, hyps) if h != a_.rel]


# ================================================================ Prop. 5
def _rho_n():
    """rho_n(phi_theta, phi_theta') = (n^-1 sum_i dl(i)^2)^{1/2}: the quantity of Lemma 1."""
    return _rms(dlf(i))


def _rho0_n():
    """rho_n(phi_theta, phi_theta0) = (n^-1 sum_i dl_0(i)^2)^{1/2}: the distance to the centre of the class."""
    return _rms(dl0f(i))


def _b_tau_positive():
    """B_tau = Ra + Rp + Nn > 0, which the paper's Lemma 1 and Prop. 5 use (B_tau is a positive name there)."""
    return As("B_tau = Ra + Rp + Nn > 0: some input norm is not 0 (if every one is, (C) makes the class one "
              "function and rho_n = 0)", gt(Ra + Rp + Nn, 0))


def _l1_hypotheses():
    """What Lemma 1 (both cases) needs, as assumptions of a statement that cites it."""
    return [As("(C) at z_i^a, every tuple i", le(Daf(i), C_Phi * dth * naf(i)), every=(i,)),
            As("(C) at z_i^+, every tuple i", le(Dpf(i), C_Phi * dth * npf(i)), every=(i,)),
            _c_at_negatives(at_tuple_i=True)] \
        + _unit_norms_of_tuple_i()


def _beta_facts():
    """Lemma 1's case tau >= 1 assumes 1 <= beta <= 2 and beta tau >= 2: shown from beta := 1 v 2/tau (the
    paper's definition, made here) and tau >= 1 (the case)."""
    bdef = {beta: sp.Max(1, 2 / tau)}
    t1 = sp.Symbol("t_tau", nonnegative=True)          # tau - 1 >= 0: the case's condition
    return [(ge(beta, 1), "beta := 1 v 2/tau", ByLemma(L.max_above(), {"p": 2 / tau, "q": 1}, defs=bdef)),
            (le(beta, 2), "beta := 1 v 2/tau and 2/tau <= 2",
             ByLemma(L.max_below(), {"p": 1, "q": 2 / tau, "c": 2}, defs=bdef,
                     hyp_checks={1: NonNegative([2 * t1 / tau], {t1: tau - 1})})),
            (ge(beta * tau, 2), "beta := 1 v 2/tau, so beta tau = tau v 2",
             ByLemma(L.max_above(), {"p": 1, "q": 2 / tau}, context=sp.Lambda(up, tau * up), defs=bdef))]


def _l1_hypotheses_at_theta0():
    """Lemma 1's hypotheses at theta' = theta0: (C) for that pair and unit embeddings under phi_theta0."""
    return [As("(C) at z_i^a for (theta, theta0), every tuple i", le(Da0f(i), C_Phi * dth0 * naf(i)), every=(i,)),
            As("(C) at z_i^+ for (theta, theta0), every tuple i", le(Dp0f(i), C_Phi * dth0 * npf(i)), every=(i,)),
            _c_at_negatives(at_tuple_i=True, at_theta0=True)] \
        + _unit_norms_of_tuple_i(at_theta0=True)


_P5_LOGN = sp.Function("logN", nonnegative=True)      # log N(eps, Phi, rho_n) in P5.chaining
_P5_RHO0 = sp.Symbol("rho_0", nonnegative=True)       # max_phi rho_n(phi, phi_0)
_P5_D = sp.Symbol("D", positive=True)               # the radius of the class about phi_0


@register("P5.chaining.M", "P5.chaining")
def _chaining():
    """Dudley's entropy integral as (54) uses it, from its source: the chaining lemma [Shalev-Shwartz and
    Ben-David, 2014, Lemma 27.4] for the loss vectors A = {(l(phi, z_i))_{i<=n}: phi in Phi} of R^n, whose
    Euclidean distances are sqrt(n) rho_n.  With a_k = c 2^-k/sqrt(n) the chaining sum is a lower Darboux sum,
    (6c/n) 2^-k = (12/sqrt n)(a_k - a_{k+1}); letting M -> oo leaves (12/sqrt n) int_0^D, which the paper's
    24/sqrt n bounds (erratum P5-dudley-source)."""
    kk = L.CHAIN_K
    M = sp.Symbol("M", positive=True, integer=True)
    c = sp.Symbol("c", positive=True)
    D = _P5_D
    rho0 = _P5_RHO0
    Rad = sp.Symbol("Rad", real=True)
    logN = _P5_LOGN
    logNA = sp.Function("logN_A", nonnegative=True)      # log N(r, A), Euclidean covers of R^n
    g = sp.Lambda(up, sp.sqrt(logN(up)))
    ak = sp.Lambda(kk, c * 2 ** (-kk) / sp.sqrt(n))
    first = c * 2 ** (-M) / sp.sqrt(n)
    head = 6 * c / n
    J = lambda top: sp.Integral(g(eps), (eps, 0, top))  # noqa: E731
    uml = L.chaining_uml(kk)
    c1, _ = uml.written_at({"Rad": Rad, "logNA": sp.Lambda(up, logNA(up)), "m": n, "c": c, "M": M})
    st1 = Step("chaining", "(54); [Shalev-Shwartz and Ben-David, 2014, Lemma 27.4]", c1,
              "Lemma 27.4 for the loss vectors A of R^n (m = n), R(A) = Rad",
              ExactInstance(uml, {"Rad": Rad, "logNA": sp.Lambda(up, logNA(up)), "m": n, "c": c, "M": M}))
    sumA = sp.Sum(2 ** (-kk) * sp.sqrt(logNA(c * 2 ** (-kk))), (kk, 1, M))
    sumN = sp.Sum(2 ** (-kk) * g(ak(kk)), (kk, 1, M))
    # the loss vectors a_phi = (l(phi, z_i))_i: ||a_phi - a_phi'|| = sqrt(n) rho_n(phi, phi'), with dl(i) = |l(phi, z_i) -
    # l(phi', z_i)| at a generic pair (dl_0 for the pair (phi, phi_0))
    lipschitz = {"L": sp.sqrt(n), "dist": sp.sqrt(sp.Sum(dlf(i) ** 2, (i, 1, n))), "rho": _rho_n()}
    transfer = AsGap(ByLemma(L.covering_lipschitz_image(),
                             {"logNA": sp.Lambda(up, logNA(up)), "logN": sp.Lambda(up, logN(up)), "r": ak(kk), **lipschitz},
                             context=sp.Lambda(up, sp.sqrt(up))))
    st2 = Step("covers of Phi cover A", "(54)", le(first + head * sumA, first + head * sumN),
              "an (r/sqrt n)-cover of Phi in rho_n gives an r-cover of A: N(c 2^-k, A) <= N(a_k, Phi, rho_n), since "
              "||a_phi - a_phi'|| = sqrt(n) rho_n(phi, phi')",
              ByLemma(L.sum_monotone(kk), {"U": sp.Lambda(kk, 2 ** (-kk) * sp.sqrt(logNA(c * 2 ** (-kk)))),
                                           "V": sp.Lambda(kk, 2 ** (-kk) * g(ak(kk))), "k": M},
                      context=sp.Lambda(up, first + head * up),
                      hyp_checks={0: NonNegative([2 ** (-kk) * s1], {s1: g(ak(kk)) - sp.sqrt(logNA(c * 2 ** (-kk)))},
                                                 by={s1: transfer})}))
    darboux = sp.Sum((ak(kk) - ak(kk + 1)) * g(ak(kk)), (kk, 1, M))
    st3 = Step("a lower Darboux sum", "(54)", eq(first + head * sumN, first + 12 / sp.sqrt(n) * darboux),
              "(6c/n) 2^-k = (12/sqrt n)(a_k - a_{k+1}), a_k = c 2^-k/sqrt(n)", Identity())
    st4 = Step("sum <= integral", "(54)", le(first + 12 / sp.sqrt(n) * darboux, first + 12 / sp.sqrt(n) * J(ak(1))),
              "g = sqrt(log N(., Phi, rho_n)) >= 0 is non-increasing (a cover at radius eps covers at every larger radius)",
              ByLemma(L.darboux_lower_sum(kk), {"g": g, "a": ak, "M": M}, context=sp.Lambda(up, first + 12 / sp.sqrt(n) * up),
                      hyp_checks={3: AsGap(ByLemma(L.covering_non_increasing(), {"logN": sp.Lambda(up, logN(up))},
                                                   context=sp.Lambda(up, sp.sqrt(up))))}))
    # c = min_abar max_a ||a - abar|| <= max_phi ||a_phi - a_phi0|| = sqrt(n) max_phi rho_n(phi, phi0) <= sqrt(n) rho_0
    radius = AsGap(ByLemma(L.radius_lipschitz_image(),
                           {"c": c, "L": sp.sqrt(n), "rho0": rho0, "dist0": sp.sqrt(sp.Sum(dl0f(i) ** 2, (i, 1, n))),
                            "rho": _rho0_n()}))
    st5 = Step("up to D", "(54)", le(first + 12 / sp.sqrt(n) * J(ak(1)), first + 12 / sp.sqrt(n) * J(D)),
              "a_1 = c/(2 sqrt n) <= D",
              ByLemma(L.integral_upper_limit(), {"g": g, "a": ak(1), "b": D}, context=sp.Lambda(up, first + 12 / sp.sqrt(n) * up),
                      hyp_checks={1: NonNegative([s2, s3 / sp.sqrt(n), c / (2 * sp.sqrt(n))],
                                                 {s2: D - rho0, s3: sp.sqrt(n) * rho0 - c}, by={s3: radius})}))
    st6 = Step("c <= sqrt(n) D", "(54)", le(first + 12 / sp.sqrt(n) * J(D), D * 2 ** (-M) + 12 / sp.sqrt(n) * J(D)),
              "c 2^-M/sqrt(n) <= D 2^-M", NonNegative([2 ** (-M) * s2, 2 ** (-M) * s3 / sp.sqrt(n)],
                                                      {s2: D - rho0, s3: sp.sqrt(n) * rho0 - c}, by={s3: radius}))
    ass = [As("the class lies within D of phi_0 in rho_n: rho_0 <= D", ge(D, rho0)),
           "Rad = E sup_phi n^-1 sum_i sigma_i l(phi, z_i) = R(A) of (26.5) for the loss vectors A = {a_phi = (l(phi, "
           "z_i))_{i <= n}} of R^n; logN_A and logN are the log covering numbers of A (Euclidean) and of Phi in rho_n; "
           "dl(i) = |l(phi, z_i) - l(phi', z_i)|, dl_0(i) = |l(phi, z_i) - l(phi_0, z_i)|; c = min_abar max_{a in A} "
           "||a - abar||, the radius of A in Lemma 27.4 (the chaining lemma holds for that c, not for any smaller); if A "
           "is one point, Rad = 0 and the bound is trivial, so c > 0",
           As("rho_0 bounds the distances to phi_0: rho_n(phi, phi_0) <= rho_0 for every phi", le(_rho0_n(), rho0))]
    chain_m = Derivation("P5.chaining.M", "Dudley's entropy integral for each M: Rad <= D 2^-M + (12/sqrt n) int_0^D "
                         "sqrt(log N(eps)) deps", "(54); [Shalev-Shwartz and Ben-David, 2014, Lemma 27.4]", Rad, "le",
                         D * 2 ** (-M) + 12 / sp.sqrt(n) * J(D), [st1, st2, st3, st4, st5, st6], ass)
    Lm = cite(chain_m, {"Rad": Rad, "logN": logN, "n": n, "D": D, "rho0": rho0})
    lim = L.limit_geometric()
    t1 = Step("M -> oo", "(54)", le(Rad, 12 / sp.sqrt(n) * J(D)), "for every M >= 1 (derivation P5.chaining.M)",
              ByLemma(lim, {"x": Rad, "y": 12 / sp.sqrt(n) * J(D), "b": D},
                      hyp_checks={0: ByLemma(Lm, {"Rad": Rad, "logN": logN, "n": n, "D": D, "rho0": rho0})}))
    t2 = Step("12 <= 24", "(54)", le(12 / sp.sqrt(n) * J(D), 24 / sp.sqrt(n) * J(D)),
              "the integral is nonnegative: the paper's constant 24 is twice what the chaining lemma gives",
              ByLemma(L.integral_nonnegative(), {"g": g, "b": D},
                      context=sp.Lambda(up, 12 / sp.sqrt(n) * J(D) + 12 / sp.sqrt(n) * up)))
    chain = Derivation("P5.chaining", "Dudley's entropy integral with the paper's constant: Rad <= (24/sqrt n) "
                       "int_0^D sqrt(log N(eps, Phi, rho_n)) deps", "(54)", Rad, "le", 24 / sp.sqrt(n) * J(D), [t1, t2],
                       ass, errata=[_errata.get("P5-dudley-source")],
                       notes="Source: [Shalev-Shwartz and Ben-David, Understanding Machine Learning, 2014, Lemma 27.4], "
                             "through derivation P5.chaining.M.  The chaining lemma gives 12/sqrt(n) with the upper "
                             "limit D/2; the paper's 24/sqrt(n) over [0, D] follows and is kept.")
    return _declared([chain_m, chain])


@register("P5.dudley", "P5.radius", "P5.branch.ge1", "P5.branch.le1", "P5.a-ge-1", "P5.a-le-1", "P5.sharp.a-ge-1", "P5.sharp.a-le-1",
          "P5.lip.a-ge-1", "P5.lip.a-le-1")
def _prop5():
    l1s = ["L1.tau-lt-1", "L1.tau-ge-1"]
    l1s_sharp = ["L1.sharp.tau-lt-1", "L1.sharp.tau-ge-1"]
    Rad = sp.Symbol("Rad", real=True)
    logN = _P5_LOGN          # log N(eps, Phi, rho_n) >= 0 (N >= 1), as P5.chaining declares it
    c0 = 24 / sp.sqrt(n)
    e = eps
    Jint = sp.Integral(sp.sqrt(logN(e)), (e, 0, U))
    # rho_0, the bound on every rho_n(phi, phi_0), is U itself (a constant: rho_0 := rho_n(phi, phi_0) at the
    # generic phi made that hypothesis x <= x and mixed up its "for every phi"; a probe, Dec 2026)
    s_d = Step("Dudley (54)", "(54)", le(Rad, c0 * Jint), "Dudley's entropy integral (derivation P5.chaining), upper limit "
               "U = 4/tau ^ LR, rho_0 = U", ByLemma(cite("P5.chaining", {"Rad": Rad, "logN": _P5_LOGN, "n": n, "D": _P5_D, "rho0": _P5_RHO0}),
                                           {"Rad": Rad, "logN": sp.Lambda(up, logN(up)), "n": n, "D": U, "rho0": U}))
    Kint = sp.Integral(sp.sqrt(sp.log(1 + 2 * R * Lc / e)), (e, 0, U))
    s_c = Step("covering numbers", "(53), [Wainwright, eq. 5.9]", le(c0 * Jint, c0 * sp.sqrt(d_Theta) * Kint),
               "N(eps, Phi, rho) <= N(eps/L, Theta) <= (1 + 2RL/eps)^{d_Theta}",
               ExactInstance(L.dudley_covering_transfer(), {"logN": sp.Lambda(up, logN(up)), "d": d_Theta, "R": R, "L": Lc, "U": U,
                                                            "rho": _rho_n(), "dth": dth},
                             context=sp.Lambda(up, c0 * up)))
    cs_l = L.cauchy_schwarz_integral()
    F2 = sp.Lambda(up, sp.sqrt(sp.log(1 + 2 * R * Lc / up)))
    csc, _ = cs_l.written_at({"F": F2, "U": U})
    s_cs = Step("Cauchy-Schwarz", "proof of Prop. 5", le(c0 * sp.sqrt(d_Theta) * Kint, c0 * sp.sqrt(d_Theta) * csc.rhs),
                "int f <= U^{1/2} (int f^2)^{1/2}",
                ExactInstance(cs_l, {"F": F2, "U": U}, context=sp.Lambda(up, c0 * sp.sqrt(d_Theta) * up)))
    anti = U * sp.log(1 + 2 * R * Lc / U) + 2 * R * Lc * sp.log(1 + U / (2 * R * Lc))
    ftc = L.ftc_antiderivative()
    Fa = sp.Lambda(up, up * sp.log(1 + 2 * R * Lc / up) + 2 * R * Lc * sp.log(1 + up / (2 * R * Lc)))
    fa = sp.Lambda(up, sp.log(1 + 2 * R * Lc / up))
    inst, _ = ftc.written_at({"F": Fa, "f": fa, "U": U})
    pre = c0 * sp.sqrt(d_Theta) * sp.sqrt(U)
    s_a = Step("antiderivative", "proof of Prop. 5", eq(c0 * sp.sqrt(d_Theta) * csc.rhs, pre * sp.sqrt(anti)),
               "int_0^U log(1 + 2RL/eps) = U log(1 + 2RL/U) + 2RL log(1 + U/(2RL)): derivative checked, value 0 at 0+",
               ExactInstance(ftc, {"F": Fa, "f": fa, "U": U}, context=sp.Lambda(up, pre * sp.sqrt(up)),
                             hyp_checks={0: DoitIdentity(), 1: LimitCheck()}))
    s_l = Step("log(1+x) <= x", "proof of Prop. 5", le(pre * sp.sqrt(anti), pre * sp.sqrt(U * sp.log(1 + 2 * R * Lc / U) + U)),
               "x = U/(2RL)", ByLemma(L.log1p_le(), {"x": U / (2 * R * Lc)},
                                      context=sp.Lambda(up, pre * sp.sqrt(U * sp.log(1 + 2 * R * Lc / U) + 2 * R * Lc * up))))
    s_e = Step("simplify", "proof of Prop. 5", eq(pre * sp.sqrt(U * sp.log(1 + 2 * R * Lc / U) + U), B4.BOUNDS["dudley_cs"]),
               "algebra", Identity())
    ass = [As("(53): rho_n(phi_theta, phi_theta') <= L ||theta - theta'|| for all theta, theta' in the ball of radius R "
              "(the covering numbers of the ball then give log N(eps, Phi, rho_n) <= d_Theta log(1 + 2RL/eps))",
              le(_rho_n(), Lc * dth)),
           As("the class lies within U of phi_theta0: rho_n(phi_theta, phi_theta0) <= U for every theta of the ball "
              "(so N(eps, Phi, rho_n) = 1 for eps >= U and the integral of (54) stops at U; erratum P5-diameter); "
              "rho_n(phi_theta, phi_theta0) is (n^-1 sum_i dl_0(i)^2)^{1/2}", ge(U, _rho0_n())),
           "(C); U = 4/tau ^ LR (the radius hypothesis is discharged by P5.radius for U = 4/tau and by Lemma 1 "
           "with ||theta - theta0|| <= R for U = LR)",
           "Theta = {theta in R^{d_Theta}: ||theta - theta0|| <= R}, Phi = {phi_theta: theta in Theta}, logN(eps) = "
           "log N(eps, Phi, rho_n); R and d_Theta enter only through the covering numbers of that ball (the library's "
           "covering-number transfer, whose meaning this states)"]
    dud = Derivation("P5.dudley", "Prop. 5 before the case split: Rad <= (24/sqrt n) sqrt(d) U (log(1 + 2RL/U) + 1)^{1/2}",
                     "(54) and the display after it", Rad, "le", B4.BOUNDS["dudley_cs"], [s_d, s_c, s_cs, s_a, s_l, s_e], ass,
                     errata=[_errata.get("P5-diameter"), _errata.get("P5-antiderivative"), _errata.get("P5-dudley-source")],
                     notes="Dudley's entropy integral with the paper's constant 24/sqrt(n) is derivation P5.chaining, "
                           "from the chaining lemma [Shalev-Shwartz and Ben-David, 2014, Lemma 27.4] (erratum "
                           "P5-dudley-source; `infonce-sym prove P5 --constants C` re-runs Prop. 5 with another constant). "
                           "The Cauchy-Schwarz display of the paper is garbled in the text conversion; the antiderivative "
                           "above is the one the proof needs (checked by differentiation; erratum P5-antiderivative).")
    # the radius for U = 4/tau: every per-tuple change of the loss is at most 4/tau (Lemma 5)
    T_i, T0_i = sp.Function("T", positive=True), sp.Function("T_0", positive=True)   # T of tuple i, for phi and phi_0
    loss_i = lambda T_: sp.log(1 / k + T_(i) / k)  # noqa: E731   (14) as in Lemma 5
    L5 = cite("L5", {"T": L5_T, "T'": L5_T2, **TUPLE_EMBEDDINGS})
    # Lemma 5 at tuple i, phi' = phi_theta0
    at_i = {**{nm: f for nm, f in OF_TUPLE_I.items() if not nm.startswith("phi'")},
            **{nm: sp.Lambda(f.variables, AT_THETA0[nm](i, *f.variables)) for nm, f in OF_TUPLE_I.items() if nm.startswith("phi'")}}
    rad4 = sp.sqrt(sp.Sum((4 / tau) ** 2, (i, 1, n)) / n)
    dl_def = As("dl_0(i) = |l(phi, z_i) - l(phi_0, z_i)| with l = log(1/k + T_i/k) of (14) (Lemma 5's form; "
                "T_i = sum_j e^{s_ij/tau}), every tuple i", eq(dl0f(i), sp.Abs(loss_i(T_i) - loss_i(T0_i))), every=(i,))
    s_r1 = Step("Lemma 5 per tuple", "Lemma 5; (54)", le(_rho0_n(), rad4),
                "|l(phi, z_i) - l(phi_0, z_i)| <= 4/tau for every tuple (derivation L5); squares, average, square root",
                ByLemma(L.sum_monotone(i), {"U": sp.Lambda(i, dl0f(i) ** 2), "V": sp.Lambda(i, (4 / tau) ** 2), "k": n},
                        context=sp.Lambda(up, sp.sqrt(up / n)),
                        hyp_checks={0: NonNegative([s1 * (4 / tau + dl0f(i))], {s1: 4 / tau - dl0f(i)},
                                                   by={s1: AsGap(ByLemma(L5, {"T": T_i(i), "T'": T0_i(i), **at_i}),
                                                                 defs={dl0f(i): sp.Abs(loss_i(T_i) - loss_i(T0_i))})})}))
    s_r2 = Step("average of a constant", "", eq(rad4, 4 / tau), "", Identity())
    radius = Derivation("P5.radius", "The class lies within 4/tau of phi_0: rho_n(phi, phi_0) <= 4/tau", "Lemma 5, (54)",
                        _rho0_n(), "le", 4 / tau, [s_r1, s_r2],
                        [dl_def,
                         "rho_n(phi, phi_0) = (n^-1 sum_i dl_0(i)^2)^{1/2}; every phi of the class (unit embeddings)"]
                        + [a_ for a_ in _unit_norms_of_tuple_i() if "phi'" not in a_.text] + _unit_norms_of_tuple_i(True))
    Ld = Lemma.from_derivation(dud, {"U": U, "L": Lc})
    Lval = 4 * E * B_tau * C_Phi / tau
    sq = sp.sqrt(d_Theta / n)
    lg = sp.sqrt(sp.log(1 + 2 * a) + 1)
    al = a * sp.sqrt(sp.log(3) + 1)
    adef = {a: E * R * B_tau * C_Phi}
    # branch inequalities
    cst = sp.log(3) + 1
    g = sp.Lambda(up, up ** 2 * cst - sp.log(1 + 2 * up) - 1)
    hh = sp.Lambda(up, sp.log(1 + 2 * up) + 1 - up ** 2 * cst)
    bge = Derivation("P5.branch.ge1", "a >= 1 implies a^2 (log 3 + 1) >= log(1 + 2a) + 1", "Sec. 4.2, remark on the min",
                     a ** 2 * cst, "ge", sp.log(1 + 2 * a) + 1,
                     [Step("split", "", eq(a ** 2 * cst, sp.log(1 + 2 * a) + 1 + g(a)), "", Identity()),
                      Step("tangent at 1", "", ge(sp.log(1 + 2 * a) + 1 + g(a), sp.log(1 + 2 * a) + 1 + g(1) + sp.diff(g(up), up).subs(up, 1) * (a - 1)),
                           "g convex (g'' = 2(log 3 + 1) + 4/(1 + 2a)^2 > 0)",
                           ByLemma(L.convex_tangent(), {"g": g, "x": a, "x0": 1}, context=sp.Lambda(up, sp.log(1 + 2 * a) + 1 + up))),
                      Step("g(1) = 0", "", eq(sp.log(1 + 2 * a) + 1 + g(1) + sp.diff(g(up), up).subs(up, 1) * (a - 1),
                                              sp.log(1 + 2 * a) + 1 + (2 * sp.log(3) + sp.Rational(4, 3)) * (a - 1)), "", Identity()),
                      Step("a >= 1", "", ge(sp.log(1 + 2 * a) + 1 + (2 * sp.log(3) + sp.Rational(4, 3)) * (a - 1), sp.log(1 + 2 * a) + 1),
                           "", NonNegative([(2 * sp.log(3) + sp.Rational(4, 3)) * s1], {s1: a - 1}))], [As("a >= 1", ge(a, 1))])
    ble = Derivation("P5.branch.le1", "a <= 1 implies log(1 + 2a) + 1 >= a^2 (log 3 + 1)", "Sec. 4.2, remark on the min",
                     sp.log(1 + 2 * a) + 1, "ge", a ** 2 * cst,
                     [Step("split", "", eq(sp.log(1 + 2 * a) + 1, a ** 2 * cst + hh(a)), "", Identity()),
                      Step("chord", "", ge(a ** 2 * cst + hh(a), a ** 2 * cst + (1 - a) * hh(0) + a * hh(1)),
                           "h concave on [0, 1]", ByLemma(L.concave_chord(), {"h": hh, "x": a}, context=sp.Lambda(up, a ** 2 * cst + up),
                                                          hyp_checks={2: NonNegative([s1], {s1: 1 - a})})),
                      Step("h(0) = 1, h(1) = 0", "", eq(a ** 2 * cst + (1 - a) * hh(0) + a * hh(1), a ** 2 * cst + 1 - a), "", Identity()),
                      Step("a <= 1", "", ge(a ** 2 * cst + 1 - a, a ** 2 * cst), "", NonNegative([s1], {s1: 1 - a}))], [As("a <= 1", le(a, 1)), "a > 0"])
    big = 96 / tau * sq

    def cov(Lv):     # not an assumption: the hypothesis of P5.dudley is discharged by citing Lemma 1 (below)
        return None

    def cases(Lval, adef, stmt, tag, what, lemma_ref, l1s, l_positive=None, extra=(), l1_ass=None, l1_ass0=None, extra_a=()):
        extra = list(extra)
        # (53): rho_n <= L ||theta - theta'|| is Lemma 1 (both temperature cases of (52); one, by the (18) route)
        beta_facts = {1: _beta_facts()}

        def at_theta0(lid):
            # U = LR: rho_n(phi_theta, phi_theta0) <= L ||theta - theta0|| (Lemma 1) <= L R (the ball)
            return NonNegative([Lval * s1, s2], {s1: R - dth0, s2: Lval * dth0 - _rho0_n()},
                               by={s2: AsGap(lemma1_at_theta0(lid))})
        if len(l1s) == 1:
            l1_cases, ball_radius = ByLemma(cite(l1s[0]), {}), at_theta0(l1s[0])
        else:
            l1_cases = ByCases([(lt(tau, 1), ByLemma(cite(l1s[0]), {})),
                                (ge(tau, 1), ByLemma(cite(l1s[1]), {}))], case_facts=beta_facts)
            ball_radius = ByCases([(cond, at_theta0(lid)) for cond, lid in ((lt(tau, 1), l1s[0]), (ge(tau, 1), l1s[1]))],
                                  case_facts=beta_facts)
        l1_ass = _l1_hypotheses() if l1_ass is None else l1_ass
        l1_ass0 = _l1_hypotheses_at_theta0() if l1_ass0 is None else l1_ass0
        ball = As("theta in the ball of radius R about theta0: ||theta - theta0|| <= R", le(dth0, R))
        caseA = Derivation(f"P5{tag}.a-ge-1", f"{what}, case a >= 1 (U = 4/tau)", "Prop. 5, proof", Rad, "le", stmt,
                           [Step("Dudley, U = 4/tau", "(54)", le(Rad, B4.BOUNDS["dudley_cs"].subs({U: 4 / tau, Lc: Lval})),
                                 f"derivation P5.dudley with U = 4/tau, L = {lemma_ref}",
                                 ByLemma(Ld, {"U": 4 / tau, "L": Lval},
                                         hyp_checks={0: l1_cases, 1: ByLemma(cite(radius), {}),
                                                     # L > 0 (P5.dudley's L is positive): L = 4a/(R tau), a >= 1
                                                     3: NonNegative([4 / (R * tau), 4 * s1 / (R * tau)], {s1: a - 1},
                                                                    defs=adef)})),
                            Step("a = tau R L/4", "Prop. 5", eq(B4.BOUNDS["dudley_cs"].subs({U: 4 / tau, Lc: Lval}), big * lg),
                                 "2RL/(4/tau) = 2a", Identity(defs=adef)),
                            Step("min branch", "Sec. 4.2", eq(big * lg, stmt), "a sqrt(log 3 + 1) >= sqrt(log(1+2a)+1) (P5.branch.ge1)",
                                 ByLemma(L.min_branch(), {"p": al, "q": lg}, context=sp.Lambda(u_, big * u_), defs=adef,
                                         hyp_checks={0: ByLemma(Lemma.from_derivation(bge, {"a": a}),
                                                                {"a": a}, context=sp.Lambda(up, sp.sqrt(up)),
                                                                hyp_checks={0: NonNegative([s1], {s1: a - 1})})}))],
                           [As(f"a = {adef[a]} >= 1, i.e. 4/tau <= LR", ge(a, 1)), dl_def] + l1_ass + extra + list(extra_a)
                           + _unit_norms_of_tuple_i(at_theta0=True))
        caseB = Derivation(f"P5{tag}.a-le-1", f"{what}, case a <= 1 (U = LR)", "Prop. 5, proof", Rad, "le", stmt,
                           [Step("Dudley, U = LR", "(54)", le(Rad, B4.BOUNDS["dudley_cs"].subs({U: Lval * R, Lc: Lval})),
                                 "derivation P5.dudley with U = LR; the radius: Lemma 1 at theta' = theta0 and "
                                 "||theta - theta0|| <= R",
                                 ByLemma(Ld, {"U": Lval * R, "L": Lval},
                                         hyp_checks={0: l1_cases, 1: ball_radius,
                                                     **({2: PositiveMultiple(adef[a]), 3: PositiveMultiple(adef[a])}
                                                        if l_positive is not None else {})})),
                            Step("a = tau R L/4", "Prop. 5", eq(B4.BOUNDS["dudley_cs"].subs({U: Lval * R, Lc: Lval}), big * al),
                                 "LR = 4a/tau", Identity(defs=adef)),
                            Step("min branch", "Sec. 4.2", eq(big * al, stmt), "a sqrt(log 3 + 1) <= sqrt(log(1+2a)+1) (P5.branch.le1)",
                                 ByLemma(L.min_branch(), {"p": lg, "q": al}, context=sp.Lambda(u_, big * u_), defs=adef,
                                         hyp_checks={0: ByLemma(Lemma.from_derivation(ble, {"a": a}),
                                                                {"a": a}, context=sp.Lambda(up, sp.sqrt(up)),
                                                                hyp_checks={0: NonNegative([s1], {s1: 1 - a})})}))],
                           [As(f"a = {adef[a]} <= 1, i.e. LR <= 4/tau", le(a, 1)), ball]
                           + ([l_positive] if l_positive is not None else []) + l1_ass + extra + l1_ass0)
        return caseA, caseB

    caseA, caseB = cases(Lval, adef, B4.BOUNDS["prop5"], "", "Proposition 5", "4e B C/tau (Lemma 1)", l1s,
                         extra=[_b_tau_positive()])
    L_sharp = C_Phi / tau * (2 * Ra + Rp + E * Nn)
    sharpA, sharpB = cases(L_sharp, {a: R * C_Phi * (2 * Ra + Rp + E * Nn) / 4}, B4.BOUNDS["prop5_sharp"], ".sharp",
                           "Proposition 5 with the sharpened Lemma 1 (L = (C_Phi/tau)(2 Ra + Rp + e Nn))",
                           "(C_Phi/tau)(2 Ra + Rp + e Nn) (derivations L1.sharp.*)", l1s_sharp,
                           # P5.dudley needs L > 0 (U = LR > 0): Ra, Rp, Nn are only >= 0 (with a >= 1 it follows)
                           l_positive=As("a > 0, i.e. L = (C_Phi/tau)(2 Ra + Rp + e Nn) > 0: some input norm is not 0 "
                                         "(if every one is, rho_n vanishes on the class and Rad = 0)",
                                         gt(R * C_Phi * (2 * Ra + Rp + E * Nn) / 4, 0)))
    # Prop. 5's argument with the Lipschitz constant of the (18) route (derivation L1.lip): L = (sqrt 6/tau) C_Phi B_max
    l1lip = derivation("L1.lip")
    L_lip = B4.BOUNDS["lipschitz_route_L"]
    lipA, lipB = cases(L_lip, {a: sp.sqrt(6) * R * C_Phi * B_max / 4}, B4.BOUNDS["prop5_lipschitz_route"], ".lip",
                       "Proposition 5 by the Lipschitz route (17)-(18) (L = (sqrt 6/tau) C_Phi B_max)",
                       "(sqrt 6/tau) C_Phi B_max (derivation L1.lip)", ["L1.lip"],
                       l_positive=As("a > 0, i.e. L = (sqrt 6/tau) C_Phi B_max > 0: some input norm is not 0 "
                                     "(if every one is, rho_n vanishes on the class and Rad = 0)",
                                     gt(sp.sqrt(6) * R * C_Phi * B_max / 4, 0)),
                       l1_ass=[a_ for a_ in l1lip.structured_assumptions() if a_.rel is not None],
                       l1_ass0=_lip_hypotheses_at_theta0(),
                       # P5.radius (case a >= 1) needs phi's unit norms at every tuple, which L1.lip does not
                       extra_a=[a_ for a_ in _unit_norms_of_tuple_i() if "phi'" not in a_.text])
    return _declared([dud, radius, bge, ble, caseA, caseB, sharpA, sharpB, lipA, lipB])


@register("T1")
def _theorem1():
    """Theorem 1: Prop. 2 (derivation P2 of Section 3, instantiated), Prop. 3 (P3) and Prop. 5 (both cases
    P5.a-ge-1 / P5.a-le-1, by a case split on a = e R B_tau C_Phi)."""
    from . import section3 as S3
    SCE, Rpop, Rad = sp.Symbol("SCE", real=True), sp.Symbol("R_pop", real=True), sp.Symbol("Rad", real=True)
    bias = B4.BOUNDS["theorem1_bias"]
    comp5 = (96 / tau * sp.sqrt(d_Theta / n)) * sp.Min(A * sp.sqrt(sp.log(3) + 1), sp.sqrt(sp.log(1 + 2 * A) + 1))
    p2, p3 = derivation("P2"), derivation("P3")
    R_expr = S3.risk_definitions()["R"]             # the same k, tau, D2 as Section 4 (proofs.symbols)
    sce_expr = p2.quantity.args[0] + R_expr
    defs = {SCE: sce_expr, Rpop: R_expr}
    s0 = Step("x <= y + |x - y|", "Theorem 1", le(SCE, Rpop + sp.Abs(SCE - Rpop)), "",
              ByLemma(L.le_abs_difference(), {"x": SCE, "y": Rpop}))
    L2 = cite("P2", {"k": k, "D2": D2})
    s1_ = Step("Prop. 2", "Prop. 2", le(Rpop + sp.Abs(SCE - Rpop), Rpop + bias),
               "finite-k bias: derivation P2 with SCE = search cross-entropy (9), R_pop = R(phi; k, tau) (2)",
               ByLemma(L2, {"k": k, "D2": D2}, context=sp.Lambda(u_, Rpop + u_), defs=defs))
    L3 = cite("P3")
    s2_ = Step("Prop. 3", "Prop. 3", le(Rpop + bias, p3.statement + bias), "w.p. >= 1 - delta, for all phi (derivation P3)",
               ByLemma(L3, {}, context=sp.Lambda(u_, u_ + bias)))
    rest = p3.statement - 2 * Rad + bias
    adef = {A: E * R * B_tau * C_Phi}
    cut = {"A": sp.Symbol("a", positive=True)}
    s3_ = Step("Prop. 5", "Prop. 5", le(p3.statement + bias, rest + 2 * comp5),
               "complexity penalty (factor 2 x 96 = 192): derivations P5.a-ge-1 and P5.a-le-1, case split on a = e R B_tau C_Phi",
               ByCases([(ge(a, 1), ByLemma(cite("P5.a-ge-1"), {},
                                           context=sp.Lambda(u_, rest + 2 * u_), defs=adef)),
                        (le(a, 1), ByLemma(cite("P5.a-le-1"), {},
                                           context=sp.Lambda(u_, rest + 2 * u_), defs=adef))]))
    s4_ = Step("assemble", "Theorem 1", eq(rest + 2 * comp5, B4.BOUNDS["theorem1_rhs"]), "every const. explicit",
               Identity(defs=adef))
    ass = [As("0 < delta < 1", lt(delta, 1)),
           "(A), (B), (C); on the event of Prop. 3 (probability >= 1 - delta), for all phi in Phi",
           "SCE = similarity search expected cross-entropy; R_pop = R(phi; k, tau); A = a = e R B_tau(Z_1..Z_n) C_Phi"]
    # the cited chains' relational assumptions, their assumed consequences too (a citation checks those as well)
    ass += [a_ for a_ in p2.structured_assumptions() + p3.structured_assumptions()
            if a_.rel is not None and a_.text != "0 < delta < 1"]
    for case in ("P5.a-ge-1", "P5.a-le-1"):
        ass += [a_ for a_ in derivation(case).structured_assumptions()
                if (a_.rel is None or not a_.text.startswith("a = ")) and all(a_.text != b_.text for b_ in ass if hasattr(b_, "text"))]
    del cut
    return _declared(Derivation("T1", "Theorem 1 with explicit constants (192 and 12)", "Theorem 1", SCE, "le",
                                B4.BOUNDS["theorem1_rhs"], [s0, s1_, s2_, s3_, s4_], ass))


def _declared(ds):
    """The declared verdict (:data:`CONDITIONAL`) and generality (:data:`GENERALITY`) of each result."""
    for d_ in ds if isinstance(ds, (list, tuple)) else [ds]:
        if d_.id in CONDITIONAL:
            d_.verdict = "conditional"
        d_.generality = GENERALITY.get(d_.id, d_.generality)
    return ds


# Declared verdicts that are not "proved", with what they are conditional on (the run reports the same).
CONDITIONAL: dict = {}

# What the chains cover where it is less than the paper's statement (rendered, audited; not checked in general).
# L6 / L6.second state their own (finitely supported mu: all that Prop. 4 needs); every other chain is at the
# paper's generality (every d, every k).
GENERALITY: dict = {}

# the constants explorer (proofs.constants) rebuilds build_prop4 / build_lemma1_tuple / build_lemma1 with
# other constants
sqrt_conf = _sqrt_conf


IDS = [i_ for f_ in (_chaining, _lemma5, _prop3, _lemma6, _lemma6_path, _lemma7, _lemma8, _norm_lemmas, _softmax_norms, build_prop4,
                     _lemma18, _lipschitz_route,
                     _lipschitz_route_18, _lipschitz_route_linear, _lemma1_tuple, _lemma1_tuple_sharp, _lemma1, _lemma1_sharp, _lemma1_lip_tuple, _lemma1_lip,
                     _prop5, _theorem1)
       for i_ in f_.registered_ids]


def __getattr__(name):
    """``DERIVATIONS`` and ``BY_ID``: this module's registered results, built by the registry."""
    from .register import ids
    mine = [i_ for i_ in ids() if i_ in IDS]
    if name == "DERIVATIONS":
        return [derivation(i_) for i_ in mine]
    if name == "BY_ID":
        return {i_: derivation(i_) for i_ in mine}
    raise AttributeError(name)
