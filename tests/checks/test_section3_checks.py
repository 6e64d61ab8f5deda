"""The Section 3 numeric checks read the registered statements, so a changed statement changes them
(a probe, Dec 2026: the Q-bounds check compared with a typed 2/tau and Lemma 3's with a typed 4 D2/m,
and both still 'held' after the registered statements were made false)."""
import sympy as sp

from infonce_sym.checks import section3 as checks
from infonce_sym.proofs import section3
from infonce_sym.proofs.statement_registry import statement


class _Scaled:
    """A registered statement with its exponent's 2/tau replaced by 1/(2 tau)."""
    def __init__(self, real):
        self.real = real

    def evaluate(self, context, **values):
        tau = next(s for s in self.real.symbols if s.name == "tau")
        expr = self.real.expr.subs(sp.exp(2 / tau), sp.exp(1 / (2 * tau))).subs(sp.exp(-2 / tau), sp.exp(-1 / (2 * tau)))
        return sp.lambdify(self.real.symbols, expr, "mpmath")(*[values[s.name] for s in self.real.symbols])


def test_q_bounds_check_follows_the_registered_statements(monkeypatch):
    """Held with the registered e^{+-2/tau}: margin 0.2456 (max |log dQ/dpi| = 0.754 (2/tau)); with the
    statements' exponents quartered (e^{+-1/(2 tau)}) the same values violate them."""
    taus = (0.5, 1.0, 2.0)
    held = checks.q_bounds_check(taus)
    assert held.verdict == "holds" and abs(held.margin - 0.24555) < 1e-4
    monkeypatch.setattr(checks, "statement", lambda rid: _Scaled(statement(rid)))
    broken = checks.q_bounds_check(taus)
    assert broken.verdict == "violated" and broken.margin < -1


def test_lemma3_numeric_statement_is_the_registered_one():
    """Lemma 3's numeric bound is the registry's statement (4 D2/m in the numeric symbols), not a typed twin."""
    assert section3._statements()["L3"]["upper"] == statement("L3").expr
