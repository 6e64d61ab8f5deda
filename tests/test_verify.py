"""`infonce-sym verify --quick` end to end: every verdict as expected, report files complete."""
import json

from infonce_sym.cli import main


def test_verify_quick_writes_a_complete_report(tmp_path, capsys):
    code = main(["verify", "--quick", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    data = json.loads((tmp_path / "report.json").read_text())
    checks = {c["id"]: c for c in data["checks"]}
    for entry in data["checks"]:
        assert {"id", "paper_ref", "verdict", "expected", "details"} <= set(entry)
        assert entry["verdict"] == entry["expected"]
    for cid in ("P1", "DCL-11", "L4", "P2", "DCL-12", "L3", "Q-bounds", "L2", "A2", "ASYMPTOTICS",
                "MC-vs-exact", "P4", "P4-sharp", "LIP-17", "LIP-18", "P5", "T1"):
        assert cid in checks, cid
    assert checks["P4"]["details"]["constants"] == [4, 1, 3]
    assert checks["P4-sharp"]["details"]["constants"] == [2, 1, 1]
    assert "form" in checks["LIP-18"]["details"] and "form" in checks["LIP-17"]["details"]
    assert any(c.startswith("derivation:") and checks[c]["verdict"] == "proved" for c in checks)
    assert (tmp_path / "report.md").read_text().count("|") > 50
    assert list(tmp_path.glob("*.png"))


def test_self_normalised_bias_against_tuple_enumeration():
    """Lemma 3's quantity by multinomial counts against the plain sum over all ordered m-tuples, and the
    m = 1 closed form E_pi f - E_nu f."""
    import itertools
    import mpmath
    from infonce_sym.checks import self_normalised_bias
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
