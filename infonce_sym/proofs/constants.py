"""The constants explorer: re-run a derivation with its constants replaced (issue 9, item 5).

``build(id, consts)`` returns fresh derivations (one, or one per case of a case split) whose
statement carries the constants ``consts``:

* structural rebuilds, where the constants enter the argument itself: ``P4``, ``P4.sharp``
  (``c_a, c_p, c_n`` in ``(c_a Da + c_p Dp + c_n e^{2/(beta tau)} PM)/tau``), ``L1.50``,
  ``L1.50.sharp`` (the same three, per tuple), ``L1``, ``L1.sharp`` (the proof's form
  ``rho_n <= (C_Phi/tau)(c_a Ra + c_p Rp + c_n e Nn) ||theta - theta'||``, both cases of (52));
  the chain is rebuilt with the constants (P4 with them, L1.50 citing that P4, L1 citing that
  L1.50), so unsupported constants fail at a named step (a witness term that is negative);
* weakenings, where the proof has one set of constants: ``L2.upper``, ``P1.upper`` (``1/8`` in
  ``(e^{2c} - 1)^2/(8k)``), ``P3`` (``2, 12`` in ``R_hat + 2 Rad + (12/tau) sqrt(log(2/delta)/(2n))``),
  ``P5`` (``96``, both cases), ``T1`` (``192, 12``): the chain is the paper's plus a last step
  "constants" (the paper's bound <= the new bound), which the CAS checks, so constants below the
  paper's fail at that step.

:func:`explore` runs a build and reports ``verdict``, ``failed_step`` and ``reason``; a build is
*accepted* when no step fails and it leaves no undischarged fact beyond those of the paper's own
constants (for a chain that is conditional at the paper's constants, acceptance is "no worse").
:func:`smallest` bisects on rationals, by full re-runs, for the smallest accepted value of each
constant with the others at the paper's values.
"""
from __future__ import annotations

import copy
import functools
from fractions import Fraction

import sympy as sp

from .chain import Assumption, NonNegative, Step, le, ge, relation_kind

__all__ = ["EXPLORABLE", "build", "explore", "smallest"]

from .explorable import EXPLORABLE  # noqa: E402  (data only: the CLI reads it without SymPy)


def _rat(x):
    if isinstance(x, sp.Basic):
        return x
    f = Fraction(x).limit_denominator(10 ** 12)
    return sp.Rational(f.numerator, f.denominator)


def _weaken(d, new_statement, extra_assumptions=()):
    """``d`` followed by the step "constants": d.statement <= new_statement (CAS: the gap is >= 0)."""
    rel = relation_kind(d.steps[-1].claim) if d.relation == "eq" else d.relation
    mk = ge if rel in ("ge", "gt") else le
    step = Step("constants", "explorer", mk(d.statement, new_statement),
                "the bound with the new constants is implied by the proved one", NonNegative())
    out = copy.copy(d)
    out.steps = list(d.steps) + [step]
    out.statement = new_statement
    out.relation = d.relation if d.relation != "eq" else rel
    out.assumptions = list(d.assumptions) + list(extra_assumptions)
    out.title = f"{d.title} [constants replaced]"
    return out


def build(id, consts):
    """Fresh derivations of ``id`` with the constants ``consts`` (see the module docstring)."""
    from . import section3 as S3, section4 as S4
    from . import statements as B4
    if id not in EXPLORABLE:
        raise KeyError(id)
    default = EXPLORABLE[id][0]
    if len(consts) != len(default):
        raise ValueError(f"{id} has {len(default)} constant(s): {EXPLORABLE[id][1]}")
    c = tuple(_rat(x) for x in consts)
    if id == "P4":
        return [S4.build_prop4(consts=c)[0]]
    if id == "P4.sharp":
        return [S4.build_prop4(sharp=c)[1]]
    if id in ("L1.50", "L1.50.sharp", "L1", "L1.sharp"):
        sharp = "sharp" in id
        p4 = S4.build_prop4(sharp=c)[1] if sharp else S4.build_prop4(consts=c)[0]
        l50 = S4.build_lemma1_tuple(p4, c, ".sharp" if sharp else "")
        if id.startswith("L1.50"):
            return [l50]
        return [S4.build_lemma1(l50, c, case, ".sharp" if sharp else "", False) for case in ("lt1", "ge1")]
    if id == "L2.upper":
        d = S3.BY_ID["L2.upper"]
        return [_weaken(d, c[0] * (sp.exp(2 * S3.c) - 1) ** 2 / S3.k)]
    if id == "P1.upper":
        d = S3.BY_ID["P1.upper"]
        return [_weaken(d, c[0] * (sp.exp(2 / S3.tau) - 1) ** 2 / S3.k)]
    if id == "P3":
        d = S4.BY_ID["P3"]
        rad = S4.P3_RAD
        new = B4.R_hat + c[0] * rad + c[1] / B4.tau * S4.sqrt_conf()
        extra = [Assumption("Rad >= 0 (E sup_phi >= sup_phi E = 0: the empirical Rademacher complexity is nonnegative)",
                            ge(rad, 0), derived=True),
                 Assumption("sqrt(log(2/delta)/(2n)) >= 0 (delta < 1)", ge(S4.sqrt_conf(), 0), derived=True)]
        out = _weaken(d, new, extra)
        r, q = sp.symbols("r_Rad q_conf", nonnegative=True)
        out.steps[-1] = Step("constants", "explorer", le(d.statement, new),
                             "the bound with the new constants is implied by the proved one (Rad >= 0)",
                             NonNegative([(c[0] - 2) * r, (c[1] - 12) * q / B4.tau], {r: rad, q: S4.sqrt_conf()}))
        return [out]
    if id == "P5":
        new = c[0] / 96 * B4.BOUNDS["prop5"]
        return [_weaken(S4.BY_ID[i], new) for i in ("P5.a-ge-1", "P5.a-le-1")]
    if id == "T1":
        d = S4.BY_ID["T1"]
        complexity, sample = B4.BOUNDS["theorem1_complexity"], B4.BOUNDS["theorem1_sample"]
        new = B4.R_hat + c[0] / 192 * complexity + c[1] / 12 * sample + B4.BOUNDS["theorem1_bias"]
        # as P3's: the sample term's sqrt(log(2/delta)) is >= 0 for delta < 1, which the CAS does not see
        # from the symbols alone (a larger c2 was reported failed); both terms as nonnegative symbols
        extra = [Assumption("the complexity term >= 0 (tau, n, d_Theta, A > 0)", ge(complexity, 0), derived=True),
                 Assumption("the sample term (12/tau) sqrt(log(2/delta)/(2n)) >= 0 (delta < 1)", ge(sample, 0),
                            derived=True)]
        out = _weaken(d, new, extra)
        r, q = sp.symbols("r_complexity q_sample", nonnegative=True)
        out.steps[-1] = Step("constants", "explorer", le(d.statement, new),
                             "the bound with the new constants is implied by the proved one (both terms >= 0)",
                             NonNegative([(c[0] / 192 - 1) * r, (c[1] / 12 - 1) * q], {r: complexity, q: sample}))
        return [out]
    raise KeyError(id)  # pragma: no cover


def _first_failure(d, res):
    for s, r in zip(d.steps, res.steps):
        if not r.ok:
            return s.name, r.detail
    for r in res.links:
        if not r.ok:
            return "link", r.detail
    if not res.final.ok:
        return "chain", res.final.detail
    for n, t in res.undischarged:          # a cited derivation that fails (e.g. P4 rebuilt with the constants)
        if "is failed" in t:
            return n, t
    return None, None


@functools.lru_cache(maxsize=None)
def _base_runs(id):
    """The builds at the paper's constants and their runs (the same for every explore of ``id``: built and run once)."""
    builds = build(id, EXPLORABLE[id][0])
    return tuple(builds), tuple(d.run() for d in builds)


def explore(id, consts):
    """{"id", "constants", "verdict", "accepted", "failed_step", "reason", "cases", "undischarged"}."""
    base_builds, base = _base_runs(id)
    at_papers = tuple(_rat(x) for x in consts) == tuple(_rat(x) for x in EXPLORABLE[id][0])
    # at the paper's own constants the build is the base's (the same constants, the same chains): its runs serve
    runs, results = (base_builds, base) if at_papers else (build(id, consts), None)
    cases, verdict, failed, reason, accepted, undis = [], "proved", None, None, True, []
    order = {"proved": 0, "certified": 1, "conditional": 2, "failed": 3}
    for i, (d, b) in enumerate(zip(runs, base)):
        r = results[i] if results is not None else d.run()
        step, why = _first_failure(d, r)
        new = [f"{n}: {t}" for n, t in r.undischarged if (n, t) not in set(b.undischarged)]
        if step is None and new:
            step, why = new[0].split(": ", 1)[0], "undischarged: " + new[0].split(": ", 1)[1]
        cases.append({"id": d.id, "verdict": r.verdict, "failed_step": step, "reason": why,
                      "undischarged": [f"{n}: {t}" for n, t in r.undischarged]})
        undis += cases[-1]["undischarged"]
        if order[r.verdict] > order[verdict]:
            verdict = r.verdict
        if step is not None and failed is None:
            failed, reason = f"{d.id} / {step}", why
        accepted &= r.verdict != "failed" and not new
    return {"id": id, "constants": [str(x) for x in consts], "verdict": verdict, "accepted": accepted,
            "failed_step": failed, "reason": reason, "cases": cases, "undischarged": undis}


def smallest(id, steps=12):
    """For each constant, the smallest rational (others at the paper's values) whose build is
    accepted, by bisection on [0, paper's value] with full re-runs; a 'nice' rational (small
    denominator) inside the final bracket is preferred, and every reported value is re-run."""
    default = [Fraction(x) for x in EXPLORABLE[id][0]]
    out = []
    accepted = {}                  # constants -> accepted (the paper's constants recur on every axis)
    for axis in range(len(default)):
        def ok(v):
            cs = list(default)
            cs[axis] = v
            key = tuple(cs)
            if key not in accepted:
                accepted[key] = explore(id, [_rat(x) for x in cs])["accepted"]
            return accepted[key]
        hi = default[axis]
        if not ok(hi):
            out.append({"axis": axis, "smallest": None, "note": "not accepted at the paper's value"})
            continue
        lo = Fraction(0)
        if ok(lo):
            out.append({"axis": axis, "smallest": "0", "bracket": ["0", "0"]})
            continue
        for _ in range(steps):
            mid = (lo + hi) / 2
            if ok(mid):
                hi = mid
            else:
                lo = mid
        best = hi
        for den in range(1, 65):                       # the simplest rational in (lo, hi] that is accepted
            v = Fraction(lo.numerator * den // lo.denominator + 1, den)
            if v <= hi and (v == hi or ok(v)):
                best = v
                break
        out.append({"axis": axis, "smallest": str(best), "bracket": [str(lo), str(hi)]})
    return out
