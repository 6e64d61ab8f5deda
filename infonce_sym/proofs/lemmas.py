"""The one library of standard lemmas, as templates with hypotheses.

Each factory returns a :class:`~infonce_sym.proofs.chain.Lemma` whose ``library`` field is its
entry in :data:`LIBRARY` (the documented list below, with its source).  A step citing a library
lemma is proved once the lemma's own hypotheses are discharged (checked by the CAS, an
assumption of the statement, or a cited derivation); a lemma outside this library is never a
proof, only a premise (``chain.Premise``, kind "quoted").  Function parameters (``F``) are passed
as ``sympy.Lambda``.
"""
from __future__ import annotations

import sympy as sp
from sympy.core.function import AppliedUndef

from .chain import Ea, Ex, Lemma, Var, ea_of_ex, eq, ge, gt, le, library_lemma, relation_kind

#: The library: key -> (what it states, where it is from).  Nothing else counts as a standard lemma.
LIBRARY = {
    "Cauchy-Schwarz": ("|<a, b>| <= ||a|| ||b|| in R^d, for expectations and for integrals",
                       "standard (e.g. Rudin, Real and Complex Analysis, Thm 3.5)"),
    "triangle": ("|x + y| <= |x| + |y|; |sum_j x_j| <= sum_j |x_j|; ||sum_j p_j v_j|| <= sum_j p_j ||v_j|| (p_j >= 0); "
                 "|E Y| <= E|Y|",
                 "standard (norm axioms; monotonicity of the integral)"),
    "Jensen": ("E F(Y) <= F(E Y) for concave F; the power forms u^beta (beta >= 1), u^g (0 < g <= 1)",
               "standard (e.g. Rudin, Real and Complex Analysis, Thm 3.3)"),
    "power means": ("(sum p_j a_j^r)^{1/r} <= (sum p_j a_j^s)^{1/s} for 0 < r <= s (Jensen for u^{s/r})",
                    "standard (Hardy, Littlewood, Polya, Inequalities, Thm 16)"),
    "Popoviciu": ("Var Y <= (hi - lo)^2/4 for lo <= Y <= hi", "Popoviciu (1935)"),
    "Taylor (Lagrange remainder)": ("F(y) = sum_{n<=N} F^(n)(y0)(y-y0)^n/n! + F^(N+1)(xi)(y-y0)^{N+1}/(N+1)!",
                                    "standard (Taylor's theorem, Lagrange form)"),
    "mean value theorem / FTC": ("F(1) - F(0) = int_0^1 F'; int_0^U f = F(U) - F(0+) when F' = f; a map whose "
                                 "gradient has l1 norm <= 1 is 1-Lipschitz for the sup norm (used for "
                                 "log(1 + sum_j e^{-v_j}), gradient -e^{-v_j}/(1 + sum_l e^{-v_l}) [Lei et al. 2019])",
                                 "standard (fundamental theorem of calculus, mean value inequality)"),
    "Minkowski": ("(n^-1 sum_i (sum_r x_r(i))^2)^{1/2} <= sum_r (n^-1 sum_i x_r(i)^2)^{1/2}",
                  "standard (triangle inequality of the l2 norm)"),
    "Mohri et al. Thm 3.3": ("E g <= mean_n g + 2 Rad_S(G) + 3 sqrt(log(2/delta)/(2n)) w.p. >= 1 - delta, g in [0, 1]",
                             "Mohri, Rostamizadeh, Talwalkar, Foundations of Machine Learning (2018), Thm 3.3 "
                             "(McDiarmid's inequality twice)"),
    "chaining (UML Lemma 27.4)": ("R(A) <= c 2^-M/sqrt(m) + (6c/m) sum_{k=1}^M 2^-k sqrt(log N(c 2^-k, A)) for a set "
                                  "A of R^m, c = min_abar max_{a in A} ||a - abar||, every integer M >= 1; R(A) = "
                                  "m^-1 E_sigma sup_{a in A} sum_i sigma_i a_i (26.5), N(r, A) the Euclidean covering "
                                  "numbers (Def. 27.1)",
                                  "Shalev-Shwartz and Ben-David, Understanding Machine Learning (Cambridge UP, 2014), "
                                  "Lemma 27.4 (Dudley's chaining, Massart's Lemma 26.8 at each scale)"),
    "covering numbers": ("N(r, S, rho) is non-increasing in r (an r-cover is an r'-cover for r' >= r); for f with "
                         "||f(x) - f(x')|| = L rho(x, x') on S (<= suffices; the equality ties rho to the metric of N), "
                         "N(L r, f(S)) <= N(r, S, rho) (the images of an r-cover are an L r-cover) and min_abar max_{a in f(S)} ||a - abar|| <= L rho_0 when rho(x, x0) <= rho_0 "
                         "on S (abar = f(x0))",
                         "standard (Shalev-Shwartz and Ben-David 2014, Def. 27.1; Wainwright 2019, Def. 5.1 and "
                         "Lemma 5.7's proof)"),
    "covering numbers of balls": ("N(eps, B_R(Theta), ||.||) <= (1 + 2R/eps)^{d}, and N(eps, Phi, rho) <= N(eps/L, Theta) "
                                  "for an L-Lipschitz parametrisation, then monotonicity of the integral",
                                  "Wainwright (2019), eq. 5.9 (volumetric bound), as the paper cites it"),
    "limsup and liminf": ("U_n <= B for every n (B free of n) implies limsup U_n <= B; limsup u_n/v_n <= A/B when "
                          "u_n >= 0 for every n, limsup u_n <= A and liminf v_n >= B > 0 (A, B free of n; v_n > 0 "
                          "for all large n, so the ratios of the tail are defined)",
                          "standard (upper and lower limits: Rudin, Principles of Mathematical Analysis, 3rd ed., "
                          "Def. 3.16, Thm 3.17, 3.19)"),
    "Fatou": ("liminf_n E F_n >= E liminf_n F_n for F_n >= 0",
              "Fatou's lemma (e.g. Rudin, Real and Complex Analysis, 3rd ed., Lemma 1.28)"),
    "elementary": ("monotonicity of expectations, finite sums and integrals; |x| = -x for x <= 0; min{p, q} = q "
                   "for q <= p; max{p, q} >= q; max{p, q} <= c when p <= c and q <= c; log(1 + x) <= x; a convex C^2 function above its tangent, a concave one above "
                   "its chord; |x - y| <= hi - lo on [lo, hi]; Rad is shift invariant and positively homogeneous "
                   "(E sigma_i = 0); the definition of the limit; a lower Darboux sum of a non-increasing "
                   "function is at most its integral; the integral of a nonnegative function is nonnegative and "
                   "grows with its upper limit", "elementary real analysis"),
}


#: what a factory's operator argument may be: the library's expectations are Ex and Ea, its variance Var (any map in
#: their place kept the library label: monotone(lambda e: -e) proved 0 <= -1; a probe, Dec 2026)
_OPERATORS = {"E": (Ex, Ea, ea_of_ex), "Var": (Var,)}


def _lib(key):
    """Mark a factory's lemma as the library entry ``key``."""
    assert key in LIBRARY, key

    def wrap(factory):
        import inspect
        names = list(inspect.signature(factory).parameters)

        def make(*args, **kw):
            for name, value in list(zip(names, args)) + list(kw.items()):
                if name in _OPERATORS and not any(value is op for op in _OPERATORS[name]):
                    raise TypeError(f"{factory.__name__}: {name} must be one of "
                                    f"{', '.join(op.__name__ for op in _OPERATORS[name])}, got {value!r}")
            return library_lemma(factory(*args, **kw), key)
        make.__name__, make.__doc__ = factory.__name__, factory.__doc__
        return make
    return wrap

_y = sp.Dummy("y", positive=True)       # a point of the (positive) domain of F
_u = sp.Symbol("u")
_y_closed = sp.Dummy("y", nonnegative=True)     # a point of [0, oo)


def smooth_conditions(f, point):
    """Hypotheses that make f (a Lambda of one variable) infinitely differentiable at ``point``, a symbol standing
    for every point of the domain (``_y``: (0, oo); ``_y_closed``: [0, oo); ``lo + _y``: (lo, oo)).  f must be
    built from +, *, exp, log, powers and finite sums (of what does not involve the variable, anything): each log's
    argument and each base of a power with an exponent that is not a nonnegative integer must be > 0 there, and
    these are the hypotheses, for the CAS to discharge.  Anything else that involves the variable (Abs, Piecewise,
    Heaviside, sign, Min, an undefined function...) gives 0 = 1, a hypothesis nothing discharges: the lemmas that
    check a derivative's sign at ``point`` (convexity, Jensen, Taylor) need f smooth there, and SymPy
    differentiates a kink or a step away (a probe, Dec 2026: |u - 1/2| as a Piecewise passed the chord lemma)."""
    conds = []
    # the domain's symbol: the point itself, or the _y / _y_closed in it (lo + _y)
    var = point if point.is_Symbol else (_y_closed if point.has(_y_closed) else _y)

    def visit(e):
        if not e.has(var):
            return
        if isinstance(e, (sp.Add, sp.Mul, sp.exp)):
            for a in e.args:
                visit(a)
        elif isinstance(e, sp.log):
            conds.append(gt(e.args[0], 0))
            visit(e.args[0])
        elif isinstance(e, sp.Sum) and not any(lim.has(var) for lim in e.limits) \
                and all(sp.sympify(end).is_finite for lim in e.limits for end in lim[1:]):
            # a finite sum of smooth terms; a series need not be smooth (sum_m u^2/(1 + u^2)^m is 1 off 0, 0 at 0; a
            # nineteenth probe, Dec 2026) and falls to the refusal below
            visit(e.function)                   # a finite sum of smooth terms (its range does not move)
        elif isinstance(e, sp.Pow):
            base, expo = e.args
            # a base that involves the variable, or any base under an exponent that does (0**u is not smooth at 0)
            if (not (expo.is_integer and expo.is_nonnegative) and base.has(var)) or (expo.has(var) and not base.has(var)
                                                                                     and not base.is_positive):
                conds.append(gt(base, 0))
            visit(base)
            visit(expo)
        elif e != var:
            conds.append(eq(sp.Integer(0), sp.Integer(1)))
    visit(f(point))
    return list(dict.fromkeys(conds))


_v = sp.Dummy("v", real=True)       # a point of a segment


def segment_conditions(f, a, b):
    """Hypotheses that make f smooth on the segment between a and b (``smooth_conditions`` at a real point v of
    it): a condition linear in v holds on the segment when it holds at both ends, so it is asked there; any
    other is asked at v, which no real v proves unless it holds everywhere."""
    conds = []
    for c in smooth_conditions(f, _v):
        gap = sp.expand(c.lhs - c.rhs) if relation_kind(c) != "eq" else None
        if gap is not None and gap.is_polynomial(_v) and sp.Poly(gap, _v).degree() <= 1:
            conds += [gt(c.lhs.subs(_v, end), c.rhs.subs(_v, end)) for end in (a, b)]     # every condition is "> 0"
        else:
            conds.append(c)
    return list(dict.fromkeys(conds))


def real_values(f, point):
    """F real-valued at ``point`` (a point of its domain), asked where F's body may visibly be complex: an explicit I, a
    symbol or an undefined function not declared real, a value SymPy knows is not real.  Logs and roots need no
    condition here: ``smooth_conditions`` already asks their arguments to be > 0 on the domain.  Cauchy-Schwarz for
    integrals and Taylor's theorem are false for complex F (F = 1 + i(2u - 1) on [0, 1] proved 1 <= sqrt(2/3); F = e^{iu}
    proved e^{iy} = 1 + iy - e^{i xi} y^2/2; an eighteenth probe, Dec 2026)."""
    value = sp.sympify(f(point))
    visible = value.has(sp.I) or value.is_extended_real is False or any(
        a.is_extended_real is not True for a in value.atoms(sp.Symbol, AppliedUndef) if a != point) \
        or any(c.is_extended_real is not True for c in _constant_parts(value, point))
    return [eq(sp.im(value), 0)] if visible and sp.im(value) != 0 else []


def _constant_parts(e, point):
    """The largest subexpressions of ``e`` free of ``point`` (constants such as acos(2), whose values SymPy does not
    know to be real: (acos 2 + acos 3)/3 is 1.03 i; a twentieth probe, Dec 2026)."""
    e = sp.sympify(e)
    if not e.has(point):
        return [e] if isinstance(e, sp.Expr) else []
    return [c for a in e.args for c in _constant_parts(a, point)]


@_lib('Jensen')
def jensen_concave(E):
    """Jensen: E F(Y) <= F(E Y) for F concave on [0, oo) (values in [-oo, oo), continuous there, as log is) and
    Y >= 0.  Hypotheses: -F'' >= 0 at every y > 0 (``_y`` is a positive symbol) and Y >= 0: the concavity is
    checked on the domain only, so Y must take its values there; F smooth on (0, oo) (``smooth_conditions``)."""
    return Lemma(
        "Jensen's inequality (concave F)", "E[F(Y)] <= F(E[Y]) for F concave on [0, oo) and Y >= 0",
        {"F": sp.Lambda(_u, sp.Function("F")(_u)), "Y": sp.Symbol("Y")},
        lambda F, Y: le(E(F(Y)), F(E(Y))),
        lambda F, Y: [ge(-sp.diff(F(_y), _y, 2), 0), ge(Y, 0)] + smooth_conditions(F, _y) + _continuous_at_zero(F),
        bound=(_y,))


def _continuous_at_zero(F):
    """F continuous at 0 from the right, with values in [-oo, oo) (log: -oo there): the limit equals F(0), or both are
    -oo (SymPy writes log 0 as zoo).  0**u (1 at 0, 0 beyond) is smooth on (0, oo) and concave there, and Jensen's
    E[0^Y] <= 0^(E Y) is false for Y in {0, 1} (a probe, Dec 2026)."""
    u = sp.Symbol("u_zero", nonnegative=True)
    at = F(sp.Integer(0))
    limit = sp.limit(F(u), u, 0, "+")
    if limit == -sp.oo and at in (sp.zoo, -sp.oo):
        return []
    return [eq(limit, at)]


@_lib('Taylor (Lagrange remainder)')
def taylor2():
    """Taylor's theorem, Lagrange remainder of order 2, the point between y0 and y written as
    xi = y0 + (y - y0)/(1 + t) for some t > 0 (a witness: the citation names it, the lemma chooses it).  F smooth on
    the segment between y0 and y: ``segment_conditions``."""
    return Lemma(
        "Taylor's theorem with Lagrange remainder (order 2)",
        "F(y) = F(y0) + F'(y0)(y - y0) + F''(xi)(y - y0)^2/2, xi = y0 + (y - y0)/(1 + t) for some t > 0",
        {"F": sp.Lambda(_u, sp.Function("F")(_u)), "Y": sp.Symbol("y", real=True), "Y0": sp.Symbol("y0", real=True),
         "T": sp.Symbol("t", positive=True)},
        lambda F, Y, Y0, T: eq(F(Y), F(Y0) + sp.diff(F(_u), _u).subs(_u, Y0) * (Y - Y0)
                               + sp.diff(F(_u), _u, 2).subs(_u, Y0 + (Y - Y0) / (1 + T)) * (Y - Y0) ** 2 / 2),
        lambda F, Y, Y0, T: [gt(T, 0)] + segment_conditions(F, Y0, Y) + real_values(F, _v), witnesses=("T",),
        bound=(_v,))


@_lib('Taylor (Lagrange remainder)')
def taylor3():
    """Taylor's theorem, Lagrange remainder of order 3, at xi = y0 + (y - y0)/(1 + t) for some t > 0 (a witness); F
    smooth on the segment between y0 and y (``segment_conditions``)."""
    return Lemma(
        "Taylor's theorem with Lagrange remainder (order 3)",
        "F(y) = F(y0) + F'(y0)(y-y0) + F''(y0)(y-y0)^2/2 + F'''(xi)(y-y0)^3/6, xi = y0 + (y - y0)/(1 + t), some t > 0",
        {"F": sp.Lambda(_u, sp.Function("F")(_u)), "Y": sp.Symbol("y", real=True), "Y0": sp.Symbol("y0", real=True),
         "T": sp.Symbol("t", positive=True)},
        lambda F, Y, Y0, T: eq(F(Y), F(Y0) + sp.diff(F(_u), _u).subs(_u, Y0) * (Y - Y0)
                               + sp.diff(F(_u), _u, 2).subs(_u, Y0) * (Y - Y0) ** 2 / 2
                               + sp.diff(F(_u), _u, 3).subs(_u, Y0 + (Y - Y0) / (1 + T)) * (Y - Y0) ** 3 / 6),
        lambda F, Y, Y0, T: [gt(T, 0)] + segment_conditions(F, Y0, Y) + real_values(F, _v), witnesses=("T",),
        bound=(_v,))


@_lib('Taylor (Lagrange remainder)')
def taylor_n(order):
    """Taylor's theorem about 0, Lagrange remainder of order ``order + 1`` (theta between 0 and y); F smooth on the
    segment between 0 and y (``segment_conditions``)."""
    u = sp.Symbol("u")
    return Lemma(
        f"Taylor's theorem with Lagrange remainder (order {order})",
        f"F(y) = sum_(n<={order}) F^(n)(0) y^n/n! + F^({order + 1})(theta) y^{order + 1}/({order + 1})!",
        # theta lies between 0 and y (a real point: the theorem is about real y)
        {"F": sp.Lambda(u, sp.Function("F")(u)), "Y": sp.Symbol("y", real=True), "XI": sp.Symbol("theta", real=True)},
        lambda F, Y, XI: eq(F(Y), sp.Add(*[sp.diff(F(u), u, n).subs(u, 0) * Y ** n / sp.factorial(n)
                                            for n in range(order + 1)])
                            + sp.diff(F(u), u, order + 1).subs(u, XI) * Y ** (order + 1) / sp.factorial(order + 1)),
        lambda F, Y, XI: segment_conditions(F, 0, Y) + real_values(F, _v), witnesses=("XI",), bound=(_v,))


@_lib('Popoviciu')
def popoviciu(Var):
    """Popoviciu: Var(Y) <= (hi - lo)^2 / 4 when lo <= Y <= hi."""
    return Lemma(
        "Popoviciu's inequality on variances", "Var(Y) <= (hi - lo)^2/4 if lo <= Y <= hi a.s.",
        {"Y": sp.Symbol("Y"), "lo": sp.Symbol("lo"), "hi": sp.Symbol("hi")},
        lambda Y, lo, hi: le(Var(Y), (hi - lo) ** 2 / 4),
        lambda Y, lo, hi: [ge(hi - Y, 0), ge(Y - lo, 0)])


@_lib('elementary')
def monotone(E):
    """Monotonicity of expectation: U <= V pointwise implies E U <= E V."""
    return Lemma(
        "monotonicity of expectation", "U <= V a.s. implies E[U] <= E[V]",
        {"U": sp.Symbol("U"), "V": sp.Symbol("V")},
        lambda U, V: le(E(U), E(V)),
        lambda U, V: [ge(V - U, 0)])


@_lib('triangle')
def abs_expectation(E):
    """|E Y| <= E|Y| (Jensen for the absolute value)."""
    return Lemma(
        "|E Y| <= E|Y|", "|E[Y]| <= E[|Y|]", {"Y": sp.Symbol("Y", real=True)},
        lambda Y: le(sp.Abs(E(Y)), E(sp.Abs(Y))))


@_lib('triangle')
def triangle():
    """The triangle inequality |x + y| <= |x| + |y|."""
    return Lemma(
        "triangle inequality", "|x + y| <= |x| + |y|",
        {"x": sp.Symbol("x", real=True), "y": sp.Symbol("y", real=True)},
        lambda x, y: le(sp.Abs(x + y), sp.Abs(x) + sp.Abs(y)))


@_lib('elementary')
def le_abs_difference():
    """x <= y + |x - y|."""
    return Lemma(
        "x <= y + |x - y|", "x <= y + |x - y| for real x, y", {"x": sp.Symbol("x", real=True), "y": sp.Symbol("y", real=True)},
        lambda x, y: le(x, y + sp.Abs(x - y)))


@_lib('elementary')
def abs_nonpositive():
    """|x| = -x for x <= 0."""
    return Lemma(
        "|x| = -x for x <= 0", "|x| = -x if x <= 0", {"x": sp.Symbol("x", real=True)},
        lambda x: eq(sp.Abs(x), -x), lambda x: [ge(-x, 0)])


def reciprocal_identity():
    """1/B = 2 - B + (B - 1)^2/B (B != 0); its hypothesis is the identity itself, checked by the CAS."""
    def concl(B):
        return eq(1 / B, 2 - B + (B - 1) ** 2 / B)
    return Lemma("1/B = 2 - B + (B-1)^2/B", "algebraic identity for B != 0", {"B": sp.Symbol("B", positive=True)},
                 concl, lambda B: [concl(B)], source="checked")


# ---------------------------------------------------------------- for Section 4 (quoted)
@_lib('Cauchy-Schwarz')
def cauchy_schwarz(E):
    """Cauchy-Schwarz for an expectation: |E[XY]| <= sqrt(E X^2) sqrt(E Y^2)."""
    return Lemma(
        "Cauchy-Schwarz inequality", "|E[XY]| <= (E[X^2])^{1/2} (E[Y^2])^{1/2}",
        {"X": sp.Symbol("X", real=True), "Y": sp.Symbol("Y", real=True)},
        lambda X, Y: le(sp.Abs(E(X * Y)), sp.sqrt(E(X ** 2)) * sp.sqrt(E(Y ** 2))))


@_lib('Cauchy-Schwarz')
def cauchy_schwarz_vectors():
    """|<a, b>| <= ||a|| ||b|| for finite real vectors given as lists."""
    return Lemma(
        "Cauchy-Schwarz inequality (vectors)", "|<a, b>| <= ||a||_2 ||b||_2",
        {"a": [sp.Symbol("a1", real=True)], "b": [sp.Symbol("b1", real=True)]},
        lambda a, b: le(sp.Abs(sp.Add(*[x * y for x, y in zip(a, b)])),
                        sp.sqrt(sp.Add(*[x ** 2 for x in a])) * sp.sqrt(sp.Add(*[y ** 2 for y in b]))))


@_lib('Cauchy-Schwarz')
def cauchy_schwarz_integral():
    """int_0^U f <= U^{1/2} (int_0^U f^2)^{1/2} (as used after (54))."""
    e = sp.Symbol("epsilon", positive=True)
    return Lemma(
        "Cauchy-Schwarz inequality (integrals)", "int_0^U f <= (int_0^U 1)^{1/2} (int_0^U f^2)^{1/2}",
        {"F": sp.Lambda(_u, sp.Function("F")(_u)), "U": sp.Symbol("U", positive=True)},
        lambda F, U: le(sp.Integral(F(e), (e, 0, U)), sp.sqrt(U) * sp.sqrt(sp.Integral(F(e) ** 2, (e, 0, U)))),
        lambda F, U: [ge(U, 0)] + real_values(F, _y), bound=(_y,))


@_lib('Mohri et al. Thm 3.3')
def mohri_3_3():
    """[Mohri et al., 2018, Thm. 3.3] as used in (34): for a class of [0, 1]-valued g and n i.i.d.
    samples, with probability >= 1 - delta, uniformly over the class,
    E g <= (1/n) sum g(Z_i) + 2 (empirical Rademacher complexity) + 3 sqrt(log(2/delta)/(2n))."""
    return Lemma(
        "Mohri et al. (2018), Thm. 3.3", "E g <= mean_n g + 2 Rad_S(G) + 3 sqrt(log(2/delta)/(2n)) w.p. >= 1 - delta, g in [0,1]",
        {"Eg": sp.Symbol("Eg"), "mean": sp.Symbol("mean"), "Rad": sp.Symbol("Rad"),
         "n": sp.Symbol("n", positive=True, integer=True), "delta": sp.Symbol("delta", positive=True),
         "g": sp.Symbol("g", real=True)},       # g: the value of a function of the class at a generic sample
        lambda Eg, mean, Rad, n, delta, g: le(Eg, mean + 2 * Rad + 3 * sp.sqrt(sp.log(2 / delta) / (2 * n))),
        lambda Eg, mean, Rad, n, delta, g: [gt(n, 0), gt(delta, 0), gt(1 - delta, 0), ge(g, 0), le(g, 1)],
        named=("Eg", "mean", "Rad"))


@_lib('chaining (UML Lemma 27.4)')
def chaining_uml(index=None):
    """[Shalev-Shwartz and Ben-David, 2014, Lemma 27.4]: for A in R^m with c = min_abar max_a ||a - abar||
    and every integer M >= 1,  R(A) <= c 2^-M/sqrt(m) + (6c/m) sum_{k=1}^M 2^-k sqrt(log N(c 2^-k, A)),
    where R(A) = m^-1 E_sigma sup_{a in A} sum_i sigma_i a_i and N(r, A) is the least number of points
    of R^m within r of every point of A (``logNA``: r -> log N(r, A))."""
    k_ = index if index is not None else CHAIN_K
    return Lemma(
        "chaining (UML Lemma 27.4)",
        "R(A) <= c 2^-M/sqrt(m) + (6c/m) sum_{k=1}^M 2^-k sqrt(log N(c 2^-k, A)), c = min_abar max_a ||a - abar||",
        {"Rad": sp.Symbol("Rad"), "logNA": sp.Lambda(_u, sp.Function("logNA")(_u)),
         "m": sp.Symbol("m", positive=True, integer=True), "c": sp.Symbol("c", positive=True),
         "M": sp.Symbol("M", positive=True, integer=True)},
        lambda Rad, logNA, m, c, M: le(Rad, c * 2 ** (-M) / sp.sqrt(m) + 6 * c / m * sp.Sum(
            2 ** (-k_) * sp.sqrt(logNA(c * 2 ** (-k_))), (k_, 1, M))),
        # c is the radius of A, defined in words as Rad and logNA are: a name, never a number (c = 1/100 proved
        # R({-1, 1}) <= 0.03; an eighteenth probe, Dec 2026)
        lambda Rad, logNA, m, c, M: [gt(m, 0), gt(c, 0), ge(M, 1)], named=("Rad", "logNA", "c"))


CHAIN_K = sp.Symbol("k", integer=True, positive=True)          # the scale index of the chaining sum
# g(x) >= g(x + h) for every x, h > 0 (non-increasing): the lemmas' own bound symbols
MONO_X, MONO_H = sp.Symbol("x_g", positive=True), sp.Symbol("h_g", positive=True)
_eps = sp.Symbol("epsilon", positive=True)


@_lib('elementary')
def darboux_lower_sum(index=None):
    """A lower Darboux sum of a non-increasing g >= 0 is at most its integral: for a_1 >= ... >= a_{M+1} >= 0,
    sum_{k=1}^M (a_k - a_{k+1}) g(a_k) <= int_{a_{M+1}}^{a_1} g <= int_0^{a_1} g (g >= g(a_k) on [a_{k+1}, a_k];
    additivity and monotonicity of the integral)."""
    k_ = index if index is not None else CHAIN_K
    return Lemma(
        "lower Darboux sum of a non-increasing function",
        "g >= 0 non-increasing, a_k non-increasing >= 0: sum_{k<=M} (a_k - a_{k+1}) g(a_k) <= int_0^{a_1} g",
        {"g": sp.Lambda(_u, sp.Function("g")(_u)), "a": sp.Lambda(k_, sp.Function("a")(k_)),
         "M": sp.Symbol("M", positive=True, integer=True)},
        lambda g, a, M: le(sp.Sum((a(k_) - a(k_ + 1)) * g(a(k_)), (k_, 1, M)), sp.Integral(g(_eps), (_eps, 0, a(1)))),
        lambda g, a, M: [ge(a(k_) - a(k_ + 1), 0), ge(a(M + 1), 0), ge(g(MONO_X), 0),
                         ge(g(MONO_X) - g(MONO_X + MONO_H), 0)], bound=(MONO_X, MONO_H, k_))


@_lib('elementary')
def integral_upper_limit():
    """int_0^a g <= int_0^b g for g >= 0 and 0 <= a <= b (monotonicity and additivity of the integral)."""
    return Lemma(
        "the integral of g >= 0 grows with its upper limit", "g >= 0, 0 <= a <= b: int_0^a g <= int_0^b g",
        {"g": sp.Lambda(_u, sp.Function("g")(_u)), "a": sp.Symbol("a"), "b": sp.Symbol("b")},
        lambda g, a, b: le(sp.Integral(g(_eps), (_eps, 0, a)), sp.Integral(g(_eps), (_eps, 0, b))),
        lambda g, a, b: [ge(a, 0), ge(b - a, 0), ge(g(MONO_X), 0)], bound=(MONO_X,))


@_lib('elementary')
def integral_nonnegative():
    """0 <= int_0^b g for g >= 0 and b >= 0 (monotonicity of the integral)."""
    return Lemma(
        "the integral of g >= 0 is nonnegative", "g >= 0, b >= 0: int_0^b g >= 0",
        {"g": sp.Lambda(_u, sp.Function("g")(_u)), "b": sp.Symbol("b")},
        lambda g, b: le(0, sp.Integral(g(_eps), (_eps, 0, b))),
        lambda g, b: [ge(b, 0), ge(g(MONO_X), 0)], bound=(MONO_X,))


@_lib('elementary')
def limit_geometric():
    """x <= y + b 2^-M for every integer M >= 1 and b >= 0 imply x <= y (let M -> oo: the definition of the limit).
    The hypothesis carries the lemma's own M, free: a chain proving it for a symbolic M proves it for every M."""
    M = sp.Symbol("M", positive=True, integer=True)
    return Lemma(
        "x <= y + b 2^-M for every M implies x <= y", "x <= y + b 2^-M for all integers M >= 1, b >= 0: x <= y",
        {"x": sp.Symbol("x"), "y": sp.Symbol("y"), "b": sp.Symbol("b")},
        lambda x, y, b: le(x, y),
        lambda x, y, b: [le(x, y + b * 2 ** (-M)), ge(b, 0)], bound=(M,))


# ---------------------------------------------------------------- for Section 4 (App. B), appended
_x0 = sp.Symbol("x0")
_c = sp.Symbol("c")
_j = sp.Symbol("j", integer=True, positive=True)


@_lib('elementary')
def abs_diff_interval():
    """|x - y| <= hi - lo when x, y in [lo, hi] (elementary)."""
    return Lemma(
        "|x - y| <= hi - lo on [lo, hi]", "x, y in [lo, hi] implies |x - y| <= hi - lo",
        {"x": sp.Symbol("x", real=True), "y": sp.Symbol("y", real=True), "lo": sp.Symbol("lo"), "hi": sp.Symbol("hi")},
        lambda x, y, lo, hi: le(sp.Abs(x - y), hi - lo),
        lambda x, y, lo, hi: [ge(x - lo, 0), ge(hi - x, 0), ge(y - lo, 0), ge(hi - y, 0)])


@_lib('elementary')
def rademacher_affine():
    """Empirical Rademacher complexity of {(l - a)/W} is Rad({l})/W for constants a, W > 0
    (E sigma_i = 0 removes a; sup(c f) = c sup f for c > 0)."""
    return Lemma(
        "Rademacher complexity: shift invariance and positive homogeneity",
        "Rad({(l - a)/W : l}) = Rad({l})/W for constants a and W > 0",
        {"Radg": sp.Symbol("Radg"), "Radl": sp.Symbol("Radl"), "W": sp.Symbol("W", positive=True)},
        lambda Radg, Radl, W: eq(Radg, Radl / W),
        lambda Radg, Radl, W: [gt(W, 0)], named=("Radg", "Radl"))


@_lib('Jensen')
def jensen_power_mean(index=_j):
    """Jensen for the convex map u -> u^beta (beta >= 1) and probability weights p_j, in root form:
    sum_j p_j a_j <= (sum_j p_j a_j^beta)^{1/beta}."""
    return Lemma(
        "Jensen's inequality (convex power u^beta, beta >= 1)",
        "sum p_j a_j <= (sum p_j a_j^beta)^{1/beta}, p_j >= 0, sum p_j = 1, a_j >= 0, beta >= 1",
        {"p": sp.Lambda(index, sp.Function("p")(index)), "a": sp.Lambda(index, sp.Function("a")(index)),
         "beta": sp.Symbol("beta"), "k": sp.Symbol("k")},
        lambda p, a, beta, k: le(sp.Sum(p(index) * a(index), (index, 1, k)),
                                 sp.Sum(p(index) * a(index) ** beta, (index, 1, k)) ** (1 / beta)),
        lambda p, a, beta, k: [ge(beta - 1, 0), ge(p(index), 0), eq(sp.Sum(p(index), (index, 1, k)), 1),
                               ge(a(index), 0), ge(k, 0)], bound=(index,))


@_lib('Jensen')
def jensen_concave_power(index=_j):
    """Jensen for the concave map u -> u^g (0 < g <= 1) and probability weights p_i:
    sum_i p_i S_i^g <= (sum_i p_i S_i)^g for S_i >= 0."""
    return Lemma(
        "Jensen's inequality (concave power u^g, 0 < g <= 1)",
        "sum p_i S_i^g <= (sum p_i S_i)^g, p_i >= 0, sum p_i = 1, S_i >= 0, 0 < g <= 1",
        {"p": sp.Lambda(index, sp.Function("p")(index)), "S": sp.Lambda(index, sp.Function("S")(index)),
         "g": sp.Symbol("g", positive=True), "k": sp.Symbol("k")},
        lambda p, S, g, k: le(sp.Sum(p(index) * S(index) ** g, (index, 1, k)),
                              sp.Sum(p(index) * S(index), (index, 1, k)) ** g),
        lambda p, S, g, k: [ge(1 - g, 0), ge(p(index), 0), eq(sp.Sum(p(index), (index, 1, k)), 1),
                            ge(S(index), 0), ge(k, 0)], bound=(index,))


@_lib('power means')
def power_mean_monotone(index=_j):
    """Power means increase with the order (Jensen for u -> u^{s/r}, s >= r > 0), raised to the power s:
    (sum_j p_j a_j^r)^{s/r} <= sum_j p_j a_j^s."""
    return Lemma(
        "power-mean inequality (order r <= s)",
        "(sum p_j a_j^r)^{s/r} <= sum p_j a_j^s, p_j >= 0, sum p_j = 1, a_j >= 0, 0 < r <= s",
        {"p": sp.Lambda(index, sp.Function("p")(index)), "a": sp.Lambda(index, sp.Function("a")(index)),
         "r": sp.Symbol("r", positive=True), "s": sp.Symbol("s", positive=True), "k": sp.Symbol("k")},
        lambda p, a, r, s, k: le(sp.Sum(p(index) * a(index) ** r, (index, 1, k)) ** (s / r),
                                 sp.Sum(p(index) * a(index) ** s, (index, 1, k))),
        lambda p, a, r, s, k: [ge(s - r, 0), ge(p(index), 0), eq(sp.Sum(p(index), (index, 1, k)), 1),
                               ge(a(index), 0), ge(k, 0)], bound=(index,))


@_lib('elementary')
def sum_monotone(index=_j):
    """Termwise monotonicity of a finite sum: U_j <= V_j for all j implies sum U_j <= sum V_j."""
    return Lemma(
        "monotonicity of finite sums", "U_j <= V_j (j = 1..k) implies sum_j U_j <= sum_j V_j",
        {"U": sp.Lambda(index, sp.Function("U")(index)), "V": sp.Lambda(index, sp.Function("V")(index)),
         "k": sp.Symbol("k")},
        lambda U, V, k: le(sp.Sum(U(index), (index, 1, k)), sp.Sum(V(index), (index, 1, k))),
        lambda U, V, k: [ge(V(index) - U(index), 0), ge(k, 0)], bound=(index,))


@_lib('mean value theorem / FTC')
def logsumexp_lipschitz(index=_j):
    """[Lei et al. 2019]: l^log(v) = log(1 + sum_j e^{-v_j}) is 1-Lipschitz for the sup norm on R^k:
    |l^log(v) - l^log(v')| <= m whenever m >= |v_j - v'_j| for every j."""
    return Lemma(
        "l^log is 1-Lipschitz in the sup norm [Lei et al. 2019]",
        "|log(1 + sum_j e^{-v_j}) - log(1 + sum_j e^{-v'_j})| <= max_j |v_j - v'_j|",
        # real v, w: |log(1 + e^{-3.1 i}) - log 2| = 4.17 > 3.1 (a nineteenth probe, Dec 2026)
        {"v": sp.Lambda(index, sp.Function("v", real=True)(index)), "w": sp.Lambda(index, sp.Function("w", real=True)(index)),
         "m": sp.Symbol("m", nonnegative=True), "k": sp.Symbol("k")},
        lambda v, w, m, k: le(sp.Abs(sp.log(1 + sp.Sum(sp.exp(-v(index)), (index, 1, k)))
                                     - sp.log(1 + sp.Sum(sp.exp(-w(index)), (index, 1, k)))), m),
        lambda v, w, m, k: [ge(m - sp.Abs(v(index) - w(index)), 0), ge(k, 0)], bound=(index,))


@_lib('triangle')
def triangle_n():
    """|x_1 + ... + x_m| <= |x_1| + ... + |x_m| (real x_i, given as a list)."""
    return Lemma(
        "triangle inequality (m terms)", "|sum_i x_i| <= sum_i |x_i|", {"xs": [sp.Symbol("x1", real=True)]},
        lambda xs: le(sp.Abs(sp.Add(*xs)), sp.Add(*[sp.Abs(t) for t in xs])))


@_lib('triangle')
def triangle_sum(index=_j):
    """|sum_{j<=k} x_j| <= sum_{j<=k} |x_j| (k symbolic; x a Lambda of the index)."""
    return Lemma(
        "triangle inequality (finite sums)", "|sum_j x_j| <= sum_j |x_j|",
        {"x": sp.Lambda(index, sp.Function("x", real=True)(index)), "k": sp.Symbol("k")},
        lambda x, k: le(sp.Abs(sp.Sum(x(index), (index, 1, k))), sp.Sum(sp.Abs(x(index)), (index, 1, k))),
        lambda x, k: [ge(k, 0)])


@_lib('Cauchy-Schwarz')
def cauchy_schwarz_norms():
    """|<u, v>| <= ||u|| ||v|| with the inner product given by components and the norms by symbols."""
    return Lemma(
        "Cauchy-Schwarz inequality (vectors)", "|<u, v>| <= ||u||_2 ||v||_2",
        {"u": [sp.Symbol("u1", real=True)], "v": [sp.Symbol("v1", real=True)],
         "nu": sp.Symbol("nu", nonnegative=True), "nv": sp.Symbol("nv", nonnegative=True)},
        lambda u, v, nu, nv: le(sp.Abs(sp.Add(*[x * y for x, y in zip(u, v)])), nu * nv),
        lambda u, v, nu, nv: [eq(nu, sp.sqrt(sp.Add(*[x ** 2 for x in u]))), eq(nv, sp.sqrt(sp.Add(*[y ** 2 for y in v])))])


@_lib('Minkowski')
def minkowski_mean():
    """Minkowski in R^n with the normalised l2 norm: (mean_i (sum_r x_r(i))^2)^{1/2} <= sum_r (mean_i x_r(i)^2)^{1/2}."""
    i = sp.Symbol("i", integer=True, positive=True)
    return Lemma(
        "Minkowski's inequality (triangle inequality in R^n)",
        "(n^-1 sum_i (sum_r x_r(i))^2)^{1/2} <= sum_r (n^-1 sum_i x_r(i)^2)^{1/2}, x_r(i) >= 0",
        # real vectors: x_1 = (i, 1), x_2 = (-i, 1) proved sqrt(2) <= 0 (a nineteenth probe, Dec 2026)
        {"xs": [sp.Lambda(i, sp.Function("x", real=True)(i))], "n": sp.Symbol("n")},
        lambda xs, n: le(sp.sqrt(sp.Sum(sp.Add(*[x(i) for x in xs]) ** 2, (i, 1, n)) / n),
                         sp.Add(*[sp.sqrt(sp.Sum(x(i) ** 2, (i, 1, n)) / n) for x in xs])),
        lambda xs, n: [gt(n, 0)])


@_lib('mean value theorem / FTC')
def ftc_antiderivative():
    """int_0^U f = F(U) when F' = f on (0, U], F is smooth on (0, oo) (``smooth_conditions``; so f, its derivative, is
    continuous on (0, U]) and F(0+) = 0 (hypotheses checked by the CAS): the improper Riemann integral."""
    e = sp.Symbol("epsilon", positive=True)
    return Lemma(
        "fundamental theorem of calculus (antiderivative)", "int_0^U f = F(U) - F(0+) if F' = f",
        {"F": sp.Lambda(_u, sp.Function("F")(_u)), "f": sp.Lambda(_u, sp.Function("f")(_u)),
         "U": sp.Symbol("U", positive=True)},
        lambda F, f, U: eq(sp.Integral(f(e), (e, 0, U)), F(U)),
        lambda F, f, U: [eq(sp.diff(F(e), e), f(e)), eq(sp.Limit(F(e), e, 0, "+"), 0)] + smooth_conditions(F, _y),
        bound=(_y, e))


@_lib('elementary')
def log1p_le():
    """log(1 + x) <= x for x >= 0."""
    return Lemma(
        "log(1 + x) <= x", "log(1 + x) <= x for x >= 0", {"x": sp.Symbol("x", nonnegative=True)},
        lambda x: le(sp.log(1 + x), x), lambda x: [ge(x, 0)])


@_lib('elementary')
def convex_tangent():
    """A convex C^2 function on (0, oo) lies above its tangent there: g(x) >= g(x0) + g'(x0)(x - x0) for x, x0 > 0.
    Hypotheses: g'' >= 0 at every y > 0 (``_y`` is a positive symbol), x > 0 and x0 > 0 (the convexity is
    checked on (0, oo) only), g smooth on (0, oo) (``smooth_conditions``)."""
    return Lemma(
        "convex function above its tangent", "g(x) >= g(x0) + g'(x0)(x - x0) for x, x0 > 0 and g'' >= 0 on (0, oo)",
        {"g": sp.Lambda(_u, sp.Function("g")(_u)), "x": sp.Symbol("x"), "x0": _x0},
        lambda g, x, x0: ge(g(x), g(x0) + sp.diff(g(_u), _u).subs(_u, x0) * (x - x0)),
        lambda g, x, x0: [ge(sp.diff(g(_y), _y, 2), 0), gt(x, 0), gt(x0, 0)] + smooth_conditions(g, _y), bound=(_y,))


@_lib('elementary')
def concave_chord():
    """A concave C^2 function on [0, 1] lies above its chord: h(x) >= (1 - x) h(0) + x h(1).  Hypotheses:
    -h'' >= 0 at every y > 0 (``_y`` is a positive symbol; (0, 1) lies inside), x in [0, 1], and h smooth on
    [0, oo) (``smooth_conditions``), so continuous at 0."""
    return Lemma(
        "concave function above its chord", "h(x) >= (1 - x) h(0) + x h(1) for x in [0, 1], h'' <= 0",
        {"h": sp.Lambda(_u, sp.Function("h")(_u)), "x": sp.Symbol("x")},
        lambda h, x: ge(h(x), (1 - x) * h(0) + x * h(1)),
        lambda h, x: [ge(-sp.diff(h(_y), _y, 2), 0), ge(x, 0), ge(1 - x, 0)] + smooth_conditions(h, _y_closed),
        bound=(_y, _y_closed))


@_lib('elementary')
def min_branch():
    """min{p, q} = q when p >= q."""
    return Lemma(
        "min{p, q} = q if q <= p", "min{p, q} = q when p - q >= 0",
        {"p": sp.Symbol("p", real=True), "q": sp.Symbol("q", real=True)},
        lambda p, q: eq(q, sp.Min(p, q)), lambda p, q: [ge(p, q)])


@_lib('elementary')
def max_above():
    """max{p, q} >= q."""
    return Lemma(
        "max{p, q} >= q", "max{p, q} >= q",
        {"p": sp.Symbol("p", real=True), "q": sp.Symbol("q", real=True)},
        lambda p, q: ge(sp.Max(p, q), q), lambda p, q: [])


@_lib('elementary')
def max_below():
    """max{p, q} <= c when p <= c and q <= c."""
    return Lemma(
        "max{p, q} <= c if p, q <= c", "max{p, q} <= c when c - p >= 0 and c - q >= 0",
        {"p": sp.Symbol("p", real=True), "q": sp.Symbol("q", real=True), "c": sp.Symbol("c", real=True)},
        lambda p, q, c: le(sp.Max(p, q), c), lambda p, q, c: [le(p, c), le(q, c)])


@_lib('covering numbers of balls')
def dudley_covering_transfer():
    """(53) + [Wainwright 2019, eq. 5.9]: if rho_n(phi_theta, phi_theta') <= L ||theta - theta'|| on the ball
    Theta of radius R in R^d, then N(eps, Phi, rho_n) <= N(eps/L, Theta) <= (1 + 2RL/eps)^d; hence
    int_0^U sqrt(log N(eps, Phi, rho_n)) <= sqrt(d) int_0^U sqrt(log(1 + 2RL/eps)) (monotonicity of the
    integral).  Hypothesis: the Lipschitz bound ``rho <= L dth`` (``rho`` = rho_n(phi_theta, phi_theta'),
    ``dth`` = ||theta - theta'||)."""
    e = sp.Symbol("epsilon", positive=True)
    return Lemma(
        "covering-number transfer (53) and the volumetric bound [Wainwright 2019, eq. 5.9]",
        "rho_n <= L ||theta - theta'|| on the ball of radius R of R^d implies log N(eps, Phi, rho_n) <= "
        "d log(1 + 2RL/eps), then monotonicity of the integral",
        {"logN": sp.Lambda(_u, sp.Function("logN")(_u)), "d": sp.Symbol("d", positive=True),
         "R": sp.Symbol("R", positive=True), "L": sp.Symbol("L", positive=True), "U": sp.Symbol("U", positive=True),
         "rho": sp.Symbol("rho", nonnegative=True), "dth": sp.Symbol("Dtheta", positive=True)},
        lambda logN, d, R, L, U, rho, dth: le(sp.Integral(sp.sqrt(logN(e)), (e, 0, U)),
                                              sp.sqrt(d) * sp.Integral(sp.sqrt(sp.log(1 + 2 * R * L / e)), (e, 0, U))),
        # logN is log N(eps, Phi, rho_n), defined in words: a name, never a formula (logN = 4 log(1 + 2/eps) proved
        # int 2 sqrt(log(1 + 2/eps)) <= int sqrt(log(1 + 2/eps)); an eighteenth probe, Dec 2026)
        lambda logN, d, R, L, U, rho, dth: [le(rho, L * dth)], named=("logN",))


@_lib('covering numbers')
def covering_non_increasing():
    """N(r, S, rho) is non-increasing in r: an r-cover is an r'-cover for every r' >= r.  ``logN``: r -> log N(r, S, rho)
    for a set S of a (pseudo)metric space; the conclusion holds for every x, h > 0 (x_g, h_g: the form in which
    the lemmas that need a non-increasing function take it as a hypothesis)."""
    return Lemma(
        "covering numbers are non-increasing in the radius", "log N(x + h, S, rho) <= log N(x, S, rho) for all x, h > 0",
        {"logN": sp.Lambda(_u, sp.Function("logN")(_u))},
        lambda logN: le(logN(MONO_X + MONO_H), logN(MONO_X)),
        lambda logN: [], named=("logN",))


@_lib('covering numbers')
def covering_lipschitz_image():
    """If ||f(x) - f(x')|| = L rho(x, x') for all x, x' of S (L-Lipschitz would do), the images of an r-cover of S in
    rho are an (L r)-cover of f(S) in the Euclidean norm: N(L r, f(S)) <= N(r, S, rho).  ``logNA`` and ``logN``:
    r -> the log covering numbers of f(S) and of S in rho; ``dist`` and ``rho``: ||f(x) - f(x')|| and rho(x, x')
    at a generic pair of S (the hypothesis then holds for every pair).  The hypothesis is the equality, not the
    Lipschitz bound: nothing here ties ``logN`` to ``rho``, and a larger ``rho`` (another metric, other covering
    numbers) would pass a bound."""
    return Lemma(
        "covering numbers of a Lipschitz image", "||f(x) - f(x')|| = L rho(x, x') on S implies N(L r, f(S)) <= N(r, S, rho)",
        {"logNA": sp.Lambda(_u, sp.Function("logNA")(_u)), "logN": sp.Lambda(_u, sp.Function("logN")(_u)),
         "L": sp.Symbol("L", positive=True), "r": sp.Symbol("r", positive=True),
         "dist": sp.Symbol("dist", nonnegative=True), "rho": sp.Symbol("rho", nonnegative=True)},
        lambda logNA, logN, L, r, dist, rho: le(logNA(L * r), logN(r)),
        lambda logNA, logN, L, r, dist, rho: [gt(L, 0), gt(r, 0), eq(dist, L * rho)], named=("logNA", "logN"))


@_lib('covering numbers')
def radius_lipschitz_image():
    """The radius c = min_abar max_{a in f(S)} ||a - abar|| of f(S) (the c of Lemma 27.4) is at most L rho_0 when
    ||f(x) - f(x0)|| <= L rho(x, x0) and rho(x, x0) <= rho_0 for every x of S: take abar = f(x0).  ``dist0`` and
    ``rho``: ||f(x) - f(x0)|| and rho(x, x0) at a generic x of S."""
    return Lemma(
        "the radius of a Lipschitz image", "||f(x) - f(x0)|| <= L rho(x, x0) <= L rho_0 on S implies "
        "min_abar max_{a in f(S)} ||a - abar|| <= L rho_0",
        {"c": sp.Symbol("c", positive=True), "L": sp.Symbol("L", positive=True), "rho0": sp.Symbol("rho_0", nonnegative=True),
         "dist0": sp.Symbol("dist_0", nonnegative=True), "rho": sp.Symbol("rho", nonnegative=True)},
        lambda c, L, rho0, dist0, rho: le(c, L * rho0),
        lambda c, L, rho0, dist0, rho: [gt(L, 0), le(dist0, L * rho), le(rho, rho0)], named=("c",))


# ---------------------------------------------------------------- for the remainder bounds (expansions, A2.32)
class Liminf(sp.Function):
    """liminf_{n -> oo} of ``expr`` (``Liminf(expr, n)``): kept unevaluated (the numeric spot check of an
    identity reads it as its argument: ``chain._spot_values``)."""
    nargs = 2
    spot_as_argument = True

    def _latex(self, printer, exp=None):
        t = r"\liminf_{%s \to \infty} \left(%s\right)" % (printer._print(self.args[1]), printer._print(self.args[0]))
        return t if exp is None else r"\left(%s\right)^{%s}" % (t, exp)


class Limsup(sp.Function):
    """limsup_{n -> oo} of ``expr`` (``Limsup(expr, n)``): kept unevaluated (read as its argument by the
    numeric spot check, as ``Liminf``)."""
    nargs = 2
    spot_as_argument = True

    def _latex(self, printer, exp=None):
        t = r"\limsup_{%s \to \infty} \left(%s\right)" % (printer._print(self.args[1]), printer._print(self.args[0]))
        return t if exp is None else r"\left(%s\right)^{%s}" % (t, exp)


@_lib('Taylor (Lagrange remainder)')
def taylor_lagrange_point(order):
    """Taylor's theorem about 0 with the Lagrange remainder of order ``order + 1``, the intermediate
    point written as theta = y/(1 + t) for some t > 0 (theta strictly between 0 and y; any t when
    y = 0).  F must be ``order + 1`` times differentiable on (lo, oo) with lo < 0 and lo < y, so that
    the segment [0, y] lies in its domain: those are the hypotheses (F smooth on (lo, oo): ``smooth_conditions``
    at lo + y, y > 0)."""
    u = sp.Symbol("u")
    return Lemma(
        f"Taylor's theorem with Lagrange remainder (order {order}), point y/(1+t)",
        f"F(y) = sum_(n<={order}) F^(n)(0) y^n/n! + F^({order + 1})(y/(1+t)) y^{order + 1}/({order + 1})!, some t > 0, "
        "F smooth on (lo, oo), lo < min(0, y)",
        {"F": sp.Lambda(u, sp.Function("F")(u)), "Y": sp.Symbol("y", real=True), "T": sp.Symbol("t", positive=True),
         "lo": sp.Symbol("lo", real=True)},
        lambda F, Y, T, lo: eq(F(Y), sp.Add(*[sp.diff(F(u), u, n).subs(u, 0) * Y ** n / sp.factorial(n)
                                               for n in range(order + 1)])
                               + sp.diff(F(u), u, order + 1).subs(u, Y / (1 + T)) * Y ** (order + 1)
                               / sp.factorial(order + 1)),
        lambda F, Y, T, lo: [gt(T, 0), gt(Y - lo, 0), gt(-lo, 0)] + smooth_conditions(F, lo + _y)
        + real_values(F, lo + _y), witnesses=("T",), bound=(_y,))


@_lib('elementary')
def power_monotone():
    """u -> u^p is increasing on [0, oo) for p > 0: 0 <= a <= b implies a^p <= b^p."""
    return Lemma(
        "u^p is increasing (p > 0)", "0 <= a <= b implies a^p <= b^p for p > 0",
        {"a": sp.Symbol("a", nonnegative=True), "b": sp.Symbol("b", nonnegative=True), "p": sp.Symbol("p", positive=True)},
        lambda a, b, p: le(a ** p, b ** p),
        lambda a, b, p: [ge(a, 0), ge(b - a, 0), gt(p, 0)])


@_lib('elementary')
def abs_between():
    """c - r <= x <= c + r implies |x - c| <= r."""
    return Lemma(
        "|x - c| <= r from c - r <= x <= c + r", "c - r <= x <= c + r implies |x - c| <= r",
        {"x": sp.Symbol("x", real=True), "c": sp.Symbol("c", real=True), "r": sp.Symbol("r", nonnegative=True)},
        lambda x, c, r: le(sp.Abs(x - c), r),
        lambda x, c, r: [ge(x - (c - r), 0), ge(c + r - x, 0)])


@_lib('elementary')
def liminf_monotone():
    """Monotonicity of liminf: U_n >= V_n for every n implies liminf U_n >= liminf V_n."""
    n = sp.Symbol("n", positive=True, integer=True)
    return Lemma(
        "monotonicity of liminf", "U_n >= V_n for all n implies liminf U_n >= liminf V_n",
        {"U": sp.Symbol("U"), "V": sp.Symbol("V"), "n": n},
        lambda U, V, n: ge(Liminf(U, n), Liminf(V, n)),
        lambda U, V, n: [ge(U - V, 0)])


@_lib('elementary')
def liminf_of_limit():
    """The definition of the limit: if V_n -> L then liminf V_n = L."""
    n = sp.Symbol("n", positive=True, integer=True)
    return Lemma(
        "liminf of a convergent sequence", "V_n -> L implies liminf V_n = L",
        {"V": sp.Symbol("V"), "n": n, "L": sp.Symbol("L")},
        lambda V, n, L: eq(Liminf(V, n), L),
        lambda V, n, L: [eq(sp.Limit(V, n, sp.oo), L)])


@_lib('limsup and liminf')
def limsup_bounded():
    """A sequence bounded above: U_n <= B for every n, B free of n, implies limsup U_n <= B.  "B free of n" is
    the hypothesis B(n + 1) = B(n)."""
    n = sp.Symbol("n", positive=True, integer=True)
    return Lemma(
        "limsup of a sequence bounded above", "U_n <= B for all n (B free of n) implies limsup U_n <= B",
        {"U": sp.Symbol("U"), "B": sp.Symbol("B"), "n": n},
        lambda U, B, n: le(Limsup(U, n), B),
        lambda U, B, n: [ge(B - U, 0), eq(sp.sympify(B).subs(n, n + 1), B)])


@_lib('limsup and liminf')
def limsup_ratio():
    """The limsup of a ratio: u_n >= 0 for every n, limsup u_n <= A and liminf v_n >= B > 0 (A, B free of n)
    imply limsup u_n/v_n <= A/B, i.e. limsup u_n/v_n <= limsup u_n / liminf v_n bounded by A/B.  (v_n > 0 for
    all large n since liminf v_n > 0: the limsup is that of the tail.  For 0 < e < B, eventually u_n <= A + e
    and v_n >= B - e > 0, so 0 <= u_n/v_n <= (A + e)/(B - e); let e -> 0.)  "A, B free of n" are the
    hypotheses A(n + 1) = A(n), B(n + 1) = B(n)."""
    n = sp.Symbol("n", positive=True, integer=True)
    return Lemma(
        "limsup of a ratio",
        "u_n >= 0, limsup u_n <= A, liminf v_n >= B > 0 (A, B free of n) imply limsup u_n/v_n <= A/B",
        {"U": sp.Symbol("U"), "V": sp.Symbol("V"), "n": n, "A": sp.Symbol("A"), "B": sp.Symbol("B", positive=True)},
        lambda U, V, n, A, B: le(Limsup(U / V, n), A / B),
        lambda U, V, n, A, B: [ge(U, 0), ge(A - Limsup(U, n), 0), ge(Liminf(V, n) - B, 0), gt(B, 0),
                               eq(sp.sympify(A).subs(n, n + 1), A), eq(sp.sympify(B).subs(n, n + 1), B)])


@_lib('Fatou')
def fatou(E):
    """Fatou's lemma for the expectation ``E``: F_n >= 0 for every n implies liminf_n E[F_n] >= E[liminf_n F_n]."""
    n = sp.Symbol("n", positive=True, integer=True)
    return Lemma(
        "Fatou's lemma", "F_n >= 0 for all n implies liminf E[F_n] >= E[liminf F_n]",
        {"F": sp.Symbol("F"), "n": n},
        lambda F, n: ge(Liminf(E(F), n), E(Liminf(F, n))),
        lambda F, n: [ge(F, 0)])


# ---------------------------------------------------------------- vectors of R^d with d symbolic (indexed sums), appended
_l = sp.Symbol("l", integer=True, positive=True)      # coordinate index 1..d
_dim = sp.Symbol("d", integer=True, positive=True)
_ci = sp.Symbol("c", real=True)                        # the integration variable on [0, 1]


def _nrm(u, d):
    return sp.sqrt(sp.Sum(u(_l) ** 2, (_l, 1, d)))


@_lib('Cauchy-Schwarz')
def cauchy_schwarz_sum():
    """|sum_{l<=d} u_l v_l| <= (sum_l u_l^2)^{1/2} (sum_l v_l^2)^{1/2} in R^d, d symbolic (u, v Lambdas of l)."""
    return Lemma(
        "Cauchy-Schwarz inequality in R^d", "|<u, v>| <= ||u||_2 ||v||_2, u, v in R^d",
        {"u": sp.Lambda(_l, sp.Function("u", real=True)(_l)), "v": sp.Lambda(_l, sp.Function("v", real=True)(_l)),
         "d": _dim},
        lambda u, v, d: le(sp.Abs(sp.Sum(u(_l) * v(_l), (_l, 1, d))), _nrm(u, d) * _nrm(v, d)))


@_lib('Minkowski')
def minkowski_sum():
    """||x + y|| <= ||x|| + ||y|| in R^d, d symbolic (x, y Lambdas of l)."""
    return Lemma(
        "Minkowski's inequality in R^d (triangle inequality of the norm)", "||x + y||_2 <= ||x||_2 + ||y||_2, x, y in R^d",
        {"x": sp.Lambda(_l, sp.Function("x", real=True)(_l)), "y": sp.Lambda(_l, sp.Function("y", real=True)(_l)),
         "d": _dim},
        lambda x, y, d: le(sp.sqrt(sp.Sum((x(_l) + y(_l)) ** 2, (_l, 1, d))), _nrm(x, d) + _nrm(y, d)))


@_lib('triangle')
def norm_segment():
    """||(1 - c) x + c y|| <= (1 - c) ||x|| + c ||y|| for c in [0, 1] (triangle inequality and homogeneity of the
    norm), in R^d with d symbolic; hypotheses c >= 0 and 1 - c >= 0."""
    return Lemma(
        "norm of a convex combination of two vectors", "||(1-c) x + c y||_2 <= (1-c)||x||_2 + c||y||_2, c in [0, 1]",
        {"x": sp.Lambda(_l, sp.Function("x", real=True)(_l)), "y": sp.Lambda(_l, sp.Function("y", real=True)(_l)),
         "c": _ci, "d": _dim},
        lambda x, y, c, d: le(sp.sqrt(sp.Sum(((1 - c) * x(_l) + c * y(_l)) ** 2, (_l, 1, d))),
                              (1 - c) * _nrm(x, d) + c * _nrm(y, d)),
        lambda x, y, c, d: [ge(c, 0), ge(1 - c, 0)])


@_lib('triangle')
def norm_convex_sum(index=_j):
    """||sum_j p_j v_j|| <= sum_j p_j ||v_j|| in R^d (p_j >= 0), d and k symbolic; v a Lambda of (j, l)."""
    return Lemma(
        "triangle inequality (weighted sum of vectors of R^d)", "||sum_j p_j v_j||_2 <= sum_j p_j ||v_j||_2, p_j >= 0",
        {"p": sp.Lambda(index, sp.Function("p")(index)),
         "v": sp.Lambda((index, _l), sp.Function("v", real=True)(index, _l)), "k": sp.Symbol("k"), "d": _dim},
        lambda p, v, k, d: le(sp.sqrt(sp.Sum(sp.Sum(p(index) * v(index, _l), (index, 1, k)) ** 2, (_l, 1, d))),
                              sp.Sum(p(index) * sp.sqrt(sp.Sum(v(index, _l) ** 2, (_l, 1, d))), (index, 1, k))),
        lambda p, v, k, d: [ge(p(index), 0), ge(k, 0), ge(d, 0)], bound=(index,))


@_lib('triangle')
def abs_integral():
    """|int_0^1 f| <= int_0^1 |f| (f integrable on [0, 1])."""
    return Lemma(
        "|int f| <= int |f|", "|int_0^1 f(c) dc| <= int_0^1 |f(c)| dc",
        {"F": sp.Lambda(_u, sp.Function("F")(_u))},
        lambda F: le(sp.Abs(sp.Integral(F(_ci), (_ci, 0, 1)), evaluate=False), sp.Integral(sp.Abs(F(_ci)), (_ci, 0, 1))))


@_lib('elementary')
def integral_monotone():
    """Monotonicity of the integral: f(c) <= g(c) for every c in [0, 1] implies int_0^1 f <= int_0^1 g.
    The hypothesis is stated at the integration variable c (a check of it may use 0 <= c <= 1)."""
    return Lemma(
        "monotonicity of the integral", "f <= g on [0, 1] implies int_0^1 f <= int_0^1 g",
        {"f": sp.Lambda(_u, sp.Function("f")(_u)), "g": sp.Lambda(_u, sp.Function("g")(_u))},
        lambda f, g: le(sp.Integral(f(_ci), (_ci, 0, 1)), sp.Integral(g(_ci), (_ci, 0, 1))),
        lambda f, g: [ge(g(_ci) - f(_ci), 0)], bound=(_ci,))


@_lib('elementary')
def abs_scale_le():
    """|w x| <= |x| for 0 <= w <= 1."""
    return Lemma(
        "|w x| <= |x| for w in [0, 1]", "|w x| <= |x| if 0 <= w <= 1",
        {"w": sp.Symbol("w", real=True), "x": sp.Symbol("x", real=True)},
        lambda w, x: le(sp.Abs(w * x), sp.Abs(x)),
        lambda w, x: [ge(w, 0), ge(1 - w, 0)])


@_lib('mean value theorem / FTC')
def ftc_unit_interval():
    """Fundamental theorem of calculus on [0, 1] with a real variable c: F(1) - F(0) = int_0^1 F'(c) dc (F in C^1[0, 1]: F smooth on [0, oo), ``smooth_conditions``)."""
    return Lemma(
        "fundamental theorem of calculus", "F(1) - F(0) = int_0^1 F'(c) dc for F in C^1[0, 1]",
        {"F": sp.Lambda(_u, sp.Function("F")(_u))},
        lambda F: eq(F(1) - F(0), sp.Integral(sp.Derivative(F(_ci), _ci), (_ci, 0, 1))),
        lambda F: smooth_conditions(F, _y_closed), bound=(_y_closed,))


# ---------------------------------------------------------------- for the search-ratio remainder bound (asymptotics), appended
@_lib('elementary')
def sqrt_product_monotone():
    """sqrt(a) sqrt(b) <= sqrt(a) sqrt(c) for a >= 0 and 0 <= b <= c (sqrt increasing, times sqrt(a) >= 0)."""
    return Lemma(
        "sqrt(a) sqrt(b) <= sqrt(a) sqrt(c)", "a >= 0, 0 <= b <= c implies sqrt(a) sqrt(b) <= sqrt(a) sqrt(c)",
        {"a": sp.Symbol("a", nonnegative=True), "b": sp.Symbol("b", nonnegative=True), "c": sp.Symbol("c", nonnegative=True)},
        lambda a, b, c: le(sp.sqrt(a) * sp.sqrt(b), sp.sqrt(a) * sp.sqrt(c)),
        lambda a, b, c: [ge(a, 0), ge(b, 0), ge(c - b, 0)])
