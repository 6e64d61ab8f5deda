"""Compiled (numba) block kernels of the certified Rademacher supremum, m = 1 (``td.fast``).

Imported only when numba is installed; ``rademacher.py`` uses them for ``backend="numba"`` and
keeps its NumPy kernels (``_blk_losses1``, ``_blk_hess1``, ``_blk_ball1``) otherwise.  Each
kernel computes, for every (cube, tuple) row of a block, the same sums as its NumPy twin in one
pass over the row (the temporaries are a row long), with the exponential of
``montecarlo_compiled`` (within 1 ulp, like NumPy's) and sums whose order LLVM may vectorise
(``reassoc_add``).  So the two backends differ by float64 rounding only (a few ulp of each sum,
relative k 2^-53 at most), far inside the 1e-10 (2/tau + log(k+1) + 1) margin of the supremum;
the tests compare them entry by entry.

Shapes: z (K, nb, k) complex, the phases exp(i u) of K cubes for the nb tuples of the block;
E (K, nb, k) the energies e^{cos u/tau}; DnT (d, nb, k) the negatives' differences, coordinate
first.  Every exponent is within +-_EXP_SAFE (600) where these kernels are used (``td.fast``,
``_ball_fast``), inside the range of ``exp_core``.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .montecarlo_compiled import exp_core, reassoc_add

__all__ = ["energies1", "losses1", "hess1", "ball1"]


# nnan, ninf, nsz: no NaN, infinity or signed zero meets these kernels (finite phases, exponents
# within +-600); the flags let LLVM vectorise the max reductions and change no finite result.
# error_model="numpy": a division is a plain division (no zero check), so its loop vectorises
_FLAGS = {"contract", "nnan", "ninf", "nsz"}


@njit(fastmath=_FLAGS, error_model="numpy", cache=True)
def energies1(z, inv_tau, E):
    """E = e^{cos u/tau}."""
    K, nb, k = z.shape
    for g in range(K):
        for i in range(nb):
            for j in range(k):
                E[g, i, j] = exp_core(z[g, i, j].real * inv_tau)


@njit(fastmath=_FLAGS, error_model="numpy", cache=True)
def losses1(z, inv_tau, DnT, i0, E, SE, gn):
    """E = e^{cos u/tau}, SE = sum_j E_j, gn[..., c] = sum_j E_j sin u_j Dn_j[c]
    (``_blk_losses1``) for the tuples i0 .. i0 + nb - 1; SE (K, n), gn (K, n, d)."""
    K, nb, k = z.shape
    d = DnT.shape[0]
    for g in range(K):
        for i in range(nb):
            zr, er = z[g, i], E[g, i]
            s = 0.0
            for j in range(k):
                e = exp_core(zr[j].real * inv_tau)
                er[j] = e
                s = reassoc_add(s, e)
            SE[g, i0 + i] = s
            for c in range(d):
                dr = DnT[c, i0 + i]
                acc = 0.0
                for j in range(k):
                    acc = reassoc_add(acc, er[j] * zr[j].imag * dr[j])
                gn[g, i0 + i, c] = acc


@njit(fastmath=_FLAGS, error_model="numpy", cache=True)
def hess1(z, tau, DnT, i0, E, w, M):
    """M[..., c, e] = sum_j E_j (sin^2 u_j - tau cos u_j) Dn_j[c] Dn_j[e] (``_blk_hess1``) for the
    tuples i0 .. i0 + nb - 1; M (K, n, d, d), w scratch of length k."""
    K, nb, k = z.shape
    d = DnT.shape[0]
    for g in range(K):
        for i in range(nb):
            zr, er = z[g, i], E[g, i]
            for j in range(k):
                v = zr[j]
                w[j] = (v.imag * v.imag - v.real * tau) * er[j]
            for c in range(d):
                dc = DnT[c, i0 + i]
                for e in range(c, d):
                    de = DnT[e, i0 + i]
                    acc = 0.0
                    for j in range(k):
                        acc = reassoc_add(acc, w[j] * dc[j] * de[j])
                    M[g, i0 + i, c, e] = acc
                    M[g, i0 + i, e, c] = acc


@njit(fastmath=_FLAGS, error_model="numpy", cache=True)
def ball1(z, E, nun, i0, r, f, gp, dp, out, a, rho):
    """The sums of ``_blk_ball1`` (its docstring) per row, into out (11, K, nb) in its order:
    max_j a_j, max_j c_j, G, D, sum_j rho_j a_j^p (p = 0..3), sum_j rho_j a_j ||Dn_j||^2,
    sum_j rho_j c_j^p (p = 1, 2), for the tuples i0 .. i0 + nb - 1.  nun (n, k) the norms
    ||Dn_j||; gp, dp (K, nb) the positive's constants of ``_ball_rows1``; f = -r/tau; a, rho
    scratch of length k.  G is max_j a_j ||Dn_j||^2 itself."""
    K, nb, k = z.shape
    for g in range(K):
        for i in range(nb):
            zr, er, nr = z[g, i], E[g, i], nun[i0 + i]
            Dsum = 0.0
            for j in range(k):               # sbar_j ||Dn_j||, rho_j = E_j e^{a_j r/tau}
                nu = nr[j]
                aj = min(abs(zr[j].imag) + nu * r, 1.0) * nu
                a[j] = aj
                t = exp_core(aj * f)
                Dsum = reassoc_add(Dsum, er[j] * t)
                rho[j] = er[j] / t
            D = dp[g, i] + Dsum
            rmax = -np.inf
            for j in range(k):
                rmax = max(rmax, rho[j])
            if rmax > D:                     # qbar_j <= 1
                for j in range(k):
                    rho[j] = min(rho[j], D)
            Q0 = Q1 = Q2 = Q3 = G1 = P1 = P2 = 0.0
            amax = bmax = gmax = -np.inf
            for j in range(k):
                nu = nr[j]
                nu2 = nu * nu
                rj, aj = rho[j], a[j]
                amax = max(amax, aj)
                gmax = max(gmax, aj * nu2)
                s = rj * aj
                Q0 = reassoc_add(Q0, rj)
                Q1 = reassoc_add(Q1, s)
                G1 = reassoc_add(G1, s * nu2)
                s = s * aj
                Q2 = reassoc_add(Q2, s)
                Q3 = reassoc_add(Q3, s * aj)
                c = min(abs(zr[j].real) + nu * r, 1.0) * nu2
                bmax = max(bmax, c)
                s = rj * c
                P1 = reassoc_add(P1, s)
                P2 = reassoc_add(P2, s * c)
            out[0, g, i], out[1, g, i], out[2, g, i], out[3, g, i] = amax, bmax, gmax, D
            out[4, g, i], out[5, g, i], out[6, g, i], out[7, g, i] = Q0, Q1, Q2, Q3
            out[8, g, i], out[9, g, i], out[10, g, i] = G1, P1, P2
