"""Benchmark of ``infonce-sym embeddings`` at scale: prints seconds per stage and peak memory.

Synthetic embeddings shaped like a trained model's (positive cosine about 0.86, negative cosine
about 0.01 +- 0.09): n pairs at dimension d, written as float32 .npy, then the full command.

    python scripts/bench_embeddings.py --n 10000 --d 768 --tau 0.05
    /usr/bin/time -v python scripts/bench_embeddings.py ...     # peak memory of everything

The figures are measurements, not tests.
"""
from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def make(n, d, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(50, d))
    a = centres[rng.integers(0, 50, n)] * 0.15 + rng.normal(size=(n, d)) * 0.1
    a /= np.linalg.norm(a, axis=1, keepdims=True)
    p = a + 0.6 * rng.normal(size=(n, d)) / np.sqrt(d)
    p /= np.linalg.norm(p, axis=1, keepdims=True)
    return a.astype(np.float32), p.astype(np.float32)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--d", type=int, default=768)
    ap.add_argument("--tau", default="0.05")
    ap.add_argument("extra", nargs="*", help="further options for infonce-sym embeddings (after --)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        a, p = make(args.n, args.d)
        np.save(Path(tmp) / "a.npy", a)
        np.save(Path(tmp) / "p.npy", p)
        cmd = [sys.executable, "-c", "import sys; from infonce_sym.app.cli import main; sys.exit(main())", "embeddings", "--anchors", str(Path(tmp) / "a.npy"),
               "--positives", str(Path(tmp) / "p.npy"), "--tau", args.tau, "--json", *args.extra]
        t0 = time.perf_counter()
        res = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    if res.returncode != 0:
        print(res.stderr.strip())
        return res.returncode
    import json
    out = json.loads(res.stdout)
    print(f"n = {args.n}, d = {args.d}, tau = {args.tau}: {wall:.1f} s wall ({out['seconds']} s in the analysis), "
          f"peak memory of one process {peak:.0f} MB")
    for row in out["by_k"]:
        print(f"  k = {row['k']:>8}: gap {row['gap']:.6g} +- {row['gap_error_bound']:.1e}")
    print(f"  k for gap: {out['k_for_gap']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
