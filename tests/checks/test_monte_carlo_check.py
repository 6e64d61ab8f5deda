"""verify's Monte Carlo check: a z-test only where the sample passes Cochran's rule."""
from infonce_sym.checks import section3


def test_monte_carlo_check_is_consistent_and_inconclusive_when_a_sample_is_too_skewed(monkeypatch):
    """At verify's points the samples pass Cochran's rule and every |z| <= 4: consistent.  The same
    run with one quantity's sample marked as failing the rule (as a heavy tail would) is inconclusive,
    whatever its z."""
    result = section3.monte_carlo_check(samples=4000, seed=7)
    assert result.verdict == "consistent", result.details
    assert all(p["normal_approximation"] and abs(p["skewness"]) < 3 for p in result.details["points"])
    real = section3.monte_carlo

    def one_skewed(*args, **kwargs):
        out = real(*args, **kwargs)
        out["search_cross_entropy"] = dict(out["search_cross_entropy"], ci95_reliable=False)
        return out

    monkeypatch.setattr(section3, "monte_carlo", one_skewed)
    assert section3.monte_carlo_check(samples=4000, seed=7).verdict == "inconclusive"
