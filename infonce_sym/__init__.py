"""infonce-sym: a symbolic-numeric companion to Whiteley (2026), arXiv:2607.09405.

Layers, imported one way: models -> quantities -> proofs -> checks -> app. The names below load
their modules on first use, so that ``import infonce_sym`` (and ``infonce-sym --help``) stays cheap.
"""
import os
from importlib import import_module

# SymPy reads its cache size once, on import; its default (1,000 entries) is too small for the chains'
# assumption queries on large sums and integrals, which are then recomputed (the mutation runs take about
# 20% longer).  Only a default: a value the user set, or a SymPy imported earlier, is left alone.
os.environ.setdefault("SYMPY_CACHE_SIZE", "100000")

__version__ = "0.1.0"

_EXPORTS = {
    "InputError": "infonce_sym.errors",
    "SphereModel": "infonce_sym.models", "FiniteModel": "infonce_sym.models",
    "example_a2": "infonce_sym.models", "load_finite_model": "infonce_sym.models",
    "default_models": "infonce_sym.models", "nonreversible_model": "infonce_sym.models",
    "infonce_loss": "infonce_sym.quantities.loss",
    "exact_values": "infonce_sym.quantities.exact",
    "monte_carlo": "infonce_sym.quantities.montecarlo",
    "registry": "infonce_sym.proofs", "statement": "infonce_sym.proofs",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name in _EXPORTS:
        value = getattr(import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'infonce_sym' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + __all__)
