"""Proofs: the chain framework (``chain``), the standard lemmas (``lemmas``), one module per paper
section (``section3``, ``section4``), the expansions, the errata, rendering, and the registry:
``registry()`` (the ids), ``derivation(id)`` and ``statement(id)`` (the proved bound as data with
numpy / mpmath / interval evaluators)."""
from __future__ import annotations


def all_derivations():
    """Every derivation: Section 3 (with App. A), Section 4, then the companion's expansions."""
    from . import expansions, section3, section4
    return list(section3.DERIVATIONS) + list(section4.DERIVATIONS) + list(expansions.DERIVATIONS)


def registry():
    from .statement_registry import registry as _registry
    return _registry()


def derivation(id):
    from .statement_registry import derivation as _derivation
    return _derivation(id)


def statement(id):
    from .statement_registry import statement as _statement
    return _statement(id)
