"""Input validation: every bad parameter becomes one ``InputError`` naming it."""
from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = [
    "InputError", "check_positive", "check_tau", "check_k", "check_digits",
    "check_dim", "check_kappa", "check_finite_real", "check_probability",
]

DIGITS_RANGE = (5, 1000)


class InputError(ValueError):
    """A user-facing error about one named parameter.

    >>> str(InputError("tau", "must be > 0, got -1"))
    'tau: must be > 0, got -1'
    """

    def __init__(self, parameter: str, message: str):
        self.parameter = parameter
        super().__init__(f"{parameter}: {message}")


def check_finite_real(name: str, value) -> float:
    """Return ``value`` as a float, rejecting NaN, inf and non-numbers."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        try:
            value = float(value)
        except (TypeError, ValueError):
            raise InputError(name, f"must be a real number, got {value!r}") from None
    value = float(value)
    if math.isnan(value) or math.isinf(value):
        raise InputError(name, f"must be finite, got {value}")
    return value


def check_positive(name: str, value) -> float:
    value = check_finite_real(name, value)
    if value <= 0:
        raise InputError(name, f"must be > 0, got {value:g}")
    return value


def check_tau(tau) -> float:
    """Temperature: a finite real > 0.

    >>> check_tau(0.5)
    0.5
    >>> check_tau(0)
    Traceback (most recent call last):
    ...
    infonce_sym.errors.InputError: tau: must be > 0, got 0
    """
    return check_positive("tau", tau)


def check_k(k, name: str = "k") -> int:
    """Number of negatives: an integer >= 1 (floats equal to an integer are accepted)."""
    value = check_finite_real(name, k)
    if value != int(value):
        raise InputError(name, f"must be an integer, got {k!r}")
    if value < 1:
        raise InputError(name, f"must be >= 1, got {int(value)}")
    return int(value)


def check_digits(digits) -> int:
    lo, hi = DIGITS_RANGE
    value = check_k(digits, "digits")
    if not lo <= value <= hi:
        raise InputError("digits", f"must be between {lo} and {hi}, got {value}")
    return value


def check_dim(dim) -> int:
    value = check_k(dim, "dim")
    if value < 2:
        raise InputError("dim", f"must be >= 2 (the sphere S^(d-1) with d >= 2), got {value}")
    return value


def check_kappa(kappa) -> float:
    value = check_finite_real("kappa", kappa)
    if value < 0:
        raise InputError("kappa", f"must be >= 0, got {value:g}")
    return value


def check_probability(name: str, value, open_interval: bool = True) -> float:
    value = check_finite_real(name, value)
    if open_interval and not 0 < value < 1:
        raise InputError(name, f"must lie in (0, 1), got {value:g}")
    if not open_interval and not 0 <= value <= 1:
        raise InputError(name, f"must lie in [0, 1], got {value:g}")
    return value
