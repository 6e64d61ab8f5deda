"""The ``infonce-sym`` command line.

Every option is read as typed (``type=str``) and converted after parsing by the reader it was
declared with (``real_option``, ``int_option``, ...): a real number is the decimal written
(``decimal.Decimal``), an integer the integer written.  Everything is validated before any work;
bad input exits with status 2 and one line naming the option, the value as typed and its range.
Exit status: 0 done, 1 a check differs, a numerical failure or a run stopped at --max-seconds, 2 bad input,
130 interrupted.
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import math
import os
import signal
import sys
import threading
import time
from decimal import Decimal
from pathlib import Path

from ..errors import (DIGITS_RANGE, InputError, missing_file, read_list, range_text, read_choice, read_int, read_int_list,
                      read_json_file, read_real, shown, shown_path)
from .report import REPORT_FILES             # verify's files (report.py imports only the standard library at load)

__all__ = ["main", "build_parser", "real_option", "int_option", "choice_option", "path_option",
           "RANGES", "LIMITS"]

# the sections of ``infonce-sym bench`` (``benchmark.SECTIONS``, not imported for the help text: it
# loads the Monte Carlo kernels; tests/app/test_benchmark.py keeps the two equal)
BENCH_SECTIONS = ("monte_carlo", "sampler", "naive", "exact", "exact_table", "exact_digits", "exact_finite",
                  "rademacher", "verify")

# Documented ranges (README "Command line"); each is tested at its ends in tests/app.
RANGES = {
    "tau": (Decimal("0.01"), Decimal(100)),
    "dim": (2, 10**5),
    "dim_exact": (2, 4096),
    "kappa_exact": (Decimal(0), Decimal(10**4)),    # issue 10's range; above ~1000 the search CE runs on per-c cells
    "kappa_mc": (Decimal(0), Decimal(10**6)),
    "k_exact": (1, 10**9),
    "k_mc": (1, 10**9),
    "digits": DIGITS_RANGE,
    "samples_mc": (2, 10**12),
    "seed": (0, 2**128 - 1),
    "finite_states": (1, 2000),
    "dim_in": (1, 3),
    "m": (1, 3),
    "n": (1, 10**6),
    "k_section4": (1, 10**5),
    "samples_section4": (2, 10**6),
    "repeats": (1, 10**4),
    "radius": (Decimal(0), Decimal(10)),
    "workers": (1, 64),
}
# Requests whose estimated cost exceeds --max-seconds are refused up front.
LIMITS = {"max_seconds": 600, "max_memory_fraction": 0.5}


# ------------------------------------------------------------------ parser with typed options

class _Once(argparse.Action):
    """``store`` that refuses an option given twice: with argparse's last-one-wins, ``--tau 0.5 --tau 0.6``
    ran at 0.6 and ``--anchors A --anchors P`` read P as the anchors, silently."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault("_given_options", {})
        if self.dest in given:
            shown = lambda v: " ".join(v) if isinstance(v, list) else v  # noqa: E731
            raise InputError(option_string, f"given twice ({shown(given[self.dest])}, then {shown(values)}); give it once")
        given[self.dest] = values
        setattr(namespace, self.dest, values)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)       # options are spelled out
        super().__init__(*args, **kwargs)
        # every option that takes a value is given at most once (flags may repeat: --json --json is --json); the
        # registry, not add_argument, so that the argument groups (which share it) follow too
        self.register("action", None, _Once)
        self.register("action", "store", _Once)

    def parse_known_args(self, args=None, namespace=None):
        self._arguments_given = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def error(self, message):           # one line, status 2
        if message.startswith("the following arguments are required"):
            # a misspelt option (--ta for --tau) was reported only as the missing one (a probe, Dec 2026)
            unknown = [a for a in getattr(self, "_arguments_given", []) if a.startswith("-") and len(a) > 1
                       and not a[1].isdigit() and a.split("=")[0] not in self._option_string_actions]
            if unknown:
                message = f"unrecognized arguments: {' '.join(unknown)} ({message})"
        raise InputError("arguments", message)


def _readers(p) -> dict:
    """The {dest: reader} table of a (sub)parser, stored in its defaults as ``_readers``."""
    table = p.get_default("_readers")
    if table is None:
        table = {}
        p.set_defaults(_readers=table)
    return table


def _dest(flag: str) -> str:
    return flag.lstrip("-").replace("-", "_")


def _add(p, flag, reader, help, default, required, metavar):
    tail = "required" if required else (f"default {default}" if default is not None else "no default")
    p.add_argument(flag, default=None, required=required, metavar=metavar, help=f"{help} ({tail})")
    _readers(p)[_dest(flag)] = (reader, default)


def real_option(p, flag, help, lo, hi, default=None, lo_open=False, hi_open=False, required=False,
                in_floats=False):
    """A real option: the decimal typed, in [lo, hi] (or open ends); help shows range and default.
    ``in_floats``: the command computes with the value as a double, which must then lie in the range too
    (1e-400 is > 0, its double is not)."""
    reader = _real_reader(flag, lo, hi, lo_open, hi_open, in_floats)
    _add(p, flag, reader, f"{help}; a decimal in {range_text(lo, hi, lo_open, hi_open)}", default, required, "X")


def real_list_option(p, flag, help, lo, hi, default=None, lo_open=False, hi_open=False, required=False,
                     in_floats=False):
    """Comma-separated decimals, each as ``real_option`` reads it, none twice, read in increasing order."""
    reader = _real_reader(flag, lo, hi, lo_open, hi_open, in_floats)
    _add(p, flag, lambda text: read_list(flag, text, reader, f"decimals in {range_text(lo, hi, lo_open, hi_open)}"),
         f"{help}; decimals in {range_text(lo, hi, lo_open, hi_open)}, one or several separated by commas",
         default, required, "X1,X2,...")


def _real_reader(flag, lo, hi, lo_open, hi_open, in_floats):
    rng = range_text(lo, hi, lo_open, hi_open)

    def reader(text):
        value = read_real(flag, text, lo, hi, lo_open, hi_open)
        if in_floats:
            try:
                read_real(flag, repr(float(value)), lo, hi, lo_open, hi_open)
            except InputError:
                raise InputError(flag, f"must be a decimal in {rng} as a double too (this command computes in "
                                       f"doubles), got {shown(text)}, whose double is {float(value)!r}") from None
            if value != 0 and abs(float(value)) < sys.float_info.min:
                # a subnormal double (5e-324) has lost its digits, and R/12 of a radius R of 5e-324 is 0
                # (it named 0 as allowed, which no range of a double option holds: (0, 10] for --radius)
                raise InputError(flag, f"must be a decimal in {rng} whose double is not subnormal (at least "
                                       f"2.2250738585072014e-308 in size; this command computes in doubles), got "
                                       f"{shown(text)}")
        return value
    return reader


def int_option(p, flag, help, lo, hi, default=None, required=False):
    """An integer option ('1e3' is 1000, '1.5' is refused); help shows range and default."""
    _add(p, flag, lambda text: read_int(flag, text, lo, hi), f"{help}; an integer in {range_text(lo, hi)}",
         default, required, "N")


def int_list_option(p, flag, help, lo, hi, default=None, required=False):
    """Comma-separated integers, none twice ('1,16,1e3'), read in increasing order."""
    _add(p, flag, lambda text: read_int_list(flag, text, lo, hi),
         f"{help}; integers in {range_text(lo, hi)}, one or several separated by commas", default, required,
         "K1,K2,...")


def choice_option(p, flag, help, choices, default):
    _add(p, flag, lambda text: read_choice(flag, text, choices), f"{help}: {' | '.join(choices)}",
         default, False, "NAME")


def path_option(p, flag, help, kind, default=None, required=False, files=()):
    """kind 'file' (an input file to read) or 'dir' (an output directory to create or reuse, into which the
    command writes ``files``)."""
    reader = (lambda text: _input_file(flag, text)) if kind == "file" else (lambda text: output_dir(flag, text, files))
    _add(p, flag, reader, help, default, required, "FILE" if kind == "file" else "DIR")


def _derivations_dir(text) -> Path:
    if not text or not text.strip():
        raise InputError("--out", f"must be a directory path, got {shown(text)}")
    return Path(text)


def _input_file(flag, text) -> Path:
    if not text:
        raise InputError(flag, "must be a file path, got ''")
    path = Path(text)
    problem = missing_file(path)
    if problem is not None:
        raise InputError(flag, f"{problem}: {shown(text)}")
    if path.is_dir():
        raise InputError(flag, f"is a directory, not a file: {shown(text)}")
    return path


def output_dir(flag, text, files=()) -> Path:
    """An output directory, created now (before any work) and shown to be writable; ``files``: the names
    the command will write there, none of which may exist as anything but a file (a directory, say)."""
    import tempfile
    if not text or not text.strip():
        raise InputError(flag, f"must be a directory path, got {shown(text)}")
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise InputError(flag, f"exists and is not a directory: {shown(text)}")
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        # the error is creating a file there (/proc/1 exists, and said "No such file or directory"; a probe, Dec 2026)
        raise InputError(flag, f"cannot create a file in {shown(text)}: {exc.strerror or exc}") from None
    for name in files:
        target = path / name
        if target.is_symlink() and not target.exists():
            # written only after the work, through a link to nowhere (a probe, Dec 2026)
            raise InputError(flag, f"{name} in {shown(text)} is a link to a path that does not exist; the report "
                                   f"writes it")
        if target.exists() and not target.is_file():
            raise InputError(flag, f"{name} in {shown(text)} exists and is not a file; the report writes it")
    return path


def _read_options(args):
    """Replace each typed string by its value; keep the strings typed in ``args.typed``."""
    args.typed, args.given = {}, set()
    for dest, (reader, default) in (getattr(args, "_readers", None) or {}).items():
        text = getattr(args, dest)
        if text is None:
            text = default
        else:
            args.given.add(dest)
        args.typed[dest] = text
        setattr(args, dest, None if text is None else reader(text))
    check = getattr(args, "_check", None)
    if check is not None:
        check(args)


# ------------------------------------------------------------------ shared option groups

def _model_options(p, kappa_range, dim_range=RANGES["dim"]):
    choice_option(p, "--model", "the model", ("sphere", "finite", "example-a2"), "sphere")
    int_option(p, "--dim", "sphere: dimension d of R^d (the sphere S^(d-1))", *dim_range, default="3")
    real_option(p, "--kappa", "sphere: von Mises-Fisher concentration of the positives", *kappa_range,
                default="4")
    path_option(p, "--spec", "finite: model file {\"pi\": [...], \"M\": [[...]], \"embedding\": [[...]]}, "
                f"N = 1..{RANGES['finite_states'][1]} states (risk at 30 digits, tau = 0.5, k = 8: N = 120 in about "
                "8 s CPU, N = 500 in about 2 min; an estimate beyond --max-seconds is refused)", "file")
    real_option(p, "--delta", "example-a2: inner product of distinct vectors", 0, 1, default="0", hi_open=True)
    real_option(p, "--mixing", "example-a2: M = (1 - mixing) I + mixing pi", 0, 1, default="0.5")


def _tau_option(p, default=None):
    real_option(p, "--tau", "temperature tau", *RANGES["tau"], default=default, required=default is None)


def _json_option(p):
    p.add_argument("--json", action="store_true",
                   help="print one JSON object (inputs as typed, results as decimal strings, counts as integers)")


def _limit_option(p, stops=False, ends=False):
    what = "refuse up front a run estimated to take longer than this many seconds"
    if stops:
        what += " (and stop refining when the run reaches it: a looser certified bound, complete = false)"
    if ends:
        what += ", and stop a run that reaches it (exit 1, nothing printed)"
    real_option(p, "--max-seconds", what, 1, 10**9, default=str(LIMITS["max_seconds"]))


def _check_model(args):
    """Cross-option checks of the model options; a finite spec is read and validated here."""
    model = args.model
    for dest, owner in _MODEL_ONLY.items():
        if dest in args.given and model != owner:
            raise InputError(f"--{dest}", f"is an option of --model {owner}, got --model {model}")
    if model == "finite":
        if args.spec is None:
            raise InputError("--spec", "--model finite needs --spec FILE.json")
        # a pipe's wait for its bytes is bounded by --max-seconds too (a FIFO with no writer waited 30 s past
        # --max-seconds 2; a probe, Dec 2026)
        args.finite_model = finite_model_from_spec(args.spec, "--spec", idle=getattr(args, "max_seconds", None))
    if model == "example-a2" and args.tau is not None:
        _check_a2_tau(args.typed["tau"], args.tau)


def _check_risk(args):
    """risk: the model checks, and a finite model whose exact values would take longer than
    --max-seconds, or more than half of the machine's memory (both estimated from N, k and the digits),
    is refused before any work."""
    _check_model(args)
    if args.model == "finite":
        from ..quantities.exact_finite import estimated_bytes, estimated_seconds
        n = args.finite_model.size
        # several k share the work: the costliest k, and a tenth of it for each further k
        seconds = max(estimated_seconds(args.finite_model, args.tau, k, args.digits) for k in args.k)
        # ... at the working digits of the largest k
        memory = estimated_bytes(args.finite_model, max(args.k), args.digits)
        _refuse_if_too_costly(args, seconds * (1 + 0.1 * (len(args.k) - 1)),
                              f"--spec {shown_path(args.spec)} (N = {n} states)", memory)


def _check_expand(args):
    """expand: the model checks, and a finite model whose N x N moment sums would take longer than
    --max-seconds is refused before any work."""
    _check_model(args)
    if args.model == "finite":
        n = args.finite_model.size
        _refuse_if_too_costly(args, EXPAND_SECONDS_PER_PAIR * n * n + 1.0, f"--spec {shown_path(args.spec)} (N = {n} states)")


def _check_a2_tau(text, tau):
    """App. A.2 needs e^(1/tau) > 2, and 1/eps = ceil(e^(1/tau) - 1) <= 400 points (tau >= 1/log 401)."""
    from ..models.laws import A2_TAU_RANGE_TEXT, a2_points
    points = a2_points(tau)
    if points == 0:
        raise InputError("--tau", f"example-a2 needs e^(1/tau) > 2, i.e. tau in {A2_TAU_RANGE_TEXT}; got {shown(text)}")
    if points > 400:
        raise InputError("--tau", f"example-a2 with 1/eps = ceil(e^(1/tau) - 1) <= 400 points needs tau in "
                         f"{A2_TAU_RANGE_TEXT}; got {shown(text)}")


def finite_model_from_spec(path, name="spec", idle=None):
    """The FiniteModel of a spec file; every problem is an InputError naming ``name``.  ``idle``: the longest wait
    for a pipe's next bytes, if shorter than PIPE_IDLE_SECONDS."""
    from ..models import FiniteModel
    spec = read_finite_spec(path, name, idle)
    try:
        return FiniteModel(spec["pi"], spec["M"], spec["embedding"], description=f"finite({Path(path).name})")
    except InputError as exc:
        raise InputError(f"{name} {shown_path(path)}", str(exc)) from None


def read_finite_spec(path, name="spec", idle=None):
    """A finite model file, bounded in size and nesting: {"pi", "M", "embedding"} as exact Decimals."""
    data = read_json_file(name, path, idle=idle)
    name = f"{name} {shown_path(path)}"
    if not isinstance(data, dict):
        raise InputError(name, "must be a JSON object with keys pi, M, embedding")
    missing = [key for key in ("pi", "M", "embedding") if key not in data]
    if missing:
        raise InputError(name, f"missing key(s): {', '.join(missing)}")
    extra = sorted(set(data) - {"pi", "M", "embedding", "description"})
    if extra:
        raise InputError(name, f"unknown key(s): {', '.join(map(shown, extra))}")
    if not isinstance(data.get("description", ""), str):
        raise InputError(f"{name}: description", f"must be a string, got {_json_kind(data['description'])}")
    lo, hi = RANGES["finite_states"]
    pi = _vector(f"{name}: pi", data["pi"])
    n = len(pi)
    if not lo <= n <= hi:
        raise InputError(f"{name}: pi", f"must have between {lo} and {hi} entries (states), got {n}")
    M = _matrix(f"{name}: M", data["M"], rows=n, cols=n)
    emb = _matrix(f"{name}: embedding", data["embedding"], rows=n, cols=None)
    return {"pi": pi, "M": M, "embedding": emb}


def _json_kind(x) -> str:
    """A JSON value as a refusal shows it: a list, an object, null, true/false, else the value itself."""
    return {list: "a list", dict: "an object", type(None): "null", bool: str(x).lower()}.get(type(x), shown(str(x)))


def _number(name, x):
    if isinstance(x, bool) or not isinstance(x, (Decimal, str)):
        raise InputError(name, f"must be a number (or a decimal string), got {_json_kind(x)}")
    return read_real(name, x)


def _vector(name, v):
    if not isinstance(v, list) or not v:
        raise InputError(name, "must be a non-empty list of numbers")
    return [_number(f"{name}[{i}]", x) for i, x in enumerate(v)]


def _matrix(name, rows_, rows, cols):
    if not isinstance(rows_, list) or len(rows_) != rows:
        got = len(rows_) if isinstance(rows_, list) else type(rows_).__name__
        raise InputError(name, f"must be a list of {rows} rows (one per state of pi), got {got}")
    out = []
    for i, row in enumerate(rows_):
        if not isinstance(row, list) or not row or (cols is not None and len(row) != cols):
            want = f"{cols} numbers" if cols is not None else "a non-empty list of numbers"
            raise InputError(f"{name}[{i}]", f"must be {want}")
        exact = all(type(x) is Decimal for x in row)       # the usual case: JSON numbers
        out.append(row if exact else [_number(f"{name}[{i}][{j}]", x) for j, x in enumerate(row)])
    if cols is None and len({len(r) for r in out}) > 1:
        raise InputError(name, "rows must all have the same length")
    return out


# ------------------------------------------------------------------ output

def jsonable(x):
    """The JSON convention: results as decimal strings, counts as integers, text as text."""
    import numpy as np
    if x is None or isinstance(x, (bool, str)):
        return x
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return repr(float(x))
    if isinstance(x, Decimal):
        return str(x)
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return jsonable(x.tolist())
    if isinstance(x, Path):
        return str(x)
    return str(x)            # mpf, arb, ...: their decimal string


def _emit_json(args, results, **extra):
    out = {"command": args.command, "inputs": _relevant_inputs(args)}
    out.update(extra)
    if results is not None:
        out["results"] = results
    print(json.dumps(jsonable(out), indent=2))


_MODEL_ONLY = {"dim": "sphere", "kappa": "sphere", "spec": "finite", "delta": "example-a2",
               "mixing": "example-a2"}


def _relevant_inputs(args):
    """The options as typed (defaults included), without those of other models."""
    model = getattr(args, "model", None)
    # a command without --model keeps them all (theorem1's --delta is its own; it was dropped as example-a2's)
    return {k: v for k, v in args.typed.items()
            if v is not None and (model is None or _MODEL_ONLY.get(k, model) == model)}


def _inputs_line(args, keys):
    return "  ".join(f"{key}={args.typed[key]}" for key in keys if args.typed.get(key) is not None)


# ------------------------------------------------------------------ cost estimates (this machine)

# Throughputs measured on the project machine (2 shared cores, `/usr/bin/time infonce-sym ...`); the
# estimates are rough (a factor of 2 either way, more for rademacher: below) and only decide what is
# refused up front.
MC_NEGATIVES_PER_SECOND = 1.0e8        # NumPy (the sphere without numba; finite models): negatives e^{s/tau} per second
MC_TUPLES_PER_SECOND = 1.0e6           # per-tuple overhead (anchor, positive, logs)
# the sphere on the compiled kernels (numba, the [fast] extra): 7e8-8.5e8 negatives and 1.1e7 tuples per second
# measured (2 threads, 1e48d33, d = 3..768, k = 16..10^6), against 4e7-8.5e7 and 2.5e6 with NumPy; half that here
# (the NumPy rates made the compiled runs' estimates 3-8x high)
MC_COMPILED_NEGATIVES_PER_SECOND = 4.0e8
MC_COMPILED_TUPLES_PER_SECOND = 5.0e6
# The certified sup (d_Theta <= 3): drawing the tuples and their constants, RADEMACHER_SETUP_SECONDS per
# n (k + 2) entry, then the branch and bound's evaluated centres, each costing RADEMACHER_SECONDS_PER_CENTRE
# plus RADEMACHER_SECONDS_PER_CENTRE_ENTRY per n (k + 2).  The centres do not grow with k: about
# RADEMACHER_CENTRES[d_Theta] at tau = 0.5 and samples x n = 200, times (0.5/tau)^a (more below tau = 0.05,
# where the refinement deepens: (0.05/tau)^b), times (samples x n / 200)^0.6 per chunk of 100 samples.
# Fitted (numba, 2026-12-05) to 66 runs, d_Theta = 1, 2, 3, tau 0.05-2, k 4-1024, (n, samples) (20, 10) and
# (50, 40): the completed runs within 0.6x-3.6x; the bench's k = 64/1024/4096 (tau 0.1, n 50, 20 samples,
# d_Theta 2) 1.4x/1.4x/1.3x high.  The former linear rate per samples x n x (k + 2) was 50x high at
# k = 1024 (d_Theta = 3, tau 0.5: 4104 s estimated, a minute measured) and 5x low at k = 4.  NumPy's
# block kernels take RADEMACHER_NUMPY_FACTOR times as long (bench: 1.4-1.8x).  Beyond the estimate the
# run stops refining at --max-seconds
RADEMACHER_SETUP_SECONDS = 2.0e-6
RADEMACHER_SECONDS_PER_CENTRE = 5.0e-5
RADEMACHER_SECONDS_PER_CENTRE_ENTRY = 1.0e-8
RADEMACHER_CENTRES = {1: (30, 0.3, 1.0), 2: (1000, 0.6, 1.0), 3: (45000, 0.85, 2.2)}   # (centres, a, b)
RADEMACHER_NUMPY_FACTOR = 1.6
# d_Theta > 3: the level-0 grid per cube and per n x (k + 2) entry of a cube (2026-12-04, numba: 233 cubes
# at d_Theta = 4, 2851 at 9, n (k + 2) = 60 to 3300: 0.18 to 6.4 s, within a factor 2 of this); the
# refinement and the optimiser after it stop at --max-seconds
RADEMACHER_GRID_SECONDS_PER_CUBE = 4.5e-4
RADEMACHER_GRID_SECONDS_PER_ENTRY = 4.0e-7
# theorem1's CPU: per repeats x (n + samples) x (k + 2) (the Monte Carlo of both sides), and per repeats x
# candidates x n x (k + 2) (the fit: R_hat_n at fit_erm's candidates); least squares over 13 runs on 1b07802
# (defaults; n 100..10^4, samples 400..2 10^4, k 5..100, m 1..3, d_in 2..3, R 1..10), the 1.9 s of imports
# left out: estimates 0.8-2.4x the CPU (was 1e-5 and 8e-8 x m: 3-30x, refusing runs of 2 s at --max-seconds 5)
THEOREM1_SECONDS_PER_UNIT = 2.6e-7
THEOREM1_SECONDS_PER_FIT_ENTRY = 1.35e-7
BYTES_PER_NEGATIVE = 8 * 8           # memory of one stored negative (tuples of Section 4)
# expand on a finite model: per (anchor, state) pair, the seven moment sums in mpmath, twice (the
# confirmation 20 digits wider; one pass: N = 200 3.6 s, N = 400 10.6 s at 5 to 100 digits, 2026-12-03)
EXPAND_SECONDS_PER_PAIR = 1.4e-4


def _refuse_if_too_costly(args, seconds, what, memory_bytes=0):
    args.estimated_seconds = seconds
    limit = float(args.max_seconds)
    if seconds > limit:
        # the estimate to 3 digits (2 showed 'about 1 s ... exceeds --max-seconds 1'); at the top of the range
        # raising the limit is no way out
        raise InputError(what, f"estimated cost about {seconds:.3g} s on this machine exceeds --max-seconds "
                         f"{args.typed['max_seconds']}; make the run smaller"
                         + (" or raise --max-seconds" if limit < 10**9 else ""))
    if memory_bytes:
        total = _physical_memory()
        if total and memory_bytes > LIMITS["max_memory_fraction"] * total:
            raise InputError(what, f"needs about {memory_bytes / 2**30:.3g} GiB of memory, more than half of "
                             f"this machine's {total / 2**30:.3g} GiB")


class MaxSecondsReached(BaseException):
    """A run of ``risk``, ``expand``, ``mc`` or ``theorem1`` stopped at --max-seconds (a BaseException, as
    KeyboardInterrupt: no ``except Exception`` of the exact routes turns it into a numerical failure)."""


# the stop message per command: what was not reached, and what to ask for instead
_STOPPED = {"risk": ("confirmed", "ask for fewer --digits (or fewer k)"), "expand": ("confirmed", "ask for fewer --digits"),
            "mc": ("complete", "ask for fewer --samples or a smaller --k"),
            "theorem1": ("complete", "ask for fewer --repeats or --samples, or a smaller --n or --k"),
            "embeddings": ("complete", "ask for fewer k, fewer --digits or --samples, or a smaller model")}


class StopAtMaxSeconds:
    """``with StopAtMaxSeconds(args):`` the computation of risk, expand, mc or theorem1, stopped by
    SIGALRM when it has run --max-seconds of wall time.  For risk and expand the up-front estimate
    covers finite models only (their cost grows like N^2); on the sphere the cost grows with the
    digits, d and 1/tau in ways no estimate from the sizes sees (100 digits at d = 128, tau = 0.02:
    15 s; 30 digits: under 3 s).  The estimates of mc and theorem1 assume this machine's speed (and
    mc the compiled kernels').  So the limit is kept while the run goes; compiled Monte Carlo
    chunks end within about a second, and the stop comes between them.  Without SIGALRM (not the
    main thread; Windows) no limit applies."""

    def __init__(self, args):
        self.args = args
        self.old = None

    def __enter__(self):
        if hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread():
            self.old = signal.signal(signal.SIGALRM, self._reached)
            self.old_timer = signal.setitimer(signal.ITIMER_REAL, float(self.args.max_seconds))
            self.start = time.monotonic()
        return self

    def __exit__(self, *exc):
        if self.old is not None:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.old)
            delay, interval = self.old_timer
            if delay > 0:       # a caller's own alarm (main() in-process) goes on, less the time spent here
                signal.setitimer(signal.ITIMER_REAL, max(delay - (time.monotonic() - self.start), 1e-6), interval)
            self.old = None

    def _reached(self, signum, frame):
        missed, instead = _STOPPED[self.args.command]
        raise MaxSecondsReached(f"{self.args.command}: stopped at --max-seconds {self.args.typed['max_seconds']} "
                                f"before the values were {missed}; nothing was printed; raise --max-seconds "
                                f"or {instead}")


def _physical_memory():
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def _sizes(args, *dests):
    return " x ".join(f"--{d.replace('_', '-')} {args.typed[d]}" for d in dests)


def _check_mc(args):
    _check_model(args)
    _refuse_if_too_costly(args, _mc_seconds(args), _sizes(args, "samples", "k"))


def _compiled_kernels_run():
    """Whether the compiled (numba) kernels run: the backend "auto" of mc on the sphere and of rademacher."""
    from ..quantities.montecarlo import default_backend
    return default_backend() == "numba"


def _mc_seconds(args):
    """mc's estimate: the sphere runs on the compiled kernels when numba is installed, else NumPy.  A finite
    model (example-a2 too) with k >= N draws each tuple's negatives as counts per point, Multinomial(k, pi)
    (``montecarlo._finite_run``): N per tuple, not k (the estimate was 10^5-10^6 too high at k = 10^9)."""
    rates = (MC_NEGATIVES_PER_SECOND, MC_TUPLES_PER_SECOND)
    if args.model == "sphere" and _compiled_kernels_run():
        rates = (MC_COMPILED_NEGATIVES_PER_SECOND, MC_COMPILED_TUPLES_PER_SECOND)
    per_tuple = args.k if args.model == "sphere" else min(args.k, _finite_states(args))
    return args.samples * per_tuple / rates[0] + args.samples / rates[1]


def _finite_states(args):
    """N, the states of mc's finite model: the spec's, or example-a2's 1/eps = ceil(e^(1/tau) - 1) (eq. (33))."""
    from ..models.laws import a2_points
    return args.finite_model.size if args.model == "finite" else a2_points(args.tau)


def _rademacher_seconds(d_theta, tau, n, k, samples):
    """The certified sup's estimated CPU seconds (d_Theta <= 3) on the block kernels that will run."""
    centres, a, b = RADEMACHER_CENTRES[d_theta]
    entries = n * (k + 2)
    chunks, per_chunk = -(-samples // 100), min(samples, 100)
    centres *= chunks * (0.5 / tau) ** a * max(1.0, 0.05 / tau) ** b * (per_chunk * n / 200) ** 0.6
    seconds = RADEMACHER_SETUP_SECONDS * entries + centres * (RADEMACHER_SECONDS_PER_CENTRE
                                                               + RADEMACHER_SECONDS_PER_CENTRE_ENTRY * entries)
    return seconds * (1.0 if _compiled_kernels_run() else RADEMACHER_NUMPY_FACTOR)


def _coarse_grid_seconds(args, k):
    """The level-0 grid of d_Theta > 3 (every cube with its Hessians and ball bounds), which the
    coarse upper value is certified on and which --max-seconds cannot cut short."""
    import numpy as np
    from ..quantities.rademacher import default_h0, initial_cubes
    d_theta = args.m * args.dim_in
    cubes = initial_cubes(np.zeros(d_theta), 1.0, default_h0(d_theta, 1.0)).shape[0]
    return cubes * (RADEMACHER_GRID_SECONDS_PER_CUBE + RADEMACHER_GRID_SECONDS_PER_ENTRY * args.n * (k + 2))


def _check_section4(args):
    d_theta = args.m * args.dim_in
    if args.command == "rademacher":
        # --k and --tau are lists: one point, or a sweep over tau x k (each point a work unit); the
        # single point keeps args.k and args.tau scalar, as theorem1's
        doubles = [float(tau) for tau in args.tau]
        for i, value in enumerate(doubles):
            if value in doubles[:i]:      # the sweep computes in doubles: two rows would be one point
                raise InputError("--tau", f"{args.tau[doubles.index(value)]} and {args.tau[i]} are the same double "
                                          f"({value!r}); this command computes in doubles")
        args.points = [(tau, k) for tau in args.tau for k in args.k]
        args.k, args.tau = max(args.k), args.tau[0]
    memory = args.n * (args.k + 2) * args.dim_in * BYTES_PER_NEGATIVE
    if args.command == "rademacher":
        what = (f"{_sizes(args, 'samples', 'n', 'k')} at --tau {args.typed['tau']}, --dim-in "
                f"{args.typed['dim_in']}, --m {args.typed['m']}")
        if d_theta > 3:
            seconds = sum(_coarse_grid_seconds(args, k) for _, k in args.points)
            what = f"{_sizes(args, 'n', 'k')} at --dim-in {args.typed['dim_in']}, --m {args.typed['m']}"
        else:
            seconds = sum(_rademacher_seconds(d_theta, float(tau), args.n, k, args.samples) for tau, k in args.points)
        # a local pool shares the points out (a cluster's size is not known here)
        seconds /= min(len(args.points), args.workers if args.scheduler is None else 1)
        _refuse_if_too_costly(args, seconds, what, memory)
    else:
        _refuse_if_too_costly(args, _theorem1_seconds(args), _sizes(args, "repeats", "n", "samples", "k"), memory)


def _theorem1_seconds(args):
    """Per repeat: the fit (R_hat_n at fit_erm's candidates, which grow with the radius) and the Monte
    Carlo of both sides."""
    from ..models.fourier_class import FourierEmbedding
    from ..quantities.search_mc import erm_candidates
    candidates = erm_candidates(FourierEmbedding(args.m, args.dim_in, float(args.radius)))
    per_repeat = (THEOREM1_SECONDS_PER_UNIT * (args.n + args.samples) * (args.k + 2)
                  + THEOREM1_SECONDS_PER_FIT_ENTRY * candidates * args.n * (args.k + 2))
    return args.repeats * per_repeat


# ------------------------------------------------------------------ commands

def _build_model(args):
    from ..models import SphereModel, example_a2
    if args.model == "sphere":
        return SphereModel(args.dim, args.kappa)
    if args.model == "finite":
        return args.finite_model
    try:
        return example_a2(args.tau, delta=args.delta, mixing=args.mixing)
    except InputError as exc:
        # the library names its arguments (mixing); on the command line they are options (--mixing)
        if exc.parameter in ("tau", "delta", "mixing"):
            raise InputError(f"--{exc.parameter}", str(exc).split(": ", 1)[1]) from None
        raise


def _model_inputs(args):
    return {"sphere": ("model", "dim", "kappa"), "finite": ("model", "spec"),
            "example-a2": ("model", "delta", "mixing")}[args.model]


def cmd_risk(args):
    import mpmath
    from ..quantities.exact import QUANTITIES, exact_values
    model = _build_model(args)
    with StopAtMaxSeconds(args):
        values = exact_values(model, str(args.tau), ks=args.k, digits=args.digits, loss=args.loss)
    rows = []
    for ev in values:
        strings = ev.as_strings()
        rows.append((ev, {key: strings[key] for key in QUANTITIES},
                     {key: mpmath.nstr(value, args.digits, strip_zeros=False) for key, value in ev.gaps.items()}))
    if args.json:
        if len(rows) == 1:
            ev, results, gaps = rows[0]
            _emit_json(args, results, model=model.label, undefined=ev.undefined, gaps=gaps,
                       precision_check_digits=f"{ev.agreement_digits:.1f}", cpu_seconds=f"{ev.seconds:.3f}")
        else:
            _emit_json(args, None, model=model.label, cpu_seconds=f"{sum(ev.seconds for ev in values):.3f}",
                       by_k=[{"k": ev.k, "results": results, "undefined": ev.undefined, "gaps": gaps,
                              "precision_check_digits": f"{ev.agreement_digits:.1f}"} for ev, results, gaps in rows])
        return 0
    total = sum(ev.seconds for ev in values)
    if len(rows) == 1:
        ev = values[0]
        print(f"{model.label}  {_inputs_line(args, ('tau', 'k', 'loss'))}  ({args.digits} digits, unchanged to "
              f"{ev.agreement_digits:.1f} digits at higher precision, {total:.1f} s CPU)")
    else:
        print(f"{model.label}  {_inputs_line(args, ('tau', 'k', 'loss'))}  ({args.digits} digits, {len(rows)} values "
              f"sharing the k-independent work, {total:.1f} s CPU)")
    for ev, results, gaps in rows:
        if len(rows) > 1:
            print(f" k = {ev.k}  (unchanged to {ev.agreement_digits:.1f} digits at higher precision)")
        for key in QUANTITIES:
            value = results[key] if results[key] is not None else "undefined: " + ev.undefined.get(key, "")
            print(f"  {key:<34} {value}")
        for key, value in gaps.items():
            print(f"  {key:<34} {value}")
        for key, reason in ev.undefined.items():
            if key not in QUANTITIES:          # a gap beneath the working precision, not 0
                print(f"  {key:<34} undefined: {reason}")
    return 0


def cmd_mc(args):
    from ..quantities.montecarlo import GAPS, interval_doubt, monte_carlo
    model = _build_model(args)
    with StopAtMaxSeconds(args):
        result = monte_carlo(model, args.tau, args.k, args.samples, args.seed, loss=args.loss)   # tau as typed
    keys = [key for key, value in result.items() if isinstance(value, dict)]
    if args.json:
        _emit_json(args, {key: result[key] for key in keys}, model=model.label,
                   **{key: value for key, value in result.items() if key not in keys and key not in
                      ("model", "tau", "k", "loss", "seed")})
        return 0
    # the backend that drew the samples (the same seed gives the same numbers per backend)
    backend, threads = result.get("backend"), result.get("threads")
    ran = "" if backend is None else f"  backend={backend}" + (
        f" ({threads} thread{'' if threads == 1 else 's'})" if threads else "")
    print(f"{model.label}  {_inputs_line(args, ('tau', 'k', 'loss', 'samples', 'seed'))}{ran}")
    for key in keys:
        r = result[key]
        if r.get("estimate") is None and r.get("value") is None:
            print(f"  {key:<34} undefined: {r.get('reason', '')}")
        elif r.get("method", "Monte Carlo") != "Monte Carlo" or r.get("stderr") is None:
            how = f"; {r['how']}" if r.get("how") else ""
            print(f"  {key:<34} {r.get('value', r['estimate'])}  (exact, {r.get('method', 'closed form')}{how})")
        else:
            lo, hi = r["ci95"]
            doubt = "" if r.get("ci95_reliable", True) else (
                f"  (not a 95% interval: {interval_doubt(r)}; `infonce-sym risk` gives the exact value)")
            est, se = float(r["estimate"]), float(r["stderr"])
            # enough digits that the interval's ends differ (two digits of its half-width: the standard error's
            # multiple, or the rounding bound alone when every tuple gave one value), at least 8
            half = (float(hi) - float(lo)) / 2
            sig = 8 if not (est and half > 0) else min(17, max(8, int(math.floor(math.log10(abs(est)))
                                                                   - math.floor(math.log10(half))) + 2))
            rounding = float(r.get("rounding", 0.0))
            if rounding > 0.1 * se:
                doubt = f"  (widened by {rounding:.2g}, the float64 rounding bound of the mean){doubt}"
            # a paired gap is the mean over the same tuples of the per-anchor integrand minus the loss, not the exact
            # limit minus the risk estimate printed above (0.2 - 0.534 = -0.334 beside -0.254; a probe, Dec 2026)
            paired = "  (paired: the mean over the same tuples of the anchor's term minus its loss)" if key in GAPS else ""
            print(f"  {key:<34} {est:.{sig}g} ± {se:.2g}  95% [{float(lo):.{sig}g}, {float(hi):.{sig}g}]{paired}{doubt}")
    return 0


def cmd_expand(args):
    import mpmath
    from ..proofs.expansions import confirmed_constants
    model = _build_model(args)
    names = {"c1": "c1", "c2": "c2", "d1": "d1", "d2": "d2"} if args.loss == "infonce" else \
        {"c1": "c1t", "c2": "c2t", "d1": "d1t", "d2": "d2t"}
    # the search CE is undefined at every k where dM/dpi vanishes on positive mass: no d constants then
    vanishes = model.kernel_vanishes_reason
    wanted = [name for key, name in names.items() if not (vanishes and key.startswith("d"))]
    with StopAtMaxSeconds(args):
        consts = confirmed_constants(model, str(args.tau), args.digits, tuple(wanted),
                                     shown={name: key for key, name in names.items()})
    with mpmath.workdps(args.digits + 15):
        results = {key: (mpmath.nstr(consts[name], args.digits, strip_zeros=False) if name in consts else None)
                   for key, name in names.items()}
        # the k at which the 1/k^2 term equals the 1/k term: the expansion can describe k only well above it (a
        # necessary condition: a rare state of mass 3.4e-18 put it at 0.07 while the gap at k = 10^9 was still far
        # from c1/k, its higher terms growing like powers of 1/mass; a probe, Dec 2026)
        pairs = {"cross_entropy": (names["c1"], names["c2"]), "search": (names["d1"], names["d2"])}
        crossover = {gap: (_three_digits(abs(consts[two] / consts[one])) if one in consts and two in consts
                           and consts[one] != 0 else None) for gap, (one, two) in pairs.items()}
    reason = model.domination_reason if not model.dominated else vanishes
    undefined = {key: reason or "not available for this model" for key, v in results.items() if v is None}
    for gap, (one, two) in pairs.items():
        if crossover[gap] is None:
            # |2/1| needs the 1/k constant nonzero (a probe, Dec 2026: d1 = d2 = 0 left it null with no reason)
            first = "c1" if gap == "cross_entropy" else "d1"
            undefined[f"k_crossover.{gap}"] = (f"{first} = 0: the 1/k term vanishes" if one in consts
                                               else undefined.get(first, "not available for this model"))
    if args.json:
        _emit_json(args, results, model=model.label, undefined=undefined, k_crossover=crossover)
        return 0
    risk = "R" if args.loss == "infonce" else "R~"
    print(f"{model.label}  {_inputs_line(args, ('tau', 'loss'))}:  ∫CE - {risk} = c1/k + c2/k^2 + O(k^-3),  "
          f"search CE - {risk} = d1/k + d2/k^2 + O(k^-3)")
    for key, value in results.items():
        print(f"  {key} = {value if value is not None else 'undefined: ' + undefined[key]}")
    shown = [f"|{a}/{b}| = {crossover[gap]}" for gap, a, b in (("cross_entropy", "c2", "c1"), ("search", "d2", "d1"))
             if crossover[gap] is not None]
    if shown:
        print(f"  the 1/k^2 term equals the 1/k term at k = {', '.join(shown)}: the expansions can hold only well "
              f"above (higher terms may need a larger k still)")
    for gap in ("cross_entropy", "search"):
        if crossover[gap] is None and results[("c1" if gap == "cross_entropy" else "d1")] is not None:
            print(f"  no crossover k for the {gap.replace('_', ' ')} expansion: {undefined[f'k_crossover.{gap}']}")
    return 0


def _three_digits(x) -> str:
    """A crossover k to 3 significant digits, without a trailing '.0' (481, not 481.0)."""
    import mpmath
    text = mpmath.nstr(x, 3)
    return text[:-2] if text.endswith(".0") else text


def cmd_rademacher(args):
    from ..checks.rademacher import rademacher_experiment
    if len(args.points) > 1:
        return _rademacher_sweep(args)
    # the up-front estimate cannot see how far the branch and bound must refine (d_Theta = 3 at
    # small tau refines far more), so the run also stops refining at --max-seconds
    kw = dict(_section4_kwargs(args), max_seconds=float(args.max_seconds))
    if args.scheduler is not None:
        # one work unit, on the cluster asked for (it was run here, the address never read); seeded by --seed
        # alone, it gives the numbers of a local run
        with work_executor(args, 1) as executor:
            out = executor.submit(rademacher_experiment, **kw).result()
    else:
        out = rademacher_experiment(**kw, progress=getattr(args, "progress", None))
    if out["d_Theta"] > 3:
        print(f"infonce-sym rademacher: d_Theta = {out['d_Theta']} > 3: the sup is bracketed, not pinned: "
              f"estimate {out['estimate']:.6g} is an upper value certified on a coarse cover, lower_estimate "
              f"{out['lower_estimate']:.6g} a value attained by an optimiser (relative gap "
              f"{out['relative_gap']:.3g})", file=sys.stderr)
    if out["stopped_at_max_seconds"]:
        print(f"infonce-sym rademacher: --max-seconds {args.typed['max_seconds']} reached: the refinement "
              "stopped there; the upper estimate is still certified but looser (complete = false)",
              file=sys.stderr)
    if out["float_margin"] > out["tolerance"]:
        # tiny R: the upper values' float64 rounding margin exceeds the refinement's own tolerance
        print(f"infonce-sym rademacher: at R = {args.typed['radius']} every certified upper value carries the "
              f"float64 rounding margin {out['float_margin']:.3g} (above the refinement's tolerance "
              f"{out['tolerance']:.3g}): the estimate is at least that margin, whatever the complexity; "
              "lower_estimate is the closer figure", file=sys.stderr)
    return _print_section4(args, out)


# the sweep's table: (column, key, format)
_SWEEP_COLUMNS = (("tau", "tau", "g"), ("k", "k", "d"), ("estimate", "estimate", ".6g"), ("stderr", "stderr", ".2g"),
                  ("lower", "lower_estimate", ".6g"), ("Prop. 5", "bound_prop5", ".4g"),
                  ("sharpened", "bound_sharpened", ".4g"), ("sharp exact*", "bound_sharpened_exact", ".4g"),
                  ("(18) route", "bound_lipschitz_route", ".4g"),
                  ("(18) exact*", "bound_lipschitz_route_exact", ".4g"), ("complete", "complete", ""),
                  ("seconds", "seconds", ".1f"))


def _rademacher_sweep(args):
    """Several --k or --tau: ``checks.rademacher.rademacher_sweep``, each (tau, k) a work unit seeded by
    --seed alone (the same numbers on a pool, a cluster or here); every point stops refining when the
    run reaches --max-seconds."""
    from ..checks.rademacher import rademacher_sweep
    kw = _section4_kwargs(args)
    for key in ("k", "tau", "data"):
        kw.pop(key)
    taus = [float(tau) for tau in dict.fromkeys(tau for tau, _ in args.points)]
    ks = sorted({k for _, k in args.points})
    progress = getattr(args, "progress", None)
    on_point = None if progress is None else (lambda done: progress(done, len(args.points), "points"))
    with work_executor(args, args.workers) as executor:
        rows = rademacher_sweep(ks=ks, taus=taus, datas=(args.data.replace("-", "_"),), executor=executor,
                                stop_at=time.time() + float(args.max_seconds), on_point=on_point, **kw)
    for row, (tau, _) in zip(rows, args.points):
        row["tau"] = tau                      # as typed (the Decimal), in the JSON and the table
    if rows[0]["d_Theta"] > 3:
        print(f"infonce-sym rademacher: d_Theta = {rows[0]['d_Theta']} > 3: at every point the sup is bracketed, "
              "not pinned: estimate is an upper value certified on a coarse cover, lower an optimiser's",
              file=sys.stderr)
    stopped = [f"(tau {row['tau']}, k {row['k']})" for row in rows if row["stopped_at_max_seconds"]]
    if stopped:
        print(f"infonce-sym rademacher: --max-seconds {args.typed['max_seconds']} reached at {', '.join(stopped)}: "
              "the refinement stopped there; those upper estimates are still certified but looser (complete = false)",
              file=sys.stderr)
    if args.json:
        _emit_json(args, None, points=rows)
        return 0
    print(f"rademacher sweep: {_inputs_line(args, ('data', 'dim_in', 'm', 'n', 'samples', 'radius', 'seed'))}; "
          f"d_Theta = {rows[0]['d_Theta']}, {rows[0]['sign_vectors']}, backend {rows[0]['backend']}")
    cells = [[title for title, _, _ in _SWEEP_COLUMNS]]
    cells += [[format(row[key], fmt) if fmt else str(row[key]).lower() for _, key, fmt in _SWEEP_COLUMNS]
              for row in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(_SWEEP_COLUMNS))]
    for line in cells:
        print("  " + "  ".join(text.rjust(width) for text, width in zip(line, widths)))
    print(f"  Prop. 5 is the registered P5, sharpened P5.sharp, (18) route P5.lip; * {UNREGISTERED_BOUNDS}")
    return 0


# the bounds of rademacher_experiment that no registered statement gives, as the outputs say so
UNREGISTERED_BOUNDS = "numbers that no registered statement gives (the exact Dudley integral in place of its bound)"


def cmd_theorem1(args):
    from ..checks.theorem1 import theorem1_experiment
    kw = _section4_kwargs(args)
    kw.update(delta=float(args.delta), repeats=args.repeats, progress=getattr(args, "progress", None))
    with StopAtMaxSeconds(args), work_executor(args, args.workers) as executor:
        out = theorem1_experiment(**kw, executor=executor)
    # the data as typed (student-t), not the internal name (student_t) the settings echoed
    out = dict(out, settings=dict(out["settings"], data=args.data))
    note = None
    if out["D2"] == float("inf"):       # models.fourier_class: E Z^4 = +inf under t_3
        note = ("E|dM/dpi|^2 = +inf for Student-t data (the density ratio's square grows like Z^4, and E Z^4 = +inf "
                "under t_3), so the finite-k bias term and the bound are +inf: Theorem 1 says nothing here")
    elif out["vacuous"]:
        note = (f"the right-hand side (mean {out['terms']['rhs']:.4g}) exceeds 2/tau = {out['lhs_max']:.4g}, the "
                "largest value the search cross-entropy can take, at every repeat: the coverage is 1 for any data and "
                "says nothing about the theorem at these sizes (vacuous = true)")
    if note is not None:
        # with --json it is part of the output, and stderr stays empty (a probe, Dec 2026)
        if args.json:
            out = dict(out, note=note)
        else:
            print(f"infonce-sym theorem1: {note}", file=sys.stderr)
    return _print_section4(args, out)


def _section4_kwargs(args):
    return {"data": args.data.replace("-", "_"), "dim_in": args.dim_in, "m": args.m, "n": args.n, "k": args.k,
            "tau": float(args.tau), "radius": float(args.radius), "samples": args.samples, "seed": args.seed}


def _print_section4(args, out):
    if args.json:
        _emit_json(args, out)
        return 0
    for key, value in out.items():
        if isinstance(value, dict) and all(not isinstance(v, (list, dict)) for v in value.values()):
            # theorem1's terms of the bound, its settings: one line each (they were skipped as long)
            print(f"  {key}:")
            for sub, v in value.items():
                print(f"    {sub:<26} {jsonable(v)}")
        elif isinstance(value, list) and value and all(isinstance(row, dict) for row in value):
            # theorem1's repeats: a table of their scalar fields, the whole rows with --json
            cols = [c for c, v in value[0].items() if not isinstance(v, (list, dict))]
            widths = [max(len(c), 10) for c in cols]
            print(f"  {key} ({len(value)}; 6 significant digits, every digit and field with --json):")
            print("    " + "  ".join(f"{c:>{w}}" for c, w in zip(cols, widths)))
            for row in value[:MAX_TABLE_ROWS]:
                print("    " + "  ".join(f"{_short_number(row.get(c)):>{w}}" for c, w in zip(cols, widths)))
            if len(value) > MAX_TABLE_ROWS:
                print(f"    ... {len(value) - MAX_TABLE_ROWS} more with --json")
        elif isinstance(value, (list, dict)) and len(str(value)) > 100:
            continue
        else:
            print(f"  {key:<28} {_plain(jsonable(value))}")
    return 0


def _plain(v) -> str:
    """A value for the text output: a list as [a, b] (no Python quotes), a truth value as true / false (as in --json)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_plain(x) for x in v) + "]"
    return str(v)


MAX_TABLE_ROWS = 20


def _short_number(v):
    """A table cell: a real to 6 significant digits, anything else as it is."""
    import numbers
    if isinstance(v, numbers.Real) and not isinstance(v, numbers.Integral):       # float, numpy floats
        return f"{float(v):.6g}"
    return str(jsonable(v))


class _Progress:
    """Stage progress on stderr when it is a terminal (and not ``quiet``: --json): elapsed time, and
    done/total where known; otherwise nothing (issue 11: quiet when not a terminal and with --json)."""

    def __init__(self, stream=None, prefix="verify", quiet=False):
        self.stream = stream or sys.stderr
        self.prefix = prefix
        try:
            self.live = self.stream.isatty() and not quiet
        except (AttributeError, ValueError):
            self.live = False
        self.stage, self.detail, self.t0 = None, "", time.perf_counter()
        self._stop = threading.Event()
        self._thread = None

    def __enter__(self):
        if self.live:
            self._thread = threading.Thread(target=self._tick, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(1)
            self._thread = None
            self._clear()

    def _line(self):
        if self.stage is None:
            return ""
        return f"[{self.prefix}] {self.stage}{self.detail}  {time.perf_counter() - self.t0:.0f}s"

    def _clear(self):
        self.stream.write("\r\033[K")
        self.stream.flush()

    def _tick(self):
        while not self._stop.wait(0.5):
            line = self._line()
            if line:
                self.stream.write("\r\033[K" + line[:200])
                self.stream.flush()

    def within(self, stage, done, total):
        if self.stage != stage:
            self.stage, self.t0 = stage, time.perf_counter()
        self.detail = f" {done}/{total}"

    def stage_done(self, name, seconds):
        if self.live:
            self._clear()
            print(f"[verify] {name}: {seconds:.1f}s", file=self.stream, flush=True)
        self.stage, self.detail, self.t0 = f"after {name}", "", time.perf_counter()


@contextlib.contextmanager
def work_executor(args, workers):
    """Where a command's work units run: a running dask scheduler's executor (--scheduler), a local
    process pool of ``workers`` (> 1; its workers ended at once on an error or Ctrl-C rather than waited
    for), or None (this process).  The units seed their own streams: the numbers do not depend on it."""
    from . import verify
    if args.scheduler is not None and "workers" in getattr(args, "given", ()):
        # the cluster's workers run the units: a local --workers count was silently ignored (a probe, Dec 2026)
        raise InputError("--workers", "sets local worker processes; with --scheduler the cluster's workers run the "
                                      "work units (give one of them)")
    if args.scheduler is not None:
        executor = verify.dask_executor(args.scheduler)
        try:
            yield executor
        finally:
            # the client this command opened (a test's cluster closing under it logged connection errors)
            client = getattr(executor, "_client", None)
            if client is not None:
                client.close()
        return
    if workers <= 1:
        yield None
        return
    with local_pool(workers) as pool:
        yield pool


def cmd_verify(args):
    from . import report, verify
    mode = "quick" if args.quick else "full"
    with _Progress(quiet=args.json) as progress, work_executor(args, args.workers) as executor:
        results, rows, meta = verify.run(mode, executor, on_stage=progress.stage_done, progress=progress.within)
    paths = report.write(args.out, results, rows, meta)
    if args.json:
        print(json.dumps(jsonable({"command": "verify", "inputs": {**args.typed, "quick": bool(args.quick)}, "meta": meta,
                                   "checks": [r.as_json() for r in results]}), indent=2))
    else:
        print(report.table(results))
        print(f"report: {paths['markdown']}  {paths['json']}  ({len(paths['plots'])} plots)  "
              f"total {meta['seconds']:.0f}s")
    return 0 if meta["differ"] == 0 else 1


def cmd_bench(args):
    from .benchmark import main as bench_main
    return bench_main((["--quick"] if args.quick else []) + (["--json"] if args.json else [])
                      + (["--only", args.only] if args.only is not None else []))


def cmd_derivations(args):
    from ..proofs.render import INDEX_NAME, render_all
    chosen = [flag for flag, on in (("--check", args.check), ("--audit", args.audit), ("--mutate", args.mutate)) if on]
    if len(chosen) > 1:
        # each is its own run: one silently dropped the others (--check --audit printed the audit, exit 0, stale or
        # not; a probe, Dec 2026)
        raise InputError(chosen[1], f"and {chosen[0]} exclude each other: run them one at a time")
    if (args.audit or args.mutate) and args.typed.get("out", "derivations") != "derivations":
        # they read the registered chains and write nothing: --out was silently ignored (a probe, Dec 2026)
        raise InputError("--out", f"{chosen[0]} reads the registered derivations and writes no directory; drop --out")
    if args.audit or args.mutate:                 # prove_cli: the audit and the mutation report
        from . import prove_cli
        return prove_cli.run_audit(args) if args.audit else prove_cli.run_mutate(args)
    if args.check and not (Path(args.out) / INDEX_NAME).is_file():
        # --out's default is relative ("derivations"): outside the repository there is nothing to check
        # against, and every file would be "stale"
        raise InputError("--out", f"no rendered derivations in {shown(str(args.out))} to check: its index "
                                  f"{INDEX_NAME} is missing (run from the repository, or give --out its derivations "
                                  "directory)")
    if not args.check:
        output_dir("--out", str(args.out))
    failures = []
    stale = render_all(args.out, check=args.check, failures=failures)
    status = 1 if args.check and (stale or failures) else 0
    if args.json:
        print(json.dumps(jsonable({"command": "derivations", "inputs": args.typed, "out": str(args.out),
                                   "check": bool(args.check),
                                   ("stale" if args.check else "written"): [str(p) for p in stale],
                                   "failures": [{"id": id, "steps": steps} for id, steps in failures]}), indent=2))
        return status
    for id, steps in failures:                    # a failed chain names its failed steps
        print(f"failed: {id}: " + "; ".join(f"{f['step']} {f['ref']}: {f['detail']}".strip() for f in steps))
    if args.check:
        if stale:
            print("stale: " + ", ".join(map(str, stale)))
        if status:
            return status
        print("derivations are up to date and no chain fails")
    else:
        print(f"rendered derivations into {args.out}")
    return 0


# ------------------------------------------------------------------ the parser

def _version() -> str:
    """The installed distribution's version (pyproject.toml), or "unknown" when run from a source tree not installed."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("infonce-sym")
    except PackageNotFoundError:
        return "unknown"


def build_parser():
    """The parser. A new subcommand: ``s = sub.add_parser(...)``, its options with ``real_option``,
    ``int_option``, ``choice_option``, ``path_option`` (or plain flags), ``s.set_defaults(func=...)``
    and, for cross-option checks before any work, ``s.set_defaults(_check=...)``."""
    p = _Parser(prog="infonce-sym", description="Symbolic-numeric companion to Whiteley (2026), "
                "Similarity search generalisation in contrastive learning with InfoNCE loss. "
                "Numbers are read as the decimals typed; bad input exits with status 2.")
    p.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    v = sub.add_parser("verify", help="re-derive and re-check everything; write a report")
    v.add_argument("--quick", action="store_true", help="small grid (under 2 minutes)")
    path_option(v, "--out", "report directory (created if missing; an existing one is reused)", "dir",
                default="report", files=REPORT_FILES)
    _json_option(v)
    int_option(v, "--workers", "local worker processes (every check is a work unit)", *RANGES["workers"],
               default="2")
    v.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="run the work units on a running dask.distributed scheduler, e.g. tcp://host:8786 "
                        "(pip install \"infonce-sym[dask]\"); default: a local process pool")
    v.set_defaults(func=cmd_verify)

    r = sub.add_parser("risk", help="exact R (or R~), integrated CE, search CE and E|dM/dpi|^2")
    _model_options(r, RANGES["kappa_exact"], RANGES["dim_exact"])
    _tau_option(r)
    int_list_option(r, "--k", "number of negatives k (several share the k-independent work)", *RANGES["k_exact"],
                    required=True)
    choice_option(r, "--loss", "the loss: InfoNCE (R) or decoupled (R~)", ("infonce", "dcl"), "infonce")
    int_option(r, "--digits", "significant digits, each confirmed at higher precision", *RANGES["digits"],
               default="30")
    _json_option(r)
    real_option(r, "--max-seconds", "refuse up front a run estimated to take longer than this many seconds "
                "(finite models: about 0.6 ms x N^2 at 30 digits), and stop a run that reaches it (exit 1)", 1, 10**9, default=str(LIMITS["max_seconds"]))
    r.set_defaults(func=cmd_risk, _check=_check_risk)

    m = sub.add_parser("mc", help="Monte Carlo estimates with standard errors and 95% intervals")
    _model_options(m, RANGES["kappa_mc"])
    _tau_option(m)
    int_option(m, "--k", "number of negatives k", *RANGES["k_mc"], required=True)
    int_option(m, "--samples", "independent tuples (a standard error needs 2)", *RANGES["samples_mc"],
               required=True)
    int_option(m, "--seed", "seed of numpy's SeedSequence", *RANGES["seed"], required=True)
    choice_option(m, "--loss", "the loss: InfoNCE (R) or decoupled (R~)", ("infonce", "dcl"), "infonce")
    _limit_option(m, ends=True)
    _json_option(m)
    m.set_defaults(func=cmd_mc, _check=_check_mc)

    e = sub.add_parser("expand", help="exact 1/k and 1/k^2 constants c1, c2, d1, d2")
    _model_options(e, RANGES["kappa_exact"], RANGES["dim_exact"])      # the sphere's moments in closed form
    _tau_option(e)
    choice_option(e, "--loss", "the loss: InfoNCE (R) or decoupled (R~)", ("infonce", "dcl"), "infonce")
    int_option(e, "--digits", "significant digits", *RANGES["digits"], default="30")
    _json_option(e)
    real_option(e, "--max-seconds", "refuse up front a run estimated to take longer than this many seconds "
                "(finite models: about 0.14 ms x N^2), and stop a run that reaches it (exit 1)", 1, 10**9, default=str(LIMITS["max_seconds"]))
    e.set_defaults(func=cmd_expand, _check=_check_expand)

    b = sub.add_parser("bench", help="speed figures (exact values, Monte Carlo throughput)")
    b.add_argument("--quick", action="store_true", help="fewer repetitions")
    b.add_argument("--json", action="store_true", help="every figure as one JSON object on stdout")
    b.add_argument("--only", metavar="SECTIONS", default=None,
                   help=f"comma-separated sections: {', '.join(BENCH_SECTIONS)} (default: all)")
    b.set_defaults(func=cmd_bench)

    for name, func, helptext, defaults in (
            ("rademacher", cmd_rademacher, "Monte Carlo empirical Rademacher complexity vs Prop. 5",
             {"n": "50", "samples": "100"}),
            ("theorem1", cmd_theorem1, "Theorem 1 end to end with coverage", {"n": "200", "samples": "4000"})):
        s = sub.add_parser(name, help=helptext)
        choice_option(s, "--data", "law of the data", ("gaussian", "student-t"), "gaussian")
        int_option(s, "--dim-in", "input dimension", *RANGES["dim_in"], default="2")
        int_option(s, "--m", "Fourier features per input coordinate (d_Theta = m * dim-in; above 3 rademacher "
                   "brackets the sup between a coarse certified upper and an optimiser's lower value)", *RANGES["m"], default="1")
        int_option(s, "--n", "training tuples n", *RANGES["n"], default=defaults["n"])
        if name == "rademacher":         # several k or tau: a sweep, each (tau, k) a work unit
            int_list_option(s, "--k", "negatives per tuple k (several: a sweep over tau x k)", *RANGES["k_section4"],
                            default="16")
            real_list_option(s, "--tau", "temperature tau (several: a sweep over tau x k)", *RANGES["tau"],
                             default="0.5", in_floats=True)
        else:
            int_option(s, "--k", "negatives per tuple k", *RANGES["k_section4"], default="16")
            _tau_option(s, default="0.5")
        real_option(s, "--radius", "radius R of the parameter ball", *RANGES["radius"], default="1", lo_open=True,
                    in_floats=True)
        int_option(s, "--samples", "Rademacher vectors" if name == "rademacher" else
                   "Monte Carlo tuples per repeat for the population side", *RANGES["samples_section4"],
                   default=defaults["samples"])
        int_option(s, "--seed", "seed of numpy's SeedSequence", *RANGES["seed"], default="0")
        each, units = {"theorem1": ("each repeat", "the repeats"),
                       "rademacher": ("each point of a sweep", "the points of a sweep")}[name]
        int_option(s, "--workers", f"local worker processes ({each} is a work unit; 1: this process)",
                   *RANGES["workers"], default="1")
        s.add_argument("--scheduler", metavar="ADDRESS", default=None,
                       help=f"run {units} on a running dask.distributed scheduler, e.g. tcp://host:8786 "
                            "(pip install \"infonce-sym[dask]\"); the same numbers as a local run; default: --workers")
        if name == "theorem1":
            real_option(s, "--delta", "Theorem 1 holds with probability 1 - delta", 0, 1, default="0.1",
                        lo_open=True, hi_open=True, in_floats=True)
            int_option(s, "--repeats", "independent training sets", *RANGES["repeats"], default="10")
        _limit_option(s, stops=name == "rademacher", ends=name == "theorem1")
        _json_option(s)
        s.set_defaults(func=func, _check=_check_section4)

    d = sub.add_parser("derivations", help="render derivations/*.md (or --check they are current)")
    # created (and shown writable) only when rendering: --check reads it and writes nothing
    _add(d, "--out", _derivations_dir, "directory of the rendered derivations", "derivations", False, "DIR")
    d.add_argument("--check", action="store_true", help="only check that the rendered files are current")
    d.add_argument("--audit", action="store_true", help="per derivation: assumptions, cites, lemmas, hypotheses, undischarged")
    d.add_argument("--mutate", action="store_true", help="run every mutant of every chain (minutes); exit 1 if one survives")
    _json_option(d)
    d.set_defaults(func=cmd_derivations)
    from .prove_cli import add_parser as add_prove_parser                # infonce-sym prove
    add_prove_parser(sub)
    from .embeddings_cli import add_parser as add_embeddings_parser      # infonce-sym embeddings
    add_embeddings_parser(sub)
    _escape_percent(p)
    return p


def _escape_percent(parser):
    """argparse %-formats help strings: a lone '%' (as in '95%') must be '%%'."""
    import re
    stack = [parser]
    while stack:
        p = stack.pop()
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                stack.extend(action.choices.values())
                for choice in action._choices_actions:
                    choice.help = re.sub(r"(?<!%)%(?![%(])", "%%", choice.help or "")
            elif action.help:
                action.help = re.sub(r"(?<!%)%(?![%(])", "%%", action.help)


def _value_flags(parser):
    """Every option string, over all subparsers, that takes a value."""
    flags, stack = set(), [parser]
    while stack:
        p = stack.pop()
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                stack.extend(action.choices.values())
            elif action.option_strings and action.nargs is None:
                flags.update(action.option_strings)
    return flags


def _join_negative_values(argv, flags):
    """'--tau -inf' -> '--tau=-inf': a value may begin with '-' (argparse would read an option)."""
    out, i = [], 0
    while i < len(argv):
        tok = argv[i]
        if tok in flags and i + 1 < len(argv) and argv[i + 1].startswith("-") and argv[i + 1] not in flags \
                and not argv[i + 1].startswith("--"):
            out.append(f"{tok}={argv[i + 1]}")
            i += 2
            continue
        out.append(tok)
        i += 1
    return out


def _one_line(text: str) -> str:
    text = str(text).strip()
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def main(argv=None) -> int:
    """Run one command; returns the exit status (0, 1, 2 or 130). ``argv=None``: the real command line."""
    script = argv is None
    argv = list(sys.argv[1:] if script else argv)
    if sys.stdout is None:               # started with stdout closed (>&-): the results would go nowhere
        _stderr("infonce-sym: error: stdout: is closed; nothing to write the results to")
        return 2
    _encodable_output()
    real = sys.stdout
    sys.stdout = _GuardedOutput(real)
    try:
        return _main(argv)
    finally:
        sys.stdout = real


def _main(argv):
    try:
        parser = build_parser()
        try:
            args = parser.parse_args(_join_negative_values(argv, _value_flags(parser)))
        except SystemExit as exc:        # --help
            return exc.code if isinstance(exc.code, int) else 0
        _check_environment(args)
        _read_options(args)
        return _run(args)
    except InputError as exc:
        _stderr(f"infonce-sym: error: {_one_line(exc)}")
        return 2
    except KeyboardInterrupt:
        _stderr("infonce-sym: interrupted")
        return 130
    except MaxSecondsReached as exc:
        _stderr(f"infonce-sym {exc}")
        return 1
    except BrokenPipeError:
        _quiet_stdout()
        return 0
    except OutputFailed as exc:
        _stderr(f"infonce-sym: error: stdout: {exc}")
        _quiet_stdout()
        return 2
    except (ArithmeticError, MemoryError) as exc:
        _stderr(f"infonce-sym: numerical failure: {type(exc).__name__}: {_one_line(exc)}")
        return 1
    except Exception as exc:   # one line, not a traceback; INFONCE_SYM_DEBUG=1 re-raises
        if os.environ.get("INFONCE_SYM_DEBUG"):
            raise
        if isinstance(exc, OSError) and exc.filename is not None:
            # a file the command reads or writes (an output name taken by a directory, say): name it
            _stderr(f"infonce-sym: error: {exc.filename}: {exc.strerror or _one_line(exc)}")
            return 2
        _stderr(f"infonce-sym: internal error: {type(exc).__name__}: {_one_line(exc)}")
        return 1


def _check_environment(args):
    """Environment variables that a library reads on import and refuses with an error of its own (a
    traceback or an "internal error" here): SYMPY_CACHE_SIZE (an integer or None; infonce_sym sets 100000
    when it is unset; SymPy's refusal is a NameError inside its error message), NUMBA_NUM_THREADS (a
    positive integer; numba raises ValueError at 0 and prints a traceback as a warning at 'abc'), and
    for the commands that plot, MPLBACKEND (matplotlib refuses an unknown name on import, after the
    whole computation; the plots use Agg whatever it says)."""
    value = os.environ.get("SYMPY_CACHE_SIZE")
    if value is not None and value.lower() != "none":
        try:
            int(value)
        except ValueError:
            raise InputError("SYMPY_CACHE_SIZE", f"must be an integer or None (the environment), got {value!r}") from None
    value = os.environ.get("NUMBA_NUM_THREADS")
    if value is not None:
        try:
            positive = int(value) >= 1
        except ValueError:
            positive = False
        if not positive:
            raise InputError("NUMBA_NUM_THREADS", f"must be a positive integer (the environment), got {value!r}")
    value = os.environ.get("MPLBACKEND")
    plots = args.command == "verify" or (args.command == "embeddings" and getattr(args, "out", None))
    if value is not None and plots:
        try:
            importlib.import_module("matplotlib")          # it reads MPLBACKEND on import
        except ValueError:
            raise InputError("MPLBACKEND", f"is not a matplotlib backend (the environment), got {value!r}; unset it "
                                           "(the plots are drawn with Agg whatever it says)") from None


def _run(args):
    import warnings
    if args.command == "verify":
        return args.func(args)
    with warnings.catch_warnings():
        warnings.simplefilter("error")     # a numerical warning is a failure, never a printed number
        # but an unclosed file is no number: --max-seconds stopping an import mid-read left one, and its warning,
        # raised as an error in a finalizer, printed "Exception ignored ... ResourceWarning" beside the one line
        warnings.simplefilter("ignore", ResourceWarning)
        estimate = getattr(args, "estimated_seconds", 0)
        with _Progress(prefix=args.command, quiet=getattr(args, "json", False)) as ticker:   # a live line on a terminal
            # rademacher refines past its estimate (which sees the sizes only), up to --max-seconds;
            # embeddings makes none
            if ticker.live and (estimate > 2 or args.command in ("rademacher", "embeddings")):
                ticker.stage = f"running (estimated about {estimate:.2g} s)" if estimate else "running"
                if args.command == "rademacher":
                    ticker.stage += f", refining up to --max-seconds {args.typed['max_seconds']}"
                # done/total from the commands that report it (rademacher: sign vectors settled;
                # theorem1: repeats; embeddings: stages, named), on the same line
                args.progress = lambda done, total, what="": ticker.within(
                    ticker.stage, f"{done:.0f}", f"{total} {what}".rstrip())
                real, real_err = sys.stdout, sys.stderr
                sys.stdout, sys.stderr = _StopTickerOnWrite(real, ticker), _StopTickerOnWrite(real_err, ticker)
                try:
                    code = args.func(args)
                finally:
                    sys.stdout, sys.stderr = real, real_err
            else:
                code = args.func(args)
    sys.stdout.flush()
    return code


class _StopTickerOnWrite:
    """stdout (or stderr) that ends the live progress line before the first result (or note) is
    written; the ticker writes to the stream it was given, not through this."""

    def __init__(self, stream, ticker):
        self._stream, self._ticker = stream, ticker

    def write(self, text):
        if self._ticker is not None:
            self._ticker.__exit__(None, None, None)
            self._ticker = None
        return self._stream.write(text)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _started_pool(verify, workers):
    """verify's process pool with every worker started while SIGINT is ignored: the workers inherit
    that (across exec) until their initializer, which imports nothing heavy, ignores it for good, so a
    terminal's Ctrl-C reaches only this process (one line, exit 130).  A Ctrl-C typed in that window
    (about a tenth of a second; about one second while the initializer imported the verify plan)
    is lost: a blocked signal is not inherited by spawned workers, and a handled one would interrupt
    their imports with a traceback each."""
    if threading.current_thread() is not threading.main_thread():
        return verify.default_executor(workers)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        pool = verify.default_executor(workers)
        list(pool.map(time.sleep, [0.05] * workers))      # spawns every worker now
    finally:
        signal.signal(signal.SIGINT, previous)
    return pool


@contextlib.contextmanager
def local_pool(workers):
    """A local process pool of ``workers`` (``_started_pool``) whose workers are ended at once on an
    error, Ctrl-C or --max-seconds rather than waited for (a unit may run for minutes; a worker still
    importing may never answer)."""
    from . import verify
    pool = _started_pool(verify, workers)
    try:
        yield pool
    except BaseException:
        _end_pool(pool)
        raise
    pool.shutdown()


def _end_pool(pool):
    _quiet_pool_threads()
    _stop_workers()
    pool.shutdown(wait=True)


def _quiet_pool_threads():
    """The pool's manager thread, seeing its workers ended, may raise on futures already cancelled
    (InvalidStateError, BrokenProcessPool): expected after Ctrl-C, not worth a traceback."""
    from concurrent.futures import InvalidStateError
    from concurrent.futures.process import BrokenProcessPool
    previous = threading.excepthook

    def hook(args):
        if not issubclass(args.exc_type, (InvalidStateError, BrokenProcessPool)):
            previous(args)
    threading.excepthook = hook


def _stop_workers():
    """After Ctrl-C: end this run's worker processes (verify's pool) instead of waiting for them."""
    import multiprocessing
    for child in multiprocessing.active_children():
        child.terminate()


def _stderr(line):
    if sys.stderr is None:                # started with stderr closed (2>&-): print would write to stdout
        return
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


class OutputFailed(Exception):
    """Writing the results to stdout failed (a full disk: ENOSPC; a bad descriptor): exit 2 naming stdout."""


class _GuardedOutput:
    """stdout, whose write errors other than a closed pipe (exit 0, quietly) become OutputFailed."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text):
        return self._guarded(self._stream.write, text)

    def flush(self):
        return self._guarded(self._stream.flush)

    @staticmethod
    def _guarded(call, *args):
        try:
            return call(*args)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputFailed(exc.strerror or _one_line(exc)) from None

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _encodable_output():
    """stdout and stderr in an encoding other than UTF-8 (PYTHONIOENCODING=ascii, a latin-1 terminal):
    characters it lacks (∫, ±, τ) are written as backslash escapes rather than failing the command."""
    import codecs
    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None)
        try:
            if encoding and codecs.lookup(encoding).name != "utf-8":
                stream.reconfigure(errors="backslashreplace")
        except (AttributeError, LookupError, ValueError, OSError):
            pass


def _quiet_stdout():
    """After a closed pipe: point stdout at /dev/null so the interpreter's final flush is silent."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


if __name__ == "__main__":
    # the package's own module, not this __main__ copy: the subcommands raise its exception classes (MaxSecondsReached
    # raised from embeddings_cli went past _main's except clause under python -m; a probe, Dec 2026)
    from infonce_sym.app.cli import main as _package_main
    sys.exit(_package_main())
