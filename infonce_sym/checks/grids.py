"""Grids of exact values: every (model, tau, k) point of a grid, computed in parallel through any
``concurrent.futures.Executor``. The grids themselves (quick and full) are part of the verify plan
(``app.verify``)."""
from __future__ import annotations

import time
from dataclasses import dataclass

from ..models import SphereModel, example_a2, nonreversible_model
from ..quantities.exact import exact_values

__all__ = ["Grid", "ModelSpec", "make_model", "grid_point", "exact_grid"]


@dataclass(frozen=True)
class ModelSpec:
    """A grid model as data (picklable, so that work units can be sent to other processes):
    ``kind`` in {"sphere", "nonreversible", "example-a2"} with its parameters."""
    kind: str
    params: tuple = ()

    @property
    def name(self) -> str:
        p = dict(self.params)
        if self.kind == "sphere":
            return f"sphere(d={p['dim']}, kappa={p['kappa']:g})"
        if self.kind == "nonreversible":
            return "finite(nonreversible, N=4)"
        return f"example-a2(delta={p['delta']:g}, mixing={p['mixing']:g})".replace("mixing=0.5", "mixing=1/2")


def make_model(spec: ModelSpec, tau):
    """The model of ``spec`` at ``tau``; None where the model does not exist at this tau
    (example A.2 needs e^{1/tau} > 2 and at most a few hundred points)."""
    p = dict(spec.params)
    if spec.kind == "sphere":
        return SphereModel(p["dim"], p["kappa"])
    if spec.kind == "nonreversible":
        return nonreversible_model()
    if spec.kind == "example-a2":
        try:
            return example_a2(tau, delta=p["delta"], mixing=p["mixing"])
        except Exception:
            return None
    raise ValueError(f"unknown model kind {spec.kind!r}")


@dataclass(frozen=True)
class Grid:
    taus: tuple
    ks: tuple
    models: tuple            # ModelSpec, ...
    digits: int = 15


def grid_point(job):
    """Exact gaps at one (model, tau, k): a row of floats for the checks (None if no model)."""
    spec, tau, k, digits = job
    model = make_model(spec, tau)
    if model is None:
        return None
    t0 = time.perf_counter()
    try:
        ev = exact_values(model, tau, k, digits=digits)
    except ArithmeticError:
        # the precision check failed: retry with more digits (finer rules, higher precision)
        ev = exact_values(model, tau, k, digits=digits + 10)
    f = float
    row = {"model": spec.name, "tau": tau, "k": k, "seconds": time.perf_counter() - t0,
           "agreement_digits": ev.agreement_digits,
           "info_gap": f(ev.gaps["cross_entropy_limit_minus_risk"]),
           "dcl_gap": f(ev.gaps["cross_entropy_limit_minus_risk"] + ev.gaps["infonce_minus_dcl_risk"]),
           "cross_entropy_limit": f(ev.values["cross_entropy_limit"])}
    if "search_minus_dcl_risk" in ev.gaps:
        row["search_minus_dcl"] = f(ev.gaps["search_minus_dcl_risk"])
        row["search_minus_risk"] = f(ev.gaps["search_cross_entropy_minus_risk"])
        row["D2"] = f(ev.values["density_ratio_second_moment"])
    return row


def grid_jobs(grid: Grid):
    return [(spec, tau, k, grid.digits) for spec in grid.models for tau in grid.taus for k in grid.ks]


def exact_grid(grid: Grid, executor=None, progress=None):
    """Exact gaps on every point of ``grid``; ``executor.map`` when an executor is given.
    ``progress(done, total)`` is called as points finish."""
    jobs = grid_jobs(grid)
    mapper = executor.map if executor is not None else map
    rows = []
    for i, row in enumerate(mapper(grid_point, jobs)):
        rows.append(row)
        if progress:
            progress(i + 1, len(jobs))
    return [r for r in rows if r is not None]
