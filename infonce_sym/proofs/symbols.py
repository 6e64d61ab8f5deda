"""The one symbol universe: the parameters both sections (and the expansions) share.

A symbol's class says what it is (:class:`~infonce_sym.proofs.chain.Parameter`: constant under
both expectations; ``NegativeVariable`` / ``NegativeFamily``: random under ``Ex``), so Section 4
instantiates Section 3 results with these very objects (Theorem 1 cites Prop. 2 in ``k``, ``tau``,
``D2``), never by equal names.
"""
from __future__ import annotations

from .chain import parameter

__all__ = ["tau", "k", "D2"]

tau = parameter("tau", r"\tau", positive=True)                     # temperature
k = parameter("k", positive=True, integer=True)                    # number of negatives
D2 = parameter("D2", r"\mathbb{E}\left|\frac{dM(Z,\cdot)}{d\pi}(Z')\right|^2", positive=True)   # assumption (B)
