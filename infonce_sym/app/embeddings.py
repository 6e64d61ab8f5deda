"""``infonce-sym embeddings``: the finite-k bias of a user's own embeddings, assembled.

The quantities (R(k), R~(k), ∫CE, moments, Monte Carlo) come from
:mod:`infonce_sym.quantities.empirical`; this module adds what the paper says about them,
evaluating the registered statements (never retyped): the Prop. 1 bounds on ∫CE - R
(``proofs.section3.bound_function("P1", ...)``), the DCL bounds 0 <= ∫CE - R~ <= min of (11)
and Lemma 4's 2/tau, the exact constants c1, c2 (c1~, c2~) of the 1/k expansion
(``proofs.expansions.expansion_constants``, evaluated per anchor at the anchor's moments and
averaged), and Prop. 4 with the paper's and the sharpened constants
(``proofs.statements.continuity_bound``).  It also writes the Markdown report and the plots.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path

import mpmath
import numpy as np

from ..errors import InputError, naming_the_file
from ..quantities import empirical as emp
from ..quantities.montecarlo import interval_doubt, model_skewness, quantile95
from .cli import RANGES

__all__ = ["analyse", "RowSource", "Streaming", "tables_unit", "mc_unit", "block_rows", "remember", "DEFAULT_MEMORY_LIMIT", "expansion_values", "prop1_bounds", "dcl_bounds", "compare_versions",
           "write_report", "TAU_SWEEP_FACTORS", "GAP_THRESHOLDS", "DEFAULT_KS"]

DEFAULT_KS = (1, 16, 256, 4096, 65536, 10 ** 6)
GAP_THRESHOLDS = (0.1, 0.01, 0.001)
TAU_SWEEP_FACTORS = (0.5, 0.7, 1.0, 1.4, 2.0)
TAU_SWEEP_FACTORS_LARGE = (0.5, 1.0, 2.0)
LARGE = 4e7                     # n * pool above which the DCL tables and the long tau sweep are opt-in
MC_MAX_K = 4096
K_FOR_GAP_MAX_POWER = 39        # the k-for-gap search's doubling grid ends at 2^39


# ------------------------------------------------------------------ the registered statements
_STATEMENTS: dict = {}


def _statement(id, which):
    if (id, which) not in _STATEMENTS:
        _STATEMENTS[(id, which)] = _lambdified(id, which)
    return _STATEMENTS[(id, which)]


# the statements' bounds are evaluated in mpmath at this many digits and rounded to the double: in float64, 2/tau
# rounded before e^{2/tau} cost 2/tau ulps (121 ulps of the P1 upper bound at --logit-scale 4.60517; an embeddings
# probe, Dec 2026)
BOUND_DPS = 30


def _lambdified(id, which):
    from ..proofs.section3 import bound_args, bound_function
    names = [s.name for s in bound_args(id, which)]
    f = bound_function(id, which, module="mpmath")

    def value(**kw):
        with mpmath.workdps(BOUND_DPS):
            return float(f(*[_decimal_mpf(kw[n]) for n in names]))
    return value


def _decimal_mpf(x):
    """A number as the decimal it is written as: a string as typed, a double as its shortest repr (a tau of the
    sweep is a 15-digit decimal), an integer exactly."""
    return mpmath.mpf(x if isinstance(x, str) else repr(float(x)) if isinstance(x, float) else int(x))


def prop1_bounds(k, tau):
    """Prop. 1: -log(1 + e^{2/tau}/k) <= ∫CE - R <= (e^{2/tau} - 1)^2/(8k), each the double nearest the value
    at the decimal tau (a string as typed, or a double read as its shortest repr)."""
    return _statement("P1", "lower")(k=k, tau=tau), _statement("P1", "upper")(k=k, tau=tau)


def dcl_bounds(k, tau):
    """(11) and Lemma 4: 0 <= ∫CE - R~ <= min((e^{2/tau} - 1)^2/(8k), 2/tau), as :func:`prop1_bounds`."""
    upper = min(_statement("DCL-11", "upper")(k=k, tau=tau), _statement("L4", "upper")(tau=tau))
    return _statement("DCL-11", "lower")(), upper


def tau_label(text: str, most: int = 25) -> str:
    """The decimal tau of the JSON for a line of text: as it is up to ``most`` significant digits, else
    rounded to ``most`` and marked with '…' (1/3 from --scale 3 has 80 digits in the JSON)."""
    if len(text.lstrip("0.").replace(".", "")) <= most:
        return text
    with mpmath.workdps(most + 5):
        return mpmath.nstr(mpmath.mpf(text), most, strip_zeros=False) + "…"


def _swept(tau, factor):
    """A tau of the sweep: the double of the decimal tau x factor to 15 digits (0.015 x 0.7 was 0.010499999999999999 in
    the JSON and the text; an embeddings probe, Dec 2026); the tables are computed at the tau shown."""
    return tau if factor == 1.0 else float(f"{tau * factor:.15g}")


# the registered expansion constants read per anchor (EXP.infonce, EXP.dcl)
EXPANSION_NAMES = ("c1", "c2", "c1t", "c2t")


def _anchor_inputs(tab: emp.AnchorTables) -> dict:
    """The per-anchor values of the expansion constants' symbols: the moments m_n = E V^n (V = x/mu - 1) and EW^n = W^n
    (the positive being fixed), in extended precision (W^2 can exceed 1e308)."""
    ld = np.longdouble
    w = np.exp(tab.log_w.astype(ld))
    return {**{k: v.astype(ld) for k, v in tab.moments.items()},
            **{("EW" if n == 1 else f"EW{n}"): w ** n for n in range(1, 7)}}


def _at_anchors(expr, values: dict, rows: int) -> np.ndarray:
    """``expr`` (a SymPy expression in the symbols of ``values``, or a number) at every anchor."""
    import sympy as sp
    syms = sorted(expr.free_symbols, key=lambda s: s.name)
    f = sp.lambdify(syms, expr, modules="numpy")
    return np.asarray(f(*[values[s.name] for s in syms]), dtype=np.longdouble) * np.ones(rows, dtype=np.longdouble)


def expansion_values(tab: emp.AnchorTables) -> dict:
    """c1, c2 (InfoNCE) and c1t, c2t (DCL): the registered per-anchor expressions in the anchor's moments
    (:func:`_anchor_inputs`), averaged over the anchors."""
    from ..proofs.expansions import expansion_constants
    consts, values = expansion_constants(), _anchor_inputs(tab)
    return {name: np.mean(_at_anchors(consts[name], values, tab.log_w.size)) for name in EXPANSION_NAMES}


def expansion_error_bounds(tab: emp.AnchorTables, tau: float, pool_size: int, dim: int) -> dict:
    """Bounds on |c - c_exact| for the c of :func:`expansion_values`, c_exact that of the rows as given: each c is
    a polynomial of degree at most 2 in the per-anchor (EW, EW2, m2, m3), so with their rounding bounds delta
    (:func:`emp.moment_rounding`) an anchor's |f(q + delta) - f(q)| <= sum |grad f| delta + (1/2) sum |H| delta delta;
    plus the evaluation's rounding (16 eps of its terms) and the mean's ((16 + log2 n) eps of its |values|)."""
    import sympy as sp
    from ..proofs.expansions import expansion_constants
    consts, values = expansion_constants(), _anchor_inputs(tab)
    err = emp.moment_rounding(tab.moments, tau, pool_size, dim)
    ld, rows = np.longdouble, tab.log_w.size
    deltas = {"m2": err["m2"].astype(ld), "m3": err["m3"].astype(ld)}
    for n in range(1, 7):
        name = "EW" if n == 1 else f"EW{n}"
        deltas[name] = values[name] * (np.expm1(ld(n * err["log_w"])) + 4 * emp.EPS)
    out = {}
    for name in EXPANSION_NAMES:
        expr = consts[name]
        syms = sorted(expr.free_symbols, key=lambda s: s.name)
        if sp.Poly(expr, *syms).total_degree() > 2:        # the bound below is exact only to degree 2
            raise NotImplementedError(f"{name} is of degree above 2 in {syms}")
        bound = np.zeros(rows, dtype=ld)
        for a in syms:
            bound += np.abs(_at_anchors(sp.diff(expr, a), values, rows)) * deltas[a.name]
            for b in syms:
                bound += np.abs(_at_anchors(sp.diff(expr, a, b), values, rows)) * deltas[a.name] * deltas[b.name] / 2
        bound += 16 * emp.EPS * sum(np.abs(_at_anchors(term, values, rows)) for term in sp.Add.make_args(expr))
        mean_abs = np.mean(np.abs(_at_anchors(expr, values, rows)))
        out[name] = float(np.mean(bound) + (16 + math.log2(max(2, rows))) * emp.EPS * mean_abs)
    return out


def _num(x):
    """A JSON number, or a decimal string when it does not fit a double."""
    if isinstance(x, np.longdouble):
        f = float(x)
        if math.isfinite(f):
            return f
        return np.format_float_scientific(x, precision=17)
    return None if x is None else float(x)


# ------------------------------------------------------------------ where the rows are, and the work units
@dataclass(frozen=True)
class RowSource:
    """The rows of the empirical model, as each work unit reads them: ``files`` holds
    (option, path, key, column) for anchors, positives and (optionally) negatives, read with
    :func:`embeddings_io.load_matrix` (memory-mapped for .npy and .safetensors) inside the unit, so that only paths and
    row ranges travel to a worker; or ``arrays`` (in-process use) in their place. The matrices are raw:
    each unit normalises the rows it uses."""
    files: tuple = ()
    negatives_from: str = "positives"
    exclude_own: bool = False
    arrays: tuple = ()
    rescaled_rows: int = 0

    def open(self):
        """(anchors, positives, pool) as array-likes (memory maps for .npy files)."""
        if self.arrays:
            a, p, *q = self.arrays
        else:
            key = (self.files, self.negatives_from)
            if key not in _OPENED:
                from .embeddings_io import load_matrix
                _OPENED.clear()
                _OPENED[key] = [load_matrix(opt, path, k, col, check=False) for opt, path, k, col in self.files]
            a, p, *q = _OPENED[key]
        pool = q[0] if q else (p if self.negatives_from == "positives" else a)
        return a, p, pool

    def shape(self):
        a, p, pool = self.open()
        return a.shape[0], a.shape[1], pool.shape[0]

    @property
    def pool_name(self):
        return "negatives" if (len(self.files) > 2 or len(self.arrays) > 2) else self.negatives_from

    def including_own(self):
        return RowSource(self.files, self.negatives_from, False, self.arrays, self.rescaled_rows)

    @classmethod
    def from_model(cls, model: emp.EmpiricalPairs):
        arrays = (model.anchors, model.positives) + ((model.pool,) if model.pool_name == "negatives" else ())
        return cls(negatives_from="positives" if model.pool_name == "negatives" else model.pool_name,
                   exclude_own=model.exclude_own, arrays=arrays, rescaled_rows=model.rescaled_rows)


_OPENED: dict = {}                  # per process: the opened files of the last source


def remember(source: RowSource, arrays):
    """Let this process's work units use ``arrays`` (already loaded and checked) for ``source``'s files."""
    _OPENED.clear()
    _OPENED[(source.files, source.negatives_from)] = list(arrays)


def _partials(values):
    return emp.exact_partials(values)


def tables_unit(source: RowSource, start: int, stop: int, taus, main_ks, sweep_ks, with_dcl: bool,
                keep: bool = True, hold: bool = False, sweep_dcl: bool = False):
    """One work unit: anchors start..stop-1, their similarities computed once (the pool read once),
    then for each tau (the first is the main one) the tables and the exact partial sums of the
    per-anchor gaps at each k >= 2 (the DCL gaps too: at the main tau with ``with_dcl``, at the others
    with ``sweep_dcl``); with ``keep`` also the per-anchor vectors of the main tau, with
    ``hold`` its tables too (for the k-for-gap search in the main process)."""
    anchors, positives, pool = source.open()
    pool_size = pool.shape[0] - (1 if source.exclude_own else 0)
    s, p = emp.block_similarities(anchors, positives, pool, start, stop, source.exclude_own)
    res = []
    for i, tau in enumerate(taus):
        dcl = with_dcl if i == 0 else sweep_dcl
        tab = emp.block_tables(s, p, tau, pool_size, dcl)
        r = {"ce": _partials(tab.cross_entropy_terms), "gap1": _partials(tab.gap1),
             "dcl_gap1": _partials(tab.dcl_gap1),
             "gap1_err": _partials(np.abs(tab.gap1) + np.abs(tab.log_w) + 1),
             "dcl_gap1_err": _partials(np.abs(tab.dcl_gap1) + 1),
             "by_k": {k: emp.anchor_gap_sums(tab, k, dcl) for k in (main_ks if i == 0 else sweep_ks) if k >= 2}}
        if keep and i == 0:
            r["log_w"], r["moments"], r["ce_terms"] = tab.log_w, tab.moments, tab.cross_entropy_terms
            if hold:
                r["tables"] = (tab.L, tab.log_phi, tab.log_phi_up)
        res.append(r)
        del tab
    return start, stop, res


def mc_unit(source: RowSource, tau, k, samples, seed, b, loss):
    """One Monte Carlo work unit: block b of the tuples at k (SeedSequence(seed, spawn_key=(k, b)))."""
    anchors, positives, pool = source.open()
    return emp.mc_losses(anchors, positives, pool, source.exclude_own, tau, k, samples, seed, b, loss)


def _map(executor, fn, jobs):
    if executor is None:
        return (fn(*j) for j in jobs)
    return executor.map(fn, *zip(*jobs)) if jobs else iter(())


PARENT_RESERVE = 400 * 2 ** 20      # the main process: Python, NumPy, SymPy (c1, c2), the per-anchor vectors
WORKER_RESERVE = 150 * 2 ** 20      # one worker process: Python, NumPy, the opened files' pages
DEFAULT_MEMORY_LIMIT = 2 * 10 ** 9


def block_rows(n, pool_size, taus, memory_limit=DEFAULT_MEMORY_LIMIT, workers: int = 1, remote: bool = False,
               held: int = 0):
    """Anchors per work unit so that the processes together stay within ``memory_limit`` bytes:
    the main process's reserve, and per worker its reserve and one block (:func:`emp.block_bytes` at the
    smallest tau, whose grid is the longest). ``remote`` (a Dask cluster): the limit is per worker.
    ``held``: bytes the main process keeps (the main tau's tables, when they fit)."""
    vectors = 120 * n + held
    budget = memory_limit - WORKER_RESERVE if remote else \
        (memory_limit - PARENT_RESERVE - vectors - (workers if workers > 1 else 0) * WORKER_RESERVE) / max(1, workers)
    per_row = emp.block_bytes(1, pool_size, min(taus))
    rows = int(budget // per_row)
    if rows < 1:
        # the budget above solved for one row
        need = (WORKER_RESERVE + per_row if remote else
                PARENT_RESERVE + vectors + (workers * (WORKER_RESERVE + per_row) if workers > 1 else per_row)) / 1e6
        where = "per worker" if remote else "in all"
        workers_text = (f" with --workers {workers} (each worker's own reserve is {WORKER_RESERVE / 1e6:.0f} MB; "
                        "fewer workers need less)") if workers > 1 and not remote else ""
        raise InputError("--memory-limit", f"is too small for this model{workers_text}: one block of anchors needs "
                         f"about {need:.0f} MB {where} (pool {pool_size} rows; the processes' own reserve is "
                         f"{(WORKER_RESERVE if remote else PARENT_RESERVE) / 1e6:.0f} MB)")
    return min(n, rows)


class _Sums:
    """Exact partial sums (:func:`emp.exact_partials`) gathered over blocks; ``total(key) / n``."""

    def __init__(self):
        self.parts = {}

    def add(self, key, partials):
        self.parts.setdefault(key, []).extend(partials)

    def mean(self, key, n):
        return math.fsum(self.parts[key]) / n


def _gap_values(sums: _Sums, ks, n, with_dcl):
    """GapValues of one tau from the gathered sums (as :func:`emp.gaps_at` on the whole tables)."""
    gap, dcl, err, derr = (np.zeros(len(ks)) for _ in range(4))
    for a, k in enumerate(ks):
        if k == 1:
            gap[a], dcl[a] = sums.mean("gap1", n), sums.mean("dcl_gap1", n)
            err[a] = 64 * emp.EPS * sums.mean("gap1_err", n)
            derr[a] = err[a] if with_dcl else 64 * emp.EPS * sums.mean("dcl_gap1_err", n)
            continue
        gap[a], err[a] = sums.mean((k, "gap"), n), sums.mean((k, "gap_error"), n)
        if with_dcl:
            dcl[a], derr[a] = sums.mean((k, "dcl"), n), sums.mean((k, "dcl_error"), n)
        else:
            dcl[a] = derr[a] = np.nan
    return emp.GapValues(k=list(ks), gap=gap, dcl_gap=dcl, error=err, dcl_error=derr,
                         cross_entropy_limit=sums.mean("ce", n))


class _Tables:
    """What :func:`expansion_values` and the report need of the main tau's tables (per-anchor vectors)."""

    def __init__(self, n):
        self.log_w = np.empty(n)
        self.cross_entropy_terms = np.empty(n)
        self.moments = {key: np.empty(n) for key in emp.MOMENT_KEYS}

    @property
    def cross_entropy_limit(self) -> float:
        return math.fsum(self.cross_entropy_terms) / self.cross_entropy_terms.size


class Streaming:
    """The row blocks and the executor of one analysis: ``evaluate(taus, ks...)`` is one pass over
    all anchors (each block a work unit; the pool read once per block)."""

    def __init__(self, source: RowSource, executor=None, memory_limit=DEFAULT_MEMORY_LIMIT, workers: int = 1,
                 remote: bool = False, rows: int | None = None, taus=(1.0,), label: str = "in-process",
                 held: int = 0):
        self.source = source
        self.n, self.dim, pool_rows = source.shape()
        self.pool_size = pool_rows - (1 if source.exclude_own else 0)
        self.rows = rows or block_rows(self.n, self.pool_size, taus, memory_limit, workers, remote, held)
        self.executor, self.label, self.memory_limit = executor, label, memory_limit
        self.passes = 0
        self.on_block = None              # on_block(done, total), if set, as a pass's blocks come back

    def blocks(self):
        return [(a, min(self.n, a + self.rows)) for a in range(0, self.n, self.rows)]

    def evaluate(self, taus, main_ks, sweep_ks=(), with_dcl=False, keep=False, source=None, hold=False,
                 sweep_dcl=False):
        """One pass: per tau the gathered sums; with ``keep`` also the main tau's per-anchor vectors
        (with ``hold`` the main tau's whole :class:`emp.AnchorTables` in their place)."""
        src = source or self.source
        self.passes += 1
        jobs = [(src, a, b, tuple(taus), tuple(main_ks), tuple(sweep_ks), with_dcl, keep, hold, sweep_dcl)
                for a, b in self.blocks()]
        sums = [_Sums() for _ in taus]
        tab = _Tables(self.n) if keep else None
        if hold:
            y0, N = emp.grid_size(taus[0], self.pool_size)
            tab.tau, tab.y0, tab.log_c, tab.extras = taus[0], y0, y0 + emp.STEP * np.arange(N), {"with_dcl": with_dcl}
            tab.L, tab.log_phi, tab.log_phi_up = (np.empty((self.n, N)) for _ in range(3))
        for done, (start, stop, res) in enumerate(_map(self.executor, tables_unit, jobs), 1):
            if self.on_block is not None:
                self.on_block(done, len(jobs))
            for acc, r in zip(sums, res):
                for key in ("ce", "gap1", "dcl_gap1", "gap1_err", "dcl_gap1_err"):
                    acc.add(key, r[key])
                for k, parts in r["by_k"].items():
                    for nm, p in parts.items():
                        acc.add((k, nm), p)
            if keep:
                r = res[0]
                tab.log_w[start:stop] = r["log_w"]
                tab.cross_entropy_terms[start:stop] = r["ce_terms"]
                for key in tab.moments:
                    tab.moments[key][start:stop] = r["moments"][key]
                if hold:
                    tab.L[start:stop], tab.log_phi[start:stop], tab.log_phi_up[start:stop] = r["tables"]
        return sums, tab

    def monte_carlo(self, tau, k, samples, seed, loss, ce_terms):
        """The Monte Carlo of :func:`emp.monte_carlo_gap`, one work unit per block of tuples."""
        jobs = [(self.source, tau, k, samples, seed, b, loss) for b in range(emp.mc_block_count(samples))]
        losses, diffs = [], []
        for idx, val in _map(self.executor, mc_unit, jobs):
            losses.append(val)
            diffs.append(ce_terms[idx] - val)
        return {"risk": emp.mc_summary(np.concatenate(losses)), "gap": emp.mc_summary(np.concatenate(diffs)),
                "k": k, "seed": seed}


# ------------------------------------------------------------------ the analysis
def analyse(model, tau, ks=DEFAULT_KS, loss: str = "infonce", tau_sweep=True,
            mc_samples: int = 4096, seed: int = 0, beside_default: bool = True, digits: int | None = None,
            workers: int | None = None, with_dcl: bool | None = None, tau_factors=None, executor=None,
            memory_limit: int = DEFAULT_MEMORY_LIMIT, block_rows: int | None = None, executor_label=None,
            hold_tables: bool | None = None, progress=None) -> dict:
    """Everything ``infonce-sym embeddings`` reports, as one JSON-able dict.

    ``model``: an :class:`emp.EmpiricalPairs` or a :class:`RowSource` (files read by the work units).
    The anchors go in row blocks (``block_rows``, default: from ``memory_limit``, bytes for all
    processes together, or per worker with a Dask executor) through ``executor`` (any
    ``concurrent.futures.Executor``; None: this process); the numbers do not depend on the blocks or
    the executor (per-anchor values, exactly rounded sums, Monte Carlo streams per block of tuples).
    ``with_dcl`` (default: when n * pool <= LARGE or loss == "dcl") builds the tables the DCL
    gap needs at small k, which reach much further in t than InfoNCE's; without them the DCL gap
    is given at k = 1 only (closed form).  ``tau_factors`` default: TAU_SWEEP_FACTORS, or
    TAU_SWEEP_FACTORS_LARGE when n * pool > LARGE.  ``progress(done, total, what)``, if given, is
    called as each stage starts (``what``: its name)."""
    in_memory = isinstance(model, emp.EmpiricalPairs)
    source = RowSource.from_model(model) if in_memory else model
    tau_f = emp.check_tau_range(float(tau))
    t0 = time.perf_counter()
    n, dim, pool_rows = source.shape()
    pool_size = pool_rows - (1 if source.exclude_own else 0)
    large = n * pool_size > LARGE
    if with_dcl is None:
        with_dcl = loss == "dcl" or not large
    if tau_factors is None:
        tau_factors = TAU_SWEEP_FACTORS_LARGE if large else TAU_SWEEP_FACTORS
    lo_tau, hi_tau = emp.TAU_RANGE
    sweep = [_swept(tau_f, f) for f in tau_factors if f != 1.0] if tau_sweep else []
    sweep = [t for t in sweep if lo_tau <= t <= hi_tau]
    remote = executor is not None and executor_label is not None and executor_label.startswith("dask")
    label = executor_label or ("in-process" if executor is None else f"process pool ({workers})")
    table_bytes = 3 * 8 * n * emp.grid_size(tau_f, pool_size)[1]
    hold = table_bytes <= memory_limit / 4 if hold_tables is None else hold_tables   # kept: no further pass
    run = Streaming(source, executor, memory_limit, workers or 1, remote, block_rows, [tau_f] + sweep, label,
                    table_bytes if hold else 0)
    ks = [emp.check_k(k) for k in ks]
    for k in ks:
        if k > emp.K_MAX:
            raise InputError("--k", f"must be <= {emp.K_MAX:.0e} for the empirical model, got {k}")
    stages = {}
    mark = [time.perf_counter()]
    starting = ["tables and gaps", "c1 and c2", "k for the gap thresholds"]
    starting += ["the Monte Carlo check"] if mc_samples else []
    starting += ["the own row included"] if beside_default and source.exclude_own else []
    starting += ["the digits check"] if digits is not None else []

    def announce(done):
        if progress is not None and done < len(starting):
            progress(done, len(starting), starting[done])
            run.on_block = lambda b, blocks: progress(done, len(starting), f"{starting[done]}: block {b} of {blocks}")

    def stage(name):
        now = time.perf_counter()
        stages[name] = round(now - mark[0], 2)
        mark[0] = now
        announce(len(stages))

    announce(0)

    powers = [2 ** j for j in range(40)]
    dcl_search = loss == "dcl"
    main_ks = sorted(set(ks) | set(powers))
    # --loss dcl: the tau sweep is of the DCL gap (and its bound) too
    sums, tab = run.evaluate([tau_f] + sweep, main_ks, ks, with_dcl, keep=True, hold=hold, sweep_dcl=dcl_search)
    stage("tables_and_gaps")
    gv_all = _gap_values(sums[0], main_ks, n, with_dcl)
    pick = [main_ks.index(k) for k in ks]
    gv = emp.GapValues(k=ks, gap=gv_all.gap[pick], dcl_gap=gv_all.dcl_gap[pick], error=gv_all.error[pick],
                       dcl_error=gv_all.dcl_error[pick], cross_entropy_limit=gv_all.cross_entropy_limit)
    if not with_dcl:
        gv.dcl_gap = np.array([sums[0].mean("dcl_gap1", n) if k == 1 else np.nan for k in gv.k])
        gv.dcl_error = np.array([64 * emp.EPS * sums[0].mean("dcl_gap1_err", n) if k == 1 else np.nan
                                 for k in gv.k])
    consts = expansion_values(tab)
    c_error = expansion_error_bounds(tab, tau_f, pool_size, dim)
    stage("c1_c2")
    ce_error = _ce_error(dim, tau_f)
    by_k = []
    for a, k in enumerate(gv.k):
        lo, hi = prop1_bounds(k, str(tau))
        dlo, dhi = dcl_bounds(k, str(tau))
        c1, c2 = consts["c1"], consts["c2"]
        by_k.append({
            "k": k, "risk": float(gv.risk[a]), "risk_error_bound": ce_error + float(gv.error[a]),
            "gap": float(gv.gap[a]), "gap_error_bound": float(gv.error[a]),
            "prop1_lower": lo, "prop1_upper": hi,
            "prop1_holds": bool(lo - gv.error[a] <= gv.gap[a] <= hi + gv.error[a]),
            "expansion_c1_c2": _num(c1 / k + c2 / (np.longdouble(k) ** 2)),
            "expansion_c1_c2_error_bound": c_error["c1"] / k + c_error["c2"] / k ** 2,
            "dcl_risk": _finite(gv.dcl_risk[a]),
            "dcl_risk_error_bound": _finite(ce_error + gv.dcl_error[a]), "dcl_gap": _finite(gv.dcl_gap[a]),
            "dcl_gap_error_bound": _finite(gv.dcl_error[a]), "dcl_lower": dlo, "dcl_upper": dhi,
            "dcl_holds": (None if not np.isfinite(gv.dcl_gap[a]) else
                          bool(dlo - gv.dcl_error[a] <= gv.dcl_gap[a] <= dhi + gv.dcl_error[a])),
        })
    name = "dcl_gap" if dcl_search else "gap"
    scan = np.asarray(getattr(gv_all, name))[[main_ks.index(k) for k in powers]]

    def evaluate(kk):                               # signed: the search looks for sign changes
        if hold:                                    # the same per-anchor values and exact sums as a pass
            return getattr(emp.gaps_at(tab, kk, with_dcl=with_dcl), name)
        s2, _ = run.evaluate([tau_f], kk, (), with_dcl)     # one more pass over the anchors (main tau only)
        return getattr(_gap_values(s2[0], kk, n, with_dcl), name)
    k_for = emp.k_for_gap_search(evaluate, GAP_THRESHOLDS, K_FOR_GAP_MAX_POWER, scan)
    stage("k_for_gap")
    out = {
        "n": n, "dim": dim, "tau": str(tau), "loss": loss,
        "pool": source.pool_name, "pool_size": pool_size, "exclude_own": source.exclude_own,
        "normalised": True, "rows_rescaled": source.rescaled_rows,
        "cross_entropy_limit": gv.cross_entropy_limit,
        "cross_entropy_limit_error_bound": ce_error,
        "c1": _num(consts["c1"]), "c2": _num(consts["c2"]), "c1_dcl": _num(consts["c1t"]),
        "c2_dcl": _num(consts["c2t"]),
        # |c - c of the rows as given| (the float64 similarities' rounding: expansion_error_bounds)
        "c1_error_bound": c_error["c1"], "c2_error_bound": c_error["c2"],
        "c1_dcl_error_bound": c_error["c1t"], "c2_dcl_error_bound": c_error["c2t"],
        "by_k": by_k,
        "k_for_gap": {str(t): v for t, v in k_for.items()},
        "k_for_gap_loss": loss,
        # null in k_for_gap: not below the threshold by this k (the text says "> 2^39")
        "k_for_gap_search_limit": 2 ** K_FOR_GAP_MAX_POWER,
        "method": ("transform route E log S = int (e^-t - E e^-tS) dt/t per anchor, float64, trapezoid "
                   f"in log t with step {emp.STEP} (error bound: |T_h - T_2h| + rounding + neglected terms)"),
    }
    if not with_dcl:
        out["dcl_note"] = (f"DCL gaps at k >= 2 skipped (n * pool = {n * pool_size} > {LARGE:.0e}); "
                           "--loss dcl computes them")
    if tau_sweep:
        rows = []
        for f in tau_factors:
            t = _swept(tau_f, f)
            if not lo_tau <= t <= hi_tau:
                continue
            if f == 1.0:
                g, ce = gv, gv.cross_entropy_limit
            else:
                acc = sums[1 + sweep.index(t)]
                g = _gap_values(acc, ks, n, dcl_search)
                ce = g.cross_entropy_limit
            by = [{"k": k, "gap": float(g.gap[a]), "gap_error_bound": float(g.error[a]),
                   "prop1_upper": prop1_bounds(k, t)[1]} for a, k in enumerate(g.k)]
            if dcl_search:
                for a, row in enumerate(by):
                    row.update({"dcl_gap": float(g.dcl_gap[a]), "dcl_gap_error_bound": float(g.dcl_error[a]),
                                "dcl_upper": dcl_bounds(row["k"], t)[1]})
            rows.append({"tau": t, "cross_entropy_limit": ce, "cross_entropy_limit_error_bound": _ce_error(dim, t),
                         "by_k": by})
        out["tau_sweep"] = rows
    if mc_samples:
        out["monte_carlo"] = _mc_check(run, tau_f, gv, loss, mc_samples, seed, tab.cross_entropy_terms,
                                       emp.k1_skewness(tab.moments, loss))
        stage("monte_carlo")
    if beside_default and source.exclude_own:
        s2, _ = run.evaluate([tau_f], ks, (), False, source=source.including_own())
        g2 = _gap_values(s2[0], ks, n, False)
        out["own_row_included"] = {"cross_entropy_limit": g2.cross_entropy_limit, "cross_entropy_limit_error_bound": ce_error,
                                   "by_k": [{"k": k, "risk": float(g2.risk[a]), "gap": float(g2.gap[a]),
                                             "gap_error_bound": float(g2.error[a])}
                                            for a, k in enumerate(g2.k)]}
        stage("own_row_included")
    if digits is not None:
        if in_memory:
            small = model
        else:
            a_, p_, q_ = source.open()
            small = emp.make_pairs(a_, p_, q_ if source.pool_name == "negatives" else None,
                                   source.negatives_from, source.exclude_own)
        out["digits"] = _digits_check(small, tau, [k for k in gv.k if k <= DIGITS_K_MAX], digits, gv)
        # the arb route's k range: the larger k are named, not dropped silently
        out["digits_skipped_k"] = [int(k) for k in gv.k if k > DIGITS_K_MAX]
        stage("digits")
    out["seconds"] = round(time.perf_counter() - t0, 2)
    out["seconds_by_stage"] = stages
    out["streaming"] = {"block_rows": run.rows, "blocks": len(run.blocks()), "passes": run.passes,
                        "tables_held": hold,
                        "memory_limit_bytes": memory_limit, "executor": run.label}
    out["_tables"] = tab
    return out


def _ce_error(dim, tau):
    """Rounding of the float64 similarities (:func:`emp.similarity_rounding` per entry) moves log mu_i and
    <a_i,p_i>/tau by at most that over tau each, plus the log-sum-exp's own rounding."""
    return 2 * emp.similarity_rounding(dim) / tau + _loss_rounding(tau)


def _loss_rounding(tau):
    """The float64 rounding of one tuple's log-sum-exp (terms of size up to 2/tau)."""
    return 16 * emp.EPS * (1 + 2 / tau)


def _finite(x):
    return float(x) if np.isfinite(x) else None


def _mc_check(run, tau, gv, loss, samples, seed, ce_terms, k1_skewness=None):
    """Monte Carlo of ∫CE - R (paired: CE_i - loss) at the k <= MC_MAX_K of the list; at k = 1 the sample is also judged
    by the model's own skewness of a tuple's value (``k1_skewness``, Cochran's rule), which sees a rare row the sample
    may not have drawn."""
    rows = []
    for a, k in enumerate(gv.k):
        if k > MC_MAX_K:
            continue
        mc = run.monte_carlo(tau, k, samples, seed, loss, ce_terms)
        exact = float(gv.gap[a] if loss == "infonce" else gv.dcl_gap[a])
        bound = float(gv.error[a] if loss == "infonce" else gv.dcl_error[a])
        g = mc["gap"]
        if k == 1 and k1_skewness is not None:
            g = model_skewness(g, k1_skewness)
        z = (g["estimate"] - exact) / g["stderr"] if g["stderr"] > 0 else None     # None: no spread to judge
        # the 95% interval widened by the exact gap's error bound and the float64 rounding of a tuple's loss
        within = abs(g["estimate"] - exact) <= quantile95(g["samples"]) * g["stderr"] + bound + _loss_rounding(tau)
        # values that agree to rounding are the zero spread of floats (one anchor: k = 1 gave "consistent", k = 16
        # "inconclusive" on the same exact tuples; a probe, Dec 2026)
        rounding = not g.get("ci95_reliable", True) and interval_doubt(g).startswith("the sampled values agree to rounding")
        if z is None or rounding:
            # every sampled tuple gave one value (a collapsed model, say): the interval is that value
            verdict = ("consistent (zero spread: every tuple gave the exact value)" if z is None else
                       "consistent (no spread beyond rounding: every tuple gave the exact value to rounding)") \
                if within else "inconclusive (zero spread)"
        elif not g.get("ci95_reliable", True):
            # a z-test needs the normal approximation, which this sample's skewness puts in doubt
            verdict = f"inconclusive ({interval_doubt(g)})"
        elif within and abs(z) > quantile95(g["samples"]):
            # the standard error alone (a tuple's float64 rounding spread, say) would reject: name what accepts
            verdict = ("consistent within the exact gap's error bound and the float64 rounding of a tuple's loss "
                       "(beyond the standard error alone)")
        else:
            verdict = "consistent" if within else "outside the 95% interval"
        rows.append({"k": k, "exact_gap": exact, "mc_gap": g["estimate"], "stderr": g["stderr"],
                     "ci95": g["ci95"], "ci95_reliable": g.get("ci95_reliable"), "samples": g["samples"],
                     "seed": seed, "backend": "numpy", "z": z, "verdict": verdict})
    return rows


DIGITS_K_MAX = RANGES["k_exact"][1]        # the exact route's k range (risk --k)


def _digits_check(model, tau, ks, digits, gv):
    """The arb exact route (quantities.exact) on the same anchor laws, at ``digits`` digits."""
    from ..quantities.exact import exact_values
    laws = emp.LawModel(model)
    rows = []
    for a, k in enumerate(gv.k):
        if k not in ks:
            continue
        ev = exact_values(laws, str(tau), k, digits=digits, loss="infonce")
        gap = ev.gaps["cross_entropy_limit_minus_risk"]
        with mpmath.workdps(digits + 10):
            # the double's exact value minus the exact gap (float(gap) first rounded away differences below an ulp)
            off = mpmath.mpf(float(gv.gap[a])) - gap
        rows.append({"k": k, "risk": ev.as_strings()["risk"], "cross_entropy_limit": ev.as_strings()["cross_entropy_limit"],
                     "gap": _mp_str(gap, digits), "float64_gap_minus_exact": float(off),
                     # how far the digits held when the precision was raised (not their accuracy: that is --digits)
                     "precision_check_digits": ev.agreement_digits})
    return rows


def _mp_str(x, digits):
    return mpmath.nstr(x, digits, strip_zeros=False)


# ------------------------------------------------------------------ Prop. 4 on two versions
def compare_versions(model, other, tau, ks, samples: int = 2048, seed: int = 0, loss="infonce") -> dict:
    """Prop. 4 over sampled tuples: |l(phi) - l(phi')| against (c_a Da + c_p Dp + c_n e^{2/(beta tau)} PM)/tau
    with the paper's [4, 1, 3] and the sharpened [2, 1, 1] (the registered statements P4, P4.sharp)."""
    from ..proofs.statements import continuity_bound, displayed_constants
    rows = []
    for k in ks:
        if k > MC_MAX_K:
            continue
        # k = 1 on a small model: every tuple, so that the max and the worst ratios are the model's (2048 sampled
        # tuples of the fixture gave a worst ratio 14x below the model's: an embeddings probe, Dec 2026)
        every = k == 1 and model.n * model.pool_size <= emp.EVERY_K1_TUPLE_MAX
        cs = (emp.continuity_every_k1_tuple(model, other, float(tau), loss) if every
              else emp.continuity_sample(model, other, float(tau), k, samples, seed, loss))
        row = {"k": k, "samples": int(cs["change"].size), "every_tuple": every, "beta": cs["beta"],
               "mean_change": float(cs["change"].mean()), "max_change": float(cs["change"].max())}
        for which in ("prop4", "prop4_sharp"):
            with np.errstate(over="ignore"):
                b = np.asarray(continuity_bound(which, float(tau), cs["Da"], cs["Dp"], cs["PM"], cs["beta"]), float)
            ratio = np.where(b > 0, cs["change"] / np.where(b > 0, b, 1.0), np.where(cs["change"] > 0, np.inf, 0.0))
            worst = int(np.argmax(ratio))
            row[which] = {"constants": displayed_constants(which)[0], "worst_ratio": float(ratio[worst]),
                          "mean_bound": float(b.mean()), "violations": int(np.count_nonzero(ratio > 1 + 1e-12)),
                          "worst_tuple": {"change": float(cs["change"][worst]), "bound": float(b[worst]),
                                          "Da": float(cs["Da"][worst]), "Dp": float(cs["Dp"][worst]),
                                          "PM": float(cs["PM"][worst])}}
        rows.append(row)
    return {"tau": str(tau), "seed": seed, "by_k": rows, "skipped_k": [int(k) for k in ks if k > MC_MAX_K],
            "mean_Da": float(np.linalg.norm(model.anchors - other.anchors, axis=1).mean()),
            "mean_Dp": float(np.linalg.norm(model.positives - other.positives, axis=1).mean())}


# ------------------------------------------------------------------ report and plots
def pool_text(result) -> str:
    """The pool's size and whether each anchor's own row is in it (a separate --negatives file has no own row)."""
    rows = f"{result['pool_size']} row{'' if result['pool_size'] == 1 else 's'}"
    if result["pool"] == "negatives":
        return f"{rows}, a separate file: no anchor's own row"
    return f"{rows} per anchor, own row {'excluded' if result['exclude_own'] else 'included'}"


def _fmt(x, digits=6):
    if x is None:
        return "—"
    if isinstance(x, str):
        return x
    return f"{x:.{digits}g}"


def shown(x, bound, most=12) -> str:
    """x to at most ``most`` significant digits, and no more than its absolute error bound leaves
    (at least one): where a value is a difference of much larger float64 parts (∫CE of a collapsed
    model, all rows equal, is 0 up to rounding) its noise is not printed as digits.

    >>> shown(-7.497512345678901, 2e-13), shown(9.857891452843125e-13, 1.07e-12), shown(0.25, 1e-3, 6)
    ('-7.49751234568', '1e-12', '0.25')
    """
    if x is None:
        return "—"
    if not (bound and bound > 0 and x and math.isfinite(x)):
        return f"{x:.{most}g}"
    digits = math.floor(math.log10(abs(x) / bound)) if abs(x) > bound else 1
    return f"{x:.{max(1, min(most, digits))}g}"


def cell(x, bound, most=6) -> str:
    """A value of a table or a line whose bound is not printed beside it: as :func:`shown` (at most ``most`` digits);
    '0 ± 2b' where |x| <= b, its sign unknown (the DCL gap at k = 1 of near-equal rows, -6e-18 for an exact 6e-27);
    a decimal string (beyond a double) as it is.

    >>> cell(-5.736e-18, 2.4e-14), cell(0.0606246, 2.8e-09), cell(None, 1.0)
    ('0 ± 4.8e-14', '0.0606246', '—')
    """
    if x is None or isinstance(x, str):
        return _fmt(x)
    if bound and math.isfinite(bound) and abs(x) <= bound:
        return f"0 ± {2 * bound:.1e}"
    return shown(x, bound, most)


def expansion_text(result: dict) -> str:
    """'c1 = ..., c2 = ... (DCL: ..., ...)', each to the digits its error bound leaves; with near-equal rows the
    similarities' rounding is a large part of c1~ and c2~, and the line says so."""
    names = (("c1", "c1"), ("c2", "c2"), ("c1_dcl", "c1~"), ("c2_dcl", "c2~"))
    text = {key: cell(result[key], result[f"{key}_error_bound"]) for key, _ in names}
    line = f"c1 = {text['c1']}, c2 = {text['c2']} (DCL: {text['c1_dcl']}, {text['c2_dcl']})"
    loose = [label for key, label in names if isinstance(result[key], float)
             and result[f"{key}_error_bound"] > 1e-3 * abs(result[key])]
    if loose:
        line += (f"; {', '.join(loose)} known only to the digits shown (± " +
                 ", ".join(f"{result[f'{key}_error_bound']:.1e}" for key, label in names if label in loose) +
                 ": the float64 similarities' rounding, the pool's spread being that small)")
    return line


# what ``write_report`` writes into --out
REPORT_FILES = (REPORT_MD, GAP_PLOT, TAU_PLOT) = ("report.md", "gap_vs_k.png", "tau_sweep.png")


def write_report(result: dict, out: Path, command: str = "") -> list:
    """report.md, gap_vs_k.png and tau_sweep.png in ``out``; returns the paths written."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    out = Path(out)
    written = []
    tau = float(result["tau"])
    rows = result["by_k"]
    ks = np.array([r["k"] for r in rows], float)
    gaps = np.array([r["gap"] for r in rows])
    # gap vs k
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    kk = np.geomspace(max(1, ks.min()), ks.max() * 1.5, 200)
    pos = gaps > 0
    if pos.any():
        ax.loglog(ks[pos], gaps[pos], "o", color="C0", label=r"exact $\int CE - R$ (positive)")
    if (~pos).any():
        ax.loglog(ks[~pos], -gaps[~pos], "o", mfc="none", color="C0", label=r"exact $|\int CE - R|$ (negative)")
    c1 = result["c1"] if isinstance(result["c1"], float) else float("nan")
    if math.isfinite(c1) and c1 != 0:
        ax.loglog(kk, abs(c1) / kk, "--", color="C1", label=rf"$|c_1|/k$, $c_1 = {c1:.4g}$")
    with np.errstate(over="ignore"):
        up = np.array([prop1_bounds(k, tau)[1] for k in kk])
        low = np.array([-prop1_bounds(k, tau)[0] for k in kk])
    nonzero = np.abs(gaps[gaps != 0])
    lo_y = max(1e-14, nonzero.min() / 10) if nonzero.size else 1e-12
    hi_y = max(np.max(np.abs(gaps)) * 100, float(low.max()) * 3, 1.0)
    ax.set_ylim(lo_y, hi_y)
    if np.isfinite(up).any() and up.min() < hi_y:
        ax.loglog(kk, up, ":", color="C2", label=r"Prop. 1 upper $(e^{2/\tau}-1)^2/(8k)$")
    else:
        ax.plot([], [], ":", color="C2", label=rf"Prop. 1 upper $(e^{{2/\tau}}-1)^2/(8k)$: off scale, $\geq {up.min():.1e}$")
    ax.loglog(kk, low, "-.", color="C3", label=r"$|$Prop. 1 lower$|$ $= \log(1+e^{2/\tau}/k)$")
    ax.set_xlabel(r"number of negatives $k$")
    ax.set_ylabel("gap")
    ax.set_title(rf"Finite-$k$ bias of InfoNCE, $n = {result['n']}$, $d = {result['dim']}$, $\tau = {tau:g}$")
    ax.legend(fontsize=8)
    fig.tight_layout()
    p = out / GAP_PLOT
    with naming_the_file(p):
        fig.savefig(p, dpi=110)
    plt.close(fig)
    written.append(p)
    # tau sweep
    if result.get("tau_sweep"):
        fig, ax = plt.subplots(figsize=(6.4, 4.4))
        taus = [r["tau"] for r in result["tau_sweep"]]
        key = "dcl_gap" if result["loss"] == "dcl" else "gap"
        for j, k in enumerate(ks):
            g = [abs(r["by_k"][j][key]) for r in result["tau_sweep"]]
            ax.loglog(taus, g, "o-", label=rf"$k = {int(k)}$")
        ax.axvline(tau, color="grey", lw=0.8, ls=":", label=rf"given $\tau = {tau:g}$")
        ax.set_xlabel(r"temperature $\tau$")
        ax.set_ylabel(r"$|\int CE - \tilde R|$" if key == "dcl_gap" else r"$|\int CE - R|$")
        ax.set_title(r"Finite-$k$ bias against the temperature $\tau$")
        ax.legend(fontsize=8, loc="lower left")
        fig.tight_layout()
        p = out / TAU_PLOT
        with naming_the_file(p):
            fig.savefig(p, dpi=110)
        plt.close(fig)
        written.append(p)
    lines = ["# Finite-k bias of InfoNCE on your embeddings", "",
             f"`{command}`" if command else "", "",
             f"n = {result['n']} pairs, d = {result['dim']}, tau = {tau_label(result['tau'])}, negatives i.i.d. with replacement "
             f"from the {result['pool']} ({pool_text(result)}). "
             f"Rows were normalised to unit length ({result['rows_rescaled']} rows had a norm other than 1).", "",
             f"k -> infinity limit ∫CE = {shown(result['cross_entropy_limit'], result['cross_entropy_limit_error_bound'])} "
             f"(± {result['cross_entropy_limit_error_bound']:.1e}); {expansion_text(result)}.", "",
             "| k | R(k) | ∫CE − R | error bound | Prop. 1 lower | Prop. 1 upper | c1/k + c2/k² | R~(k) | ∫CE − R~ |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['k']} | {cell(r['risk'], r['risk_error_bound'], 10)} | "
                     f"{shown(r['gap'], r['gap_error_bound'], 6)} | "
                     f"{r['gap_error_bound']:.1e} | {r['prop1_lower']:.4g} | {_fmt(r['prop1_upper'], 4)} | "
                     f"{cell(r['expansion_c1_c2'], r['expansion_c1_c2_error_bound'])} | "
                     f"{cell(r['dcl_risk'], r['dcl_risk_error_bound'], 10)} | "
                     f"{cell(r['dcl_gap'], r['dcl_gap_error_bound'])} |")
    if result.get("own_row_included"):
        own = result["own_row_included"]
        lines += ["", "Beside it, the default model (each anchor's own row included in its pool): ∫CE = "
                  f"{shown(own['cross_entropy_limit'], own['cross_entropy_limit_error_bound'])}; ∫CE − R(k) at " +
                  ", ".join(f"k = {x['k']}: {x['gap']:.6g} (± {x['gap_error_bound']:.1e})" for x in own["by_k"]) + "."]
    lines += ["", f"k at which |∫CE − {'R~' if result['k_for_gap_loss'] == 'dcl' else 'R'}| falls below a threshold and stays below (a search over doublings of k up to 2^{K_FOR_GAP_MAX_POWER} and the peaks of |gap| between them where the gap changes sign or |gap| rises): " +
              ", ".join(f"{t}: {v if v is not None else f'> 2^{K_FOR_GAP_MAX_POWER}'}" for t, v in result["k_for_gap"].items()), ""]
    if result.get("monte_carlo"):
        lines += ["## Monte Carlo cross-check", "", "| k | exact gap | MC gap | std. error | z | verdict |",
                  "|---|---|---|---|---|---|"]
        for r in result["monte_carlo"]:
            lines.append(f"| {r['k']} | {r['exact_gap']:.6g} | {r['mc_gap']:.6g} | {r['stderr']:.2g} | "
                         f"{_fmt(r['z'], 3)} | {r['verdict']} |")
        lines.append("")
    if result.get("compare"):
        lines += ["## Prop. 4: two versions of the embedding", "",
                  "Over the sampled tuples of each k (Monte Carlo: the mean is an estimate; the max and the worst "
                  "ratios are those of the sample), or over every tuple (k = 1 on a model of at most "
                  f"{emp.EVERY_K1_TUPLE_MAX} anchor and pool row pairs: the model's own)." + (
                      f" The second version has {result['compare']['zero_padded_from_dim']} dimensions, zero-padded to "
                      f"{result['dim']} (a truncated dimension: the same similarities)."
                      if result["compare"].get("zero_padded_from_dim") else ""), "",
                  "| k | tuples | mean change | max change | worst ratio [4,1,3] | worst ratio [2,1,1] |",
                  "|---|---|---|---|---|---|"]
        for r in result["compare"]["by_k"]:
            lines.append(f"| {r['k']} | {r['samples']}{' (all)' if r.get('every_tuple') else ' sampled'} | "
                         f"{r['mean_change']:.4g} | {r['max_change']:.4g} | "
                         f"{r['prop4']['worst_ratio']:.4g} | {r['prop4_sharp']['worst_ratio']:.4g} |")
        lines.append("")
        if result["compare"].get("skipped_k"):
            lines += ["Not at k = " + ", ".join(map(str, result["compare"]["skipped_k"]))
                      + f": the tuples are sampled, at k <= {MC_MAX_K}.", ""]
    lines += ["![gap against k](gap_vs_k.png)", ""]
    if result.get("tau_sweep"):
        lines += ["![tau sweep](tau_sweep.png)", ""]
    lines += [f"Method: {result['method']}.", ""]
    p = out / REPORT_MD
    with naming_the_file(p):
        p.write_text("\n".join(lines))
    written.append(p)
    for name in REPORT_FILES:
        # a plot this run does not draw (no tau sweep) is an earlier run's: it would sit beside this report as if it
        # were of these embeddings (a probe, Dec 2026)
        stale = out / name
        if stale not in written and stale.is_file():
            stale.unlink()
    return written
