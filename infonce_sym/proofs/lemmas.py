"""Quoted lemmas (results from the literature) as templates with hypotheses.

Each factory returns a :class:`~infonce_sym.derivation.Lemma`; a step using it
is "proved, conditional on the quoted lemma".  Function parameters (``F``) are
passed as ``sympy.Lambda``.
"""
from __future__ import annotations

import sympy as sp

from ..derivation import Lemma, eq, ge, gt, le

_y = sp.Symbol("y", positive=True)       # a point of the (positive) domain of F
_u = sp.Symbol("u")


def jensen_concave(E):
    """Jensen: E F(Y) <= F(E Y) for concave F (hypothesis: -F'' >= 0 on the domain)."""
    return Lemma(
        "Jensen's inequality (concave F)", "E[F(Y)] <= F(E[Y]) for F concave",
        {"F": sp.Lambda(_u, sp.Function("F")(_u)), "Y": sp.Symbol("Y")},
        lambda F, Y: le(E(F(Y)), F(E(Y))),
        lambda F, Y: [ge(-sp.diff(F(_y), _y, 2), 0)])


def taylor2():
    """Taylor's theorem, Lagrange remainder of order 2 (xi between y0 and y)."""
    return Lemma(
        "Taylor's theorem with Lagrange remainder (order 2)",
        "F(y) = F(y0) + F'(y0)(y - y0) + F''(xi)(y - y0)^2/2, some xi between y0 and y",
        {"F": sp.Lambda(_u, sp.Function("F")(_u)), "Y": sp.Symbol("y"), "Y0": sp.Symbol("y0"),
         "XI": sp.Symbol("xi")},
        lambda F, Y, Y0, XI: eq(F(Y), F(Y0) + sp.diff(F(_u), _u).subs(_u, Y0) * (Y - Y0)
                                + sp.diff(F(_u), _u, 2).subs(_u, XI) * (Y - Y0) ** 2 / 2))


def taylor3():
    """Taylor's theorem, Lagrange remainder of order 3."""
    return Lemma(
        "Taylor's theorem with Lagrange remainder (order 3)",
        "F(y) = F(y0) + F'(y0)(y-y0) + F''(y0)(y-y0)^2/2 + F'''(xi)(y-y0)^3/6",
        {"F": sp.Lambda(_u, sp.Function("F")(_u)), "Y": sp.Symbol("y"), "Y0": sp.Symbol("y0"),
         "XI": sp.Symbol("xi")},
        lambda F, Y, Y0, XI: eq(F(Y), F(Y0) + sp.diff(F(_u), _u).subs(_u, Y0) * (Y - Y0)
                                + sp.diff(F(_u), _u, 2).subs(_u, Y0) * (Y - Y0) ** 2 / 2
                                + sp.diff(F(_u), _u, 3).subs(_u, XI) * (Y - Y0) ** 3 / 6))


def popoviciu(Var):
    """Popoviciu: Var(Y) <= (hi - lo)^2 / 4 when lo <= Y <= hi."""
    return Lemma(
        "Popoviciu's inequality on variances", "Var(Y) <= (hi - lo)^2/4 if lo <= Y <= hi a.s.",
        {"Y": sp.Symbol("Y"), "lo": sp.Symbol("lo"), "hi": sp.Symbol("hi")},
        lambda Y, lo, hi: le(Var(Y), (hi - lo) ** 2 / 4),
        lambda Y, lo, hi: [ge(hi - Y, 0), ge(Y - lo, 0)])


def monotone(E):
    """Monotonicity of expectation: U <= V pointwise implies E U <= E V."""
    return Lemma(
        "monotonicity of expectation", "U <= V a.s. implies E[U] <= E[V]",
        {"U": sp.Symbol("U"), "V": sp.Symbol("V")},
        lambda U, V: le(E(U), E(V)),
        lambda U, V: [ge(V - U, 0)])


def abs_expectation(E):
    """|E Y| <= E|Y| (Jensen for the absolute value)."""
    return Lemma(
        "|E Y| <= E|Y|", "|E[Y]| <= E[|Y|]", {"Y": sp.Symbol("Y", real=True)},
        lambda Y: le(sp.Abs(E(Y)), E(sp.Abs(Y))))


def triangle():
    """The triangle inequality |x + y| <= |x| + |y|."""
    return Lemma(
        "triangle inequality", "|x + y| <= |x| + |y|",
        {"x": sp.Symbol("x", real=True), "y": sp.Symbol("y", real=True)},
        lambda x, y: le(sp.Abs(x + y), sp.Abs(x) + sp.Abs(y)))


def limit_lower():
    """If F -> L > 0 at a limit point then, for 0 < a < 1, F >= (1 - a) L near it."""
    return Lemma(
        "definition of the limit", "F(delta) -> L > 0 implies F(delta) >= (1 - a) L for small delta, 0 < a < 1",
        {"F": sp.Symbol("F"), "point": {}, "L": sp.Symbol("L"), "a": sp.Symbol("a")},
        lambda F, point, L, a: ge(F, (1 - a) * L),
        lambda F, point, L, a: [eq(F.subs(point), L), gt(L, 0), gt(a, 0), gt(1 - a, 0)])


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
def cauchy_schwarz(E):
    """Cauchy-Schwarz for an expectation: |E[XY]| <= sqrt(E X^2) sqrt(E Y^2)."""
    return Lemma(
        "Cauchy-Schwarz inequality", "|E[XY]| <= (E[X^2])^{1/2} (E[Y^2])^{1/2}",
        {"X": sp.Symbol("X", real=True), "Y": sp.Symbol("Y", real=True)},
        lambda X, Y: le(sp.Abs(E(X * Y)), sp.sqrt(E(X ** 2)) * sp.sqrt(E(Y ** 2))))


def cauchy_schwarz_vectors():
    """|<a, b>| <= ||a|| ||b|| for finite real vectors given as lists."""
    return Lemma(
        "Cauchy-Schwarz inequality (vectors)", "|<a, b>| <= ||a||_2 ||b||_2",
        {"a": [sp.Symbol("a1", real=True)], "b": [sp.Symbol("b1", real=True)]},
        lambda a, b: le(sp.Abs(sp.Add(*[x * y for x, y in zip(a, b)])),
                        sp.sqrt(sp.Add(*[x ** 2 for x in a])) * sp.sqrt(sp.Add(*[y ** 2 for y in b]))))


def cauchy_schwarz_integral():
    """int_0^U f <= U^{1/2} (int_0^U f^2)^{1/2} (as used after (54))."""
    e = sp.Symbol("epsilon", positive=True)
    return Lemma(
        "Cauchy-Schwarz inequality (integrals)", "int_0^U f <= (int_0^U 1)^{1/2} (int_0^U f^2)^{1/2}",
        {"F": sp.Lambda(_u, sp.Function("F")(_u)), "U": sp.Symbol("U", positive=True)},
        lambda F, U: le(sp.Integral(F(e), (e, 0, U)), sp.sqrt(U) * sp.sqrt(sp.Integral(F(e) ** 2, (e, 0, U)))),
        lambda F, U: [ge(U, 0)])


def mohri_3_3():
    """[Mohri et al., 2018, Thm. 3.3] as used in (34): for a class of [0, 1]-valued g and n i.i.d.
    samples, with probability >= 1 - delta, uniformly over the class,
    E g <= (1/n) sum g(Z_i) + 2 (empirical Rademacher complexity) + 3 sqrt(log(2/delta)/(2n))."""
    return Lemma(
        "Mohri et al. (2018), Thm. 3.3", "E g <= mean_n g + 2 Rad_S(G) + 3 sqrt(log(2/delta)/(2n)) w.p. >= 1 - delta, g in [0,1]",
        {"Eg": sp.Symbol("Eg"), "mean": sp.Symbol("mean"), "Rad": sp.Symbol("Rad"),
         "n": sp.Symbol("n", positive=True, integer=True), "delta": sp.Symbol("delta", positive=True)},
        lambda Eg, mean, Rad, n, delta: le(Eg, mean + 2 * Rad + 3 * sp.sqrt(sp.log(2 / delta) / (2 * n))),
        lambda Eg, mean, Rad, n, delta: [gt(n, 0), gt(delta, 0), gt(1 - delta, 0)])


def dudley():
    """Dudley's entropy integral, [Wainwright, 2019, eq. 5.48] as used in (54):
    Rad <= (24/sqrt(n)) int_0^D sqrt(log N(eps)) d eps, D >= the diameter of the class."""
    e = sp.Symbol("epsilon", positive=True)
    return Lemma(
        "Dudley's entropy integral", "Rad_n <= (24/sqrt(n)) int_0^D sqrt(log N(eps)) deps",
        {"Rad": sp.Symbol("Rad"), "logN": sp.Lambda(_u, sp.Function("logN")(_u)),
         "n": sp.Symbol("n", positive=True, integer=True), "D": sp.Symbol("D", positive=True)},
        lambda Rad, logN, n, D: le(Rad, 24 / sp.sqrt(n) * sp.Integral(sp.sqrt(logN(e)), (e, 0, D))),
        lambda Rad, logN, n, D: [gt(n, 0), ge(D, 0)])
