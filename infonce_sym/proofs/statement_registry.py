"""The registry: every result once, by id, and its proved statement as data.

``registry()`` lists the ids (in the order of the paper), ``derivation(id)`` returns the chain, and
``statement(id)`` the bound it ends in, with one evaluator per number system (as mpmath has
``mp``, ``fp`` and ``iv``): ``statement("P1.upper").evaluate("numpy", k=10, tau=0.5)``.

Every number a check, plot or notebook shows comes from here: the expression *is* the
derivation's statement (the same SymPy object), never a typed twin.

>>> s = statement("P1.upper")                        # (e^{2/tau} - 1)^2 / (8k)
>>> [x.name for x in s.symbols]
['k', 'tau']
>>> round(float(s.evaluate("numpy", k=10, tau=1)), 12)
0.510250472941
>>> import math; round((math.e ** 2 - 1) ** 2 / 80, 12)   # the same by hand
0.510250472941
>>> v = s.evaluate("iv", k=10, tau=1)
>>> v.a <= s.evaluate("mpmath", k=10, tau=1) <= v.b
True
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

import mpmath
import numpy as np
import sympy as sp
from sympy.core.function import AppliedUndef

from ..errors import InputError
from . import register as _register
from .chain import interval_value, numeric_form

__all__ = ["registry", "derivation", "statement", "Statement", "ALIASES", "interval_value", "overflow_recomputed"]

#: statements proved by a case split: the id names the common statement of every case
ALIASES = {
    "P5": ("P5.a-ge-1", "P5.a-le-1"),
    "P5.sharp": ("P5.sharp.a-ge-1", "P5.sharp.a-le-1"),
    "P5.lip": ("P5.lip.a-ge-1", "P5.lip.a-le-1"),
    "L1": ("L1.tau-lt-1", "L1.tau-ge-1"),
    "L1.sharp": ("L1.sharp.tau-lt-1", "L1.sharp.tau-ge-1"),
}

#: where a statement needs more than its symbols' assumptions to make sense (sample points only)
DOMAINS = {
    "Q-bounds.lower": {"piA": (0.0, 1.0)}, "Q-bounds.upper": {"piA": (0.0, 1.0)},
    "A2.ratio": {"a": (0.0, 0.9), "tau": (0.2, 1.4)}, "A2.liminf": {"a": (0.0, 0.9), "tau": (0.2, 1.4)},
    "A2.13": {"tau": (0.2, 1.4)},
    "P5.branch.ge1": {"a": (1.0, 20.0)}, "P5.branch.le1": {"a": (0.01, 1.0)},
}
_DEFAULT_DOMAIN = {"delta": (0.01, 0.9), "beta": (1.0, 8.0), "tau": (0.1, 4.0), "D2": (1.0, 20.0)}


def registry() -> list:
    """Every registered id: the derivations, then the case-split statements of ``ALIASES``."""
    return _register.ids() + list(ALIASES)


def derivation(id: str):
    """The registered derivation ``id`` (built on first use)."""
    return _register.derivation(id)


def _abbreviations():
    """Opaque moments in a statement, named by the symbol the paper uses (L3: E_pi r^2 = D2)."""
    from .chain import Ex
    from .section3 import D2, r
    return {Ex(r(0) ** 2): D2}


@dataclass(frozen=True)
class Statement:
    """``quantity relation expr`` as proved by the derivations ``proved_by`` (all of them, for a
    statement proved by cases)."""
    id: str
    paper_ref: str
    title: str
    relation: str
    quantity: object
    expr: object
    assumptions: tuple
    proved_by: tuple
    domain: dict = field(default_factory=dict)

    @cached_property
    def symbols(self) -> tuple:
        return tuple(sorted(self.expr.free_symbols, key=lambda s: s.name))

    @cached_property
    def opaque(self) -> list:
        """Atoms that are not numbers once the symbols are: sums over an index, random families,
        expectations, integrals (a statement with any cannot be evaluated pointwise)."""
        from .chain import Expectation
        atoms = self.expr.atoms(sp.Sum, sp.Integral, AppliedUndef, Expectation)
        return sorted(map(str, atoms))

    @cached_property
    def verdict(self) -> str:
        """The weakest verdict of the derivations that prove it (a run of each, on first use; ``evaluate`` never
        waits for it): "proved", "certified", "conditional" or "failed"."""
        from .chain import cited_result
        order = ("failed", "conditional", "certified", "proved")
        return min((cited_result(derivation(i)).verdict for i in self.proved_by), key=order.index)

    @cached_property
    def definitions(self) -> tuple:
        """((name, (expression, ...)), ...): the names of the statement that its chains define (the rendered
        "where" line), which the statement means by them; the cases of a split must agree on them (a run of each
        derivation, on first use)."""
        from .chain import same_meanings, statement_definitions
        merged, source = {}, {}
        for id_ in self.proved_by:
            # a case's own assumptions may name more (the ball's Da_0 in one case of P5): the union, agreeing on
            # every name two cases share
            for sym, vals in statement_definitions(derivation(id_)):
                if sym in merged and not same_meanings(merged[sym], vals):
                    raise ValueError(f"{self.id}: the cases {source[sym]} and {id_} define {sym} differently")
                merged.setdefault(sym, tuple(vals))
                source.setdefault(sym, id_)
        return tuple(sorted(merged.items(), key=lambda kv: str(kv[0])))

    @property
    def evaluable(self) -> bool:
        return not self.opaque

    @cached_property
    def _names(self):
        return [s.name for s in self.symbols]

    def _range(self, s):
        if s.name in self.domain:
            return self.domain[s.name]
        if s.name in _DEFAULT_DOMAIN:
            return _DEFAULT_DOMAIN[s.name]
        if s.is_nonnegative or s.is_positive:
            return (0.05, 3.0)
        return (-1.0, 1.0)

    def sample_point(self, seed: int | None = None) -> dict:
        """Valid values for every symbol (inside its assumptions and the statement's domain):
        the midpoint of each range, or random values from ``seed``."""
        rng = random.Random(seed) if seed is not None else None
        for attempt in range(200):
            # the statement's own assumptions too (tau < 1 in a case of L1, ell <= 1): drawn again until they hold
            point = self._draw(rng)
            try:
                self._check_assumptions(list(point.values()))
                return point
            except InputError:
                rng = rng or random.Random(attempt)
        raise ValueError(f"{self.id}: no sample point meets its assumptions")

    def _draw(self, rng):
        point = {}
        for s in self.symbols:
            lo, hi = self._range(s)
            if s.is_integer:
                lo_i, hi_i = max(1, int(lo) if s.is_positive else int(lo)), 50
                point[s.name] = rng.randint(lo_i, hi_i) if rng else 8
            else:
                x = rng.uniform(lo, hi) if rng else (lo + hi) / 2
                point[s.name] = max(x, lo + 1e-3 * (hi - lo)) if s.is_positive else x
        return point

    def evaluate(self, context: str, **values):
        """The statement's value at ``values`` (symbol name -> number) in ``context``:
        "numpy" (vectorised over arrays, in float64), "mpmath" (current precision; decimal strings are read
        exactly) or "iv" (mpmath interval arithmetic at the current precision: an interval containing the exact value;
        a value may be given as a pair (lo, hi)).

        A value outside the statement's domain is refused with an ``InputError`` naming the symbol: outside its
        declared half-line (its end counts as a limit, except for an integer), not an integer where declared so,
        not a finite real number, or breaking one of the statement's own assumptions on its symbols (A2.13 at
        tau = 3, where e^{1/tau} > 2 fails, gave a negative bound on an absolute value; a probe, Dec 2026).  A
        float64 result that overflows on the way (e^{2/tau} at tau = 0.0028) is recomputed in mpmath: inf only
        where the value itself is beyond the largest double."""
        if not self.evaluable:
            raise TypeError(f"{self.id}: the statement has {', '.join(self.opaque)}: no pointwise value")
        if context not in ("numpy", "mpmath", "iv"):
            raise InputError("context", f"must be numpy, mpmath or iv, got {context!r}")
        names = self._names
        unknown = [n for n in values if n not in names]
        if unknown:
            raise InputError(unknown[0], f"{self.id} has no symbol {unknown[0]} (its symbols: {', '.join(names)})")
        missing = [n for n in names if n not in values]
        if missing:
            raise InputError(missing[0], f"{self.id} needs a value for {', '.join(missing)}")
        args = [_checked_value(self.id, sym, values[sym.name], context) for sym in self.symbols]
        try:
            self._check_assumptions(args)
            if context == "numpy":
                with np.errstate(over="ignore", invalid="ignore", divide="ignore"):   # non-finite: redone below
                    out = _lambdified(self.id, "numpy")(*args)
                return _through_overflow(self, args, out)
            if context == "mpmath":
                out = _lambdified(self.id, "mpmath")(*[_mpf(v) for v in args])
                if mpmath.isnan(out):
                    raise ValueError("not a number")
                return out
            saved, mpmath.iv.prec = mpmath.iv.prec, mpmath.mp.prec     # iv at the current precision
            try:
                return interval_value(self.expr, {s: _iv(v) for s, v in zip(self.symbols, args)})
            finally:
                mpmath.iv.prec = saved
        except InputError:
            raise
        except (ZeroDivisionError, ValueError, ArithmeticError) as exc:
            # at the end of a half-line (tau = 0): the limit is not taken, and the expression has no value there
            raise InputError(_at_an_end(self.symbols, args), f"{self.id} has no value at "
                             f"{_shown_point(self.symbols, args)} ({type(exc).__name__}: {str(exc) or 'division by 0'})") \
                from None

    @cached_property
    def _assumption_checks(self):
        """[(text, symbols, gap, strict, gap in numpy, gap in mpmath)]: the statement's assumptions that speak of its
        symbols only (e^{1/tau} > 2, delta < 1, beta >= 1), each as gap > 0 (strict) or gap >= 0."""
        from .chain import Expectation
        out, own = [], set(self.symbols)
        for a in self.assumptions:
            rel = getattr(a, "rel", None)
            if rel is None or not rel.free_symbols or not rel.free_symbols <= own:
                continue
            if rel.atoms(AppliedUndef, sp.Sum, sp.Integral) or any(isinstance(x, Expectation)
                                                                   for x in sp.preorder_traversal(rel)):
                continue
            if not isinstance(rel, (sp.StrictGreaterThan, sp.GreaterThan, sp.StrictLessThan, sp.LessThan)):
                continue
            syms = sorted(rel.free_symbols, key=lambda s: s.name)
            gap = rel.gts - rel.lts
            strict = isinstance(rel, (sp.StrictGreaterThan, sp.StrictLessThan))
            # lambdified once (each call lambdified it again: T1 went from 0.04 to 1.8 ms; a probe, Dec 2026)
            out.append((a.text, syms, gap, strict, sp.lambdify(syms, gap, modules="numpy"),
                        sp.lambdify(syms, gap, modules="mpmath")))
        return out

    def _check_assumptions(self, args):
        """Each of the statement's own assumptions at ``args``: decided in mpmath, at the working precision plus 20
        digits (30 digits at least), so that a decimal string read exactly is judged exactly (delta = 0.999...9 with
        40 nines was refused at a fixed 30; a probe, Dec 2026); an array in float64, its refused entries again in
        mpmath (float64 cancelled W = b - a to 0 at tau = 1e17); an interval on all of it.  At the end of a half-line
        (delta = 0) an assumption with no value there is read as its limit, and the statement decides."""
        point = dict(zip(self.symbols, args))
        for text, syms, gap, strict, gap_np, gap_mp in self._assumption_checks:
            vals = [point[s] for s in syms]
            if any(isinstance(v, tuple) for v in vals):        # an interval: the assumption on all of it
                saved, mpmath.iv.prec = mpmath.iv.prec, mpmath.mp.prec + 70     # not at iv's own 53 bits
                try:
                    g = interval_value(gap, {s: _iv(v) for s, v in zip(syms, vals)})
                finally:
                    mpmath.iv.prec = saved
                ok = bool(g.a > 0) if strict else bool(g.a >= 0)
            elif any(getattr(v, "ndim", 0) for v in vals):          # arrays: in float64, as they are evaluated
                with np.errstate(all="ignore"):
                    g = np.broadcast_to(np.asarray(gap_np(*vals), dtype=float),
                                        np.broadcast_shapes(*[np.shape(v) for v in vals]))
                bad = ~(g > 0) if strict else ~(g >= 0)
                ok = True
                for idx in zip(*np.nonzero(bad)):
                    here = [np.broadcast_to(v, g.shape)[idx] for v in vals]
                    if not _holds(gap_mp, here, strict):
                        ok, vals = False, here
                        break
            else:
                ok = _holds(gap_mp, vals, strict, gap_np)
            if not ok:
                raise InputError(_at_an_end(syms, vals), f"{self.id} assumes {text}; it fails at "
                                                         f"{_shown_point(syms, vals)}")


def _holds(gap_mp, vals, strict, gap_np=None) -> bool:
    """The gap of one assumption at a point: > 0 (strict) or >= 0; True where it has no value (its limit at the end of
    a half-line is left to the statement).  In float64 where that is clearly decided (|gap| > 1e-6: the check cost
    4x a call in mpmath), else in mpmath at rising precision until the gap's sign is clear of its rounding (W = b - a
    is 4e-40 at tau = 1e40, and a decimal string of 40 nines is below 1: both were refused at a fixed 35 digits; a
    probe, Dec 2026)."""
    if gap_np is not None and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
        try:
            with np.errstate(all="ignore"):
                g = float(gap_np(*[float(v) for v in vals]))
        except (ZeroDivisionError, OverflowError, ValueError, TypeError):
            g = math.nan
        if math.isfinite(g) and abs(g) > 1e-6:
            return g > 0
    dps = max(30, mpmath.mp.dps + 20)
    while True:
        with mpmath.workdps(dps):
            try:
                g = gap_mp(*[_mpf(v) for v in vals])
            except (ZeroDivisionError, ValueError, ArithmeticError):
                return True
            if isinstance(g, mpmath.mpc) or mpmath.isnan(g):
                return True
            if g != 0 and (mpmath.isinf(g) or abs(g) > mpmath.mpf(10) ** (10 - dps) or dps >= 2000):
                return bool(g > 0)
            if g == 0 and dps >= 2000:
                return not strict
        dps *= 2


def _at_an_end(symbols, args) -> str:
    """The symbol to name where a value has none: one at the end of its declared half-line (0 for a symbol declared
    >= 0, or +inf), else the first (P3 at tau = 0 named R_hat = 0, a real symbol for which 0 is no end; a probe)."""
    for s, v in zip(symbols, args):
        ends = [mpmath.inf] + ([mpmath.mpf(0)] if (s.is_nonnegative or s.is_positive) else [])
        try:
            vals = [mpmath.mpf(x) for x in (v if isinstance(v, tuple) else np.ravel(np.asarray(v, dtype=float))
                                            if getattr(v, "ndim", 0) else [v])]
        except (TypeError, ValueError):
            continue
        if any(x in ends for x in vals):
            return s.name
    return symbols[0].name


def _checked_value(id, sym, value, context):
    """``value`` as a number the evaluators read (float64 for numpy; decimal strings kept for mpmath and iv; an
    interval pair for iv only), refused with an ``InputError`` naming ``sym`` when it is not a finite real number
    in the symbol's declared domain (:func:`_check_declared`)."""
    if isinstance(value, tuple):
        if context != "iv" or len(value) != 2:
            raise InputError(sym.name, f"{id}: a pair (lo, hi) is read in the iv context only; got {value!r}")
        lo, hi = (_checked_value(id, sym, v, "mpmath") for v in value)
        if _mpf(lo) > _mpf(hi):
            raise InputError(sym.name, f"{id}: the interval {value!r} has lo > hi")
        return (lo, hi)
    if isinstance(value, (bool, np.bool_)) or value is None:
        raise InputError(sym.name, f"{id}: {sym.name} must be a real number, got {value!r}")
    value = _plain_number(value, context)
    if isinstance(value, (mpmath.mpc, complex, np.complexfloating)):
        raise InputError(sym.name, f"{id}: {sym.name} must be real, got {value!r}")
    if isinstance(value, str):
        try:
            probe = mpmath.mpf(value.strip())
        except (ValueError, TypeError):
            raise InputError(sym.name, f"{id}: {sym.name} must be a real number, got {value!r}") from None
        checked = value.strip() if context != "numpy" else float(probe)
    elif isinstance(value, int):
        if context == "numpy" and abs(value) >= 2 ** 1023:
            raise InputError(sym.name, f"{id}: {sym.name} = {mpmath.nstr(mpmath.mpf(value), 3)} is beyond the double "
                                       f"range: evaluate in mpmath")
        checked, probe = value, mpmath.mpf(value)
    elif isinstance(value, (mpmath.mpf, float, np.integer, np.floating)):
        # float32 in: float64 out (a float32 tau = 0.01 overflowed e^{2/tau}; a probe, Dec 2026)
        checked = np.float64(value) if context == "numpy" and not isinstance(value, mpmath.mpf) else value
        probe = mpmath.mpf(value) if isinstance(value, mpmath.mpf) else mpmath.mpf(float(value))
    else:
        try:
            arr = np.asarray(value)
        except (TypeError, ValueError):
            raise InputError(sym.name, f"{id}: {sym.name} must be a number or an array of numbers") from None
        if arr.dtype.kind not in "iuf" or arr.size == 0:
            raise InputError(sym.name, f"{id}: {sym.name} must be a nonempty array of real numbers, "
                                       f"got {arr.dtype} of size {arr.size}")
        if context != "numpy":
            raise InputError(sym.name, f"{id}: arrays are read in the numpy context only")
        checked = arr.astype(np.float64) + 0.0           # + 0.0: no -0.0
        if not np.all(np.isfinite(checked) | ((checked == np.inf) & _infinite_end(sym, mpmath.inf))):
            raise InputError(sym.name, f"{id}: {sym.name} must be finite; the array holds "
                                       f"{checked[~np.isfinite(checked)].flat[0]!r}")
        _check_declared(id, sym, checked)
        return checked
    if not mpmath.isfinite(probe) and not _infinite_end(sym, probe):
        raise InputError(sym.name, f"{id}: {sym.name} must be finite, got {value!r}")
    _check_declared(id, sym, checked)
    return checked


def _plain_number(value, context):
    """A SymPy number, Decimal or Fraction as the number it is (an int, or an mpf at the working precision; a float for
    numpy), a 0-d array as its scalar, an mpf as a float for numpy and a numpy integer as an int elsewhere: each was
    refused or raised before (a probe, Dec 2026).  Anything else unchanged."""
    import numbers
    from decimal import Decimal
    from fractions import Fraction
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, sp.Basic) and value.is_number:
        if value.is_Integer:
            return int(value)
        if value.is_Rational:
            value = Fraction(int(value.p), int(value.q))
        elif value.is_real:
            return float(value) if context == "numpy" else mpmath.mpf(value)
        else:
            return value
    if isinstance(value, Fraction):
        return float(value) if context == "numpy" else mpmath.mpf(value.numerator) / value.denominator
    if isinstance(value, Decimal):
        return float(value) if context == "numpy" else str(value)
    if isinstance(value, mpmath.mpf) and context == "numpy":
        return float(value)
    if isinstance(value, np.integer) and context != "numpy":
        return int(value)
    if isinstance(value, np.floating) and context != "numpy":
        # float32 escaped the domain check in mpmath (mpf cannot read it); a long double keeps its digits
        return mpmath.mpf(str(value)) if value.dtype == np.longdouble else float(value)
    if isinstance(value, float) and value == 0:
        return 0.0                      # -0.0 read as the end from the wrong side (1/(-0.0) = -inf; a probe, Dec 2026)
    if isinstance(value, numbers.Integral) and not isinstance(value, (int, np.integer)):
        return int(value)
    return value


def _infinite_end(sym, value):
    """+inf for a real symbol declared >= 0: the end of its half-line, as a limit (E|dM/dpi|^2 = +inf for Student-t
    data, where Theorem 1's bound is +inf); a value there that is not a number (inf - inf) is refused after."""
    return value == mpmath.inf and bool(sym.is_nonnegative) and not sym.is_integer


def _shown_point(symbols, args):
    def shown(v):
        if isinstance(v, tuple):
            return repr(v)
        return f"an array of {v.size} values" if getattr(v, "ndim", 0) else str(v)
    return ", ".join(f"{s.name} = {shown(v)}" for s, v in zip(symbols, args))


def _through_overflow(s, args, out):
    return overflow_recomputed(out, args, _lambdified(s.id, "mpmath"))


def overflow_recomputed(out, args, f):
    """The float64 value ``out`` of a formula at ``args``, its non-finite entries recomputed by ``f`` (the same formula
    in mpmath) at rising precision (:func:`_settled_value`) and rounded to doubles, inf only where the value exceeds
    the largest double: log1p(e^{2/tau}/k) overflowed at tau = 0.0028, whose value is 712 (a probe, Dec 2026)."""
    arr = np.asarray(out, dtype=float)
    bad = ~np.isfinite(arr)
    if not bad.any():
        return out
    full = np.broadcast_arrays(*[np.asarray(a, dtype=float) for a in args], arr)
    fixed = arr.copy()
    for idx in (zip(*np.nonzero(bad)) if arr.ndim else [()]):
        point = [mpmath.mpf(float(a[idx])) for a in full[:-1]]
        try:
            fixed[idx] = _settled_value(f, point)
        except (ZeroDivisionError, ValueError, ArithmeticError):
            if not (arr[idx] == math.inf or arr[idx] == -math.inf):
                raise
            # at the end of a half-line (tau = 0 in an array) the float64 inf is the limit (a probe, Dec 2026)
    if np.isnan(fixed).any():          # inf - inf at an infinite end: no value (a ValueError, refused by evaluate)
        raise ValueError("not a number")
    return fixed if arr.ndim else np.float64(fixed[()])


def _settled_value(f, point) -> float:
    """``f`` at ``point`` rounded to a double once two precisions agree on it (30 digits, then twice as many): terms of
    1e300 that cancel came out 0.0 at a fixed 30 digits where the value is -4e300 (a probe, Dec 2026)."""
    previous, dps = None, 30
    while dps <= 4000:
        with mpmath.workdps(dps):
            value = f(*point)
        if isinstance(value, mpmath.mpc) or mpmath.isnan(value):
            return math.nan
        current = float(value)
        # a 0 is what cancelled terms leave at any precision too short for them: it settles only at 1000 digits
        agree = previous is not None and (current == previous or abs(current - previous) <= 4e-16 * abs(current))
        if agree and (current != 0 or dps >= 1000):          # inf agrees with inf: beyond the largest double
            return current
        previous, dps = current, dps * 2
    return math.nan


def _check_declared(id, sym, value):
    """``value`` (a number, decimal string, array, or an interval pair) lies in the closure of ``sym``'s declared
    half-line (its end as a limit), and is an integer where declared so and a single number: a proved statement says
    nothing outside its domain (P1.upper at k = -0.5 returned a number; a probe, Dec 2026)."""
    ends = value if isinstance(value, tuple) else (value,)
    try:
        # scalars exactly (k = 10^400 is an integer mpmath reads), arrays in float64
        nums = [np.asarray(v, dtype=float) if isinstance(v, np.ndarray) else
                np.asarray(mpmath.mpf(v.strip() if isinstance(v, str) else v), dtype=object) for v in ends]
    except (TypeError, ValueError):
        return                               # not numeric here (a symbolic value): the caller's business
    for arr in nums:
        # the closure of the declared half-line: a positive a at 0 is the limit a -> 0+ (A.2's bound at delta = 0);
        # a positive integer starts at 1 (k = 0 gave inf; a probe, Dec 2026)
        low = 1 if (sym.is_integer and sym.is_positive) else 0
        bad = ((sym.is_positive or sym.is_nonnegative) and np.any(arr < low)) \
            or ((sym.is_negative or sym.is_nonpositive) and np.any(arr > 0))
        if not bad and sym.is_integer:
            bad = bool(np.any(arr != np.round(arr))) if arr.dtype != object else not mpmath.isint(arr.item())
        if bad:
            kinds = [k for k in ("positive", "nonnegative", "negative", "nonpositive", "integer")
                     if getattr(sym, f"is_{k}") and not (k == "nonnegative" and sym.is_positive)
                     and not (k == "nonpositive" and sym.is_negative)]
            raise InputError(sym.name, f"{id}: {sym.name} is declared {' '.join(kinds)}; got {value!r}")


def _mpf(v):
    if isinstance(v, mpmath.mpf):
        return v
    return mpmath.mpf(v.item() if hasattr(v, "item") and not isinstance(v, str) else v)   # numpy scalars too


def _iv(v):
    if isinstance(v, tuple):
        return mpmath.iv.mpf([str(v[0]) if isinstance(v[0], str) else v[0],
                              str(v[1]) if isinstance(v[1], str) else v[1]])
    return mpmath.iv.mpf(str(v) if isinstance(v, str) else v)


@lru_cache(maxsize=None)
def _lambdified(id, module):
    s = statement(id)
    return sp.lambdify(s.symbols, numeric_form(s.expr), modules=module)


def case_conditions(id: str) -> tuple:
    """The condition under which each case of ``ALIASES[id]`` is proved, in the same order."""
    from .chain import ge, le, lt
    from .statements import a, tau
    split_a, split_tau = (ge(a, 1), le(a, 1)), (lt(tau, 1), ge(tau, 1))
    return {"P5": split_a, "P5.sharp": split_a, "P5.lip": split_a, "L1": split_tau, "L1.sharp": split_tau}[id]


def _case_assumptions(id, cases):
    """The assumptions of a statement proved by cases: each case must assume its condition (``case_conditions``),
    the conditions must cover the split variable's whole domain (its declared sign), and the statement then
    assumes what every case assumes besides its condition (each once), and says how it splits."""
    from .chain import Assumption, premise_matches
    conds = case_conditions(id)
    for d, cond in zip(cases, conds):
        # the condition itself (both ways: a case that assumed tau > 1, or tau = 1, for tau >= 1 left tau = 1 to none)
        if not any(a.rel is not None and premise_matches(cond, a.rel) and premise_matches(a.rel, cond)
                   for a in d.structured_assumptions()):
            raise ValueError(f"{id}: the case {d.id} does not assume its condition {cond}")
        stray = [a.text for a in d.structured_assumptions() if a.rel is not None and a.rel.free_symbols == cond.free_symbols
                 and not (premise_matches(cond, a.rel) and premise_matches(a.rel, cond))
                 and not _implied_by(cond, a.rel)]
        if stray:
            raise ValueError(f"{id}: the case {d.id} also restricts {cond.free_symbols.pop()}: {stray[0]}")
    (x,) = set().union(*(c.free_symbols for c in conds))
    domain = sp.Interval.open(0, sp.oo) if x.is_positive else sp.Reals
    covered = sp.Union(*(c.as_set() for c in conds))
    if not domain.is_subset(covered):
        raise ValueError(f"{id}: the cases {ids_text(cases)} cover {covered}, not every {x} in {domain}")
    out, seen = [], set()
    for d in cases:
        for a in d.structured_assumptions():
            if a.rel is not None and any(premise_matches(c, a.rel) and premise_matches(a.rel, c) for c in conds):
                continue
            if a.text not in seen:
                seen.add(a.text)
                out.append(a)
    split = " or ".join(f"{c} ({d.id})" for c, d in zip(conds, cases))
    out.append(Assumption(f"by cases: {split}, which cover every {x} in {domain} (checked)"))
    return tuple(out)


def _implied_by(cond, rel):
    """Whether the one-symbol relation ``rel`` holds wherever ``cond`` does (and the symbol's declared domain)."""
    (x,) = cond.free_symbols
    domain = sp.Interval.open(0, sp.oo) if x.is_positive else sp.Reals
    try:
        return bool(cond.as_set().intersect(domain).is_subset(rel.as_set()))
    except (NotImplementedError, TypeError, ValueError):
        return False


def ids_text(cases):
    return ", ".join(d.id for d in cases)


@lru_cache(maxsize=None)
def statement(id: str) -> Statement:
    """The proved statement ``id`` as data (see the module docstring)."""
    if id in ALIASES:
        cases = [derivation(i) for i in ALIASES[id]]
        first = cases[0]
        for d in cases[1:]:
            # the same bound of the same quantity (a case proving tau <= 1 beside one proving 0 <= 1 read as
            # tau <= 1 for every tau; a probe, Dec 2026)
            if (sp.simplify(d.statement - first.statement) != 0 or d.relation != first.relation
                    or sp.simplify(sp.sympify(d.quantity) - sp.sympify(first.quantity)) != 0):
                raise ValueError(f"{id}: the cases {ALIASES[id]} prove different statements")
        ids = ALIASES[id]
        assumptions = _case_assumptions(id, cases)
    else:
        first = derivation(id)
        ids = (id,)
        assumptions = tuple(first.assumptions)
    expr = sp.sympify(first.statement).xreplace(_abbreviations())
    return Statement(id=id, paper_ref=first.paper_ref, title=first.title, relation=first.relation,
                     quantity=first.quantity, expr=expr, assumptions=assumptions, proved_by=ids,
                     domain=DOMAINS.get(id, DOMAINS.get(ids[0], {})))
