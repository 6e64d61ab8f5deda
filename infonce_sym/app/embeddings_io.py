"""Reading a user's embedding matrices: .npy and .safetensors (memory-mapped), .npz, .parquet, .pt.

Every problem with a file is one ``InputError(option, "<file>: <problem>")``: a missing or
unreadable file, a directory, an unknown extension, a missing key or column, non-numeric data,
a shape that is not n x d, an empty array, NaN/inf entries or a zero row.  ``.parquet``
needs the optional extra ``pip install "infonce-sym[embeddings]"``; ``.pt`` needs torch.
"""
from __future__ import annotations

import json
import math
import pickle
import warnings
import zipfile
from pathlib import Path

import numpy as np

from ..errors import InputError, missing_file
from ..models.laws import row_norms

__all__ = ["load_matrix", "FORMATS", "check_matrix", "rescaled_rows"]

FORMATS = (".npy", ".npz", ".safetensors", ".parquet", ".pt")


def _path_text(path) -> str:
    """The path in full (a user must see which file), quoted if it has spaces or odd characters."""
    text = str(path)
    return text if text.isprintable() and " " not in text and text else repr(text)


def _pseudo_file(path):
    import os
    return os.path.realpath(path).startswith(("/proc/", "/sys/", "/dev/"))


def _fail(option, path, problem):
    raise InputError(option, f"{_path_text(path)}: {problem}")


def _pick_key(option, path, keys, key, what="key", holder=""):
    """``key`` among ``keys`` (the only one when None); ``holder``: the level of a nested file, for messages."""
    keys = list(keys)
    if not keys:
        _fail(option, path, f"{holder}holds no arrays")
    if key is None:
        if len(keys) == 1:
            return keys[0]
        # the --compare files take their names from --compare-key (a probe, Dec 2026: "--key" sent users astray)
        flag = "compare-key" if option == "--compare" and what == "key" else what
        things = "columns" if what == "column" else "arrays"
        _fail(option, path, f"{holder}holds {len(keys)} {things} ({', '.join(map(str, keys[:8]))}); choose one with --{flag}")
    if key not in keys:
        _fail(option, path, f"has no {what} {key!r} (it has: {', '.join(map(str, keys[:8])) or 'none'})")
    return key


def check_matrix(option, path, arr) -> np.ndarray:
    """A 2-d numeric, finite, non-empty array without zero rows (not yet normalised)."""
    if not isinstance(arr, np.ndarray):
        arr = np.asarray(arr)
    if arr.dtype.kind not in "fiu":
        _fail(option, path, f"data are not numeric (dtype {arr.dtype})")
    if arr.ndim != 2:
        _fail(option, path, f"must hold an n x d matrix, got shape {arr.shape}")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        _fail(option, path, f"the array is empty (shape {arr.shape})")
    step = max(1, 2_000_000 // max(1, arr.shape[1]))
    wide = arr.dtype.kind == "f" and arr.dtype.itemsize > 8        # long double: read as float64
    for start in range(0, arr.shape[0], step):           # memory-mapped files: in slices
        raw = arr[start:start + step]
        with np.errstate(over="ignore", under="ignore"):
            block = np.asarray(raw, dtype=np.float64)
        finite = np.isfinite(block).all(axis=1)
        if not finite.all():
            row = int(np.flatnonzero(~finite)[0])
            if wide and np.isfinite(raw[row]).all():
                # 1e400 in a long double file became inf in the cast: "internal error" (a probe, Dec 2026)
                _fail(option, path, f"row {start + row} has an entry beyond the float64 range (about 1.8e308), in "
                                    f"which the data are read ({arr.dtype} file); rescale it")
            _fail(option, path, f"row {start + row} has a NaN or infinite entry")
        zero = ~np.any(block != 0, axis=1)
        if zero.any():
            row = int(np.flatnonzero(zero)[0])
            if wide and np.any(raw[row] != 0):
                _fail(option, path, f"row {start + row} is not zero but every entry is below the float64 range (about "
                                    f"4.9e-324), in which the data are read ({arr.dtype} file); rescale it")
            _fail(option, path, f"row {start + row} is zero (cannot be normalised)")
    return arr


def _load_npy(option, path):
    with open(path, "rb") as fh:
        if fh.read(6) != b"\x93NUMPY":
            _fail(option, path, "not a valid .npy file (no NumPy header)")
    try:
        return np.load(path, mmap_mode="r", allow_pickle=False)
    except ValueError as exc:
        if "pickle" in str(exc).lower() or "object" in str(exc).lower():
            _fail(option, path, "data are not numeric (an object array)")
        _fail(option, path, f"not a valid .npy file ({exc})")


def _load_npz(option, path, key):
    if not zipfile.is_zipfile(path):
        _fail(option, path, "not a valid .npz file (not a zip archive)")
    try:
        with np.load(path, allow_pickle=False) as data:
            k = _pick_key(option, path, data.files, key)
            try:
                member = data[k]
                if not isinstance(member, np.ndarray):
                    # numpy returns a member without the .npy magic as its raw bytes (an embeddings probe, Dec 2026:
                    # reported as "not numeric (dtype |S4)")
                    _fail(option, path, f"array {k!r}: not a valid .npy member (no .npy header)")
                return member
            except ValueError as exc:
                if "pickle" in str(exc).lower() or "object" in str(exc).lower():
                    _fail(option, path, f"array {k!r}: data are not numeric (an object array)")
                _fail(option, path, f"array {k!r}: not a valid .npy member ({exc})")
    except InputError:
        raise
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        _fail(option, path, f"not a valid .npz file ({type(exc).__name__})")


# safetensors: an 8-byte little-endian header length N, N bytes of JSON {name: {"dtype", "shape",
# "data_offsets": [begin, end]}, "__metadata__": {...}}, then the tensors' bytes (little-endian, C order;
# offsets from the first byte after the header). Read here rather than by safetensors.numpy, which
# cannot give bfloat16 (what PyTorch models save) or float8 and reads every tensor of the file into memory.
_SAFETENSORS_DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "BF16": "<u2", "F8_E4M3": "u1", "F8_E5M2": "u1",
                       "I64": "<i8", "I32": "<i4", "I16": "<i2", "I8": "i1", "U64": "<u8", "U32": "<u4", "U16": "<u2",
                       "U8": "u1", "BOOL": "?"}
_SAFETENSORS_MAX_HEADER = 100 << 20            # the reference implementation's limit


def float8_values(exponent_bits: int) -> np.ndarray:
    """The 256 values of an 8-bit float of the OCP formats, by its byte, as float32 (each exact there):
    a sign bit, ``exponent_bits`` exponent bits (bias 2^(e-1) - 1) and 7 - e mantissa bits, subnormals at
    exponent 0. E4M3 (torch's float8_e4m3fn) has no infinities: only S.1111.111 is NaN, so 448 is its
    largest value; E5M2 is IEEE-like: exponent all ones is infinity (mantissa 0) or NaN.

    >>> v = float8_values(4)
    >>> float(v[0x38]), float(v[0x7E]), float(v[0x01]) == 2.0 ** -9, float(v[0xC0])
    (1.0, 448.0, True, -2.0)
    >>> float(float8_values(5)[0x7B]), float(float8_values(5)[0x7C])
    (57344.0, inf)
    """
    m = 7 - exponent_bits
    bias, top = 2 ** (exponent_bits - 1) - 1, 2 ** exponent_bits - 1
    out = np.empty(256, dtype=np.float32)
    for b in range(256):
        e, f = (b >> m) & top, b & (2 ** m - 1)
        if e == top and (exponent_bits == 5 or f == 2 ** m - 1):
            v = math.inf if (exponent_bits == 5 and f == 0) else math.nan
        else:
            v = math.ldexp(f if e == 0 else 2 ** m + f, max(e, 1) - bias - m)
        out[b] = -v if b >> 7 else v
    return out


def _load_safetensors(option, path, key):
    size = path.stat().st_size
    with open(path, "rb") as fh:
        head = fh.read(8)
        n = int.from_bytes(head, "little") if len(head) == 8 else -1
        if not 2 <= n <= min(size - 8, _SAFETENSORS_MAX_HEADER):
            _fail(option, path, "not a valid .safetensors file (no header of a sensible length)")
        try:
            header = json.loads(fh.read(n).decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            _fail(option, path, "not a valid .safetensors file (its header is not JSON)")
        except RecursionError:
            _fail(option, path, "not a valid .safetensors file (its header nests too deeply)")
    if not isinstance(header, dict):
        _fail(option, path, "not a valid .safetensors file (its header is not a JSON object)")
    names = [name for name in header if name != "__metadata__"]
    k = _pick_key(option, path, names, key)
    info = header[k]
    try:
        dtype, shape, (begin, end) = info["dtype"], tuple(info["shape"]), info["data_offsets"]
        if not isinstance(dtype, str) or not all(type(v) is int and v >= 0 for v in (*shape, begin, end)):
            raise ValueError
    except (TypeError, KeyError, ValueError):
        _fail(option, path, f"not a valid .safetensors file (the entry of {k!r} is not dtype, shape, data_offsets)")
    if dtype not in _SAFETENSORS_DTYPES:
        _fail(option, path, f"tensor {k!r} has dtype {dtype}, which is not read here "
                            "(use F64, F32, F16, BF16, F8_E4M3, F8_E5M2 or an integer type)")
    item = np.dtype(_SAFETENSORS_DTYPES[dtype])
    if end - begin != item.itemsize * math.prod(shape) or end > size - 8 - n:
        _fail(option, path, f"not a valid .safetensors file (the bytes of {k!r} do not match its shape {list(shape)} "
                            "and dtype, or lie beyond the end of the file)")
    if end == begin:
        return np.zeros(shape, dtype=item)
    arr = np.memmap(path, dtype=item, mode="r", offset=8 + n + begin, shape=shape)
    if dtype == "BF16":                         # the upper half of a float32: exact
        return (arr.astype(np.uint32) << 16).view(np.float32)
    if dtype.startswith("F8_"):                 # each byte's value, exact in float32
        return float8_values(int(dtype[4]))[arr]
    return arr


def _load_parquet(option, path, column):
    try:
        import pyarrow.parquet as pq
    except ImportError:
        _fail(option, path, '.parquet needs pyarrow: pip install "infonce-sym[embeddings]"')
    try:
        schema = pq.read_schema(path)
    except Exception as exc:
        _fail(option, path, f"not a valid .parquet file ({type(exc).__name__})")
    col = _pick_key(option, path, schema.names, column, "column")
    import pyarrow as pa
    try:
        table = pq.read_table(path, columns=[col])
    except (OSError, pa.ArrowException) as exc:       # a valid footer over corrupt data pages
        _fail(option, path, f"not a valid .parquet file (column {col!r} cannot be read: {type(exc).__name__})")
    arr = table.column(col).combine_chunks()
    if not (pa.types.is_list(arr.type) or pa.types.is_large_list(arr.type)
            or pa.types.is_fixed_size_list(arr.type)):
        _fail(option, path, f"column {col!r} must be a list column (one embedding per row), got type {arr.type}")
    if arr.null_count:
        _fail(option, path, f"column {col!r} has {arr.null_count} missing rows")
    if not (pa.types.is_floating(arr.type.value_type) or pa.types.is_integer(arr.type.value_type)):
        _fail(option, path, f"data are not numeric (column {col!r} holds {arr.type.value_type})")
    if len(arr) == 0:
        _fail(option, path, "the array is empty (no rows)")
    lengths = np.asarray(arr.value_lengths()) if not pa.types.is_fixed_size_list(arr.type) else None
    if lengths is not None and lengths.min() != lengths.max():
        bad = int(np.flatnonzero(lengths != lengths[0])[0])
        _fail(option, path, f"rows of column {col!r} differ in length (row 0 has {lengths[0]}, row {bad} has {lengths[bad]})")
    if arr.flatten().null_count:
        _fail(option, path, f"column {col!r} has missing entries")
    values = np.asarray(arr.flatten().to_numpy(zero_copy_only=False))
    return values.reshape(len(arr), -1)


def _nested_entry(option, path, obj, key):
    """The entry ``key`` of a dict that may hold dicts (a checkpoint's {"state_dict": {...}}): the key
    names its path, levels joined by '.' (a level's own name may hold dots, as a state_dict's do: the
    whole remaining key is tried first, then its prefixes from the longest that name a dict); a level of
    one entry needs no name. Messages name the entries by their whole paths, as --key takes them."""
    trail, rest = "", key                   # the path taken ('a.b.'), the part of the key still to take
    while isinstance(obj, dict):
        names = {str(k): k for k in obj}     # torch checkpoints may use int keys
        if rest is not None and rest not in names:
            parts = rest.split(".")
            head = next((h for h in (".".join(parts[:i]) for i in range(len(parts) - 1, 0, -1))
                         if h in names and isinstance(obj[names[h]], dict)), None)
            if head is not None:
                trail, rest, obj = f"{trail}{head}.", rest[len(head) + 1:], obj[names[head]]
                continue
        full = _pick_key(option, path, [trail + n for n in names], None if rest is None else trail + rest,
                         holder=f"{trail[:-1]!r} " if trail else "")
        obj = obj[names[full[len(trail):]]]
        trail, rest = full + ".", None
    return obj


def _load_pt(option, path, key):
    try:
        import torch
    except ImportError:
        _fail(option, path, ".pt files need torch (pip install torch); or save the tensor as .npy")
    try:
        with warnings.catch_warnings():
            # torch's notices while unpickling (a pickle protocol, experimental dtypes) are about the
            # file's format, not about numbers: the CLI turns warnings into errors, which read as
            # "not loadable" for a file torch loads
            warnings.simplefilter("ignore")
            obj = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:
        why = ("holds objects other than tensors, which torch.load(weights_only=True) refuses"
               if isinstance(exc, pickle.UnpicklingError) else type(exc).__name__)
        _fail(option, path, f"not a loadable .pt file ({why})")
    if isinstance(obj, dict):
        obj = _nested_entry(option, path, obj, key)
    if not hasattr(obj, "numpy"):
        kind = type(obj).__name__
        _fail(option, path, f"holds {'an' if kind[:1] in 'aeiou' else 'a'} {kind}, not a tensor")
    if obj.layout != torch.strided:                   # sparse (COO, CSR, ...): numpy needs it dense
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")           # torch's "sparse support is in beta"
                obj = obj.to_dense()
        except Exception as exc:
            _fail(option, path, f"a tensor of layout {obj.layout} that torch cannot make dense ({type(exc).__name__})")
    if obj.is_floating_point() and obj.dtype not in (torch.float16, torch.float32, torch.float64):
        obj = obj.to(torch.float32)                   # bfloat16, float8
    if obj.is_complex():
        _fail(option, path, "data are not numeric reals (complex tensor)")
    return obj.detach().cpu().numpy()


def load_matrix(option: str, text, key: str | None = None, column: str | None = None,
                check: bool = True) -> np.ndarray:
    """The n x d matrix in file ``text`` (checked; memory-mapped for .npy, and for .safetensors but
    bfloat16 and float8). ``check=False`` skips the scan of every row for NaN and zero rows (a work unit
    re-opening a file the main process checked)."""
    path = Path(text)
    if not str(text):
        raise InputError(option, "must be a file path, got ''")
    problem = missing_file(path)
    if problem is not None:
        _fail(option, path, problem)
    if path.is_dir():
        _fail(option, path, "is a directory, not a file")
    if not path.is_file():                  # a named pipe or a device would block or stream forever
        _fail(option, path, "is not a regular file (a pipe, socket or device)")
    ext = path.suffix.lower()
    if ext not in FORMATS:
        _fail(option, path, f"unknown extension {ext or '(none)'!r}; use one of {', '.join(FORMATS)}")
    try:
        with open(path, "rb") as fh:
            fh.read(1)
    except OSError as exc:
        _fail(option, path, f"cannot be read ({exc.strerror or exc})")
    if path.stat().st_size == 0:
        # a /proc or /sys file has content and size 0: it is no array file either way (a probe, Dec 2026)
        _fail(option, path, "the file is empty" if path.is_file() and not _pseudo_file(path) else
              "the file has size 0 (a pseudo-file of /proc, /sys or /dev, not an array file)")
    if ext == ".npy":
        arr = _load_npy(option, path)
    elif ext == ".npz":
        arr = _load_npz(option, path, key)
    elif ext == ".safetensors":
        arr = _load_safetensors(option, path, key)
    elif ext == ".parquet":
        arr = _load_parquet(option, path, column)
    else:
        arr = _load_pt(option, path, key)
    return check_matrix(option, path, arr) if check else arr


def rescaled_rows(arr, tol: float = 1e-6) -> int:
    """Rows whose norm differs from 1 by more than ``tol`` (in slices: memory-mapped files)."""
    step = max(1, 2_000_000 // max(1, arr.shape[1]))
    count = 0
    for start in range(0, arr.shape[0], step):
        block = np.asarray(arr[start:start + step], dtype=np.float64)
        count += int(np.count_nonzero(np.abs(row_norms(block) - 1) > tol))
    return count
