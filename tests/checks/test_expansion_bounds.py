"""The EXPANSION-BOUNDS check of verify: the exact gaps inside the proved k^-3 brackets, and a gap
moved outside them is reported as violated."""
import copy

from infonce_sym.checks import section3 as S3
from infonce_sym.models import nonreversible_model


def test_exact_gaps_inside_the_proved_brackets():
    r = S3.expansion_bounds_check([nonreversible_model()], ks=(100, 10000))
    assert r.verdict == "holds" and r.margin >= 0
    pts = r.details["points"]
    assert {(p["loss"], p["k"]) for p in pts} == {(l, k) for l in ("dcl", "infonce", "search-dcl") for k in (100, 10000)}
    for p in pts:
        assert p["lower"] <= p["exact"] <= p["upper"]
    at = {(p["loss"], p["k"]): p for p in pts}
    # the lower bound c1/k + c2/k^2 - B/k^3 is tight at large k: within 1e-6 of the gap at k = 10^4
    assert at[("dcl", 10000)]["exact"] - at[("dcl", 10000)]["lower"] < 1e-6 * at[("dcl", 10000)]["exact"]
    # the search bracket pins search CE - R~ to ~4 digits at k = 10^4
    s = at[("search-dcl", 10000)]
    assert s["upper"] - s["lower"] < 1e-4 * s["exact"]


def _with_gap_scaled(monkeypatch, key, factor):
    """exact_values as the check sees it, with the gap ``key`` multiplied by ``factor``."""
    real = S3.exact_values

    def scaled(*a, **kw):
        out = []
        for ev in real(*a, **kw):
            ev = copy.copy(ev)
            ev.gaps = {**ev.gaps, key: ev.gaps[key] * factor}
            out.append(ev)
        return out
    monkeypatch.setattr(S3, "exact_values", scaled)


def test_a_search_gap_above_the_upper_bound_is_violated(monkeypatch):
    _with_gap_scaled(monkeypatch, "search_minus_dcl_risk", 1.01)      # 1 % above its k = 10^4 upper bound
    r = S3.expansion_bounds_check([nonreversible_model()], ks=(10000,))
    assert r.verdict == "violated"
    assert [p["loss"] for p in r.details["points"] if not p["ok"]] == ["search-dcl"]


def test_a_gap_below_the_lower_bound_is_violated(monkeypatch):
    # 1 % smaller: the DCL gap falls below c1/k + c2/k^2 - B/k^3 at k = 10^4
    _with_gap_scaled(monkeypatch, "cross_entropy_limit_minus_risk", 0.99)
    r = S3.expansion_bounds_check([nonreversible_model()], ks=(10000,))
    assert r.verdict == "violated" and r.margin < 0
    assert "dcl" in [p["loss"] for p in r.details["points"] if not p["ok"]]
