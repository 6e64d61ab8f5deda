"""Quantities: exact values (``exact``), Monte Carlo (``montecarlo``), the loss (``loss``), exact
enumeration (``enumeration``), the certified Rademacher estimate (``rademacher``) and the search
cross-entropy by Monte Carlo on the class of assumption (C) (``search_mc``)."""
