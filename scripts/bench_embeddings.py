"""Benchmark of ``infonce-sym embeddings`` at scale: CPU seconds, wall seconds, peak memory.

Synthetic embeddings shaped like a trained model's (positive cosine about 0.86, negative cosine
about 0.01 +- 0.09), unit-norm float32 rows, n pairs at dimension d written as .npy, then the full
command in a subprocess. CPU is user + system of the command and all its worker processes; the peak
memory is the largest sum of the resident sizes of the command's process tree (sampled every 0.2 s),
and, beside it, the largest single process (what ``/usr/bin/time -v`` reports).

    python scripts/bench_embeddings.py --n 10000 --d 768 --tau 0.05
    python scripts/bench_embeddings.py --n 30000 -- --memory-limit 2GB --workers 2

The figures are measurements, not tests.
"""
from __future__ import annotations

import argparse
import json
import os
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


def _tree_rss_mb(root: int) -> float:
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        try:
            with open(f"/proc/{pid}/status") as fh:
                total += next((int(line.split()[1]) for line in fh if line.startswith("VmRSS:")), 0)
        except OSError:
            pass
        stack += children.get(pid, [])
    return total / 1024


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
        del a, p
        cmd = [sys.executable, "-m", "infonce_sym.app.cli", "embeddings", "--anchors", str(Path(tmp) / "a.npy"),
               "--positives", str(Path(tmp) / "p.npy"), "--tau", args.tau, "--json", *args.extra]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        with open(Path(tmp) / "out.json", "w") as out_fh, open(Path(tmp) / "err.txt", "w") as err_fh:
            proc = subprocess.Popen(cmd, stdout=out_fh, stderr=err_fh)
            peak_tree = 0.0
            while proc.poll() is None:
                peak_tree = max(peak_tree, _tree_rss_mb(proc.pid))
                time.sleep(0.2)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            print((Path(tmp) / "err.txt").read_text().strip())
            return proc.returncode
        out = json.loads((Path(tmp) / "out.json").read_text())
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    peak_one = after.ru_maxrss / 1024
    print(f"n = {args.n}, d = {args.d}, tau = {args.tau} {' '.join(args.extra)}: {cpu:.1f} s CPU, {wall:.1f} s wall "
          f"({out['seconds']} s in the analysis), peak memory {peak_tree:.0f} MB for the process tree "
          f"(largest process {peak_one:.0f} MB)")
    print(f"  stages (s): {out.get('seconds_by_stage')}; streaming: {out.get('streaming')}")
    for row in out["by_k"]:
        print(f"  k = {row['k']:>8}: gap {row['gap']:.6g} +- {row['gap_error_bound']:.1e}")
    print(f"  k for gap: {out['k_for_gap']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
