"""The verify plan: every check with its quick and full sizes, in one place, and the runner.

``run(mode, executor=None)`` re-runs every check of ``PLANS[mode]``; the exact grid (the costly
part) goes through ``executor.map`` -- any ``concurrent.futures.Executor``: a local process pool
by default (``default_executor``), or a Dask client's ``get_executor()``."""
from __future__ import annotations

import multiprocessing
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from ..checks import derivations as derivation_checks
from ..checks import section3, section4
from ..checks.grids import Grid, ModelSpec, exact_grid
from ..models import SphereModel, nonreversible_model

__all__ = ["PLANS", "run", "default_executor"]


def _sphere(dim, kappa):
    return ModelSpec("sphere", (("dim", dim), ("kappa", kappa)))


_NONREVERSIBLE = ModelSpec("nonreversible")
_A2 = ModelSpec("example-a2", (("delta", 0.0), ("mixing", 0.5)))

PLANS = {
    "quick": {
        "grid": Grid(taus=(0.5, 1.0), ks=(1, 10, 1_000_000), models=(_sphere(3, 4.0), _NONREVERSIBLE, _A2)),
        "q_bounds_taus": (0.5, 1.0),
        "lemma2_laws": 10,
        "a2_taus": (0.5,),
        "asymptotic_models": ("nonreversible",),
        "monte_carlo_samples": 20_000,
        "section4": {
            "taus": (0.1, 1.0), "n_configs": 4_000,
            "adversarial": {"taus": 1, "n_starts": 2, "maxiter": 40},
            "lemma1": {"n_pairs": 2_000, "ks": (1, 4), "n_starts": 2, "maxiter": 40},
            "rademacher": {"settings": [("gaussian", 4, 0.5)], "n": 20, "samples": 8, "levels": 3},
            "theorem1": {"n": 100, "repeats": 4, "samples": 1000},
        },
    },
    "full": {
        "grid": Grid(taus=(0.05, 0.1, 0.2, 0.5, 1.0, 2.0), ks=(1, 10, 100, 10_000, 1_000_000),
                     models=(_sphere(3, 4.0), _sphere(16, 8.0), _sphere(128, 16.0), _NONREVERSIBLE, _A2)),
        "q_bounds_taus": (0.05, 0.1, 0.2, 0.5, 1.0, 2.0),
        "lemma2_laws": 40,
        "a2_taus": (0.2, 0.5, 1.0),
        "asymptotic_models": ("nonreversible", "sphere3"),
        "monte_carlo_samples": 200_000,
        "section4": {
            "taus": (0.05, 0.1, 0.5, 1.0, 2.0), "n_configs": 100_000,
            "adversarial": {"taus": 5, "n_starts": 6, "maxiter": 150},
            "lemma1": {"n_pairs": 20_000, "ks": (1, 4, 16), "n_starts": 3, "maxiter": 100},
            "rademacher": {"settings": [("gaussian", k, tau) for k in (1, 16, 64) for tau in (0.5, 1.0)]
                           + [("student_t", k, 1.0) for k in (1, 16, 64)], "n": 50, "samples": 40, "levels": 5},
            "theorem1": {"n": 200, "repeats": 20, "samples": 4000},
        },
    },
}

_ASYMPTOTIC_MODELS = {"nonreversible": nonreversible_model, "sphere3": lambda: SphereModel(3, 4.0)}


def default_executor(workers: int = 2):
    """A local process pool. spawn, not fork: forking a process that holds threads (e.g. a notebook
    kernel's zmq threads in the test suite) can deadlock the children."""
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))


def _log_stage(name, seconds):
    print(f"[verify] {name}: {seconds:.1f}s", file=sys.stderr, flush=True)


def run(mode: str = "quick", executor=None, on_stage=_log_stage, progress=None):
    """Every check of ``PLANS[mode]``: (results, grid rows, meta). ``executor`` runs the exact grid
    (None: in this process); ``on_stage(name, seconds)`` after each stage; ``progress(stage, done,
    total)`` within the exact grid."""
    plan = PLANS[mode]
    started = time.perf_counter()

    def stage(name, func):
        t0 = time.perf_counter()
        value = func()
        if on_stage:
            on_stage(name, time.perf_counter() - t0)
        return value

    grid_progress = (lambda done, total: progress("exact grid", done, total)) if progress else None
    rows = stage("exact grid", lambda: exact_grid(plan["grid"], executor, grid_progress))
    results = section3.grid_checks(rows) + [section3.lemma3_check()]
    for r in results:
        r.details["grid"] = mode
    results.append(stage("eq. (8)", lambda: section3.q_bounds_check(plan["q_bounds_taus"])))
    results.append(stage("Lemma 2", lambda: section3.lemma2_check(laws=plan["lemma2_laws"])))
    results.append(stage("App. A.2", lambda: section3.a2_check(taus=plan["a2_taus"])))
    results.append(stage("1/k expansion", lambda: section3.asymptotic_check(
        [_ASYMPTOTIC_MODELS[m]() for m in plan["asymptotic_models"]])))
    results.append(stage("Monte Carlo", lambda: section3.monte_carlo_check(samples=plan["monte_carlo_samples"])))
    results += stage("Section 4", lambda: section4.section4_checks(plan["section4"]))
    results += stage("derivations", derivation_checks.derivation_checks)
    differ = sum(not r.ok for r in results)
    meta = {"mode": mode, "checks": len(results), "differ": differ,
            "seconds": round(time.perf_counter() - started, 1), "grid_points": len(rows)}
    return results, rows, meta
