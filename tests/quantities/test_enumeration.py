"""Exact expectations by enumeration of multinomial counts, against plain sums over tuples."""


def test_self_normalised_bias_against_tuple_enumeration():
    """Lemma 3's quantity by multinomial counts against the plain sum over all ordered m-tuples, and the
    m = 1 closed form E_pi f - E_nu f."""
    import itertools
    import mpmath
    from infonce_sym.quantities.enumeration import self_normalised_bias
    ctx = mpmath.mp
    with mpmath.workdps(30):
        pi = [ctx.mpf(1) / 2, ctx.mpf(3) / 10, ctx.mpf(1) / 5]
        nu = [ctx.mpf(1) / 10, ctx.mpf(3) / 10, ctx.mpf(3) / 5]
        f = [ctx.mpf(1), ctx.mpf(-1), ctx.mpf(1) / 3]
        r = [v / p for v, p in zip(nu, pi)]
        for m in (1, 2, 3, 4):
            brute = ctx.fsum(ctx.fprod(pi[a] for a in t) * ctx.fsum(f[a] * r[a] for a in t) / ctx.fsum(r[a] for a in t)
                             for t in itertools.product(range(3), repeat=m)) - ctx.fsum(v * x for v, x in zip(nu, f))
            assert abs(self_normalised_bias(ctx, pi, nu, f, m) - brute) < ctx.mpf(10) ** -25
        m1 = ctx.fsum(p * x for p, x in zip(pi, f)) - ctx.fsum(v * x for v, x in zip(nu, f))
        assert abs(self_normalised_bias(ctx, pi, nu, f, 1) - m1) < ctx.mpf(10) ** -25
