"""Repairs of SymPy: wrong answers of its assumption system and wrong rewrites at construction, which the proof checker
would otherwise trust, and one cost.

The checker's NonNegative (with no witness) and its domain conditions read SymPy's assumptions as facts, and its checks
compare expressions as SymPy builds them, so each wrong answer below proved a false toy statement (probes 32 to 36,
Dec 2026):

* asin(x), atan(x), acos(x) irrational for every rational x (asin(0) = atan(0) = acos(1) = 0): atan(m) > 0 for an
  integer m >= 0;
* binomial(n, k) negative for every integer n and odd k (binomial(1, 1) = 1): binomial(n, 2m + 1) < 0; and no integer
  (hence nonzero) for a k that is no integer (binomial(sqrt 2, sqrt 2) = 1, binomial(sqrt 2 - 2, sqrt 2) = 0);
* b**e irrational for an irrational b and any integer e (sqrt(2)**2 = 2): (x^2 - 2)^2 > 0 for an irrational x;
* polygamma(n, z) positive (n odd) and finite for every real z, its poles 0, -1, -2 ... included:
  1/polygamma(1, y) > 0 (0 at y = 0);
* beta(a, b) real (so finite) for every real a, b, the poles of Gamma included: 1/(1 + beta(e^x - 5/2)^2) > 0 (0 at
  x = log(5/2); probe 42);
* exp(x) positive and nonzero for an x declared extended negative, which may be -oo (exp(-oo) = 0): exp(-w) > 0;
* LambertW(x, k) finite for every finite x, and of a branch k != 0 never real, while W_k(0) = -oo for k != 0 (and
  W_0(-1/e) = W_-1(-1/e) = -1 is real): 1/|W_1(m)| > 0 (0 at m = 0; a 34th probe);
* a product an integer or not by rules that hold for powers of 2 only: x/3 no integer for an even x (6/3 = 2), x/6 an
  integer (2/6 = 1/3): frac(x/3) > 0 (0 at x = 6; a 46th probe);
* 0^e algebraic, so finite, for every e (a pole for e < 0), and b^e no integer for a rational b that is no integer and
  any e > 0 ((3/2)^(log 2/log(3/2)) = 2): frac((3/2)^y) > 0 (a 47th probe);
* rf(x, k) and ff(x, k) no integer (hence nonzero) wherever x or k is not an integer: rf(1/7, x) = 1 at x = 3.926...,
  rf(-4, -5/2) = 0; an integral nonzero wherever its integrand is, whatever its sign: |int_{-1}^1 t dt| > 0 for t
  nonzero (a 48th probe); frac(b) imaginary and nonzero for every imaginary b (frac(i) = 0); a product with a factor of
  unknown complexness that is not real (acosh(-2)) not real, hence nonzero, whatever its real factors (0 at x = sqrt 3
  for (x^2 - 3) acosh(-2)); a sum or product of terms that are not real not real (i + (-i) = 0; a 49th probe);
* b^e's rules for complex exponents (a 52nd probe): (e^w)^r for an imaginary w not real for every r not imaginary
  (sqrt(e^(2 pi i)) = 1), I^z not real for every z with z/2 no integer (I^(2 + i) = -e^(-pi/2)), b^(i u) never imaginary
  (2^(i pi/(2 log 2)) = i), b^e for a b not real imaginary only by a rule for real e, (2i)^(i u) never positive, b^2
  neither even nor odd for an irrational b; and re, im, |.| of a transcendental z transcendental (re(i pi) = 0):
  |re(2^(i u))| > 0 for u > 0, |re(s)| > 0 for a transcendental s;
* rules that hold off poles or on the real line only (a 53rd probe): tan, cot, sec, csc of a rational multiple of pi
  algebraic (so finite) at their poles (tan(pi/2) = zoo); tanh(x + i n pi/2) real (so finite) at x = 0, n odd; cosh(x + i)
  not real at x = 0; fresnels, fresnelc, erfi nonzero off 0 though they have complex zeros; erfi, erf2, fresnels,
  fresnelc not real for every non-real argument (erf2(x + i, 3 - x + i) = 0 at x = 3/2); a product of zeros 0 over a
  range that may be empty, and an empty product nonpositive; Mod(p, q) >= 0 for q > 0 whatever p (Mod(i, 4) = i);
* acot(-x) and acoth(-x) rewritten to -acot(x), -acoth(x) at construction, false at x = 0 (acot(0) = pi/2): that
  rewrite is kept for an x known to be nonzero only;
* more construction-time rewrites of f(expression) that are wrong at some values (probes 35 and 36): mobius(2x) built as
  -1, sinc(pi n/2) by the odd-n formula for every n, jn(k, 0) as zoo, legendre(m, -1) as (-1)^m for m < 0,
  hermite_prob(j, 0) by a form right at j = 0, 1 only, polygamma(m, 1) by one that is zoo at m = 0 (probe 37),
  Mod(-x, 2x) as -x, binomial(x, x/2) as zoo (probe 38), gegenbauer(x + 1/3, 0, 0) as 0 (probe 39).  For the functions
  of ``CHECKED_EVAL`` (number-theoretic, orthogonal polynomials, Bessel and other special functions, Mod, binomial) a
  rewrite of an argument with symbols is kept only if it agrees with the function built at numbers at the admissible
  points of those symbols (integers, halves, thirds; every pair of values of two symbols); else the function stays
  unevaluated.  (The checker's exact-point guards compare every substituted value with the same form built at numbers
  as well, whatever the function: ``chain._instance_refuted``, ``chain.definitions_refuted``.)

Each repair says what SymPy said where that is true, and leaves the question open (None) elsewhere: a repair only ever
loses something SymPy decided, never adds a fact.  ``tests/proofs/test_checker_soundness.py`` compares the facts SymPy
decides of one-argument functions, and of the forms above, at declared symbols with their values at admissible numbers
(ends of ranges, irrationals, infinities), so a new SymPy with a new wrong answer there shows in the tests.

The cost: ``ExprWithLimits.free_symbols`` (of Sum, Product, Integral) masks each index by ``xreplace({i: i})``, and
xreplace reports a symbol mapped to itself as a change, so it rebuilds every Sum above the index, and each rebuild asks
the free symbols of the sums inside again: nested sums (P4's loss along the path) took about a sixth of the checker's
time there.  The repair drops the identity entries before the xreplace; the set returned is the same.

One hang: the numeric value of an integral (asked when SymPy decides the sign of a number, atan(|int_{-1}^1 t dt|))
doubled its working precision for as long as the value looked like 0, without end unless the caller set a maximum; the
repair sets one where the caller did not (``INTEGRAL_MAX_PRECISION``): the value then has no accuracy, and SymPy no sign.
"""
from __future__ import annotations

import functools
import importlib
import itertools
import math
from fractions import Fraction

import mpmath
import sympy as sp
from sympy.concrete.expr_with_limits import ExprWithLimits
from sympy.core.assumptions import _assume_defined as _ASSUME_DEFINED
from sympy.core.assumptions import make_property
from sympy.core.assumptions import StdFactKB
from sympy.core.function import AppliedUndef
from sympy.core.intfunc import trailing
from sympy.core.logic import fuzzy_and, fuzzy_not, fuzzy_or
from sympy.core.relational import is_gt
from sympy.functions.combinatorial.factorials import FallingFactorial, RisingFactorial
from sympy.functions.elementary.hyperbolic import HyperbolicFunction
from sympy.functions.elementary.trigonometric import TrigonometricFunction
from sympy.functions.combinatorial import numbers as sympy_numbers
from sympy.functions.special.error_functions import FresnelIntegral
from sympy.solvers.solveset import invert_real
from sympy.stats.rv import RandomSymbol


def _rational_unless_at(exception):
    """``_eval_is_rational`` of an inverse trigonometric function that is 0 (rational) at ``exception`` only (as
    SymPy's own sin says: ``fuzzy_not(arg.is_zero)``)."""

    def _eval_is_rational(self):
        s = self.func(*self.args)
        if s.func != self.func:
            return s.is_rational
        arg = s.args[0]
        if arg.is_rational and fuzzy_not((arg - exception).is_zero):
            return False
        return None

    return _eval_is_rational


def _binomial_is_nonnegative(self):
    # binomial(n, k), integers: >= 0 for n >= 0, for k < 0 (0) and for k even; < 0 only for n < 0 and an odd k >= 0
    n, k = self.args
    if n.is_integer and k.is_integer:
        if n.is_nonnegative or k.is_negative or k.is_even:
            return True
        if n.is_negative and k.is_nonnegative and k.is_odd:
            return False
    return None


def _binomial_is_integer(self):
    # an integer for integers n, k; at other arguments it may be one or not (0 and 1 above)
    n, k = self.args
    if n.is_integer and k.is_integer:
        return True
    return None


_SYMPY_POW_IS_RATIONAL = sp.Pow._eval_is_rational


def _pow_is_rational(self):
    # SymPy's answer, except for an irrational base to an integer power: rational at e = 0, irrational at e = +-1, and
    # either elsewhere (sqrt(2)^2 = 2)
    b, e = self.as_base_exp()
    if e.is_integer and not b.is_rational and b.is_irrational:
        if e.is_zero:
            return True
        if (e - 1).is_zero or (e + 1).is_zero:
            return False
        return None
    return _SYMPY_POW_IS_RATIONAL(self)


_SYMPY_POW_IS_ALGEBRAIC = sp.Pow._eval_is_algebraic
_SYMPY_POW_IS_INTEGER = sp.Pow._eval_is_integer


def _pow_is_algebraic(self):
    """0^e and 1^e were algebraic (so complex, so finite) for every e, though 0^e is a pole for e < 0 and 1^oo is no
    number: 1/(1 + |0^((y - 5)^2 - 1/100) + 1|) > 0 was proved for y > 0, 0 at y = 5 (a 47th probe, Dec 2026).  Algebraic
    there only where e > 0 (0^e = 0), or e is finite (1^e = 1); else undecided."""
    b, e = self.args
    if b.is_zero:
        return True if e.is_positive else None
    try:
        one = (b - 1).is_zero
    except ValueError:                # pragma: no cover - an operation SymPy does not allow: SymPy's own answer
        one = None
    if one:
        return True if e.is_finite else None
    return _SYMPY_POW_IS_ALGEBRAIC(self)


def _pow_is_integer(self):
    """b^e no integer for a rational b that is no integer and any e > 0, in SymPy 1.14: true for a rational e (b^e = N
    would make b^m = N^n an integer), false for others, (3/2)^(log 2/log(3/2)) = 2: frac((3/2)^y) > 0 was proved for
    y > 0 (a 47th probe, Dec 2026).  Undecided unless e is known rational; else SymPy's rules."""
    b, e = self.args
    if b.is_rational and b.is_integer is False and e.is_positive and not e.is_rational:
        return None
    return _SYMPY_POW_IS_INTEGER(self)


_SYMPY_POW_IS_EXTENDED_REAL = sp.Pow._eval_is_extended_real
_SYMPY_POW_IS_IMAGINARY = sp.Pow._eval_is_imaginary


def _unit_circle_power(b) -> bool:
    """b is e^w (an exp or a power of E) with w imaginary: a point of the unit circle SymPy cannot place."""
    return ((b.func == sp.exp and b.exp.is_imaginary) or (b.is_Pow and b.base is sp.E and b.exp.is_imaginary)) is True


def _pow_is_extended_real(self):
    """SymPy 1.14's, except two rules that hold for some exponents only (a 52nd probe, Dec 2026): (e^w)^r for an imaginary
    w not real for every r not imaginary, though (e^(2 pi i))^(1/2) = 1 (|sqrt(e^w) - 1| > 0 was proved); I^z not real
    for every z with z/2 no integer, though I^(2 + i) = -e^(-pi/2).  Each answers for the exponents where it holds
    (imaginary; extended real) and is open elsewhere."""
    b, e = self.args
    if b.is_extended_real is None and _unit_circle_power(b):
        return True if e.is_imaginary else None
    answer = _SYMPY_POW_IS_EXTENDED_REAL(self)
    if answer is False and b in (sp.I, -sp.I) and not e.is_extended_real:
        return None
    return answer


def _pow_is_imaginary(self):
    """SymPy 1.14's, except two rules that hold for some exponents only (a 52nd probe, Dec 2026): b^(i u) never imaginary
    wherever SymPy knows whether log b is imaginary, though 2^(i pi/(2 log 2)) = i (|re(2^(i u))| > 0 was proved for
    u > 0); for a b not real, b^e imaginary exactly where 2 e arg(b)/pi is odd, a rule for a real e only ((1 + i)^e = i
    at e = (i pi/2)/log(1 + i)).  The first holds where log b is imaginary (|b| = 1: b^(i u) > 0), the second for an
    extended real e; elsewhere open."""
    b, e = self.args
    answer = _SYMPY_POW_IS_IMAGINARY(self)
    if answer is False and b is not sp.E and b.is_commutative:
        if e.is_imaginary:
            return False if sp.log(b).is_imaginary else None
        if b.is_extended_real is False and not e.is_extended_real:
            return None
    return answer


_SYMPY_POW_IS_EXTENDED_POSITIVE = sp.Pow._eval_is_extended_positive


def _pow_is_extended_positive(self):
    """SymPy 1.14's, except b^e for an imaginary b and e: it said "not positive" wherever log b is not imaginary, though
    (2i)^(i u) = e^(-pi u/2) e^(i u log 2) is positive at u = 2 pi/log 2 (a 52nd probe, Dec 2026)."""
    b, e = self.args
    answer = _SYMPY_POW_IS_EXTENDED_POSITIVE(self)
    if answer is False and b.is_imaginary and e.is_imaginary:
        return None
    return answer


def _pow_parity(fact):
    """b^n even (odd) for a positive integer n where b is: SymPy read b's parity for any b, so (sqrt 2)^2 = 2 was neither
    even nor odd for an irrational b (a 52nd probe, Dec 2026).  SymPy's answer where b is an integer, else open."""
    sympy_handler = getattr(sp.Pow, f"_eval_is_{fact}")

    def handler(self):
        answer = sympy_handler(self)
        return answer if (answer is not False or self.base.is_integer) else None
    handler.__name__ = f"_pow_is_{fact}"
    return handler


def _part_is_algebraic(self):
    """re(z), im(z), |z| algebraic for an algebraic z (the algebraic numbers are a field closed under conjugation and
    square roots); SymPy also called them transcendental for every transcendental z, though re(i pi) = 0, im(pi + i) - 1
    = 0 and |e^i| = 1 (|re(s)| > 0 was proved for a transcendental s; a 52nd probe, Dec 2026).  Transcendental only for
    |z| of an extended real z (+-z), else open."""
    z = self.args[0]
    if z.is_algebraic:
        return True
    if isinstance(self, sp.Abs) and z.is_extended_real and z.is_transcendental:
        return False
    return None


def _trigonometric_with_poles_is_algebraic(sympy_handler):
    """tan, cot, sec, csc at a rational multiple of pi: algebraic where finite, zoo at their poles; SymPy said algebraic
    (so finite) for every rational coefficient, 1/(1 + tan(pi x/7)^2) > 0 proved for a rational x, 0 at x = 7/2 (a 53rd
    probe, Dec 2026).  SymPy's answer at a number (built at the pole as zoo), open for an argument with symbols."""
    def handler(self):
        answer = sympy_handler(self)
        return None if (answer and self.args[0].free_symbols) else answer
    handler.__name__ = "_trigonometric_with_poles_is_algebraic"
    return handler


def _real_where_finite(sympy_handler, sympy_finite):
    """tan, cot, sec, csc of an extended real argument: real where finite, zoo at their poles; SymPy said extended real
    for every real argument (its own comment: "FIXME: currently tan(pi/2) return zoo"), and cosh(tan(x)) > 0 was proved,
    nan at x = pi/2 (a 54th probe, Dec 2026).  SymPy's answer where SymPy's finite handler (called directly: asking
    the expression's own "finite" asks this fact again) says finite, else open."""
    def handler(self):
        answer = sympy_handler(self)
        return None if (answer and sympy_finite(self) is not True) else answer
    handler.__name__ = "_real_where_finite"
    return handler


def _where_argument_finite(sympy_handler):
    """cosh's positive and nonnegative, sech's positive: SymPy's answer where the argument is finite, open elsewhere.
    cosh read its argument's real and imaginary parts, tan(x) and 0, and said positive though tan(x) is zoo at pi/2:
    cosh(tan(x)) > 0 was proved, nan there (a 54th probe, Dec 2026); sech(+-oo) is 0."""
    def handler(self):
        answer = sympy_handler(self)
        return None if (answer and self.args[0].is_finite is not True) else answer
    handler.__name__ = "_where_argument_finite"
    return handler


def _where_arguments_extended_real(sympy_handler):
    """max's positive and nonnegative, min's negative, read off one argument (max(a, 1) > 0): SymPy's answer where every
    argument is extended real, open elsewhere: max(tan(x), 1) > 0 was proved, and max(zoo, 1) has no value at x = pi/2 (a
    54th probe, Dec 2026)."""
    def handler(self):
        answer = sympy_handler(self)
        return None if (answer and fuzzy_and(a.is_extended_real for a in self.args) is not True) else answer
    handler.__name__ = "_where_arguments_extended_real"
    return handler


def _frac_is_finite(self):
    """frac(x) is finite (in [0, 1) or its complex analogue) where x is finite; SymPy said finite for every x, and frac(zoo)
    is nan: 1/(1 + |frac(1/(n - 97))|) > 0 was proved, nan at n = 97 (a 54th probe, Dec 2026)."""
    return True if self.args[0].is_finite else None


def _first_argument_a_positive_integer(self):
    args = self.args
    return fuzzy_and([args[0].is_positive] + [a.is_integer for a in args])


def _argument_finite_and_nonzero(self):
    z = self.args[0]
    return fuzzy_and([z.is_finite, fuzzy_not(z.is_zero)])


def _argument_finite_or_extended_real(self):
    z = self.args[0]
    return fuzzy_or([z.is_finite, z.is_extended_real])


def _sigma_arguments(self):
    # divisor_sigma(n, k), udivisor_sigma(n, k): n a positive integer, k a nonnegative one (divisor_sigma(2, -1) raises;
    # sigma_{-1}(2) = 3/2, and |divisor_sigma(n, k) - 3/2| > 0 was proved for an integer k; a 55th probe, Dec 2026)
    return fuzzy_and([_first_argument_a_positive_integer(self)] + [k.is_nonnegative for k in self.args[1:]])


def _jacobi_arguments(self):
    # jacobi_symbol(m, n): n odd and positive (jacobi_symbol(1, 2) raises; a 55th probe, Dec 2026)
    n = self.args[1]
    return fuzzy_and([_first_argument_a_positive_integer(self), n.is_odd, n.is_positive])


def _legendre_arguments(self):
    # legendre_symbol(a, p): p an odd prime (legendre_symbol(1, 9) raises; a 55th probe, Dec 2026)
    p = self.args[1]
    return fuzzy_and([_first_argument_a_positive_integer(self), p.is_prime, p.is_odd])


def _heaviside_arguments(self):
    # Heaviside(x, H0) is H0 at x = 0: real only where H0 is (Heaviside(x^2 - 5, I)^2 >= 0 was proved, -1 at sqrt(5); a
    # 55th probe, Dec 2026)
    x, *at_zero = self.args
    return fuzzy_and([x.is_extended_real] + [h.is_real for h in at_zero])


def _all_arguments_integer(self):
    # LeviCivita(1/2, 0, 1) is -1/8 (its doit), not an integer (a 55th probe, Dec 2026)
    return fuzzy_and(a.is_integer for a in self.args)


def _argument_extended_real_and_nonzero(self):
    # (also acsch's "extended real": acsch(0) is zoo, which SymPy read as real, and cosh(acsch(x - sqrt(3))) > 0 was
    # proved; acsch(+-oo) = 0; a 54th probe, Dec 2026)
    x = self.args[0]
    return fuzzy_and([x.is_extended_real, fuzzy_not(x.is_zero)])


# classes whose facts SymPy declares for every argument (class attributes), though the function has no value at some:
# totient(1/2) and partition(1/2) raise, arg(0), re(zoo), im(zoo) and Heaviside(zoo) are nan, DiracDelta(0) is infinite.
# totient(x) > 0 was proved for a real x, 1/(1 + arg(x - sqrt(3))^2) > 0 too (a 54th probe, Dec 2026).  Each keeps its
# declared facts where the condition holds, and they are open elsewhere (``_conditional_class_facts``); the number-theoretic
# functions' own handlers too (partition(q) > 0 was proved for a positive q: its handler said positive for q >= 0)
DOMAIN_CONDITIONS = [
    *((getattr(sympy_numbers, name), _first_argument_a_positive_integer, True) for name in (
        "totient", "reduced_totient", "mobius", "primenu", "primeomega", "primepi", "partition", "kronecker_symbol")),
    *((getattr(sympy_numbers, name), _sigma_arguments, True) for name in ("divisor_sigma", "udivisor_sigma")),
    (sympy_numbers.jacobi_symbol, _jacobi_arguments, True), (sympy_numbers.legendre_symbol, _legendre_arguments, True),
    (sp.arg, _argument_finite_and_nonzero, False), (sp.re, _argument_finite_or_extended_real, False),
    (sp.im, _argument_finite_or_extended_real, False), (sp.Heaviside, _heaviside_arguments, True),
    (sp.DiracDelta, _argument_extended_real_and_nonzero, False), (sp.LeviCivita, _all_arguments_integer, False),
    # sign is declared complex (so finite) and its handlers read the argument's facts, though sign(nan) and sign(zoo)
    # are nan: 1/(1 + |sign(sin(x^2 - 5)/(x^2 - 5))|) > 0 was proved, nan at sqrt(5) (a 55th probe, Dec 2026)
    (sp.sign, _argument_finite_or_extended_real, True)]


def _conditional_class_facts(cls, condition, every_fact=False):
    """``cls``'s declared facts (class attributes, e.g. totient's integer and positive) made handlers that give each where
    ``condition(expr)`` is True (a handler SymPy has for the fact deciding first there) and leave it open elsewhere; with
    ``every_fact``, SymPy's own handlers too are open where the condition does not hold.
    Idempotent: the declared facts are kept in ``_infonce_declared``."""
    declared = getattr(cls, "_infonce_declared", None)
    if declared is None:
        declared = {k: v for k, v in cls._explicit_class_assumptions.items() if k != "commutative"}
        cls._infonce_declared = declared
        kept = {k: v for k, v in cls._explicit_class_assumptions.items() if k == "commutative"}
        derived = set(cls.default_assumptions)
        for k in derived:
            if k != "commutative" and isinstance(cls.__dict__.get(f"is_{k}"), bool):
                delattr(cls, f"is_{k}")
        cls._explicit_class_assumptions = kept
        cls.default_assumptions = StdFactKB(kept)
        for k, v in cls.default_assumptions.items():
            setattr(cls, f"is_{k}", v)
        for k in _ASSUME_DEFINED:
            if not isinstance(getattr(cls, f"is_{k}", None), (bool, property)):
                setattr(cls, f"is_{k}", make_property(k))

    def conditional(fact, value):
        own = cls._prop_handler.get(fact)
        if getattr(own, "_infonce_conditional", False):
            own = own._infonce_sympy

        def handler(self):
            if condition(self) is not True:
                return None              # (partition's own handler: positive for any nonnegative argument)
            answer = own(self) if own is not None else None
            return value if answer is None else answer
        handler.__name__ = f"_{cls.__name__}_{fact}_where_defined"
        handler._infonce_conditional, handler._infonce_sympy = True, own
        return handler
    facts = dict.fromkeys(cls._prop_handler) if every_fact else {}
    facts.update(declared)
    for fact, value in facts.items():
        if not getattr(cls._prop_handler.get(fact), "_infonce_conditional", False):
            cls._prop_handler[fact] = conditional(fact, value)


def _tanh_is_real(self):
    """tanh(x + i y) for y a multiple of pi/2: real where finite; SymPy said real (so finite) unless x was 0 as built, and
    tanh(n - 5 + i pi n/2) is zoo at n = 5 (a 53rd probe, Dec 2026).  Real where x is known nonzero or y a multiple of
    pi; not real where y is no multiple of pi/2 and x finite; else open."""
    arg = self.args[0]
    if arg.is_real:
        return True
    re_, im_ = arg.as_real_imag()
    half = (im_ % (sp.pi / 2)).is_zero
    if half:
        return True if (re_.is_zero is False or (im_ % sp.pi).is_zero) else None
    return False if (half is False and re_.is_finite) else None


def _tanh_is_finite(self):
    """SymPy's, with its test of the denominator cos(y)^2 + sinh(x)^2 made three-valued: a number was called nonzero
    unless built as 0 (a 53rd probe, Dec 2026)."""
    arg = self.args[0]
    re_, im_ = arg.as_real_imag()
    denominator = sp.cos(im_) ** 2 + sp.sinh(re_) ** 2
    if denominator.is_number:
        return fuzzy_not(denominator.is_zero)
    return True if arg.is_extended_real else None


def _cosh_is_real(self):
    """cosh(x + i y) = cosh x cos y + i sinh x sin y: real where x = 0 or y is a multiple of pi; SymPy said not real
    wherever y is no multiple of pi, x = 0 included: cosh(m - 5 + i) - cos 1 (m an integer) was nonzero, 0 at m = 5 (a
    53rd probe, Dec 2026)."""
    arg = self.args[0]
    if arg.is_real or arg.is_imaginary:
        return True
    re_, im_ = arg.as_real_imag()
    multiple = (im_ % sp.pi).is_zero
    if multiple:
        return True
    return False if (multiple is False and re_.is_zero is False and re_.is_finite) else None


def _zero_at_zero_only_on_the_real_line(self):
    """fresnels, fresnelc, erfi: 0 at 0, nonzero elsewhere on the extended real line; they have complex zeros (S(z) = 0
    at z = 2.0093 + 0.2885 i), where SymPy said nonzero for every nonzero z (a 53rd probe, Dec 2026)."""
    z = self.args[0]
    if z.is_zero:
        return True
    return False if (z.is_extended_real and z.is_zero is False) else None


def _real_on_the_real_line(self):
    """erfi, erf2, fresnels, fresnelc: real for extended real arguments; SymPy said not real for every other, though
    erf2(x + i, 3 - x + i) = 0 at x = 3/2 and erfi(x + i) is real at infinitely many real x (a 53rd probe, Dec 2026)."""
    return True if all(a.is_extended_real for a in self.args) else None


def _product_range_nonempty(self) -> bool | None:
    return fuzzy_and([(b - a + 1).is_positive for _, a, b in self.limits])


def _product_is_zero(self):
    """A product is 0 where a term is and its range is not empty; SymPy said 0 for a zero term over a range that may be
    empty: prod_{j=1}^m 0 <= 0 proved for m >= 0, 1 at m = 0 (a 53rd probe, Dec 2026)."""
    if self.has_empty_sequence:
        return False
    z = self.term.is_zero
    if z is True:
        return True if _product_range_nonempty(self) else None
    return z if self.has_finite_limits else None


def _product_is_extended_nonpositive(self):
    """An empty product is 1: SymPy called it nonpositive (and positive; a 53rd probe, Dec 2026)."""
    return False if self.has_empty_sequence else None


def _mod_sign(fact, divisor_fact):
    """Mod(p, q) in [0, q) for q > 0 (in (q, 0] for q < 0) where p is real; SymPy said so for every p, though Mod(i, 4) = i
    and Mod(i, 4)^2 >= 0 was proved (a 53rd probe, Dec 2026)."""
    def handler(self):
        p, q = self.args
        return True if (p.is_real and getattr(q, f"is_{divisor_fact}")) else None
    handler.__name__ = f"_mod_is_{fact}"
    return handler


def _polygamma_off_its_poles(z):
    """z is a real number other than 0, -1, -2 ... (the poles of polygamma(n, z))."""
    return fuzzy_and([z.is_real, fuzzy_or([z.is_positive, z.is_noninteger])])


def _polygamma_is_positive(self):
    n, z = self.args
    if n.is_positive and _polygamma_off_its_poles(z):
        if n.is_odd:
            return True
        if n.is_even and z.is_positive:
            return False
    return None


def _polygamma_is_negative(self):
    n, z = self.args
    if n.is_positive and _polygamma_off_its_poles(z):
        if n.is_even and z.is_positive:
            return True
        if n.is_odd:
            return False
    return None


def _polygamma_is_complex(self):
    z = self.args[1]
    return fuzzy_and([z.is_complex, fuzzy_not(fuzzy_and([z.is_nonpositive, z.is_integer]))])


def _beta_is_real(self):
    """beta(a, b) = Gamma(a) Gamma(b)/Gamma(a + b) is real (finite) for real a, b off the poles 0, -1, -2 ... of Gamma (1/Gamma
    is entire); SymPy said real for every real a, b, its poles included (1/(1 + beta(e^x - 5/2)^2) > 0, 0 at
    x = log(5/2); a 42nd probe)."""
    a, b = self.args
    return True if _polygamma_off_its_poles(a) and _polygamma_off_its_poles(b) else None


def _fresnel_is_finite(self):
    """S(z) and C(z) are entire: finite at every finite z.  SymPy read them finite exactly where real, so infinite off the
    real line, and 1/S(sqrt(x))^2 (x < 0) zero and nonnegative, though it is -1/S(1)^2 = -5.2 at x = -1 (a 44th probe)."""
    return True if self.args[0].is_finite else None


def _log_is_finite(self):
    """log z is finite exactly where z is finite and nonzero.  SymPy called it finite wherever z is finite and not known
    to be zero, so 1/(1 + |log((x - y - 1)^2)|) positive for integers x, y though it is 0 at (1, 0), and a lemma cited
    there proved 0 > 0 (a 45th probe, Dec 2026)."""
    z = self.args[0]
    return fuzzy_and([z.is_finite, fuzzy_not(z.is_zero)])


def _zeta_is_finite(self):
    """zeta(s) is finite off s = 1; Hurwitz's zeta(s, a) = sum_{n >= 0} (n + a)^-s is also infinite at an integer a <= 0
    when s > 0 (its term n = -a), which SymPy ignored: 1/(1 + |zeta(2, (x - y - 1)^2)|) > 0 was proved for integers x, y,
    though zeta(2, 0) is infinite (a 45th probe, Dec 2026).  Finite where s != 1 and a is known not to be such an
    integer or s <= 0 (zeta(-1, 0) = -1/12); else undecided: the first repair called zeta(s, 0) infinite for s < 0, so
    the integral of -1/zeta(s, 0)^2 "zero", and >= 0 was proved though it is -144 at s = -1 (a 46th probe)."""
    off_the_pole = fuzzy_not((self.args[0] - 1).is_zero)
    if len(self.args) == 1:
        return off_the_pole
    s_, a = self.args
    return True if fuzzy_and([off_the_pole, fuzzy_or([fuzzy_not(a.is_integer), a.is_positive,
                                                        s_.is_nonpositive])]) else None


def _mul_is_integer(self):
    """SymPy 1.14's Mul._eval_is_integer with only its sound rules.  It read x/3, x/7, x^2/3 as no integers for an even
    x ("even numerators over odd denominators": 6/3 = 2) and x/6, x/10 as integers (counting the powers of 2 only:
    2/6 = 1/3), so frac(x/3) > 0 and 1/polygamma(1, -x^2/3) > 0 were proved, 0 at x = 6 (a 46th probe, Dec 2026).
    Kept: no denominators (integer factors and integer powers); a product over denominators > 1 alone; odd numerators over
    an even denominator; an even numerator over 2; a power of 2 over fewer 2s than the even numerators have; an even
    integer over more 2s than it has.  Else undecided."""
    if self._eval_is_rational() is False:
        return False
    numerators, denominators, unknown = [], [], False
    for a in self.args:
        if a.is_integer:
            if abs(a) is not sp.S.One:
                numerators.append(a)
        elif a.is_Rational:
            n, d = a.as_numer_denom()
            if abs(n) is not sp.S.One:
                numerators.append(n)
            if d is not sp.S.One:
                denominators.append(d)
        elif a.is_Pow:
            b, e = a.as_base_exp()
            hit = not b.is_integer or not e.is_integer
            unknown = unknown or hit
            if e.is_negative:
                denominators.append(sp.Integer(2) if a is sp.S.Half else sp.Pow(a, -1))
            else:
                return None
        else:
            return None
    if not denominators and not unknown:
        return True
    if not numerators and all(is_gt(d, sp.S.One) for d in denominators):
        return False
    if unknown:
        return None
    if all(n.is_odd for n in numerators) and any(d.is_even for d in denominators):
        return False
    if any(n.is_even for n in numerators) and denominators == [2]:
        return True
    if len(denominators) == 1:
        d = denominators[0]
        if d.is_Integer and d > 1 and d.p & (d.p - 1) == 0:        # a power of 2: the 2s decide
            twos = sp.Add(*[n.as_base_exp()[1] for n in numerators if n.is_even]) - (d.p.bit_length() - 1)
            if twos.is_nonnegative:
                return True
    if len(numerators) == 1:
        n = numerators[0]
        if n.is_Integer and n.is_even:
            if (sp.Add(*[d.as_base_exp()[1] for d in denominators if d.is_even]) - trailing(n.p)).is_positive:
                return False
    return None


_SYMPY_EXP_IS_EXTENDED_POSITIVE = sp.exp._eval_is_extended_positive


def _exp_is_extended_positive(self):
    # exp(x) > 0 for x > -oo: x finite, or x >= 0; 0 at x = -oo
    x = self.exp
    if x.is_extended_real:
        if x is sp.S.NegativeInfinity:
            return False
        if x.is_finite or x.is_extended_nonnegative:
            return True
        return None
    return _SYMPY_EXP_IS_EXTENDED_POSITIVE(self)


def _exp_is_zero(self):
    # exp(x) = 0 only at x = -oo: never for a finite x, nor for x >= 0
    x = self.exp
    if x is sp.S.NegativeInfinity:
        return True
    if x.is_finite or x.is_extended_nonnegative:
        return False
    return None


def _factorial_power_is_integer(self):
    # rf(x, k), ff(x, k): a product of k integers where x is an integer and k a nonnegative integer; elsewhere it may or
    # may not be one (rf(1/7, x) = 1 at x = 3.926..., rf(-4, -5/2) = 0), where SymPy said "no integer" (so "nonzero")
    x, k = self.args
    return True if (x.is_integer and k.is_integer and k.is_nonnegative) else None


def _frac_is_real(self):
    # frac(x) in [0, 1) for a real x; frac(i y) = i frac(y), real (0) at an integer y, where SymPy said "not real"
    return True if self.args[0].is_extended_real else None


def _frac_is_imaginary(self):
    # frac(i) = 0, which is not imaginary: SymPy called frac(b) imaginary for every imaginary b
    x = self.args[0]
    return False if x.is_extended_real else None


def _frac_is_zero_or_integer(self):
    # frac(x) is 0, its one integer value, exactly where a real x is an integer; undecided off the real line, where SymPy
    # called frac(b) no integer and nonzero for every b that is not one (frac(i) = 0; a 49th probe)
    x = self.args[0]
    if x.is_integer:
        return True
    return False if (x.is_extended_real and x.is_integer is False) else None


def _rounding_is_real_or_integer(self):
    # floor(x), ceiling(x): an integer for a real x; off the real line they may still be one (floor(i/2) = 0), where SymPy
    # said "not real" and "no integer", hence nonzero: |floor(b)| > 0 was proved for an imaginary b (a 50th probe)
    return True if self.args[0].is_real else None


def _rounding_sign(fact):
    """floor's and ceiling's sign handlers (floor: negative, nonnegative; ceiling: positive, nonpositive), each the
    argument's for an extended real argument only: floor(-1 + i/2) = -1 is negative, ceiling(-i/2) = 0 nonpositive,
    which SymPy denied for every argument not real (a 50th probe)."""
    def handler(self):
        x = self.args[0]
        return getattr(x, f"is_{fact}") if x.is_extended_real else None
    handler.__name__ = f"_rounding_is_{fact}"
    return handler


def _atan2_is_extended_real(self):
    # atan2(y, x) for extended real y and x, as SymPy says; off the real line it may still be real (atan2(i, 0) = pi/2),
    # where SymPy said "not real", so |sign(atan2(i, x) - pi/2)| was built as 1 (a 51st probe, Dec 2026)
    # (and where y or x is nonzero: atan2(0, 0) is nan, and cos(atan2(x^2 - 5, x^3 - 5x))^2 + 1 > 0 was proved; a 55th
    # probe, Dec 2026)
    y, x = self.args
    defined = fuzzy_or([fuzzy_not(y.is_zero), fuzzy_not(x.is_zero)])
    return True if (y.is_extended_real and x.is_extended_real and defined) else None


def _mul_real_imag(self, real):
    """SymPy 1.14's ``Mul._eval_real_imag`` with its first test made three-valued: it read "neither complex nor
    infinite" from t.is_complex or t.is_infinite, None or False, so a factor of unknown complexness that is not real
    (acosh(-2)) made the product "not real", hence nonzero, whatever the other factors: |(x^2 - 3) acosh(-2)| > 0
    proved, 0 at x = sqrt 3 (a 49th probe, Dec 2026).  The rest is SymPy's (a real factor that may be 0 leaves it
    open)."""
    zero = False
    t_not_re_im = None
    for t in self.args:
        if t.is_complex is False and t.is_infinite is False and t.is_extended_real is False:
            return False
        elif t.is_imaginary:
            real = not real
        elif t.is_extended_real:
            if not zero:
                z = t.is_zero
                if not z and zero is False:
                    zero = z
                elif z:
                    if all(a.is_finite for a in self.args):
                        return True
                    return None
        elif t.is_extended_real is False or t.is_imaginary is False:
            if t_not_re_im:
                return None
            t_not_re_im = t
        else:
            return None
    if t_not_re_im:
        if t_not_re_im.is_extended_real is False and real:
            return zero
        if t_not_re_im.is_imaginary is False and not real:
            return zero
        return None
    if zero is False or real:
        return real
    return None


def _mul_is_extended_real(self):
    return _mul_real_imag(self, True)


def _mul_is_imaginary(self):
    if all(a.is_zero is False and a.is_finite for a in self.args):
        return _mul_real_imag(self, False)
    return None


def _limits_is_extended_real(self):
    # a sum or product of real terms is real; of terms that are not, it may still be (i + (-i), i i): SymPy said not
    if self.has_empty_sequence or self.function.is_extended_real:
        return True
    return None


SYMPY_INTEGRAL_IS_ZERO = sp.Integral._eval_is_zero


def _integral_is_zero(self):
    # SymPy's zero (an integrand or a range known to be 0), never its "nonzero", which it read off an integrand known
    # nonzero whatever its sign (int_{-1}^1 t dt = 0)
    return True if SYMPY_INTEGRAL_IS_ZERO(self) else None


# the working precision (bits) at which the value of an integral stops being refined when its caller set none
INTEGRAL_MAX_PRECISION = 1000


def _integral_evalf_capped(evalf_integral, accuracy):
    """SymPy's ``evalf_integral`` with a maximum working precision where the caller set none (``INTEGRAL_MAX_PRECISION``,
    or four times the precision asked for), and then a ValueError where that gave no value to the precision asked for:
    an integral whose value is 0 was refined without end (a 48th probe), and a value of no accuracy (2^-1000) would read
    as a sign.  SymPy's sign of a number then says nothing (it catches the ValueError)."""
    def capped(expr, prec, options):
        if "maxprec" in options:
            return evalf_integral(expr, prec, options)
        result = evalf_integral(expr, prec, {**options, "maxprec": max(4 * prec, INTEGRAL_MAX_PRECISION)})
        if accuracy(result) < prec:
            raise ValueError("the integral has no value to the precision asked for")
        return result
    capped._infonce_repaired = True
    return capped


def _lambertw_branch(self):
    return self.args[1] if len(self.args) > 1 else sp.S.Zero


def _lambertw_is_finite(self):
    # W_0 is finite at every finite x; another branch is -oo at x = 0
    x, k = self.args[0], _lambertw_branch(self)
    if k.is_zero:
        return x.is_finite
    if x.is_finite and fuzzy_not(x.is_zero):
        return True
    if x.is_zero:
        # W_0(0) = 0: infinite only on a branch known not to be 0 (the first repair said infinite for any k not known
        # to be 0, so 1/(1 + W(0, k)) "zero" for an integer k; its integral >= 0 was proved, -1 at k = 0; a 46th probe)
        return False if fuzzy_not(k.is_zero) else None
    return None


def _lambertw_is_extended_real(self):
    # real x: W_0 on [-1/e, oo); W_-1 on [-1/e, 0] (-oo at 0); the other branches only at 0 (-oo)
    x, k = self.args[0], _lambertw_branch(self)
    edge = x + 1 / sp.E
    if not x.is_extended_real:
        return None
    if k.is_zero:
        return True if edge.is_nonnegative else False if edge.is_negative else None
    if (k + 1).is_zero:
        if x.is_nonpositive and edge.is_nonnegative:
            return True
        return False if (x.is_positive or edge.is_negative) else None
    if fuzzy_not(k.is_zero) and fuzzy_not((k + 1).is_zero):
        return False if fuzzy_not(x.is_zero) else None
    return None


def _odd_away_from_zero(function):
    """``eval`` of acot or acoth, whose value at 0 (pi/2, i pi/2) makes them odd only away from 0: f(-x) = -f(x) is
    taken for an x known to be nonzero only."""
    sympys = function.eval.__func__

    def eval(cls, arg):
        if not arg.is_Number and arg.could_extract_minus_sign() and fuzzy_not(arg.is_zero) is not True:
            return None
        return sympys(cls, arg)

    eval._infonce_repaired = True
    return classmethod(eval)


# the checked rewrites try every combination of their symbols' points up to this many (two symbols of any declaration)
_EVAL_PAIRS = 400
# integers, halves and thirds for the checked rewrites (``_checked_eval``); a symbol takes those its declaration admits
_EVAL_POINTS = tuple(sp.Integer(v) for v in (0, 1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6, 7, 9, 10, 15)) + (
    sp.Rational(1, 2), sp.Rational(-1, 2), sp.Rational(3, 2), sp.Rational(1, 3), sp.Rational(-1, 3))


def declared_facts(e) -> dict:
    """Every assumption SymPy decides of ``e`` (a symbol, or an undefined function's value: its ``assumptions0`` is
    empty, its class holds the declaration)."""
    return {k: v for k in _ASSUME_DEFINED if (v := getattr(e, f"is_{k}")) is not None}


# values at which a function's argument is tried, whatever symbol it is made of (``argument_points``)
_ARGUMENT_TARGETS = (sp.Integer(0), sp.Integer(1), sp.Integer(-1), sp.Integer(-2), sp.Rational(1, 2), sp.Rational(-1, 2),
                     sp.Rational(2, 3))


def argument_points(exprs, sym) -> list:
    """Values of ``sym`` at which an argument of a function in ``exprs``, a polynomial of degree at most 4 in it (the other
    symbols at the same value), takes 0, +-1, -2, +-1/2 or 2/3: a rewrite wrong at negative degrees only, legendre(k + 12,
    -1) built as (-1)^(k + 12), is wrong from k = -13, which no fixed list of points reached (a 40th probe, Dec 2026)."""
    out = []
    for e in exprs:
        for a in _function_arguments(sp.sympify(e)):
            if not a.has(sym) or a == sym:
                continue
            # the other symbols at sym's value too (k + m + 24 at k = m = -13; the guards try all symbols at one value)
            a = a.xreplace({x: sym for x in a.free_symbols if x != sym and isinstance(x, sp.Symbol)})
            out += [v for v in _argument_roots(a, sym) if v not in out]
        for a in _denominators(sp.sympify(e)):
            if a.free_symbols == {sym}:
                out += [v for v in _pole_roots(a, sym) if v not in out]
    return out


@functools.lru_cache(maxsize=8192)
def _denominators(e) -> tuple:
    """The bases of the negative powers in ``e`` (its poles are their zeros)."""
    return tuple(p.base for p in e.atoms(sp.Pow) if p.exp.is_negative and p.base.free_symbols)


# integers at which a denominator in an integer symbol is sought to vanish (``_pole_roots``)
_POLE_INTEGERS = range(-64, 65)


@functools.lru_cache(maxsize=8192)
def _pole_roots(a, sym) -> tuple:
    """Zeros of the denominator ``a`` (in ``sym`` alone) beyond the rational ones of ``_argument_roots``: the real roots
    in radicals of the irreducible factors of degree 2 to 4 of a polynomial with rational coefficients, and for an integer ``sym`` the integers of
    [-64, 64] at which ``a`` is 0 (sought at 30 digits, each kept where ``a`` is exactly 0 there).  (x^4 - 25)/(x^2 - 5) =
    x^2 + 5 was proved, nan at sqrt(5), and (4^n - (n + 27)^2)/(2^n - n - 27) = 2^n + n + 27, nan at n = 5 (a 55th probe,
    Dec 2026)."""
    out = []
    try:
        if a.is_polynomial(sym):
            poly = sp.Poly(a, sym)
            if poly.domain.is_ZZ or poly.domain.is_QQ:
                # (each irreducible factor's: (x^2 - 5)^2 (x^2 + 1), which cos(atan2(x^2 - 5, x^3 - 5x))^2 was built over)
                for factor, _ in poly.factor_list()[1]:
                    if factor.degree() == 1:
                        # (a rational zero of a denominator of degree above 4, (n - 5)(n^4 + 1); a 56th probe, Dec 2026)
                        high, low = factor.all_coeffs()
                        out += [v for v in [-low / high] if v not in out]
                    elif 2 <= factor.degree() <= 4:
                        out += sorted((v for v in sp.roots(factor, filter="R") if v not in out), key=float)
        elif sym.is_integer:
            large = may_build_large(a)
            for n in _POLE_INTEGERS:
                point = {sym: sp.Integer(n)}
                # (not where a is too large to build or evaluate: exp(exp(exp(n))) never returned, ln 2 computed to the
                # argument's bits; a 56th probe, Dec 2026)
                if large and costly_to_build(a, point):
                    continue
                try:
                    value = a.xreplace(point)
                    if value == 0:
                        out.append(sp.Integer(n))
                    elif not costly_to_evaluate(value) and abs(sp.N(value, 30)) < 1e-20 and sp.expand(value) == 0:
                        out.append(sp.Integer(n))
                except (ValueError, ZeroDivisionError, OverflowError, TypeError):
                    continue
    except (sp.PolynomialError, NotImplementedError, ValueError, TypeError):  # pragma: no cover - no points from it
        return ()
    return tuple(out)


@functools.lru_cache(maxsize=8192)
def _function_arguments(e) -> tuple:
    """The arguments of the functions in ``e`` and its denominators (the bases of its negative powers), whose zeros are
    poles: (n^2 - 25)/(n - 5) - n - 4 > 0 was proved, factor cancelling n - 5, and nan at n = 5 (a 54th probe, Dec 2026).
    (The guards ask of one expression once per symbol.)"""
    denominators = tuple(p.base for p in e.atoms(sp.Pow) if p.exp.is_negative and p.base.free_symbols)
    return tuple(sp.sympify(a) for f in e.atoms(sp.Function) for a in f.args) + denominators


def _rational_roots_numerically(poly) -> list:
    """The rational roots (denominators up to 10^4) of a polynomial of degree <= 4 with coefficients not rational
    (sqrt(2) k - sqrt(2)): its numeric roots, each real one's nearest such rational kept where the polynomial is exactly 0
    there.  sp.roots built the quartic's radical roots over EX, about 4 s a target and 30 s an argument (a 53rd probe,
    Dec 2026)."""
    try:
        approx = poly.nroots(n=15, maxsteps=100)
    except (mpmath.libmp.NoConvergence, sp.PolynomialError, NotImplementedError, ValueError, TypeError):
        return []
    out = []
    for r in approx:
        re_, im_ = (float(v) for v in r.as_real_imag())
        if abs(im_) > 1e-9 * max(1.0, abs(re_)) or not math.isfinite(re_):
            continue
        q = sp.Rational(Fraction(re_).limit_denominator(10 ** 4))
        if q not in out and sp.expand(poly.eval(q)) == 0:
            out.append(q)
    return out


@functools.lru_cache(maxsize=8192)
def _argument_roots(a, sym) -> tuple:
    """The values of ``sym`` at which ``a`` (in ``sym`` alone) takes one of _ARGUMENT_TARGETS:
    * a polynomial of degree 1 to 4 (polynomial arguments: (k - 12)^2 - 1 is negative at k = 12 only; a 41st probe), or
      a rational function whose numerator is one ((k + 12)/(k + 13)): rational roots only (an irrational one costs
      exact arithmetic at every point, and a rewrite wrong over an interval meets the rational points of the others and
      the fixed ones); integer and rational coefficients by factoring over Q (``ground_roots``), others (sqrt(2) k -
      sqrt(2)) numerically, each checked exactly (``_rational_roots_numerically``);
    * an expression in which ``sym`` occurs once (e^x - 5/2, 2^k + 3, log(y) + 1): the real solutions ``solve`` finds by
      inverting it (x = log(5/2)), irrational ones included: beta(e^x - 5/2) is zoo at x = log(5/2), which no fixed
      point reached (a 42nd probe)."""
    out = []
    try:
        if a.free_symbols != {sym}:
            return ()
        if a.is_polynomial(sym) or a.is_rational_function(sym):
            numerator, denominator = sp.fraction(sp.together(a))
            poly = sp.Poly(numerator, sym)
            below = sp.Poly(denominator, sym)
            if not 1 <= poly.degree() <= 4 or below.degree() > 4:
                return ()
            for t in _ARGUMENT_TARGETS:
                shifted = poly - t * below
                if shifted.is_zero:
                    continue
                if shifted.domain.is_ZZ or shifted.domain.is_QQ:
                    found = [v for v in shifted.ground_roots() if v.is_rational]
                elif shifted.degree() == 1:
                    # one root, exact whatever the coefficients: x - sqrt(3) at sqrt(3) ((x^2 - 3)/(x - sqrt(3)) - x -
                    # sqrt(3) + 1 > 0 was proved, nan there; a 54th probe, Dec 2026)
                    high, low = shifted.all_coeffs()
                    found = [v] if (v := sp.radsimp(-low / high)).is_real else []
                else:
                    found = _rational_roots_numerically(shifted)
                # each target's in ascending order; a root of the denominator is no value of a
                out += sorted((v for v in found if v not in out and below.eval(v) != 0), key=float)
            return tuple(out)
        if sum(1 for t in sp.preorder_traversal(a) if t == sym) != 1:
            return ()
        # a power of degree above 4 on the way to sym is not inverted (as a polynomial of such degree gives no points):
        # solve found the 12 roots of x^12 = log(c) for exp(-exp(x^12)) for minutes (a 45th probe)
        if any(p.base.has(sym) and not (p.exp.is_number and abs(p.exp) <= 4) for p in a.atoms(sp.Pow)):
            return ()
        for t in _ARGUMENT_TARGETS:
            found = _real_inverses(a, t, sym)
            if found is None:
                # (solve may answer with a list of dicts: im(t)/6 = 0 gave [{t: re(t), im(t): 0}]; a 45th probe)
                found = [v for v in sp.solve(a - t, sym) if isinstance(v, sp.Expr)]
            found = admissible(sym, [v for v in found if v.is_number and v.is_real and v.is_finite])
            out += [v for v in found[:3] if v not in out]
    except (sp.PolynomialError, NotImplementedError, ValueError, TypeError):  # pragma: no cover - no points from it
        return ()
    return tuple(out)


def _real_inverses(a, t, sym):
    """The real solutions of ``a = t`` (``sym`` occurring once in ``a``) where SymPy's ``invert_real`` peels ``a`` down to
    ``sym`` and a finite set (log(k) = 1: {E}); None where it does not (sin(x) = 1: a set over the integers), for
    ``solve``.  Each is checked at 30 digits: ``invert_real`` does not heed a function's range (atan(x) = -2 gave
    x = -tan(2), where atan is 1.14).  ``solve`` found the same points at 30-260 ms a target, most of it checking each
    against ``sym``'s declaration (``admissible`` does that here), against 1-5 ms: 13 s of the 76 registered chains' 90 s
    (Dec 2026)."""
    try:
        inverted, solutions = invert_real(a - t, sp.S.Zero, sym)
    except (ValueError, NotImplementedError, TypeError):
        return None
    if inverted != sym:
        return None
    if isinstance(solutions, (sp.ImageSet, sp.Union)):
        # a periodic inverse, sin(x) = 1: x = 2 n pi + pi/2 for every integer n; its value at n = 0 (solve spent 42 s
        # a target on sec(x) = 1; a 54th probe, Dec 2026)
        periodic = solutions.args if isinstance(solutions, sp.Union) else (solutions,)
        if not all(isinstance(p, sp.ImageSet) and p.base_sets == (sp.S.Integers,) and len(p.lamda.variables) == 1
                   for p in periodic):
            return None
        solutions = [p.lamda(0) for p in periodic]
    elif not isinstance(solutions, (sp.FiniteSet, type(sp.S.EmptySet))):
        return None
    return [v for v in solutions if _vanishes((a - t).xreplace({sym: v}))]


def _vanishes(value) -> bool:
    """Whether the number ``value`` is 0, or below 10^-20 at 30 digits (``_real_inverses``)."""
    if value == 0:
        return True
    try:
        return bool(abs(sp.N(value, 30)) < 1e-20)
    except (TypeError, ValueError, ZeroDivisionError):
        return False


# functions whose evaluation reduces their argument modulo a constant (ln 2, pi) computed to the argument's own bits
# (sinc and the rounding functions too: sinc(exp(exp(exp(x)))) and frac(exp(exp(x))) at a point ran for minutes; a
# 49th probe, Dec 2026)
_REDUCING = (sp.exp, TrigonometricFunction, HyperbolicFunction, sp.sinc, sp.floor, sp.ceiling, sp.frac)
# an argument of more bits than this is not evaluated at a point (the constant to 2^20000 ... bits: seconds and more)
MAX_ARGUMENT_BITS = 20000


def costly_to_evaluate(value) -> bool:
    """Whether evaluating the number ``value`` would reduce an argument beyond MAX_ARGUMENT_BITS bits: exp(-exp(x^12)) at
    x = 15 asks for ln 2 to 2^47 bits, and the exact-point guard computed it for minutes (a 45th probe, Dec 2026).  The
    arguments are sized from the inside out (an inner one first, so none of those sized is itself costly): those of exp,
    the trigonometric and hyperbolic functions, sinc and the rounding functions (``_REDUCING``), and a power's
    exponent."""
    return any(map(_costly_argument, sp.postorder_traversal(value)))


def _costly_argument(node) -> bool:
    """Whether ``node`` (its arguments already sized, :func:`costly_to_evaluate`) reduces an argument beyond
    MAX_ARGUMENT_BITS."""
    if isinstance(node, sp.Pow):
        arg = node.exp
    elif isinstance(node, _REDUCING):
        arg = node.args[0]
    else:
        return False
    if arg.is_Rational:
        return abs(arg.p // arg.q).bit_length() > MAX_ARGUMENT_BITS + 1
    if not arg.has(sp.Function, sp.Pow):
        return False                   # rationals and constants (pi, E) combined: sized by their own value below only
    try:
        size = sp.N(sp.Abs(arg), 5)
    except Exception:                  # pragma: no cover - no size: no value either, left to the caller
        return False
    return bool(size.is_Float and size > 0 and mpmath.mag(mpmath.mpf(size._mpf_)) > MAX_ARGUMENT_BITS)


# an exact power of a number (not 0, 1 or a float) of more bits than this is not built at a point, nor a function other
# than the elementary ones (factorials, gamma, primepi, partition ...) at a number beyond LARGE_ARGUMENT: SymPy may
# compute them exactly while it builds the value (gamma(gamma(15)) is 87178291199!, primepi(15^40) counts primes; a
# 47th probe, Dec 2026).  The elementary ones (exp, the trigonometric ...) are sized by costly_to_evaluate.
MAX_VALUE_BITS = 10 ** 6
LARGE_ARGUMENT = 10 ** 5


def _sized_by_argument(node) -> bool:
    # (a function that declares itself held at a number, an expectation or a variance of the checker, builds nothing)
    return (isinstance(node, sp.Function) and not type(node).__module__.startswith("sympy.functions.elementary")
            and not getattr(type(node), "held_at_numbers", False))


def _magnitude(x):
    """|x| to 5 digits as an mpmath number (any exponent), or None where it has none."""
    if x.is_Rational:                  # (most values at a point: no evaluation needed)
        return mpmath.mpf(abs(x.p)) / x.q
    try:                               # x's value first: building |x| is most of the cost (Abs's eval)
        v = sp.N(x, 5)
        if v.is_Float and v._prec > 1:     # (precision 1: SymPy's "no significant digit", a 0 it cannot see)
            return abs(mpmath.mpf(v._mpf_))
    except Exception:                  # pragma: no cover - |x| below decides
        pass
    try:
        v = sp.N(sp.Abs(x), 5)
    except Exception:                  # pragma: no cover - no size: no value either, left to the caller
        return None
    return mpmath.mpf(v._mpf_) if v.is_Float else mpmath.mpf(int(v)) if v.is_Integer else None


# the rounding functions compute their value when built at a number (frac(exp(exp(x))) at x = 15 asked for e^(e^15) to
# 4.7 million bits; a 49th probe, Dec 2026)
_BUILT_BY_VALUE = (sp.floor, sp.ceiling, sp.frac)


def may_build_large(e) -> bool:
    """Whether ``e`` has a power of a symbolic or large exponent, or a function other than the elementary ones, or a
    rounding function, of an argument with symbols: the forms whose value at a point :func:`costly_to_build` sizes
    before it is built."""
    return any((isinstance(t, sp.Pow) and (t.exp.free_symbols or (t.exp.is_Number and abs(t.exp) > 64)))
               or ((_sized_by_argument(t) or isinstance(t, _BUILT_BY_VALUE)) and t.free_symbols)
               for t in sp.preorder_traversal(e))


def _grows(node) -> bool:
    """Whether ``node`` can be far larger than its arguments: an exponential, a hyperbolic function, a power of a symbolic
    or large exponent, a non-elementary function (gamma, factorials ...), or a number beyond 2^64."""
    if isinstance(node, sp.Rational):
        return max(abs(node.p), node.q).bit_length() > 64
    return (isinstance(node, (sp.exp, HyperbolicFunction)) or _sized_by_argument(node)
            or (isinstance(node, sp.Pow) and not (node.exp.is_Number and abs(node.exp) <= 64)))


def may_grow_large(e) -> bool:
    """Whether some argument in ``e`` that costly_to_evaluate sizes (of exp, the trigonometric and hyperbolic functions,
    sinc, the rounding functions; a power's exponent) holds a node that can grow (``_grows``): the cheap test before
    ``costly_to_build`` where a check evaluates at many points (the spot checks: sin(e^(e^(e^(e^p)))) at a random p asked
    for pi to 10^78 bits and never returned; a 50th probe, Dec 2026).  False for every other expression, whose value at
    a number of moderate size stays of moderate size."""
    for node in sp.preorder_traversal(e):
        if isinstance(node, sp.Pow):
            arg = node.exp
        elif isinstance(node, _REDUCING):
            arg = node.args[0]
        else:
            continue
        if any(_grows(t) for t in sp.preorder_traversal(arg)):
            return True
    return False


def costly_to_build(e, point) -> bool:
    """Whether building ``e`` at ``point`` (SymPy evaluating as it builds) would compute an exact power beyond
    MAX_VALUE_BITS bits, a non-elementary function beyond LARGE_ARGUMENT, or reduce an argument beyond
    MAX_ARGUMENT_BITS (:func:`costly_to_evaluate`): the exact-point guard built 2^(2^(2^x)) at x = 15, x^(10^30) at
    x = 2 and (|n| + 50)!! ... and never returned (a 46th probe, Dec 2026).  The value is built unevaluated and sized
    from the inside out."""
    with sp.evaluate(False):
        raw = e.xreplace(point)
    for node in sp.postorder_traversal(raw):
        # an argument to reduce first (a Pow's base may be floor(e^(e^15)), which sizing the power would evaluate)
        if _costly_argument(node):
            return True
        if isinstance(node, sp.Pow) and node.base.is_number and node.exp.is_number and not node.base.is_Float:
            base, exponent = _magnitude(node.base), _magnitude(node.exp)
            if base is None or exponent is None or base in (0, 1):
                continue
            if exponent * max(1, abs(mpmath.log(base, 2))) > MAX_VALUE_BITS:
                return True
        elif _sized_by_argument(node) and all(a.is_number for a in node.args):
            if any((m := _magnitude(a)) is not None and m > LARGE_ARGUMENT for a in node.args):
                return True
    return False


def values_differ(a, b) -> bool:
    """Whether two numbers differ: each evaluated at 30 digits, then compared as complex doubles (any difference beyond
    1e-20 of the larger, or of 1).  The comparison of the checked rewrites here and of the checker's exact-point guards;
    raises where a value cannot be evaluated, or would cost too much to (``costly_to_evaluate``)."""
    if a == b:                 # the same number built twice (most points of a true identity): nothing to evaluate
        return False
    if costly_to_evaluate(a) or costly_to_evaluate(b):
        raise ValueError("an argument too large to evaluate at this point")
    return complexes_differ(complex(sp.N(a, 30)), complex(sp.N(b, 30)))


def complexes_differ(x, y) -> bool:
    """``values_differ`` of two numbers already evaluated (complex)."""
    return abs(x - y) > 1e-20 * max(1.0, abs(x), abs(y))


def with_argument_points(points, exprs, sym) -> tuple:
    """``argument_points`` first (the guards try every symbol at one of its first values before the strides), then the
    fixed ``points``."""
    extra = argument_points(exprs, sym)
    return tuple(extra) + tuple(v for v in points if v not in extra)


def undefined_as_symbols(exprs) -> dict:
    """Each undefined function's value in ``exprs`` (g(t)), and each entry of an indexed array (a[i]), mapped to a fresh
    symbol of its declaration (g integer and negative: a negative integer symbol): what the checked rewrites here and the
    checker's exact-point guards read it as (legendre(g(t) + 12, -1) was kept unchecked, no point giving g(1) a value; a
    41st probe; an entry a[i] switched the guards off, |frac(rf(-3/2, a[i]))| > 0 proved, 0 at a[i] = 0; a 48th; so did
    an Idx and a random symbol of sympy.stats, a 49th)."""
    undefined = set().union(*(sp.sympify(e).atoms(AppliedUndef, sp.Indexed, sp.Idx, RandomSymbol) for e in exprs))
    return {u: sp.Dummy("value", **declared_facts(u)) for u in undefined}


def point_pools(symbols, points, exprs) -> list:
    """For each of ``symbols``, the points its declaration admits: the argument points of ``exprs`` first, then ``points``
    (the checked rewrites here, the checker's exact-point guards)."""
    return [admissible(x, with_argument_points(points, exprs, x)) for x in symbols]


def admissible(sym, points) -> list:
    """The numbers of ``points`` that meet every declaration of ``sym`` (the checked rewrites here, the checker's
    exact-point guards)."""
    facts = declared_facts(sym)
    return [v for v in points if all(getattr(v, f"is_{k}") == want for k, want in facts.items())]


def assignments(pools, full=24):
    """Joint points of symbols, symbol i taking the values of ``pools[i]``: every combination when there are at most
    ``full``, else as many as the largest pool, symbol i stepping through its pool with a stride prime to the pool's size
    (each symbol meets each of its points), after every symbol at one value.  (The checker's exact-point guards, and the
    checked rewrites here.)"""
    sizes = [len(pool) for pool in pools]
    if math.prod(sizes) <= full:
        yield from itertools.product(*pools)
        return
    # every symbol at one value first (a rewrite wrong only where two symbols meet; a 36th probe), then the strides
    for v in [v for v in pools[0] if all(v in pool for pool in pools[1:])][:6]:
        yield (v,) * len(pools)
    for t in range(max(sizes)):
        yield tuple(pool[(t * _coprime_stride(i, len(pool)) + i) % len(pool)] for i, pool in enumerate(pools))


def _coprime_stride(i, n) -> int:
    for stride in (1, 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31)[i % 12:] + (1,):
        if math.gcd(stride, n) == 1:
            return stride
    return 1


def _legendre_reflected_for_nonnegative_degrees(function):
    """legendre's ``eval``, its reflection P_n(-x) = (-1)^n P_n(x) (and so P_n(-1) = (-1)^n) kept for a nonnegative
    integer n only: for n < 0, P_n = P_{-n-1} gives -(-1)^n P_n(x), and for a non-integer degree there is no such rule
    (legendre(k + 12, -1) built as (-1)^(k + 12) was wrong from k = -13; probes 40 and 41, Dec 2026)."""
    sympys = function.eval.__func__

    def eval(cls, n, x):
        if not n.is_Number and x.could_extract_minus_sign() and not (n.is_integer and n.is_nonnegative):
            return None
        return sympys(cls, n, x)

    eval._infonce_reflection = True
    return classmethod(eval)


def _checked_eval(function):
    """``eval`` of ``function``, its rewrite of arguments with symbols kept only where it agrees with the function built
    at numbers at admissible points (both values numbers, equal to 20 digits; a value against no value is a
    disagreement)."""
    sympys = function.eval.__func__

    def eval(cls, *args):
        out = sympys(cls, *args)
        if out is None:
            return None
        # an undefined function's value stands for a symbol of its declaration (legendre(g(t) + 12, -1) was kept unchecked:
        # no point gave g(1) a value; a 41st probe, Dec 2026)
        values = undefined_as_symbols(args)
        if values:
            args, out = tuple(sp.sympify(a).xreplace(values) for a in args), sp.sympify(out).xreplace(values)
        symbols = sorted(set().union(*(sp.sympify(a).free_symbols for a in args)), key=sp.default_sort_key)
        if not symbols or not all(isinstance(x, sp.Symbol) for x in symbols):
            return out
        held = [sp.Function("f")(*args)]          # (its own arguments, read as those of a function)
        pools = point_pools(symbols, _EVAL_POINTS, held)
        if any(not pool for pool in pools):
            return None              # no point to check the rewrite at: not taken
        # every pair of values of two symbols (hermite_prob(y, -x) was built as (-1)^y hermite_prob(y, x), wrong only at
        # x = 0 with y not an integer, a pair the strides missed; a 38th probe, Dec 2026)
        with sp.evaluate(False):
            unevaluated = cls(*args)
        # (its arguments sized, not the function: every non-elementary one would count as large, at a fifth of the chains' time)
        large = may_grow_large(unevaluated) or any(may_build_large(sp.sympify(a)) for a in args)
        for values in assignments(pools, full=_EVAL_PAIRS):
            point = dict(zip(symbols, values))
            try:
                if large and (costly_to_build(unevaluated, point) or costly_to_build(sp.sympify(out), point)):
                    return None      # (too large to build there: the rewrite is not taken unchecked; Mod(e^(e^(e^p)), pi)
                    #                  built at p = 15 never returned; a 51st probe, Dec 2026)
                direct = cls(*[sp.sympify(a).xreplace(point) for a in args])
                rewritten = sp.sympify(out).xreplace(point)
            except Exception:
                continue
            if not (direct.is_number and rewritten.is_number):
                continue
            bad = {sp.nan, sp.zoo, sp.oo, -sp.oo}
            if direct.has(*bad) or rewritten.has(*bad):
                if direct.has(*bad) != rewritten.has(*bad):
                    return None
                continue
            try:
                differ = values_differ(direct, rewritten)
            except Exception:
                continue
            if differ:
                return None
        return out

    eval._infonce_repaired = True
    return classmethod(eval)


CHECKED_EVAL = tuple(getattr(sp, name) for name in (
    "sinc", "mobius", "jn", "yn", "besselj", "bessely", "besseli", "besselk", "hankel1", "hankel2", "legendre",
    "assoc_legendre", "jacobi", "gegenbauer", "chebyshevt", "chebyshevu", "hermite", "hermite_prob", "laguerre",
    "assoc_laguerre", "totient", "reduced_totient", "primenu", "primeomega", "divisor_sigma", "harmonic", "bernoulli",
    "euler", "bell", "catalan", "fibonacci", "lucas", "genocchi", "partition", "subfactorial", "factorial2",
    "RisingFactorial", "FallingFactorial", "zeta", "dirichlet_eta", "polylog", "lerchphi", "expint", "lowergamma",
    "uppergamma", "elliptic_k", "elliptic_e", "beta",
    # polygamma(m, 1) built as (-1)^(m+1) m! zeta(m + 1): zoo at m = 0, where it is -EulerGamma (a 37th probe)
    "polygamma",
    # Mod(-x, 2x) built as -x for an integer x (Mod(-1, 2) = 1); binomial(x, x/2) as zoo for a negative integer x
    # (binomial(-2, -1) = 0); jacobi_symbol(x, x) as 0 (1 at x = 1); periodic_argument, principal_branch, elliptic_f,
    # elliptic_pi and marcumq by forms wrong at a point (a battery of built forms against values, a 38th probe)
    "Mod", "binomial", "jacobi_symbol", "legendre_symbol", "kronecker_symbol", "periodic_argument", "principal_branch",
    "elliptic_f", "elliptic_pi", "marcumq"))


def _imaginary_part_zero_where_finite(function):
    """im's ``eval``, its 0 kept for an argument with symbols only where the argument is known finite: im(1/x), im(tan x)
    and im(log(x^2)) were built as 0 for a real x, though im(zoo) is nan at x = 0 (a 56th probe, Dec 2026).  (Not by
    _checked_eval: its points are found by solve, which builds im again.)"""
    sympys = function.eval.__func__

    def eval(cls, arg):
        out = sympys(cls, arg)
        if out is not None and out.is_zero and arg.free_symbols and arg.is_finite is not True:
            return None
        return out

    eval._infonce_repaired = True
    return classmethod(eval)


def _genocchi_parity(fact):
    """genocchi(n)'s parity as SymPy gives it (G_0 and G_n for odd n > 1 are 0, even; G_1 and G_n for even n >= 2 odd),
    for an n of known parity only: SymPy took the odd-n rule wherever n was not known even, and genocchi(m + 2) was
    called even, though G_2 = -1 (a 56th probe, Dec 2026)."""
    def handler(self):
        if len(self.args) > 1 and self.args[1] != 1:
            return None
        n = self.args[0]
        if not (n.is_integer and n.is_nonnegative):
            return None
        if n.is_even:
            even = n.is_zero
        elif n.is_odd:
            even = (n - 1).is_positive
        else:
            return None
        return even if fact == "even" else fuzzy_not(even)
    handler.__name__ = f"_genocchi_is_{fact}"
    return handler


# (class, assumption, repaired handler)
REPAIRS = [(sympy_numbers.genocchi, "even", _genocchi_parity("even")),
           (sympy_numbers.genocchi, "odd", _genocchi_parity("odd")),
           (sp.asin, "rational", _rational_unless_at(0)), (sp.atan, "rational", _rational_unless_at(0)),
           (sp.acos, "rational", _rational_unless_at(1)),
           (sp.binomial, "nonnegative", _binomial_is_nonnegative), (sp.binomial, "integer", _binomial_is_integer),
           (sp.Pow, "rational", _pow_is_rational), (sp.Pow, "algebraic", _pow_is_algebraic),
           (sp.Pow, "integer", _pow_is_integer),
           (sp.Pow, "extended_real", _pow_is_extended_real), (sp.Pow, "imaginary", _pow_is_imaginary),
           (sp.Pow, "extended_positive", _pow_is_extended_positive), (sp.Pow, "even", _pow_parity("even")),
           (sp.Pow, "odd", _pow_parity("odd")),
           (sp.re, "algebraic", _part_is_algebraic), (sp.im, "algebraic", _part_is_algebraic),
           (sp.Abs, "algebraic", _part_is_algebraic),
           (sp.tan, "algebraic", _trigonometric_with_poles_is_algebraic(sp.tan._eval_is_algebraic)),
           (sp.cot, "algebraic", _trigonometric_with_poles_is_algebraic(sp.cot._eval_is_algebraic)),
           (sp.sec, "algebraic", _trigonometric_with_poles_is_algebraic(sp.sec._eval_is_algebraic)),
           (sp.csc, "algebraic", _trigonometric_with_poles_is_algebraic(sp.csc._eval_is_algebraic)),
           (sp.tan, "extended_real", _real_where_finite(sp.tan._eval_is_extended_real, sp.tan._eval_is_finite)),
           (sp.cot, "extended_real", _real_where_finite(sp.cot._eval_is_extended_real, sp.cot._eval_is_finite)),
           (sp.sec, "extended_real", _real_where_finite(sp.sec._eval_is_extended_real, sp.sec._eval_is_finite)),
           (sp.csc, "extended_real", _real_where_finite(sp.csc._eval_is_extended_real, sp.csc._eval_is_finite)),
           (sp.acsch, "extended_real", _argument_extended_real_and_nonzero), (sp.frac, "finite", _frac_is_finite),
           (sp.cosh, "positive", _where_argument_finite(sp.cosh._eval_is_positive)),
           (sp.cosh, "nonnegative", _where_argument_finite(sp.cosh._eval_is_nonnegative)),
           (sp.sech, "positive", _where_argument_finite(sp.sech._eval_is_positive)),
           (sp.Max, "positive", _where_arguments_extended_real(sp.Max._eval_is_positive)),
           (sp.Max, "nonnegative", _where_arguments_extended_real(sp.Max._eval_is_nonnegative)),
           (sp.Min, "negative", _where_arguments_extended_real(sp.Min._eval_is_negative)),
           (sp.tanh, "real", _tanh_is_real), (sp.tanh, "finite", _tanh_is_finite), (sp.cosh, "real", _cosh_is_real),
           (sp.fresnels, "zero", _zero_at_zero_only_on_the_real_line),
           (sp.fresnelc, "zero", _zero_at_zero_only_on_the_real_line),
           (sp.erfi, "zero", _zero_at_zero_only_on_the_real_line),
           (sp.erfi, "extended_real", _real_on_the_real_line), (sp.erf2, "extended_real", _real_on_the_real_line),
           (sp.fresnels, "extended_real", _real_on_the_real_line),
           (sp.fresnelc, "extended_real", _real_on_the_real_line),
           (sp.Product, "zero", _product_is_zero), (sp.Product, "extended_nonpositive", _product_is_extended_nonpositive),
           (sp.Mod, "nonnegative", _mod_sign("nonnegative", "positive")),
           (sp.Mod, "nonpositive", _mod_sign("nonpositive", "negative")),
           (sp.polygamma, "positive", _polygamma_is_positive), (sp.polygamma, "negative", _polygamma_is_negative),
           (sp.polygamma, "complex", _polygamma_is_complex), (sp.beta, "real", _beta_is_real),
           (sp.exp, "extended_positive", _exp_is_extended_positive), (sp.exp, "zero", _exp_is_zero),
           (sp.LambertW, "finite", _lambertw_is_finite), (sp.LambertW, "extended_real", _lambertw_is_extended_real),
           (FresnelIntegral, "finite", _fresnel_is_finite), (sp.log, "finite", _log_is_finite),
           (sp.zeta, "finite", _zeta_is_finite), (sp.Mul, "integer", _mul_is_integer),
           (RisingFactorial, "integer", _factorial_power_is_integer),
           (FallingFactorial, "integer", _factorial_power_is_integer), (sp.Integral, "zero", _integral_is_zero),
           (sp.frac, "real", _frac_is_real), (sp.frac, "imaginary", _frac_is_imaginary),
           (sp.frac, "integer", _frac_is_zero_or_integer), (sp.frac, "zero", _frac_is_zero_or_integer),
           (sp.floor, "real", _rounding_is_real_or_integer), (sp.floor, "integer", _rounding_is_real_or_integer),
           (sp.ceiling, "real", _rounding_is_real_or_integer),
           (sp.ceiling, "integer", _rounding_is_real_or_integer),
           (sp.floor, "negative", _rounding_sign("negative")), (sp.floor, "nonnegative", _rounding_sign("nonnegative")),
           (sp.ceiling, "positive", _rounding_sign("positive")),
           (sp.ceiling, "nonpositive", _rounding_sign("nonpositive")),
           (sp.atan2, "extended_real", _atan2_is_extended_real),
           (sp.Mul, "extended_real", _mul_is_extended_real), (sp.Mul, "imaginary", _mul_is_imaginary),
           (sp.Sum, "extended_real", _limits_is_extended_real), (sp.Product, "extended_real", _limits_is_extended_real)]
# functions whose construction rewrote f(-x) to -f(x) though f(0) != 0
ODD_AWAY_FROM_ZERO = (sp.acot, sp.acoth)


# SymPy's own, kept for the test that compares the two
SYMPY_FREE_SYMBOLS = ExprWithLimits.free_symbols.fget


def _free_symbols(self):
    """SymPy 1.14's ExprWithLimits.free_symbols, its xreplace given only the indices it masks."""
    function, limits = self.function, self.limits
    reps = {xab[0]: xab[0] if xab[0].free_symbols == {xab[0]} else sp.Dummy() for xab in limits}
    masked = {old: new for old, new in reps.items() if new is not old}
    isyms = (function.xreplace(masked) if masked else function).free_symbols
    for xab in limits:
        v = reps[xab[0]]
        if len(xab) == 1:
            isyms.add(v)
            continue
        isyms.discard(v)
        for bound in xab[1:]:
            isyms.update(bound.free_symbols)
    back = {new: old for old, new in reps.items()}
    return {back.get(s_, s_) for s_ in isyms}


_free_symbols._infonce_repaired = True


def apply():
    """Install the repairs (idempotent).  Called when the checker is imported, before any expression is asked."""
    for cls, fact, repaired in REPAIRS:
        name = f"_eval_is_{fact}"
        wrong = getattr(cls, name)
        if wrong is repaired:
            continue
        setattr(cls, name, repaired)
        # SymPy reads the handlers into each class's _prop_handler when the class is made (the class and any
        # subclass that inherited the wrong one)
        stack = [cls]
        while stack:
            sub = stack.pop()
            if sub._prop_handler.get(fact) is wrong:
                sub._prop_handler[fact] = repaired
            stack.extend(sub.__subclasses__())
    for cls, condition, every_fact in DOMAIN_CONDITIONS:
        _conditional_class_facts(cls, condition, every_fact)
    for function in ODD_AWAY_FROM_ZERO:
        if not getattr(function.eval, "_infonce_repaired", False):
            function.eval = _odd_away_from_zero(function)
    if not getattr(sp.legendre.eval, "_infonce_reflection", False) and not getattr(sp.legendre.eval, "_infonce_repaired",
                                                                                  False):
        sp.legendre.eval = _legendre_reflected_for_nonnegative_degrees(sp.legendre)
    for function in CHECKED_EVAL:
        if not getattr(function.eval, "_infonce_repaired", False):
            function.eval = _checked_eval(function)
    if not getattr(sp.im.eval, "_infonce_repaired", False):
        sp.im.eval = _imaginary_part_zero_where_finite(sp.im)
    sympy_evalf = importlib.import_module("sympy.core.evalf")
    if not sympy_evalf.evalf_table:
        sympy_evalf._create_evalf_table()
    if not getattr(sympy_evalf.evalf_table[sp.Integral], "_infonce_repaired", False):
        sympy_evalf.evalf_table[sp.Integral] = _integral_evalf_capped(sympy_evalf.evalf_table[sp.Integral],
                                                                         sympy_evalf.complex_accuracy)
    if not getattr(ExprWithLimits.free_symbols.fget, "_infonce_repaired", False):
        ExprWithLimits.free_symbols = property(_free_symbols, doc=ExprWithLimits.free_symbols.__doc__)
