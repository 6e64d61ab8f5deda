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
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..quantities import empirical as emp

__all__ = ["analyse", "expansion_values", "prop1_bounds", "dcl_bounds", "compare_versions",
           "write_report", "TAU_SWEEP_FACTORS", "GAP_THRESHOLDS", "DEFAULT_KS"]

DEFAULT_KS = (1, 16, 256, 4096, 65536, 10 ** 6)
GAP_THRESHOLDS = (0.1, 0.01, 0.001)
TAU_SWEEP_FACTORS = (0.5, 0.7, 1.0, 1.4, 2.0)
TAU_SWEEP_FACTORS_LARGE = (0.5, 1.0, 2.0)
LARGE = 4e7                     # n * pool above which the DCL tables and the long tau sweep are opt-in
MC_MAX_K = 4096


# ------------------------------------------------------------------ the registered statements
_STATEMENTS: dict = {}


def _statement(id, which):
    if (id, which) not in _STATEMENTS:
        _STATEMENTS[(id, which)] = _lambdified(id, which)
    return _STATEMENTS[(id, which)]


def _lambdified(id, which):
    from ..proofs.section3 import bound_args, bound_function
    names = [s.name for s in bound_args(id, which)]
    f = bound_function(id, which)
    return lambda **kw: float(f(*[kw[n] for n in names]))


def prop1_bounds(k, tau):
    """Prop. 1: -log(1 + e^{2/tau}/k) <= ∫CE - R <= (e^{2/tau} - 1)^2/(8k)."""
    with np.errstate(over="ignore"):
        return _statement("P1", "lower")(k=k, tau=tau), _statement("P1", "upper")(k=k, tau=tau)


def dcl_bounds(k, tau):
    """(11) and Lemma 4: 0 <= ∫CE - R~ <= min((e^{2/tau} - 1)^2/(8k), 2/tau)."""
    with np.errstate(over="ignore"):
        upper = min(_statement("DCL-11", "upper")(k=k, tau=tau), _statement("L4", "upper")(tau=tau))
    return _statement("DCL-11", "lower")(), upper


def expansion_values(tab: emp.AnchorTables) -> dict:
    """c1, c2 (InfoNCE) and c1t, c2t (DCL): the registered per-anchor expressions in the
    anchor's moments (m_n = E V^n, V = x/mu - 1; EW^n = W^n, the positive being fixed), averaged
    over the anchors.  Evaluated in extended precision (W^2 can exceed 1e308)."""
    import sympy as sp
    from ..proofs.expansions import expansion_constants
    consts = expansion_constants()
    ld = np.longdouble
    w = np.exp(tab.log_w.astype(ld))
    values = {**{k: v.astype(ld) for k, v in tab.moments.items()},
              **{("EW" if n == 1 else f"EW{n}"): w ** n for n in range(1, 7)}}
    out = {}
    for name in ("c1", "c2", "c1t", "c2t"):
        expr = consts[name]
        syms = sorted(expr.free_symbols, key=lambda s: s.name)
        f = sp.lambdify(syms, expr, modules="numpy")
        per_anchor = f(*[values[s.name] for s in syms])
        out[name] = np.mean(np.asarray(per_anchor, dtype=ld) * np.ones(tab.log_w.size, dtype=ld))
    return out


def _num(x):
    """A JSON number, or a decimal string when it does not fit a double."""
    if isinstance(x, np.longdouble):
        f = float(x)
        if math.isfinite(f):
            return f
        return np.format_float_scientific(x, precision=17)
    return None if x is None else float(x)


# ------------------------------------------------------------------ the analysis
def analyse(model: emp.EmpiricalPairs, tau, ks=DEFAULT_KS, loss: str = "infonce", tau_sweep=True,
            mc_samples: int = 4096, seed: int = 0, beside_default: bool = True, digits: int | None = None,
            workers: int | None = None, with_dcl: bool | None = None, tau_factors=None) -> dict:
    """Everything ``infonce-sym embeddings`` reports, as one JSON-able dict.

    ``with_dcl`` (default: when n * pool <= LARGE or loss == "dcl") builds the tables the DCL
    gap needs at small k, which reach much further in t than InfoNCE's; without them the DCL gap
    is given at k = 1 only (closed form).  ``tau_factors`` default: TAU_SWEEP_FACTORS, or
    TAU_SWEEP_FACTORS_LARGE when n * pool > LARGE."""
    tau_f = float(tau)
    t0 = time.perf_counter()
    large = model.n * model.pool_size > LARGE
    if with_dcl is None:
        with_dcl = loss == "dcl" or not large
    if tau_factors is None:
        tau_factors = TAU_SWEEP_FACTORS_LARGE if large else TAU_SWEEP_FACTORS
    stages = {}
    mark = [time.perf_counter()]

    def stage(name):
        now = time.perf_counter()
        stages[name] = round(now - mark[0], 2)
        mark[0] = now

    tab = emp.anchor_tables(model, tau_f, with_dcl=with_dcl, workers=workers)
    stage("tables")
    gv = emp.gaps_at(tab, ks, with_dcl=with_dcl)
    if not with_dcl:
        gv.dcl_gap = np.array([float(np.mean(tab.dcl_gap1)) if k == 1 else np.nan for k in gv.k])
        gv.dcl_error = np.array([64 * emp.EPS * float(np.mean(np.abs(tab.dcl_gap1) + 1)) if k == 1 else np.nan
                                 for k in gv.k])
    stage("gaps")
    consts = expansion_values(tab)
    stage("c1_c2")
    by_k = []
    for a, k in enumerate(gv.k):
        lo, hi = prop1_bounds(k, tau_f)
        dlo, dhi = dcl_bounds(k, tau_f)
        c1, c2 = consts["c1"], consts["c2"]
        by_k.append({
            "k": k, "risk": float(gv.risk[a]), "gap": float(gv.gap[a]), "gap_error_bound": float(gv.error[a]),
            "prop1_lower": lo, "prop1_upper": hi,
            "prop1_holds": bool(lo - gv.error[a] <= gv.gap[a] <= hi + gv.error[a]),
            "expansion_c1_c2": _num(c1 / k + c2 / (np.longdouble(k) ** 2)),
            "dcl_risk": _finite(gv.dcl_risk[a]), "dcl_gap": _finite(gv.dcl_gap[a]),
            "dcl_gap_error_bound": _finite(gv.dcl_error[a]), "dcl_lower": dlo, "dcl_upper": dhi,
            "dcl_holds": (None if not np.isfinite(gv.dcl_gap[a]) else
                          bool(dlo - gv.dcl_error[a] <= gv.dcl_gap[a] <= dhi + gv.dcl_error[a])),
        })
    k_for = emp.k_for_gap(tab, GAP_THRESHOLDS, loss)
    stage("k_for_gap")
    out = {
        "n": model.n, "dim": model.dim, "tau": str(tau), "loss": loss,
        "pool": model.pool_name, "pool_size": model.pool_size, "exclude_own": model.exclude_own,
        "normalised": True, "rows_rescaled": model.rescaled_rows,
        "cross_entropy_limit": tab.cross_entropy_limit,
        "cross_entropy_limit_error_bound": _ce_error(model, tau_f),
        "c1": _num(consts["c1"]), "c2": _num(consts["c2"]), "c1_dcl": _num(consts["c1t"]),
        "c2_dcl": _num(consts["c2t"]),
        "by_k": by_k,
        "k_for_gap": {str(t): v for t, v in k_for.items()},
        "k_for_gap_loss": loss,
        "method": ("transform route E log S = int (e^-t - E e^-tS) dt/t per anchor, float64, trapezoid "
                   f"in log t with step {emp.STEP} (error bound: |T_h - T_2h| + rounding + neglected terms)"),
    }
    if not with_dcl:
        out["dcl_note"] = (f"DCL gaps at k >= 2 skipped (n * pool = {model.n * model.pool_size} > {LARGE:.0e}); "
                           "--loss dcl computes them")
    if tau_sweep:
        out["tau_sweep"] = _tau_sweep(model, tau_f, [k for k in gv.k], workers, tau_factors, (tab, gv))
        stage("tau_sweep")
    if mc_samples:
        out["monte_carlo"] = _mc_check(model, tau_f, gv, loss, mc_samples, seed)
        stage("monte_carlo")
    if beside_default and model.exclude_own:
        other = emp.EmpiricalPairs(model.anchors, model.positives, model.pool, False, model.pool_name,
                                   model.rescaled_rows)
        t2 = emp.anchor_tables(other, tau_f, with_dcl=False, workers=workers)
        g2 = emp.gaps_at(t2, ks, with_dcl=False)
        out["own_row_included"] = {"cross_entropy_limit": t2.cross_entropy_limit,
                                   "by_k": [{"k": k, "risk": float(g2.risk[a]), "gap": float(g2.gap[a]),
                                             "gap_error_bound": float(g2.error[a])}
                                            for a, k in enumerate(g2.k)]}
    if digits is not None:
        out["digits"] = _digits_check(model, tau, [k for k in gv.k if k <= 10 ** 9], digits, gv)
    out["seconds"] = round(time.perf_counter() - t0, 2)
    out["seconds_by_stage"] = stages
    out["_tables"] = tab
    return out


def _ce_error(model, tau):
    """Rounding of the float64 similarities (|error| <= 2 d eps per entry) moves log mu_i and
    <a_i,p_i>/tau by at most 2 d eps/tau each, plus the log-sum-exp's own rounding."""
    return 4 * model.dim * emp.EPS / tau + 16 * emp.EPS * (1 + 2 / tau)


def _finite(x):
    return float(x) if np.isfinite(x) else None


def _tau_sweep(model, tau, ks, workers, factors, given):
    rows = []
    lo, hi = emp.TAU_RANGE
    for f in factors:
        t = tau * f
        if not lo <= t <= hi:
            continue
        if f == 1.0:
            tab, g = given
        else:
            tab = emp.anchor_tables(model, t, with_dcl=False, workers=workers)
            g = emp.gaps_at(tab, ks, with_dcl=False)
        rows.append({"tau": t, "cross_entropy_limit": tab.cross_entropy_limit,
                     "by_k": [{"k": k, "gap": float(g.gap[a]), "gap_error_bound": float(g.error[a]),
                               "prop1_upper": prop1_bounds(k, t)[1]} for a, k in enumerate(g.k)]})
    return rows


def _mc_check(model, tau, gv, loss, samples, seed):
    """Monte Carlo of ∫CE - R (paired: CE_i - loss) at the k <= MC_MAX_K of the list."""
    rows = []
    for a, k in enumerate(gv.k):
        if k > MC_MAX_K:
            continue
        mc = emp.monte_carlo_gap(model, tau, k, samples, seed, loss)
        exact = float(gv.gap[a] if loss == "infonce" else gv.dcl_gap[a])
        g = mc["gap"]
        z = (g["estimate"] - exact) / g["stderr"] if g["stderr"] > 0 else None     # None: no spread to judge
        rows.append({"k": k, "exact_gap": exact, "mc_gap": g["estimate"], "stderr": g["stderr"],
                     "ci95": g["ci95"], "samples": g["samples"], "seed": seed, "z": z,
                     "verdict": ("inconclusive (zero spread)" if z is None else
                                 "consistent" if abs(z) <= 1.959963984540054 else "outside the 95% interval")})
    return rows


def _digits_check(model, tau, ks, digits, gv):
    """The arb exact route (quantities.exact) on the same anchor laws, at ``digits`` digits."""
    from ..quantities.exact import exact_values
    laws = emp.LawModel(model)
    rows = []
    for a, k in enumerate(gv.k):
        if k not in ks:
            continue
        ev = exact_values(laws, str(tau), k, digits=digits, loss="infonce")
        ce = ev.values["cross_entropy_limit"]
        gap = ev.gaps["cross_entropy_limit_minus_risk"]
        rows.append({"k": k, "risk": ev.as_strings()["risk"], "cross_entropy_limit": ev.as_strings()["cross_entropy_limit"],
                     "gap": _mp_str(gap, digits), "float64_gap_minus_exact": float(gv.gap[a]) - float(gap),
                     "agreement_digits": ev.agreement_digits})
        del ce
    return rows


def _mp_str(x, digits):
    import mpmath
    return mpmath.nstr(x, digits, strip_zeros=False)


# ------------------------------------------------------------------ Prop. 4 on two versions
def compare_versions(model, other, tau, ks, samples: int = 2048, seed: int = 0, loss="infonce") -> dict:
    """Prop. 4 over sampled tuples: |l(phi) - l(phi')| against (c_a Da + c_p Dp + c_n e^{2/(beta tau)} PM)/tau
    with the paper's [4, 1, 3] and the sharpened [2, 1, 1] (the registered statements P4, P4.sharp)."""
    from ..proofs.statements import CONSTANTS, continuity_bound
    rows = []
    for k in ks:
        if k > MC_MAX_K:
            continue
        cs = emp.continuity_sample(model, other, float(tau), k, samples, seed, loss)
        row = {"k": k, "samples": int(cs["change"].size), "beta": cs["beta"],
               "mean_change": float(cs["change"].mean()), "max_change": float(cs["change"].max())}
        for which in ("prop4", "prop4_sharp"):
            with np.errstate(over="ignore"):
                b = np.asarray(continuity_bound(which, float(tau), cs["Da"], cs["Dp"], cs["PM"], cs["beta"]), float)
            ratio = np.where(b > 0, cs["change"] / np.where(b > 0, b, 1.0), np.where(cs["change"] > 0, np.inf, 0.0))
            worst = int(np.argmax(ratio))
            row[which] = {"constants": list(CONSTANTS[which]), "worst_ratio": float(ratio[worst]),
                          "mean_bound": float(b.mean()), "violations": int(np.count_nonzero(ratio > 1 + 1e-12)),
                          "worst_tuple": {"change": float(cs["change"][worst]), "bound": float(b[worst]),
                                          "Da": float(cs["Da"][worst]), "Dp": float(cs["Dp"][worst]),
                                          "PM": float(cs["PM"][worst])}}
        rows.append(row)
    return {"tau": str(tau), "seed": seed, "by_k": rows,
            "mean_Da": float(np.linalg.norm(model.anchors - other.anchors, axis=1).mean()),
            "mean_Dp": float(np.linalg.norm(model.positives - other.positives, axis=1).mean())}


# ------------------------------------------------------------------ report and plots
def _fmt(x, digits=6):
    if x is None:
        return "—"
    if isinstance(x, str):
        return x
    return f"{x:.{digits}g}"


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
    p = out / "gap_vs_k.png"
    fig.savefig(p, dpi=110)
    plt.close(fig)
    written.append(p)
    # tau sweep
    if result.get("tau_sweep"):
        fig, ax = plt.subplots(figsize=(6.4, 4.4))
        taus = [r["tau"] for r in result["tau_sweep"]]
        for j, k in enumerate(ks):
            g = [abs(r["by_k"][j]["gap"]) for r in result["tau_sweep"]]
            ax.loglog(taus, g, "o-", label=rf"$k = {int(k)}$")
        ax.axvline(tau, color="grey", lw=0.8, ls=":", label=rf"given $\tau = {tau:g}$")
        ax.set_xlabel(r"temperature $\tau$")
        ax.set_ylabel(r"$|\int CE - R|$")
        ax.set_title(r"Finite-$k$ bias against the temperature $\tau$")
        ax.legend(fontsize=8, loc="lower left")
        fig.tight_layout()
        p = out / "tau_sweep.png"
        fig.savefig(p, dpi=110)
        plt.close(fig)
        written.append(p)
    lines = [f"# Finite-k bias of InfoNCE on your embeddings", "",
             f"`{command}`" if command else "", "",
             f"n = {result['n']} pairs, d = {result['dim']}, tau = {result['tau']}, negatives i.i.d. with replacement "
             f"from the {result['pool']} ({result['pool_size']} rows per anchor"
             f"{', own row excluded' if result['exclude_own'] else ', own row included'}). "
             f"Rows were normalised to unit length ({result['rows_rescaled']} rows had a norm other than 1).", "",
             f"k -> infinity limit ∫CE = {result['cross_entropy_limit']:.12g} "
             f"(± {result['cross_entropy_limit_error_bound']:.1e}); c1 = {_fmt(result['c1'])}, "
             f"c2 = {_fmt(result['c2'])} (DCL: {_fmt(result['c1_dcl'])}, {_fmt(result['c2_dcl'])}).", "",
             "| k | R(k) | ∫CE − R | error bound | Prop. 1 lower | Prop. 1 upper | c1/k + c2/k² | R~(k) | ∫CE − R~ |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['k']} | {r['risk']:.10g} | {r['gap']:.6g} | {r['gap_error_bound']:.1e} | "
                     f"{r['prop1_lower']:.4g} | {_fmt(r['prop1_upper'], 4)} | {_fmt(r['expansion_c1_c2'], 6)} | "
                     f"{_fmt(r['dcl_risk'], 10)} | {_fmt(r['dcl_gap'])} |")
    lines += ["", f"k at which |∫CE − {'R~' if result['k_for_gap_loss'] == 'dcl' else 'R'}| falls below a threshold (and stays below on the doubling grid up to 2^39): " +
              ", ".join(f"{t}: {v if v is not None else '> 2^39'}" for t, v in result["k_for_gap"].items()), ""]
    if result.get("monte_carlo"):
        lines += ["## Monte Carlo cross-check", "", "| k | exact gap | MC gap | std. error | z | verdict |",
                  "|---|---|---|---|---|---|"]
        for r in result["monte_carlo"]:
            lines.append(f"| {r['k']} | {r['exact_gap']:.6g} | {r['mc_gap']:.6g} | {r['stderr']:.2g} | "
                         f"{_fmt(r['z'], 3)} | {r['verdict']} |")
        lines.append("")
    if result.get("compare"):
        lines += ["## Prop. 4: two versions of the embedding", "",
                  "| k | mean change | max change | worst ratio [4,1,3] | worst ratio [2,1,1] |", "|---|---|---|---|---|"]
        for r in result["compare"]["by_k"]:
            lines.append(f"| {r['k']} | {r['mean_change']:.4g} | {r['max_change']:.4g} | "
                         f"{r['prop4']['worst_ratio']:.4g} | {r['prop4_sharp']['worst_ratio']:.4g} |")
        lines.append("")
    lines += ["![gap against k](gap_vs_k.png)", ""]
    if result.get("tau_sweep"):
        lines += ["![tau sweep](tau_sweep.png)", ""]
    lines += [f"Method: {result['method']}.", ""]
    p = out / "report.md"
    p.write_text("\n".join(lines))
    written.append(p)
    return written
