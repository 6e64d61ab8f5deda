"""infonce-sym: a symbolic-numeric companion to Whiteley (2026), arXiv:2607.09405."""
from .errors import InputError
from .models import SphereModel, FiniteModel, example_a2, load_finite_model, default_models

__all__ = ["InputError", "SphereModel", "FiniteModel", "example_a2", "load_finite_model",
           "default_models"]
__version__ = "0.1.0"
