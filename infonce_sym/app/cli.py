"""The ``infonce-sym`` command line.

Subcommands: verify, risk, mc, expand, bench, rademacher, theorem1, derivations.
Bad input exits with status 2 and one line naming the parameter, never a traceback.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

from ..errors import InputError, check_digits, check_k, check_kappa, check_dim, check_tau, check_finite_real


class _Parser(argparse.ArgumentParser):
    def error(self, message):           # one line, status 2
        raise InputError("arguments", message)


def _model_options(p):
    p.add_argument("--model", default="sphere", help="sphere | finite | example-a2")
    p.add_argument("--dim", default="3", help="sphere dimension d (S^{d-1}), d >= 2")
    p.add_argument("--kappa", default="4", help="von Mises-Fisher concentration, >= 0")
    p.add_argument("--spec", help="finite model JSON file {pi, M, embedding}")
    p.add_argument("--delta", default="0", help="example-a2: inner product between distinct vectors")
    p.add_argument("--mixing", default="0.5", help="example-a2: M = (1-mixing) I + mixing pi")


def _build_model(args, tau):
    from ..models import SphereModel, example_a2, load_finite_model
    if args.model == "sphere":
        return SphereModel(check_dim(_number("dim", args.dim)), check_kappa(_number("kappa", args.kappa)))
    if args.model == "finite":
        if not args.spec:
            raise InputError("spec", "--model finite needs --spec FILE.json")
        return load_finite_model(args.spec)
    if args.model == "example-a2":
        return example_a2(tau, delta=check_finite_real("delta", args.delta),
                          mixing=check_finite_real("mixing", args.mixing))
    raise InputError("model", f"must be sphere, finite or example-a2, got {args.model!r}")


def _number(name, text):
    try:
        return float(text)
    except (TypeError, ValueError):
        raise InputError(name, f"must be a number, got {text!r}") from None


def _loss(text):
    if text not in ("infonce", "dcl"):
        raise InputError("loss", f"must be infonce or dcl, got {text!r}")
    return text


def cmd_risk(args):
    import mpmath
    from ..quantities.exact import QUANTITIES, exact_values
    tau = check_tau(_number("tau", args.tau))
    k = check_k(_number("k", args.k))
    digits = check_digits(_number("digits", args.digits))
    model = _build_model(args, tau)
    ev = exact_values(model, tau, k, digits=digits, loss=_loss(args.loss))
    strings = ev.as_strings()
    if args.json:
        out = {"model": model.label, "tau": args.tau, "k": k, "loss": args.loss, "digits": digits}
        out.update({key: strings[key] for key in QUANTITIES})
        out["undefined"] = ev.undefined
        out["precision_check_digits"] = round(ev.agreement_digits, 1)
        out["seconds"] = round(ev.seconds, 3)
        print(json.dumps(out, indent=2))
    else:
        print(f"{model.label}  tau={args.tau}  k={k}  loss={args.loss}  ({digits} digits, "
              f"unchanged to {ev.agreement_digits:.1f} digits at higher precision, {ev.seconds:.1f}s)")
        for key in QUANTITIES:
            print(f"  {key:<30} {strings[key] if strings[key] is not None else 'undefined: ' + ev.undefined.get(key, '')}")
        for key, value in ev.gaps.items():
            print(f"  {key:<30} {mpmath.nstr(value, 12)}")
    return 0


def cmd_mc(args):
    from ..quantities.montecarlo import monte_carlo
    tau = check_tau(_number("tau", args.tau))
    k = check_k(_number("k", args.k))
    samples = check_k(_number("samples", args.samples), "samples")
    seed = check_k(_number("seed", args.seed) + 1, "seed") - 1
    model = _build_model(args, tau)
    result = monte_carlo(model, tau, k, samples, seed, loss=_loss(args.loss))
    if args.json:
        print(json.dumps(result, indent=2, default=str))
    else:
        print(f"{model.label}  tau={tau:g}  k={k}  loss={args.loss}  samples={samples}  seed={seed}")
        for key in ("risk", "cross_entropy_limit", "search_cross_entropy", "density_ratio_second_moment"):
            r = result[key]
            if r.get("estimate") is None:
                print(f"  {key:<30} undefined: {r.get('reason', '')}")
            else:
                print(f"  {key:<30} {r['estimate']:.8g} ± {r['stderr']:.2g}  95% [{r['ci95'][0]:.8g}, {r['ci95'][1]:.8g}]")
    return 0


def cmd_expand(args):
    import mpmath
    from ..proofs.expansions import model_constants
    tau = check_tau(_number("tau", args.tau))
    digits = check_digits(_number("digits", args.digits))
    model = _build_model(args, tau)
    loss = _loss(args.loss)
    with mpmath.workdps(digits + 15):
        consts = model_constants(model, repr(tau), mpmath.mp)
        names = {"c1": "c1", "c2": "c2", "d1": "d1", "d2": "d2"} if loss == "infonce" else \
            {"c1": "c1t", "c2": "c2t", "d1": "d1t", "d2": "d2t"}
        out = {key: (mpmath.nstr(consts[name], digits, strip_zeros=False) if name in consts else None)
               for key, name in names.items()}
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        label = "∫CE - R" if loss == "infonce" else "∫CE - R~"
        print(f"{model.label}  tau={tau:g}  loss={loss}:  {label} = c1/k + c2/k^2 + O(k^-3),  "
              f"search CE - {'R' if loss == 'infonce' else 'R~'} = d1/k + d2/k^2 + O(k^-3)")
        for key, value in out.items():
            print(f"  {key} = {value}")
    return 0


def cmd_verify(args):
    from . import report, verify
    workers = max(1, int(args.workers))
    mode = "quick" if args.quick else "full"
    if workers > 1:
        with verify.default_executor(workers) as pool:
            results, rows, meta = verify.run(mode, pool)
    else:
        results, rows, meta = verify.run(mode)
    paths = report.write(args.out, results, rows, meta)
    if args.json:
        print(json.dumps({"meta": meta, "checks": [r.as_json() for r in results]}, indent=2, default=str))
    else:
        print(report.table(results))
        print(f"report: {paths['markdown']}  {paths['json']}  ({len(paths['plots'])} plots)  "
              f"total {meta['seconds']:.0f}s")
    return 0 if meta["differ"] == 0 else 1


def cmd_bench(args):
    from .benchmark import main as bench_main
    return bench_main(["--quick"] if args.quick else [])


def cmd_rademacher(args):
    from ..checks.rademacher import rademacher_experiment
    out = rademacher_experiment(**_section4_kwargs(args))
    print(json.dumps(out, indent=2, default=_jsonable) if args.json else _pretty(out))
    return 0


def cmd_theorem1(args):
    from ..checks.theorem1 import theorem1_experiment
    kw = _section4_kwargs(args)
    kw["delta"] = check_finite_real("delta", args.delta)
    kw["repeats"] = check_k(_number("repeats", args.repeats), "repeats")
    out = theorem1_experiment(**kw)
    print(json.dumps(out, indent=2, default=_jsonable) if args.json else _pretty(out))
    return 0


def _section4_kwargs(args):
    if args.data not in ("gaussian", "student-t"):
        raise InputError("data", f"must be gaussian or student-t, got {args.data!r}")
    return {"data": args.data.replace("-", "_"), "dim_in": check_k(_number("dim-in", args.dim_in), "dim-in"),
            "m": check_k(_number("m", args.m), "m"), "n": check_k(_number("n", args.n), "n"),
            "k": check_k(_number("k", args.k)), "tau": check_tau(_number("tau", args.tau)),
            "radius": _positive("radius", args.radius),
            "samples": check_k(_number("samples", args.samples), "samples"),
            "seed": check_k(_number("seed", args.seed) + 1, "seed") - 1}


def _positive(name, text):
    value = check_finite_real(name, _number(name, text))
    if value <= 0:
        raise InputError(name, f"must be > 0, got {value:g}")
    return value


def _jsonable(x):
    try:
        import numpy as np
        if isinstance(x, np.ndarray):
            return x.tolist()
        if isinstance(x, np.generic):
            return x.item()
    except ImportError:
        pass
    return str(x)


def _pretty(out):
    lines = []
    for key, value in out.items():
        if isinstance(value, (list, dict)) and len(str(value)) > 100:
            continue
        lines.append(f"  {key:<28} {value}")
    return "\n".join(lines)


def cmd_derivations(args):
    from ..proofs.render import render_all
    if args.audit or args.mutate:                 # prove_cli: the audit and the mutation report
        from . import prove_cli
        return prove_cli.run_audit(args) if args.audit else prove_cli.run_mutate(args)
    stale = render_all(args.out, check=args.check)
    if args.check:
        if stale:
            print("stale: " + ", ".join(map(str, stale)))
            return 1
        print("derivations are up to date")
    else:
        print(f"rendered derivations into {args.out}")
    return 0


def build_parser():
    p = _Parser(prog="infonce-sym", description="Symbolic-numeric companion to Whiteley (2026), "
                "Similarity search generalisation in contrastive learning with InfoNCE loss.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    v = sub.add_parser("verify", help="re-derive and re-check everything; write a report")
    v.add_argument("--quick", action="store_true", help="small grid (under 2 minutes)")
    v.add_argument("--out", default="report", help="report directory (default: report)")
    v.add_argument("--json", action="store_true")
    v.add_argument("--workers", default="2", help="processes for the exact grid")
    v.set_defaults(func=cmd_verify)

    r = sub.add_parser("risk", help="exact R (or R~), ∫CE, search CE and E|dM/dpi|^2")
    _model_options(r)
    r.add_argument("--tau", required=True)
    r.add_argument("--k", required=True)
    r.add_argument("--loss", default="infonce")
    r.add_argument("--digits", default="30")
    r.add_argument("--json", action="store_true")
    r.set_defaults(func=cmd_risk)

    m = sub.add_parser("mc", help="Monte Carlo estimates with standard errors and 95% intervals")
    _model_options(m)
    m.add_argument("--tau", required=True)
    m.add_argument("--k", required=True)
    m.add_argument("--samples", required=True)
    m.add_argument("--seed", required=True)
    m.add_argument("--loss", default="infonce")
    m.add_argument("--json", action="store_true")
    m.set_defaults(func=cmd_mc)

    e = sub.add_parser("expand", help="exact 1/k and 1/k^2 constants c1, c2, d1, d2")
    _model_options(e)
    e.add_argument("--tau", required=True)
    e.add_argument("--loss", default="infonce")
    e.add_argument("--digits", default="30")
    e.add_argument("--json", action="store_true")
    e.set_defaults(func=cmd_expand)

    b = sub.add_parser("bench", help="speed figures (exact values, Monte Carlo throughput)")
    b.add_argument("--quick", action="store_true")
    b.set_defaults(func=cmd_bench)

    for name, func, helptext in (("rademacher", cmd_rademacher, "Monte Carlo empirical Rademacher complexity vs Prop. 5"),
                                 ("theorem1", cmd_theorem1, "Theorem 1 end to end with coverage")):
        s = sub.add_parser(name, help=helptext)
        s.add_argument("--data", default="gaussian")
        s.add_argument("--dim-in", default="2")
        s.add_argument("--m", default="1")
        s.add_argument("--n", default="50")
        s.add_argument("--k", default="16")
        s.add_argument("--tau", default="0.5")
        s.add_argument("--radius", default="1")
        s.add_argument("--samples", default="100")
        s.add_argument("--seed", default="0")
        s.add_argument("--json", action="store_true")
        if name == "theorem1":
            s.add_argument("--delta", default="0.1")
            s.add_argument("--repeats", default="10")
        s.set_defaults(func=func)

    d = sub.add_parser("derivations", help="render derivations/*.md (or --check they are current)")
    d.add_argument("--out", default="derivations")
    d.add_argument("--check", action="store_true")
    d.add_argument("--audit", action="store_true", help="per derivation: assumptions, cites, lemmas, hypotheses, undischarged")
    d.add_argument("--mutate", action="store_true", help="run every mutant of every chain (minutes); exit 1 if one survives")
    d.add_argument("--json", action="store_true", help="print JSON")
    d.set_defaults(func=cmd_derivations)
    from .prove_cli import add_parser as add_prove_parser                # infonce-sym prove
    add_prove_parser(sub)
    from .embeddings_cli import add_parser as add_embeddings_parser      # infonce-sym embeddings
    add_embeddings_parser(sub)
    return p


def main(argv=None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        return args.func(args)
    except InputError as exc:
        print(f"infonce-sym: error: {exc}", file=sys.stderr)
        return 2
    except ArithmeticError as exc:
        print(f"infonce-sym: numerical failure: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as exc:   # one line, not a traceback; INFONCE_SYM_DEBUG=1 re-raises
        if os.environ.get("INFONCE_SYM_DEBUG"):
            raise
        print(f"infonce-sym: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
