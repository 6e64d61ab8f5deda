"""Throughput benchmark: ``python -m infonce_sym.benchmark [--quick]``.

(a) the similarity-law Monte Carlo on the sphere (d = 128, kappa = 16, tau = 0.1),
    k = 4096 and k = 10^6, in negative similarities per second, next to raw
    ``numpy.exp`` on float64 arrays of the MC's batch size measured in the same run;
(b) the naive vector Monte Carlo (normalised Gaussians in R^128) next to it;
(c) timings of ``infonce_sym.exact.exact_values`` if that module is available.
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from ..models import SphereModel, nonreversible_model
from ..quantities.montecarlo import UNIT, SimilaritySampler, monte_carlo, naive_vector_monte_carlo

__all__ = ["main", "exp_throughput"]


def exp_throughput(size: int, total: int) -> float:
    """numpy.exp elements per second on a float64 array of ``size``, ~``total`` elements, best of 3."""
    x = np.random.default_rng(0).uniform(-10.0, 0.0, size)
    y = np.empty_like(x)
    reps = max(1, total // size)
    np.exp(x, out=y)
    best = float("inf")
    for _ in range(3):                       # best of 3: the machine may be shared
        start = time.perf_counter()
        for _ in range(reps):
            np.exp(x, out=y)
        best = min(best, time.perf_counter() - start)
    return reps * size / best


def _timed(fn, *args, repeat: int = 1, **kw):
    """Result and the best wall-clock time of ``repeat`` runs (the machine may be shared)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn(*args, **kw)
        best = min(best, time.perf_counter() - start)
    return out, best


def _fmt_rate(x: float) -> str:
    return f"{x / 1e6:9.1f} M/s"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="infonce-sym bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (a few seconds)")
    args = parser.parse_args(argv)
    quick = args.quick
    model, tau = SphereModel(128, 16.0), 0.1
    print(f"infonce-sym benchmark  model={model.label} tau={tau:g}  numpy {np.__version__}")
    print("(a) similarity-law Monte Carlo, negatives per second, best of 3 "
          "(all four quantities | risk only, search=False)")
    cases = [(4096, 200 if quick else 2000), (10**6, 2 if quick else 16)]
    monte_carlo(model, tau, 64, 2, seed=0)   # warm-up: sampler tables, Bessel constants
    ours = {}
    for k, samples in cases:
        batch = min(UNIT, k * max(1, UNIT // k))
        exp_rate = exp_throughput(batch, samples * k)
        r, t_full = _timed(monte_carlo, model, tau, k, samples, seed=1, repeat=3)
        _, t_risk = _timed(monte_carlo, model, tau, k, samples, seed=1, search=False, repeat=3)
        full, risk_only = samples * k / t_full, samples * k / t_risk
        ours[k] = full
        est = r["risk"]
        print(f"  k={k:>8} tuples={samples:>5}: MC {_fmt_rate(full)} | {_fmt_rate(risk_only)}   "
              f"numpy.exp (float64[{batch}]) {_fmt_rate(exp_rate)}   "
              f"ratio {full / exp_rate:.3f} | {risk_only / exp_rate:.3f}   "
              f"R = {est['estimate']:.5f} +- {est['stderr']:.5f}")
    n = 1 << 20
    smp, rng, buf = SimilaritySampler(model.dim), np.random.default_rng(0), np.empty(n)
    a = (model.dim - 1) / 2
    _, t_zig = _timed(smp.draw, rng, n, out=buf, repeat=3)
    _, t_beta = _timed(rng.beta, a, a, n, repeat=3)
    print(f"  sampling s alone (the bottleneck): ziggurat {_fmt_rate(n / t_zig)}   "
          f"2*Generator.beta-1 {_fmt_rate(n / t_beta)}   numpy.random raw uniform "
          f"{_fmt_rate(n / _timed(rng.random, out=buf, repeat=3)[1])}")
    print("(b) naive vector Monte Carlo (normalised Gaussians in R^128), k = 4096")
    samples = 2 if quick else 20
    _, t_naive = _timed(naive_vector_monte_carlo, model, tau, 4096, samples, seed=1, repeat=1 if quick else 2)
    naive = samples * 4096 / t_naive
    print(f"  naive {_fmt_rate(naive)}   similarity-law {_fmt_rate(ours[4096])}   "
          f"speed-up x{ours[4096] / naive:.0f}")
    print("(c) exact values (infonce_sym.exact.exact_values, digits=30)")
    try:
        from ..quantities.exact import exact_values
    except ImportError:
        print("  exact: not available")
    else:
        # the target: about one second per value at 30 digits on the sphere
        # (d up to 1024, tau down to 0.01, k up to 10^9), precision check included
        exact_cases = [(SphereModel(1024, 16.0), 0.01, 10**9), (SphereModel(1024, 16.0), 0.01, 1),
                       (SphereModel(3, 4.0), 0.5, 10), (SphereModel(3, 4.0), 0.05, 10),
                       (SphereModel(128, 16.0), 0.1, 10**6)]
        if not quick:
            exact_cases += [(nonreversible_model(), 0.5, 2), (SphereModel(3, 4.0), 0.5, 1),
                            (SphereModel(3, 4.0), 0.5, 10**9), (SphereModel(128, 16.0), 0.1, 1),
                            (SphereModel(3, 4.0), 0.01, 10**9)]
        for m, t, k in exact_cases:
            try:
                cpu = time.process_time()
                res, secs = _timed(exact_values, m, t, k, digits=30)
                cpu = time.process_time() - cpu
            except Exception as exc:  # report and go on: the benchmark must not die on one case
                print(f"  {m.label} tau={t:g} k={k}: failed ({type(exc).__name__}: {exc})")
                continue
            risk = res.as_strings().get("risk")
            print(f"  {m.label:<26} tau={t:<5g} k={k:<10d}: {secs:6.2f} s wall {cpu:6.2f} s CPU   "
                  f"R = {risk}  (unchanged to {res.agreement_digits:.1f} digits at higher precision)")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
