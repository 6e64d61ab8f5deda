"""Prop. 5 against a certified Monte Carlo estimate of the empirical Rademacher complexity.

The estimate is ``quantities.rademacher.rademacher_estimate``; the bounds are the proved
statements of ``proofs.statements`` (Prop. 5 as stated, with the sharpened Lemma 1, and the
Lipschitz route (18))."""
from __future__ import annotations

import math
import time

from ..proofs.statement_registry import statement
from ..proofs.statements import lipschitz_constants, rademacher_bound_from_L
from ..quantities.rademacher import rademacher_estimate

__all__ = ["rademacher_experiment", "rademacher_sweep"]


def rademacher_experiment(data="gaussian", dim_in=2, m=1, n=50, k=16, tau=0.5, radius=1.0, samples=100,
                          seed=0, **kw):
    """``rademacher_estimate`` plus the bounds ``bound_prop5`` (the registered P5, as stated), ``bound_sharpened``
    (the registered P5.sharp: Prop. 5 with the sharpened Lemma 1, constants [2, 1, e]), ``bound_lipschitz_route`` (the
    registered P5.lip: Prop. 5 with Lemma 1 by the Lipschitz route (17)-(18), L = (sqrt 6/tau) C_Phi B_max), and two
    numerical evaluations that no registered statement gives: ``bound_sharpened_exact`` (the sharpened L with the exact
    Dudley integral and the exact loss range in place of the closed form) and ``bound_lipschitz_route_exact`` (the (18)
    route's L, exact integral); with ``B_tau``, ``B_max``, ``a`` and the Lipschitz constants."""
    out = rademacher_estimate(data=data, dim_in=dim_in, m=m, n=n, k=k, tau=tau, radius=radius,
                              samples=samples, seed=seed, **kw)
    za, zp, zn = out.pop("tuples")
    tau, n, k, C, dT = out["tau"], out["n"], out["k"], out["C_Phi"], out["d_Theta"]
    lc = lipschitz_constants(za, zp, zn, tau, C)
    a = math.e * radius * lc["B_tau"] * C
    a_lip = tau * radius * lc["L"]["lipschitz_route"] / 4          # a = tau R L / 4 (proof of Prop. 5)
    out.update({
        "bound_prop5": float(statement("P5").evaluate("numpy", tau=tau, d_Theta=dT, n=n, B_tau=lc["B_tau"],
                                                      C_Phi=C, R=radius)),
        "bound_sharpened": float(statement("P5.sharp").evaluate("numpy", tau=tau, d_Theta=dT, n=n, C_Phi=C, R=radius,
                                                                Ra=lc["Ra"], Rp=lc["Rp"], Nn=lc["Nn"])),
        # the sharpened L through the exact Dudley integral and loss range: numbers, not a registered statement
        "bound_sharpened_exact": rademacher_bound_from_L(lc["L"]["lemma1_sharp"], radius, dT, n, tau, k_=k,
                                                         exact_integral=True, exact_range=True),
        # Prop. 5 by the Lipschitz route (17)-(18): the registered P5.lip (Lemma 1 by that route: L1.lip)
        "bound_lipschitz_route": float(statement("P5.lip").evaluate("numpy", tau=tau, d_Theta=dT, n=n, R=radius,
                                                                    C_Phi=C, B_max=lc["B_max"])),
        "bound_lipschitz_route_exact": rademacher_bound_from_L(lc["L"]["lipschitz_route"], radius, dT, n,
                                                               tau, exact_integral=True),
        "a": a, "a_lipschitz_route": a_lip, "B_tau": lc["B_tau"], "B_max": lc["B_max"],
        "L_lemma1": lc["L"]["lemma1"], "L_sharp": lc["L"]["lemma1_sharp"],
        "statements": "bound_prop5 is the registered P5, bound_sharpened P5.sharp, bound_lipschitz_route P5.lip; "
                      "bound_sharpened_exact and bound_lipschitz_route_exact are numbers that no registered "
                      "statement gives",
    })
    return out


def _sweep_point(args):
    data, tau, k, n, samples, seed, stop_at, kw = args
    if stop_at is not None:          # the sweep's end, as wall-clock time (the units may run on other machines)
        kw = dict(kw, max_seconds=max(0.0, stop_at - time.time()))
    r = rademacher_experiment(data=data, n=n, k=k, tau=tau, samples=samples, seed=seed, **kw)
    return {key: r[key] for key in (
        "data", "tau", "k", "estimate", "stderr", "ci95", "ci95_reliable", "lower_estimate", "bound_prop5", "bound_sharpened",
        "bound_sharpened_exact", "bound_lipschitz_route", "bound_lipschitz_route_exact", "B_tau", "B_max", "certificate", "d_Theta",
        "upper_kind", "lower_kind", "sign_vectors", "backend", "complete", "stopped_at_max_seconds", "seconds")}


def rademacher_sweep(ks=(1, 4, 16, 64, 256, 1024, 4096), taus=(0.05, 0.1, 0.5, 1.0),
                     datas=("gaussian", "student_t"), n=50, samples=100, seed=0, executor=None, stop_at=None,
                     on_point=None, **kw):
    """Rademacher estimate and the three bounds over k, tau and data (list of dicts, in that order).
    Each point is a work unit seeded by ``seed`` alone, so any ``concurrent.futures.Executor``
    (a process pool, a Dask client's ``get_executor()``) gives the same rows as this process.
    ``stop_at`` (a ``time.time()``): every point stops refining then (``rademacher_estimate``'s
    ``max_seconds``; a point that starts later evaluates its level-0 grid only); ``on_point(done)``
    is called as the rows come in, in order."""
    jobs = [(data, tau, k, n, samples, seed, stop_at, kw) for data in datas for tau in taus for k in ks]
    rows = []
    for row in (executor.map if executor is not None else map)(_sweep_point, jobs):
        rows.append(row)
        if on_point is not None:
            on_point(len(rows))
    return rows
