"""The numeric check beside P5.chaining (Dudley's integral from UML Lemma 27.4): exact Rademacher
complexities and covering numbers of small finite classes, each against a second route."""
import itertools
import math
import random

import numpy as np
import pytest

from infonce_sym.checks import section4
from infonce_sym.proofs.statement_registry import derivation


def test_the_bound_holds_and_its_parts_match_second_routes():
    r = section4.dudley_chaining_check()
    assert r.verdict == "holds" and r.margin > 0 and r.tightness > 1
    classes = section4._finite_classes()
    for p in r.details["points"]:
        A = classes[p["class"]]
        n = A.shape[1]
        # Rademacher complexity: a plain loop over the sign vectors, and Monte Carlo within 5 standard errors
        exact = sum(max(sum(s * a for s, a in zip(sig, row)) for row in A) for sig in itertools.product((-1, 1), repeat=n))
        assert p["rademacher"] == pytest.approx(exact / 2 ** n / n, rel=1e-12)
        rng = np.random.default_rng(1)
        sig = rng.choice((-1.0, 1.0), size=(20000, n))
        draws = (sig @ A.T).max(axis=1) / n
        assert abs(draws.mean() - p["rademacher"]) < 5 * draws.std() / math.sqrt(len(draws))
        # covering numbers: at radius 0 every point is its own centre; at D one centre does
        cover = p["covering_numbers"]
        assert cover[0.0] == len(A) and cover[max(r_ for r_ in cover if r_ <= p["radius_D"])] == 1
        assert all(a >= b for a, b in zip(list(cover.values()), list(cover.values())[1:]))   # non-increasing


def test_covering_numbers_by_brute_force_on_a_line():
    """Points 0, 1, 2, 3 on a line (distance |i - j|): N = 4, 2, 1 at radii 0, 1, 2 (centres 1 and 3, then 1 or 2)."""
    dist = np.abs(np.subtract.outer(np.arange(4.0), np.arange(4.0)))
    radii, counts = section4._covering_numbers(dist)
    assert radii == [0.0, 1.0, 2.0, 3.0] and counts == [4, 2, 1, 1]
    # a random metric: the greedy cover never beats the minimum
    rng = random.Random(3)
    pts = np.array([[rng.random(), rng.random()] for _ in range(7)])
    dist = np.sqrt(((pts[:, None] - pts[None]) ** 2).sum(-1))
    radii, counts = section4._covering_numbers(dist)
    for eps, c in zip(radii, counts):
        left, greedy = set(range(7)), 0
        while left:
            best = max(range(7), key=lambda i: sum(dist[i, j] <= eps for j in left))
            left -= {j for j in left if dist[best, j] <= eps}
            greedy += 1
        assert c <= greedy


def test_a_statement_forty_times_smaller_is_violated(monkeypatch):
    """The check reads the registered statement: shrink it below the exact Rademacher values and it fails."""
    d = derivation("P5.chaining")
    monkeypatch.setattr(d, "statement", d.statement / 40)
    r = section4.dudley_chaining_check()
    assert r.verdict == "violated" and r.margin < 0
