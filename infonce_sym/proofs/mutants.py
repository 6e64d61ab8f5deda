"""Mutants of every part of every chain: each must be killed (issue 9, item 7).

A mutant edits one thing a proof relies on and is *killed* when the edited step no longer proves
its claim from what the derivation may use: its check fails, or it leaves a fact that no
assumption of the statement, no cited derivation and no library lemma discharges.  Kinds:

* ``claim`` -- a constant of a step's claim changed, an additive term dropped, the relation flipped;
* ``hypothesis`` -- a slack ``s = e >= 0`` of a :class:`NonNegative` check strengthened to
  ``e - 1 >= 0`` with the witness compensated (so the algebra still closes: only the discharge
  can kill it -- the issue's counterexample is of this kind), or a relational assumption of the
  statement that discharges something, with a constant changed;
* ``witness`` -- a witness term of a :class:`NonNegative` check doubled, or dropped;
* ``citation`` -- a parameter of a lemma or derivation instance changed (``v -> v + 1``, a
  ``Lambda`` body ``+ 1``), or the cited derivation's statement changed;
* ``context`` -- the body of a monotone context / the wrapping of a citation changed;
* ``quoted`` -- the conclusion of the lemma a step quotes changed (its right side ``+ 1``).

:func:`mutants` lists them (deterministically; ``sample`` keeps at most that many per derivation
and kind, chosen by a seeded shuffle), :func:`run_mutants` runs them.
"""
from __future__ import annotations

import copy
import random
from dataclasses import dataclass

import sympy as sp

from .chain import (AsGap, Assumption, ByCases, ByLemma, Derivation, ExactInstance, Identity, NonNegative, Step, canon, cited_result,
                    make_relation, numerically_zero, relation_kind)

__all__ = ["Mutant", "mutants", "run_mutants", "claim_mutations", "KINDS"]

KINDS = ("claim", "hypothesis", "witness", "citation", "context", "quoted")
_FLIP = {"le": "ge", "ge": "le", "lt": "gt", "gt": "lt", "eq": "lt"}


@dataclass
class Mutant:
    derivation: Derivation
    step_index: int           # -1: a derivation-level mutant (an assumption)
    kind: str
    label: str
    step: Step = None         # the mutated step (claim and/or check)
    mutated: Derivation = None  # for assumption mutants: the mutated derivation

    @property
    def where(self):
        name = self.derivation.steps[self.step_index].name if self.step_index >= 0 else "(assumptions)"
        return f"{self.derivation.id} / {name}"


# ------------------------------------------------------------------ claim mutations

def claim_mutations(claim):
    """Constants of the rhs (c -> c + 1 for rationals, c -> 1.1 c for floats), each dropped
    additive term of the rhs, and the flipped relation ('=' becomes '<')."""
    return [(label, build()) for label, build in _claim_mutation_builders(claim)]


def _claim_mutation_builders(claim):
    """(label, build) for each of :func:`claim_mutations`, built on demand: a changed constant rebuilds
    the whole side (seconds for a side with an integral), and a sampled run builds only what it draws."""
    kind = relation_kind(claim)
    lhs, rhs = claim.lhs, claim.rhs
    side = rhs if rhs.atoms(sp.Number) else lhs
    out = []
    for n in sorted(side.atoms(sp.Number), key=sp.default_sort_key):
        new = n + 1 if n.is_Rational else n * sp.Float("1.1")

        def constant(n=n, new=new):
            mut = _replace_constant(side, n, new)
            return make_relation(kind, lhs, mut) if side is rhs else make_relation(kind, mut, rhs)
        out.append((f"constant {n} -> {new}", constant))
    if isinstance(rhs, sp.Add) and len(rhs.args) > 1:
        for t in rhs.args:
            out.append((f"drop {t}", lambda t=t: make_relation(kind, lhs, sp.Add(*[a for a in rhs.args if a is not t]))))
    out.append((f"flip {kind}", lambda: make_relation(_FLIP[kind], lhs, rhs)))
    return out


def _replace_constant(expr, n, new):
    """``expr.xreplace({n: new})``, except that an ``Abs`` of an integral stays an ``Abs``: SymPy's
    ``Abs.eval`` on a changed integral (whose realness it cannot decide) takes seconds and returns
    sqrt(expand(I conj(I))), a form no step claims; the mutant is the claim with the constant
    changed and nothing else."""
    if expr == n:
        return new
    if not expr.args:
        return expr
    args = [_replace_constant(a, n, new) for a in expr.args]
    if all(a is b for a, b in zip(args, expr.args)):
        return expr
    if isinstance(expr, sp.Abs) and args[0].has(sp.Integral):
        return sp.Abs(args[0], evaluate=False)
    return expr.func(*args)


def _symbolic_sums(e):
    return any(not all(x.is_number for x in lim[1:]) for s_ in e.atoms(sp.Sum) for lim in s_.limits)


def _same_integrands(claim, mutated, trials=3):
    def ranges(rel):
        return sorted((str(e.limits) for e in sp.sympify(rel).atoms(sp.Integral)))
    if ranges(claim) != ranges(mutated):
        # the integrands at a point say nothing of a changed range (int_0^1 y dx -> int_0^2 y dx, whose integrand y
        # does not move, was skipped as equivalent; a probe, Dec 2026)
        return False
    rng = random.Random(2)

    def gap(rel, point):
        g = rel.rhs - rel.lhs
        return g.replace(lambda e: isinstance(e, sp.Integral),
                         lambda e: (e.function if _symbolic_sums(e.function) else e.function.doit())
                         .subs(e.limits[0][0], point(e.limits[0])))
    for t in range(trials):
        u = rng.uniform(0.1, 0.9)
        point = lambda lim: lim[1] + u * (lim[2] - lim[1])  # noqa: E731
        d = gap(claim, point) - gap(mutated, point)
        if _symbolic_sums(d):          # sums over a symbolic d, k, m: evaluate at concrete sizes (continuity)
            from .continuity import spot_zero
            try:
                if not spot_zero(d, trials=1, seed=t):
                    return False
            except TypeError:          # not evaluable at a point: count the mutant (it must be killed)
                return False
        elif not numerically_zero(d, trials=1, seed=t):
            return False
    return True


def equivalent(claim, mutated):
    """Same relation and the same gap function (the mutation changes nothing)."""
    if relation_kind(claim) != relation_kind(mutated):
        return False
    if claim.has(sp.Integral) or mutated.has(sp.Integral):
        return claim == mutated or _same_integrands(claim, mutated)
    # canon rewrites to an equal value, so the difference of the gaps may be canonicalised whole: the
    # terms the mutation left alone cancel before canon expands any expectation
    d = canon((claim.rhs - claim.lhs) - (mutated.rhs - mutated.lhs))
    return bool(numerically_zero(d, trials=3, seed=1))


# ------------------------------------------------------------------ check-level mutations

def _plus_one(v):
    if isinstance(v, sp.Lambda):
        return sp.Lambda(v.variables, v.expr + 1)
    if isinstance(v, (list, tuple)):
        return [_plus_one(v[0])] + list(v[1:]) if v else v
    if isinstance(v, dict):
        return v
    if isinstance(v, sp.FunctionClass):
        return v
    try:
        return sp.sympify(v) + 1
    except (sp.SympifyError, TypeError):
        return v


def _lemma_with(lemma, conclusion):
    new = copy.copy(lemma)
    new.conclusion = conclusion
    return new


EQUIVALENT: list = []      # mutants skipped because they change nothing (filled by mutants())


def _same_instance(a, b):
    """The two lemma checks instantiate to the same conclusion and hypotheses (an equivalent mutant,
    e.g. a parameter the cited statement does not depend on)."""
    try:
        ca, ha = a.lemma.instantiate(a.subs)
        cb, hb = b.lemma.instantiate(b.subs)
        relational = getattr(a.lemma, "relational_hypotheses", None)
        if relational is not None and relational is getattr(b.lemma, "relational_hypotheses", None):
            # a citation's domain conditions (b > 0 at b = 1, at b = 2) are checked by the check itself: a value
            # that changes only them, both true, changes nothing (DCL-11.upper's b, which cancels at ell = 0)
            ha = relational(**{k: a.subs[k] for k in a.lemma.params})
            hb = relational(**{k: b.subs[k] for k in b.lemma.params})
    except Exception:  # pragma: no cover
        return False
    if len(ha) != len(hb) or not _same_sides(ca, cb):
        return False
    return all(x == y or _same_sides(x, y) for x, y in zip(ha, hb))


def _same_sides(a, b):
    """The same relation with the same left side and the same right side (not merely the same gap)."""
    if relation_kind(a) != relation_kind(b):
        return False
    for x, y in ((a.lhs, b.lhs), (a.rhs, b.rhs)):
        if x == y:
            continue
        if x.has(sp.Integral) or y.has(sp.Integral):
            return False
        difference = canon(x) - canon(y)
        # random points first (cheap, and they refute most); then the CAS must confirm: sides that agree
        # only where the points fall (y + |x - y| against 1 + |x - 1| at x >= y, 1) are not the same
        if not numerically_zero(difference, trials=3, seed=1) or not Identity().zero(difference):
            return False
    return True


def _check_mutants(check):
    """(kind, label, build) for one check object (recursing into hypothesis checks): ``build()`` makes the
    mutated check, or returns None for an equivalent mutant (recorded in EQUIVALENT). Building is
    deferred because a witness compensation simplifies and an equivalence test instantiates lemmas:
    a sampled run builds only the mutants it draws."""
    out = []
    if isinstance(check, NonNegative) and check.witness is not None:
        terms = [sp.sympify(t) for t in check.witness]
        used = sp.Add(*terms).free_symbols
        for s_, e_ in check.hyps.items():
            if s_ not in used or s_ in check.by:
                continue

            def slack(s_=s_, e_=e_):
                old_total = sp.Add(*terms).subs(list(check.hyps.items()))
                hyps = {**check.hyps, s_: e_ - 1}
                new_total = sp.Add(*terms).subs(list(hyps.items()))
                m = copy.copy(check)
                m.hyps, m.witness = hyps, terms + [sp.simplify(old_total - new_total)]
                return m
            out.append(("hypothesis", f"slack {s_} = {e_} -> {e_ - 1} (witness compensated)", slack))
        for i, t in enumerate(terms):
            if t == 0:
                continue

            def doubled(i=i, t=t):
                m = copy.copy(check)
                m.witness = terms[:i] + [2 * t] + terms[i + 1:]
                return m

            def dropped(i=i):
                m = copy.copy(check)
                m.witness = terms[:i] + terms[i + 1:]
                return m
            out.append(("witness", f"witness term {i} doubled", doubled))
            out.append(("witness", f"witness term {i} dropped", dropped))
    if isinstance(check, (ByLemma, ExactInstance)):
        for key, val in check.subs.items():
            new = _plus_one(val)
            if new is val or new == val:
                continue

            def parameter(key=key, new=new):
                m = copy.copy(check)
                m.subs = {**check.subs, key: new}
                if _same_instance(check, m):
                    EQUIVALENT.append(f"{check.lemma.name[:50]}: parameter {key} -> {str(new)[:40]} (same instance)")
                    return None
                return m
            out.append(("citation", f"parameter {key} -> {str(new)[:60]}", parameter))
        lem = check.lemma
        kind = "citation" if lem.derivation is not None else "quoted"

        def bumped_lemma():
            def bumped(*a, _c=lem.conclusion, **kw):
                r = _c(*a, **kw)
                return make_relation(relation_kind(r), r.lhs, r.rhs + 1)
            m = copy.copy(check)
            m.lemma = _lemma_with(lem, bumped)
            return m
        out.append((kind, f"conclusion of {lem.name[:50]} (+1 on its right side)", bumped_lemma))
        if check.context is not None:
            (u,), body = check.context.variables, check.context.expr
            for label, nb in (("+ 1", body + 1), ("x 2", 2 * body)):
                def context(nb=nb):
                    m = copy.copy(check)
                    m.context = sp.Lambda(u, nb)
                    return m
                out.append(("context", f"context body {label}", context))
        for idx, hc in getattr(check, "hyp_checks", {}).items():
            for k2, lab, build in _check_mutants(hc):
                out.append((k2, f"hypothesis {idx}: {lab}", _wrapped(build, lambda m, mc, idx=idx: setattr(
                    m, "hyp_checks", {**check.hyp_checks, idx: mc}), check)))
    if isinstance(check, AsGap):
        for k2, lab, build in _check_mutants(check.check):
            if lab == "context body + 1":
                # an AsGap uses big - small only: a constant added to both sides of the context changes nothing
                def skipped(lab=lab, inner=check.check):
                    EQUIVALENT.append(f"{inner.lemma.name[:50]}: {lab} (the gap, all an AsGap uses, is the same)")
                    return None
                out.append((k2, lab, skipped))
                continue
            out.append((k2, lab, _wrapped(build, lambda m, mc: setattr(m, "check", mc), check)))
    if isinstance(check, ByCases):
        for idx, (cond, cc) in enumerate(check.cases):
            def put_case(m, mc, idx=idx, cond=cond):
                m.cases = [(c_, mc if j_ == idx else k_) for j_, (c_, k_) in enumerate(check.cases)]
            for k2, lab, build in _check_mutants(cc):
                out.append((k2, f"case {cond}: {lab}", _wrapped(build, put_case, check)))
        for idx, facts in check.case_facts.items():
            for fi, (rel, text, fc) in enumerate(facts):
                def put_fact(m, mc, idx=idx, fi=fi):
                    m.case_facts = {**check.case_facts, idx: [f_ if j_ != fi else (f_[0], f_[1], mc)
                                                              for j_, f_ in enumerate(check.case_facts[idx])]}
                for k2, lab, build in _check_mutants(fc):
                    out.append((k2, f"case fact {text[:40]}: {lab}", _wrapped(build, put_fact, check)))
    if isinstance(check, NonNegative):
        for s_, bc in check.by.items():
            for k2, lab, build in _check_mutants(bc):
                out.append((k2, f"discharge of {s_}: {lab}", _wrapped(build, lambda m, mc, s_=s_: setattr(
                    m, "by", {**check.by, s_: mc}), check)))
    return out


def _wrapped(build, put, check):
    """A builder of ``check`` with one inner check replaced by the inner builder's mutant."""
    def outer():
        mc = build()
        if mc is None:
            return None
        m = copy.copy(check)
        put(m, mc)
        return m
    return outer


def _assumption_mutants(d, result):
    """A used relational assumption with one constant changed (c -> c + 1, or + 1 if none)."""
    used = {how.split("assumption: ", 1)[1] for _, _, how in result.discharged if how.startswith("assumption: ")}
    out = []
    for i, a in enumerate(d.structured_assumptions()):
        if a.rel is None or a.text not in used:
            continue
        nums = sorted(a.rel.atoms(sp.Number), key=sp.default_sort_key)
        if nums:
            n = nums[0]
            new_n = n + 1 if n.is_Rational else n * sp.Float("1.1")
            rel = make_relation(relation_kind(a.rel), a.rel.lhs.xreplace({n: new_n}), a.rel.rhs.xreplace({n: new_n}))
            lab = f"assumption '{a.text[:50]}': {n} -> {n + 1}"
        else:
            rel = make_relation(relation_kind(a.rel), a.rel.lhs, a.rel.rhs + 1)
            lab = f"assumption '{a.text[:50]}': rhs + 1"
        if rel == a.rel:
            continue
        ass = list(d.structured_assumptions())
        ass[i] = Assumption(a.text, rel, a.derived)
        md = copy.copy(d)
        md.assumptions = ass
        out.append(Mutant(d, -1, "hypothesis", lab, mutated=md))
    return out


def mutants(derivations, sample=None, seed=0, kinds=None):
    """Every mutant of ``derivations`` (at most ``sample`` per derivation and kind, seeded); ``kinds``: only
    the mutants of those kinds (the others are not built: a citation's equivalence test asks the CAS)."""
    if kinds is not None and not set(kinds) <= set(KINDS):
        raise ValueError(f"mutant kinds are {KINDS}, not {sorted(set(kinds) - set(KINDS))}")
    out = []
    EQUIVALENT.clear()
    for d in derivations:
        res = cited_result(d)
        per = []
        for i, st in enumerate(d.steps):
            for label, build in _claim_mutation_builders(st.claim):   # equivalent ones are dropped when built
                per.append((Mutant(d, i, "claim", label), build))
            for kind, label, build in _check_mutants(st.check):
                per.append((Mutant(d, i, kind, label), build))
        per += [(m, None) for m in _assumption_mutants(d, res)]
        if kinds is not None:
            per = [x for x in per if x[0].kind in kinds]
        if sample is None:
            out += [m for m in map(_built, per) if m is not None]
            continue
        rng = random.Random(f"{seed}:{d.id}")
        for kind in KINDS:              # the seeded shuffle first, then the (costly) building and filtering
            group = [x for x in per if x[0].kind == kind]
            rng.shuffle(group)
            taken = 0
            for x in group:
                if taken == sample:
                    break
                m = _built(x)
                if m is not None:
                    out.append(m)
                    taken += 1
    return out


def _built(pending):
    """The mutant of (mutant, build): its claim or check built, or None if it is equivalent (changes nothing)."""
    m, build = pending
    if build is None:                # an assumption mutant (built already)
        return m
    st = m.derivation.steps[m.step_index]
    if m.kind == "claim":
        claim = build()
        if equivalent(st.claim, claim):
            return None
        m.step = Step(st.name, st.ref, claim, st.reason, st.check)
        return m
    chk = build()
    if chk is None:
        return None
    m.step = Step(st.name, st.ref, st.claim, st.reason, chk)
    return m


def _step_undischarged(d, step, result):
    probe = copy.copy(d)
    probe.steps = [step]
    return probe.discharge([result])[0]


def killed(m: Mutant):
    """(killed, how): the mutated step fails, or leaves a fact undischarged that the original step
    did not (so a step of a conditional derivation is judged on its own premises)."""
    d = m.derivation
    if m.mutated is not None:
        # an assumption mutant: the same steps (hence the same step results), other assumptions
        base = cited_result(d)
        same_steps = m.mutated.steps is d.steps
        r = m.mutated.run(step_results=base.steps if same_steps else None)
        if r.verdict == "failed" or len(r.undischarged) > len(base.undischarged):
            return True, f"verdict {r.verdict}, {len(r.undischarged)} undischarged"
        return False, f"survives: verdict {r.verdict}"
    r = m.step.run()
    if not r.ok:
        return True, "check fails: " + r.detail[:120]
    orig = d.steps[m.step_index]
    before = {t for _, t in _step_undischarged(d, orig, orig.run())}
    after = [t for _, t in _step_undischarged(d, m.step, r) if t not in before]
    if after:
        return True, "undischarged: " + after[0][:120]
    return False, "survives: the check passes and every fact it uses is discharged"


def run_mutants(derivations, sample=None, seed=0):
    """{mutants, killed, by_kind: {kind: {mutants, killed}}, survivors: [...], equivalent_skipped: [...]}
    (a mutant whose lemma instance is unchanged is equivalent: listed, not counted)."""
    by_kind = {k: {"mutants": 0, "killed": 0} for k in KINDS}
    survivors = []
    total = dead = 0
    for m in mutants(derivations, sample, seed):
        ok, how = killed(m)
        total += 1
        by_kind[m.kind]["mutants"] += 1
        if ok:
            dead += 1
            by_kind[m.kind]["killed"] += 1
        else:
            survivors.append({"derivation": m.derivation.id, "where": m.where, "kind": m.kind, "mutation": m.label,
                              "why": how})
    return {"mutants": total, "killed": dead, "by_kind": by_kind, "survivors": survivors,
            "equivalent_skipped": list(EQUIVALENT)}
