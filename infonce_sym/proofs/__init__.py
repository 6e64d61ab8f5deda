"""Registry of all derivations: :func:`all_derivations`."""
from __future__ import annotations


def all_derivations():
    """Every derivation: Section 3 (with App. A), Section 4, then the companion's expansions."""
    from . import section3, section4
    from . import expansions
    return list(section3.DERIVATIONS) + list(section4.DERIVATIONS) + list(expansions.DERIVATIONS)
