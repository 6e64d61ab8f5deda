"""The report of ``infonce-sym verify``: a table, report.md, report.json and PNG plots."""
from __future__ import annotations

import json
import math
from pathlib import Path


def _fmt(x, spec=".3g"):
    if x is None:
        return "-"
    if isinstance(x, float) and (math.isinf(x) or math.isnan(x)):
        return str(x)
    return format(x, spec)


def table(results) -> str:
    """Plain-text table: result, paper reference, verdict, worst margin, time."""
    head = f"{'result':<34} {'paper':<22} {'verdict':<12} {'expected':<12} {'margin':>10} {'time':>7}"
    lines = [head, "-" * len(head)]
    for r in results:
        flag = "" if r.ok else "  <-- differs from expected"
        lines.append(f"{r.id[:34]:<34} {r.paper_ref[:22]:<22} {r.verdict:<12} {r.expected:<12} "
                     f"{_fmt(r.margin):>10} {r.seconds:>6.1f}s{flag}")
    bad = sum(not r.ok for r in results)
    lines.append("-" * len(head))
    lines.append(f"{len(results)} checks, {len(results) - bad} as expected, {bad} differ")
    return "\n".join(lines)


def write(out_dir, results, rows, meta) -> dict:
    """report.json (one entry per check), report.md and plots; returns the paths written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    payload = {"meta": meta, "checks": [r.as_json() for r in results]}
    (out / "report.json").write_text(json.dumps(payload, indent=2, default=_json_default))
    plots = _plots(out, rows)
    md = ["# infonce-sym verify report", "",
          f"Paper: Whiteley (2026), arXiv:2607.09405. Mode: {meta.get('mode')}. "
          f"{meta.get('checks')} checks, {meta.get('differ')} differ from their expected verdict.", "",
          "Verdicts: proved (CAS, each step named), certified (interval arithmetic), holds (exact values "
          "satisfy the bound; margin = relative slack at the worst point), consistent (Monte Carlo within "
          "its interval), violated (witness in report.json), inconclusive.", "",
          "| check | paper | verdict | expected | worst margin | tightness (bound/exact) | time |",
          "|---|---|---|---|---|---|---|"]
    for r in results:
        md.append(f"| {r.id} | {r.paper_ref} | {r.verdict} | {r.expected} | {_fmt(r.margin)} | "
                  f"{_fmt(r.tightness)} | {r.seconds:.1f}s |")
    md += ["", "## Plots", ""] + [f"![{p.stem}]({p.name})" for p in plots]
    md += ["", "Rendered derivations: `derivations/` in the repository; errata: `derivations/README.md`."]
    (out / "report.md").write_text("\n".join(md) + "\n")
    return {"json": out / "report.json", "markdown": out / "report.md", "plots": plots}


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
        fig.savefig(out / name, dpi=90)
        plt.close(fig)
        paths.append(out / name)
    return paths
