"""Section 4 derivations (to be filled in by the Section 4 authors)."""
DERIVATIONS = []
