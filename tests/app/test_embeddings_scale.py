"""``infonce-sym embeddings`` at scale: anchors in row blocks (sized from --memory-limit), the
inputs memory-mapped, each block a work unit of a ``concurrent.futures.Executor`` (in-process, a
local process pool, a Dask cluster). The numbers must not depend on any of it: per-anchor values
depend on the anchor's own row only and the sums are exactly rounded (math.fsum of exact partials),
so the JSON is the same bit for bit; the Monte Carlo draws come from SeedSequence spawn keys per
block of tuples."""
import json
import math
from fractions import Fraction

import numpy as np
import pytest

from infonce_sym.app import embeddings as app
from infonce_sym.app.cli import main
from infonce_sym.quantities import empirical as emp

VARYING = ("seconds", "seconds_by_stage", "streaming", "inputs")       # (inputs: the --workers or --scheduler typed)


def _files(tmp_path, n=48, d=8, seed=0, noise=0.5):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(n, d)).astype(np.float32)
    p = (a + noise * rng.normal(size=(n, d))).astype(np.float32)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "p.npy", p)
    return tmp_path / "a.npy", tmp_path / "p.npy", a, p


def _source(fa, fp, exclude_own=False):
    return app.RowSource(files=(("--anchors", str(fa), None, None), ("--positives", str(fp), None, None)),
                         exclude_own=exclude_own)


def _stable(result):
    result = dict(result)
    result.pop("_tables", None)
    for key in VARYING:
        result.pop(key, None)
    return json.dumps(result, sort_keys=True, default=str)


def test_exact_partials_give_the_exactly_rounded_sum_whatever_the_blocking():
    rng = np.random.default_rng(3)
    values = rng.normal(size=500) * 10.0 ** rng.integers(-20, 20, size=500)
    exact = float(sum(Fraction(float(v)) for v in values))
    for block in (1, 7, 64, 500):
        parts = []
        for start in range(0, values.size, block):
            parts += emp.exact_partials(values[start:start + block])
        assert math.fsum(parts) == exact


@pytest.mark.parametrize("exclude_own", [False, True])
def test_block_size_and_held_tables_do_not_change_a_single_number(tmp_path, exclude_own):
    fa, fp, _, _ = _files(tmp_path, n=30, d=6, seed=5)
    runs = {}
    for rows, hold in ((30, True), (7, False), (1, True), (11, False)):
        r = app.analyse(_source(fa, fp, exclude_own), "0.2", [1, 3, 64, 5000], mc_samples=300, seed=4,
                        block_rows=rows, hold_tables=hold)
        assert r["streaming"]["block_rows"] == rows and r["streaming"]["tables_held"] is hold
        runs[(rows, hold)] = _stable(r)
    assert len(set(runs.values())) == 1


def test_streamed_values_against_brute_force_and_the_in_memory_tables(tmp_path):
    """The streamed R(k) against enumeration of all tuples (k = 1, 2, 3), the streamed gaps and k-for-gap
    against emp.gaps_at / emp.k_for_gap on the whole tables, and the Monte Carlo against its own draws."""
    fa, fp, a, p = _files(tmp_path, n=5, d=3, seed=2)
    r = app.analyse(_source(fa, fp), "0.3", [1, 2, 3, 40], mc_samples=256, seed=1, block_rows=2, hold_tables=False)
    model = emp.make_pairs(a, p)
    for row in r["by_k"][:3]:
        assert abs(row["risk"] - emp.brute_force_risk(model, 0.3, row["k"])) <= 1e-12, row
    tab = emp.anchor_tables(model, 0.3)
    g = emp.gaps_at(tab, [1, 2, 3, 40])
    assert np.allclose([x["gap"] for x in r["by_k"]], g.gap, rtol=1e-12, atol=1e-14)
    assert r["k_for_gap"] == {str(t): v for t, v in emp.k_for_gap(tab).items()}
    mc = emp.monte_carlo_gap(model, 0.3, 40, samples=256, seed=1)
    row = [x for x in r["monte_carlo"] if x["k"] == 40][0]
    assert abs(row["mc_gap"] - mc["gap"]["estimate"]) <= 1e-12 and abs(row["stderr"] / mc["gap"]["stderr"] - 1) < 1e-9


def test_k_for_gap_search_finds_the_crossing_of_a_known_function():
    """gap(k) = 3/k + 5/k^2 exactly: the least k with gap <= thr, solved in closed form."""
    def evaluate(ks):
        return np.array([3.0 / k + 5.0 / k ** 2 for k in ks])
    found = emp.k_for_gap_search(evaluate, (0.1, 1e-4, 1e-9), 39)
    for thr, k in found.items():
        root = (3 + math.sqrt(9 + 20 * thr)) / (2 * thr)        # 3/k + 5/k^2 = thr
        assert k == math.ceil(root - 1e-9) and evaluate([k])[0] <= thr < evaluate([k - 1])[0], (thr, k, root)


def test_memory_limit_sizes_the_blocks_and_bad_limits_exit_2(tmp_path, capsys):
    n, m, tau = 10 ** 5, 10 ** 5, 0.05
    for limit in (10 ** 9, 2 * 10 ** 9, 8 * 10 ** 9):
        for workers in (1, 2):
            rows = app.block_rows(n, m, [tau], limit, workers)
            used = app.PARENT_RESERVE + 120 * n + workers * emp.block_bytes(rows, m, tau) + \
                (workers if workers > 1 else 0) * app.WORKER_RESERVE
            assert used <= limit < used + workers * emp.block_bytes(1, m, tau) + 1
    with pytest.raises(Exception) as info:
        app.block_rows(10 ** 7, 10 ** 7, [tau], 10 ** 9, 2)
    assert "memory-limit" in str(info.value)
    fa, fp, _, _ = _files(tmp_path, n=6, d=3)
    for bad in ("2XB", "-1GB", "10MB", "lots"):
        code = main(["embeddings", "--anchors", str(fa), "--positives", str(fp), "--tau", "0.5",
                     "--memory-limit", bad])
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1 and "--memory-limit" in err[0], (bad, err)


def _cli_json(capsys, *argv):
    code = main(["embeddings", *map(str, argv), "--json"])
    out = capsys.readouterr().out
    assert code == 0
    return json.loads(out)


def test_process_pool_and_dask_cluster_give_the_local_numbers(tmp_path, capsys):
    distributed = pytest.importorskip("distributed")
    fa, fp, _, _ = _files(tmp_path, n=40, d=8, seed=9)
    argv = ["--anchors", fa, "--positives", fp, "--tau", "0.1", "--k", "1,8,512", "--samples", "512",
            "--exclude-own", "--seed", "11"]
    local = _cli_json(capsys, *argv, "--workers", "1", "--memory-limit", "600MB")
    pool = _cli_json(capsys, *argv, "--workers", "2")
    assert local["streaming"]["executor"] == "in-process" and pool["streaming"]["executor"] == "process pool (2)"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        remote = _cli_json(capsys, *argv, "--scheduler", cluster.scheduler_address, "--memory-limit", "300MB")
    assert remote["streaming"]["executor"].startswith("dask")
    assert _stable(local) == _stable(pool) == _stable(remote)
    assert local["monte_carlo"] and local["own_row_included"]
