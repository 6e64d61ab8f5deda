"""Sweeps through an Executor give the rows of the same sweep run in this process."""
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

from infonce_sym.checks.rademacher import rademacher_sweep


def test_rademacher_sweep_on_a_process_pool_equals_the_local_sweep():
    kw = dict(ks=(1, 4), taus=(1.0,), datas=("gaussian", "student_t"), n=10, samples=4, seed=3)
    local = rademacher_sweep(**kw)
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        remote = rademacher_sweep(executor=pool, **kw)
    strip = lambda rows: [{k: v for k, v in r.items() if k != "seconds"} for r in rows]  # noqa: E731
    assert strip(local) == strip(remote)
    assert [(r["data"], r["k"]) for r in local] == [("gaussian", 1), ("gaussian", 4), ("student_t", 1), ("student_t", 4)]
    assert all(r["lower_estimate"] <= r["estimate"] <= r["bound_sharpened"] for r in local)
