"""The finite-model route (quantities.exact_finite) against independent routes: exact enumeration of
the k negatives (k = 1, 2, 3), the adaptive route of exact.py on the same laws, a one-state model's
closed form, and a model with a state split in two copies (the same laws)."""
import json
import sys
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest

from infonce_sym.models import FiniteModel
from infonce_sym.quantities.enumeration import multinomial_expectation, multinomial_log_mean, self_normalised_bias
from infonce_sym.quantities.exact import exact_values

mp = mpmath.mp
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "finite_model.json"


def _random_model(n, d=8, seed=0):
    """States on the sphere S^{d-1}, a random pi and a random stochastic M (all entries > 0)."""
    rng = np.random.default_rng(seed)
    emb = rng.standard_normal((n, d))
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    pi = rng.random(n) + 0.1
    pi /= pi.sum()
    M = rng.random((n, n)) ** 4 + 0.01
    M /= M.sum(axis=1, keepdims=True)
    return FiniteModel(pi, M, emb)


def _example_model():
    data = json.loads(EXAMPLE.read_text(), parse_float=Decimal, parse_int=Decimal)
    return FiniteModel(data["pi"], data["M"], data["embedding"])


def _enumerated(model, tau, k, dps=50):
    """R, R~, search CE, integrated CE and E|dM/dpi|^2 by enumerating the multinomial counts of the
    k negatives (enumeration.py), at dps digits, from the mpf arrays of the model."""
    with mpmath.workdps(dps):
        pi, M, _ = model.exact_arrays(mp)
        G = model.gram(mp)
        tau = mp.mpf(tau)
        n = len(pi)
        R = Rt = S = limit = second = mp.zero
        for i in range(n):
            xs = [G[i][j] / tau for j in range(n)]
            ex = [mp.exp(x) for x in xs]
            mean_p = mp.fsum(M[i][j] * G[i][j] for j in range(n))
            R += pi[i] * mp.fsum(M[i][l] * multinomial_log_mean(mp, xs, pi, mp.exp(-xs[l]), k) for l in range(n))
            log_mean = multinomial_expectation(mp, pi, k, lambda c: mp.log(mp.fsum(a * e for a, e in zip(c, ex)) / k))
            Rt += pi[i] * (log_mean - mean_p / tau)
            bias = self_normalised_bias(mp, pi, M[i], G[i], k)
            S += pi[i] * (log_mean - (bias + mean_p) / tau)
            limit += pi[i] * (-mean_p / tau + mp.log(mp.fsum(p * e for p, e in zip(pi, ex))))
            second += pi[i] * mp.fsum(M[i][j] ** 2 / pi[j] for j in range(n))
        return {"risk": R, "dcl_risk": Rt, "search_cross_entropy": S, "cross_entropy_limit": limit,
                "density_ratio_second_moment": second}


def _close(a, b, digits):
    return abs(a - b) <= mpmath.mpf(10) ** (-digits) * max(abs(b), 1)


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("which", ["example", "random"])
def test_against_enumeration(which, k):
    model = _example_model() if which == "example" else _random_model(4, d=3, seed=k)
    tau = "0.3" if which == "example" else "0.7"
    ref = _enumerated(model, tau, k)
    info = exact_values(model, tau, k, digits=30)
    dcl = exact_values(model, tau, k, digits=30, loss="dcl")
    with mpmath.workdps(50):
        assert _close(info.values["risk"], ref["risk"], 30)
        assert _close(dcl.values["risk"], ref["dcl_risk"], 30)
        assert _close(info.values["search_cross_entropy"], ref["search_cross_entropy"], 30)
        assert _close(info.values["cross_entropy_limit"], ref["cross_entropy_limit"], 30)
        assert _close(info.values["density_ratio_second_moment"], ref["density_ratio_second_moment"], 30)
        # the gaps, integrated directly, against differences of the enumerated values
        assert _close(info.gaps["infonce_minus_dcl_risk"], ref["risk"] - ref["dcl_risk"], 30)
        assert _close(info.gaps["search_cross_entropy_minus_risk"], ref["search_cross_entropy"] - ref["risk"], 30)


class _LawsOnly:
    """The same model seen only through ``anchor_laws`` (mpf laws): exact.py's adaptive route."""

    def __init__(self, model):
        self.model = model
        self.label = model.label
        self.domination_reason = model.domination_reason

    def anchor_laws(self, ctx, tau=None, refinement=1):
        return self.model.anchor_laws(ctx, tau, refinement)


@pytest.mark.parametrize("tau, ks", [("0.5", [8]), ("0.25", [3, 10**6])])
def test_against_the_adaptive_route(tau, ks):
    model = _random_model(6, seed=7)
    new = exact_values(model, tau, ks=ks, digits=30)
    old = exact_values(_LawsOnly(model), tau, ks=ks, digits=30)
    for a, b in zip(new, old):
        assert a.agreement_digits >= 30
        for key, value in b.values.items():
            assert _close(a.values[key], value, 30), key
        for key, value in b.gaps.items():
            assert abs(a.gaps[key] - value) <= mpmath.mpf(10) ** -30 * max(abs(value), abs(a.values["risk"])), key


@pytest.mark.parametrize("k", [1, 5, 10**6])
def test_single_state_closed_form(k):
    """N = 1: p = s = 1 always, so R = log((k + 1)/k), R~ = search CE = integrated CE = 0 and
    E|dM/dpi|^2 = 1."""
    model = FiniteModel([Decimal(1)], [[Decimal(1)]], [[Decimal("0.6"), Decimal("0.8")]])
    info = exact_values(model, "0.25", k, digits=30)
    with mpmath.workdps(40):
        assert _close(info.values["risk"], mp.log(mp.mpf(k + 1) / k), 30)
        if k == 1:    # (at k > 1 the DCL value 0 is a full cancellation: the precision is raised ~1200 digits)
            dcl = exact_values(model, "0.25", k, digits=30, loss="dcl")
            assert abs(dcl.values["risk"]) < mpmath.mpf(10) ** -30
        assert abs(info.values["cross_entropy_limit"]) < mpmath.mpf(10) ** -30
        assert info.values["search_cross_entropy"] == 0 or abs(info.values["search_cross_entropy"]) < 1e-30
        assert _close(info.values["density_ratio_second_moment"], mp.one, 30)


def test_split_state_gives_the_same_values():
    """State 0 split into two copies (same embedding, pi(0) and the column M(., 0) halved, row 0
    repeated): the similarity laws are unchanged, so every value is; the route merges the copies
    exactly (one anchor, one atom) but the comparison does not rely on that."""
    base = _example_model()
    pi, M, emb = base.exact
    half = Decimal("0.5")
    pi2 = [pi[0] * half, pi[0] * half] + list(pi[1:])
    rows = [[row[0] * half, row[0] * half] + list(row[1:]) for row in M]
    M2 = [rows[0], rows[0]] + rows[1:]
    emb2 = [emb[0]] + list(emb)
    split = FiniteModel(pi2, M2, emb2)
    a = exact_values(base, "0.3", 4, digits=30)
    b = exact_values(split, "0.3", 4, digits=30)
    for key, value in a.values.items():
        assert _close(b.values[key], value, 30), key


def test_arb_arrays_match_the_mpf_arrays():
    """FiniteModel.arb_arrays (the route's input) against exact_arrays/gram (mpf), with rows that
    need renormalising (pi given as thirds, an embedding row of norm 2)."""
    third = Fraction(1, 3)
    root = Decimal("0.70710678118654752440084436210484903928")       # sqrt(1/2) to 38 digits: norm != 1
    model = FiniteModel([third, third, third], [[Decimal("0.5"), Decimal("0.25"), Decimal("0.25")]] * 3,
                        [[root, root], [Decimal("0.6"), Decimal("0.8")], [Decimal(0), Decimal(1)]])
    pi_a, M_a, G_a = model.arb_arrays(200)
    with mpmath.workdps(50):
        pi, M, _ = model.exact_arrays(mp)
        G = model.gram(mp)
        for i in range(3):
            assert abs(mp.mpf(pi_a[i].mid().str(60, radius=False)) - pi[i]) < mpmath.mpf(10) ** -45
            for j in range(3):
                assert abs(mp.mpf(M_a[i][j].mid().str(60, radius=False)) - M[i][j]) < mpmath.mpf(10) ** -45
                assert abs(mp.mpf(G_a[i, j].mid().str(60, radius=False)) - G[i][j]) < mpmath.mpf(10) ** -45
        # row 0 renormalised: <u0, u1> = (0.6 + 0.8)/sqrt(2) exactly
        assert abs(mp.mpf(G_a[0, 1].mid().str(60, radius=False)) - mp.mpf("1.4") / mp.sqrt(2)) < mpmath.mpf(10) ** -45


def test_cli_refuses_a_costly_finite_model_up_front(tmp_path, capsys, monkeypatch):
    """risk on a finite spec whose estimated cost exceeds --max-seconds: exit 2 before any work, one
    line naming the spec file, N and the estimate; a larger limit lets it through validation."""
    import infonce_sym.app.cli as cli
    model = _random_model(60)
    path = tmp_path / "sixty.json"
    path.write_text(model.to_json())
    argv = ["risk", "--model", "finite", "--spec", str(path), "--tau", "0.5", "--k", "8"]
    monkeypatch.setattr(cli, "cmd_risk", lambda args: 0)
    code = cli.main(argv + ["--max-seconds", "1"])
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == 2 and out == "" and len(lines) == 1, err
    assert "sixty.json" in lines[0] and "N = 60" in lines[0] and "estimated cost" in lines[0], lines[0]
    assert cli.main(argv + ["--max-seconds", "1e9"]) == 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ru_maxrss in KiB is Linux's")
def test_memory_estimate_bounds_the_measured_growth():
    """``estimated_bytes`` (the refusal of ``risk`` beyond half the machine's memory) against the peak RSS
    growth of ``exact_values`` measured in fresh processes, on random models of 45 and 90 states at 20
    digits: the estimate is above each growth, and its part that grows with N^2 (the estimate at 90 less
    that at 45) is between one and three times the measured one."""
    import subprocess
    from infonce_sym.quantities.exact_finite import estimated_bytes, random_sphere_model

    def grown(n):
        # the peak (VmHWM) is reset after the imports (a fresh clone's first import compiles the numba
        # kernels, whose peak lies above the exact route's): writing 5 to clear_refs resets it (Linux >= 4.0);
        # getrusage's ru_maxrss would keep the peak of any thread that has exited
        code = ("from infonce_sym.quantities.exact_finite import random_sphere_model; "
                f"from infonce_sym.quantities.exact import exact_values; m = random_sphere_model({n}); "
                "kib = lambda key: int(open('/proc/self/status').read().split(key + ':')[1].split()[0]); "
                "open('/proc/self/clear_refs', 'w').write('5'); "
                "b = kib('VmHWM'); exact_values(m, '0.5', 8, digits=20); "
                "print(1024 * (kib('VmHWM') - b))")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        if "clear_refs" in done.stderr:
            pytest.skip("the peak RSS cannot be reset here (/proc/self/clear_refs)")
        assert done.returncode == 0, done.stderr
        return int(done.stdout)

    small, large = grown(45), grown(90)
    estimate = {n: estimated_bytes(random_sphere_model(n), 8, 20) for n in (45, 90)}
    assert 0 < small < large, (small, large)
    assert small < estimate[45] and large < estimate[90], (small, large, estimate)
    slope = (estimate[90] - estimate[45]) / (large - small)
    assert 1 < slope < 3, (small, large, estimate, slope)


def test_a_sweep_with_a_huge_k_keeps_a_small_k_s_exact_zero():
    """One state (or all similarities equal): the search CE and R~ are exactly 0 at every k.  With k = 10^9 beside
    k = 7 the shared precision put k = 7's rounding noise above its floor and the passes "disagreed" (exit 1; a
    probe, Dec 2026).  Each k in the list gives the strings of that k alone."""
    one = FiniteModel(["1"], [["1"]], [["0.6", "0.8"]])
    same = FiniteModel(["0.2", "0.3", "0.5"], [["0.6", "0.3", "0.1"], ["0.1", "0.7", "0.2"], ["0.25", "0.05", "0.7"]],
                       [["1"], ["1"], ["1"]])
    for model, ks, loss, zero in ((one, [7, 10 ** 9], "infonce", "search_cross_entropy"),
                                  (same, [2, 10 ** 9], "dcl", "risk")):
        swept = exact_values(model, "0.5", ks=ks, digits=30, loss=loss)
        for ev in swept:
            alone = exact_values(model, "0.5", ev.k, digits=30, loss=loss)
            assert ev.as_strings() == alone.as_strings()
            assert ev.values[zero] == 0
