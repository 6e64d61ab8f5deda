"""Checks: a proved statement against a quantity on a model, with a verdict (MATH.md, "Verdicts").
Results and verdicts (``results``), grids of exact values (``grids``), one module per group of
results (``section3``, ``section4``, ``rademacher``, ``theorem1``, ``derivations``) and the numeric
attacks (``attacks``)."""
