"""Models: what the data are (the sphere with von Mises-Fisher positives, finite models, the
example of App. A.2, the Fourier class of assumption (C)) and their quadrature rules."""
from .laws import (AnchorLaw, FiniteModel, SphereModel, default_models, example_a2, load_finite_model,
                   log_partition, nonreversible_model)

__all__ = ["AnchorLaw", "SphereModel", "FiniteModel", "example_a2", "load_finite_model",
           "default_models", "nonreversible_model", "log_partition"]
