"""The ``infonce-sym embeddings`` subcommand: ``add_parser(subparsers)`` and ``run(args)``.

Every option is taken as typed (strings) and read here: a temperature is the decimal written
(``--tau 0.05`` is 5/100; ``--scale 20`` is tau = 1/20, ``--scale 3`` 1/3 and ``--logit-scale L`` e^{-L} to
TAU_DIGITS significant digits), integers are the integers written.  Bad input, bad files included, is one
``InputError`` naming the option (and the file): the command line prints one line and exits 2.
"""
from __future__ import annotations

import contextlib
import json
import math
import sys
from decimal import Decimal
from pathlib import Path

from ..errors import TAU_RANGE, InputError, range_text, read_decimal, read_int, read_int_list, shown_path
from .cli import RANGES, output_dir

__all__ = ["add_parser", "run", "read_tau", "logit_scale_range", "read_ks", "K_RANGE", "DIGITS_SMALL_N"]

K_RANGE = (1, 10 ** 12)
DIGITS_RANGE = (5, 50)
DIGITS_SMALL_N = 20_000          # --digits needs n * pool size <= this (the arb route is per atom)
SAMPLES_RANGE = (0, 10 ** 6)
SEED_RANGE = (0, 2 ** 64 - 1)
WORKERS_RANGE = (1, 64)
# a tau from --scale or --logit-scale, 1/S or e^-L, to this many significant digits: its rounding (1e-80 relative)
# moves no value by more than 2/tau x 1e-80 <= 2e-78, far below the last of the --digits (at most 50) asked for.
# At 25 digits, the --digits 50 values at --scale 3 were those of another tau from the 27th digit on (an
# embeddings probe, Dec 2026)
TAU_DIGITS = 80


def add_parser(subparsers):
    """Add ``embeddings`` to the subcommands (``subparsers`` from ``add_subparsers``)."""
    lo, hi = TAU_RANGE
    e = subparsers.add_parser(
        "embeddings", help="finite-k bias of InfoNCE on your own embeddings (n anchor/positive pairs)",
        description="The empirical model: pi-hat uniform on the n anchors, the positive of anchor i is "
                    "row i of --positives, k negatives i.i.d. with replacement from the pool. Exact "
                    "R(k) (float64, with an error bound), the limit ∫CE, Prop. 1, c1 and c2, the k "
                    "beyond which |gap| stays below 0.1/0.01/0.001, a tau sweep and a Monte Carlo check.")
    e.add_argument("--anchors", metavar="FILE", required=True,
                   help="n x d anchor embeddings: .npy or .safetensors (memory-mapped), .npz, .parquet or .pt (required)")
    e.add_argument("--positives", metavar="FILE", required=True,
                   help="n x d positives, row i paired with anchor i; same formats (required)")
    pool = e.add_mutually_exclusive_group()
    pool.add_argument("--negatives", metavar="FILE", default=None,
                      help="m x d pool of negatives (default: none, the pool is --negatives-from)")
    pool.add_argument("--negatives-from", metavar="NAME", default=None,
                      help="pool of negatives: positives | anchors (default positives, own row included)")
    t = e.add_mutually_exclusive_group()
    t.add_argument("--tau", metavar="X", default=None,
                   help=f"temperature tau, a decimal in [{lo:g}, {hi:g}] (one of --tau, --scale, --logit-scale is required)")
    t.add_argument("--scale", metavar="S", default=None,
                   help=f"sentence-transformers scale, tau = 1/S; S a decimal in [{1 / hi:g}, {1 / lo:g}] (no default)")
    t.add_argument("--logit-scale", metavar="L", default=None,
                   help=f"open_clip logit_scale, tau = exp(-L); L a decimal in {logit_scale_text()} (no default)")
    e.add_argument("--k", metavar="K1,K2,...", default="1,16,256,4096,65536,1000000",
                   help="numbers of negatives, comma-separated integers in [1, 10^12] "
                        "(default 1,16,256,4096,65536,1000000)")
    e.add_argument("--loss", metavar="NAME", default="infonce",
                   help="loss for the k-for-gap search and the Monte Carlo check: infonce | dcl (default "
                        "infonce; both gaps are reported, the DCL one at k >= 2 only when n * pool <= 4e7 "
                        "or with --loss dcl)")
    e.add_argument("--exclude-own", action="store_true",
                   help="leave anchor i's own pool row out of its negatives (in-batch practice; the "
                        "default model, own row included, is reported beside it) (default off)")
    e.add_argument("--key", metavar="KEY[,KEY...]", default=None,
                   help="array name inside .npz/.safetensors/.pt files: one for every file, or one per file "
                        "in the order anchors,positives[,negatives]; inside a .pt checkpoint's nested dicts, "
                        "the entry's path joined by '.', e.g. state_dict.encoder.emb (default: the file's only array)")
    e.add_argument("--column", metavar="COL[,COL...]", default=None,
                   help="list column of .parquet files, one for all or one per file as for --key "
                        "(default: the file's only column)")
    e.add_argument("--compare", nargs=2, metavar=("A2", "P2"), default=None,
                   help="Prop. 4: the same items embedded by a second model version (anchors, positives); "
                        "reports |change of the loss| against the continuity bound over sampled tuples, at the "
                        "k <= 4096 of --k; a version of fewer dimensions (a truncated one) is zero-padded "
                        "(default off)")
    e.add_argument("--compare-key", metavar="KEY[,KEY]", default=None,
                   help="array names inside the --compare files (default: as --key)")
    e.add_argument("--digits", metavar="N", default=None,
                   help=f"also compute R(k) with the arb route at N significant digits (the cosines of the rows "
                        f"as given, normalised at that precision), an integer in "
                        f"[{DIGITS_RANGE[0]}, {DIGITS_RANGE[1]}]; small models only (n * pool <= {DIGITS_SMALL_N}) "
                        f"and k in {range_text(*RANGES['k_exact'])}, as risk (default off)")
    e.add_argument("--samples", metavar="N", default="4096",
                   help="Monte Carlo tuples per k (k <= 4096) for the cross-check and for --compare, 0 or "
                        "an integer in [2, 10^6]; 0 turns the cross-check off (--compare then samples 2048) "
                        "(default 4096)")
    e.add_argument("--seed", metavar="N", default="0",
                   help="seed of numpy's SeedSequence, an integer in [0, 2^64 - 1] (default 0)")
    e.add_argument("--no-tau-sweep", action="store_true",
                   help="skip the tau sweep (tau x 0.5, 0.7, 1, 1.4, 2 within the range; x 0.5, 1, 2 when "
                        "n * pool > 4e7) (default: sweep)")
    e.add_argument("--workers", metavar="N", default=None,
                   help="local worker processes, each taking blocks of anchors, an integer in [1, 64] (1: this "
                        "process); each needs its own reserve and a block within --memory-limit (default 2 when "
                        "n * pool > 4e7, else 1)")
    e.add_argument("--memory-limit", metavar="SIZE", default="2GB",
                   help="memory for all processes together (per worker with --scheduler): the anchors go in "
                        "blocks sized to fit, the inputs memory-mapped (.npy, .safetensors), nothing n x pool held; a size "
                        "like 2GB, 500MB, 1.5GiB, at least the processes' own reserve and one block (a smaller "
                        "limit is refused, saying how much this model needs) (default 2GB)")
    from .cli import LIMITS, real_option
    real_option(e, "--max-seconds", "stop a run that reaches this many seconds of wall time (exit 1, nothing printed; "
                "the exact route at --digits and a long Monte Carlo check have no estimate up front)", 1, 10**9,
                default=str(LIMITS["max_seconds"]))
    e.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="run the blocks on a running dask.distributed scheduler (tcp://host:8786); the workers "
                        "read the files themselves, so the paths must be valid on them; same numbers as the "
                        "local run (pip install \"infonce-sym[dask]\") (default: local)")
    e.add_argument("--json", action="store_true", help="print one JSON object (default: a text summary)")
    e.add_argument("--out", metavar="DIR", default=None,
                   help="also write report.md, gap_vs_k.png and tau_sweep.png into DIR (created if missing) "
                        "(default: none)")
    e.set_defaults(func=run, command="embeddings")
    return e


# ------------------------------------------------------------------ readers (exact, one line on error)
def _int(flag, text, lo, hi):
    # errors.read_int: its message gives integer examples (this one said "like 0.5 or 2e-3"; a probe, Dec 2026)
    return read_int(flag, text, lo, hi)


def logit_scale_range(places: int = 5):
    """[-log(tau_max), -log(tau_min)] with its ends rounded inward to ``places`` decimals (as printed in
    --help: every L shown as allowed is allowed; 4.6052 > log 100 = 4.605170... is not)."""
    lo, hi = TAU_RANGE
    scale = 10 ** places
    return (format(Decimal(math.ceil(-math.log(hi) * scale)) / scale, "f"),
            format(Decimal(math.floor(-math.log(lo) * scale)) / scale, "f"))


def logit_scale_text() -> str:
    """The range of --logit-scale as the rule is (tau = e^-L in TAU_RANGE), with its rounded ends marked as
    approximate: 4.6051701 lies beyond a printed 4.60517 and is allowed (the probe, Dec 2026)."""
    lo, hi = TAU_RANGE
    llo, lhi = logit_scale_range()
    return f"[-log({hi:g}), -log({lo:g})], about [{llo}, {lhi}] (tau = e^-L in [{lo:g}, {hi:g}])"


def read_tau(args) -> str:
    """tau as a decimal string, from exactly one of --tau, --scale, --logit-scale."""
    import mpmath
    lo, hi = (Decimal(str(x)).normalize() for x in TAU_RANGE)
    slo, shi = (format(x, "f") for x in (1 / hi, 1 / lo))
    given = [(f, v) for f, v in (("--tau", args.tau), ("--scale", args.scale), ("--logit-scale", args.logit_scale))
             if v is not None]
    if not given:
        raise InputError("--tau", "give the temperature: --tau X, --scale S (tau = 1/S) or --logit-scale L (tau = e^-L)")
    flag, text = given[0]
    if flag == "--tau":
        tau = read_decimal(flag, text, f"a number in [{lo:f}, {hi:f}]")
        shown = str(text).strip()
    elif flag == "--scale":
        s = read_decimal(flag, text, f"a number in [{slo}, {shi}]")
        if s <= 0:
            raise InputError(flag, f"must be a number in [{slo}, {shi}] (tau = 1/S), got {text!r}")
        with mpmath.workdps(TAU_DIGITS + 10):
            shown = mpmath.nstr(1 / mpmath.mpf(str(s)), TAU_DIGITS)
        tau = Decimal(shown)
    else:
        what = f"a number in {logit_scale_text()}"
        ls = read_decimal(flag, text, what)
        if ls.copy_abs() > 50:
            raise InputError(flag, f"must be {what}, got {text!r}")
        with mpmath.workdps(TAU_DIGITS + 10):
            shown = mpmath.nstr(mpmath.exp(-mpmath.mpf(str(ls))), TAU_DIGITS)
        tau = Decimal(shown)
    if not lo <= tau <= hi:
        from .embeddings import tau_label      # (80 digits of 1/S or e^-L in a one-line error were noise)
        if flag == "--logit-scale":
            raise InputError(flag, f"must be {what}, got {text!r} (tau = {tau_label(shown)})")
        raise InputError(flag, f"must give tau in [{lo:f}, {hi:f}], got {text!r} (tau = {tau_label(shown)})")
    return shown


_UNITS = {"": 1, "B": 1, "KB": 10 ** 3, "MB": 10 ** 6, "GB": 10 ** 9, "TB": 10 ** 12,
          "KIB": 2 ** 10, "MIB": 2 ** 20, "GIB": 2 ** 30, "TIB": 2 ** 40}


# the file formats whose arrays have names (--key, --compare-key)
KEYED_SUFFIXES = frozenset({".npz", ".safetensors", ".pt"})


def read_memory(text, floor: int = 10 ** 8) -> int:
    """--memory-limit: a size such as 2GB, 500MB, 1.5GiB (bytes without a unit), at least ``floor`` bytes
    (the command passes the processes' own reserve: no model fits below it)."""
    import re
    what = f"a size such as 2GB, 500MB or 1.5GiB (at least {math.ceil(floor / 1e6)}MB)"
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]*)?)\s*([A-Za-z]*)\s*", str(text))
    if not m or m.group(2).upper() not in _UNITS:
        raise InputError("--memory-limit", f"must be {what}, got {text!r}")
    value = int(Decimal(m.group(1)) * _UNITS[m.group(2).upper()])
    if value < floor:
        raise InputError("--memory-limit", f"must be {what}, got {text!r}")
    return value


def read_ks(text) -> list:
    return read_int_list("--k", text, *K_RANGE)


def _names(flag, text, files, suffixes):
    """--key or --column: one name for every file (used by those whose format has names, ``suffixes``),
    or one per file, each for a file that has names."""
    if text is None:
        return [None] * len(files)
    parts = [p.strip() for p in str(text).split(",")]
    if len(parts) == 1:
        return parts * len(files)
    if len(parts) != len(files):
        raise InputError(flag, f"give one name for all files or one per file ({len(files)}), got {len(parts)}: {text!r}")
    for (file_flag, path), name in zip(files, parts):
        if Path(str(path)).suffix.lower() not in suffixes:
            raise InputError(flag, f"{name!r} is given for {file_flag} {shown_path(path)}, a {Path(str(path)).suffix or 'file'} "
                                   f"without named {'columns' if flag == '--column' else 'arrays'} "
                                   f"(names apply to {', '.join(sorted(suffixes))})")
    return parts


def _load(files, keys, columns):
    from .embeddings_io import load_matrix
    return [None if path is None else load_matrix(flag, path, key, col)
            for (flag, path), key, col in zip(files, keys, columns)]


# ------------------------------------------------------------------ run
def _inputs_as_typed(args) -> dict:
    """The options as typed, defaults included (as the other commands' JSON gives them)."""
    typed = getattr(args, "typed", {})
    return {name: typed.get(name, value) for name, value in vars(args).items()
            if value is not None and not name.startswith("_")
            and name not in ("command", "func", "json", "typed", "given", "progress")}


def run(args) -> int:
    from ..quantities import empirical as emp
    from . import embeddings as app
    tau_text = read_tau(args)
    ks = read_ks(args.k)
    loss = args.loss
    if loss not in ("infonce", "dcl"):
        raise InputError("--loss", f"must be one of infonce, dcl, got {loss!r}")
    negatives_from = args.negatives_from or "positives"
    if negatives_from not in ("positives", "anchors"):
        raise InputError("--negatives-from", f"must be one of positives, anchors, got {negatives_from!r}")
    samples = _int("--samples", args.samples, *SAMPLES_RANGE)
    if samples == 1:
        raise InputError("--samples", "must be 0 (no Monte Carlo check) or at least 2: one tuple gives no "
                         "standard error, got '1'")
    seed = _int("--seed", args.seed, *SEED_RANGE)
    workers = None if args.workers is None else _int("--workers", args.workers, *WORKERS_RANGE)
    digits = None if args.digits is None else _int("--digits", args.digits, *DIGITS_RANGE)
    out_dir = None if args.out is None else output_dir("--out", args.out, files=app.REPORT_FILES)
    files = [("--anchors", args.anchors), ("--positives", args.positives)]
    if args.negatives is not None:
        files.append(("--negatives", args.negatives))
    named = [p for _, p in files] + list(args.compare or [])
    suffixes = {Path(str(p)).suffix.lower() for p in named}
    if args.key is not None and not suffixes & KEYED_SUFFIXES:
        raise InputError("--key", "names arrays inside .npz, .safetensors or .pt files, and no file given is one")
    if args.column is not None and ".parquet" not in suffixes:
        raise InputError("--column", "names a list column of .parquet files, and no file given is one")
    if args.compare_key is not None and args.compare is None:
        raise InputError("--compare-key", "names arrays inside the --compare files; give --compare A2 P2")
    if args.compare_key is not None and not {Path(str(p)).suffix.lower() for p in args.compare} & KEYED_SUFFIXES:
        raise InputError("--compare-key", "names arrays inside .npz, .safetensors or .pt files, and neither --compare "
                         "file is one")
    keys = _names("--key", args.key, files, KEYED_SUFFIXES)
    cols = _names("--column", args.column, files, {".parquet"})
    arrays = _load(files, keys, cols)
    if arrays[1].shape != arrays[0].shape:
        raise InputError("--positives", f"{args.positives}: shape {arrays[1].shape} does not match the anchors' "
                         f"{arrays[0].shape} ({args.anchors}); row i must be the positive of anchor i")
    if len(arrays) > 2 and arrays[2].shape[1] != arrays[0].shape[1]:
        raise InputError("--negatives", f"{args.negatives}: dimension {arrays[2].shape[1]} does not match the "
                         f"anchors' {arrays[0].shape[1]} ({args.anchors})")
    if args.exclude_own and len(arrays) > 2 and arrays[2].shape[0] != arrays[0].shape[0]:
        raise InputError("--exclude-own", f"{args.negatives}: needs one pool row per anchor ({arrays[0].shape[0]}), "
                         f"has {arrays[2].shape[0]}")
    if args.exclude_own and arrays[0].shape[0] < 2:
        raise InputError("--exclude-own", "needs at least 2 pairs")
    model = other = None
    if args.compare is not None or digits is not None:       # small models: the rows in memory
        names = tuple(f for f, _ in files) + (("--negatives",) if len(files) == 2 else ())
        model = emp.make_pairs(arrays[0], arrays[1], arrays[2] if len(arrays) > 2 else None,
                               negatives_from, args.exclude_own, names=names[:3])
    if args.compare is not None:
        compared = [("--compare", args.compare[0]), ("--compare", args.compare[1])]
        ckeys = (_names("--compare-key", args.compare_key, compared, KEYED_SUFFIXES)
                 if args.compare_key else keys[:2])
        c = _load(compared, ckeys, cols[:2])
        # a truncated dimension (the first d' < d coordinates, Matryoshka-style): its unit rows are those of S^(d'-1)
        # inside S^(d-1), zero-padded, whose similarities are the truncated ones (refused before; an embeddings probe)
        padded_from = None
        if (all(arr.ndim == 2 and ref.ndim == 2 and arr.shape[0] == ref.shape[0] for arr, ref in zip(c, arrays[:2]))
                and c[0].shape[1] == c[1].shape[1] < arrays[0].shape[1]):
            import numpy as np
            padded_from = c[0].shape[1]
            c = [np.pad(np.asarray(arr), ((0, 0), (0, arrays[0].shape[1] - padded_from))) for arr in c]
        for path, arr, ref in zip(args.compare, c, arrays[:2]):
            if arr.shape != ref.shape:
                raise InputError("--compare", f"{path}: shape {arr.shape} does not match the first version's {ref.shape}"
                                 " (a narrower version is taken as a truncated dimension when both its files have one"
                                 " width)")
        if args.negatives is not None:
            raise InputError("--compare", "works with --negatives-from (the pool must come from the compared files)")
        other = emp.make_pairs(c[0], c[1], None, negatives_from, args.exclude_own, names=("--compare", "--compare", "--compare"))
        if other.anchors.shape != model.anchors.shape:
            raise InputError("--compare", f"{args.compare[0]}: shape {other.anchors.shape} does not match the "
                             f"anchors' {model.anchors.shape}")
    pool_rows = arrays[2].shape[0] if len(arrays) > 2 else arrays[0].shape[0]
    pool_size = pool_rows - (1 if args.exclude_own else 0)
    if digits is not None and arrays[0].shape[0] * pool_size > DIGITS_SMALL_N:
        raise InputError("--digits", f"needs n * pool <= {DIGITS_SMALL_N} (the arb route works atom by atom); "
                         f"this model has {arrays[0].shape[0]} x {pool_size}")
    from .embeddings_io import rescaled_rows
    source = app.RowSource(files=tuple((flag, str(path), key, col) for (flag, path), key, col in zip(files, keys, cols)),
                           negatives_from=negatives_from, exclude_own=bool(args.exclude_own),
                           rescaled_rows=sum(rescaled_rows(a) for a in arrays))
    app.remember(source, arrays)              # this process has them open already
    # below the main process's reserve (a worker's with --scheduler: the limit is per worker) no model fits
    memory_limit = read_memory(args.memory_limit, app.WORKER_RESERVE if args.scheduler is not None else app.PARENT_RESERVE)
    large = arrays[0].shape[0] * pool_size > app.LARGE
    label, pool = "in-process", contextlib.nullcontext()
    if args.scheduler is not None:
        if args.workers is not None:
            raise InputError("--workers", "is for the local process pool; with --scheduler the cluster's workers are used")
        from .cli import work_executor        # the cluster's executor, its client closed after the run
        pool, label = work_executor(args, 1), f"dask ({args.scheduler})"
        workers = 1
    else:
        if workers is None:
            import os
            workers = min(2, os.cpu_count() or 1) if large else 1
        if workers > 1:                 # the workers shielded from Ctrl-C and ended at once on one (cli.local_pool)
            from .cli import local_pool
            pool, label = local_pool(workers), f"process pool ({workers})"
    from .cli import StopAtMaxSeconds
    with StopAtMaxSeconds(args), pool as executor:
        result = app.analyse(source, tau_text, ks, loss,
                             tau_sweep=not args.no_tau_sweep, mc_samples=samples, seed=seed, digits=digits,
                             workers=workers, executor=executor, memory_limit=memory_limit, executor_label=label,
                             progress=getattr(args, "progress", None))
        if other is not None:
            result["compare"] = app.compare_versions(model, other, tau_text, ks, max(2, samples or 2048), seed, loss)
            result["compare"]["zero_padded_from_dim"] = padded_from
    result.pop("_tables", None)
    if out_dir is not None:
        command = "infonce-sym embeddings " + " ".join(_argv_shown())
        result["written"] = [str(p) for p in app.write_report(result, out_dir, command)]
    if args.json:
        result = {"command": "embeddings", "inputs": _inputs_as_typed(args), **result}
        print(json.dumps(result, indent=1, allow_nan=False, default=str))
    else:
        _print_text(result)
    fails = [r for r in result["by_k"] if not (r["prop1_holds"] and r["dcl_holds"] is not False)]
    if fails:
        print(f"infonce-sym: a bound is violated at k = {fails[0]['k']}", file=sys.stderr)
        return 1
    return 0


def _argv_shown():
    argv = sys.argv[1:]
    return argv[argv.index("embeddings") + 1:] if "embeddings" in argv else argv


def _print_text(r):
    from .embeddings import MC_MAX_K, cell, expansion_text, pool_text, shown, tau_label
    print(f"empirical model: n = {r['n']} pairs, d = {r['dim']}, tau = {tau_label(r['tau'])}, pool = {r['pool']} "
          f"({pool_text(r)}); "
          f"rows normalised ({r['rows_rescaled']} had norm != 1)")
    print(f"k -> oo limit ∫CE = {shown(r['cross_entropy_limit'], r['cross_entropy_limit_error_bound'])} "
          f"± {r['cross_entropy_limit_error_bound']:.1e}   {expansion_text(r)}")
    print(f"{'k':>10} {'R(k)':>18} {'∫CE - R':>13} {'± bound':>8} {'P1 lower':>10} {'P1 upper':>10} "
          f"{'c1/k+c2/k²':>12} {'∫CE - R~':>12}")
    for row in r["by_k"]:
        up = row["prop1_upper"]
        exp = row["expansion_c1_c2"]
        print(f"{row['k']:>10} {cell(row['risk'], row['risk_error_bound'], 12):>18} "
              f"{shown(row['gap'], row['gap_error_bound'], 6):>13} "
              f"{row['gap_error_bound']:>8.1e} "
              f"{row['prop1_lower']:>10.4g} {up:>10.4g} "
              f"{cell(exp, row['expansion_c1_c2_error_bound']):>12} "
              f"{cell(row['dcl_gap'], row['dcl_gap_error_bound']):>12}")
    beyond = f"> 2^{r['k_for_gap_search_limit'].bit_length() - 1}"      # (null in the JSON)
    print(f"k beyond which |∫CE - {'R~' if r['k_for_gap_loss'] == 'dcl' else 'R'}| stays below " + ", ".join(
        f"{t}: {v if v is not None else beyond}" for t, v in r["k_for_gap"].items())
          + " (searched: doublings of k, and the peaks of |gap| between them)")
    if r.get("dcl_note"):
        print(r["dcl_note"])
    if r.get("own_row_included"):
        own = r["own_row_included"]
        print(f"beside it, the default model (own row included in the pool): ∫CE = "
              f"{shown(own['cross_entropy_limit'], own['cross_entropy_limit_error_bound'])}; gap " +
              ", ".join(f"k={x['k']}: {x['gap']:.6g}" for x in own["by_k"]))
    for row in r.get("monte_carlo", []):
        # no z where the standard error is the values' rounding (it measured no spread: -192 was printed beside
        # "consistent"); the JSON keeps it
        no_spread = row["z"] is None or row["verdict"].startswith("consistent (no spread beyond rounding")
        z = "—" if no_spread else f"{row['z']:.2f}"
        print(f"Monte Carlo k = {row['k']}: gap {row['mc_gap']:.6g} ± {row['stderr']:.2g} (exact "
              f"{row['exact_gap']:.6g}, z = {z}, {row['verdict']})")
    for row in r.get("tau_sweep", []):
        dcl = "; DCL gap " + ", ".join(f"k={x['k']}: {x['dcl_gap']:.4g}" for x in row["by_k"]) if "dcl_gap" in row["by_k"][0] else ""
        print(f"tau = {row['tau']:.4g}: ∫CE = {shown(row['cross_entropy_limit'], row['cross_entropy_limit_error_bound'], 8)}; gap " +
              ", ".join(f"k={x['k']}: {x['gap']:.4g}" for x in row["by_k"]) + dcl)
    if r.get("compare"):
        if r["compare"].get("zero_padded_from_dim"):
            print(f"Prop. 4: the second version's {r['compare']['zero_padded_from_dim']} dimensions, zero-padded to "
                  f"{r['dim']} (a truncated dimension: the same similarities)")
        for row in r["compare"]["by_k"]:
            over = f"all {row['samples']} tuples" if row.get("every_tuple") else f"{row['samples']} sampled tuples"
            print(f"Prop. 4, k = {row['k']}, over {over}: max |change| {row['max_change']:.4g}; worst ratio to the bound "
                  f"{row['prop4']['worst_ratio']:.3g} (paper [4,1,3]), {row['prop4_sharp']['worst_ratio']:.3g} "
                  f"(sharpened [2,1,1])")
        if r["compare"].get("skipped_k"):
            print("Prop. 4: not at k = " + ", ".join(map(str, r["compare"]["skipped_k"]))
                  + f" (its tuples are sampled, at k <= {MC_MAX_K})")
    for row in r.get("digits", []):
        print(f"arb route k = {row['k']}: R = {row['risk']} (float64 gap - exact = {row['float64_gap_minus_exact']:.1e})")
    if r.get("digits_skipped_k"):
        print("arb route: not at k = " + ", ".join(map(str, r["digits_skipped_k"]))
              + f" (it takes k in {range_text(*RANGES['k_exact'])})")
    if r.get("written"):
        print("wrote " + ", ".join(r["written"]))
