"""The per-tuple InfoNCE and DCL losses of eq. (14), in the log domain.

For one tuple with anchor ``a``, positive ``p`` and negatives ``n_1..n_k`` (unit
vectors, the images under phi), eq. (14) of the paper is

    l = log( 1/k + (1/k) sum_j exp(<a, n_j - p>/tau) ),

which is the summand of the empirical risk (1) with the -log k already taken in.
The DCL loss of Sec. 3.4 (the risk R~) drops the "1 +":

    l~ = log( (1/k) sum_j exp(<a, n_j - p>/tau) ).

Both are computed as ``softplus(L - p/tau) - log k`` and ``L - p/tau - log k`` with
``L = log sum_j exp(s_j/tau)``, ``s_j = <a, n_j>``, ``p = <a, positive>``, where
``L`` is a streamed log-sum-exp (running maximum, rescaled partial sums), so the
result is finite and accurate for any tau > 0 and any k; the negatives are
processed in chunks of at most ``chunk_size`` columns.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import InputError, check_k, check_tau

__all__ = ["infonce_loss", "loss_from_similarities", "LOSSES", "power_mean"]

LOSSES = ("infonce", "dcl")
UNIT_NORM_TOL = 1e-6
DEFAULT_CHUNK = 1 << 16


def check_loss(loss) -> str:
    """The loss name: ``"infonce"`` (the paper's R) or ``"dcl"`` (R~ of Sec. 3.4)."""
    if not isinstance(loss, str) or loss.lower() not in LOSSES:
        raise InputError("loss", f"must be one of {', '.join(repr(x) for x in LOSSES)}, got {loss!r}")
    return loss.lower()


def _check_chunk(chunk_size) -> int:
    if chunk_size is None:
        return DEFAULT_CHUNK
    return check_k(chunk_size, "chunk_size")


def _as_float_array(name: str, value, ndim: int) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(name, "must be a numeric array") from None
    if arr.ndim != ndim:
        raise InputError(name, f"must be a {ndim}-d array, got shape {arr.shape}")
    if arr.size and not np.all(np.isfinite(arr)):
        bad = np.argwhere(~np.isfinite(arr))[0]
        raise InputError(name, f"entries must be finite; entry {tuple(int(i) for i in bad)} is {arr[tuple(bad)]}")
    return arr


def _check_unit_rows(name: str, arr: np.ndarray) -> None:
    norms = np.sqrt(np.einsum("...d,...d->...", arr, arr))
    dev = np.abs(norms - 1.0)
    if dev.size and dev.max() > UNIT_NORM_TOL:
        idx = tuple(int(i) for i in np.unravel_index(int(np.argmax(dev)), dev.shape))
        raise InputError(name, f"rows must have unit norm to {UNIT_NORM_TOL:g} (phi maps to the sphere "
                         f"S^(d-1)); row {idx} has norm {norms[idx]:.17g}")


class _LogSumExp:
    """Row-wise streamed log sum_j exp(x_j) over column chunks (running max, rescaled sum)."""

    __slots__ = ("m", "total")

    def __init__(self):
        self.m = None
        self.total = None

    def update(self, x: np.ndarray) -> None:
        """Fold in a chunk ``x`` of shape (n, c); ``x`` is used as scratch space."""
        cm = x.max(axis=1)
        if self.m is None:
            m = cm
        else:
            m = np.maximum(self.m, cm)
            self.total *= np.exp(self.m - m)
        np.subtract(x, m[:, None], out=x)
        np.exp(x, out=x)
        part = x.sum(axis=1)
        if self.total is None:
            self.total = part
        else:
            self.total += part
        self.m = m

    def value(self) -> np.ndarray:
        return self.m + np.log(self.total)


def _finish(log_sum: np.ndarray, p_over_tau: np.ndarray, k: int, loss: str) -> np.ndarray:
    """Per-tuple loss from L = log sum_j e^{s_j/tau} and p/tau."""
    x = log_sum - p_over_tau
    if loss == "infonce":
        x = np.logaddexp(0.0, x)
    return x - math.log(k)


def _loss_from_similarities_unchecked(p, s, tau: float, loss: str, chunk: int = DEFAULT_CHUNK):
    n, k = s.shape
    acc = _LogSumExp()
    inv_tau = 1.0 / tau
    for start in range(0, k, chunk):
        acc.update(np.multiply(s[:, start:start + chunk], inv_tau))
    return _finish(acc.value(), p * inv_tau, k, loss)


def loss_from_similarities(p, s, tau, loss: str = "infonce", chunk_size=None) -> np.ndarray:
    """Per-tuple loss (14) from similarities: ``p[i] = <a_i, positive_i>``, ``s[i, j] = <a_i, n_ij>``.

    ``p`` has shape (n,), ``s`` shape (n, k); similarities of unit vectors, so they must
    lie in [-1, 1] (to 1e-6).  Returns the n values of
    log(1/k + (1/k) sum_j e^{(s_ij - p_i)/tau}) (``loss="infonce"``) or
    log((1/k) sum_j e^{(s_ij - p_i)/tau}) (``loss="dcl"``).

    >>> import numpy as np
    >>> loss_from_similarities(np.array([1.0]), np.array([[0.0]]), tau=1.0)  # log(1 + e^-1)
    array([0.31326169])
    >>> loss_from_similarities(np.array([1.0]), np.array([[0.0]]), tau=1.0, loss="dcl")
    array([-1.])
    >>> float(loss_from_similarities(np.array([0.5]), np.array([[1.0, -1.0]]), tau=0.01)[0])  # = 50 - log 2, no overflow
    49.30685281944005
    """
    tau = check_tau(tau)
    loss = check_loss(loss)
    chunk = _check_chunk(chunk_size)
    p = _as_float_array("p", p, 1)
    s = _as_float_array("s", s, 2)
    if p.shape[0] < 1:
        raise InputError("p", "must hold at least one tuple")
    if s.shape[0] != p.shape[0]:
        raise InputError("s", f"must have one row per entry of p ({p.shape[0]}), got shape {s.shape}")
    if s.shape[1] < 1:
        raise InputError("s", "must hold at least one negative similarity per tuple (k >= 1)")
    for name, arr in (("p", p), ("s", s)):
        if np.abs(arr).max() > 1 + UNIT_NORM_TOL:
            raise InputError(name, f"similarities of unit vectors must lie in [-1, 1]; got {arr.flat[np.argmax(np.abs(arr))]:.17g}")
    return _loss_from_similarities_unchecked(p, s, tau, loss, chunk)


def infonce_loss(anchor, positive, negatives, tau, loss: str = "infonce", chunk_size=None) -> np.ndarray:
    """The n per-tuple values of eq. (14) (InfoNCE) or of the DCL loss of Sec. 3.4.

    ``anchor`` and ``positive`` have shape (n, d), ``negatives`` shape (n, k, d); every
    row is an embedding phi(z) on the unit sphere S^(d-1) (unit norm to 1e-6, else
    ``InputError``).  The negatives are streamed over k in chunks of ``chunk_size``.

    >>> import numpy as np
    >>> a = np.array([[1.0, 0.0]]); pos = np.array([[1.0, 0.0]]); neg = np.array([[[0.0, 1.0]]])
    >>> infonce_loss(a, pos, neg, tau=1.0)          # log(1/1 + e^{(0 - 1)/1})
    array([0.31326169])
    >>> infonce_loss(a, pos, neg, tau=1.0, loss="dcl")
    array([-1.])
    >>> neg2 = np.array([[[-1.0, 0.0], [1.0, 0.0]]])  # k = 2, tau = 0.01: log((1 + e^-200 + e^0)/2)
    >>> infonce_loss(a, pos, neg2, tau=0.01)         # = log(1 + e^-200/2) = 6.9e-88, 0 in float64
    array([0.])
    >>> round(float(infonce_loss(np.array([[0.0, 1.0]]), pos, neg2, tau=0.01)[0]), 14)  # all s = 0: log(3/2)
    0.40546510810816
    """
    tau = check_tau(tau)
    loss = check_loss(loss)
    chunk = _check_chunk(chunk_size)
    anchor = _as_float_array("anchor", anchor, 2)
    positive = _as_float_array("positive", positive, 2)
    negatives = _as_float_array("negatives", negatives, 3)
    n, d = anchor.shape
    if n < 1 or d < 1:
        raise InputError("anchor", f"must have shape (n, d) with n, d >= 1, got {anchor.shape}")
    if positive.shape != (n, d):
        raise InputError("positive", f"must have the anchor's shape {(n, d)}, got {positive.shape}")
    if negatives.shape[0] != n or negatives.shape[2] != d:
        raise InputError("negatives", f"must have shape (n, k, d) = ({n}, k, {d}), got {negatives.shape}")
    k = negatives.shape[1]
    if k < 1:
        raise InputError("negatives", "must hold at least one negative per tuple (k >= 1)")
    _check_unit_rows("anchor", anchor)
    _check_unit_rows("positive", positive)
    _check_unit_rows("negatives", negatives)
    p = np.einsum("nd,nd->n", anchor, positive)
    acc = _LogSumExp()
    inv_tau = 1.0 / tau
    for start in range(0, k, chunk):
        s = np.einsum("nkd,nd->nk", negatives[:, start:start + chunk], anchor)
        s *= inv_tau
        acc.update(s)
    return _finish(acc.value(), p * inv_tau, k, loss)


def power_mean(x, beta, axis=-1):
    """(mean_j x_j^beta)^(1/beta) of nonnegative x along ``axis`` (the PM of Lemmas 7-8), scaled by
    the max against overflow; beta = inf gives the max."""
    x = np.asarray(x, float)
    if np.isinf(beta):
        return x.max(axis=axis)
    mx = x.max(axis=axis, keepdims=True)
    safe = np.where(mx > 0, mx, 1.0)
    pm = np.mean((x / safe) ** beta, axis=axis) ** (1.0 / beta)
    return pm * np.squeeze(safe, axis=axis) * (np.squeeze(mx, axis=axis) > 0)
