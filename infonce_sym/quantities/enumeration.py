"""Exact expectations over i.i.d. draws on finitely many atoms, by enumerating multinomial
counts (an independent route to the Lemma 2 and Lemma 3 quantities, no quadrature)."""
from __future__ import annotations

__all__ = ["compositions", "multinomial_expectation", "multinomial_log_mean", "self_normalised_bias"]


def compositions(m, parts):
    """All (n_1, ..., n_parts) of nonnegative integers with sum m."""
    if parts == 1:
        yield (m,)
        return
    for first in range(m + 1):
        for rest in compositions(m - first, parts - 1):
            yield (first,) + rest


def multinomial_expectation(ctx, ps, m, g):
    """E g(N) for N ~ Multinomial(m, ps) (the counts of m i.i.d. draws on finitely many atoms with
    probabilities ps > 0), exactly: a sum over all compositions of m."""
    logp = [ctx.log(p) for p in ps]
    lgm = ctx.loggamma(m + 1)
    total = ctx.zero
    for counts in compositions(m, len(ps)):
        logw = lgm + ctx.fsum(c * lp - ctx.loggamma(c + 1) for c, lp in zip(counts, logp))
        total += ctx.exp(logw) * g(counts)
    return total


def multinomial_log_mean(ctx, xs, ps, b, k):
    """E log(1/k + (b/k) sum_j e^{X_j}) for X_j i.i.d. on finitely many atoms, exactly."""
    ex = [ctx.exp(x) for x in xs]
    return multinomial_expectation(ctx, ps, k, lambda n: ctx.log((1 + b * ctx.fsum(c * e for c, e in zip(n, ex))) / k))


def self_normalised_bias(ctx, pi, nu, f, m):
    """E[sum_j f(xi_j) r(xi_j) / sum_j r(xi_j)] - E_nu f for xi_1..xi_m i.i.d. pi on finitely many atoms,
    r = dnu/dpi, exactly (sum over multinomial counts). Requires r > 0 on every atom."""
    r = [v / p for v, p in zip(nu, pi)]
    fr = [fa * ra for fa, ra in zip(f, r)]
    mean = multinomial_expectation(
        ctx, pi, m, lambda n: ctx.fsum(c * x for c, x in zip(n, fr)) / ctx.fsum(c * x for c, x in zip(n, r)))
    return mean - ctx.fsum(v * fa for v, fa in zip(nu, f))
