"""``infonce-sym prove ID [--constants a,b,c] [--json] [--smallest]`` and the ``derivations
--audit`` / ``--mutate`` reports.

``prove`` re-runs a derivation with its constants replaced (:mod:`infonce_sym.proofs.constants`)
and prints *proved* or the first failing step with the reason; exit 0 when proved, 1 when not,
2 for bad input.  ``--smallest`` searches, by full re-runs, for the smallest constant along each
axis that the chain accepts (bisection on rationals, the others at the paper's values).
"""
from __future__ import annotations

import json
import re
from fractions import Fraction

from ..errors import InputError, shown

__all__ = ["add_parser", "run", "read_constants", "run_audit", "run_mutate"]


def add_parser(subparsers):
    """Add ``prove`` to the subcommands (``subparsers`` from ``add_subparsers``)."""
    from ..proofs.explorable import EXPLORABLE
    p = subparsers.add_parser(
        "prove", help="re-run a derivation with its constants replaced (the constants explorer)",
        description="Re-run derivation ID with the constants of its statement replaced: "
                    + "; ".join(f"{k} {list(v[0])}: {v[1]}" for k, v in EXPLORABLE.items())
                    + ". Prints the verdict, or the first failing step and why.")
    p.add_argument("id", metavar="ID", help="one of " + ", ".join(EXPLORABLE))
    p.add_argument("--constants", metavar="A,B,C", default=None,
                   help="the constants, comma-separated rationals or decimals, each in [0, 10^6] (at most 60 "
                        "characters, exponent within +-40) (default: the paper's)")
    p.add_argument("--smallest", action="store_true",
                   help="search the smallest accepted constant along each axis from the paper's (full re-runs, "
                        "bisection); not with --constants")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)
    return p


# ASCII digits only (Fraction alone reads '1_0' and Unicode digits, and builds 10^999999999 for '1e999999999')
_CONSTANT = re.compile(r"[+-]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE]([+-]?[0-9]+))?|[0-9]+/[0-9]+)", re.ASCII)


def read_constants(id, text):
    """The constants typed for ``id``: exact rationals (``7/2``, ``3.5``), their number checked."""
    from ..proofs.explorable import EXPLORABLE
    if id not in EXPLORABLE:
        raise InputError("ID", f"no constants to explore for {id!r}; one of: {', '.join(EXPLORABLE)}")
    default = EXPLORABLE[id][0]
    if text is None:
        return [Fraction(x) for x in default]
    parts = [t.strip() for t in str(text).split(",")]
    if len(parts) != len(default):
        raise InputError("--constants", f"{id} takes {len(default)} constant(s) ({EXPLORABLE[id][1]}); got {text!r}")
    out = []
    for t in parts:
        m = _CONSTANT.fullmatch(t)
        if m is None or len(t) > 60 or (m.group(1) is not None and abs(int(m.group(1))) > 40):
            raise InputError("--constants", f"not a rational number written like 7/2, 3.5 or 2e-3 (at most 60 "
                             f"characters, exponent within +-40): {shown(t)}")
        try:
            v = Fraction(t)
        except (ValueError, ZeroDivisionError):
            raise InputError("--constants", f"not a rational number: {t!r}") from None
        if v < 0 or v > 10 ** 6:
            raise InputError("--constants", f"each constant must lie in [0, 10^6]; got {t}")
        out.append(v)
    return out


def _fmt(v):
    return str(v)


def run(args):
    from ..proofs.constants import explore, smallest
    consts = read_constants(args.id, args.constants)
    if args.smallest and args.constants is not None:
        # the search starts from the paper's constants and varies one axis at a time; --constants was ignored
        raise InputError("--constants", "and --smallest exclude each other: --smallest searches from the paper's "
                                        "constants, one axis at a time")
    if args.smallest:
        res = smallest(args.id)
        if args.json:
            print(json.dumps({"id": args.id, "smallest": res}, indent=2))
        else:
            for r in res:
                print(f"{args.id} constant {r['axis'] + 1}: smallest accepted "
                      + (r["smallest"] if r["smallest"] is not None else f"none ({r.get('note')})")
                      + (f" (bisection bracket ({r['bracket'][0]}, {r['bracket'][1]}])" if "bracket" in r else ""))
        return 0
    out = explore(args.id, [_to_sympy(c) for c in consts])
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        head = f"{args.id} with constants [{', '.join(map(_fmt, consts))}]: {out['verdict']}"
        if out["failed_step"]:
            head += f"; first failing step: {out['failed_step']} -- {out['reason']}"
        print(head)
        if out["verdict"] == "conditional":
            for u in out["undischarged"]:
                print(f"  undischarged: {u}")
        if out["verdict"] == "failed":
            # 'failed' is the chain's, not the statement's: P4 with [2, 1, 1] fails here and P4.sharp proves it
            print(f"  (this chain does not prove the statement with these constants; that is no counterexample: "
                  f"`infonce-sym prove {args.id} --smallest` gives the smallest it accepts)")
    return 0 if out["verdict"] == "proved" else 1


def _to_sympy(f):
    import sympy as sp
    return sp.Rational(f.numerator, f.denominator)


# ------------------------------------------------------------------ derivations --audit / --mutate

def run_audit(args):
    """``derivations --audit [--json]``: one record per derivation (render.audit_record)."""
    from ..proofs import all_derivations
    from ..proofs.render import audit_record
    recs = [audit_record(d) for d in all_derivations()]
    if getattr(args, "json", False):
        # one JSON object, as --json promises everywhere (it was the bare list of records: a probe, Dec 2026)
        print(json.dumps({"command": "derivations", "inputs": getattr(args, "typed", {}), "audit": recs}, indent=2))
        return 0
    for r in recs:
        print(f"{r['id']}: {r['verdict']} (declared {r['declared']}); cites: {', '.join(r['cites']) or '-'}; "
              f"undischarged: {r['undischarged']}; assumed consequences: {r['assumed_consequences']}; "
              f"generality: {r['generality']}")
        print(f"    statement: {r['statement'][:200]}")
        for a in r["assumptions"]:
            print(f"    assumption: {a['text']}" + (f"  [{a['relation']}]" if a["relation"] else "")
                  + ("  (assumed consequence)" if a["derived"] else ""))
        for a in r["carried_assumptions"]:
            print(f"    carried assumption: {a['text']}  (from {a['from']})")
        print(f"    library lemmas: {', '.join(r['lemmas']) or '-'}")
        for h in r["hypotheses"]:
            print(f"    hypothesis [{h['step']}] {h['hypothesis'][:120]} <- {h['discharged_by'][:100]}")
        for u in r["undischarged_list"]:
            print(f"    UNDISCHARGED [{u['step']}] {u['premise'][:160]}")
    return 0


def run_mutate(args):
    """``derivations --mutate [--json]``: every mutant of every chain; exit 1 if any survives."""
    from ..proofs import all_derivations
    from ..proofs.mutants import run_mutants
    res = run_mutants(all_derivations())
    if getattr(args, "json", False):
        print(json.dumps(res, indent=2))
    else:
        print(f"mutants: {res['mutants']}  killed: {res['killed']}  survivors: {len(res['survivors'])}")
        for k, v in res["by_kind"].items():
            print(f"  {k:<11} {v['killed']}/{v['mutants']} killed")
        for s in res["survivors"]:
            print(f"  SURVIVOR {s['where']} [{s['kind']}] {s['mutation']}: {s['why']}")
        for e in res["equivalent_skipped"]:
            print(f"  equivalent (skipped, changes nothing): {e}")
    return 0 if not res["survivors"] else 1
