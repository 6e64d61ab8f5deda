"""The verify plan: every check with its quick and full sizes, in one place, and the runner.

``run(mode, executor=None)`` re-runs every check of ``PLANS[mode]``; the exact grid (the costly
part) goes through ``executor.map`` -- any ``concurrent.futures.Executor``: a local process pool
by default (``default_executor``), or a Dask client's ``get_executor()``."""
from __future__ import annotations

import functools
import multiprocessing
import signal
import threading
import time
from concurrent.futures import ProcessPoolExecutor

from ..checks import derivations as derivation_checks
from ..checks import section3, section4
from ..checks.grids import Grid, ModelSpec, grid_jobs, grid_point
from ..errors import InputError, shown
from ..models import SphereModel, nonreversible_model

__all__ = ["PLANS", "run", "work_units", "default_executor", "dask_executor"]


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
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=IGNORE_INTERRUPT)


# In a worker: Ctrl-C is the parent's to handle (one line, exit 130), not a traceback per worker.  A
# partial of signal.signal, not a function of this module: unpickling it in a fresh worker imports
# nothing heavy (this module imports the checks and SymPy: 0.9 s, which left the worker open to
# Ctrl-C, and the parent ignoring it, that long)
IGNORE_INTERRUPT = functools.partial(signal.signal, signal.SIGINT, signal.SIG_IGN)


# a scheduler's address: [protocol://]host:port (inproc:// lives inside one process: no use from the command line)
SCHEDULER_PROTOCOLS = ("tcp", "tls", "ws", "wss", "ucx")
# dask's own connect timeout; the whole connection (its handshake included) is abandoned this much later: a
# listener that accepts and never answers held Client(address, timeout="10s") for minutes
SCHEDULER_CONNECT_SECONDS = 10
SCHEDULER_HANDSHAKE_SECONDS = 5


def scheduler_address(text: str) -> str:
    """``--scheduler``'s ADDRESS as protocol://host:port (tcp when no protocol is given), or an InputError.

    >>> scheduler_address("node7:8786")
    'tcp://node7:8786'
    """
    given = text.strip()
    if not given:
        raise InputError("--scheduler", "is empty: give a running dask scheduler's address, e.g. tcp://host:8786")
    protocol, sep, rest = given.partition("://")
    if not sep:
        protocol, rest = "tcp", given
    if protocol not in SCHEDULER_PROTOCOLS:
        raise InputError("--scheduler", f"{shown(given)}: the protocol must be one of {', '.join(SCHEDULER_PROTOCOLS)}")
    host, colon, port = rest.rpartition(":")
    if not (colon and host and port.isdigit() and 1 <= int(port) <= 65535):
        raise InputError("--scheduler", f"{shown(given)} is not host:port with a port in [1, 65535]")
    return f"{protocol}://{rest}"


def dask_executor(address: str):
    """The ``concurrent.futures.Executor`` of a running dask.distributed scheduler at ``address``
    (``pip install "infonce-sym[dask]"``).  Whatever answers there, or fails to within
    SCHEDULER_CONNECT_SECONDS + SCHEDULER_HANDSHAKE_SECONDS, is an InputError naming --scheduler."""
    address = scheduler_address(address)
    try:
        from distributed import Client
    except ImportError:
        raise InputError("--scheduler", "needs dask.distributed: pip install \"infonce-sym[dask]\"") from None
    got = {}

    def connect():
        try:
            got["client"] = Client(address, timeout=f"{SCHEDULER_CONNECT_SECONDS}s")
        except BaseException as exc:        # a server that is not a scheduler can raise anything (MemoryError...)
            got["error"] = exc
    # a daemon thread: a handshake that never ends must not keep the process from exiting
    thread = threading.Thread(target=connect, name="infonce-sym dask connect", daemon=True)
    thread.start()
    thread.join(SCHEDULER_CONNECT_SECONDS + SCHEDULER_HANDSHAKE_SECONDS)
    if thread.is_alive():
        raise InputError("--scheduler", f"no dask scheduler answered at {address} within "
                                        f"{SCHEDULER_CONNECT_SECONDS + SCHEDULER_HANDSHAKE_SECONDS} s")
    if "error" in got:
        exc = got["error"]
        detail = (str(exc).strip().splitlines() or [""])[0][:160]
        raise InputError("--scheduler", f"cannot connect to a dask scheduler at {address} "
                                        f"({type(exc).__name__}{': ' + detail if detail else ''})")
    return got["client"].get_executor()


def _asymptotic(models):
    return section3.asymptotic_check([_ASYMPTOTIC_MODELS[m]() for m in models])


def _expansion_bounds(models):
    return section3.expansion_bounds_check([_ASYMPTOTIC_MODELS[m]() for m in models])


def _derivations(ids):
    """One unit: the derivations ``ids`` in turn, in one process, so that a derivation they cite
    (P4 is cited by L1.50, which Prop. 5 and Theorem 1 cite) is run once (``cited_result``)."""
    from ..proofs.statement_registry import derivation
    return [derivation_checks.derivation_check(derivation(id)) for id in ids]


def citation_groups(ids):
    """``ids`` split into groups, each closed under the citations between results registered by the
    same module (a union-find over those edges), each in the order of ``ids``: one work unit each."""
    from ..proofs.register import derivation, module_of
    from ..proofs.render import cited_derivations
    parent = {i: i for i in ids}

    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i
    for i in ids:
        for st in derivation(i).steps:
            for c in cited_derivations(st.check):
                if c.id in parent and module_of(c.id) == module_of(i):
                    parent[root(c.id)] = root(i)
    groups = {}
    for i in ids:
        groups.setdefault(root(i), []).append(i)
    return list(groups.values())


def _call(task):
    """Run one work unit: (function, args) -> list of CheckResult (or a grid row)."""
    func, args = task
    t0 = time.perf_counter()
    value = func(*args)
    return value, time.perf_counter() - t0


def work_units(mode: str):
    """Every work unit of ``PLANS[mode]``: (stage, function, args), each independent of the others
    and deterministic (every random stream is seeded inside its check), so any executor gives the
    same results. The grid points come first: the grid checks need all of them."""
    from ..proofs.statement_registry import registry
    plan = PLANS[mode]
    s4 = plan["section4"]
    units = [("exact grid", grid_point, (job,)) for job in grid_jobs(plan["grid"])]
    units += [
        ("Lemma 3", section3.lemma3_check, ()),
        ("eq. (8)", section3.q_bounds_check, (plan["q_bounds_taus"],)),
        ("Lemma 2", section3.lemma2_check, (0, plan["lemma2_laws"])),
        ("App. A.2", section3.a2_check, (plan["a2_taus"],)),
        ("1/k expansion", _asymptotic, (plan["asymptotic_models"],)),
        ("1/k expansion", _expansion_bounds, (plan["asymptotic_models"],)),
        ("Monte Carlo", section3.monte_carlo_check, (plan["monte_carlo_samples"],)),
        ("Section 4: continuity", section4.continuity_checks, (s4,)),
        ("Section 4: Lemma 7", section4.lemma7_check, (s4,)),
        ("Section 4: Lemma 1", section4.lemma1_checks, (s4,)),
        ("Section 4: Prop. 5", section4.rademacher_check, (s4,)),
        ("Section 4: Prop. 5", section4.dudley_chaining_check, (s4,)),
        ("Section 4: Theorem 1", section4.theorem1_check, (s4,)),
    ]
    ids = [id for id in registry() if id not in _ALIAS_IDS()]
    units += [("derivations", _derivations, (tuple(group),)) for group in citation_groups(ids)]
    return units


def _ALIAS_IDS():
    from ..proofs.statement_registry import ALIASES
    return set(ALIASES)


def run(mode: str = "quick", executor=None, on_stage=None, progress=None):
    """Every check of ``PLANS[mode]``: (results, grid rows, meta), in the plan's order whatever the
    executor. ``executor``: any ``concurrent.futures.Executor`` (None: this process);
    ``on_stage(name, seconds)``, if given, when a stage's last unit is done (seconds: the units' own
    times, summed); ``progress(stage, done, total)`` after every unit (done and total count all
    units; stage: that of the next unit, the one the run now waits for).  Without them a library call
    prints nothing; the command line shows both as progress."""
    from ..proofs.statement_registry import registry
    if mode not in PLANS:
        raise InputError("mode", f"must be one of {sorted(PLANS)}, got {mode!r}")
    started = time.perf_counter()
    units = work_units(mode)
    tasks = [(func, args) for _, func, args in units]
    outputs = executor.map(_call, tasks) if executor is not None else map(_call, tasks)
    left = {}
    for name, _, _ in units:
        left[name] = left.get(name, 0) + 1
    spent = dict.fromkeys(left, 0.0)
    values = []
    for i, (value, seconds) in enumerate(outputs):
        name = units[i][0]
        values.append(value)
        spent[name] += seconds
        left[name] -= 1
        if left[name] == 0 and on_stage:
            on_stage(name, spent[name])
        if progress:
            # labelled with the stage whose unit is awaited next (the one just finished was reported)
            progress(units[i + 1][0] if i + 1 < len(units) else name, i + 1, len(units))
    n_grid = sum(1 for name, _, _ in units if name == "exact grid")
    rows = [r for r in values[:n_grid] if r is not None]
    grid_results = section3.grid_checks(rows)
    results = []
    for value in values[n_grid:]:
        results += value if isinstance(value, list) else [value]
    order = {f"derivation:{id}": i for i, id in enumerate(registry())}   # the groups back in the paper's order
    first = next((i for i, r in enumerate(results) if r.id in order), len(results))
    results[first:] = sorted(results[first:], key=lambda r: order.get(r.id, len(order)))
    for r in grid_results + results[:1]:          # the grid checks and Lemma 3 (per law) carry the grid
        r.details["grid"] = mode
    results = grid_results + results
    differ = sum(not r.ok for r in results)
    meta = {"mode": mode, "checks": len(results), "differ": differ,
            "seconds": round(time.perf_counter() - started, 1), "grid_points": len(rows),
            "stage_seconds": {k: round(v, 1) for k, v in spent.items()}}
    return results, rows, meta
