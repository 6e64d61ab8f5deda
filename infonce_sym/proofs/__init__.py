"""Proofs: the chain framework (``chain``), the standard lemmas (``lemmas``), the one symbol universe
(``symbols``), one module per paper section (``section3``, ``section4``), the expansions, the errata,
rendering, and the registry (``register``: ``@register("ID")`` and ``cite("ID", params)``):
``registry()`` (the ids), ``derivation(id)`` and ``statement(id)`` (the proved bound as data with
numpy / mpmath / interval evaluators)."""
from __future__ import annotations


def all_derivations():
    """Every registered derivation, in the order of the paper (Section 3 with App. A, Section 4,
    then the companion's expansions)."""
    from .register import derivations
    return derivations()


def registry():
    from .statement_registry import registry as _registry
    return _registry()


def derivation(id):
    from .statement_registry import derivation as _derivation
    return _derivation(id)


def statement(id):
    from .statement_registry import statement as _statement
    return _statement(id)
