"""The report of ``infonce-sym verify``: a console table, report.md, report.json and PNG plots.

report.md lists the numeric checks first, then the derivations in their own table. Each numeric
check shows the statement it asserts (LaTeX, taken from the registry of proved statements), where
its margin is smallest, what its margin measures and, where a bound has an exact counterpart, its
tightness (bound / exact value at the tightest point)."""
from __future__ import annotations

import json
import math
from pathlib import Path
from ..errors import naming_the_file

# the files every report writes into its directory (the plots are named by model)
REPORT_FILES = (REPORT_JSON, REPORT_MD) = ("report.json", "report.md")

__all__ = ["table", "write", "statement_ids", "statement_latex", "tightness", "MARGIN_MEANING"]

#: one definition of the margin per kind of verdict (written into report.md)
MARGIN_MEANING = {
    "holds": "the smallest slack of the bound over every point checked, relative to the bound's size "
             "(the exact formula per check is in its 'margin is' entry); >= 0 means the bound holds at "
             "every point, 0 is equality.",
    "consistent": "how far the statistic lies inside its acceptance region, in the statistic's own unit "
                  "(standard errors for Monte Carlo against exact values, a probability for a coverage, "
                  "relative to the bound for Prop. 5's; each check's 'margin is' entry says which); "
                  ">= 0 means consistent.",
    "certified": "a derivation's verdict when a step is an interval certificate (not a CAS proof): the certified "
                 "slack at the worst box; >= 0 means certified.",
    "proved": "not used: every step is a CAS identity or a cited lemma (no margin).",
    "conditional": "a derivation's verdict when facts are used that nothing discharges (listed with it); no margin.",
    "violated": "negative: the amount by which the statement fails at the witness point.",
    "inconclusive": "the numbers cannot decide, and the check says why (no point could be checked, a vacuous "
                    "bound ...); a margin, where given, is the statistic's, as for consistent.",
}

#: checks whose id is not the registry id of their statement
_STATEMENT_ALIASES = {"LIP-17": ("L17",), "LIP-18": ("L18",), "P4-sharp": ("P4.sharp",),
                      "ASYMPTOTICS": ("EXP.infonce", "EXP.dcl", "EXP.search-dcl"),
                      "EXPANSION-BOUNDS": ("EXP.dcl.lower", "EXP.dcl.upper", "EXP.infonce.lower", "EXP.infonce.upper",
                                           "EXP.search-dcl.lower", "EXP.search-dcl.upper"),
                      "A2": ("A2.ratio", "A2.liminf")}


def _fmt(x, spec=".3g"):
    if x is None:
        return "-"
    if isinstance(x, float) and (math.isinf(x) or math.isnan(x)):
        return str(x)
    try:
        return format(x, spec)
    except (TypeError, ValueError):
        return str(x)


def _fit(text, width: int) -> str:
    """``text`` in ``width`` characters: padded, or cut with an ellipsis (never runs over)."""
    text = " ".join(str(text).split())
    return text.ljust(width) if len(text) <= width else text[: width - 1] + "…"


def is_derivation(r) -> bool:
    return r.id.startswith("derivation:")


def table(results, width: int = 118) -> str:
    """Console table: numeric checks, then derivations; every cell fits its column."""
    cols = [("result", 26), ("paper", 30), ("verdict", 12), ("expected", 12), ("margin", 9), ("time", 7)]
    cols[1] = ("paper", max(12, width - sum(w for _, w in cols if _ != "paper") - len(cols) + 1))
    head = " ".join(_fit(name, w) for name, w in cols)
    lines = []
    for title, group in (("numeric checks", [r for r in results if not is_derivation(r)]),
                         ("derivations", [r for r in results if is_derivation(r)])):
        if not group:
            continue
        lines += ["", title, head, "-" * len(head)]
        for r in group:
            cells = [r.id.removeprefix("derivation:"), r.paper_ref, r.verdict, r.expected, _fmt(r.margin),
                     f"{r.seconds:.1f}s"]
            line = " ".join(_fit(c, w) for c, (_, w) in zip(cells, cols)).rstrip()
            lines.append(line + ("" if r.ok else "  <-- differs from expected"))
    bad = sum(not r.ok for r in results)
    lines += ["-" * len(head), f"{len(results)} checks, {len(results) - bad} as expected, {bad} differ"]
    return "\n".join(lines[1:])


def statement_ids(r) -> list:
    """Registry ids of the statements check ``r`` asserts (declared by the check, else by its id)."""
    declared = r.details.get("statements") if isinstance(r.details, dict) else None
    if declared:
        return list(declared)
    try:
        from ..proofs.statement_registry import registry
        known = registry()
    except Exception:       # the report never fails for want of a statement
        return []
    cid = r.id.removeprefix("derivation:")
    if cid in _STATEMENT_ALIASES:
        return [i for i in _STATEMENT_ALIASES[cid] if i in known]
    if cid in known:
        return [cid]
    return [i for i in known if i.startswith(cid + ".") and i.count(".") == cid.count(".") + 1]


_RELATIONS = {"le": r"\le", "ge": r"\ge", "eq": "=", "lt": "<", "gt": ">", "<=": r"\le", ">=": r"\ge"}


def statement_latex(id: str):
    """``quantity relation bound`` of a registered statement in LaTeX, or None."""
    try:
        import sympy as sp
        from ..proofs.statement_registry import statement
        s = statement(id)
        rel = _RELATIONS.get(str(s.relation), str(s.relation))
        quantity = sp.latex(s.quantity) if s.quantity is not None else ""
        return f"{quantity} {rel} {sp.latex(s.expr)}".strip()
    except Exception:
        return None


def tightness(r):
    """(ratio, how): the check's own tightness, else bound/value at its worst point, else
    1/(actual/bound) of an attack; None where the bound has no exact counterpart."""
    d = r.details if isinstance(r.details, dict) else {}
    if r.tightness is not None:
        # the check's own reading where it gives one (P5's is a bound over a Monte Carlo estimate, not an exact value)
        return r.tightness, (d.get("tightness_is") or "bound / exact at the tightest point").split(":")[0]
    w = d.get("worst_point")
    if isinstance(w, dict) and _number(w.get("bound")) and _number(w.get("value")):
        b, v = float(w["bound"]), float(w["value"])
        if v != 0 and b / v > 0:
            return b / v, "bound / exact at the worst point"
    ratio = d.get("worst_ratio_actual_over_bound")
    if _number(ratio) and float(ratio) > 0:
        return 1 / float(ratio), "bound / largest value found by the attack"
    return None, None


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _where(r) -> str:
    d = r.details if isinstance(r.details, dict) else {}
    for key in ("worst_point", "witness"):
        w = d.get(key)
        if isinstance(w, dict) and w:
            return ", ".join(f"{k}={_fmt(v, '.4g') if _number(v) else v}" for k, v in w.items()
                             if k not in ("bound", "value") and not isinstance(v, (list, dict)))[:200]
    return "-"


def _md(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def write(out_dir, results, rows, meta) -> dict:
    """report.json (one entry per check), report.md and plots; returns the paths written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    payload = {"meta": meta, "checks": [r.as_json() for r in results]}
    with naming_the_file(out / REPORT_JSON):
        (out / REPORT_JSON).write_text(json.dumps(payload, indent=2, default=_json_default))
    plots = _plots(out, rows)
    numeric = [r for r in results if not is_derivation(r)]
    derivations = [r for r in results if is_derivation(r)]
    md = ["# infonce-sym verify report", "",
          f"Paper: Whiteley (2026), arXiv:2607.09405. Mode: {meta.get('mode')}. "
          f"{meta.get('checks')} checks, {meta.get('differ')} differ from their expected verdict.", "",
          "## What the margin means", "",
          "Each check ends in a verdict; its margin is defined once per kind of verdict:", ""]
    md += [f"- **{v}**: {MARGIN_MEANING[v]}" for v in MARGIN_MEANING]
    md += ["", "Tightness is bound / exact value where the bound has an exact counterpart (1 = the bound is "
           "attained; larger = looser), or the check's own reading, named beside it (P5: bound / a Monte Carlo "
           "estimate); '-' where it has none (Monte Carlo against exact values, coverage).", "",
           "## Numeric checks", "",
           "| check | paper | asserts | verdict | expected | worst margin | margin is | worst point | "
           "tightness | time |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in numeric:
        latex = [statement_latex(i) for i in statement_ids(r)]
        asserts = "<br>".join(f"${t}$" for t in latex if t) or _md(r.title)
        t, how = tightness(r)
        margin_is = (r.details.get("margin_is") if isinstance(r.details, dict) else None) or \
            MARGIN_MEANING.get(r.verdict, "").split(";")[0]
        md.append(f"| {r.id} | {_md(r.paper_ref)} | {asserts} | {r.verdict} | {r.expected} | {_fmt(r.margin)} | "
                  f"{_md(margin_is)} | {_md(_where(r))} | {_fmt(t)}{' (' + how + ')' if how else ''} | "
                  f"{r.seconds:.1f}s |")
    if derivations:
        md += ["", "## Derivations", "",
               "Each derivation is a chain of named CAS-checked steps (rendered in `derivations/`).", "",
               "| derivation | paper | statement | verdict | expected | generality | steps | failed steps | time |",
               "|---|---|---|---|---|---|---|---|---|"]
        for r in derivations:
            sid = r.id.removeprefix("derivation:")
            latex = statement_latex(sid)
            d = r.details if isinstance(r.details, dict) else {}
            failed = d.get("failed_steps") or []
            defines = d.get("defines") or []
            where = (f"; names defined by the chain (in the statement or its assumptions): {_md(', '.join(defines))} "
                     f"(`derivations/{sid}.md`)") if defines else ""
            md.append(f"| {sid} | {_md(r.paper_ref)} | {'$' + latex + '$' if latex else _md(r.title)}{where} | "
                      f"{r.verdict} | {r.expected} | "
                      f"{_md('only a special case: ' + d['generality']) if d.get('generality') else 'the paper' + chr(39) + 's'} | "
                      f"{d.get('steps', '-')} | "
                      f"{_md(', '.join(map(str, failed))) if failed else '-'} | {r.seconds:.1f}s |")
    md += ["", "## Plots", ""] + [f"![{p.stem}]({p.name})" for p in plots]
    md += ["", "Rendered derivations: `derivations/` in the repository; errata: `derivations/README.md`."]
    with naming_the_file(out / REPORT_MD):
        (out / REPORT_MD).write_text("\n".join(md) + "\n")
    return {"json": out / REPORT_JSON, "markdown": out / REPORT_MD, "plots": plots}


def _json_default(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return str(x)


def _plots(out: Path, rows):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from ..proofs.section3 import bound_function

    upper = bound_function("P1", "upper")
    paths = []
    models = sorted({r["model"] for r in rows})
    for model in models:
        sub = [r for r in rows if r["model"] == model]
        taus = sorted({r["tau"] for r in sub})
        fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
        for i, tau in enumerate(taus):
            pts = sorted((r["k"], r["info_gap"], r["dcl_gap"]) for r in sub if r["tau"] == tau)
            ks = [p[0] for p in pts]
            bound = [upper(k, tau) for k in ks]
            axes[0].loglog(ks, [abs(p[1]) for p in pts], "o-", color=f"C{i}",
                           label=rf"$|\int\mathrm{{CE}}-R|$, $\tau={tau:g}$")
            axes[0].loglog(ks, bound, "--", color=f"C{i}", alpha=0.6,
                           label=rf"Prop. 1: $(e^{{2/\tau}}-1)^2/(8k)$, $\tau={tau:g}$")
            axes[1].loglog(ks, [p[2] for p in pts], "o-", color=f"C{i}",
                           label=rf"$\int\mathrm{{CE}}-\widetilde{{R}}$, $\tau={tau:g}$")
            axes[1].loglog(ks, bound, "--", color=f"C{i}", alpha=0.6,
                           label=rf"(11): $(e^{{2/\tau}}-1)^2/(8k)$, $\tau={tau:g}$")
        axes[0].set_title(f"Prop. 1 on {model}")
        axes[1].set_title(f"eq. (11), DCL, on {model}")
        for ax in axes:
            ax.set_xlabel("k")
            ax.legend(fontsize=7)
        fig.tight_layout()
        name = "gap_" + "".join(ch if ch.isalnum() else "_" for ch in model) + ".png"
        with naming_the_file(out / name):
            fig.savefig(out / name, dpi=90)
        plt.close(fig)
        paths.append(out / name)
    return paths
