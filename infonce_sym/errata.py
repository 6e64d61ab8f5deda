"""Slips found in the paper while checking its derivations (conversion artefacts aside).

``ERRATA`` is a plain list of dicts {id, paper_ref, kind, paper_says, corrected,
proved_by}; ``proved_by`` names the derivation that proves the corrected
statement.  Other sections append their own entries.
"""
from __future__ import annotations

__all__ = ["ERRATA", "get"]

ERRATA = [
    dict(id="P1-Xj", paper_ref="proof of Prop. 1 (App. A)", kind="slip",
         paper_says="apply Lemma 2 with X_j = e^{<phi(z^a), phi(Z_j^-)>/tau}",
         corrected="X_j = <phi(z^a), phi(Z_j^-)>/tau (Lemma 2 exponentiates X_j; then X_j in [-c, c] with c = 1/tau). "
                   "With the paper's X_j the instance of Lemma 2 is log(b E e^{e^{S/tau}}) - ..., which is not "
                   "the cross-entropy; the check of that substitution fails",
         proved_by="P1.lower"),
    dict(id="P2-third-eq", paper_ref="proof of Prop. 2, third equality after (30)", kind="slip",
         paper_says="-(1/tau) E[ sum_j <phi(z), phi(xi_j)> / sum_j dM(z,.)/dpi(xi_j) ]",
         corrected="-(1/tau) E[ sum_j <phi(z), phi(xi_j)> dM(z,.)/dpi(xi_j) / sum_j dM(z,.)/dpi(xi_j) ] "
                   "(the density-ratio factor is missing in the numerator; the next display has it)",
         proved_by="DCL-12"),
    dict(id="A1-1/n", paper_ref="App. A.1, before (32)", kind="slip",
         paper_says="E[(muhat(z) - mu(z))^2] = (1/n) Var[e^{<phi(z), phi(Z_1^-)>/tau}]",
         corrected="E[(muhat(z) - mu(z))^2] = (1/k) Var[e^{<phi(z), phi(Z_1^-)>/tau}] (k negatives, not n tuples)",
         proved_by="A1.32"),
    dict(id="A1-remainder", paper_ref="App. A.1, the display before (32)", kind="slip",
         paper_says="using mu(z) v muhat(z) <= e^{1/tau}: log mu - E log muhat >= E(muhat-mu)^2/(2 mu^2) - E|muhat-mu|^3/(3 e^{3/tau})",
         corrected="the remainder (muhat-mu)^3/(3 xi^3) needs xi >= e^{-1/tau} (mu, muhat >= e^{-1/tau}): "
                   "log mu - E log muhat >= E(muhat-mu)^2/(2 mu^2) - e^{3/tau} E|muhat-mu|^3/3; (32) is unaffected "
                   "since E|muhat - mu|^3 = O(k^{-3/2}). The paper's display is false as stated: tau = 1/2, k = 1, "
                   "s = +1 w.p. 0.01 and -1 otherwise gives lhs 0.389 < rhs 6.02",
         proved_by="A1.32"),
    dict(id="A2-k", paper_ref="end of App. A.2", kind="slip",
         paper_says="liminf_k (int CrossEnt - R~) >= (1 - a)(e^{1/tau} - 2)/16",
         corrected="liminf_k k (int CrossEnt - R~) >= (1 - a)(e^{1/tau} - 2)/16 (the factor k from (32) is missing; "
                   "without it the liminf is 0 by (11))",
         proved_by="A2.liminf"),
    dict(id="L3-B>0", paper_ref="Lemma 3 and Prop. 2 (definition of M_k)", kind="slip",
         paper_says="no condition on sum_j dnu/dpi(xi_j)",
         corrected="the lemma needs sum_j dnu/dpi(xi_j) > 0 a.s. (otherwise the self-normalised ratio and M_k(z,.) are "
                   "undefined; e.g. nu not equivalent to pi gives P(all ratios = 0) = P(r = 0)^m > 0); "
                   "the bound holds with the convention that this event has probability 0",
         proved_by="L3"),
    dict(id="S3.4-appendix-ref", paper_ref="Section 3.4, before (13)", kind="slip",
         paper_says="it is shown in appendix A.1 that ... an example can be constructed",
         corrected="the example is in appendix A.2 (A.1 has the expansion (31)-(32))",
         proved_by="A2.13"),
]


def get(id):
    for e in ERRATA:
        if e["id"] == id:
            return e
    raise KeyError(id)
