"""Repairs of SymPy: wrong answers of its assumption system that the proof checker would otherwise trust, and one cost.

SymPy 1.14 says asin(x), atan(x) and acos(x) are irrational for every rational x (``_eval_is_rational``), forgetting
asin(0) = atan(0) = acos(1) = 0.  From that it deduces atan(m) != 0, and atan(m) > 0 for an integer m >= 0, and the
checker's NonNegative proved atan(m) > 0, false at m = 0 (a 32nd probe, Dec 2026).  The repairs below make the
exception explicit, as SymPy's own sin does (``fuzzy_not(arg.is_zero)``): a rational argument that may be the
exception leaves the question open (None), which is only ever a loss of what SymPy can decide, never a new fact.
``tests/proofs/test_checker_soundness.py`` compares every fact SymPy decides of a one-argument function at a
declared symbol with the function's values at admissible numbers, so a new SymPy with a new wrong answer shows there.

The cost: ``ExprWithLimits.free_symbols`` (of Sum, Product, Integral) masks each index by ``xreplace({i: i})``, and
xreplace reports a symbol mapped to itself as a change, so it rebuilds every Sum above the index, and each rebuild asks
the free symbols of the sums inside again: nested sums (P4's loss along the path) took about a sixth of the checker's
time there.  The repair drops the identity entries before the xreplace; the set returned is the same.
"""
from __future__ import annotations

import sympy as sp
from sympy.concrete.expr_with_limits import ExprWithLimits
from sympy.core.logic import fuzzy_not


def _rational_unless_at(exception):
    """``_eval_is_rational`` of an inverse trigonometric function that is 0 (rational) at ``exception`` only."""

    def _eval_is_rational(self):
        s = self.func(*self.args)
        if s.func != self.func:
            return s.is_rational
        arg = s.args[0]
        if arg.is_rational and fuzzy_not((arg - exception).is_zero):
            return False
        return None

    return _eval_is_rational


REPAIRED = {sp.asin: 0, sp.atan: 0, sp.acos: 1}


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
    for function, exception in REPAIRED.items():
        if getattr(function._eval_is_rational, "_infonce_repaired", False):
            continue
        wrong, repaired = function._eval_is_rational, _rational_unless_at(exception)
        repaired._infonce_repaired = True
        function._eval_is_rational = repaired
        # SymPy reads the handlers into each class's _prop_handler when the class is made (the class and any
        # subclass that inherited the wrong one)
        stack = [function]
        while stack:
            cls = stack.pop()
            if cls._prop_handler.get("rational") is wrong:
                cls._prop_handler["rational"] = repaired
            stack.extend(cls.__subclasses__())
    if not getattr(ExprWithLimits.free_symbols.fget, "_infonce_repaired", False):
        ExprWithLimits.free_symbols = property(_free_symbols, doc=ExprWithLimits.free_symbols.__doc__)
