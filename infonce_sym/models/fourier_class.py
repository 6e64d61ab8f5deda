"""A class satisfying assumption (C): random-Fourier-feature embeddings on S^{2m-1}.

``phi_theta(z) = m^{-1/2} (cos<theta_1,z>, sin<theta_1,z>, ..., cos<theta_m,z>, sin<theta_m,z>)``,
``z in R^{d_in}``, ``theta = (theta_1..theta_m) in R^{m d_in}`` (so ``d_Theta = m d_in``),
``Theta = {||theta - theta_0|| <= R}``.

Lipschitz constant (assumption (C)), exact: ``C_Phi = m^{-1/2}``.  Proof:
``||phi_theta(z) - phi_theta'(z)||^2 = (1/m) sum_i |e^{i<theta_i,z>} - e^{i<theta'_i,z>}|^2
= (1/m) sum_i 4 sin^2(<theta_i - theta'_i, z>/2) <= (1/m) sum_i <theta_i - theta'_i, z>^2
<= (1/m) ||z||^2 sum_i ||theta_i - theta'_i||^2 = (1/m) ||z||^2 ||theta - theta'||^2``
(using |sin x| <= |x| and Cauchy-Schwarz).  The constant is the best one: take
``theta'_i = theta_i`` except one block, with ``theta_1 - theta'_1 = t z/||z||`` and ``t ||z|| -> 0``;
the ratio tends to ``m^{-1/2}``.  The bound holds for all theta, theta' in R^{d_Theta}, not only in Theta.

Similarities only need differences: ``<phi_theta(x), phi_theta(y)> = (1/m) sum_i cos<theta_i, x - y>``.

Data: ``pi_data`` is N(0, I) ("gaussian") or i.i.d. Student-t coordinates with nu = 3
("student_t").  Positive kernels: "additive" ``z^+ = z + sigma xi`` (M(z,.) = N(z, sigma^2 I)), or
"ou" ``z^+ = (z + sigma xi)/sqrt(1 + sigma^2)`` (M(z,.) = N(rho z, (1-rho^2) I), rho = 1/sqrt(1+sigma^2),
which leaves N(0, I) invariant).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from ..errors import InputError, check_k, check_positive

__all__ = ["FourierEmbedding", "sample_data", "sample_tuples", "DATA", "KERNELS",
           "density_ratio_second_moment", "log_pi", "log_density_ratio"]

DATA = ("gaussian", "student_t")
KERNELS = ("additive", "ou")
STUDENT_NU = 3.0


@dataclass
class FourierEmbedding:
    m: int
    dim_in: int
    radius: float
    theta0: np.ndarray | None = None

    def __post_init__(self):
        self.m = check_k(self.m, "m")
        self.dim_in = check_k(self.dim_in, "dim_in")
        self.radius = check_positive("radius", self.radius)
        if self.theta0 is None:
            self.theta0 = np.zeros(self.d_Theta)
        self.theta0 = np.asarray(self.theta0, float).ravel()
        if self.theta0.size != self.d_Theta:
            raise InputError("theta0", f"must have {self.d_Theta} entries, got {self.theta0.size}")

    @property
    def d_Theta(self) -> int:
        return self.m * self.dim_in

    @property
    def C_Phi(self) -> float:
        return 1.0 / math.sqrt(self.m)

    @property
    def embed_dim(self) -> int:
        return 2 * self.m

    def _theta(self, theta):
        t = np.asarray(theta, float)
        return t.reshape(t.shape[:-1] + (self.m, self.dim_in))

    def uniform_points(self, rng, shape):
        """Points uniform on Theta = {|theta - theta0| <= R}, an array ``shape + (d_Theta,)``: a normal
        direction, then a radius R U^(1/d_Theta) (in that order from ``rng``)."""
        shape = tuple(np.atleast_1d(shape))
        direction = rng.normal(size=shape + (self.d_Theta,))
        direction /= np.linalg.norm(direction, axis=-1, keepdims=True)
        return self.theta0 + self.radius * direction * rng.uniform(size=shape + (1,)) ** (1.0 / self.d_Theta)

    def embed(self, theta, Z):
        """phi_theta(Z): theta (..., d_Theta), Z (N, d_in) -> (..., N, 2m)."""
        T = self._theta(theta)
        u = np.einsum("...md,nd->...nm", T, np.asarray(Z, float))
        out = np.stack([np.cos(u), np.sin(u)], axis=-1) / math.sqrt(self.m)
        return out.reshape(out.shape[:-2] + (2 * self.m,))

    def similarity_of_difference(self, theta, D):
        """<phi_theta(x), phi_theta(y)> for D = x - y: theta (G, d_Theta), D (..., d_in) -> (G, ...)."""
        T = self._theta(np.atleast_2d(theta))
        # einsum's own loops, not BLAS (tensordot): a BLAS product's rounding depends on its thread count,
        # and a run on a dask worker (OMP/OpenBLAS threads 1) then differed in the last bits from the local one
        u = np.einsum("...d,gmd->...gm", np.asarray(D, float), T)              # (..., G, m)
        s = np.cos(u).mean(axis=-1)
        return np.moveaxis(s, -1, 0)

    def losses(self, theta, za, zp, zn, tau, chunk=None):
        """l(phi_theta, z_i, k, tau) (eq. (14)) for each theta row and tuple: -> (G, n)."""
        theta = np.atleast_2d(np.asarray(theta, float))
        Dp = za - zp                      # (n, d)
        Dn = za[:, None, :] - zn          # (n, k, d)
        kk = zn.shape[1]
        n_ = za.shape[0]
        if chunk is None:
            per = max(1, n_ * kk * self.m)
            chunk = max(1, int(2e7 // per))
        out = np.empty((theta.shape[0], n_))
        for s in range(0, theta.shape[0], chunk):
            th = theta[s:s + chunk]
            sp_ = self.similarity_of_difference(th, Dp)            # (g, n)
            sn_ = self.similarity_of_difference(th, Dn)            # (g, n, k)
            x = (sn_ - sp_[..., None]) / tau
            mx = np.maximum(x.max(axis=-1), 0.0)
            out[s:s + chunk] = mx + np.log(np.exp(-mx) + np.exp(x - mx[..., None]).sum(-1)) - math.log(kk)
        return out


    def losses_and_grads(self, theta, za, zp, zn, tau, chunk=None):
        """Losses (G, n) and their theta-gradients (G, n, d_Theta).

        With ``S(D) = <phi(x), phi(y)>`` for ``D = x - y``: ``dS/dtheta_i = -(1/m) sin<theta_i, D> D``;
        ``x_j = (S(a - n_j) - S(a - p))/tau``, ``dl/dx_j = q_j = e^{x_j}/(1 + sum e^x)``.
        """
        theta = np.atleast_2d(np.asarray(theta, float))
        Dp = za - zp
        Dn = za[:, None, :] - zn
        kk = zn.shape[1]
        n_, d = za.shape
        m = self.m
        if chunk is None:
            chunk = max(1, int(4e6 // max(1, n_ * kk * m * d)))
        G = theta.shape[0]
        out = np.empty((G, n_))
        grad = np.empty((G, n_, m * d))
        for s in range(0, G, chunk):
            T = self._theta(theta[s:s + chunk])                    # (g, m, d)
            up = np.einsum("gmd,nd->gnm", T, Dp)
            un = np.einsum("gmd,nkd->gnkm", T, Dn)
            sp_ = np.cos(up).mean(-1)
            sn_ = np.cos(un).mean(-1)
            x = (sn_ - sp_[..., None]) / tau
            mx = np.maximum(x.max(axis=-1), 0.0)
            ex = np.exp(x - mx[..., None])
            den = np.exp(-mx) + ex.sum(-1)
            out[s:s + chunk] = mx + np.log(den) - math.log(kk)
            q = ex / den[..., None]                                 # (g, n, k)
            w = q.sum(-1)
            # gradient: (1/tau)[sum_j q_j dS_nj - w dS_p], dS = -(1/m) sin(u) D (blockwise)
            # einsum's own loops (optimize would route the contraction over k to BLAS, thread-dependent rounding:
            # the fit's choice between the mirror minima theta and -theta then followed the worker's thread count)
            gn = -np.einsum("gnkm,nkd->gnmd", q[..., None] * np.sin(un), Dn) / m
            gp = -(w[..., None, None] * np.sin(up)[..., None] * Dp[None, :, None, :]) / m
            grad[s:s + chunk] = ((gn - gp) / tau).reshape(gn.shape[0], n_, m * d)
        return out, grad


def sample_data(data, size, dim_in, rng):
    if data == "gaussian":
        return rng.standard_normal(tuple(np.atleast_1d(size)) + (dim_in,))
    if data == "student_t":
        return rng.standard_t(STUDENT_NU, size=tuple(np.atleast_1d(size)) + (dim_in,))
    raise InputError("data", f"must be one of {DATA}, got {data!r}")


def sample_tuples(data, dim_in, n, k, rng, sigma=0.5, kernel="additive"):
    """n tuples: anchors ~ pi, positives ~ M(anchor, .), k negatives ~ pi. -> (za, zp, zn)."""
    n = check_k(n, "n")
    k = check_k(k)
    sigma = check_positive("sigma", sigma)
    za = sample_data(data, n, dim_in, rng)
    zp = za + sigma * rng.standard_normal((n, dim_in))
    if kernel == "ou":
        zp = zp / math.sqrt(1 + sigma**2)
    elif kernel != "additive":
        raise InputError("kernel", f"must be one of {KERNELS}, got {kernel!r}")
    zn = sample_data(data, (n, k), dim_in, rng)
    return za, zp, zn


# ---------------------------------------------------------------- density ratios of the data models
# Density-ratio second moment ``D2 = E|dM(Z,.)/dpi(Z')|^2`` (Z, Z' iid pi), derived here:
# 
# * Gaussian pi = N(0, I_d), "ou" kernel M(z,.) = N(rho z, (1-rho^2) I) (rho = 1/sqrt(1+sigma^2)):
#   dM/dpi is the Mehler kernel prod_c sum_n rho^n He_n(z_c) He_n(z'_c)/n!, so by orthogonality
#   ``D2 = (1 - rho^2)^{-d} = ((1 + sigma^2)/sigma^2)^d``.
# * Gaussian pi, "additive" kernel M(z,.) = N(z, sigma^2 I): for fixed z, int N(y; z, s^2)^2/phi(y) dy
#   = exp(z^2/(2 - s^2))/(s sqrt(2 - s^2)) per coordinate (s^2 < 2, else +inf), and
#   E_Z exp(Z^2/(2 - s^2)) = +inf since 1/(2 - s^2) >= 1/2.  So ``D2 = +inf`` for every sigma > 0:
#   Theorem 1 (and Prop. 2) is vacuous for this kernel.
# * Student-t (nu = 3, iid coordinates) pi, either kernel: per coordinate
#   int N(y; mu, s^2)^2 / t_3(y) dy = c E_{Y~N(mu, s^2/2)} (1 + Y^2/3)^2 grows like mu^4 with mu = rho Z
#   or Z, and E Z^4 = +inf under t_3, so ``D2 = +inf``.

def density_ratio_second_moment(data, kernel, sigma, dim_in):
    """E|dM(Z,.)/dpi(Z')|^2 (closed form; +inf where it diverges -- see module docstring)."""
    sigma = check_positive("sigma", sigma)
    dim_in = check_k(dim_in, "dim_in")
    if data == "gaussian" and kernel == "ou":
        return ((1 + sigma**2) / sigma**2) ** dim_in
    if data in ("gaussian", "student_t") and kernel in ("ou", "additive"):
        return math.inf
    raise InputError("data", f"unknown data/kernel {data!r}/{kernel!r}")


def log_pi(data, y):
    if data == "gaussian":
        return -0.5 * (y**2).sum(-1) - 0.5 * y.shape[-1] * math.log(2 * math.pi)
    nu = STUDENT_NU
    c = special.gammaln((nu + 1) / 2) - special.gammaln(nu / 2) - 0.5 * math.log(nu * math.pi)
    return (c - (nu + 1) / 2 * np.log1p(y**2 / nu)).sum(-1)


def log_density_ratio(data, kernel, sigma, z, xi):
    """log dM(z,.)/dpi(xi); z (..., d), xi (..., d) broadcastable."""
    if kernel == "ou":
        rho = 1 / math.sqrt(1 + sigma**2)
        mean, var = rho * z, 1 - rho**2
    elif kernel == "additive":
        mean, var = z, sigma**2
    else:
        raise InputError("kernel", f"unknown kernel {kernel!r}")
    d = xi.shape[-1]
    logm = -0.5 * ((xi - mean) ** 2).sum(-1) / var - 0.5 * d * math.log(2 * math.pi * var)
    return logm - log_pi(data, xi)
