"""One check per registered derivation: its chain re-run by the CAS; a failed chain names its
failed steps and links."""
from __future__ import annotations

import time

from ..proofs import all_derivations
from ..proofs.chain import cited_result, failed_steps, statement_definitions
from .results import CheckResult

__all__ = ["derivation_check", "derivation_checks", "failed_steps"]


def derivation_check(d) -> CheckResult:
    t0 = time.perf_counter()
    result = cited_result(d)       # once per process: a citing derivation checked later reads this run
    as_check = {"proved": "proved", "certified": "certified"}       # conditional / failed: inconclusive
    verdict = as_check.get(result.verdict, "inconclusive")
    return CheckResult(f"derivation:{d.id}", d.paper_ref, d.title, verdict, as_check.get(d.verdict, "inconclusive"),
                       seconds=time.perf_counter() - t0,
                       details={"steps": len(d.steps), "failed_steps": failed_steps(d, result),
                                "chain_verdict": result.verdict,
                                # what a special-case chain covers (empty: the paper's generality)
                                "generality": d.generality,
                                # the names of the statement that the chain defines (the rendered "where" line)
                                "defines": [str(sym) for sym, _ in statement_definitions(d, result)],
                                "undischarged": [f"{n}: {t}" for n, t in result.undischarged]})


def derivation_checks(derivations=None):
    return [derivation_check(d) for d in (derivations if derivations is not None else all_derivations())]
