"""The exact route for finite models: anchors built in arb directly from the Gram matrix.

A finite model (``models.laws.FiniteModel``) gives, for each anchor state z with pi(z) > 0,
atoms s_j = <phi(z), phi(z_j)> carrying the negative weight pi(z_j), the positive weight
M(z, z_j) and the density ratio r_j = M(z, z_j)/pi(z_j).  ``exact.py`` turns each anchor into
transforms of these atoms (``exact.Anchor``) and every quantity into outer integrals over c
(MATH.md, "Exact finite-k values"), by the trapezoid rule in y = log c where their range is
short (``exact._trapezoid_integral``: the integrands e^{-kc} - L(c)^k P(c), k c A(c) B(c)^{k-1},
with L, P, A, B finite sums of w_j e^{-c x_j}, are entire in c and bounded in the strip
|Im y| < pi/2).  This module builds those anchors directly from the arb Gram matrix (no mpf
round trip):

* Exactly equal atoms of one anchor (equal similarity and density ratio) are one atom, and
  anchors with equal laws are one anchor (as in App. A.2's symmetric model: one anchor, two atoms).
* Every anchor's atoms are summed by bands (Taylor prefix series below c x = TAYLOR_CUT,
  exponentials shared by the weight vectors above), also below 64 atoms, where ``exact.py`` sums
  directly.

The precision check is that of ``exact.py``: a second pass at CHECK_DIGITS more digits with every
rule refined (the trapezoid's step REFINED times smaller, its grid shifted by half a step), so no
node is shared.
"""
from __future__ import annotations

import math

import flint

from .exact import Anchor, working_digits
from ..models.laws import AnchorLaw

arb = flint.arb

__all__ = ["finite_anchors", "estimated_seconds", "estimated_bytes", "random_sphere_model", "benchmark_exact_finite",
           "SECONDS_PER_ANCHOR", "SECONDS_PER_PAIR", "SECONDS_PER_TAYLOR_PAIR", "REFERENCE_RANGE"]

def finite_anchors(model, tau, terms, big):
    """The anchors of a finite model at the current FLINT precision (``exact.Anchor`` objects
    whose outer integrals run on fixed panels), equal atoms and equal laws merged exactly."""
    pi, M, gram = model.arb_arrays(flint.ctx.prec)
    n = len(pi)
    dominated = model.dominated
    zero = arb(0)
    positive = [not v.is_zero() for v in pi]
    merged = {}
    for i in range(n):
        if not positive[i]:
            continue
        row = [gram[i, j] for j in range(n)]
        Mi = M[i]
        groups = {}
        for j in range(n):
            q = Mi[j]
            if not positive[j] and q.is_zero():
                continue
            ratio = (q / pi[j]) if (dominated and positive[j]) else zero
            key = (row[j].mid().man_exp(), ratio.mid().man_exp() if dominated else None)
            entry = groups.get(key)
            if entry is None:
                groups[key] = [row[j], pi[j] if positive[j] else zero, q, ratio]
            else:
                entry[1] += pi[j] if positive[j] else zero
                entry[2] += q
        keys = sorted(groups, key=lambda key: (groups[key][0].mid(), groups[key][3].mid()))
        entries = [groups[key] for key in keys]
        signature = tuple((key, e[1].mid().man_exp(), e[2].mid().man_exp()) for key, e in zip(keys, entries))
        if signature in merged:
            merged[signature][0] += pi[i]
        else:
            merged[signature] = [pi[i], entries]
    anchors = []
    for weight, entries in merged.values():
        s = tuple(e[0] for e in entries)
        law = AnchorLaw(weight, s, tuple(e[1] for e in entries),
                        tuple(e[3] for e in entries) if dominated else None, s, tuple(e[2] for e in entries))
        anchor = Anchor(law, tau, terms, big)
        # band sums (Taylor prefix series + band exponentials shared by the weight vectors) at
        # every size: exact.py sums up to 64 atoms directly, which for a finite anchor costs each
        # weight vector its own exponentials at every node (2.3x slower at N = 60)
        for atoms in (anchor.negatives, anchor.positives, anchor.ratio):
            if atoms is not None:
                atoms.direct = False
        anchors.append(anchor)
    return anchors


# CPU seconds of the exact route at 30 digits (both passes of the precision check), measured on
# the project machine with ``benchmark_exact_finite`` (random models on S^7), 2026-12-02:
#   tau = 0.5,  k = 8:     N = 30: 1.2 s, N = 120: 9.8 s, N = 250: 43 s, N = 500: 169 s;
#   tau = 0.5,  k = 10^6:  N = 30: 0.8 s, N = 120: 5.4 s, N = 500: 66 s;
#   tau = 0.01, k = 8: N = 30: 9.1 s;  k = 10^6: N = 30: 1.5 s;
# i.e. per anchor about SECONDS_PER_ANCHOR per REFERENCE_RANGE of the outer range in y = log c (its
# series and heads, the Taylor sums at the nodes), plus per (anchor, atom) pair SECONDS_PER_PAIR
# when the atoms reach the band of direct exponentials (c v > 1 within the range) and
# SECONDS_PER_TAYLOR_PAIR (the prefix tables only) when they never do.
SECONDS_PER_ANCHOR = 0.025
REFERENCE_RANGE = 12.0          # the outer range of the tau = 0.5, k = 8 models above
SECONDS_PER_PAIR = 0.6e-3
SECONDS_PER_TAYLOR_PAIR = 0.13e-3


def _outer_range(model, tau: float, k: int, dps: int, rows: int = 64):
    """(range in y = log c of the outer integral, whether atoms reach the band), from float64
    similarities of up to ``rows`` anchors: with v = e^{s/tau}/mu (E_pi v = 1), the rule starts
    at c0 = min(1/(64 v_max), e^-4/k) and the integrand (e^{-kc} - E[e^{-cv}]^k ...) ends once
    E[e^{-cv}]^k < e^-B, B = dps log 10: at c ~ B/k when the pi-mass below 1/c has fallen under
    e^{-B/k}, i.e. c_end ~ (B/k) max(1, 1/v_q) with v_q the e^{1-B/k}-quantile of v."""
    import numpy as np
    pi, _, emb = model.arrays()
    live = np.flatnonzero(pi > 0)
    weights = pi[live]
    big = dps * math.log(10)
    spans, banded = [], False
    for i in live[:: max(1, len(live) // rows)][:rows]:
        log_x = emb[live] @ emb[i] / tau
        top = log_x.max()
        log_v = log_x - (top + math.log(float(np.sum(weights * np.exp(log_x - top)))))
        order = np.argsort(log_v)
        level = min(1.0, math.exp(1 - big / k))
        cumulative = np.cumsum(weights[order])
        q = min(int(np.searchsorted(cumulative, level)), len(order) - 1)
        log_v_max, log_v_q = float(log_v.max()), float(log_v[order[q]])
        y_start = -max(math.log(64) + log_v_max, 4 + math.log(k))
        y_end = math.log(big / k) + max(0.0, -log_v_q)
        spans.append(y_end - y_start)
        banded = banded or y_end + log_v_max > 0
    return float(np.mean(spans)), banded


def _states_and_digits(model, k, digits):
    """(N, the states with pi > 0; the working digits of ``exact_values`` at k): the sizes of the estimates."""
    import numpy as np
    return int(np.count_nonzero(np.asarray(model.pi) > 0)), working_digits(digits, max(int(k), 1))


def estimated_seconds(model, tau, k: int, digits: int) -> float:
    """A rough (within a factor of 2 at the measured points above) estimate of the CPU seconds of ``exact_values`` on a finite model:
    N anchors x N atoms (merging equal states only makes it cheaper), the outer range from the
    float64 similarity laws (``_outer_range``), the node count and the cost of an arb operation
    both growing with the working digits."""
    k = max(int(k), 1)
    states, dps = _states_and_digits(model, k, digits)
    span, banded = _outer_range(model, float(tau), k, dps)
    pair = SECONDS_PER_PAIR if banded else SECONDS_PER_TAYLOR_PAIR
    scale = (dps / 45) ** 1.5
    return scale * (SECONDS_PER_ANCHOR * span / REFERENCE_RANGE * states + pair * states * states)


# Memory of ``exact_values`` on a finite model: every anchor keeps its atoms, weights, suffix sums,
# prefix tables (``PREFIX_STRIDE``) and their polynomials until the values are done, about
# BYTES_PER_PAIR + BYTES_PER_PAIR_DIGIT x (working digits) per (anchor, atom) pair.  Peak RSS growth
# measured on random S^7 models at tau = 0.5 (2026-12-05): N = 120, k = 8: 9.0, 12.1 and 15.5 KB per pair
# at 15, 30 and 60 digits, 8.1 KB at k = 10^6; N = 200: 13.5 KB, N = 320: 12.1 KB at 30 digits.
BYTES_PER_PAIR = 7000
BYTES_PER_PAIR_DIGIT = 150
BYTES_BASE = 100 * 2**20


def estimated_bytes(model, k: int, digits: int) -> int:
    """A rough upper estimate of the memory that ``exact_values`` adds on a finite model (N states with
    pi > 0: N anchors x N atoms, merging equal states only makes it less)."""
    states, dps = _states_and_digits(model, k, digits)
    return int(BYTES_BASE + states * states * (BYTES_PER_PAIR + BYTES_PER_PAIR_DIGIT * dps))


def random_sphere_model(states: int, dim: int = 8, seed: int = 0):
    """A benchmark model: states uniform on S^{dim-1}, pi and M random with all entries > 0
    (numpy Generator seeded with ``seed``), every row normalised in float64."""
    import numpy as np
    from ..models.laws import FiniteModel
    rng = np.random.default_rng(seed)
    emb = rng.standard_normal((states, dim))
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    pi = rng.random(states) + 0.1
    pi /= pi.sum()
    M = rng.random((states, states)) ** 4 + 0.01
    M /= M.sum(axis=1, keepdims=True)
    return FiniteModel(pi, M, emb, description=f"random(N={states}, d={dim}, seed={seed})")


def benchmark_exact_finite(sizes=(30, 120, 500, 2000), ks=(8, 10**6), digits: int = 30, tau: str = "0.5",
                           max_seconds: float = 600.0, out=print):
    """CPU seconds of ``exact_values`` (both passes) on random models of each size, for each k;
    sizes whose estimate exceeds ``max_seconds`` are listed with the estimate, not run."""
    import time
    from .exact import exact_values
    rows = []
    for n in sizes:
        model = None
        for k in ks:
            model = model or random_sphere_model(n)
            estimate = estimated_seconds(model, tau, k, digits)
            row = {"states": n, "k": k, "digits": digits, "tau": tau, "estimated_seconds": estimate}
            if estimate > max_seconds:
                row["status"] = f"not run: estimated {estimate:.3g} s > {max_seconds:g} s"
                out(f"  N={n:5d} k={k:<8d} {row['status']}")
                rows.append(row)
                continue
            start = time.process_time()
            ev = exact_values(model, tau, k, digits=digits)
            row.update(cpu_seconds=time.process_time() - start, agreement_digits=ev.agreement_digits,
                       risk=ev.as_strings()["risk"], status="ok")
            out(f"  N={n:5d} k={k:<8d} {row['cpu_seconds']:8.2f} s CPU (estimate {estimate:.3g})  agreement "
                f"{ev.agreement_digits:.1f} digits  R = {row['risk']}")
            rows.append(row)
    return rows
