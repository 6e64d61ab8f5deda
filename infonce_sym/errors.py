"""Input validation: every bad parameter becomes one ``InputError`` naming it.

Numbers typed by a user (command line or JSON) are read by ``read_real`` / ``read_int``:
the decimal written is kept exactly (``decimal.Decimal``, never a binary float), and a
refusal names the parameter, the value as typed and the valid range.
"""
from __future__ import annotations

import contextlib
import math
import numbers
import re
from decimal import Decimal

__all__ = [
    "InputError", "check_positive", "check_tau", "check_k", "check_digits",
    "check_dim", "check_kappa", "check_finite_real", "check_probability",
    "read_real", "read_int", "read_decimal", "read_int_list", "read_real_list", "read_list", "read_choice", "shown", "shown_path", "read_json_file", "missing_file", "DIGITS_RANGE", "MAX_NUMBER_CHARS",
    "naming_the_file",
]

DIGITS_RANGE = (5, 100)
#: temperatures every exact route and the empirical model support
TAU_RANGE = (0.01, 100.0)
MAX_NUMBER_CHARS = 200      # a number typed is at most this long
MAX_EXPONENT = 10**6        # and its decimal exponent at most this in absolute value

_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE]([+-]?[0-9]+))?", re.ASCII)


@contextlib.contextmanager
def naming_the_file(path):
    """An ``OSError`` raised while writing ``path`` carries its name (a failed write() names none: a report.md linked to
    /proc/self/status ended in "internal error: [Errno 22] Invalid argument"; a probe, Dec 2026): the command line then
    names the file, exit 2."""
    try:
        yield
    except OSError as exc:
        if exc.filename is None:
            raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None
        raise


class InputError(ValueError):
    """A user-facing error about one named parameter.

    >>> str(InputError("tau", "must be > 0, got -1"))
    'tau: must be > 0, got -1'
    """

    def __init__(self, parameter: str, message: str):
        self.parameter = parameter
        super().__init__(f"{parameter}: {message}")


def shown(text) -> str:
    """A value as typed, fit for a one-line message (quoted if empty, spaced or unprintable)."""
    text = text if isinstance(text, str) else repr(text)
    if len(text) > 60:
        text = text[:40] + f"... ({len(text)} characters)"
    if not text or not text.isprintable() or text != text.strip() or " " in text:
        return repr(text)
    return text


def shown_path(path) -> str:
    """A file path for a message: whole (its last 200 characters if longer), quoted if need be."""
    text = str(path)
    if len(text) > 200:
        text = "..." + text[-200:]
    if not text or not text.isprintable() or text != text.strip() or " " in text:
        return repr(text)
    return text


def missing_file(path) -> str | None:
    """Why ``path`` names no file to read, or None: "file not found", or a symbolic link that loops or dangles
    (``Path.exists`` says False for both, and the message should say which)."""
    import errno
    import os
    try:
        os.stat(path)
    except FileNotFoundError:
        return "a symbolic link to a missing file" if os.path.islink(path) else "file not found"
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a loop of symbolic links"
        return f"cannot read it: {exc.strerror}"
    return None


def _bound(x) -> str:
    if isinstance(x, int) and x >= 10**6 and str(x).rstrip("0") == "1":
        return f"10^{len(str(x)) - 1}"
    if isinstance(x, int) and x >= 2**20 and (x + 1) & x == 0:
        return f"2^{x.bit_length()} - 1"
    return str(x)


def range_text(lo, hi, lo_open=False, hi_open=False) -> str:
    """'[0.01, 100]', '(0, 1)', '>= 0' ..."""
    if hi is None:
        return f"{'>' if lo_open else '>='} {_bound(lo)}"
    return f"{'(' if lo_open else '['}{_bound(lo)}, {_bound(hi)}{')' if hi_open else ']'}"


def _decimal(name, text, what, example="digits, a point and an exponent, as in 0.5 or 2e-3"):
    if isinstance(text, Decimal):
        return text
    if isinstance(text, bool) or not isinstance(text, (str, int)):
        raise InputError(name, f"must be {what}, got {shown(text)}")
    s = str(text).strip()
    if len(s) > MAX_NUMBER_CHARS:
        raise InputError(name, f"must be {what} of at most {MAX_NUMBER_CHARS} characters, got {shown(text)}")
    m = _DECIMAL.fullmatch(s)
    if m is None:
        raise InputError(name, f"must be {what} written in decimal ({example}), got {shown(text)}")
    if m.group(1) is not None and abs(int(m.group(1))) > MAX_EXPONENT:
        raise InputError(name, f"must be {what}; its exponent must be within +-{MAX_EXPONENT}, got {shown(text)}")
    return Decimal(s)


def read_real(name: str, text, lo=None, hi=None, lo_open=False, hi_open=False) -> Decimal:
    """The decimal ``text`` exactly, checked against [lo, hi] (open ends if asked).

    >>> read_real("--tau", "0.1", 0.01, 100)
    Decimal('0.1')
    >>> read_real("--tau", "-inf", 0.01, 100)
    Traceback (most recent call last):
    ...
    infonce_sym.errors.InputError: --tau: must be a real number in [0.01, 100] written in decimal (digits, a point and an exponent, as in 0.5 or 2e-3), got -inf
    """
    what = "a real number" + ("" if lo is None else f" in {range_text(lo, hi, lo_open, hi_open)}")
    value = _decimal(name, text, what)
    if lo is not None:
        low, high = Decimal(str(lo)), None if hi is None else Decimal(str(hi))
        if value < low or (lo_open and value == low) or (high is not None and (value > high or (hi_open and value == high))):
            raise InputError(name, f"must be {what}, got {shown(text)}")
    return value


def read_decimal(name: str, text, what: str = "a real number") -> Decimal:
    """The decimal ``text`` exactly, ASCII digits only ('1_0', Unicode digits, 'inf' and 'nan' are refused),
    its exponent within +-MAX_EXPONENT; ``what`` says what was expected in the refusal.

    >>> read_decimal("--tau", "1_000", "a number in [0.01, 100]")
    Traceback (most recent call last):
    ...
    infonce_sym.errors.InputError: --tau: must be a number in [0.01, 100] written in decimal (digits, a point and an exponent, as in 0.5 or 2e-3), got 1_000
    """
    return _decimal(name, text, what)


def read_int(name: str, text, lo: int, hi: int | None = None) -> int:
    """The integer ``text`` exactly ('1e3' is 1000; '1.5' and '1e-3' are refused).

    >>> read_int("--seed", "-1", 0, 2**64 - 1)
    Traceback (most recent call last):
    ...
    infonce_sym.errors.InputError: --seed: must be an integer in [0, 2^64 - 1], got -1
    """
    what = f"an integer in {range_text(lo, hi)}" if hi is not None else f"an integer {range_text(lo, None)}"
    value = _decimal(name, text, what, "like 1000 or 1e3")
    if value != value.to_integral_value() or value < lo or (hi is not None and value > hi):
        raise InputError(name, f"must be {what}, got {shown(text)}")
    return int(value)


def read_int_list(name: str, text, lo: int, hi: int) -> list:
    """Comma-separated integers, each as ``read_int`` reads it, none twice: sorted.

    >>> read_int_list("--k", "4096, 1,16", 1, 10**9)
    [1, 16, 4096]
    >>> read_int_list("--k", "4,1,4", 1, 10**9)
    Traceback (most recent call last):
    ...
    infonce_sym.errors.InputError: --k: k = 4 is given twice in 4,1,4
    """
    return read_list(name, text, lambda part: read_int(name, part, lo, hi), f"integers in {range_text(lo, hi)}")


def read_real_list(name: str, text, lo, hi, lo_open=False, hi_open=False) -> list:
    """Comma-separated decimals, each as ``read_real`` reads it, no value twice: sorted.

    >>> read_real_list("--tau", "0.5,0.1", 0.01, 100)
    [Decimal('0.1'), Decimal('0.5')]
    >>> read_real_list("--tau", "0.1,0.10", 0.01, 100)
    Traceback (most recent call last):
    ...
    infonce_sym.errors.InputError: --tau: tau = 0.10 is given twice in 0.1,0.10
    """
    return read_list(name, text, lambda part: read_real(name, part, lo, hi, lo_open, hi_open),
                      f"decimals in {range_text(lo, hi, lo_open, hi_open)}")


def read_list(name, text, read_one, what):
    parts = [p.strip() for p in str(text).split(",")]
    if any(not p for p in parts):
        raise InputError(name, f"must be comma-separated {what}, got {shown(text)}")
    values = [read_one(p) for p in parts]
    for i, v in enumerate(values):
        if v in values[:i]:
            raise InputError(name, f"{name.lstrip('-')} = {parts[i]} is given twice in {shown(text)}")
    return sorted(values)


def read_choice(name: str, text, choices) -> str:
    if text not in choices:
        raise InputError(name, f"must be one of {', '.join(choices)}, got {shown(text)}")
    return text


# ------------------------------------------------------------------ library checks (numbers)

def check_finite_real(name: str, value) -> float:
    """Return ``value`` as a float, rejecting NaN, inf and non-numbers."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, Decimal)):
        try:
            value = float(value)
        except (TypeError, ValueError, OverflowError):
            raise InputError(name, f"must be a real number, got {shown(value)}") from None
    try:
        value = float(value)
    except OverflowError:
        raise InputError(name, f"must be finite, got {shown(value)}") from None
    if math.isnan(value) or math.isinf(value):
        raise InputError(name, f"must be finite, got {value}")
    return value


def check_positive(name: str, value) -> float:
    original = value
    value = check_finite_real(name, value)
    if value <= 0:
        raise InputError(name, f"must be > 0, got {shown(original) if isinstance(original, str) else format(value, 'g')}")
    return value


def check_tau(tau) -> float:
    """Temperature: a finite real > 0.

    >>> check_tau(0.5)
    0.5
    >>> check_tau(0)
    Traceback (most recent call last):
    ...
    infonce_sym.errors.InputError: tau: must be > 0, got 0
    """
    return check_positive("tau", tau)


def check_k(k, name: str = "k") -> int:
    """An integer >= 1 (floats equal to an integer are accepted)."""
    if isinstance(k, numbers.Integral) and not isinstance(k, bool):
        value = int(k)
    else:
        x = check_finite_real(name, k)
        if x != int(x):
            raise InputError(name, f"must be an integer, got {shown(k)}")
        value = int(x)
    if value < 1:
        raise InputError(name, f"must be an integer >= 1, got {value}")
    return value


def check_digits(digits) -> int:
    lo, hi = DIGITS_RANGE
    value = check_k(digits, "digits")
    if not lo <= value <= hi:
        raise InputError("digits", f"must be an integer in [{lo}, {hi}], got {value}")
    return value


def check_dim(dim) -> int:
    value = check_k(dim, "dim")
    if value < 2:
        raise InputError("dim", f"must be an integer >= 2 (the sphere S^(d-1) with d >= 2), got {value}")
    return value


def check_kappa(kappa) -> float:
    value = check_finite_real("kappa", kappa)
    if value < 0:
        raise InputError("kappa", f"must be >= 0, got {value:g}")
    return value


def check_probability(name: str, value, open_interval: bool = True) -> float:
    value = check_finite_real(name, value)
    if open_interval and not 0 < value < 1:
        raise InputError(name, f"must lie in (0, 1), got {value:g}")
    if not open_interval and not 0 <= value <= 1:
        raise InputError(name, f"must lie in [0, 1], got {value:g}")
    return value


# ------------------------------------------------------------------ input files

MAX_FILE_BYTES = 256 * 2**20      # an input file is read up to this many bytes
MAX_JSON_DEPTH = 32               # and its JSON nested at most this deep
PIPE_IDLE_SECONDS = 30           # a pipe given as a file: the longest wait for its next bytes


def _read_pipe(name, path, where, limit, idle=None):
    """Up to ``limit`` bytes from a pipe (a named one, or bash's <(...)), waiting at most PIPE_IDLE_SECONDS
    for each chunk: a named pipe that no writer ever opens would otherwise block the command before any of
    its own time limits starts."""
    import os
    import select
    idle = PIPE_IDLE_SECONDS if idle is None else min(PIPE_IDLE_SECONDS, float(idle))
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)      # opening a pipe with no writer would block
    try:
        chunks, size = [], 0
        while size < limit:
            ready, _, _ = select.select([fd], [], [], idle)
            if not ready:
                raise InputError(name, f"{where}: nothing came through the pipe for {idle:g} s (no writer?)")
            try:
                chunk = os.read(fd, limit - size)
            except BlockingIOError:
                continue
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_json_file(name: str, path, max_bytes: int = MAX_FILE_BYTES, max_depth: int = MAX_JSON_DEPTH, idle=None):
    """A JSON file, bounded: at most ``max_bytes`` read, nesting at most ``max_depth``; a pipe waited on at most
    ``idle`` seconds (at most PIPE_IDLE_SECONDS) for each chunk.

    Numbers become ``decimal.Decimal`` (the decimal written, exactly); NaN/Infinity and
    duplicate keys are refused.  Any problem is an ``InputError`` naming ``name`` and the file.
    """
    import json
    import os
    import stat
    where = shown_path(path)
    problem = missing_file(path)
    if problem is not None:
        raise InputError(name, f"{problem}: {where}")
    try:
        st = os.stat(path)
    except OSError as exc:
        raise InputError(name, f"cannot read {where}: {exc.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError(name, f"is a directory, not a file: {where}")
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
        raise InputError(name, f"must be a regular file (or a pipe), got a device or socket: {where}")
    try:
        if stat.S_ISFIFO(st.st_mode) and os.name == "posix":
            raw = _read_pipe(name, path, where, max_bytes + 1, idle)
        else:
            with open(path, "rb") as f:
                raw = f.read(max_bytes + 1)
    except OSError as exc:
        raise InputError(name, f"cannot read {where}: {exc.strerror}") from None
    if len(raw) > max_bytes:
        raise InputError(name, f"{where} is larger than the limit of {max_bytes} bytes")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(name, f"{where} is not UTF-8 text (byte {exc.start})") from None
    def constant(c):
        raise InputError(name, f"{where}: {c} is not a number here (use finite decimals)")

    def pairs(items):
        obj = dict(items)
        if len(obj) != len(items):
            keys = [k for k, _ in items]
            dup = next(k for k in keys if keys.count(k) > 1)
            raise InputError(name, f"{where}: duplicate key {shown(dup)}")
        return obj

    def number(literal):
        # the limits of a number typed on the command line hold in a file too (a 5000-digit integer would
        # otherwise reach int <-> str conversions and messages whole)
        if len(literal) > MAX_NUMBER_CHARS:
            raise InputError(name, f"{where}: a number of {len(literal)} characters ({literal[:12]}...), more than "
                                   f"the limit of {MAX_NUMBER_CHARS}")
        exponent = re.search(r"[eE]([+-]?\d+)$", literal)
        if exponent is not None and abs(int(exponent.group(1))) > MAX_EXPONENT:
            raise InputError(name, f"{where}: the number {shown(literal)} has an exponent beyond +-{MAX_EXPONENT}")
        return Decimal(literal)

    try:
        data = json.loads(text, parse_float=number, parse_int=number, parse_constant=constant,
                          object_pairs_hook=pairs)
    except json.JSONDecodeError as exc:
        raise InputError(name, f"cannot read {where} as JSON ({exc.msg} at line {exc.lineno} "
                         f"column {exc.colno})") from None
    except RecursionError:
        raise InputError(name, f"{where}: JSON nested deeper than the limit of {max_depth}") from None
    depth = json_depth(data)
    if depth > max_depth:
        raise InputError(name, f"{where}: JSON nested {depth} deep, more than the limit of {max_depth}")
    return data


def json_depth(data) -> int:
    """Nesting depth of parsed JSON (a number or string: 0, [1, 2]: 1, [[1]]: 2)."""
    best, level = 0, [data]
    while level:
        level = [v for v in level if type(v) is list or type(v) is dict]
        if level:
            best += 1
            level = [v for obj in level for v in (obj.values() if type(obj) is dict else obj)]
    return best
