"""Section 4 and App. B of Whiteley (2026): the bounds as SymPy expressions (data), lambdified.

Every entry of :data:`BOUNDS` is a SymPy expression in the symbols of :data:`SYMBOLS`;
:func:`bound` turns one into a numpy or mpmath callable whose positional arguments are the
free symbols in the order of ``BOUND_ARGS[id]``.  :data:`CONSTANTS` lists the triples
``[c_a, c_p, c_n]`` of the continuity bounds of the form
``(c_a*Da + c_p*Dp + c_n*e^{2/(beta*tau)}*PM)/tau``.

Notation (one tuple ``z = (z^a, z^+, z_1^-, ..., z_k^-)``, ``Delta = phi - phi'``):

``Da = ||Delta(z^a)||``, ``Dp = ||Delta(z^+)||``, ``PM = (k^-1 sum_j ||Delta(z_j^-)||^beta)^(1/beta)``,
``Mx = max_j ||Delta(z_j^-)||``, ``Mv = max_j |v_j - v_j'|`` with ``v_j`` as in (15) times ``tau``
(i.e. ``Mv = max_j |<phi(z^a), phi(z^+) - phi(z_j^-)> - <phi'(z^a), phi'(z^+) - phi'(z_j^-)>|``).

Section 4.2 (data functionals of a sample of tuples, all norms of inputs ``z``):
``Ra = (n^-1 sum ||z_i^a||^2)^(1/2)``, ``Rp = (n^-1 sum ||z_i^+||^2)^(1/2)``,
``Nn = ((nk)^-1 sum ||z_ij^-||^(2/(1 ^ tau)))^((1 ^ tau)/2)``, ``B_tau = Ra + Rp + Nn`` (Lemma 1),
``B_max = (n^-1 sum_i (||z_i^a||^2 + ||z_i^+||^2 + max_j ||z_ij^-||^2))^(1/2)`` (Lipschitz route).

The sharpened Prop. 4 (constants [2, 1, 1]) -- derivation, from the paper's own (43) and Lemma 6:
with ``xi = (1-c) phi + c phi'`` (so ``||xi||_{2,inf} <= 1``) and ``w = e^H/(1/k + e^H) in (0, 1)``,

    l(phi) - l(phi') = (w/tau) [ <Da_vec, G(xi,xi) - xi(z^+)> + <xi(z^a), G(xi,Delta) - Delta(z^+)> ].

``G(xi, xi) = sum_j p_j xi(z_j^-)`` is a convex combination of vectors of norm <= 1, so
``||G(xi,xi) - xi(z^+)|| <= 2``; ``||xi(z^a)|| <= 1``; ``||G(xi, Delta)|| <= e^{2/(beta tau)} PM`` (Lemma 8).
Cauchy-Schwarz on the two inner products (no regrouping (44)-(46)) gives
``|l(phi) - l(phi')| <= (2 Da + Dp + e^{2/(beta tau)} PM)/tau``.  The anchor constant 2 is attained
in the limit (k -> inf, phi(z_j^-) = -phi(z^+) orthogonal to phi(z^a), Delta(z^a) small along phi(z_j^-)).

Lemma 1 from the proof as written: (50)-(52) give, with ``beta = 1 v 2/tau``,
``rho_n <= (C_Phi/tau)(4 Ra + Rp + 3 e Nn) ||theta - theta'||`` (the paper then bounds this by
``(4e/tau) B_tau C_Phi``); with [2, 1, 1]: ``rho_n <= (C_Phi/tau)(2 Ra + Rp + e Nn) ||theta-theta'||``.

Lipschitz route for Rademacher: (18) and (C) give per tuple
``|l_i(theta) - l_i(theta')| <= (sqrt6/tau) C_Phi ||theta - theta'|| (||z_i^a||^2 + ||z_i^+||^2 +
max_j ||z_ij^-||^2)^(1/2)``, hence ``rho_n <= L_lip ||theta - theta'||`` with ``L_lip = sqrt6 C_Phi B_max/tau``;
the proof of Prop. 5 verbatim (2RL/U = 2 a with a = tau R L/4) gives
``Rad <= (96/tau) sqrt(d_Theta/n) min{a_lip sqrt(log3 + 1), sqrt(log(1 + 2 a_lip) + 1)}``,
``a_lip = (sqrt6/4) R C_Phi B_max`` -- a max over negatives (per tuple) in place of the power mean.

Prop. 5 through Dudley: for a Lipschitz constant ``L`` (``rho_n <= L ||theta - theta'||``) and
``U = 4/tau ^ L R`` the proof bounds ``Rad <= (24/sqrt n) int_0^U sqrt(d_Theta log(1 + 2RL/eps)) deps``
and then uses Cauchy-Schwarz.  :func:`dudley_integral` evaluates the integral exactly (mpmath.quad)
and by the series (substitute ``t = log(1 + 2RL/eps)``, integrate by parts):

    int_0^U sqrt(log(1+2RL/eps)) deps = 2RL [ s0 sqrt(t0) + (1/2) sum_{m>=1} sqrt(pi/m) erfc(sqrt(m t0)) ],
    s0 = U/(2RL),  t0 = log(1 + 1/s0)   (>= log 3 since U <= LR, so the series converges like 3^-m).
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
import sympy as sp

from ..errors import InputError, check_k, check_positive, check_probability, check_tau
from .chain import numeric_form
from .symbols import D2, k, tau     # shared with Section 3

__all__ = [
    "SYMBOLS", "BOUNDS", "BOUND_ARGS", "CONSTANTS", "displayed_constants", "bound", "expression",
    "continuity_bound", "dudley_integral", "dudley_integral_cs", "rademacher_bound_from_L",
    "prop5_bound", "lipschitz_constants", "theorem1_terms",
]

# ----------------------------------------------------------------------------- symbols
beta, delta = sp.symbols("beta delta", positive=True)
n = sp.Symbol("n", positive=True, integer=True)           # the sample size: its sums over i = 1..n are of n >= 1 terms
d_Theta, R, C_Phi, B_tau = sp.symbols("d_Theta R C_Phi B_tau", positive=True)
a, A = sp.symbols("a A", positive=True)
Da, Dp, PM, Mx, Mv = sp.symbols("Da Dp PM Mx Mv", nonnegative=True)
Ra, Rp, Nn, B_max = sp.symbols("Ra Rp Nn B_max", nonnegative=True)
L, U, eps = sp.symbols("L U epsilon", positive=True)
R_hat = sp.Symbol("R_hat", real=True)

SYMBOLS = {s.name: s for s in (tau, k, beta, n, delta, d_Theta, R, C_Phi, B_tau, a, A, Da, Dp,
                               PM, Mx, Mv, Ra, Rp, Nn, B_max, L, U, eps, D2, R_hat)}

E = sp.E
_pm_factor = sp.exp(2 / (beta * tau))          # e^{2/(beta tau)} of Lemmas 7-8

CONSTANTS = {
    "prop4": [4, 1, 3],            # paper, Prop. 4 (from (44)-(46) + (47)-(49))
    "prop4_sharp": [2, 1, 1],      # Cauchy-Schwarz on Lemma 6's two inner products directly
    "lipschitz17_linear": [2, 1, 1],  # (17) with |dv_j| <= 2Da + Dp + ||Delta(z_j^-)||, max over j
    "lipschitz18": [math.sqrt(6), math.sqrt(6), math.sqrt(6)],  # l2-combination, max over j
    "lemma1": [4 * math.e, 4 * math.e, 4 * math.e],   # (4e/tau) B_tau C_Phi
    "lemma1_proof": [4, 1, 3 * math.e],              # (50)-(52) with Prop. 4's [4, 1, 3] (the paper's (50): 4 on each)
    "lemma1_sharp": [2, 1, math.e],                  # with [2, 1, 1]
}


# the continuity forms whose constants a registered statement states (``displayed_constants``)
_REGISTERED_FORMS = {"prop4": "P4", "prop4_sharp": "P4.sharp", "lemma1_sharp": "L1.sharp",
                     "lipschitz17_linear": "L17.linear", "lipschitz_route": "L1.lip"}


def displayed_constants(key):
    """(constants, source) of a continuity form for display: (c_a, c_p, c_n) read off the registered
    statement where one has the form ((c_a Da + c_p Dp + c_n e^{2/(beta tau)} PM)/tau for Prop. 4,
    C_Phi Dtheta (c_a Ra + c_p Rp + c_n Nn)/tau for Lemma 1's sharpened form), else the typed
    :data:`CONSTANTS`, labelled as such (the forms no registered statement states)."""
    rid = _REGISTERED_FORMS.get(key)
    if rid is None:
        return list(CONSTANTS[key]), "typed (statements.CONSTANTS): not read off a registered statement"
    from .statement_registry import statement
    s = statement(rid)
    sym = {x.name: x for x in s.symbols}
    if key.startswith("prop4"):
        e = sp.expand(s.expr * sym["tau"])
        values = [e.coeff(sym["Da"]), e.coeff(sym["Dp"]),
                  sp.simplify(e.coeff(sym["PM"]) / sp.exp(2 / (sym["tau"] * sym["beta"])))]
    elif key == "lipschitz_route":
        values = [sp.simplify(s.expr * sym["tau"] / (sym["C_Phi"] * sym["Dtheta"] * sym["B_max"]))]
    elif key == "lipschitz17_linear":
        e = sp.expand(s.expr * sym["tau"])
        values = [e.coeff(sym["Da"]), e.coeff(sym["Dp"]), e.coeff(sym["Mx"])]
    else:
        e = sp.expand(s.expr * sym["tau"] / (sym["C_Phi"] * sym["Dtheta"]))
        values = [e.coeff(sym["Ra"]), e.coeff(sym["Rp"]), e.coeff(sym["Nn"])]
    return [int(v) if v.is_Integer else float(v) for v in values], f"registered statement {rid}"


def _cont(c):
    ca, cp, cn = (sp.Integer(x) if float(x).is_integer() else x for x in c)
    return (ca * Da + cp * Dp + cn * _pm_factor * PM) / tau


def _min_term(x):
    return sp.Min(x * sp.sqrt(sp.log(3) + 1), sp.sqrt(sp.log(1 + 2 * x) + 1))


_range_exact = sp.log((1 + k * sp.exp(2 / tau)) / (1 + k * sp.exp(-2 / tau)))
_sqrt_conf = sp.sqrt(sp.log(2 / delta) / (2 * n))

BOUNDS = {
    # Lemma 5: |l(phi) - l(phi')| <= 4/tau ; exact range of l (b - a of Prop. 3's proof)
    "lemma5": 4 / tau,
    "lemma5_exact": _range_exact,
    # Prop. 3 sample-variability penalty, as stated and with b - a exact
    "prop3_penalty": 12 / tau * _sqrt_conf,
    "prop3_penalty_exact": 3 * _range_exact * _sqrt_conf,
    # Lemmas 7, 8: softmax average <= e^{2/(beta tau)} * power mean
    "lemma7": _pm_factor * PM,
    "lemma8": _pm_factor * PM,
    # Prop. 4 and the sharpened version
    "prop4": _cont(CONSTANTS["prop4"]),
    "prop4_sharp": _cont(CONSTANTS["prop4_sharp"]),
    # Lipschitz route (17), (18); and the linear form of (17)
    "lipschitz17": Mv / tau,
    "lipschitz17_linear": (2 * Da + Dp + Mx) / tau,
    "lipschitz18": sp.sqrt(6) / tau * sp.sqrt(Da**2 + Dp**2 + Mx**2),
    # Lemma 1: Lipschitz constants L with rho_n <= L ||theta - theta'||
    "lemma1_L": 4 * E / tau * B_tau * C_Phi,
    "lemma1_proof_L": C_Phi / tau * (4 * Ra + Rp + 3 * E * Nn),
    "lemma1_sharp_L": C_Phi / tau * (2 * Ra + Rp + E * Nn),
    "lipschitz_route_L": sp.sqrt(6) / tau * C_Phi * B_max,
    # Prop. 5 (a = e R B_tau C_Phi) and the generic form from any L (a_L = tau R L / 4)
    "prop5": 96 / tau * sp.sqrt(d_Theta / n) * _min_term(E * R * B_tau * C_Phi),
    "prop5_from_L": 96 / tau * sp.sqrt(d_Theta / n) * _min_term(tau * R * L / 4),
    "prop5_sharp": 96 / tau * sp.sqrt(d_Theta / n)
    * _min_term(tau * R * C_Phi * (2 * Ra + Rp + E * Nn) / (4 * tau)),
    "prop5_lipschitz_route": 96 / tau * sp.sqrt(d_Theta / n)
    * _min_term(sp.sqrt(6) * R * C_Phi * B_max / 4),
    # Dudley integral (54) before Cauchy-Schwarz (an unevaluated Integral; see dudley_integral)
    "dudley_exact": 24 / sp.sqrt(n) * sp.Integral(sp.sqrt(d_Theta * sp.log(1 + 2 * R * L / eps)),
                                                  (eps, 0, U)),
    "dudley_cs": 24 / sp.sqrt(n) * sp.sqrt(d_Theta) * U * sp.sqrt(sp.log(1 + 2 * R * L / U) + 1),
    # Theorem 1, every "const." explicit: 2 x 96 (Prop. 3's factor 2 times Prop. 5) and 12
    "theorem1_complexity": 2 * 96 / tau * sp.sqrt(d_Theta / n) * _min_term(A),
    "theorem1_sample": 12 / tau * _sqrt_conf,
    "theorem1_bias": 4 * D2 / (tau * k) + sp.log(1 + sp.exp(2 / tau) / k),
}
BOUNDS["theorem1_rhs"] = (R_hat + BOUNDS["theorem1_complexity"] + BOUNDS["theorem1_sample"]
                          + BOUNDS["theorem1_bias"])

BOUND_ARGS = {key: tuple(sorted(expr.free_symbols, key=lambda s: s.name))
              for key, expr in BOUNDS.items()}

# The errata of Section 4 live in :mod:`infonce_sym.errata` (structured, each with the derivation
# proving the corrected statement).


# ----------------------------------------------------------------------------- access
def expression(bound_id: str) -> sp.Expr:
    """The SymPy expression of one bound."""
    if bound_id not in BOUNDS:
        raise InputError("id", f"unknown bound {bound_id!r}; known: {sorted(BOUNDS)}")
    return BOUNDS[bound_id]


_CACHE: dict = {}


def bound(bound_id: str, module: str = "numpy"):
    """Lambdified callable ``f(*BOUND_ARGS[bound_id])`` for ``module`` in {"numpy", "mpmath"}.

    ``dudley_exact`` (an integral) is evaluated by :func:`dudley_integral` instead.
    """
    if module not in ("numpy", "mpmath"):
        raise InputError("module", f"must be 'numpy' or 'mpmath', got {module!r}")
    expr = expression(bound_id)
    if bound_id == "dudley_exact":
        # arguments in BOUND_ARGS order: L, R, U, d_Theta, n
        def g(L_, R_, U_, d_, n_, _m=module):
            val = 24 / mpmath.sqrt(n_) * dudley_integral(L_, R_, d_, U_)
            return val if _m == "mpmath" else float(val)
        return g
    key = (bound_id, module)
    if key not in _CACHE:
        _CACHE[key] = sp.lambdify(BOUND_ARGS[bound_id], numeric_form(expr), modules=module)
    return _CACHE[key]


def _registered(id, **values):
    """The numpy value of the registered statement ``id`` (``proofs.statement_registry``)."""
    from .statement_registry import statement
    return statement(id).evaluate("numpy", **values)


def evaluate(bound_id: str, **values):
    """The numpy value of ``BOUNDS[bound_id]`` with values given by symbol name; an entry that overflows float64 on
    the way (e^{2/tau} at tau = 0.0028 in Theorem 1's bias, whose value is 754.8) is evaluated again in mpmath, so that
    inf comes back only where the value itself is beyond the largest double."""
    from .statement_registry import overflow_recomputed
    args = [values[s.name] for s in BOUND_ARGS[bound_id]]
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        out = bound(bound_id)(*args)
    if any(not np.all(np.isfinite(np.asarray(a, dtype=float))) for a in args):
        return out                      # an infinite input (D2 = +inf for Student-t data): its own limit
    try:
        return overflow_recomputed(out, args, bound(bound_id, "mpmath"))
    except (ValueError, ArithmeticError):
        return out                      # no value there (inf - inf): float64's nan, as before


def continuity_bound(which: str, tau_, Da_, Dp_, PM_, beta_, Mx_=None):
    """Numeric value of a continuity bound (vectorised over numpy arrays): Prop. 4 and its
    sharpened form (derivations P4, P4.sharp), (18) (derivation L17-18) and the linear form of
    (17) (derivation L17.linear)."""
    tau_ = np.asarray(tau_, float)
    if which in ("prop4", "prop4_sharp"):
        return _registered({"prop4": "P4", "prop4_sharp": "P4.sharp"}[which], tau=tau_, Da=Da_, Dp=Dp_,
                           PM=PM_, beta=beta_)
    if which == "lipschitz18":
        return _registered("L17-18", tau=tau_, Da=Da_, Dp=Dp_, Mx=Mx_)
    if which == "lipschitz17_linear":
        return _registered("L17.linear", tau=tau_, Da=Da_, Dp=Dp_, Mx=Mx_)
    raise InputError("which", f"unknown continuity bound {which!r}")


# ----------------------------------------------------------------------------- Dudley
def dudley_integral(L_, R_, d_, U_=None, method: str = "series", tau_=None):
    """``int_0^U sqrt(d log(1 + 2RL/eps)) deps`` (mpmath number).

    ``U`` defaults to ``4/tau ^ L R`` (then ``tau_`` is needed).  ``method`` "quad" uses
    mpmath.quad; "series" the closed form in the module docstring (erfc series).
    """
    L_ = mpmath.mpf(check_positive("L", L_))
    R_ = mpmath.mpf(check_positive("R", R_))
    d_ = mpmath.mpf(check_positive("d_Theta", d_))
    if U_ is None:
        if tau_ is None:
            raise InputError("U", "give U or tau")
        U_ = min(mpmath.mpf(4) / check_tau(tau_), L_ * R_)
    U_ = mpmath.mpf(check_positive("U", U_))
    c = 2 * R_ * L_
    if method == "quad":
        val = mpmath.quad(lambda e: mpmath.sqrt(mpmath.log(1 + c / e)), [0, U_ / 1000, U_])
    elif method == "series":
        s0 = U_ / c
        t0 = mpmath.log(1 + 1 / s0)
        tail = mpmath.nsum(lambda m: mpmath.sqrt(mpmath.pi / m) * mpmath.erfc(mpmath.sqrt(m * t0)),
                           [1, mpmath.inf])
        val = c * (s0 * mpmath.sqrt(t0) + tail / 2)
    else:
        raise InputError("method", f"must be 'quad' or 'series', got {method!r}")
    return mpmath.sqrt(d_) * val


def dudley_integral_cs(L_, R_, d_, U_):
    """The paper's Cauchy-Schwarz bound ``sqrt(d) U sqrt(log(1 + 2RL/U) + 1)``."""
    return math.sqrt(d_) * U_ * math.sqrt(math.log1p(2 * R_ * L_ / U_) + 1)


def rademacher_bound_from_L(L_, R_, d_, n_, tau_, k_=None, exact_integral=True,
                            exact_range=False):
    """``(24/sqrt n) * Dudley`` for a Lipschitz constant ``L`` of ``theta -> l`` in rho_n.

    ``exact_integral=False`` reproduces Prop. 5's Cauchy-Schwarz form (96/tau ... min{..}).
    ``exact_range=True`` uses the exact loss range (Lemma 5 exact, needs ``k_``) instead of 4/tau
    as the upper limit (valid: rho_n <= range of l).
    """
    tau_ = check_tau(tau_)
    top = 4.0 / tau_
    if exact_range:
        kk = check_k(k_)
        top = math.log((1 + kk * math.exp(2 / tau_)) / (1 + kk * math.exp(-2 / tau_)))
    U_ = min(top, L_ * R_)
    if exact_integral:
        # at a fixed 30 digits, not the caller's: a sweep gave other last bits in a process whose mp.dps was 30
        with mpmath.workdps(30):
            return 24.0 / math.sqrt(n_) * float(dudley_integral(L_, R_, d_, U_))
    return 24.0 / math.sqrt(n_) * dudley_integral_cs(L_, R_, d_, U_)


def prop5_bound(tau_, d_, n_, a_):
    """Prop. 5 as stated, (96/tau) sqrt(d/n) min{a sqrt(log 3 + 1), sqrt(log(1+2a) + 1)}: the
    registered statement P5 (both cases of a), which depends on R, B_tau, C_Phi only through
    a = e R B_tau C_Phi."""
    return float(_registered("P5", tau=tau_, d_Theta=d_, n=n_, B_tau=a_ / math.e, C_Phi=1.0, R=1.0))


# ----------------------------------------------------------------------------- data functionals
def lipschitz_constants(za, zp, zn, tau_, C_Phi_):
    """Lipschitz constants (in rho_n) of theta -> l(phi_theta, z_i) from input norms.

    za, zp: (..., n, d_in); zn: (..., n, k, d_in), any leading axes (one set of constants per
    leading index; floats when there are none).  Returns a dict with B_tau, Ra, Rp, Nn, B_max and
    L for 'lemma1' (paper), 'lemma1_proof', 'lemma1_sharp', 'lipschitz_route'.
    """
    tau_ = check_tau(tau_)
    na = np.linalg.norm(za, axis=-1)
    npos = np.linalg.norm(zp, axis=-1)
    nn = np.linalg.norm(zn, axis=-1)
    Ra_ = np.sqrt(np.mean(na**2, axis=-1))
    Rp_ = np.sqrt(np.mean(npos**2, axis=-1))
    q = 2.0 / min(1.0, tau_)
    # power mean of order q over the tuples and negatives, computed stably
    mx = nn.max(axis=(-2, -1)) if nn.size else np.zeros(nn.shape[:-2])
    safe = np.where(mx > 0, mx, 1.0)
    Nn_ = np.where(mx > 0, mx * np.mean((nn / safe[..., None, None]) ** q, axis=(-2, -1)) ** (1.0 / q), 0.0)
    Bmax = np.sqrt(np.mean(na**2 + npos**2 + nn.max(axis=-1) ** 2, axis=-1))
    B = Ra_ + Rp_ + Nn_

    def out(v):
        return float(v) if np.ndim(v) == 0 else np.asarray(v, float)
    return {
        "Ra": out(Ra_), "Rp": out(Rp_), "Nn": out(Nn_), "B_tau": out(B), "B_max": out(Bmax),
        "L": {   # per unit ||theta - theta'||: the statements at Dtheta = 1
            "lemma1": out(_registered("L1", B_tau=B, C_Phi=C_Phi_, Dtheta=1.0, tau=tau_)),
            "lemma1_proof": out(evaluate("lemma1_proof_L", C_Phi=C_Phi_, Nn=Nn_, Ra=Ra_, Rp=Rp_, tau=tau_)),
            "lemma1_sharp": out(_registered("L1.sharp", C_Phi=C_Phi_, Nn=Nn_, Ra=Ra_, Rp=Rp_, Dtheta=1.0,
                                            tau=tau_)),
            "lipschitz_route": out(_registered("L1.lip", B_max=Bmax, C_Phi=C_Phi_, Dtheta=1.0, tau=tau_)),
        },
    }


def theorem1_terms(tau_, k_, n_, delta_, d_Theta_, R_, C_Phi_, B_tau_, D2_, R_hat_=0.0):
    """Theorem 1's right-hand side with every constant explicit (floats; D2 may be inf): the
    registered statement T1 and its three terms (the expressions T1's statement is the sum of)."""
    tau_ = check_tau(tau_)
    k_ = check_k(k_)
    n_ = check_k(n_, "n")
    delta_ = check_probability("delta", delta_)
    A_ = math.e * R_ * B_tau_ * C_Phi_
    values = dict(tau=tau_, k=k_, n=n_, delta=delta_, d_Theta=d_Theta_, A=A_, D2=D2_, R_hat=R_hat_)
    comp = float(evaluate("theorem1_complexity", **values))
    samp = float(evaluate("theorem1_sample", **values))
    bias = float(evaluate("theorem1_bias", **values))
    rhs = float(_registered("T1", **values))
    return {"A": A_, "complexity": comp, "sample_variability": samp, "finite_k_bias": bias,
            "empirical_risk": R_hat_, "rhs": rhs}
