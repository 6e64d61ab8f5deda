"""Empirical Rademacher complexity of the InfoNCE loss over the class of ``models.fourier_class``.

``Rad = E_sigma sup_{theta in Theta} f_sigma(theta)``, ``f_sigma(theta) = (1/n) sum_i sigma_i l(phi_theta, z_i)``.

How the upper estimate is guaranteed (per sigma sample).  Notation: for this class
``<phi_theta(x), phi_theta(y)> = S(x - y)``, ``S(D) = (1/m) sum_l cos u_l``, ``u_l = <theta_l, D>``;
``Dp_i = z_i^a - z_i^+``, ``Dn_ij = z_i^a - z_ij^-``; ``x_j = (S(Dn_ij) - S(Dp_i))/tau`` and
``l_i = log(1 + sum_j e^{x_j}) - log k``, so ``grad l_i = sum_j q_j grad x_j`` with softmax weights
``q_j = e^{x_j}/(1 + sum_l e^{x_l})`` (``sum_j q_j <= 1``).

(i) Global Lipschitz constant.  ``||grad_theta S(D)|| <= C_Phi ||D||``; Lemma 7 gives for all theta

    ||grad l_i|| <= L_i = (C_Phi/tau) (||Dp_i|| + min_beta e^{2/(beta tau)} PM_beta(||Dn_ij||)),

(min over a finite set of beta's incl. beta = inf, the max), so f_sigma is L-Lipschitz,
``L = (1/n) sum_i L_i``.  (The Prop. 4 route, ``certificate_lipschitz``, gives a valid but larger L
because it sees ||z^a||, ||z^+|| instead of the shift-invariant differences; it is reported too.)

(ii) Global Hessian bound.  ``||Hess l_i|| <= H_i = (C_Phi^2/tau) max_j(||Dn_ij||^2 + ||Dp_i||^2)
+ (C_Phi^2/tau^2) max_j(||Dn_ij|| + ||Dp_i||)^2`` ((H) below with every sup replaced by its global
value), ``H = (1/n) sum H_i``.

(iii) Ball-local bounds (``local_bounds_and_losses``).  Fix a centre g and the closed ball
``B = B(g, r)``.  Every theta' in B has ``|u_l(theta') - u_l(g)| <= ||theta' - g|| ||D|| <= r ||D||``
and sin, cos are 1-Lipschitz, so on B

    |sin u_l| <= sbar_l = min(1, |sin u_l(g)| + r||D||),   |cos u_l| <= cbar_l = min(1, |cos u_l(g)| + r||D||).

Since ``grad_l S = -(1/m) sin(u_l) D``, ``Hess S = -(1/m) blockdiag_l(cos(u_l) D D^T)`` and
``D^3 S[e,e,e] = (1/m) sum_l sin(u_l) <e_l, D>^3``, for unit e and theta' in B:
``||grad S|| <= a(D) = (||D||/m)(sum_l sbar_l^2)^{1/2}``, ``||Hess S|| <= b(D) = (||D||^2/m) max_l cbar_l``,
``|D^3 S[e,e,e]| <= c(D) = (||D||^3/m) max_l sbar_l`` (as ``sum_l |e_l|^3 <= 1``).  Hence on B
``||grad x_j|| <= alpha_j = an_j + ap`` with ``an_j = a(Dn_j)/tau``, ``ap = a(Dp)/tau``,
``||Hess x_j|| <= beta_j = (b(Dn_j) + b(Dp))/tau`` and ``|D^3 x_j[e,e,e]| <= gamma_j = (c(Dn_j) + c(Dp))/tau``.
Write ``x_j = a_j - b`` with ``a_j = S(Dn_j)/tau``, ``b = S(Dp)/tau``; by the mean value theorem on
the segment [g, theta'] (inside B) ``|a_j(theta') - a_j(g)| <= an_j r`` and ``|b(theta') - b(g)| <= ap r``.
As ``q_j = e^{a_j}/(e^b + sum_l e^{a_l})`` is increasing in a_j and decreasing in b and the other a_l,
dividing by e^{b(g)}, on B

    q_j(theta') <= qbar_j = min(1, e^{x_j(g) + an_j r} / (e^{-ap r} + sum_l e^{x_l(g) - an_l r}))

(the common term b moves numerator and denominator together, so it enters once).
For z_j(theta') in [0, zbar_j] write ``E[z] = sum_j q_j z_j`` (a mean under the law q on {0..k},
with z_0 = 0); then on B ``E[z] <= Ebar[zbar] := min(max_j zbar_j, sum_j qbar_j zbar_j)``.  Along a
line theta' = g + t e (|e| = 1), with ``y_j(t) = x_j(g + t e)``, Y = y', A = y'', the derivatives
of ``l = log(1 + sum_j e^{y_j})`` follow from ``d/dt E[Z] = E[Z'] + Cov(Z, Y)``:

    l' = E[Y],   l'' = E[A] + Var(Y),   l''' = E[y'''] + 3 Cov(A, Y) + kappa_3(Y)

(``kappa_3`` the third central moment).  Let ``M_p = Ebar[alpha^p]`` (>= ``E|Y|^p``) and
``amax = max_j alpha_j``.  Then ``0 <= Var(Y) <= E[Y^2] <= M2``, ``|Cov(A, Y)| <= (E[A^2] E[Y^2])^{1/2}``,
and for ``kappa_3 = E Y^3 - 3 mu E Y^2 + 2 mu^3`` (mu = E Y): with ``|E Y^3| <= M3``, ``|mu| <= M1``
and ``mu^2 <= E Y^2 <= M2``, ``|2 mu^3 - 3 mu E Y^2| = |mu| (3 E Y^2 - 2 mu^2) <= |mu| (3 M2 - 2 mu^2)
<= t (3 M2 - 2 t^2)`` with ``t = min(M1, (M2/2)^{1/2})`` (``s -> s(3 M2 - 2 s^2)`` increases on
[0, (M2/2)^{1/2}] and decreases after); also ``|kappa_3| <= max|Y - mu| Var(Y) <= (amax + M1) M2``.  So on B

    (L)  ||grad l_i|| <= M1
    (H)  ||Hess l_i|| <= Ebar[beta] + M2
    (T)  |D^3 l_i[e,e,e]| <= Ebar[gamma] + 3 (Ebar[beta^2] M2)^{1/2}
                             + min(M3 + t (3 M2 - 2 t^2), (amax + M1) M2)

((H) for the matrix norm: Hess l = sum_j q_j Hess x_j + the covariance matrix of grad x under q,
which is PSD and <= sum_j q_j grad x_j grad x_j^T).  Averaging over i (``|sigma_i| = 1``) bounds the
derivatives of every f_sigma on B; ``local_bounds_and_losses`` returns these averages with the
exact losses, gradients and Hessians at g.  The tests check them against finite differences.
A bound proved for a ball holds on every smaller ball inside it: a child's ball B(g', r/2), with
||g' - g|| = r/2, lies in its parent's B(g, r), so (L), (H), (T) of any ancestor are valid for a
cube, and the smallest available one is used ("inherited" bounds).

(iv) Interval bound (``interval_upper``).  ``||grad x_ij|| <= alpha_i = (C_Phi/tau)(max_j ||Dn_ij||
+ ||Dp_i||)`` everywhere (i), so on B(g, r) every x_ij lies within alpha_i r of x_ij(g), and
``A_i = sum_j e^{x_ij}`` within a factor e^{+-alpha_i r} of A_i(g); l_i = log(1 + A_i) - log k is
increasing in A_i, so on B

    f_sigma <= (1/n) (sum_{sigma_i > 0} log(1 + e^{alpha_i r} A_i(g)) - sum_{sigma_i < 0} log(1 + e^{-alpha_i r} A_i(g))) - (mean sigma) log k,

from the losses at g alone.  It is loose where l_i is linear in x but tight where the losses are
saturated (A_i near 0, l_i flat at -log k): there f_sigma is within the tolerance of its sup on
whole regions whose Taylor bounds need tiny cubes (n = 1, k = 1, tau = 0.01, sigma = -1: 13 million
cubes refined for an upper value of 0.51, against the level-0 grid with it).

Branch and bound.  Theta is covered by closed cubes Q (centre g, half-width h, Q in B(g, r),
r = h sqrt(d_Theta)).  For theta' in Q and delta = theta' - g, Taylor's theorem on [g, theta'] gives

    f(theta') <= f(g) + <grad f(g), delta> + min(H_g r^2/2, lambda_+ r^2/2 + T_g r^3/6),
    f(theta') <= f(g) + L_g r,

(``L_g, H_g``: the local (or inherited) bounds capped by the global L, H; ``T_g`` the local (T);
``lambda_+`` the positive part of the top eigenvalue of the exact Hess f_sigma(g)), and for theta'
also in Theta ``<grad f(g), delta> <= min(h ||grad f(g)||_1, R ||grad f(g)|| - <grad f(g), g - theta_0>)``.
The interval bound (iv) bounds f on the ball as well.  It is applied last: a cube it discards for
every sample gets no Hessians or fresh bounds; for the others the stages choose as without it, so
their children inherit the same bounds.
A cube whose upper value is below a certified lower value of the sup is discarded for that sigma;
the others are split into 2^d_Theta children.  The reported sup is max(best lower value
(+ tolerance when a cube was discarded within the tolerance), upper values of the cubes left at the
last level) >= the true sup, plus a margin of 1e-10 (2/tau + log(k+1) + 1) for float64 rounding.
Cubes are kept while their ball meets Theta (||g - theta_0|| <= R + r); a cube that does not itself
meet Theta has no child that does.

Order and cost (``certified_sup``).  Every step below only chooses which valid bound to compute or
which cubes to visit first; each cube's upper value is the minimum of valid upper bounds.
- Cheapest bound first: with the losses and gradients at g and the inherited (L, H) the first
  bound is formed; only cubes still active for some sigma get the exact Hessians (and the
  inherited T), and only those where fresh bounds may discard the cube or its children get the
  fresh (L), (H), (T) of their own ball.
- Depth first: cubes are taken from a stack, children of the most promising cube (highest centre
  value) first, so the best lower values are found early; a cube discarded at any time is
  discarded against the lower value known then, which is <= the final one.
- Screening: a child Q' of Q (centre g' = g + delta', half-width h') satisfies, by the expansion at
  the parent's centre g (all of Q' lies in B(g, r)), ``f <= f(g) + min(<grad f(g), delta'> +
  h' ||grad f(g)||_1, R ||grad f(g)|| - <grad f(g), g - theta_0>) + Q_g`` on Q', with Q_g the
  parent's second/third-order term above; a child with this value below the lower value is
  discarded without being evaluated.
- Level skipping: where even a third-order term a quarter of the inherited one leaves no room to
  discard a child, the 4^d_Theta grandchildren are pushed instead; they cover the cube as its
  children do.
- Budget: with ``max_evaluations`` the cubes are visited best first (largest upper value among
  the active samples first, phases evaluated directly) and the refinement may stop early; every
  cube left then keeps the upper value of its parent (a bound on the parent's cube, so on the
  child's), and the result is marked incomplete.
- Siblings together (depth first, one cube per batch, m = 1): the cubes pushed together with the
  phases of one parent (children of a cube, or of one cube of a skipped level) get their losses
  and gradients in one pass over blocks of tuples when the first of them is popped, and in that
  pass also their Hessians and ball bounds where the counts at their level so far say these are
  likely needed; a stage not computed then is computed when asked for.  A stage's values do not
  depend (beyond float64 rounding) on when, or with which cubes, it is computed: the decisions
  above are those of computing the stages in turn.
- Taylor lower values (below) are not formed where, for every sample, even
  ``f(g) + ||grad f(g)|| r + lambda_+ r^2/2`` (>= each of them: the points are within r of g) is
  below the lower value (with a relative margin of 1e-12): they could not raise it.
- Phases without trigonometric calls: the centres are theta0 + 2 h0 a (a integer) at level 0, and a
  child is its parent plus h_v o (o in {-1, 1}^d_Theta, h_v = h0/2^v), so
  ``exp(i u_l(child)) = exp(i u_l(parent)) exp(i h_v <o_l, Dn>)``: one complex product per entry
  with a factor tabulated once per level, and at level 0 a product of d_in tabulated factors.
  Each tabulated factor is within 4 ulp (|err| <= 2^-50) of its value and each product adds at most
  2^-50 (|z|, |w| <= 1 + 2^-49); after P <= d_in + levels + 3 products the phases are within
  (P + 1) 2^-49 <= 1e-13 of exp(i u), which moves each loss, by its 1/tau-Lipschitz dependence on
  cos u (S is an average of cosines, and l_i is 1-Lipschitz in the max-norm of x), by at most
  2e-13/tau, far below the 1e-10 (2/tau) of the margin.  In a pass over siblings the phases are
  made block by block as they are read, and a child with o_1 = -1 is made as its conjugate
  ``exp(-i u(child)) = conj(exp(i u(parent))) exp(i h_v <-o, Dn>)`` (the factors with o_1 = +1
  are the only ones read): cos u is the same and sin u changes sign, which only the gradient sum
  sees (negated back); conjugation and negation are exact, so the bound above is unchanged.

Kernels (m = 1).  When 2/tau + log(k + 1) <= 600 the losses use ``E_j = e^{cos u_j/tau}``
unshifted: ``e^{x_j} = E_j e^{-cp/tau}``, ``l = log(1 + e^{-cp/tau} sum_j E_j) - log k`` (every
exponential lies in [e^-600, e^600], normal float64 numbers).  The ball moments are formed in units
of 1/tau, with ``qbar_j = rho_j/D``, ``rho_j = min(E_j e^{an_j r}, D)``,
``D = e^{cp/tau - ap r} + sum_l E_l e^{-an_l r}`` (the qbar of (iii) with numerator and denominator
multiplied by e^{cp/tau}), when also (1 + r max||D||)/tau + log(k + 1) <= 600 and every result is
finite; the sums ``sum_j qbar_j alpha_j^p`` by the binomial expansion in alpha_j = an_j + ap
(nonnegative terms), and ``max_j gamma_j`` only where ``sum_j qbar_j gamma_j`` exceeds gamma at the
argmax of alpha (elsewhere the min in Ebar[gamma] is the sum either way).  Otherwise, and for
m > 1, the shifted route (x_j - max_l x_l) is used.  Both compute the same quantities; only
rounding differs.  With ``backend="numba"`` (the default when numba is installed) the m = 1 block
kernels run as compiled twins (``rademacher_compiled``: one pass per (cube, tuple) row, the same
sums; rounding differs by a few ulp of each sum, far inside the float64 margin above).

Lower values (each <= the sup): f at centres in Theta and, at points p in Theta within r of g (the
projection onto Theta of a step from g along grad f(g), or the projection of g),
``f(g) + <grad f(g), p - g> - H_g ||p - g||^2/2`` and
``f(g) + <grad f(g), p - g> + (p - g)^T Hess f(g) (p - g)/2 - T_g ||p - g||^3/6``, both <= f(p).
At the end f_sigma is evaluated directly (with sin and cos) at each returned witness, and the
lower value reported is the smaller of the two, so it is attained at the returned point.

d_Theta > 3 (``rademacher_estimate``): the same branch and bound on a coarse cover with a budget
of evaluations, and the bounds of one ball, Theta itself (``_whole_ball_upper``), give a certified but
loose upper value, the smaller of the two (``upper_kind = "certified (coarse)"``); the
lower value is the best of the branch-and-bound witnesses and of a multi-start SLSQP ascent from
the witness, the best grid centres and two uniform points of Theta, evaluated at the returned point
(``lower_kind = "optimiser"``); the relative gap between them is reported.  With a deadline each
chunk of samples gets its share of the time left, three quarters for the branch and bound and the
rest for the ascent (its quarter also where the level-0 grid ran past the three quarters).

``lower_estimate`` is the mean of the best certified lower values less f_sigma(theta0) (a lower
estimate of Rad); ``estimate`` the mean of the certified sups less f_sigma(theta0) (an upper
estimate): E_sigma f_sigma(theta0) = 0, and subtracting it removes its sampling noise.  Both are
Monte Carlo means over sigma, or exact means over every sign vector when 2^n <= samples (stderr
reported).  The gap between them is the certification gap.
"""
from __future__ import annotations

import heapq
import importlib
import itertools
import math
import time

import numpy as np

from ..errors import check_k, check_tau
from ..models.fourier_class import FourierEmbedding, sample_tuples
from .montecarlo import block_moments, check_backend, sampled_result
from .first_call import GuardedKernels

__all__ = ["certificate_lipschitz", "certificate_constants_local", "certified_sup", "default_h0",
           "local_bounds_and_losses", "rademacher_estimate", "initial_cubes", "TupleDifferences",
           "PhaseTables"]

# largest exponent the m = 1 kernels may meet (e^600 and e^-600 are normal float64 numbers)
_EXP_SAFE = 600.0


def _compiled_kernels():
    """The numba block kernels (``rademacher_compiled``), each kernel's first call (which compiles it)
    under ``first_call.held_during_first_call``; callers check that numba is installed."""
    from . import rademacher_compiled
    return GuardedKernels(rademacher_compiled, "rademacher")


def certificate_lipschitz(za, zp, zn, tau, C_Phi, constants=(2, 1, 1)):
    """L = (1/n) sum_i L_i, a Lipschitz constant of theta -> (1/n) sum_i sigma_i l_i(theta)."""
    tau = check_tau(tau)
    ca, cp, cn = constants
    na = np.linalg.norm(za, axis=-1)
    npos = np.linalg.norm(zp, axis=-1)
    nn = np.linalg.norm(zn, axis=-1)                       # (n, k)
    mx = nn.max(axis=1)
    best = mx.copy()                                       # beta = inf
    safe = np.where(mx > 0, mx, 1.0)
    for beta in (1.0, 1.5, 2.0, 3.0, max(1.0, 2.0 / tau), 4.0, 6.0, 8.0, 12.0, 16.0, 32.0, 64.0):
        pm = safe * np.mean((nn / safe[:, None]) ** beta, axis=1) ** (1.0 / beta)
        best = np.minimum(best, math.exp(2.0 / (beta * tau)) * pm)
    Li = C_Phi / tau * (ca * na + cp * npos + cn * best)
    return float(Li.mean())


def difference_norms(za, zp, zn):
    """(||Dp_i|| (n,), ||Dn_ij|| (n, k)): the norms of the tuples' differences (module docstring)."""
    return np.linalg.norm(za - zp, axis=-1), np.linalg.norm(za[:, None, :] - zn, axis=-1)


def float_margin(tau, k):
    """1e-10 (1 + 2/tau + log(k + 1)): added to every certified upper value for float64 rounding in
    the losses (far above it: module docstring, "Phases without trigonometric calls")."""
    return 1e-10 * (1.0 + 2.0 / tau + math.log(k + 1.0))


def certificate_constants_local(za, zp, zn, tau, C_Phi):
    """(L, H): Lipschitz and Hessian-norm bounds of f_sigma from differences (module docstring)."""
    tau = check_tau(tau)
    dp, dn = difference_norms(za, zp, zn)
    mx = dn.max(axis=1)
    best = mx.copy()
    safe = np.where(mx > 0, mx, 1.0)
    for beta in (1.0, 1.5, 2.0, 3.0, max(1.0, 2.0 / tau), 4.0, 6.0, 8.0, 12.0, 16.0, 32.0, 64.0):
        pm = safe * np.mean((dn / safe[:, None]) ** beta, axis=1) ** (1.0 / beta)
        best = np.minimum(best, math.exp(2.0 / (beta * tau)) * pm)
    L = float((C_Phi / tau * (dp + best)).mean())
    H = float((C_Phi**2 / tau * (mx**2 + dp**2) + C_Phi**2 / tau**2 * (mx + dp) ** 2).mean())
    return L, H


def slope_bounds(za, zp, zn, tau, C_Phi):
    """alpha_i = (C_Phi/tau)(max_j ||Dn_ij|| + ||Dp_i||) (n,): ||grad x_ij|| <= alpha_i on all of
    the parameter space, as ||grad S(D)|| <= C_Phi ||D|| (i)."""
    dp, dn = difference_norms(za, zp, zn)
    return C_Phi / tau * (dn.max(axis=1, initial=0.0) + dp)


def taylor_upper(F, lin, L, H, lam, T, r):
    """The Taylor bounds of a ball of radius r (module docstring, "Branch and bound"), combined:
    F + min(L r, lin + min(H r^2/2, lam r^2/2 + T r^3/6)), with ``lin`` the bound of the linear term
    <grad f(g), delta> and ``lam`` the positive part of the top eigenvalue of the Hessian at g."""
    return F + np.minimum(L * r, lin + np.minimum(H * r * r / 2, lam * r * r / 2 + T * r**3 / 6))


def interval_upper(ell, sig, alpha, r, logk, margin):
    """Upper values (S, g) of f_sigma on the balls B(g, r) from the losses ell (g, n) at their
    centres alone (the "interval bound"; module docstring, (iv)).

    l_i = log(1 + A_i) - log k with A_i = sum_j e^{x_ij}, and every x_ij moves by at most
    alpha_i r on the ball, so A_i(theta') lies in [e^{-alpha_i r} A_i, e^{alpha_i r} A_i] and, l_i
    increasing in A_i, l_i(theta') in [log(1 + e^{-alpha_i r} A_i), log(1 + e^{alpha_i r} A_i)] - log k:
    the upper end for sigma_i > 0, the lower end for sigma_i < 0.  A_i comes from the computed
    loss, which is within ``margin`` (``float_margin``) of l_i: A_i lies in
    [expm1(max(0, l_i + log k - margin)), expm1(l_i + log k + margin)].  Tight where the losses
    are saturated (A_i near 0: l_i near -log k and flat), where the Taylor bounds need tiny cubes."""
    log_one_plus = ell + logk                                         # log(1 + A_i), computed
    with np.errstate(divide="ignore"):                                # log 0 = -inf: A_i = 0
        # log expm1(x) = x + log(-expm1(-x)) for x >= 0, without overflow
        hi = log_one_plus + margin
        log_a_hi = hi + np.log(-np.expm1(-hi))
        lo = np.maximum(log_one_plus - margin, 0.0)
        log_a_lo = lo + np.log(-np.expm1(-lo))
    shift = alpha * r                                                 # (n,)
    up = np.logaddexp(0.0, log_a_hi + shift) - logk                   # (g, n)
    down = np.logaddexp(0.0, log_a_lo - shift) - logk
    n_ = sig.shape[1]
    return (np.maximum(sig, 0.0) @ up.T + np.minimum(sig, 0.0) @ down.T) / n_


def initial_cubes(theta0, R, h, with_index=False):
    """Centres theta0 + 2h a (a integer vectors) of the level-0 cubes whose balls meet Theta."""
    d = theta0.size
    m = int(math.ceil(R / (2 * h) - 0.5)) + 1
    idx = np.array(list(itertools.product(range(-m, m + 1), repeat=d)), dtype=np.int64)
    grid = idx * (2 * h) + theta0
    r = h * math.sqrt(d)
    keep = np.linalg.norm(grid - theta0, axis=1) <= R + r
    return (grid[keep], idx[keep], m) if with_index else grid[keep]



class TupleDifferences:
    """Differences of the tuples and their norms, shared by every evaluation; ``fast``: the m = 1
    kernels apply (module docstring, "Kernels"); ``work``: scratch arrays reused by the passes."""

    def __init__(self, model, za, zp, zn, tau, backend="numpy"):
        self.m, self.d = model.m, model.dim_in
        self.dT = self.m * self.d
        self.tau = float(tau)
        self.n, self.k = zn.shape[0], zn.shape[1]
        self.Dp = za - zp                                              # (n, d)
        self.Dn = za[:, None, :] - zn                                  # (n, k, d)
        self.Dn_flat = self.Dn.reshape(self.n * self.k, self.d)
        d = self.d
        self.On = (self.Dn[..., :, None] * self.Dn[..., None, :]).reshape(self.n, self.k, d * d)
        self.Op = self.Dp[:, :, None] * self.Dp[:, None, :]            # (n, d, d)
        self.nup = np.linalg.norm(self.Dp, axis=-1)                    # (n,)
        self.nun = np.linalg.norm(self.Dn, axis=-1)                    # (n, k)
        self.logk = math.log(self.k)
        t = self.tau
        self.nun_tau = (self.nun / t, self.nun**2 / t, self.nun**3 / t)
        self._scaled = {}
        self._work, self._views = {}, {}
        # m = 1 with exponents well inside float64: the kernels with e^{cos u/tau} unshifted
        self.fast = self.m == 1 and 2.0 / t + math.log(self.k + 1.0) <= _EXP_SAFE
        # the compiled twins of the m = 1 block kernels (``rademacher_compiled``), or None
        self.kernels = _compiled_kernels() if backend == "numba" and self.fast else None
        self.DnT = np.ascontiguousarray(np.moveaxis(self.Dn, -1, 0))  # (d, n, k)
        self.ones = np.ones(self.k)
        self.nmax = max(float(self.nun.max(initial=0.0)), float(self.nup.max(initial=0.0)))

    def work(self, name, shape):
        """Scratch array ``name`` of ``shape`` (reused: valid until the next request of name)."""
        view = self._views.get((name, shape))
        if view is None:
            size = math.prod(shape)
            buf = self._work.get(name)
            if buf is None or buf.size < size:
                buf = self._work[name] = np.empty(size)
                self._views = {key: v for key, v in self._views.items() if key[0] != name}
            view = self._views[name, shape] = buf[:size].reshape(shape)
        return view

    def scaled(self, name, r, make):
        """A cached array that depends on the radius r only."""
        key = (name, r)
        if key not in self._scaled:
            self._scaled[key] = make()
        return self._scaled[key]

    def phases_p(self, theta):
        """cos, sin of u_l = <theta_l, Dp_i>: theta (g, dT) -> two (g, m, n) arrays."""
        up = np.einsum("gmd,nd->gmn", theta.reshape(-1, self.m, self.d), self.Dp)
        return np.cos(up), np.sin(up)

    def phases_n(self, theta):
        """exp(i <theta_l, Dn_ij>) evaluated directly: theta (g, dT) -> (g, m, n, k) complex."""
        g = theta.shape[0]
        un = (theta.reshape(g * self.m, self.d) @ self.Dn_flat.T).reshape(g, self.m, self.n, self.k)
        z = np.empty(un.shape, complex)
        np.cos(un, out=z.real)
        np.sin(un, out=z.imag)
        return z


def _losses_grads_any(td, zn, cp, sp, block=32768):
    """Losses (g, n) and gradients (g, n, dT) at the centres from the phases; plus the softmax
    quantities that the Hessians and the ball bounds reuse.  Computed over blocks of tuples of
    about ``block`` entries (the temporaries stay in cache)."""
    cn, sn = zn.real, zn.imag                                        # (g, m, n, k)
    g = zn.shape[0]
    m, n_, kk, d, tau = td.m, td.n, td.k, td.d, td.tau
    x = np.empty((g, n_, kk))
    ex = np.empty((g, n_, kk))
    es = np.empty((g, m, n_, kk))
    mx = np.empty((g, n_))
    A = np.empty((g, n_))
    gn = np.empty((g, n_, m, d))
    step = max(1, int(block // max(1, g * m * kk)))
    for i in range(0, n_, step):
        b = slice(i, i + step)
        xb = x[:, b]
        if m == 1:
            np.subtract(cn[:, 0, b], cp[:, 0, b, None], out=xb)
        else:
            np.subtract(cn[:, :, b].mean(axis=1), cp[:, :, b].mean(axis=1)[..., None], out=xb)
        xb *= 1.0 / tau                                              # x_j
        mxb = mx[:, b]
        np.maximum(xb.max(axis=-1), 0.0, out=mxb)
        eb = ex[:, b]
        np.subtract(xb, mxb[..., None], out=eb)
        np.exp(eb, out=eb)                                           # e^{x_j - mx}
        eb.sum(axis=-1, out=A[:, b])
        esb = es[:, :, b]
        np.multiply(eb[:, None], sn[:, :, b], out=esb)               # den q_j sn_lj
        nb = esb.shape[2]
        gn[:, b] = np.matmul(esb.transpose(2, 0, 1, 3).reshape(nb, g * m, kk), td.Dn[b]
                             ).reshape(nb, g, m, d).transpose(1, 0, 2, 3)
    den = np.exp(-mx) + A
    ell = mx + np.log(den) - td.logk
    iden = 1.0 / den                                                 # q_j = ex_j / den
    w = A * iden                                                     # sum_j q_j
    # grad S(D)_l = -(1/m) sin(u_l) D; grad x_j = (1/(m tau)) v_j, v_j,l = sp_l Dp - sn_lj Dn_j
    gn *= iden[:, :, None, None]                                     # sum_j q_j sn_lj Dn_j
    spT = sp.transpose(0, 2, 1)                                      # (g, n, m)
    gl = ((w[..., None] * spT)[..., None] * td.Dp[None, :, None, :] - gn) / (m * tau)
    grad = gl.reshape(g, n_, m * d)
    aux = {"fast": False, "x": x, "mx": mx, "ex": ex, "iden": iden, "w": w, "es": es, "gn": gn,
           "spT": spT, "cp": cp, "sp": sp, "grad": grad}
    return ell, grad, aux


def _sub(aux, sel, stage):
    """The softmax quantities that ``stage`` ("hess" or "bound") needs, of the centres ``sel``
    (no copy when sel is all of them)."""
    g = aux["grad"].shape[0]
    if sel.size == g:
        return aux
    if sel.size == sel[-1] - sel[0] + 1:
        sel = slice(sel[0], sel[-1] + 1)
    keys = _KEYS[stage, aux["fast"]]
    return {"fast": aux["fast"]} | {key: aux[key][sel] for key in keys}


def _rows(a, sel):
    """a[sel] along the first axis, a view when sel is a range."""
    if sel.size == a.shape[0]:
        return a
    if sel.size == sel[-1] - sel[0] + 1:
        return a[sel[0]:sel[-1] + 1]
    return a[sel]


_HESS_KEYS = ("ex", "iden", "w", "es", "gn", "spT", "cp", "grad")
_BOUND_KEYS = ("x", "mx", "ex", "cp", "sp")
_HESS_KEYS1 = ("E", "f", "w", "gn", "spT", "cp", "grad")
_KEYS = {("hess", False): _HESS_KEYS, ("bound", False): _BOUND_KEYS,
         ("hess", True): _HESS_KEYS1, ("bound", True): ("E", "cp", "sp")}


def _hessians_any(td, zn, aux):
    """Exact Hessians (g, n, dT, dT) of the losses at the centres."""
    cn, sn = zn.real, zn.imag
    m, n_, kk, d, tau = td.m, td.n, td.k, td.d, td.tau
    ex, iden, w, es, gn, spT, cp, grad = (aux[key] for key in _HESS_KEYS)
    g = zn.shape[0]
    dT = m * d
    Hs = np.zeros((g, n_, dT, dT))
    c2 = 1.0 / (m * tau) ** 2
    if m == 1:
        # sum_j q_j (Hess x_j + grad x_j grad x_j^T): the Dn Dn^T part has weight
        # q_j (sn_j^2 - tau cn_j)/tau^2
        wq = sn[:, 0] * sn[:, 0]
        wq -= tau * cn[:, 0]
        wq *= ex
        M = np.matmul(wq.transpose(1, 0, 2), td.On).transpose(1, 0, 2).reshape(g, n_, d, d)
        M *= iden[..., None, None]
        sp0 = spT[:, :, 0]
        cross = gn[:, :, 0, :, None] * (sp0[..., None, None] * td.Dp[None, :, None, :])
        Hs += c2 * (M - cross - cross.transpose(0, 1, 3, 2)
                    + (w * (sp0 * sp0 + tau * cp[:, 0]))[..., None, None] * td.Op[None])
    else:
        pairs = [(a, b) for a in range(m) for b in range(a, m)]
        wts = [ex * cn[:, a] for a in range(m)] + [es[:, a] * sn[:, b] for a, b in pairs]
        W = np.stack(wts, axis=2)                                    # (g, n, nw, k)
        nw = W.shape[2]
        M = np.matmul(W.transpose(1, 0, 2, 3).reshape(n_, g * nw, kk), td.On
                      ).reshape(n_, g, nw, d, d).transpose(1, 0, 2, 3, 4)   # (g, n, nw, d, d)
        M = M * iden[:, :, None, None, None]
        for a in range(m):
            blk = -(M[:, :, a] - (w * cp[:, a])[..., None, None] * td.Op[None]) / (m * tau)
            Hs[:, :, a * d:(a + 1) * d, a * d:(a + 1) * d] += blk
        for idx, (a, b) in enumerate(pairs):
            P = M[:, :, m + idx]                                     # sum_j q sn_a sn_b Dn Dn^T
            cross = gn[:, :, a, :, None] * (spT[:, :, b, None, None] * td.Dp[None, :, None, :])
            cross2 = (spT[:, :, a, None, None] * td.Dp[None, :, :, None]) * gn[:, :, b, None, :]
            blk = c2 * (P - cross - cross2
                        + (w * spT[:, :, a] * spT[:, :, b])[..., None, None] * td.Op[None])
            Hs[:, :, a * d:(a + 1) * d, b * d:(b + 1) * d] += blk
            if b != a:
                Hs[:, :, b * d:(b + 1) * d, a * d:(a + 1) * d] += blk.transpose(0, 1, 3, 2)
    Hs -= grad[..., :, None] * grad[..., None, :]
    return Hs


def _ball_bounds_any(td, zn, aux, r, block=32768):
    """(L, H, T) (each (g,)): bounds (L), (H), (T) of the module docstring on B(centre, r).
    Computed over blocks of tuples of about ``block`` (centre, tuple, negative) entries, which keeps
    the temporaries in cache."""
    g = zn.shape[0]
    step = max(1, int(block // max(1, g * td.m * td.k)))
    parts = [_ball_moments(td, zn, aux, r, slice(i, i + step)) for i in range(0, td.n, step)]
    M1, M2, M3, B1, B2, Eg, amax = (np.concatenate(v, axis=1) for v in zip(*parts))
    # kappa_3 = E Y^3 - 3 mu E Y^2 + 2 mu^3 with |E Y^3| <= M3, mu^2 <= E Y^2 <= M2, |mu| <= M1:
    # |2 mu^3 - 3 mu E Y^2| <= |mu| (3 M2 - 2 mu^2) <= t (3 M2 - 2 t^2), t = min(M1, (M2/2)^{1/2});
    # and |kappa_3| <= max|Y - mu| Var Y <= (amax + M1) M2
    mu = np.minimum(M1, np.sqrt(M2 / 2))
    k3 = np.minimum(M3 + mu * (3 * M2 - 2 * mu * mu), (np.maximum(amax, 0.0) + M1) * M2)
    Ti = Eg + 3 * np.sqrt(B2 * M2) + k3
    return M1.mean(axis=-1), (B1 + M2).mean(axis=-1), Ti.mean(axis=-1)


def _ball_moments(td, zn, aux, r, blk):
    """Per (centre, tuple) of the tuples ``blk``: M1, M2, M3 (Ebar[alpha^p]), B1, B2
    (Ebar[beta^p]), Ebar[gamma] and max_j alpha_j (module docstring)."""
    cn, sn = zn.real[:, :, blk], zn.imag[:, :, blk]
    m, tau = td.m, td.tau
    x, mx, ex = aux["x"][:, blk], aux["mx"][:, blk], aux["ex"][:, blk]
    cp, sp = aux["cp"][:, :, blk], aux["sp"][:, :, blk]
    nun, nup = td.nun[blk], td.nup[blk]
    nt1, nt2, nt3 = (v[blk] for v in td.nun_tau)
    # sup over the ball of |sin u|, |cos u| (1-Lipschitz in u, |u(theta') - u(g)| <= r ||D||)
    rn = r * nun                                                     # (n, k)
    rp = r * nup
    sbar = np.abs(sn)
    sbar += rn
    np.minimum(sbar, 1.0, out=sbar)                                  # (g, m, n, k)
    cbar = np.abs(cn)
    cbar += rn
    np.minimum(cbar, 1.0, out=cbar)
    sbp = np.minimum(1.0, np.abs(sp) + rp)                           # (g, m, n)
    cbp = np.minimum(1.0, np.abs(cp) + rp)
    if m == 1:
        sb, cb = sbar[:, 0], cbar[:, 0]
        an = sb * nt1                                                # sup_B ||grad S(Dn_j)/tau||
        ap = sbp[:, 0] * nup / tau                                   # sup_B ||grad S(Dp)/tau||
        beta = np.multiply(cb, nt2, out=cb)
        beta += (cbp[:, 0] * nup**2 / tau)[..., None]                # sup_B ||Hess x_j||
        gamma = np.multiply(sb, nt3, out=sb)
        gamma += (sbp[:, 0] * nup**3 / tau)[..., None]               # sup_B |D^3 x_j[e,e,e]|
    else:
        an = np.sqrt((sbar**2).sum(axis=1)) * nt1 / m
        ap = np.sqrt((sbp**2).sum(axis=1)) * nup / (m * tau)
        beta = cbar.max(axis=1) * nt2 / m
        beta += (cbp.max(axis=1) * nup**2 / (m * tau))[..., None]
        gamma = sbar.max(axis=1) * nt3 / m
        gamma += (sbp.max(axis=1) * nup**3 / (m * tau))[..., None]
    alpha = an + ap[..., None]                                       # sup_B ||grad x_j||
    # q_j = e^{x_j}/(1 + sum_l e^{x_l}) <= qbar_j = e^{x_j + an_j r}/(e^{-ap r} + sum_l e^{x_l - an_l r})
    arn = np.multiply(an, r, out=an)
    e = np.negative(arn)
    np.exp(e, out=e)
    # both terms underflow to 0 when r ||D||/tau is large (radius 10, tau 0.01): log 0 = -inf makes
    # qbar = 1, the trivial bound, which holds
    with np.errstate(divide="ignore"):
        log_den_lo = mx + np.log(np.exp(-mx - ap * r) + np.einsum("gnk,gnk->gn", ex, e))
    arn += x
    arn -= log_den_lo[..., None]
    np.minimum(arn, 0.0, out=arn)
    qbar = np.exp(arn, out=arn)

    def E(z, zmax):                                                  # >= sup_B sum_j q_j z_j
        return np.minimum(zmax, np.einsum("gnk,gnk->gn", qbar, z))

    amax = alpha.max(axis=-1)
    bmax = beta.max(axis=-1)
    a2 = np.multiply(alpha, alpha, out=e)
    M1, M2 = E(alpha, amax), E(a2, amax**2)
    a2 *= alpha
    M3 = E(a2, amax**3)
    B1 = E(beta, bmax)
    Eg = E(gamma, gamma.max(axis=-1))
    beta *= beta
    B2 = E(beta, bmax**2)
    return M1, M2, M3, B1, B2, Eg, amax


def _losses_grads(td, zn, cp, sp):
    """Losses (g, n), gradients (g, n, dT) at the centres and the quantities the later stages reuse
    (``aux``, valid until the next call on td)."""
    return _losses_grads1(td, zn, cp, sp) if td.fast else _losses_grads_any(td, zn, cp, sp)


def _hessians(td, zn, aux):
    """Exact Hessians (g, n, dT, dT) of the losses at the centres."""
    return _hessians1(td, zn, aux) if aux["fast"] else _hessians_any(td, zn, aux)


def _ball_bounds(td, zn, aux, r):
    """(L, H, T) (each (g,)): bounds (L), (H), (T) of the module docstring on B(centre, r)."""
    if aux["fast"]:
        out = _ball_bounds1(td, zn, aux, r) if _ball_fast(td, r) else None
        if out is not None and all(np.isfinite(v).all() for v in out):
            return out
        aux = _losses_grads_any(td, zn, aux["cp"], aux["sp"])[2]   # the shifted general route
    return _ball_bounds_any(td, zn, aux, r)


def _ball_fast(td, r):
    """The m = 1 ball kernel's exponents (at most (1 + r ||D||)/tau) stay within _EXP_SAFE."""
    return (1.0 + r * td.nmax) / td.tau + math.log(td.k + 1.0) <= _EXP_SAFE


def _scratch(td, name, shape):
    """A scratch array of the NumPy block kernels (None for the compiled ones, which need a row)."""
    return td.work(name, shape) if td.kernels is None else None


def _blocks(td, g, block=32768, whole=False):
    """Slices of about ``block`` (centre, tuple, negative) entries over the tuples; ``whole``:
    one slice when the compiled kernels run (their temporaries are a row long)."""
    if whole and td.kernels is not None:
        return [slice(0, td.n)]
    step = max(1, int(block // max(1, g * td.k)))
    return [slice(i, i + step) for i in range(0, td.n, step)]


# m = 1 (td.fast).  With E_j = e^{cos u_j/tau} (unshifted: e^{+-1/tau} and k e^{2/tau} are within
# e^{_EXP_SAFE}): e^{x_j} = E_j e^{-cp/tau}, l = log(1 + e^{-cp/tau} sum_j E_j) - log k and
# q_j = f E_j with f = e^{-cp/tau}/(1 + sum_l e^{x_l}).  Each stage is a pass over blocks of tuples
# (``_blk_*``, the temporaries stay in cache) and a per-tuple finish.

def _blk_losses1(td, z, b, Eb, tb, SE, gn):
    """Tuples b (phases z (g, nb, k)): E_j into Eb, sum_j E_j into SE and sum_j E_j sin u_j Dn_j
    into gn."""
    if td.kernels is not None:
        return td.kernels.losses1(z, 1.0 / td.tau, td.DnT, b.start, Eb, SE, gn[:, :, 0])
    cn, sn = z.real, z.imag
    np.multiply(cn, 1.0 / td.tau, out=Eb)
    np.exp(Eb, out=Eb)
    SE[:, b] = Eb @ td.ones
    np.multiply(Eb, sn, out=tb)
    for c in range(td.d):
        gn[:, b, 0, c] = np.vecdot(tb, td.DnT[c, b])


def _finish_losses1(td, SE, gn, cp, sp):
    """Losses, gradients and the per-tuple softmax quantities from the sums of ``_blk_losses1``."""
    g, n_, d, it = SE.shape[0], td.n, td.d, 1.0 / td.tau
    ecp = np.exp(-it * cp[:, 0])                                     # (g, n)
    y = ecp * SE                                                     # sum_j e^{x_j}
    ell = np.log1p(y) - td.logk
    den = 1.0 + y
    f = ecp / den
    w = y / den                                                      # sum_j q_j
    gn *= f[:, :, None, None]                                        # sum_j q_j sn_j Dn_j
    spT = sp.transpose(0, 2, 1)                                      # (g, n, 1)
    # grad x_j = (sp Dp - sn_j Dn_j)/tau
    grad = ((w[..., None] * spT)[..., None] * td.Dp[None, :, None, :] - gn).reshape(g, n_, d) * it
    aux = {"fast": True, "f": f, "w": w, "gn": gn, "spT": spT, "cp": cp, "sp": sp, "grad": grad}
    return ell, grad, aux


def _blk_hess1(td, z, Eb, b, wb, tb, M):
    """Tuples b: sum_j E_j (sin^2 u_j - tau cos u_j) Dn_j Dn_j^T into M (symmetric entries once)."""
    if td.kernels is not None:
        return td.kernels.hess1(z, td.tau, td.DnT, b.start, Eb, td.work("row", (td.k,)), M)
    cn, sn = z.real, z.imag
    np.square(sn, out=wb)
    np.multiply(cn, td.tau, out=tb)
    wb -= tb
    wb *= Eb
    for c in range(td.d):
        np.multiply(wb, td.DnT[c, b], out=tb)
        for e in range(c, td.d):
            M[:, b, c, e] = M[:, b, e, c] = np.vecdot(tb, td.DnT[e, b])


def _finish_hess1(td, M, aux):
    """Hess l = sum_j q_j (Hess x_j + grad x_j grad x_j^T) - grad l grad l^T; the Dn Dn^T part has
    weight q_j (sn_j^2 - tau cn_j)/tau^2 (the sums of ``_blk_hess1`` times f)."""
    f, w, gn, spT, cp, grad = (aux[key] for key in ("f", "w", "gn", "spT", "cp", "grad"))
    tau = td.tau
    sp0 = spT[:, :, 0]
    cross = gn[:, :, 0, :, None] * (sp0[..., None, None] * td.Dp[None, :, None, :])
    Hs = (M * f[..., None, None] - cross - cross.transpose(0, 1, 3, 2)
          + (w * (sp0 * sp0 + tau * cp[:, 0]))[..., None, None] * td.Op[None]) / tau**2
    Hs -= grad[..., :, None] * grad[..., None, :]
    return Hs


def _ball_rows1(td, cp, sp, r):
    """Per tuple (g, n) constants of the m = 1 ball moments (units of 1/tau): ap, bp, gp and the
    positive's term e^{(cp - ap r)/tau} of D (``_blk_ball1``)."""
    nup, rp = td.nup, r * td.nup
    sbp = np.minimum(1.0, np.abs(sp[:, 0]) + rp)
    ap = sbp * nup                                                   # tau sup_B ||grad S(Dp)/tau||
    bp = np.minimum(1.0, np.abs(cp[:, 0]) + rp) * nup**2
    return ap, bp, sbp * nup**3, np.exp((cp[:, 0] - ap * r) / td.tau)


def _blk_ball1(td, z, Eb, r, b, rows, s, a, t):
    """Tuples b (``rows``: their ``_ball_rows1`` constants; s, a, t scratch of Eb's shape): the
    sums behind the moments of ``_ball_moments``, in units of 1/tau: with a_j = sbar_j ||Dn_j||,
    c_j = cbar_j ||Dn_j||^2 (alpha_j = (a_j + ap)/tau, beta_j = (c_j + bp)/tau,
    gamma_j = (a_j ||Dn_j||^2 + gp)/tau) and rho_j = min(E_j e^{a_j r/tau}, D),
    D = e^{(cp - ap r)/tau} + sum_l E_l e^{-a_l r/tau}, qbar_j = rho_j/D is the qbar of the module
    docstring (numerator and denominator times e^{cp/tau}).  Returns, each (g, nb): max_j a_j,
    max_j c_j, a value G with min(G + gp, Eg) = min(max_j a_j ||Dn_j||^2 + gp, Eg) where
    Eg = sum_j qbar_j (a_j ||Dn_j||^2 + gp) (that max itself where Eg exceeds its value at
    argmax a), D, sum_j rho_j a_j^p (p = 0..3), sum_j rho_j a_j ||Dn_j||^2, sum_j rho_j c_j^p
    (p = 1, 2)."""
    ap, bp, gp, dp = rows
    if td.kernels is not None:
        out = np.empty((11,) + Eb.shape[:-1])
        td.kernels.ball1(z, Eb, td.nun, b.start, r, -r / td.tau, gp, dp, out,
                         td.work("row", (td.k,)), td.work("row2", (td.k,)))
        return tuple(out)
    cn, sn = z.real, z.imag
    nun, ones = td.nun[b], td.ones
    rn = np.multiply(nun, r, out=td.work("rn", nun.shape))
    nun2 = np.square(nun, out=td.work("nun2", nun.shape))
    np.abs(sn, out=s)
    s += rn
    np.minimum(s, 1.0, out=s)                                        # sbar
    np.multiply(s, nun, out=a)
    ja = a.argmax(axis=-1).ravel()                                   # flat rows (g nb,)
    rows_ = np.arange(ja.size)
    amax = a.reshape(ja.size, -1)[rows_, ja].reshape(a.shape[:-1])
    np.multiply(a, -r / td.tau, out=t)
    np.exp(t, out=t)                                                 # e^{-a_j r/tau}
    D = dp + np.vecdot(Eb, t)
    rho = np.divide(Eb, t, out=t)
    if (rho.max(axis=-1) > D).any():
        np.minimum(rho, D[..., None], out=rho)                       # qbar_j <= 1
    Q0 = rho @ ones
    np.multiply(rho, a, out=s)
    Q1, G1 = s @ ones, np.vecdot(s, nun2)
    gmax = amax * nun2[rows_ % nun2.shape[0], ja].reshape(amax.shape)   # gamma at argmax a
    if ((G1 + gp * Q0) / D > (gmax + gp) * (1 - 1e-12)).any():
        gmax = np.multiply(a, nun2, out=td.work("g", a.shape)).max(axis=-1)
    s *= a
    Q2, Q3 = s @ ones, np.vecdot(s, a)
    c = np.abs(cn, out=a)
    c += rn
    np.minimum(c, 1.0, out=c)
    c *= nun2                                                        # cbar_j ||Dn_j||^2
    bmax = c.max(axis=-1)
    np.multiply(rho, c, out=s)
    P1, P2 = s @ ones, np.vecdot(s, c)
    return amax, bmax, gmax, D, Q0, Q1, Q2, Q3, G1, P1, P2


def _ball_combine(parts, rows, tau):
    """(L, H, T) (module docstring, (L), (H), (T)) from the sums of ``_blk_ball1`` over the blocks
    and the per-tuple constants ``rows``."""
    sums = (np.concatenate(v, axis=1) for v in zip(*parts))
    amax, bmax, gmax, D, Q0, Q1, Q2, Q3, G1, P1, P2 = sums
    ap, bp, gp, _ = rows
    it, iD = 1.0 / tau, 1.0 / D
    amax, bmax, gmax = amax + ap, bmax + bp, gmax + gp
    M1 = np.minimum(amax, (Q1 + ap * Q0) * iD) * it                 # Ebar[alpha^p], p = 1..3
    M2 = np.minimum(amax**2, (Q2 + ap * (2 * Q1 + ap * Q0)) * iD) * it**2
    M3 = np.minimum(amax**3, (Q3 + ap * (3 * Q2 + ap * (3 * Q1 + ap * Q0))) * iD) * it**3
    B1 = np.minimum(bmax, (P1 + bp * Q0) * iD) * it                 # Ebar[beta^p], p = 1, 2
    B2 = np.minimum(bmax**2, (P2 + bp * (2 * P1 + bp * Q0)) * iD) * it**2
    Eg = np.minimum(gmax, (G1 + gp * Q0) * iD) * it                 # Ebar[gamma]
    amax = amax * it
    # kappa_3 = E Y^3 - 3 mu E Y^2 + 2 mu^3 with |E Y^3| <= M3, mu^2 <= E Y^2 <= M2, |mu| <= M1:
    # |2 mu^3 - 3 mu E Y^2| <= |mu| (3 M2 - 2 mu^2) <= t (3 M2 - 2 t^2), t = min(M1, (M2/2)^{1/2});
    # and |kappa_3| <= max|Y - mu| Var Y <= (amax + M1) M2
    mu = np.minimum(M1, np.sqrt(M2 / 2))
    k3 = np.minimum(M3 + mu * (3 * M2 - 2 * mu * mu), (np.maximum(amax, 0.0) + M1) * M2)
    Ti = Eg + 3 * np.sqrt(B2 * M2) + k3
    return M1.mean(axis=-1), (B1 + M2).mean(axis=-1), Ti.mean(axis=-1)


def _losses_grads1(td, zn, cp, sp):
    """m = 1: ``_losses_grads`` block by block; E is kept (a scratch array of td) for the stages."""
    g = zn.shape[0]
    E = td.work("E", (g, td.n, td.k))
    SE, gn = np.empty((g, td.n)), np.empty((g, td.n, 1, td.d))
    for b in _blocks(td, g, whole=True):
        Eb = E[:, b]
        _blk_losses1(td, zn[:, 0, b], b, Eb, _scratch(td, "t", Eb.shape), SE, gn)
    ell, grad, aux = _finish_losses1(td, SE, gn, cp, sp)
    aux["E"] = E
    return ell, grad, aux


def _hessians1(td, zn, aux):
    """m = 1: ``_hessians`` block by block."""
    M = np.empty((zn.shape[0], td.n, td.d, td.d))
    for b in _blocks(td, zn.shape[0], whole=True):
        Eb = aux["E"][:, b]
        _blk_hess1(td, zn[:, 0, b], Eb, b, _scratch(td, "w", Eb.shape), _scratch(td, "t", Eb.shape), M)
    return _finish_hess1(td, M, aux)


def _ball_bounds1(td, zn, aux, r):
    """m = 1: ``_ball_bounds`` block by block."""
    rows, parts = _ball_rows1(td, aux["cp"], aux["sp"], r), []
    for b in _blocks(td, zn.shape[0], whole=True):
        Eb = aux["E"][:, b]
        parts.append(_blk_ball1(td, zn[:, 0, b], Eb, r, b,
                                [v[:, b] for v in rows], *(_scratch(td, x, Eb.shape) for x in "sat")))
    return _ball_combine(parts, rows, td.tau)


class _Stages:
    """The stages of a batch of cubes with phases zn (g, m, n, k), computed in turn."""
    counted = True

    def __init__(self, td, zn, centres):
        self.td, self.zn = td, zn
        self.cp, self.sp = td.phases_p(centres)

    def losses(self):
        ell, grad, self.aux = _losses_grads(self.td, self.zn, self.cp, self.sp)
        return ell, grad

    def hessians(self, sel):
        return _hessians(self.td, _rows(self.zn, sel), _sub(self.aux, sel, "hess"))

    def bounds(self, sel, r):
        return _ball_bounds(self.td, _rows(self.zn, sel), _sub(self.aux, sel, "bound"), r)

    def phases(self):
        """(phases, flag 0)."""
        return self.zn, 0


class _Known:
    """Cubes whose stages were computed before (the cache of the initial grid)."""
    counted = False

    def __init__(self, known):
        self.known = known

    def losses(self):
        return self.known["ell"], self.known["grad"]

    def hessians(self, sel):
        return self.known["hess"][sel]

    def bounds(self, sel, r):
        return tuple(self.known[key][sel] for key in "LHT")


def _fused_pass(td, zblock, K, cp, sp, losses=True, hess=False, r=None):
    """The m = 1 stages of K cubes in one pass over blocks of tuples; ``zblock(b)`` gives their
    phases (K, 1, nb, k) for the tuples b, made as they are read.  Returns the sums of
    ``_blk_losses1`` (SE, gn), those of ``_blk_hess1`` and the ball moments of ``_blk_ball1`` on
    B(centre, r) per block (each None when not asked for)."""
    n_, d = td.n, td.d
    SE, gn = (np.empty((K, n_)), np.empty((K, n_, 1, d))) if losses else (None, None)
    M = np.empty((K, n_, d, d)) if hess else None
    parts, rows = (None, None) if r is None else ([], _ball_rows1(td, cp, sp, r))
    for b in _blocks(td, K):
        z = zblock(b)[:, 0]
        Eb, tb = td.work("Eb", z.shape), _scratch(td, "t", z.shape)
        if losses:
            _blk_losses1(td, z, b, Eb, tb, SE, gn)
        elif td.kernels is not None:
            td.kernels.energies1(z, 1.0 / td.tau, Eb)
        else:
            np.exp(np.multiply(z.real, 1.0 / td.tau, out=Eb), out=Eb)
        if hess:
            _blk_hess1(td, z, Eb, b, _scratch(td, "w", z.shape), tb, M)
        if parts is not None:
            parts.append(_blk_ball1(td, z, Eb, r, b, [v[:, b] for v in rows],
                                    *(_scratch(td, x, z.shape) for x in "sat")))
    return (SE, gn), M, (None if r is None else (parts, rows))


class _Siblings:
    """Cubes pushed together whose phases are one parent's times tabulated factors (the children
    of a cube, or of a cube of a skipped level); m = 1, td.fast.  When the first of them is
    evaluated, the stages of all are computed in one pass over blocks of tuples (the parent's
    phases and the tables are read once for all; the children's phases are made block by block as
    they are read, and made whole only for a cube that gets descendants).  ``ahead()`` ->
    (hess, ball): compute the Hessians, the ball bounds (radius r) in that pass too; these are
    guesses: a stage not computed ahead is computed for its cube alone when asked for.  The values
    do not depend on how the work is grouped (beyond float64 rounding).

    Phases are held as (w, flag): w = exp(i u) (flag 0) or its conjugate exp(-i u) (flag 1).  A
    child with sign vector o, o_1 = -1, is made as conj(parent) times the factor of -o (flag 1),
    so only the factors with o_1 = +1 are read; cos u is the same, sin u changes sign, which only
    the gradient sum sees (negated back, exactly)."""

    def __init__(self, td, tables, parent, r, ahead):
        self.td, self.tables, self.parent, self.r, self.ahead = td, tables, parent, r, ahead
        self.centres, self.steps = [], []

    def add(self, centre, v, o):
        """Register a cube (its centre and its step v, o from the parent); its index."""
        j, half = self.tables.indices(o)[0], len(self.tables.signs) // 2
        neg = j < half                                   # made as a conjugate: the factor of -o
        self.centres.append(centre)
        self.steps.append((v, o, self.tables.factor(v, 2 * half - 1 - j if neg else j), neg))
        return len(self.centres) - 1

    def _zblock(self, sel):
        """b -> phases (len(sel), 1, nb, k) (as w, flags ``neg``) of the cubes sel for the tuples
        b, made from the parent's."""
        td, lo, hi = self.td, sel[0], sel[-1] + 1
        flags = {self.steps[i][3] for i in range(lo, hi)}
        both = len(flags) > 1 or self.pflag not in flags         # conj(parent) needed

        def zb(b):
            nb = len(range(td.n)[b])
            z = td.work("zb", (hi - lo, 1, nb, 2 * td.k)).view(complex)
            p = self.parent[0, b]
            pc = (np.conjugate(p, out=td.work("pc", (nb, 2 * td.k)).view(complex)) if both
                  else None)
            for i in range(lo, hi):
                _, _, f, neg = self.steps[i]
                np.multiply(p if neg == self.pflag else pc, f[b], out=z[i - lo, 0])
            return z
        return zb

    def _first(self):
        if hasattr(self, "ell"):
            return
        td, K = self.td, len(self.centres)
        self.parent, self.pflag = self.parent()
        self.cp, self.sp = td.phases_p(np.array(self.centres))
        hess, ball = self.ahead()
        (SE, gn), M, parts = _fused_pass(td, self._zblock(range(K)), K, self.cp, self.sp, True,
                                         hess, self.r if ball else None)
        gn[[s[3] for s in self.steps]] *= -1.0                   # sin u of the conjugates
        self.ell, self.grad, self.aux = _finish_losses1(td, SE, gn, self.cp, self.sp)
        self.M = [None if M is None else M[j:j + 1] for j in range(K)]
        self.parts = [None if parts is None else
                      ([tuple(v[j:j + 1] for v in p) for p in parts[0]],
                       [v[j:j + 1] for v in parts[1]]) for j in range(K)]
        self.ball_ahead = ball

    def _aux(self, j):
        return {key: (v if key == "fast" else v[j:j + 1]) for key, v in self.aux.items()}

    def losses(self, j):
        self._first()
        return self.ell[j:j + 1], self.grad[j:j + 1]

    def hessians(self, j):
        if self.M[j] is None:                            # sin u enters squared: flags do not matter
            _, self.M[j], parts = _fused_pass(
                self.td, self._zblock([j]), 1, self.cp[j:j + 1], self.sp[j:j + 1], False, True,
                self.r if self.ball_ahead and self.parts[j] is None else None)
            self.parts[j] = self.parts[j] if parts is None else parts
        return _finish_hess1(self.td, self.M[j], self._aux(j))

    def bounds(self, j, r):
        td = self.td                                     # |sin u|, |cos u|: flags do not matter
        if self.parts[j] is None and r == self.r and _ball_fast(td, r):
            self.parts[j] = _fused_pass(td, self._zblock([j]), 1, self.cp[j:j + 1],
                                        self.sp[j:j + 1], False, False, r)[2]
        out = (_ball_combine(*self.parts[j], td.tau) if self.parts[j] is not None and r == self.r
               else None)
        if out is None or not all(np.isfinite(v).all() for v in out):
            zj = self.phases(j)[0]                               # the shifted general route
            out = _ball_bounds_any(td, zj, _losses_grads_any(td, zj, self.cp[j:j + 1],
                                                             self.sp[j:j + 1])[2], r)
        return out

    def phases(self, j):
        """Phases (1, 1, n, k) of cube j and their flag (made now)."""
        z = np.empty((1, 1, self.td.n, self.td.k), complex)
        o = self.steps[j][1]
        self.tables.child(self.parent, self.steps[j][0], -o if self.pflag else o, out=z[0])
        return z, self.pflag


class _Kid:
    """The stages of cube j of a ``_Siblings`` group (the interface of ``_Stages``, g = 1)."""
    counted = True

    def __init__(self, group, j):
        self.group, self.j = group, j

    def losses(self):
        return self.group.losses(self.j)

    def hessians(self, sel):
        return self.group.hessians(self.j)

    def bounds(self, sel, r):
        return self.group.bounds(self.j, r)

    def phases(self):
        """(phases, flag) of the cube (the same objects on every call)."""
        if not hasattr(self, "z"):
            self.z = self.group.phases(self.j)
        return self.z


def local_bounds_and_losses(model, theta, za, zp, zn, tau, r=None, chunk=None, backend="auto"):
    """Losses, derivatives and ball-local derivative bounds at the centres ``theta`` (G of them).

    Returns a dict: ``ell`` (G, n) the losses l_i(theta_g); ``grad`` (G, n, d_Theta) and ``hess``
    (G, n, d_Theta, d_Theta) their exact gradients and Hessians; and, for the closed ball
    B(theta_g, r), bounds valid for every sign vector (module docstring, (L), (H), (T)):
    ``L[g] >= sup_B (1/n) sum_i ||grad l_i||``, ``H[g] >= sup_B (1/n) sum_i ||Hess l_i||`` and
    ``T[g] >= sup_B (1/n) sum_i sup_{|e|=1} |D^3 l_i[e,e,e]|``.  With ``r=None`` the bounds are not
    computed (``inf``).  The work is chunked over centres, about 2.5e5 (centre, tuple, negative,
    block) entries per chunk.  ``backend``: the m = 1 block kernels' ("auto": numba when installed,
    "numba" or "numpy"; the values differ by float64 rounding only).
    """
    theta = np.atleast_2d(np.asarray(theta, float))
    td = TupleDifferences(model, za, zp, zn, tau, check_backend(backend))
    G = theta.shape[0]
    if chunk is None:
        chunk = max(1, int(2.5e5 // max(1, td.m * td.n * td.k)))
    out = {"ell": np.empty((G, td.n)), "grad": np.empty((G, td.n, td.dT)),
           "hess": np.empty((G, td.n, td.dT, td.dT))}
    out |= {key: np.full(G, np.inf) for key in ("L", "H", "T")}
    for s in range(0, G, chunk):
        th = theta[s:s + chunk]
        zn_ = td.phases_n(th)
        ell, grad, aux = _losses_grads(td, zn_, *td.phases_p(th))
        out["ell"][s:s + chunk], out["grad"][s:s + chunk] = ell, grad
        out["hess"][s:s + chunk] = _hessians(td, zn_, aux)
        if r is not None:
            out["L"][s:s + chunk], out["H"][s:s + chunk], out["T"][s:s + chunk] = _ball_bounds(
                td, zn_, aux, r)
    return out


class PhaseTables:
    """exp(i <theta_l, Dn_ij>) at cube centres without evaluating sin and cos per centre.

    Level 0: the centre theta0 + 2 h0 a has block l, coordinate c equal to
    theta0_lc + 2 h0 a_lc, so exp(i u_l) = prod_c exp(i (theta0_lc + 2 h0 a_lc) Dn_c), a product of
    tabulated factors.  Level v >= 1: a child is its parent plus h_v o (o in {-1, 1}^d_Theta,
    h_v = h0 / 2^v), so exp(i u_l(child)) = exp(i u_l(parent)) exp(i h_v <o_l, Dn>), with the
    second factor tabulated per level (for o_l and its conjugate -o_l).
    """

    def __init__(self, td, theta0, h0, M):
        self.td, self.h0, self.M = td, h0, M
        t0 = np.asarray(theta0, float).reshape(td.m, td.d)
        a = np.arange(-M, M + 1)
        self.lattice = {}
        for l_ in range(td.m):
            for c in range(td.d):
                v = (t0[l_, c] + 2 * h0 * a)[:, None, None] * td.Dn[None, :, :, c]
                tab = np.empty(v.shape, complex)
                np.cos(v, out=tab.real)
                np.sin(v, out=tab.imag)
                self.lattice[l_, c] = tab                            # (2M+1, n, k)
        self.level = {}
        self.signs = np.array(list(itertools.product((-1.0, 1.0), repeat=td.d)))
        self.sign_index = {tuple(sg): j for j, sg in enumerate(self.signs.tolist())}

    def root(self, idx):
        """Phases (g, m, n, k) at level-0 centres with lattice indices idx (g, d_Theta)."""
        td = self.td
        idx = np.asarray(idx).reshape(-1, td.m, td.d) + self.M
        z = np.empty((idx.shape[0], td.m, td.n, td.k), complex)
        for b in range(idx.shape[0]):
            for l_ in range(td.m):
                acc = self.lattice[l_, 0][idx[b, l_, 0]].copy()
                for c in range(1, td.d):
                    acc *= self.lattice[l_, c][idx[b, l_, c]]
                z[b, l_] = acc
        return z

    def factor(self, v, j):
        """exp(i h_v <o_j, Dn>) (n, k) for the j-th sign vector o_j of one block."""
        if v not in self.level:
            h = self.h0 / 2**v
            u = h * np.einsum("sd,nkd->snk", self.signs, self.td.Dn)
            tab = np.empty(u.shape, complex)
            np.cos(u, out=tab.real)
            np.sin(u, out=tab.imag)
            self.level[v] = tab
        return self.level[v][j]

    def child(self, zparent, v, o, out=None, blk=slice(None)):
        """Phases (m, n, k) of the child parent + h_v o at level v from the parent's phases;
        o (d_Theta,) in {-1, 1}.  With ``blk``, those of the tuples blk only ((m, nb, k))."""
        z = np.empty_like(zparent[:, blk]) if out is None else out
        for l_, j in enumerate(self.indices(o)):
            np.multiply(zparent[l_, blk], self.factor(v, j)[blk], out=z[l_])
        return z

    def indices(self, o):
        """Indices j (per block l) of the sign vectors of o (d_Theta,)."""
        o = np.asarray(o).reshape(self.td.m, self.td.d)
        return [self.sign_index[tuple(o[l_].tolist())] for l_ in range(self.td.m)]


def certified_sup(model, za, zp, zn, tau, sigmas, L, h0, levels=6, tol=0.0, H=None,
                  init=None, rel_tol=0.0, local=True, max_evaluations=None, progress=None,
                  budget=2.5e5, fresh_ratio=0.25, max_skip=2, backend="auto", deadline=None):
    """Branch-and-bound certified upper bounds of sup_Theta f_sigma for each row of ``sigmas``.

    ``L``: Lipschitz constant of f_sigma; ``H`` (optional): bound on the Hessian norm; with
    ``local=True`` (default) they are replaced cube by cube by the smaller of them and the ball-local
    bounds (L), (H) of the module docstring, and with ``H`` given the third-order bound (exact
    Hess f_sigma at the centre plus (T)) is used as well.  ``H=None`` uses the first-order
    (Lipschitz) bound only.
    A cube is discarded for a sample when its upper value is <= best + tol_s, with
    ``tol_s = tol + rel_tol*(best - f_sigma(theta0))`` (relative to what the sup adds to the value at
    Theta's centre: E_sigma f_sigma(theta0) = 0, so these increments average to the Rademacher
    complexity, which a tolerance relative to |best| could exceed many times over at small R); the
    returned upper value is then max(best + tol_s, ...), so the
    guarantee ``upper >= sup`` is kept (tolerances only trade accuracy for time).  Refinement stops
    when every cube is discarded for every sample, at ``levels`` refinements, or when
    ``max_evaluations`` centres have been evaluated or the clock ``time.monotonic()`` has passed
    ``deadline`` (the cubes left then keep the upper value of their parent, which is valid on
    them).
    Cubes are visited depth first (module docstring, "Order and cost") in batches of about
    ``budget`` (centre, tuple, negative, block) entries (batches of one cube: siblings' stages in
    one pass, "Siblings together"); ``fresh_ratio`` and ``max_skip`` tune when
    fresh ball bounds are computed and how many levels may be skipped (speed only: every choice
    keeps the guarantee).  ``progress(fraction)``, if given, is called with the fraction of the
    initial cover that is settled.
    Returns dict with ``upper`` (S,), ``lower`` (S,) (certified lower bounds: values at centres in
    Theta and Taylor lower bounds at points of Theta near the centres), ``lower_point`` (S, d_Theta)
    (a point of Theta where f_sigma >= lower, a witness), ``grid_max`` (S,)
    (best centre of the initial grid inside Theta), ``at_centre`` (S,) (f_sigma(theta0)), ``evaluations`` (number of theta's at which all
    n losses were computed), ``final_radius``, ``complete`` (False when ``max_evaluations`` or
    ``deadline`` stopped the refinement), ``stopped_at_deadline`` (True for the latter), ``counts``
    (centres with Hessians, with fresh ball bounds, children screened out unevaluated, and these
    per level), ``init`` (cache of
    the initial grid's losses, gradients and local bounds, for later calls with the same data, h0
    and ``local``).  ``backend``: as for ``local_bounds_and_losses``.
    """
    td = TupleDifferences(model, za, zp, zn, tau, check_backend(backend))
    theta0 = np.asarray(model.theta0, float)
    R = model.radius
    d = theta0.size
    sig = np.asarray(sigmas, float)
    S, n_ = sig.shape
    second = H is not None
    Hglob = float(H) if second else np.inf
    Lglob = float(L)
    cubes0, idx0, M = initial_cubes(theta0, R, h0, with_index=True)
    phases = PhaseTables(td, theta0, h0, M)
    per_batch = max(1, int(budget // max(1, td.m * td.n * td.k)))
    kk = td.k
    fp = float_margin(tau, kk)
    alpha = slope_bounds(za, zp, zn, tau, model.C_Phi)
    at_centre = sig @ model.losses(theta0[None], za, zp, zn, tau)[0] / n_       # f_sigma(theta0) (S,)
    lower = np.full(S, -np.inf)
    lower_point = np.full((S, d), np.nan)
    floor = np.full(S, -np.inf)          # lower + tol_s at cubes discarded within the tolerance
    leafmax = np.full(S, -np.inf)        # upper values of cubes left at the last level
    stats = {"evaluations": 0, "hessians": 0, "fresh_bounds": 0, "complete": True, "late": False,
             "screened": 0, "per_level": {}}
    offsets = np.array(list(itertools.product((-1.0, 1.0), repeat=d)))
    settled = [0.0]
    grouped = per_batch == 1 and td.fast and max_evaluations is None
    total_volume = float(cubes0.shape[0])

    def settle(volume):
        settled[0] += volume
        if progress is not None:
            progress(min(1.0, settled[0] / total_volume))

    def tol_s():
        return tol + rel_tol * np.maximum(lower - at_centre, 0.0)

    def evaluate(centres, stg, h, act_in, inh):
        """Upper values (S, g) of one batch of cubes, cheapest bound first; updates lower.
        ``stg`` computes the stages (``_Stages``, ``_Kid`` or ``_Known``).

        Stage 1: losses and gradients at the centres, with the inherited (L, H) bounds.  Stage 2,
        for cubes still active for some sample: exact Hessians and the inherited (T).  Stage 3,
        for cubes where fresh bounds may help (``fresh_ratio``): (L), (H), (T) on their own ball.
        Every stage's upper value is a valid bound; the minimum is kept."""
        g = centres.shape[0]
        lv = stats["per_level"].setdefault(round(math.log2(h0 / h)), [0, 0, 0])
        lv[0] += g
        r = h * math.sqrt(d)
        ell, grad = stg.losses()
        stats["evaluations"] += g
        F = sig @ ell.T / n_                                         # (S, g)
        rel = centres - theta0
        inside = np.linalg.norm(rel, axis=1) <= R
        Fin = np.where(inside[None, :], F, -np.inf)
        jc = Fin.argmax(axis=1)
        _improve(lower, lower_point, Fin[np.arange(S), jc], centres[jc])
        Lg, Hg, Tg = (np.array(v, float) for v in inh)               # (g,) inherited bounds
        Lg = np.minimum(Lg, Lglob)
        Hg = np.minimum(Hg, Hglob)
        U = F + Lg * r
        # the interval bound (iv): cubes it discards for every sample get no further stage; for the
        # others it enters only at the end, so that the stages' choices (which cubes get Hessians
        # and fresh ball bounds, which their children inherit) are those of the Taylor bounds alone
        U_int = interval_upper(ell, sig, alpha, r, td.logk, fp)
        # (NaN-safe: a cube is dropped only where the bound is a number at or below the threshold)
        alive = (act_in & ~(U_int <= (lower + tol_s())[:, None])).any(axis=0)
        lin = gf = None
        if second:
            gf = (sig @ np.ascontiguousarray(grad.transpose(1, 0, 2)).reshape(n_, g * d)
                  ).reshape(S, g, d) / n_                            # (S, g, d) gradients of f_sigma
            lin = np.minimum(h * np.abs(gf).sum(axis=-1),
                             R * np.linalg.norm(gf, axis=-1) - np.einsum("sgd,gd->sg", gf, rel))
            U = np.minimum(U, F + lin + Hg * r * r / 2)
        act = act_in & (U > (lower + tol_s())[:, None]) & alive[None, :]
        if not act.any() or not (local or second):
            return F, np.fmin(U, U_int), (Lg, Hg, Tg), lin, gf, (Hg * r * r / 2)[None] if second else None
        if not local:                                                # global H only
            _improve(lower, lower_point, *_taylor_lower(F, gf, None, centres, theta0, R, r, Hg, Tg))
            return F, np.fmin(U, U_int), (Lg, Hg, Tg), lin, gf, (Hg * r * r / 2)[None] if second else None
        lam = np.zeros((S, g))
        hsel = np.zeros(0, int)
        if second:
            hsel = np.flatnonzero(act.any(axis=0))
            Hsel = stg.hessians(hsel)
            if stg.counted:
                stats["hessians"] += hsel.size
                lv[1] += hsel.size
            Hf = (sig @ np.ascontiguousarray(Hsel.transpose(1, 0, 2, 3)).reshape(
                n_, hsel.size * d * d)).reshape(S, hsel.size, d, d) / n_
            lam[:, hsel] = np.maximum(_lambda_max(Hf), 0.0)
            U[:, hsel] = np.minimum(U[:, hsel], F[:, hsel] + lin[:, hsel]
                                    + lam[:, hsel] * r * r / 2 + Tg[hsel] * r**3 / 6)
            act = act_in & (U > (lower + tol_s())[:, None]) & alive[None, :]
            # fresh bounds only where they may discard the cube (the inherited third-order term
            # cut by fresh_ratio leaves room for some active sample) or its children (they
            # inherit them: half the radius, about half the linear term); always without (T)
            room = (lower + tol_s())[:, None] - F - lin
            cubic = fresh_ratio * Tg * r**3 / 6
            want = (act & ((lam * r * r / 2 + cubic <= room) | (cubic / 8 <= room + lin / 2)
                           | ~np.isfinite(Tg)[None])).any(axis=0)
        else:
            want = act.any(axis=0)
        sel = np.flatnonzero(want)
        if sel.size:
            Lf, Hf_, Tf = stg.bounds(sel, r)
            if stg.counted:
                stats["fresh_bounds"] += sel.size
                lv[2] += sel.size
            Lg, Hg, Tg = Lg.copy(), Hg.copy(), Tg.copy()
            Lg[sel] = np.minimum(Lg[sel], Lf)
            Hg[sel] = np.minimum(Hg[sel], Hf_)
            Tg[sel] = np.minimum(Tg[sel], Tf)
            Us = (taylor_upper(F[:, sel], lin[:, sel], Lg[sel], Hg[sel], lam[:, sel], Tg[sel], r) if second
                  else F[:, sel] + Lg[sel] * r)
            U[:, sel] = np.minimum(U[:, sel], Us)
        Q = None
        if second:                        # the second/third-order term of the Taylor bound
            Q = np.broadcast_to(Hg * r * r / 2, (S, g)).copy()
            Q[:, hsel] = np.minimum(Q[:, hsel], lam[:, hsel] * r * r / 2 + Tg[hsel] * r**3 / 6)
        if hsel.size:                     # Taylor lower values where the Hessians are known
            # each is <= F + |grad f| r + lambda_+ r^2/2 (its point is within r of the centre):
            # skipped where that (with a rounding margin) is below the lower value of every sample
            top = F[:, hsel] + np.linalg.norm(gf[:, hsel], axis=-1) * r + lam[:, hsel] * r * r / 2
            if np.any(top + 1e-12 * (1.0 + np.abs(top)) > lower[:, None]):
                _improve(lower, lower_point, *_taylor_lower(F[:, hsel], gf[:, hsel], Hf,
                                                            centres[hsel], theta0, R, r, Hg[hsel],
                                                            Tg[hsel]))
        return F, np.fmin(U, U_int), (Lg, Hg, Tg), lin, gf, Q

    def account(U, act_in, level):
        """Discard (sample, cube) pairs; returns the pairs kept active."""
        ts = tol_s()
        act = act_in & (U > (lower + ts)[:, None])
        within = (act_in & (U > lower[:, None]) & ~act).any(axis=1)
        np.maximum(floor, np.where(within, lower + ts, -np.inf), out=floor)
        if level == levels:
            np.maximum(leafmax, np.where(act, U, -np.inf).max(axis=1, initial=-np.inf), out=leafmax)
            return np.zeros_like(act)
        return act

    # level 0: every centre of the initial grid, with all bounds (cached across calls)
    key = (local, float(h0), cubes0.shape[0])
    if not (isinstance(init, dict) and init.get("key") == key):
        init = {"key": key, "ell": [], "grad": [], "hess": [], "L": [], "H": [], "T": []}
        for s in range(0, cubes0.shape[0], per_batch):
            zn_ = phases.root(idx0[s:s + per_batch])
            cp, sp = td.phases_p(cubes0[s:s + per_batch])
            ell, grad, aux = _losses_grads(td, zn_, cp, sp)
            init["ell"].append(ell)
            init["grad"].append(grad)
            init["hess"].append(_hessians(td, zn_, aux))
            bnd = (_ball_bounds(td, zn_, aux, h0 * math.sqrt(d)) if local
                   else (np.full(ell.shape[0], np.inf),) * 3)
            for name, v in zip("LHT", bnd):
                init[name].append(v)
        init = {key_: (np.concatenate(v) if isinstance(v, list) else v) for key_, v in init.items()}
    C0 = cubes0.shape[0]
    inf3 = (np.full(C0, np.inf),) * 3
    F0, U0, bnd0, lin0, gf0, Q0 = evaluate(cubes0, _Known(init), h0, np.ones((S, C0), bool), inf3)
    grid_max = np.where((np.linalg.norm(cubes0 - theta0, axis=1) <= R)[None], F0, -np.inf).max(
        axis=1, initial=-np.inf)
    act0 = account(U0, np.ones((S, C0), bool), 0)
    # entries: (level, centre, active (S,), inherited (L, H, T), upper (S,), phases source)
    frontier = _Frontier(best_first=max_evaluations is not None)

    def push_children(level, centres, acts, bnds, U, F, lin, gf, Q, zsrc):
        """Descendants of the kept cubes, the most promising (highest centre value) last.
        ``zsrc``: the source of the cubes' phases, or a function returning it (called once, when
        a descendant is pushed).

        Normally the 2^d children; when even a third-order term fresh_ratio times the inherited
        one leaves no active sample room to discard a child, the level is skipped and the
        2^(d j) descendants j levels down are pushed instead (they cover the cube as well)."""
        keep = np.flatnonzero(acts.any(axis=0))
        settle(float(np.sum(0.5 ** (d * level) * (~acts.any(axis=0)))))
        if keep.size == 0:
            return
        promise = np.where(acts[:, keep], F[:, keep] - lower[:, None], -np.inf).max(axis=0)
        if lin is not None and np.isfinite(bnds[2]).any():
            room = np.where(acts, (lower + tol_s())[:, None] - F - lin / 2, -np.inf).max(axis=0)
            rc = h0 / 2 ** level * math.sqrt(d)
            cubic = fresh_ratio * bnds[2] * rc**3 / 6
        else:
            room, cubic = None, None
        for b in keep[np.argsort(promise)]:
            j = 1
            if room is not None:
                while (j < max_skip and level + j < levels and room[b] > 0 and not frontier.best_first
                       and not cubic[b] / 8**j <= room[b]):
                    j += 1
            steps = [((level + t), offsets * (h0 / 2 ** (level + t))) for t in range(1, j + 1)]
            kids = centres[b][None]
            paths = [()]
            for v, off in steps:
                kids = (kids[:, None, :] + off[None]).reshape(-1, d)
                paths = [p + ((v, o),) for p in paths for o in range(off.shape[0])]
            hc = h0 / 2 ** (level + j)
            inball = np.linalg.norm(kids - theta0, axis=1) <= R + hc * math.sqrt(d)
            ka = np.repeat(acts[:, b, None], kids.shape[0], axis=1)              # (S, K)
            Uk = np.repeat(U[:, b, None], kids.shape[0], axis=1)
            if Q is not None:
                # the Taylor bound at the parent's centre on the descendant's cube alone: the
                # linear term is maximised over the smaller cube (module docstring, screening)
                G_ = gf[:, b]                                                    # (S, d)
                rel_b = centres[b] - theta0
                lk = np.minimum((kids - centres[b]) @ G_.T + hc * np.abs(G_).sum(axis=1),
                                (R * np.linalg.norm(G_, axis=1) - G_ @ rel_b)).T  # (S, K)
                Uk = np.minimum(Uk, F[:, b, None] + lk + Q[:, b, None])
                ts = tol_s()
                ka_new = ka & (Uk > (lower + ts)[:, None])
                within = ((ka & (Uk > lower[:, None]) & ~ka_new)[:, inball]).any(axis=1)
                np.maximum(floor, np.where(within, lower + ts, -np.inf), out=floor)
                ka = ka_new
                stats["screened"] += int((inball & ~ka.any(axis=0)).sum())
            live = inball & ka.any(axis=0)
            settle(float(0.5 ** (d * (level + j)) * (~live).sum()))
            keys = np.where(ka, Uk, -np.inf).max(axis=0)
            if live.any() and not frontier.best_first:
                zsrc = zsrc() if callable(zsrc) else zsrc
            groups = {}
            for o in np.flatnonzero(live):
                src = None
                if not frontier.best_first:
                    src = (zsrc, b, paths[o], None)
                    if grouped:                   # siblings with one parent are evaluated together
                        pre, (v, so) = paths[o][:-1], paths[o][-1]
                        if pre not in groups:
                            groups[pre] = _Siblings(
                                td, phases, lambda z_=zsrc, b_=b, p_=pre: phases_at(z_, b_, p_),
                                hc * math.sqrt(d), lambda lv_=level + j: ahead(lv_))
                        kid = _Kid(groups[pre], groups[pre].add(kids[o], v, offsets[so]))
                        src = src[:3] + (kid,)
                frontier.push((level + j, kids[o], ka[:, o], (bnds[0][b], bnds[1][b], bnds[2][b]),
                               Uk[:, o], src), keys[o])

    if levels > 0:
        push_children(0, cubes0, act0, bnd0, U0, F0, lin0, gf0, Q0, ("root", idx0))
    final_level = 0
    recent = {}

    def phases_at(src, b, path):
        """(phases, flag) of the cube reached from source src ("root", lattice indices) or
        ("batch", phases, flag), index b, by the steps path (flag 1: the phases are conjugates,
        ``_Siblings``; a conjugate times the factor of -o is the child's conjugate); cached (16
        entries; the cache holds src, so its id is not reused while the entry lives), as the
        descendants of a cube share them."""
        key_ = (id(src[1]), b, path)
        if key_ in recent:
            return recent[key_][1]
        if not path and src[0] == "batch":
            return src[1][b], src[2]
        if path:
            v, o = path[-1]
            zpar, flag = phases_at(src, b, path[:-1])
            zf = (phases.child(zpar, v, -offsets[o] if flag else offsets[o]), flag)
        else:
            zf = (phases.root(src[1][b:b + 1])[0], 0)
        recent[key_] = (src[1], zf)
        if len(recent) > 16:
            del recent[next(iter(recent))]
        return zf

    def ahead(level):
        """Which stages a cube of this level is likely to need, from the counts so far: the
        Hessians and the ball bounds; a guess only sets the cost."""
        lv = stats["per_level"].get(level, [0, 0, 0])
        rate = lambda a, b: (a + 1) / (b + 2)  # noqa: E731
        hess = second and local and rate(lv[1], lv[0]) >= 0.5
        ball = (local and rate(lv[2], lv[1] if second else lv[0]) >= 0.5
                and _ball_fast(td, h0 / 2**level * math.sqrt(d)))
        return hess, ball and (hess or not second)

    cube_seconds = 0.0                   # the last batch's time per cube
    while frontier:
        now = time.monotonic()
        late = deadline is not None and now >= deadline
        if late or (max_evaluations is not None and stats["evaluations"] >= max_evaluations):
            stats["complete"], stats["late"] = False, late
            left_over = frontier.entries()                    # the parent's upper value holds
            acts_left = np.array([e[2] for e in left_over], bool).reshape(-1, S)
            ups_left = np.array([e[4] for e in left_over], float).reshape(-1, S)
            np.maximum(leafmax, np.where(acts_left, ups_left, -np.inf).max(axis=0, initial=-np.inf),
                       out=leafmax)
            break
        size = per_batch                 # near the deadline, batches it leaves time for
        if deadline is not None and cube_seconds > 0:
            size = max(1, min(per_batch, int((deadline - now) / cube_seconds) + 1))
        for batch in frontier.pop_batches(size):
            started = time.monotonic()
            level = batch[0][0]
            final_level = max(final_level, level)
            centres = np.array([e[1] for e in batch])
            act_in = np.stack([e[2] for e in batch], axis=1)
            inh = tuple(np.array([e[3][j] for e in batch]) for j in range(3))
            h = h0 / 2**level
            if frontier.best_first:                       # no phases kept: evaluated directly
                stg = _Stages(td, td.phases_n(centres), centres)
            elif batch[0][5][3] is not None:
                stg = batch[0][5][3]
            else:
                zn_ = np.empty((len(batch), td.m, td.n, td.k), complex)
                for j, e in enumerate(batch):
                    v, o = e[5][2][-1]
                    zpar, flag = phases_at(*e[5][:2], e[5][2][:-1])
                    phases.child(zpar, v, -offsets[o] if flag else offsets[o], out=zn_[j])
                    if flag:
                        np.conjugate(zn_[j], out=zn_[j])
                stg = _Stages(td, zn_, centres)
            F, U, bnd, lin, gf, Q = evaluate(centres, stg, h, act_in, inh)
            act = account(U, act_in, level)
            if level < levels:
                push_children(level, centres, act, bnd, U, F, lin, gf, Q,
                              lambda s_=stg: ("batch",) + s_.phases())
            else:
                settle(float(0.5 ** (d * level) * len(batch)))
            cube_seconds = (time.monotonic() - started) / len(batch)
    # the lower values: f_sigma at the witnesses, evaluated directly
    ok = np.isfinite(lower_point).all(axis=1)
    if ok.any():
        ell_w = model.losses(lower_point[ok], za, zp, zn, tau)
        fw = np.einsum("sn,sn->s", sig[ok], ell_w) / n_
        lower[ok] = np.minimum(lower[ok], fw)
    upper = np.maximum(np.maximum(lower, floor), leafmax)
    return {"upper": upper + fp, "lower": lower, "lower_point": lower_point, "grid_max": grid_max,
            "at_centre": at_centre,
            "evaluations": stats["evaluations"], "final_radius": h0 / 2**final_level * math.sqrt(d),
            "complete": stats["complete"], "stopped_at_deadline": stats["late"],
            "counts": {"hessians": stats["hessians"], "fresh_bounds": stats["fresh_bounds"],
                       "screened": stats["screened"],
                       "per_level": stats["per_level"]},
            "init": init}


class _Frontier:
    """Cubes still to visit: a stack (depth first, the default) or, with an evaluation budget, a
    heap on the largest upper value among the active samples (best first: the budget refines the
    cubes that set the upper value).  A batch has cubes of one level only."""

    def __init__(self, best_first):
        self.best_first = best_first
        self.items = []
        self.count = itertools.count()

    def __bool__(self):
        return bool(self.items)

    def push(self, entry, key):
        """``key``: the largest upper value of the cube among its active samples."""
        if self.best_first:
            heapq.heappush(self.items, (-key, next(self.count), entry))
        else:
            self.items.append(entry)

    def entries(self):
        return [it[2] for it in self.items] if self.best_first else self.items

    def pop_batches(self, size):
        """Up to ``size`` cubes (the top of the stack, or the best ones), as batches by level."""
        if not self.best_first:
            level = self.items[-1][0]
            batch = []
            while self.items and self.items[-1][0] == level and len(batch) < size:
                batch.append(self.items.pop())
            return [batch]
        top = [heapq.heappop(self.items)[2] for _ in range(min(size, len(self.items)))]
        return [[e for e in top if e[0] == v] for v in sorted({e[0] for e in top})]


def _improve(lower, point, val, pts):
    """In place: where val > lower, take val and its point."""
    better = val > lower
    lower[better] = val[better]
    point[better] = pts[better]


def _lambda_max(A):
    """Largest eigenvalue of symmetric (..., d, d) matrices, d <= 3."""
    d = A.shape[-1]
    if d == 1:
        return A[..., 0, 0]
    if d == 2:
        a, b, c = A[..., 0, 0], A[..., 0, 1], A[..., 1, 1]
        return (a + c) / 2 + np.hypot((a - c) / 2, b)
    return np.linalg.eigvalsh(A)[..., -1] if A.size else np.zeros(A.shape[:-2])


def _taylor_lower(F, gf, Hf, cubes, theta0, R, r, Heff, Tc):
    """Certified lower bounds (S,) of sup_Theta f_sigma from expansions at the centres, and points
    (S, d) of Theta where f_sigma is at least that large.

    For p in Theta with ||p - g|| <= r and delta = p - g, both
    f(p) >= f(g) + <grad f(g), delta> - Heff ||delta||^2 / 2 and (when ``Hf`` is given)
    f(p) >= f(g) + <grad f(g), delta> + delta^T Hess f(g) delta / 2 - T ||delta||^3 / 6.
    Candidates p: the projections onto Theta of g + t grad f(g)/||grad f(g)|| for
    t = min(||grad f||/Heff, r) and t = r; a candidate farther than r from g is replaced by the
    projection of g, which is within r of g for every kept cube.
    """
    gnorm = np.linalg.norm(gf, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        e = np.where(gnorm[..., None] > 0, gf / gnorm[..., None], 0.0)
        ts = [np.minimum(np.where(Heff > 0, gnorm / Heff, np.inf), r), np.full(gnorm.shape, r)]
    rel = cubes - theta0
    n0 = np.linalg.norm(rel, axis=-1)
    pg = rel * np.minimum(1.0, R / np.maximum(n0, 1e-300))[:, None]        # projection of g
    dpg = pg - rel
    S = F.shape[0]
    best = np.full(S, -np.inf)
    best_p = np.full((S, cubes.shape[1]), np.nan)
    for t in ts:
        p = rel[None] + e * t[..., None]                                    # relative to theta0
        pn = np.linalg.norm(p, axis=-1)
        p = p * np.minimum(1.0, R / np.maximum(pn, 1e-300))[..., None]
        delta = p - rel[None]
        dn = np.linalg.norm(delta, axis=-1)
        far = dn > r
        delta = np.where(far[..., None], dpg[None], delta)
        dn = np.linalg.norm(delta, axis=-1)
        lin = np.einsum("scd,scd->sc", gf, delta)
        val = F + lin - Heff * dn * dn / 2
        if Hf is not None:
            qf = np.einsum("scd,scde,sce->sc", delta, Hf, delta)
            with np.errstate(invalid="ignore"):
                cubic = F + lin + qf / 2 - Tc * dn**3 / 6              # T = inf: no bound
            val = np.maximum(val, np.where(np.isnan(cubic), -np.inf, cubic))
        val = np.where(dn <= r, val, -np.inf)
        if val.shape[1]:
            j = val.argmax(axis=1)
            _improve(best, best_p, val[np.arange(S), j], (rel[j] + delta[np.arange(S), j]) + theta0)
    return best, best_p


def _optimise_lower(model, za, zp, zn, tau, sig, starts, deadline=None):
    """Multi-start SLSQP ascent of f_sigma on Theta from ``starts`` (list per sample of (p, d)
    arrays); returns values (S,) attained at the returned points (S, d) (evaluated there; -inf for
    samples not reached) and the number of samples optimised: none is started once the clock
    ``time.monotonic()`` has passed ``deadline``."""
    from scipy import optimize
    R, t0 = model.radius, model.theta0
    n_ = sig.shape[1]
    vals = np.full(sig.shape[0], -np.inf)
    pts = np.full((sig.shape[0], t0.size), np.nan)
    cons = {"type": "ineq", "fun": lambda t: R**2 - ((t - t0) ** 2).sum(), "jac": lambda t: -2 * (t - t0)}
    for s in range(sig.shape[0]):
        if deadline is not None and time.monotonic() >= deadline:
            return vals, pts, s
        def fun(t, w=sig[s]):
            ell, gr = model.losses_and_grads(t[None], za, zp, zn, tau)
            return -float(w @ ell[0]) / n_, -(w @ gr[0]) / n_
        for x0 in starts[s]:
            res = optimize.minimize(fun, x0, jac=True, method="SLSQP", constraints=[cons],
                                    options={"maxiter": 100, "ftol": 1e-12})
            p = res.x
            nrm = np.linalg.norm(p - t0)
            if nrm > R:                                       # back onto Theta
                p = t0 + (p - t0) * (R / nrm)
            v = float(sig[s] @ model.losses(p[None], za, zp, zn, tau)[0]) / n_
            if v > vals[s]:
                vals[s], pts[s] = v, p
    return vals, pts, sig.shape[0]


def _whole_ball_upper(model, za, zp, zn, tau, sig, L, H, backend):
    """Upper values (S,) of sup_Theta f_sigma from one ball, Theta itself (centre theta0, radius R):
    ``taylor_upper`` with the linear term |grad f| R and (L), (H), (T) on that ball (the global L, H
    where smaller), and the interval bound (iv), plus the float64 margin.
    Above d_Theta = 5 the coarse cover's level-0 cubes have balls of radius R sqrt(d_Theta) (3R at
    9), and this one ball is the tighter bound (n = 50, k = 64, tau = 0.1: 28 against 87)."""
    R, n_ = model.radius, sig.shape[1]
    at = local_bounds_and_losses(model, model.theta0[None], za, zp, zn, tau, r=R, backend=backend)
    F = sig @ at["ell"][0] / n_
    g = np.linalg.norm(sig @ at["grad"][0] / n_, axis=1)
    hess = np.einsum("sn,nij->sij", sig, at["hess"][0]) / n_
    lam = np.maximum(_lambda_max(hess), 0.0)
    Lb, Hb, Tb = min(at["L"][0], L), min(at["H"][0], H), at["T"][0]
    fp = float_margin(tau, zn.shape[1])
    taylor = taylor_upper(F, g * R, Lb, Hb, lam, Tb, R)
    interval = interval_upper(at["ell"], sig, slope_bounds(za, zp, zn, tau, model.C_Phi), R,
                              math.log(zn.shape[1]), fp)[:, 0]
    return np.fmin(taylor, interval) + fp


def default_h0(d_Theta, radius):
    """Half-side of the level-0 cubes: R/12, R/5 at d_Theta = 3, R/3 at 4 and 5, R above (the
    coarse cover of d_Theta > 3, whose level-0 grid alone has 73 cubes at d_Theta = 6, 2851 at 9)."""
    return radius / (12 if d_Theta <= 2 else 5 if d_Theta == 3 else 3 if d_Theta <= 5 else 1)


def rademacher_estimate(data="gaussian", dim_in=2, m=1, n=50, k=16, tau=0.5, radius=1.0,
                        samples=100, seed=0, sigma=0.5, kernel="additive", h0=None, levels=8,
                        chunk=100, tuples=None, second_order=True, rel_tol=0.01, tol=None,
                        max_evaluations=None, progress=None, backend="auto", max_seconds=None):
    """Empirical Rademacher complexity of the InfoNCE loss over {phi_theta: ||theta|| <= R}.

    Rad = E_sigma sup_Theta f_sigma = E_sigma (sup_Theta f_sigma - f_sigma(theta0)) (as E_sigma f_sigma(theta0)
    = 0), estimated from the second form: Monte Carlo over ``samples`` Rademacher vectors (streamed in
    chunks of ``chunk``, seeded by SeedSequence(seed)), or, when 2^n <= ``samples``, every one of the 2^n once (``sign_vectors``
    says which; then the means are exact over sigma and the standard errors 0); the sup per sample
    is certified from above by branch and bound (see the module docstring).  Returns ``estimate`` (upper), ``stderr``, ``lower_estimate``,
    ``grid_max_estimate`` (plain initial-grid max), ``upper_kind`` / ``lower_kind`` (how the two
    values are obtained: "certified", or for d_Theta > 3 "certified (coarse)" and "optimiser"),
    ``relative_gap`` ((estimate - lower_estimate)/|lower_estimate|), ``complete`` (False when the
    evaluation budget stopped a branch and bound), ``C_Phi``, ``d_Theta``, ``grid_points``,
    ``certificate`` (L * final covering radius), timings and ``tuples`` (the sampled data, for the
    bounds of ``checks.rademacher``).  ``progress(done, total)``, if given, is called as the
    samples are settled (``total = samples``).  ``backend``: the block kernels' ("auto": numba
    when installed, "numba" or "numpy"; they differ by float64 rounding only, inside the margin
    of the sup); the output's ``"backend"`` names the one that ran.  ``max_seconds``: after this
    many seconds (wall) every branch and bound stops refining: the cubes left keep their parents'
    upper values, so the upper estimate stays certified but looser, ``complete`` is False and
    ``stopped_at_max_seconds`` True; for d_Theta > 3 no optimiser ascent starts after it either (the
    lower values of those samples are the branch and bound's witnesses; ``optimised_samples``
    counts the others).  The level-0 grid (``grid_points`` cubes, each with its Hessians and ball
    bounds) is always evaluated: it is what the upper value is certified on.
    ``rel_tol``, ``tol``: the branch and bound's tolerances (``certified_sup``): a sample's upper value
    may exceed its sup by rel_tol times what the sup adds to f_sigma(theta0), plus tol (default
    1e-4 min(1, R)/tau: f_sigma varies over Theta by at most L R, L ~ 1/tau).
    For d_Theta > 3 the defaults are h0 = R/3 (R for d_Theta > 5) and ``max_evaluations`` such
    that about 2e8 (centre, tuple, negative) entries (at most 20000 centres) are evaluated per chunk.
    """
    t0 = time.time()
    deadline = None if max_seconds is None else time.monotonic() + float(max_seconds)
    tau = check_tau(tau)
    n = check_k(n, "n")
    k = check_k(k)
    samples = check_k(samples, "samples")
    backend = check_backend(backend)
    # at most `samples` sign vectors in all (n <= log2 samples): every one once, so the mean is the
    # exact expectation over sigma (at n = 1 two draws are both +1 half the time: an estimate of
    # sup l with a zero standard error where E_sigma sup is (sup l - inf l)/2)
    every_sign = n <= 20 and 2**n <= samples
    if every_sign:
        samples = 2**n
    model = FourierEmbedding(m, dim_in, radius)
    ss = np.random.SeedSequence(seed)
    data_seed, sigma_seed, start_seed = ss.spawn(3)
    if tuples is None:
        za, zp, zn = sample_tuples(data, dim_in, n, k, np.random.default_rng(data_seed), sigma=sigma,
                                   kernel=kernel)
    else:
        za, zp, zn = tuples
    C = model.C_Phi
    dT = model.d_Theta
    coarse = dT > 3
    L_prop4 = certificate_lipschitz(za, zp, zn, tau, C, (2, 1, 1))
    L_cert, H_cert = certificate_constants_local(za, zp, zn, tau, C)
    if h0 is None:
        h0 = default_h0(dT, radius)
    if coarse and max_evaluations is None:
        max_evaluations = int(min(20000, max(500, 2e8 // (m * n * k))))
    if coarse:          # the optimiser's import (0.3 s cold) before the clock is shared out, not in its quarter
        importlib.import_module("scipy.optimize")
    rng_s = np.random.default_rng(sigma_seed)
    rng_o = np.random.default_rng(start_seed)           # the optimiser's random starts (d_Theta > 3)
    ups, los, gms, centres = [], [], [], []
    evals = 0
    cache = None
    final_r = None
    complete, late = True, False
    optimised = 0
    left = samples
    while left > 0:
        s = min(chunk, left)
        done = samples - left
        left -= s
        sig = (1.0 - 2.0 * ((np.arange(done, done + s)[:, None] >> np.arange(n)) & 1) if every_sign   # chunk by chunk
               else rng_s.choice([-1.0, 1.0], size=(s, n)))
        report = None if progress is None else (lambda f, a=done, b=s: progress(a + f * b, samples))
        bb_end, share = deadline, None
        if coarse and deadline is not None:        # this chunk's share of the time left, a quarter
            now = time.monotonic()                  # of it kept for the optimiser
            share = max(0.0, deadline - now) * s / (s + left)
            bb_end = now + 0.75 * share
        res = certified_sup(model, za, zp, zn, tau, sig, L_cert, h0, levels=levels,
                            H=H_cert if second_order else None, init=cache, rel_tol=rel_tol,
                            tol=(1e-4 * min(1.0, radius) / tau if tol is None else tol),
                            max_evaluations=max_evaluations, progress=report, backend=backend,
                            deadline=bb_end)
        cache = res["init"]
        lo = res["lower"]
        if coarse:
            res["upper"] = np.minimum(res["upper"], _whole_ball_upper(model, za, zp, zn, tau, sig, L_cert,
                                                                      H_cert, backend))
            # starts: the witness, the best few grid centres inside Theta and two uniform points of
            # Theta, per sample (the maxima sit on the sphere |theta - theta0| = R, which the level-0
            # centres inside Theta miss above d_Theta = 5: at d_Theta = 9, n = 50, k = 64, tau = 0.1
            # the random starts reach 0.09-0.18 where the grid's centre gives 1e-4)
            cubes0 = initial_cubes(model.theta0, radius, h0)
            inside = np.linalg.norm(cubes0 - model.theta0, axis=1) <= radius
            F0 = sig @ cache["ell"][inside].T / n
            uniform = model.uniform_points(rng_o, (s, 2))
            starts = [np.vstack([res["lower_point"][i][None], cubes0[inside][np.argsort(F0[i])[-3:]], uniform[i]])
                      for i in range(s)]
            starts = [np.unique(p[np.isfinite(p).all(axis=1)], axis=0) for p in starts]
            # its quarter, also where the level-0 grid or the last batch ran past the three quarters
            opt_end = None if share is None else max(bb_end, time.monotonic()) + 0.25 * share
            vo, _, ran = _optimise_lower(model, za, zp, zn, tau, sig, starts, opt_end)
            lo = np.maximum(lo, vo)
            optimised += ran
        ups.append(res["upper"])
        los.append(lo)
        gms.append(res["grid_max"])
        centres.append(res["at_centre"])
        evals += res["evaluations"]
        complete = complete and res["complete"]
        late = late or res["stopped_at_deadline"]
        final_r = res["final_radius"] if final_r is None else max(final_r, res["final_radius"])
        if progress is not None:
            progress(samples - left, samples)
    # the increments over f_sigma(theta0), whose mean over sigma is 0 (a control variate of known
    # mean): Rad = E_sigma (sup f_sigma - f_sigma(theta0)), without the noise of f_sigma(theta0) over the
    # sampled sign vectors, which dominates at small R (R = 1e-3, n 50, 16 samples: 0.0082 +- 0.0078
    # where Rad < 4.3e-4, Prop. 5's bound); with every sign vector the two means agree exactly
    cen = np.concatenate(centres)
    up = np.concatenate(ups) - cen
    # sup f_sigma >= f_sigma(theta0), theta0 in Theta: an increment below 0 is the rounding of the two
    # evaluations (-5.6e-17 at R = 1e-300; a probe), and f_sigma(theta0) is itself a lower value
    lo = np.maximum(np.concatenate(los) - cen, 0.0)
    gm = np.concatenate(gms) - cen
    est, low = float(up.mean()), float(lo.mean())
    # the upper estimate's 95% interval (Student's t over the sign vectors) and Cochran's rule for it; exact with
    # every sign vector (a probe, Dec 2026: the stderr alone)
    interval = {"ci95": [est, est], "ci95_reliable": True} if every_sign else \
        {key: value for key, value in sampled_result(len(up), *block_moments(up)).items()
         if key in ("ci95", "ci95_reliable")}
    return {
        "estimate": est, **interval,
        "stderr": 0.0 if every_sign else float(up.std(ddof=1) / math.sqrt(len(up))) if len(up) > 1 else float("nan"),
        "lower_estimate": low,
        "lower_stderr": 0.0 if every_sign else float(lo.std(ddof=1) / math.sqrt(len(lo))) if len(lo) > 1 else float("nan"),
        "sign_vectors": "all (the exact mean over sigma)" if every_sign else "sampled (Monte Carlo)",
        "grid_max_estimate": float(gm.mean()),
        "upper_kind": "certified (coarse)" if coarse else "certified",
        "lower_kind": "optimiser" if coarse else "certified",
        **({"optimised_samples": optimised} if coarse else {}),
        "backend": backend,
        "relative_gap": float((est - low) / abs(low)) if low != 0 else float("inf"),
        "complete": bool(complete),
        "stopped_at_max_seconds": bool(late),
        "C_Phi": C, "d_Theta": dT,
        "L_certificate": L_cert, "H_certificate": H_cert, "L_prop4_certificate": L_prop4,
        "grid_points": int(initial_cubes(model.theta0, radius, h0).shape[0]),
        "evaluations": int(evals),
        "certificate": float(L_cert * final_r),
        "certified_gap": float((up - lo).mean()),
        "float_margin": float_margin(tau, k),
        "tolerance": 1e-4 * min(1.0, radius) / tau if tol is None else tol,
        "samples": samples, "n": n, "k": k, "tau": tau, "data": data, "radius": radius,
        "seconds": time.time() - t0, "tuples": (za, zp, zn),
    }
