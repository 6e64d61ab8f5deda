"""``infonce-sym embeddings`` end to end: every file format round-trips, the numbers printed are
those of independent routes (brute-force enumeration, the registered bounds), and every bad file
exits 2 with one line naming the file and the problem."""
import itertools
import json
import math
import re
import warnings
from decimal import Decimal
from pathlib import Path

import mpmath
import numpy as np
import pytest

from infonce_sym.app import embeddings as emb
from infonce_sym.app.cli import main
from infonce_sym.app.embeddings_io import load_matrix
from infonce_sym.errors import InputError
from infonce_sym.quantities import empirical as emp

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "wordllama_lee_pairs.npz"


def _pairs(n=8, d=4, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(n, d)).astype(np.float32)
    p = (a + 0.5 * rng.normal(size=(n, d))).astype(np.float32)
    return a, p


def _run(capsys, *argv):
    code = main(["embeddings", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------ formats
def _write(fmt, path, arrays):
    """arrays: {name: matrix}; returns the file path."""
    if fmt == "npy":
        (name, arr), = arrays.items()
        np.save(path, arr)
    elif fmt == "npz":
        np.savez(path, **arrays)
    elif fmt == "safetensors":
        from safetensors.numpy import save_file
        save_file({k: np.ascontiguousarray(v) for k, v in arrays.items()}, str(path))
    elif fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq
        pq.write_table(pa.table({k: pa.array(list(v)) for k, v in arrays.items()}), path)
    elif fmt == "pt":
        import torch
        torch.save({k: torch.from_numpy(v) for k, v in arrays.items()}, path)
    return path


FORMATS = ["npy", "npz", "safetensors", "parquet", "pt"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_format_round_trips(tmp_path, fmt):
    if fmt in ("safetensors", "parquet"):
        pytest.importorskip({"safetensors": "safetensors", "parquet": "pyarrow"}[fmt])
    if fmt == "pt":
        pytest.importorskip("torch")
    a, p = _pairs()
    if fmt == "npy":
        fa, fp = _write(fmt, tmp_path / "a.npy", {"x": a}), _write(fmt, tmp_path / "p.npy", {"x": p})
        ka = kp = None
    else:
        fa = fp = _write(fmt, tmp_path / f"pairs.{fmt}", {"anchors": a, "positives": p})
        ka, kp = "anchors", "positives"
    if fmt == "parquet":
        la, lp = load_matrix("--anchors", fa, column=ka), load_matrix("--positives", fp, column=kp)
    else:
        la, lp = load_matrix("--anchors", fa, key=ka), load_matrix("--positives", fp, key=kp)
    assert np.array_equal(np.asarray(la), a) and np.array_equal(np.asarray(lp), p)


def _safetensors_file(path, entries, data, pad=b""):
    """A .safetensors file written by hand from the format's definition (header length, JSON, bytes)."""
    header = json.dumps(entries).encode() + pad
    path.write_bytes(len(header).to_bytes(8, "little") + header + data)
    return path


def test_safetensors_bfloat16_is_read_exactly(tmp_path):
    """bfloat16, what PyTorch models save (safetensors.numpy cannot read it): values with 8 significant
    bits, the upper halves of their float32 words, come back exactly; a second tensor and padding of
    the header (both allowed) are passed over; the float32 tensor is memory-mapped."""
    rng = np.random.default_rng(5)
    want = (rng.integers(-255, 256, size=(6, 5)) * 2.0 ** rng.integers(-20, 5, size=(6, 5))).astype(np.float32)
    want[want == 0] = 1.0
    bf16 = (want.view(np.uint32) >> 16).astype("<u2").tobytes()
    f32 = want.astype("<f4").tobytes()
    path = _safetensors_file(tmp_path / "m.safetensors", {
        "__metadata__": {"format": "pt"},
        "w32": {"dtype": "F32", "shape": [6, 5], "data_offsets": [0, len(f32)]},
        "w16": {"dtype": "BF16", "shape": [6, 5], "data_offsets": [len(f32), len(f32) + len(bf16)]}},
        f32 + bf16, pad=b"   ")
    got = load_matrix("--anchors", path, key="w16")
    assert got.dtype == np.float32 and np.array_equal(got, want)
    mapped = load_matrix("--anchors", path, key="w32")
    assert isinstance(mapped, np.memmap) and np.array_equal(mapped, want)


def _e4m3_as_float16(b):
    """An E4M3 byte's value by another route: re-packed into the bits of a float16 (5 exponent bits,
    bias 15, 10 mantissa bits), which holds every E4M3 value exactly; subnormals f 2^-9 by float16
    arithmetic (2^-9 is a normal float16)."""
    sign, e, f = b >> 7, (b >> 3) & 15, b & 7
    if e == 15 and f == 7:
        return np.float16(np.nan)
    v = np.float16(f) * np.float16(2.0 ** -9) if e == 0 else \
        np.array([(e - 7 + 15) << 10 | f << 7], dtype=np.uint16).view(np.float16)[0]
    return -v if sign else v


def test_safetensors_float8_is_read_exactly(tmp_path):
    """F8_E5M2 and F8_E4M3 (torch's float8_e5m2 and float8_e4m3fn, which safetensors stores): every one
    of the 256 bytes decodes to the value another route gives (E5M2 is the upper byte of a float16; E4M3
    re-packed into float16 bits), infinities and NaNs included; a matrix of them is read as float32, and
    a NaN entry is refused by row."""
    from infonce_sym.app.embeddings_io import float8_values
    every = np.arange(256, dtype=np.uint8)
    e5m2 = (every.astype(np.uint16) << 8).view(np.float16).astype(np.float32)
    e4m3 = np.array([_e4m3_as_float16(int(b)) for b in every], dtype=np.float32)
    for exponent_bits, want in ((5, e5m2), (4, e4m3)):
        got = float8_values(exponent_bits)
        assert np.array_equal(got, want, equal_nan=True), exponent_bits
        assert np.isnan(got).sum() == (6 if exponent_bits == 5 else 2)
    assert np.isinf(float8_values(5)).sum() == 2 and not np.isinf(float8_values(4)).any()
    rng = np.random.default_rng(8)
    ok = [b for b in range(256) if b & 0x7F not in (0, 0x7F)]      # finite and non-zero in E4M3
    data = rng.choice(ok, size=(6, 5)).astype(np.uint8)
    path = _safetensors_file(tmp_path / "f8.safetensors", {
        "e4m3": {"dtype": "F8_E4M3", "shape": [6, 5], "data_offsets": [0, 30]},
        "e5m2": {"dtype": "F8_E5M2", "shape": [6, 5], "data_offsets": [30, 60]}}, data.tobytes() * 2)
    got = load_matrix("--anchors", path, key="e4m3")
    assert got.dtype == np.float32 and np.array_equal(got, e4m3[data])
    assert np.array_equal(load_matrix("--anchors", path, key="e5m2"), e5m2[data])
    data[3, 1] = 0xFF                                               # NaN in both formats
    path = _safetensors_file(tmp_path / "nan.safetensors", {
        "e4m3": {"dtype": "F8_E4M3", "shape": [6, 5], "data_offsets": [0, 30]}}, data.tobytes())
    with pytest.raises(InputError) as err:
        load_matrix("--anchors", path)
    assert "row 3 has a NaN or infinite entry" in str(err.value)


def test_safetensors_written_by_the_libraries_read_the_same(tmp_path):
    """Files written by safetensors (numpy: float64, float16, int8) and, when installed, by torch
    (bfloat16): the arrays the libraries were given."""
    save_numpy = pytest.importorskip("safetensors.numpy").save_file
    rng = np.random.default_rng(6)
    a = rng.normal(size=(7, 3))
    arrays = {"f64": a, "f16": a.astype(np.float16), "i8": (a * 20).astype(np.int8)}
    save_numpy(arrays, str(tmp_path / "np.safetensors"))
    for name, arr in arrays.items():
        assert np.array_equal(load_matrix("--anchors", tmp_path / "np.safetensors", key=name), arr), name
    try:
        import torch
        from safetensors.torch import save_file
    except ImportError:
        return
    t = torch.from_numpy(a).to(torch.bfloat16)
    save_file({"emb": t}, str(tmp_path / "bf16.safetensors"))
    assert np.array_equal(load_matrix("--anchors", tmp_path / "bf16.safetensors"), t.float().numpy())
    for dtype in (torch.float8_e4m3fn, torch.float8_e5m2):       # what quantised checkpoints hold
        t = torch.from_numpy(a).to(dtype)
        save_file({"emb": t}, str(tmp_path / "f8.safetensors"))
        assert np.array_equal(load_matrix("--anchors", tmp_path / "f8.safetensors"), t.float().numpy()), dtype


def test_sparse_pt_tensors_load_as_their_dense_matrix(tmp_path):
    """A .pt file may hold a sparse tensor (COO or CSR; numpy has no such layout): the same matrix."""
    torch = pytest.importorskip("torch")
    a, _ = _pairs(5, 4, seed=3)
    a[1, 2] = a[3, 0] = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")             # torch's "sparse CSR support is in beta"
        tensors = {"coo": torch.from_numpy(a).to_sparse(), "csr": torch.from_numpy(a).to_sparse_csr()}
    for layout, sparse in tensors.items():
        torch.save(sparse, tmp_path / f"{layout}.pt")
        assert np.array_equal(np.asarray(load_matrix("--anchors", tmp_path / f"{layout}.pt")), a), layout


def test_pt_checkpoint_dicts_are_read_by_the_dotted_path_of_an_entry(tmp_path):
    """A checkpoint's nested dicts ({"state_dict": {"encoder.emb": ...}}, names with dots, int keys): --key is
    the entry's path, levels joined by '.'; a level of one entry needs no name; a missing or ambiguous name
    is one line that lists the entries by their whole paths."""
    torch = pytest.importorskip("torch")
    a, b = _pairs(5, 4, seed=8)
    path, single = tmp_path / "ckpt.pt", tmp_path / "single.pt"
    torch.save({"epoch": 3, "state_dict": {"encoder.emb": torch.from_numpy(a), "head": {7: torch.from_numpy(b)}}}, path)
    torch.save({"model": {"emb": torch.from_numpy(b)}}, single)
    assert np.array_equal(load_matrix("--anchors", path, key="state_dict.encoder.emb"), a)
    assert np.array_equal(load_matrix("--anchors", path, key="state_dict.head.7"), b)
    assert np.array_equal(load_matrix("--anchors", path, key="state_dict.head"), b)      # one entry below
    assert np.array_equal(load_matrix("--anchors", single), b)
    for key, message in [("state_dict", "'state_dict' holds 2 arrays (state_dict.encoder.emb, state_dict.head); "
                                        "choose one with --key"),
                         ("state_dict.encoder", "has no key 'state_dict.encoder' (it has: state_dict.encoder.emb, "
                                                "state_dict.head)"),
                         ("state_dict.head.8", "has no key 'state_dict.head.8' (it has: state_dict.head.7)"),
                         ("epoch", "holds an int, not a tensor"),
                         (None, "holds 2 arrays (epoch, state_dict); choose one with --key")]:
        with pytest.raises(InputError) as err:
            load_matrix("--anchors", path, key=key)
        assert str(err.value) == f"--anchors: {path}: {message}", key


def test_the_same_numbers_from_every_format(tmp_path, capsys):
    pytest.importorskip("safetensors")
    pytest.importorskip("pyarrow")
    a, p = _pairs(6, 3, seed=2)
    gaps = []
    for fmt in ("npz", "safetensors", "parquet"):
        f = _write(fmt, tmp_path / f"x.{fmt}", {"anchors": a, "positives": p})
        opt = "--column" if fmt == "parquet" else "--key"
        code, out, err = _run(capsys, "--anchors", f, "--positives", f, opt, "anchors,positives", "--tau", "0.2",
                              "--k", "2,50", "--samples", "0", "--no-tau-sweep", "--json")
        assert code == 0, err
        gaps.append([r["gap"] for r in json.loads(out)["by_k"]])
    assert gaps[0] == gaps[1] == gaps[2]


# ------------------------------------------------------------------ the numbers
def test_a_collapsed_model_prints_no_rounding_noise_as_digits(tmp_path, capsys):
    """All anchors and positives one vector (a collapsed model): every similarity is 1/tau, so ∫CE = 0 and
    R(k) = log(1 + 1/k) exactly. float64 leaves ∫CE at about 1e-14 of noise (terms of size 1/tau = 100
    cancel): each value must lie within its stated error bound of the closed form, and the text and the
    report must show no digit that the bound does not leave (the noise once printed as -1.42108547152e-14,
    and R(10^12) as 9.85789145284e-13 against 1e-12)."""
    v = np.repeat(np.array([[0.3, -1.2, 0.5, 2.0]]), 20, axis=0)
    np.save(tmp_path / "a.npy", v)
    np.save(tmp_path / "p.npy", v)
    args = ("--anchors", tmp_path / "a.npy", "--positives", tmp_path / "p.npy", "--tau", "0.02", "--k", "1,1000,1000000000000",
            "--samples", "0")
    code, out, err = _run(capsys, *args, "--json", "--out", tmp_path / "rep")
    assert code == 0, err
    r = json.loads(out)
    assert abs(r["cross_entropy_limit"]) <= r["cross_entropy_limit_error_bound"] < 1e-10
    for row in r["by_k"]:
        want = math.log1p(1 / row["k"])
        assert abs(row["risk"] - want) <= row["risk_error_bound"] < 1e-10, row["k"]
        assert abs(row["gap"] + want) <= row["gap_error_bound"], row["k"]
    code, out, err = _run(capsys, *args)
    assert code == 0, err
    def significant(text):
        return len(Decimal(text).as_tuple().digits)

    line = next(x for x in out.splitlines() if "∫CE =" in x).split("∫CE = ")[1].split()
    assert significant(line[0]) == 1 and line[1:3] == ["±", f"{r['cross_entropy_limit_error_bound']:.1e}"], line
    printed = {int(x.split()[0]): x.split()[1] for x in out.splitlines() if x.split() and x.split()[0].isdigit()}
    report = (tmp_path / "rep" / "report.md").read_text()
    in_report = {int(x.split("|")[1]): x.split("|")[2].strip() for x in report.splitlines()
                 if x.startswith("| ") and x.split("|")[1].strip().isdigit()}
    for row in r["by_k"]:
        want, bound = math.log1p(1 / row["k"]), row["risk_error_bound"]
        for text in (printed[row["k"]], in_report[row["k"]]):
            last = Decimal(text).adjusted() - significant(text) + 1          # the last digit's place
            assert abs(float(text) - want) <= bound + 0.5 * 10.0 ** last, (row["k"], text)
            assert significant(text) <= max(1, math.floor(math.log10(want / bound))), (row["k"], text)
    for row in r["tau_sweep"]:                                       # tau = 0.01 ... 0.04
        assert abs(row["cross_entropy_limit"]) <= row["cross_entropy_limit_error_bound"] < 1e-10
    sweep = [x.split("∫CE = ")[1].split(";")[0] for x in out.splitlines() if x.startswith("tau = ")]
    assert len(sweep) == len(r["tau_sweep"]) and all(significant(x) == 1 for x in sweep), sweep
    assert printed[1000000000000] == in_report[1000000000000] == "1e-12"
    # the Monte Carlo check: every tuple gives log(1 + 1/k), no spread, and the exact gap on that value
    code, out_mc, err = _run(capsys, *args[:-2], "--samples", "64", "--no-tau-sweep", "--json")
    assert code == 0, err
    mc = json.loads(out_mc)["monte_carlo"]
    assert [row["k"] for row in mc] == [1, 1000] and all(row["stderr"] == 0 for row in mc)
    assert all(row["verdict"] == "consistent (zero spread: every tuple gave the exact value)" for row in mc), mc
    assert not re.search(r"\d\.\d{2,}e-1[3-5]", out + report)      # no digits of the noise (bounds: 2 digits)


def test_json_numbers_against_brute_force_and_the_bounds(tmp_path, capsys):
    a, p = _pairs(5, 3, seed=1)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "p.npy", p)
    code, out, err = _run(capsys, "--anchors", tmp_path / "a.npy", "--positives", tmp_path / "p.npy",
                          "--tau", "0.25", "--k", "1,2,3,1000", "--samples", "2000", "--json", "--out", tmp_path / "rep")
    assert code == 0, err
    r = json.loads(out)
    for key in ("n", "dim", "tau", "normalised", "cross_entropy_limit", "c1", "c2", "by_k", "k_for_gap"):
        assert key in r
    assert (r["n"], r["dim"], r["tau"], r["normalised"]) == (5, 3, "0.25", True)
    # the command and its options as typed, defaults included, as the other commands' JSON has them
    assert r["command"] == "embeddings"
    assert r["inputs"] == {"anchors": str(tmp_path / "a.npy"), "positives": str(tmp_path / "p.npy"), "tau": "0.25",
                           "k": "1,2,3,1000", "samples": "2000", "out": str(tmp_path / "rep"), "loss": "infonce",
                           "exclude_own": False, "seed": "0", "no_tau_sweep": False, "memory_limit": "2GB",
                           "max_seconds": "600"}
    model = emp.make_pairs(a, p)
    ce = np.mean([-model.anchors[i] @ model.positives[i] / 0.25
                  + math.log(np.mean(np.exp(model.anchors[i] @ model.pool.T / 0.25))) for i in range(5)])
    assert abs(r["cross_entropy_limit"] - ce) <= 1e-13
    for row in r["by_k"]:
        k = row["k"]
        for key in ("k", "risk", "gap", "prop1_lower", "prop1_upper"):
            assert key in row
        assert abs(row["prop1_lower"] + math.log(1 + math.exp(8) / k)) <= 1e-12 * abs(row["prop1_lower"])
        assert abs(row["prop1_upper"] - (math.exp(8) - 1) ** 2 / (8 * k)) <= 1e-12 * row["prop1_upper"]
        assert row["prop1_lower"] <= row["gap"] <= row["prop1_upper"] and row["prop1_holds"]
        if k <= 3:
            brute = emp.brute_force_risk(model, 0.25, k)
            assert abs(row["risk"] - brute) <= 1e-12
            assert abs(row["dcl_risk"] - emp.brute_force_risk(model, 0.25, k, "dcl")) <= 1e-12
    for row in r["monte_carlo"]:
        assert row["z"] is not None and abs(row["z"]) < 4
    assert {Path(x).name for x in r["written"]} == {"report.md", "gap_vs_k.png", "tau_sweep.png"}
    assert "| 1000 |" in (tmp_path / "rep" / "report.md").read_text()


def test_the_tau_sweep_is_at_the_decimals_of_tau_times_its_factors(tmp_path, capsys):
    """tau = 0.015: the sweep's taus are 0.0105, 0.015, 0.021 and 0.03 (x 0.7, 1, 1.4, 2; x 0.5 is below 0.01), the doubles of
    those decimals (the JSON gave 0.010499999999999999 and the text 0.0105: an embeddings probe, Dec 2026), and the
    limit at each is the closed form at that tau."""
    a, p = _pairs(5, 3, seed=4)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "p.npy", p)
    code, out, err = _run(capsys, "--anchors", tmp_path / "a.npy", "--positives", tmp_path / "p.npy", "--tau", "0.015",
                          "--k", "4", "--samples", "0", "--json")
    assert code == 0, err
    rows = json.loads(out)["tau_sweep"]
    assert [row["tau"] for row in rows] == [0.0105, 0.015, 0.021, 0.03]
    model = emp.make_pairs(a, p)
    for row in rows:
        tau = row["tau"]
        z = np.array([model.anchors[i] @ model.pool.T / tau for i in range(5)])
        zmax = z.max(axis=1)
        ce = np.mean([-model.anchors[i] @ model.positives[i] / tau + zmax[i] + math.log(np.mean(np.exp(z[i] - zmax[i])))
                      for i in range(5)])
        assert abs(row["cross_entropy_limit"] - ce) <= row["cross_entropy_limit_error_bound"] + 1e-12 * abs(ce)


def test_dcl_tau_sweep_against_brute_force(tmp_path, capsys):
    """--loss dcl: every row of the tau sweep carries the DCL gap at that tau (brute force over the pool
    tuples, k = 1, 2, 3) and its bound, beside the InfoNCE gap; without it the rows have no DCL gap."""
    a, p = _pairs(5, 3, seed=2)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "p.npy", p)
    model = emp.make_pairs(a, p)
    argv = ["--anchors", tmp_path / "a.npy", "--positives", tmp_path / "p.npy", "--tau", "0.5", "--k", "1,2,3",
            "--samples", "0", "--json"]
    code, out, err = _run(capsys, *argv, "--loss", "dcl")
    assert code == 0, err
    rows = json.loads(out)["tau_sweep"]
    assert len(rows) == 5
    for row in rows:
        tau = row["tau"]
        ce = np.mean([-model.anchors[i] @ model.positives[i] / tau
                      + math.log(np.mean(np.exp(model.anchors[i] @ model.pool.T / tau))) for i in range(5)])
        for x in row["by_k"]:
            k = x["k"]
            assert abs(x["gap"] - (ce - emp.brute_force_risk(model, tau, k))) <= 1e-12
            assert abs(x["dcl_gap"] - (ce - emp.brute_force_risk(model, tau, k, "dcl"))) <= 1e-12
            assert x["dcl_upper"] == emb.dcl_bounds(k, tau)[1] and x["dcl_gap"] <= x["dcl_upper"]
    code, out, err = _run(capsys, *argv)
    assert code == 0, err
    assert all("dcl_gap" not in x for row in json.loads(out)["tau_sweep"] for x in row["by_k"])


def test_scale_and_logit_scale_are_temperatures(tmp_path, capsys):
    a, p = _pairs(6, 3, seed=3)
    np.savez(tmp_path / "x.npz", anchors=a, positives=p)
    common = ["--anchors", tmp_path / "x.npz", "--positives", tmp_path / "x.npz", "--key", "anchors,positives",
              "--k", "4", "--samples", "0", "--no-tau-sweep", "--json"]
    outs = []
    for flag, value in (("--tau", "0.05"), ("--scale", "20"), ("--logit-scale", repr(math.log(20)))):
        code, out, err = _run(capsys, *common, flag, value)
        assert code == 0, err
        outs.append(json.loads(out))
    assert outs[1]["tau"] == "0.05"
    assert abs(float(outs[2]["tau"]) - 0.05) < 1e-15
    assert outs[0]["by_k"][0]["gap"] == outs[1]["by_k"][0]["gap"]
    assert abs(outs[0]["by_k"][0]["gap"] - outs[2]["by_k"][0]["gap"]) < 1e-12


def _brute_force_risk_mp(a, p, tau, k):
    """R(k) of the empirical model (pool = the positives, own row included) by every ordered k-tuple of pool rows,
    in mpmath at the current precision from the rows as given: mean_i mean_J log(1/k + (1/k) sum_j
    e^{(<x_i, p_J_j> - <x_i, p_i>)/tau}) (MATH.md), tau an mpf."""
    def unit(v):
        v = [mpmath.mpf(float(x)) for x in v]
        norm = mpmath.sqrt(mpmath.fsum(x * x for x in v))
        return [x / norm for x in v]
    xs, ps = [unit(v) for v in a], [unit(v) for v in p]
    n = len(xs)
    dot = [[mpmath.fsum(u * v for u, v in zip(x, q)) for q in ps] for x in xs]
    total = 0
    for i in range(n):
        for tup in itertools.product(range(n), repeat=k):
            total += mpmath.log((1 + mpmath.fsum(mpmath.exp((dot[i][j] - dot[i][i]) / tau) for j in tup)) / k)
    return total / n ** (k + 1)


@pytest.mark.parametrize("flag, value, tau_of", [
    ("--scale", "3", lambda: mpmath.mpf(1) / 3),
    ("--logit-scale", "2.30259", lambda: mpmath.exp(-mpmath.mpf("2.30259")))])
def test_digits_at_a_scale_are_those_of_its_tau(tmp_path, capsys, flag, value, tau_of):
    """--digits 50 at tau = 1/S or e^-L: every digit that of that tau.  tau was rounded to 25 digits before the
    exact route, whose 50 digits were then those of another tau from the 27th on (an embeddings probe, Dec 2026).
    Independent route: every ordered k-tuple in mpmath at 70 digits, at the tau computed here."""
    a, p = _pairs(2, 3, seed=8)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "p.npy", p)
    code, out, err = _run(capsys, "--anchors", tmp_path / "a.npy", "--positives", tmp_path / "p.npy", flag, value,
                          "--k", "1,2", "--digits", "50", "--samples", "0", "--no-tau-sweep", "--json")
    assert code == 0, err
    got = {row["k"]: row for row in json.loads(out)["digits"]}
    with mpmath.workdps(70):
        tau = tau_of()
        for k in (1, 2):
            printed = mpmath.mpf(got[k]["risk"])
            want = _brute_force_risk_mp(a, p, tau, k)
            last_digit = 10 ** (mpmath.floor(mpmath.log10(abs(want))) - 49)
            assert abs(printed - want) <= last_digit, (k, got[k]["risk"], mpmath.nstr(want, 55))


def test_a_tau_out_of_range_is_named_to_25_digits(tmp_path, capsys):
    """--logit-scale -4.61 gives tau = e^4.61 = 100.48..., out of range: the one-line error names it to 25 digits (it had
    printed all 80 that tau now carries)."""
    a, p = _pairs(2, 3, seed=8)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "p.npy", p)
    code, out, err = _run(capsys, "--anchors", tmp_path / "a.npy", "--positives", tmp_path / "p.npy",
                          "--logit-scale", "-4.61", "--samples", "0")
    with mpmath.workdps(40):
        want = mpmath.nstr(mpmath.exp(mpmath.mpf("4.61")), 25, strip_zeros=False)
    assert code == 2 and len(err.strip().splitlines()) == 1 and f"(tau = {want}…)" in err, err


def test_prop1_bounds_are_the_doubles_nearest_their_values(tmp_path, capsys):
    """The JSON's Prop. 1 and DCL bounds at tau = e^-4.60517 (~0.01): the doubles nearest (e^{2/tau} - 1)^2/(8k),
    -log(1 + e^{2/tau}/k) and min(that upper bound, 2/tau), typed here from the paper's (10), (11) and Lemma 4 and
    evaluated in mpmath at 50 digits.  In float64, 2/tau rounded before the exponential put the upper bound 121
    ulps off (an embeddings probe, Dec 2026)."""
    a, p = _pairs(4, 3, seed=9)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "p.npy", p)
    code, out, err = _run(capsys, "--anchors", tmp_path / "a.npy", "--positives", tmp_path / "p.npy",
                          "--logit-scale", "4.60517", "--k", "1,7,1000000", "--samples", "0", "--no-tau-sweep",
                          "--json")
    assert code == 0, err
    got = json.loads(out)
    with mpmath.workdps(50):
        tau = mpmath.exp(-mpmath.mpf("4.60517"))
        e = mpmath.exp(2 / tau)
        for row in got["by_k"]:
            k = row["k"]
            assert row["prop1_upper"] == float((e - 1) ** 2 / (8 * k))
            assert row["prop1_lower"] == float(-mpmath.log(1 + e / k))
            assert row["dcl_upper"] == min(float((e - 1) ** 2 / (8 * k)), float(2 / tau))


def test_exclude_own_reports_the_default_beside_it(tmp_path, capsys):
    a, p = _pairs(4, 3, seed=4)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "p.npy", p)
    code, out, err = _run(capsys, "--anchors", tmp_path / "a.npy", "--positives", tmp_path / "p.npy", "--tau", "0.5",
                          "--k", "2", "--exclude-own", "--samples", "0", "--no-tau-sweep", "--json")
    assert code == 0, err
    r = json.loads(out)
    assert r["exclude_own"] and r["pool_size"] == 3
    m_ex = emp.make_pairs(a, p, exclude_own=True)
    m_in = emp.make_pairs(a, p)
    assert abs(r["by_k"][0]["risk"] - emp.brute_force_risk(m_ex, 0.5, 2)) <= 1e-12
    assert abs(r["own_row_included"]["by_k"][0]["risk"] - emp.brute_force_risk(m_in, 0.5, 2)) <= 1e-12
    # the text and report.md show it too (--help promises it beside): the default run's own numbers
    args = ("--anchors", tmp_path / "a.npy", "--positives", tmp_path / "p.npy", "--tau", "0.5", "--k", "2,9",
            "--samples", "0", "--no-tau-sweep")
    code, out, err = _run(capsys, *args, "--json")
    default = json.loads(out)
    code, out, err = _run(capsys, *args, "--exclude-own", "--out", tmp_path / "rep")
    assert code == 0, err
    line = next(x for x in out.splitlines() if x.startswith("beside it, the default model"))
    ce = Decimal(line.split("∫CE = ")[1].split(";")[0])
    half_unit = 0.5 * 10.0 ** (ce.adjusted() - len(ce.as_tuple().digits) + 1)     # of the last digit shown
    assert abs(float(ce) - default["cross_entropy_limit"]) <= default["cross_entropy_limit_error_bound"] + half_unit
    gaps = dict(x.split(": ") for x in line.split("; gap ")[1].split(", "))
    assert [float(gaps[f"k={row['k']}"]) for row in default["by_k"]] == \
        pytest.approx([row["gap"] for row in default["by_k"]], rel=1e-5)
    assert "Beside it, the default model" in (tmp_path / "rep" / "report.md").read_text()
    code, out, err = _run(capsys, *args)
    assert "beside it" not in out                                  # only with --exclude-own


def test_digits_route_on_a_tiny_model(tmp_path, capsys):
    a, p = _pairs(3, 3, seed=5)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "p.npy", p)
    code, out, err = _run(capsys, "--anchors", tmp_path / "a.npy", "--positives", tmp_path / "p.npy", "--tau", "0.5",
                          "--k", "2,100", "--digits", "20", "--samples", "0", "--no-tau-sweep", "--json")
    assert code == 0, err
    got = json.loads(out)
    rows = got["digits"]
    assert len(rows) == 2 and all(abs(r["float64_gap_minus_exact"]) < 1e-13 for r in rows)
    # the double's own value minus the exact one (it was float(exact) first: 0.0 for any difference below an ulp)
    by_k = {r["k"]: r for r in got["by_k"]}
    for r in rows:
        with mpmath.workdps(40):
            want = mpmath.mpf(float(by_k[r["k"]]["gap"])) - mpmath.mpf(r["gap"])
        assert abs(r["float64_gap_minus_exact"] - float(want)) < 1e-19 and "precision_check_digits" in r   # "gap": 20 digits
    model = emp.make_pairs(a, p)
    assert abs(float(rows[0]["risk"]) - emp.brute_force_risk(model, 0.5, 2)) < 1e-13


def test_compare_on_the_fixture_never_exceeds_the_bounds(tmp_path, capsys):
    """The committed real-model fixture (WordLlama 256-d against its 128-d truncation), first 300 pairs."""
    with np.load(FIXTURE) as data:
        part = {key: data[key][:300] for key in ("anchors", "positives", "anchors_trunc", "positives_trunc")}
    np.savez(tmp_path / "part.npz", **part)
    f = tmp_path / "part.npz"
    code, out, err = _run(capsys, "--anchors", f, "--positives", f, "--key", "anchors,positives",
                          "--compare", f, f, "--compare-key", "anchors_trunc,positives_trunc",
                          "--tau", "0.1", "--k", "16", "--samples", "256", "--no-tau-sweep", "--json")
    assert code == 0, err
    r = json.loads(out)
    assert r["n"] == 300 and r["dim"] == 256
    row = r["compare"]["by_k"][0]
    assert row["prop4"]["constants"] == [4, 1, 3] and row["prop4_sharp"]["constants"] == [2, 1, 1]
    assert 0 < row["prop4"]["worst_ratio"] <= row["prop4_sharp"]["worst_ratio"] <= 1
    assert row["prop4"]["violations"] == row["prop4_sharp"]["violations"] == 0


def test_compare_with_a_truncated_dimension_is_the_zero_padded_one(tmp_path, capsys):
    """The fixture stores its 128-d truncation zero-padded to 256 columns; the same rows given as 128 columns (a
    truncated dimension as a model writes it, refused before: an embeddings probe, Dec 2026) are zero-padded by the
    command, and every Prop. 4 figure is the one of the stored padded rows; the output says so.  Two compared files of
    different widths are still refused."""
    with np.load(FIXTURE) as data:
        part = {key: data[key][:200] for key in ("anchors", "positives", "anchors_trunc", "positives_trunc")}
    assert not np.any(part["anchors_trunc"][:, 128:]) and not np.any(part["positives_trunc"][:, 128:])
    np.savez(tmp_path / "part.npz", **part)
    np.save(tmp_path / "a128.npy", part["anchors_trunc"][:, :128])
    np.save(tmp_path / "p128.npy", part["positives_trunc"][:, :128])
    f = tmp_path / "part.npz"
    base = ("--anchors", f, "--positives", f, "--key", "anchors,positives", "--tau", "0.1", "--k", "1,16",
            "--samples", "128", "--no-tau-sweep")
    code, out, err = _run(capsys, *base, "--compare", f, f, "--compare-key", "anchors_trunc,positives_trunc", "--json")
    assert code == 0, err
    stored = json.loads(out)["compare"]
    code, out, err = _run(capsys, *base, "--compare", tmp_path / "a128.npy", tmp_path / "p128.npy", "--json")
    assert code == 0, err
    cut = json.loads(out)["compare"]
    assert stored.pop("zero_padded_from_dim") is None and cut.pop("zero_padded_from_dim") == 128
    assert cut == stored
    code, out, err = _run(capsys, *base, "--compare", tmp_path / "a128.npy", tmp_path / "p128.npy")
    assert code == 0 and "second version's 128 dimensions, zero-padded to 256" in out
    np.save(tmp_path / "p100.npy", part["positives_trunc"][:, :100])
    code, out, err = _run(capsys, *base, "--compare", tmp_path / "a128.npy", tmp_path / "p100.npy")
    assert code == 2 and err.count("\n") == 1 and "--compare" in err and "does not match" in err


# ------------------------------------------------------------------ bad files
def _bad_cases(tmp_path):
    a, p = _pairs(5, 4, seed=6)
    good_a, good_p = tmp_path / "a.npy", tmp_path / "p.npy"
    np.save(good_a, a)
    np.save(good_p, p)
    cases = {}

    def npy(name, arr, **kw):
        path = tmp_path / name
        np.save(path, arr, **kw)
        return path

    cases["3-d array"] = (["--anchors", npy("cube.npy", np.zeros((2, 3, 4)) + 1), "--positives", good_p], "n x d matrix")
    cases["1-d array"] = (["--anchors", npy("vec.npy", np.ones(5)), "--positives", good_p], "n x d matrix")
    cases["mismatched shapes"] = (["--anchors", good_a, "--positives", npy("p6.npy", np.ones((6, 4)))], "does not match")
    cases["mismatched dim of negatives"] = (["--anchors", good_a, "--positives", good_p, "--negatives",
                                             npy("n3.npy", np.ones((7, 3)))], "dimension 3")
    nan = a.copy()
    nan[2, 1] = np.nan
    cases["NaN row"] = (["--anchors", npy("nan.npy", nan), "--positives", good_p], "row 2 has a NaN")
    zero = p.copy()
    zero[3] = 0
    cases["zero row"] = (["--anchors", good_a, "--positives", npy("zero.npy", zero)], "row 3 is zero")
    cases["empty array"] = (["--anchors", npy("empty.npy", np.zeros((0, 4))), "--positives", good_p], "empty")
    if np.finfo(np.longdouble).max > np.finfo(np.float64).max:
        # a long double file beyond float64's range: "internal error" in the cast (a probe, Dec 2026)
        big = a.astype(np.longdouble)
        big[1, 0] = np.longdouble("1e400")
        cases["long double beyond float64"] = (["--anchors", npy("ld_big.npy", big), "--positives", good_p],
                                               "row 1 has an entry beyond the float64 range")
        tiny = a.astype(np.longdouble)
        tiny[2] = np.longdouble("1e-4000")
        cases["long double below float64"] = (["--anchors", npy("ld_tiny.npy", tiny), "--positives", good_p],
                                              "row 2 is not zero but every entry is below the float64 range")
    out = tmp_path / "out"
    out.mkdir()
    (out / "report.md").symlink_to(tmp_path / "nowhere" / "report.md")
    cases["--out with a dangling report.md"] = (["--anchors", good_a, "--positives", good_p, "--out", out],
                                                "report.md in")
    cases["non-numeric"] = (["--anchors", npy("text.npy", np.array([["a", "b"], ["c", "d"]])), "--positives", good_p],
                            "not numeric")
    cases["object array"] = (["--anchors", npy("obj.npy", np.array([[1, "x"]], dtype=object), allow_pickle=True),
                              "--positives", good_p], "not numeric")
    np.savez(tmp_path / "k.npz", anchors=a, positives=p)
    cases["missing key"] = (["--anchors", tmp_path / "k.npz", "--positives", tmp_path / "k.npz", "--key", "anchors,nope"],
                            "no key 'nope'")
    cases["several arrays, no key"] = (["--anchors", tmp_path / "k.npz", "--positives", good_p], "choose one with --key")
    cases["directory"] = (["--anchors", tmp_path, "--positives", good_p], "is a directory")
    cases["missing file"] = (["--anchors", tmp_path / "none.npy", "--positives", good_p], "file not found")
    garbage = tmp_path / "garbage.npy"
    garbage.write_bytes(b"this is not numpy data at all")
    cases["unreadable file"] = (["--anchors", garbage, "--positives", good_p], "not a valid .npy")
    bad_zip = tmp_path / "bad.npz"
    bad_zip.write_bytes(b"PK not a zip")
    cases["unreadable npz"] = (["--anchors", bad_zip, "--positives", good_p], "not a valid .npz")
    empty_file = tmp_path / "void.npy"
    empty_file.write_bytes(b"")
    cases["empty file"] = (["--anchors", empty_file, "--positives", good_p], "file is empty")
    csv = tmp_path / "a.csv"
    csv.write_text("1,2\n")
    cases["unknown extension"] = (["--anchors", csv, "--positives", good_p], "unknown extension")
    cases["exclude-own with a pool of another size"] = (
        ["--anchors", good_a, "--positives", good_p, "--negatives", npy("n7.npy", np.ones((7, 4))), "--exclude-own"],
        "one pool row per anchor")
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
        pq.write_table(pa.table({"emb": pa.array([list(r) for r in a])}), tmp_path / "x.parquet")
        pq.write_table(pa.table({"emb": pa.array([1.0, 2.0])}), tmp_path / "flat.parquet")
        pq.write_table(pa.table({"emb": pa.array([[1.0, 2.0], [1.0]])}), tmp_path / "ragged.parquet")
        pq.write_table(pa.table({"emb": pa.array([["a", "b"], ["c", "d"]])}), tmp_path / "strings.parquet")
        cases["missing column"] = (["--anchors", tmp_path / "x.parquet", "--column", "vec", "--positives", good_p],
                                   "no column 'vec'")
        cases["not a list column"] = (["--anchors", tmp_path / "flat.parquet", "--positives", good_p], "list column")
        cases["ragged rows"] = (["--anchors", tmp_path / "ragged.parquet", "--positives", good_p], "differ in length")
        cases["string column"] = (["--anchors", tmp_path / "strings.parquet", "--positives", good_p], "not numeric")
        # found by fuzzing: a valid footer over corrupt data pages failed in pyarrow's reader (exit 1)
        big = np.random.default_rng(3).normal(size=(400, 16))
        pq.write_table(pa.table({"emb": pa.array([list(r) for r in big])}), tmp_path / "big.parquet")
        raw = bytearray((tmp_path / "big.parquet").read_bytes())
        raw[8:len(raw) // 2] = b"\xab" * (len(raw) // 2 - 8)
        (tmp_path / "corrupt.parquet").write_bytes(bytes(raw))
        pq.read_schema(tmp_path / "corrupt.parquet")                # the footer still reads
        cases["corrupt parquet pages"] = (["--anchors", tmp_path / "corrupt.parquet", "--positives", good_p],
                                          "cannot be read")
    except ImportError:
        pass
    try:
        from safetensors.numpy import save_file
        save_file({"x": a}, str(tmp_path / "s.safetensors"))
        cases["missing safetensors key"] = (["--anchors", tmp_path / "s.safetensors", "--key", "y", "--positives", good_p],
                                            "no key 'y'")
        good_entry = {"x": {"dtype": "F32", "shape": [8, 4], "data_offsets": [0, 128]}}
        cases["safetensors data beyond the file"] = (["--anchors", _safetensors_file(
            tmp_path / "long.safetensors", good_entry, b"\0" * 64), "--positives", good_p], "lie beyond the end")
        (tmp_path / "huge.safetensors").write_bytes((10**6).to_bytes(8, "little") + b"{}")
        cases["safetensors header length beyond the file"] = (["--anchors", tmp_path / "huge.safetensors",
                                                               "--positives", good_p], "no header of a sensible length")
        cases["safetensors shape and bytes disagree"] = (["--anchors", _safetensors_file(
            tmp_path / "short.safetensors", {"x": {"dtype": "F32", "shape": [8, 5], "data_offsets": [0, 128]}},
            b"\0" * 128), "--positives", good_p], "do not match its shape")
        cases["safetensors dtype not read"] = (["--anchors", _safetensors_file(
            tmp_path / "c64.safetensors", {"x": {"dtype": "C64", "shape": [8, 4], "data_offsets": [0, 256]}},
            b"\0" * 256), "--positives", good_p], "dtype C64, which is not read here")
        cases["safetensors entry without a shape"] = (["--anchors", _safetensors_file(
            tmp_path / "noshape.safetensors", {"x": {"dtype": "F32", "data_offsets": [0, 4]}}, b"\0" * 4),
            "--positives", good_p], "not dtype, shape, data_offsets")
        cases["safetensors dtype not a string"] = (["--anchors", _safetensors_file(
            tmp_path / "dlist.safetensors", {"x": {"dtype": ["F32"], "shape": [8, 4], "data_offsets": [0, 128]}},
            b"\0" * 128), "--positives", good_p], "not dtype, shape, data_offsets")
        cases["safetensors shape of booleans"] = (["--anchors", _safetensors_file(
            tmp_path / "bshape.safetensors", {"x": {"dtype": "F32", "shape": [True, 1], "data_offsets": [0, 4]}},
            b"\0" * 4), "--positives", good_p], "not dtype, shape, data_offsets")
        cases["safetensors with metadata only"] = (["--anchors", _safetensors_file(
            tmp_path / "meta.safetensors", {"__metadata__": {"format": "pt"}}, b""), "--positives", good_p],
            "holds no arrays")
        (tmp_path / "nojson.safetensors").write_bytes((5).to_bytes(8, "little") + b"{abc}" + b"\0" * 8)
        cases["safetensors header not JSON"] = (["--anchors", tmp_path / "nojson.safetensors", "--positives", good_p],
                                                "header is not JSON")
        bad_st = tmp_path / "bad.safetensors"
        bad_st.write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{broken}")
        cases["unreadable safetensors"] = (["--anchors", bad_st, "--positives", good_p], "not a valid .safetensors")
        # found by fuzzing: a header nested 50000 deep was a RecursionError (exit 1, "internal error")
        deep = b"[" * 50000 + b"]" * 50000
        (tmp_path / "deep.safetensors").write_bytes(len(deep).to_bytes(8, "little") + deep)
        cases["safetensors header nested too deeply"] = (["--anchors", tmp_path / "deep.safetensors", "--positives",
                                                          good_p], "nests too deeply")
    except ImportError:
        pass
    try:
        import pickle

        import torch
        # torch warns while loading these (an experimental dtype; a pickle protocol it did not
        # write), and the CLI turns warnings into errors: the message must still name the problem
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")         # torch's own notice on complex32
            torch.save(torch.complex(torch.from_numpy(a), torch.from_numpy(a)).to(torch.complex32), tmp_path / "c.pt")
        cases["complex32 tensor"] = (["--anchors", tmp_path / "c.pt", "--positives", good_p], "complex tensor")
        (tmp_path / "obj.pt").write_bytes(pickle.dumps({"x": a}, protocol=4))
        cases["pickled arrays, not tensors"] = (["--anchors", tmp_path / "obj.pt", "--positives", good_p],
                                                "objects other than tensors")
        torch.save([torch.from_numpy(a)], tmp_path / "list.pt")
        cases["a list of tensors"] = (["--anchors", tmp_path / "list.pt", "--positives", good_p], "not a tensor")
    except ImportError:
        pass
    return cases


def test_every_bad_file_exits_2_with_one_line(tmp_path, capsys):
    cases = _bad_cases(tmp_path)
    assert len(cases) >= 18
    for name, (argv, problem) in cases.items():
        code, out, err = _run(capsys, *argv, "--tau", "0.5", "--k", "2", "--samples", "0", "--no-tau-sweep")
        lines = err.strip().splitlines()
        assert code == 2, (name, code, err)
        assert len(lines) == 1 and out == "", (name, err)
        assert problem in lines[0], (name, lines[0])
        files = [str(x) for x in argv if isinstance(x, Path) and not str(x).endswith(("a.npy", "p.npy"))]
        if files and name not in ("mismatched shapes",):
            assert any(Path(f).name in lines[0] for f in files), (name, lines[0])


@pytest.mark.parametrize("argv,needle", [
    (["--tau", "0.001"], "--tau"), (["--tau", "abc"], "--tau"), (["--scale", "0"], "--scale"),
    (["--scale", "1000"], "--scale"), (["--logit-scale", "9"], "--logit-scale"), ([], "--tau"),
    (["--tau", "0.5", "--k", "0"], "--k"), (["--tau", "0.5", "--k", "2,x"], "--k"),
    (["--tau", "0.5", "--k", "1e13"], "--k"), (["--tau", "0.5", "--loss", "hinge"], "--loss"),
    (["--tau", "0.5", "--negatives-from", "both"], "--negatives-from"),
    (["--tau", "0.5", "--digits", "3"], "--digits"), (["--tau", "0.5", "--samples", "-1"], "--samples"),
    # found by fuzzing (Dec 2026): a huge --logit-scale overflowed Decimal's abs (exit 1); '' as --out wrote
    # into the working directory; duplicated k were dropped silently; '1_000', '1_0' and Unicode digits were
    # read as numbers; --key, --column and --compare-key were ignored where nothing reads them
    (["--logit-scale", "1e999999999"], "--logit-scale"), (["--logit-scale", "-1e1000000"], "--logit-scale"),
    (["--tau", "0.5", "--out", ""], "--out"), (["--tau", "0.5", "--k", "4,1,4"], "k = 4 is given twice"),
    (["--tau", "0.5", "--k", "1_000"], "--k"), (["--tau", "1_0"], "--tau"), (["--tau", "\u0660.\u0665"], "--tau"),
    (["--tau", "0.5", "--k", "\u0661\u0662"], "--k"), (["--tau", "0.5", "--key", "x"], "--key"),
    (["--tau", "0.5", "--column", "x"], "--column"), (["--tau", "0.5", "--compare-key", "x"], "--compare-key"),
    # found by fuzzing (Dec 2026, second round): one tuple has no standard error (--json failed on its inf)
    (["--tau", "0.5", "--samples", "1"], "--samples"),
])
def test_bad_options_exit_2(tmp_path, capsys, argv, needle):
    a, p = _pairs(3, 3)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "p.npy", p)
    code, out, err = _run(capsys, "--anchors", tmp_path / "a.npy", "--positives", tmp_path / "p.npy", *argv)
    assert code == 2 and len(err.strip().splitlines()) == 1 and needle in err, err


def test_a_name_per_file_for_a_file_without_names_is_refused(tmp_path, capsys):
    """--key x,positives gave 'x' to an .npy anchors file, where it was ignored (the probe, Dec 2026); one
    name for all files still applies to those that have names."""
    a, p = _pairs(3, 3)
    np.save(tmp_path / "a.npy", a)
    np.savez(tmp_path / "p.npz", positives=p)
    argv = ["--anchors", tmp_path / "a.npy", "--positives", tmp_path / "p.npz", "--tau", "0.5", "--samples", "0"]
    code, out, err = _run(capsys, *argv, "--key", "x,positives")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "--key: 'x' is given for --anchors" in err and "a.npy" in err, err
    code, out, err = _run(capsys, *argv, "--key", "positives", "--json")
    assert code == 0, err
    np.savez(tmp_path / "a.npz", anchors=a)
    code, out2, err = _run(capsys, *argv[:1], tmp_path / "a.npz", *argv[2:], "--key", "anchors,positives", "--json")
    assert code == 0 and json.loads(out2)["by_k"] == json.loads(out)["by_k"], err


def test_a_compare_key_for_compared_files_without_names_is_refused(tmp_path, capsys):
    """--compare-key x with two .npy --compare files was ignored (the probe, Dec 2026), as --key x was before."""
    a, p = _pairs(3, 3)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "p.npy", p)
    argv = ["--anchors", tmp_path / "a.npy", "--positives", tmp_path / "p.npy", "--tau", "0.5", "--k", "1",
            "--samples", "0", "--compare", tmp_path / "a.npy", tmp_path / "p.npy"]
    code, out, err = _run(capsys, *argv, "--compare-key", "x")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "--compare-key" in err and "neither --compare file" in err, err
    code, out, err = _run(capsys, *argv)
    assert code == 0, err


def test_a_named_pipe_and_a_corrupt_npz_member_exit_2_naming_the_file(tmp_path, capsys):
    """A FIFO blocked open() forever; a broken member of an .npz was called an object array."""
    import os
    import zipfile
    a, p = _pairs(3, 3)
    np.save(tmp_path / "p.npy", p)
    os.mkfifo(tmp_path / "fifo.npy")
    # a writer, so that a reader that opens the pipe gets data and fails instead of hanging the test
    import threading

    def write():
        try:
            with open(tmp_path / "fifo.npy", "wb") as fh:
                fh.write(b"\x93NUMPY" + b"x" * 64)
        except OSError:
            pass
    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    with zipfile.ZipFile(tmp_path / "broken.npz", "w") as z:
        z.writestr("a.npy", b"\x93NUMPYxxxx")
    with zipfile.ZipFile(tmp_path / "junk.npz", "w") as z:
        z.writestr("a.npy", b"junk")              # no .npy header: numpy gives the bytes (was "not numeric (dtype |S4)")
    for path, problem in ((tmp_path / "fifo.npy", "not a regular file"), (tmp_path / "broken.npz", "not a valid .npy member"),
                          (tmp_path / "junk.npz", "not a valid .npy member")):
        code, out, err = _run(capsys, "--anchors", path, "--positives", tmp_path / "p.npy", "--tau", "0.5")
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
        assert problem in err and path.name in err, err
    os.close(os.open(tmp_path / "fifo.npy", os.O_RDONLY | os.O_NONBLOCK))      # releases the writer
    writer.join(5)


def test_loader_error_is_an_input_error_naming_the_option(tmp_path):
    with pytest.raises(InputError) as info:
        load_matrix("--negatives", tmp_path)
    assert info.value.parameter == "--negatives"


def test_rows_far_outside_the_float_range_of_their_squares_are_normalised(tmp_path, capsys):
    """Rows of entries ~1e300 (squares overflow) and ~1e-310 (subnormal; squares underflow to 0) are
    directions like any other: the same numbers as the rows scaled to [-1, 1] (up to the rounding of the
    scaled input; the 1e300 rows are exact power-of-two multiples here, so the same bits)."""
    a, p = _pairs(7, 5, seed=4)
    a, p = a.astype(np.float64), p.astype(np.float64)
    outs = []
    for scale in (1.0, 2.0 ** 996, 2.0 ** -1030):
        np.save(tmp_path / "a.npy", a * scale)
        np.save(tmp_path / "p.npy", p * scale)
        code, out, err = _run(capsys, "--anchors", tmp_path / "a.npy", "--positives", tmp_path / "p.npy", "--tau",
                              "0.1", "--k", "3,40", "--samples", "0", "--no-tau-sweep", "--json")
        assert code == 0 and err == "", err
        outs.append(json.loads(out))
    unit = outs[0]
    assert outs[1]["by_k"] == unit["by_k"] and outs[1]["cross_entropy_limit"] == unit["cross_entropy_limit"]
    # 2^-1030: subnormal entries keep about 52 - 8 bits; the risk moves by at most that relative rounding
    for r, u in zip(outs[2]["by_k"], unit["by_k"]):
        assert math.isclose(r["risk"], u["risk"], rel_tol=1e-11) and math.isclose(r["gap"], u["gap"], rel_tol=1e-9)
    assert not math.isclose(outs[2]["by_k"][0]["risk"], outs[2]["by_k"][1]["risk"], rel_tol=1e-3)


def test_monte_carlo_check_is_inconclusive_when_the_sample_fails_cochrans_rule(tmp_path, capsys):
    """1000 random anchors in d = 16, each its own positive, tau = 0.01, k = 1: the one negative is the own
    row with probability 1/n (loss log 2) and otherwise all but irrelevant (e^{(s - 1)/tau} ~ e^-100),
    so R(1) = log(2)/n up to 1e-10.  4096 sampled tuples meet the own row a few times (none at all, with
    n = 2000 and another seed: the estimate then lay 2e4 standard errors from the exact gap), so the
    sample's skewness fails Cochran's rule and the check says inconclusive, whatever the z.  The model's own
    skewness of a tuple's value at k = 1, now judged first, is that of two values with probabilities 1/n and 1 - 1/n,
    -(1 - 2/n)/sqrt((1/n)(1 - 1/n)) = -31.6 (the own row's is the lower)."""
    rng = np.random.default_rng(1)
    np.save(tmp_path / "a.npy", rng.standard_normal((1000, 16)))
    code, out, err = _run(capsys, "--anchors", tmp_path / "a.npy", "--positives", tmp_path / "a.npy",
                          "--tau", "0.01", "--k", "1,16", "--no-tau-sweep", "--json")
    assert code == 0, err
    r = json.loads(out)
    assert abs(r["by_k"][0]["risk"] - math.log(2) / 1000) <= 1e-10
    one, sixteen = r["monte_carlo"]
    two_point = -(1 - 2 / 1000) / math.sqrt(1 / 1000 * (1 - 1 / 1000))
    assert one["verdict"].startswith(f"inconclusive (the model's own skewness of the per-tuple value is {two_point:.3g} "), one
    assert sixteen["verdict"] == "consistent", sixteen


def test_monte_carlo_verdict_allows_the_exact_bound_and_the_tuple_rounding():
    """A gap estimate 1.96 standard errors plus part of (the exact gap's error bound + a tuple loss's float64
    rounding) away is consistent; beyond that sum it is outside (a fake run and gap table: the verdict only)."""
    from types import SimpleNamespace
    from infonce_sym.app import embeddings as app_emb
    tau, se, bound = 0.1, 1e-15, 3e-15
    slack = bound + app_emb._loss_rounding(tau)
    for offset, want in ((0.9 * slack, "consistent"), (1.1 * slack, "outside the 95% interval")):
        est = 1.0 + 1.959963984540054 * se + offset
        gap = {"estimate": est, "stderr": se, "ci95": [est - 2e-15, est + 2e-15], "samples": 100,
               "skewness": 0.0, "samples_for_normal_interval": 0, "ci95_reliable": True}
        run = SimpleNamespace(monte_carlo=lambda *a: {"gap": gap})
        gv = SimpleNamespace(k=[4], gap=[1.0], error=[bound])
        row, = app_emb._mc_check(run, tau, gv, "infonce", 100, 0, None)
        # consistent through the bound and the rounding, beyond the standard error alone: the verdict says so
        assert row["verdict"].startswith(want), (offset, row)
        assert ("beyond the standard error alone" in row["verdict"]) == (want == "consistent"), row


def test_analyse_reports_its_stages_and_blocks():
    """progress(done, total, what): each stage as it starts, in order, and the blocks of a pass within
    it (4 blocks of 10 rows here); the numbers are those of a run without progress."""
    from infonce_sym.app import embeddings as app
    rng = np.random.default_rng(4)
    a = rng.normal(size=(40, 8))
    model = emp.make_pairs(a, a + 0.3 * rng.normal(size=a.shape))
    seen = []
    out = app.analyse(model, "0.5", [4, 64], mc_samples=256, tau_sweep=False, block_rows=10,
                      progress=lambda done, total, what: seen.append((done, total, what)))
    stages = [s for s in seen if ": block" not in s[2]]
    assert stages == [(0, 4, "tables and gaps"), (1, 4, "c1 and c2"), (2, 4, "k for the gap thresholds"),
                      (3, 4, "the Monte Carlo check")]
    assert [s for s in seen if s[2].startswith("tables and gaps: block")] == [
        (0, 4, f"tables and gaps: block {b} of 4") for b in range(1, 5)]
    quiet = app.analyse(model, "0.5", [4, 64], mc_samples=256, tau_sweep=False, block_rows=10)
    assert [r["risk"] for r in quiet["by_k"]] == [r["risk"] for r in out["by_k"]]


def test_rows_of_huge_entries_are_normalised_not_an_internal_error(tmp_path, capsys):
    """A row (1e308, 1e308, 1e308, 1e308) has a norm above the largest float64 (counting it as rescaled
    overflowed, an internal error under the CLI's warnings-as-errors); its unit row is (1/2, 1/2, 1/2, 1/2),
    and R(2) equals the brute-force sum over the n^2 pairs of negatives on the normalised rows."""
    import itertools
    rng = np.random.default_rng(7)
    a, p = rng.normal(size=(5, 4)), rng.normal(size=(5, 4))
    a[0] = 1e308
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "p.npy", p)
    code = main(["embeddings", "--anchors", str(tmp_path / "a.npy"), "--positives", str(tmp_path / "p.npy"),
                 "--tau", "0.1", "--k", "2", "--json", "--samples", "64", "--no-tau-sweep"])
    out, err = capsys.readouterr()
    assert code == 0 and "internal error" not in err, err
    data = json.loads(out)
    unit_a, unit_p = a.copy(), p / np.linalg.norm(p, axis=1, keepdims=True)
    unit_a[0] = 0.5
    unit_a[1:] /= np.linalg.norm(unit_a[1:], axis=1, keepdims=True)
    brute = np.mean([np.mean([math.log(0.5 + 0.5 * sum(math.exp(unit_a[i] @ (unit_p[j] - unit_p[i]) / 0.1)
                                                      for j in js)) for js in itertools.product(range(5), repeat=2)])
                     for i in range(5)])
    assert data["by_k"][0]["risk"] == pytest.approx(brute, rel=1e-12)
    assert data["rows_rescaled"] == 10


def test_the_temperature_ranges_in_the_help_hold_at_their_ends(capsys):
    """Each of --tau, --scale and --logit-scale is accepted at both ends of the range its --help prints,
    and refused just outside them (the printed [-4.6052, 4.6052] of --logit-scale once held 4.6052 >
    log 100, which gives tau < 0.01 and was refused)."""
    from types import SimpleNamespace

    from infonce_sym.app.embeddings_cli import read_tau
    try:
        main(["embeddings", "--help"])
    except SystemExit:
        pass
    text = " ".join(capsys.readouterr().out.split())
    for flag, attr in (("--tau", "tau"), ("--scale", "scale"), ("--logit-scale", "logit_scale")):
        # the first numeric range after the option (--logit-scale states its rule, [-log(100), -log(0.01)], first)
        m = re.search(re.escape(flag) + r" [A-Z]+ .*?\[(-?[\d.]+), (-?[\d.]+)\]", text)
        assert m, flag
        for end, step in ((m.group(1), "-0.001"), (m.group(2), "0.001")):
            tau = float(read_tau(SimpleNamespace(**{"tau": None, "scale": None, "logit_scale": None, attr: end})))
            assert 0.01 <= tau <= 100, (flag, end)
            outside = str(Decimal(end) + Decimal(step))
            with pytest.raises(InputError, match=re.escape(flag)):
                read_tau(SimpleNamespace(**{"tau": None, "scale": None, "logit_scale": None, attr: outside}))


def test_digits_names_the_k_it_does_not_take(tmp_path, capsys):
    """--digits takes k <= 10^9 (the exact route's range); a larger k was dropped from its list silently."""
    a, p = _pairs(3, 3)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "p.npy", p)
    argv = ["--anchors", tmp_path / "a.npy", "--positives", tmp_path / "p.npy", "--tau", "0.5", "--k",
            "16,1000000001", "--digits", "10", "--samples", "0", "--no-tau-sweep"]
    code, out, err = _run(capsys, *argv, "--json")
    data = json.loads(out)
    assert code == 0 and data["digits_skipped_k"] == [1000000001] and [r["k"] for r in data["digits"]] == [16]
    code, out, err = _run(capsys, *argv)
    assert code == 0 and "arb route: not at k = 1000000001" in out


def test_a_memory_limit_refusal_states_a_limit_that_suffices(tmp_path, capsys):
    """The refusal's figure is what the blocks' budget needs: it said 577 MB where 420 MB sufficed.  A
    limit below the main process's own reserve (419 MB) fits no model and is refused as such; two workers
    need theirs too, and the refusal names them."""
    a, p = _pairs(20, 8)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "p.npy", p)
    argv = ["--anchors", tmp_path / "a.npy", "--positives", tmp_path / "p.npy", "--tau", "0.5", "--k", "2",
            "--samples", "0", "--no-tau-sweep", "--workers", "2"]
    code, out, err = _run(capsys, *argv, "--memory-limit", "419MB")
    assert code == 2 and "(at least 420MB), got '419MB'" in err
    code, out, err = _run(capsys, *argv, "--memory-limit", "420MB")
    need = int(re.search(r"needs about (\d+) MB in all", err).group(1))
    assert code == 2 and len(err.strip().splitlines()) == 1 and "with --workers 2" in err
    assert _run(capsys, *argv, "--memory-limit", f"{need + 1}MB")[0] == 0
    assert _run(capsys, *argv, "--memory-limit", f"{need - 2}MB")[0] == 2


def test_digits_are_those_of_the_rows_as_given(tmp_path, capsys):
    """--digits 30 against risk on the finite model whose embedding is the rows' exact decimals (pi uniform,
    M = I: the positive of row i is row i, negatives from the positives): the same R(k) to 30 digits. The
    arb route took the inner products of the float64 unit rows, which differ from the rows' cosines by about
    1e-16, and so agreed to only 17 digits (found by cross-checking the commands, Dec 2026)."""
    from decimal import Decimal as D
    rows = np.random.default_rng(12).normal(size=(4, 3))
    rows /= np.sqrt((rows ** 2).sum(axis=1))[:, None]         # unit to 1e-16, as the spec needs (1e-12)
    np.save(tmp_path / "rows.npy", rows)
    spec = tmp_path / "rows.json"
    spec.write_text(json.dumps({"pi": ["0.25"] * 4, "M": np.eye(4).astype(int).tolist(),
                                "embedding": [[str(D(float(v))) for v in row] for row in rows]}))
    code, out, _ = _run(capsys, "--anchors", tmp_path / "rows.npy", "--positives", tmp_path / "rows.npy", "--tau",
                        "0.07", "--k", "5", "--digits", "30", "--samples", "0", "--no-tau-sweep", "--json")
    assert code == 0
    ours = json.loads(out)["digits"][0]
    assert main(["risk", "--model", "finite", "--spec", str(spec), "--tau", "0.07", "--k", "5", "--digits", "30",
                 "--json"]) == 0
    theirs = json.loads(capsys.readouterr()[0])
    theirs = theirs["by_k"][0] if "by_k" in theirs else theirs
    for key in ("risk", "cross_entropy_limit"):
        a, b = Decimal(ours[key]), Decimal(theirs["results"][key] if "results" in theirs else theirs[key])
        assert abs(a - b) <= abs(b) * Decimal("1e-29"), (key, a, b)


def test_float64_gap_minus_exact_sees_below_an_ulp(tmp_path, capsys):
    """A probe's model (Dec 2026): at k = 1 the double gap -0.5001231806283992 is 2.4e-17 from the exact one,
    below an ulp (1.1e-16); float(exact) rounded that away and printed 0.0.  Independent route: the 40-digit
    exact gap (the arb route's own string) against the double, in mpmath."""
    r = np.random.default_rng(21)
    np.save(tmp_path / "a.npy", r.normal(size=(4, 3)))
    np.save(tmp_path / "p.npy", r.normal(size=(4, 3)))
    code, out, err = _run(capsys, "--anchors", tmp_path / "a.npy", "--positives", tmp_path / "p.npy", "--tau", "1",
                          "--k", "1,2,3", "--digits", "40", "--samples", "0", "--no-tau-sweep", "--json")
    assert code == 0, err
    got = json.loads(out)
    by_k = {row["k"]: row for row in got["by_k"]}
    for row in got["digits"]:
        with mpmath.workdps(60):
            want = mpmath.mpf(float(by_k[row["k"]]["gap"])) - mpmath.mpf(row["gap"])
        assert 0 < abs(want) < 1.2e-16
        assert abs(row["float64_gap_minus_exact"] - float(want)) <= 1e-38 + 1e-12 * abs(float(want))


@pytest.mark.parametrize("launch", [["-c", "import sys; from infonce_sym.app.cli import main; sys.exit(main())"],
                                    ["-m", "infonce_sym.app.cli"]], ids=["entry point", "python -m"])
def test_max_seconds_stops_a_long_run(tmp_path, capsys, launch):
    """embeddings had no --max-seconds: --digits 50 at n x pool = 141 x 141, tau = 0.01 and seven k ran past two
    minutes with nothing printed (a probe, Dec 2026); now the run stops at the limit, exit 1, one line."""
    r = np.random.default_rng(1)
    np.save(tmp_path / "a.npy", r.normal(size=(141, 16)))
    np.save(tmp_path / "p.npy", r.normal(size=(141, 16)))
    # in a process of its own: the stop raises from a signal handler wherever the run is, and an in-process run
    # could leave a numba thread pool mid-launch for the next test in this worker
    import subprocess
    import sys
    # under python -m, cli.py ran as __main__ and its MaxSecondsReached was not the one embeddings_cli raised: a
    # traceback (a probe, Dec 2026)
    done = subprocess.run([sys.executable, *launch,
                           "embeddings", "--anchors", str(tmp_path / "a.npy"), "--positives", str(tmp_path / "p.npy"),
                           "--tau", "0.01", "--k", "1,2,3,5,8,13,1e9", "--digits", "50", "--no-tau-sweep", "--samples", "0",
                           "--max-seconds", "1"], capture_output=True, text=True, timeout=300)
    code, out, err = done.returncode, done.stdout, done.stderr
    assert code == 1 and out == "" and err.strip().splitlines() == [err.strip()], err
    assert "stopped at --max-seconds 1" in err


def test_compare_names_the_k_it_does_not_sample_and_its_key_option(tmp_path, capsys):
    """--compare samples tuples at k <= 4096 only: a larger k was dropped without a word, and a compare file with
    several arrays was sent to --key instead of --compare-key (a probe, Dec 2026)."""
    a, p = _pairs(6, 3, seed=2)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "p.npy", p)
    np.savez(tmp_path / "v2.npz", a=a + 0.01, p=p - 0.01)
    v2 = tmp_path / "v2.npz"
    code, out, err = _run(capsys, "--anchors", tmp_path / "a.npy", "--positives", tmp_path / "p.npy", "--compare", v2, v2,
                          "--compare-key", "a,p", "--tau", "0.5", "--k", "16,10000", "--samples", "0",
                          "--no-tau-sweep", "--json")
    assert code == 0, err
    compare = json.loads(out)["compare"]
    assert [row["k"] for row in compare["by_k"]] == [16] and compare["skipped_k"] == [10000]
    code, out, err = _run(capsys, "--anchors", tmp_path / "a.npy", "--positives", tmp_path / "p.npy", "--compare", v2, v2,
                          "--compare-key", "a,p", "--tau", "0.5", "--k", "10000", "--samples", "0", "--no-tau-sweep")
    assert code == 0 and "Prop. 4: not at k = 10000" in out
    code, out, err = _run(capsys, "--anchors", tmp_path / "a.npy", "--positives", tmp_path / "p.npy", "--compare", v2, v2,
                          "--tau", "0.5", "--k", "1", "--samples", "0", "--no-tau-sweep")
    assert code == 2 and "choose one with --compare-key" in err and len(err.strip().splitlines()) == 1


def test_a_separate_pool_has_no_own_row(tmp_path, capsys):
    a, p = _pairs(4, 3, seed=3)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "p.npy", p)
    np.save(tmp_path / "n.npy", _pairs(5, 3, seed=4)[0])
    code, out, err = _run(capsys, "--anchors", tmp_path / "a.npy", "--positives", tmp_path / "p.npy",
                          "--negatives", tmp_path / "n.npy", "--tau", "0.5", "--k", "1", "--samples", "0",
                          "--no-tau-sweep")
    assert code == 0, err
    assert "5 rows, a separate file: no anchor's own row" in out and "own row included" not in out


def test_a_rerun_into_the_same_out_leaves_no_plot_of_the_earlier_run(tmp_path, capsys):
    """--no-tau-sweep into an --out that an earlier run filled left its tau_sweep.png beside the new report (a probe,
    Dec 2026): the new report would sit beside a plot of other settings."""
    a, p = _pairs(4, 3, seed=1)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "p.npy", p)
    args = ("--anchors", tmp_path / "a.npy", "--positives", tmp_path / "p.npy", "--k", "1,2", "--samples", "0",
            "--out", tmp_path / "rep")
    code, _, err = _run(capsys, *args, "--tau", "0.5")
    assert code == 0 and (tmp_path / "rep" / "tau_sweep.png").is_file(), err
    code, out, err = _run(capsys, *args, "--tau", "0.25", "--no-tau-sweep", "--json")
    assert code == 0, err
    assert not (tmp_path / "rep" / "tau_sweep.png").exists()
    assert sorted(Path(f).name for f in json.loads(out)["written"]) == ["gap_vs_k.png", "report.md"]


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")
def test_pseudo_files_as_input_or_output_exit_2_naming_them(tmp_path, capsys):
    """A report.md linked to /proc/self/status ended, after the work, in "internal error: [Errno 22] Invalid argument";
    that file as --anchors was "empty"; --out /proc/1 "does not exist" (a probe, Dec 2026)."""
    import os
    a, p = _pairs(3, 3)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "p.npy", p)
    (tmp_path / "rep").mkdir()
    os.symlink("/proc/self/status", tmp_path / "rep" / "report.md")
    os.symlink("/proc/self/status", tmp_path / "status.npy")
    base = ("--positives", tmp_path / "p.npy", "--tau", "0.5", "--k", "1,2", "--samples", "0", "--no-tau-sweep")
    for argv, needles in (((*base, "--anchors", tmp_path / "a.npy", "--out", tmp_path / "rep"), ("report.md", "Invalid argument")),
                          ((*base, "--anchors", tmp_path / "status.npy"), ("status.npy", "size 0", "pseudo-file")),
                          ((*base, "--anchors", tmp_path / "a.npy", "--out", "/proc/1"), ("--out", "cannot create a file in"))):
        code, out, err = _run(capsys, *argv)
        assert code == 2 and len(err.strip().splitlines()) == 1 and "internal error" not in err, err
        assert all(needle in err for needle in needles), err


def test_one_anchor_gets_one_verdict_whatever_k(tmp_path, capsys):
    """n = 1: every tuple gives the exact loss at every k; k = 1 was "consistent (zero spread)" and k = 16
    "inconclusive" (the values agree to rounding there; a probe, Dec 2026)."""
    a, p = _pairs(1, 3)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "p.npy", p)
    code, out, err = _run(capsys, "--anchors", tmp_path / "a.npy", "--positives", tmp_path / "p.npy", "--tau", "0.05",
                          "--k", "1,16", "--samples", "2000", "--no-tau-sweep", "--json")
    assert code == 0, err
    rows = json.loads(out)["monte_carlo"]
    verdicts = [row["verdict"] for row in rows]
    assert len(verdicts) == 2 and all(v.startswith("consistent") for v in verdicts), verdicts
    # the text prints no z where the standard error is rounding (a z of -192 stood beside "consistent")
    code, out, err = _run(capsys, "--anchors", tmp_path / "a.npy", "--positives", tmp_path / "p.npy", "--tau", "0.05",
                          "--k", "1,16", "--samples", "2000", "--no-tau-sweep")
    lines = [x for x in out.splitlines() if x.startswith("Monte Carlo k = ")]
    assert code == 0 and len(lines) == 2, out
    for line, row in zip(lines, rows):
        shown_z = line.split("z = ")[1].split(",")[0]
        assert (shown_z == "—") == (row["z"] is None or "no spread beyond rounding" in row["verdict"]), (line, row)
    assert any("no spread beyond rounding" in row["verdict"] and row["z"] is not None for row in rows), rows


def test_a_parquet_file_with_two_columns_says_columns():
    from infonce_sym.app.embeddings_io import _pick_key
    with pytest.raises(InputError, match=r"holds 2 columns \(emb, emb2\); choose one with --column"):
        _pick_key("--anchors", Path("x.parquet"), ["emb", "emb2"], None, what="column")


def test_a_k_for_gap_beyond_the_search_says_where_the_search_ended(tmp_path, capsys):
    """Anchors their own positives, own rows left out, tau = 0.01: the gap is still about -11 at k = 2^39, where the
    doubling search ends, so no k is found.  The JSON's null comes with the limit (k_for_gap_search_limit = 2^39; it
    gave a bare null, which the text printed as "> 2^39": an embeddings probe, Dec 2026), and the exact gap at that k
    is indeed above every threshold."""
    a = np.random.default_rng(1).normal(size=(4, 3))
    np.save(tmp_path / "a.npy", a)
    args = ("--anchors", tmp_path / "a.npy", "--positives", tmp_path / "a.npy", "--exclude-own", "--tau", "0.01",
            "--k", str(2 ** 39), "--samples", "0", "--no-tau-sweep")
    code, out, err = _run(capsys, *args, "--json")
    assert code == 0, err
    r = json.loads(out)
    assert r["k_for_gap"] == {"0.1": None, "0.01": None, "0.001": None}
    assert r["k_for_gap_search_limit"] == 2 ** 39
    (row,) = r["by_k"]
    assert row["k"] == 2 ** 39 and abs(row["gap"]) - row["gap_error_bound"] > 0.1
    code, out, err = _run(capsys, *args)
    assert code == 0 and "0.1: > 2^39, 0.01: > 2^39, 0.001: > 2^39" in out


@pytest.mark.parametrize("loss, exclude_own", [("infonce", False), ("dcl", False), ("infonce", True)])
def test_the_k1_skewness_of_the_model_against_every_tuple(loss, exclude_own):
    """emp.k1_skewness (per-anchor central moments, combined by the law of total cumulants) against the skewness of the
    paired value CE_i - loss over every (anchor, pool row) tuple at k = 1, written from the similarities."""
    a, p = _pairs(7, 4, seed=8)
    tau = 0.2
    model = emp.make_pairs(a, p, exclude_own=exclude_own)
    values = []
    for i in range(model.n):
        pool = np.delete(model.pool, i, axis=0) if exclude_own else model.pool
        pos, neg = model.anchors[i] @ model.positives[i] / tau, pool @ model.anchors[i] / tau
        ce = -pos + math.log(np.mean(np.exp(neg)))
        loss_values = np.logaddexp(pos, neg) - pos if loss == "infonce" else neg - pos
        values += list(ce - loss_values)
    v = np.array(values)
    d = v - v.mean()
    want = np.mean(d ** 3) / np.mean(d ** 2) ** 1.5
    got = emp.k1_skewness(emp.anchor_tables(model, tau).moments, loss)
    assert abs(got - want) <= 1e-9 * abs(want), (got, want)


def test_a_rare_pool_row_that_carries_the_mean_makes_the_k1_check_inconclusive(tmp_path, capsys):
    """Each anchor's own row, 1/300 of its pool at k = 1 and scale 20, carries nearly all of R(1): 100 tuples rarely draw
    one, their sample skewness is small, and the check said "outside the 95% interval" (z = 1182) though the exact
    value is right (an embeddings probe, Dec 2026).  The model's own skewness (-17) asks Cochran's rule for more
    than 7000 tuples: inconclusive, naming it."""
    rng = np.random.default_rng(0)
    a = rng.normal(size=(300, 256))
    p = a + 0.7 * rng.normal(size=(300, 256))
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "p.npy", p)
    code, out, err = _run(capsys, "--anchors", tmp_path / "a.npy", "--positives", tmp_path / "p.npy", "--scale", "20",
                          "--k", "1", "--no-tau-sweep", "--samples", "100", "--seed", "0", "--json")
    assert code == 0, err
    (row,) = json.loads(out)["monte_carlo"]
    assert abs(row["z"]) > 100 and row["ci95_reliable"] is False
    assert row["verdict"].startswith("inconclusive (the model's own skewness of the per-tuple value is -17.2"), row


@pytest.mark.parametrize("loss, exclude_own", [("infonce", False), ("dcl", True)])
def test_compare_at_k1_takes_every_tuple(tmp_path, capsys, loss, exclude_own):
    """At k = 1 on a small model --compare goes over every (anchor, pool row) tuple, not 2048 sampled ones (on the
    fixture the sample's worst ratio was 14x below the model's: an embeddings probe, Dec 2026): the changes, Da, Dp
    and PM against each tuple's losses written from the unit rows, and the worst ratio the largest over them."""
    from infonce_sym.proofs.statements import continuity_bound
    a, p = _pairs(6, 3, seed=9)
    a2, p2 = a + 0.1 * np.random.default_rng(10).normal(size=a.shape), p + 0.05
    for name, arr in (("a", a), ("p", p), ("a2", a2), ("p2", p2)):
        np.save(tmp_path / f"{name}.npy", arr)
    tau = 0.25
    unit = lambda m: m.astype(np.float64) / np.linalg.norm(m.astype(np.float64), axis=1, keepdims=True)   # noqa: E731
    A, P, A2, P2 = map(unit, (a, p, a2, p2))
    want = []
    for i in range(6):
        for j in range(6):
            if exclude_own and j == i:
                continue
            losses = []
            for x, y in ((A, P), (A2, P2)):
                pos, neg = x[i] @ y[i] / tau, x[i] @ y[j] / tau
                losses.append(math.log1p(math.exp(neg - pos)) if loss == "infonce" else neg - pos)
            want.append((abs(losses[0] - losses[1]), np.linalg.norm(A[i] - A2[i]), np.linalg.norm(P[i] - P2[i]),
                         np.linalg.norm(P[j] - P2[j])))
    want = np.array(want)
    cs = emp.continuity_every_k1_tuple(emp.make_pairs(a, p, exclude_own=exclude_own),
                                       emp.make_pairs(a2, p2, exclude_own=exclude_own), tau, loss)
    got = np.stack([cs["change"], cs["Da"], cs["Dp"], cs["PM"]], axis=1)
    assert np.allclose(got, want, rtol=1e-12, atol=1e-14)
    args = ["--anchors", tmp_path / "a.npy", "--positives", tmp_path / "p.npy", "--compare", tmp_path / "a2.npy",
            tmp_path / "p2.npy", "--tau", "0.25", "--k", "1,4", "--loss", loss, "--samples", "0", "--no-tau-sweep", "--json"]
    code, out, err = _run(capsys, *args + (["--exclude-own"] if exclude_own else []))
    assert code == 0, err
    one, four = json.loads(out)["compare"]["by_k"]
    assert one["every_tuple"] is True and one["samples"] == len(want) and four["every_tuple"] is False
    assert one["max_change"] == pytest.approx(want[:, 0].max(), rel=1e-12)
    beta = max(1.0, 2 / tau)
    for which in ("prop4", "prop4_sharp"):
        bound = np.asarray(continuity_bound(which, tau, want[:, 1], want[:, 2], want[:, 3], beta), float)
        assert one[which]["worst_ratio"] == pytest.approx((want[:, 0] / bound).max(), rel=1e-9)


def test_expansion_constants_show_only_the_digits_their_rounding_bounds_leave(tmp_path, capsys):
    """Rows equal up to 1e-6 at tau = 3: x - 1 is about 1e-7, and the float64 similarities' rounding is about 1e-4 of
    c1~ and c2~ (the exact cosines: tests/quantities/test_empirical.py) and all of the DCL gap at k = 1 (printed as
    -5.73615e-18 for an exact 5.9e-27).  The JSON carries each constant's bound; the text and the report print no digit
    it does not leave, say which constants are known only that far, and show a value within its bound of 0 as 0 ± 2b.
    Spread-out rows (the committed fixture's scale of noise) print c1 and c2 to 6 digits with no such remark."""
    rng = np.random.default_rng(0)
    base = rng.normal(size=16)
    np.save(tmp_path / "a.npy", base + 1e-6 * rng.normal(size=(30, 16)))
    np.save(tmp_path / "p.npy", base + 1e-6 * rng.normal(size=(30, 16)))
    args = ("--anchors", tmp_path / "a.npy", "--positives", tmp_path / "p.npy", "--tau", "3", "--k", "1,16",
            "--samples", "0", "--no-tau-sweep")
    code, out, err = _run(capsys, *args, "--json")
    assert code == 0, err
    r = json.loads(out)
    for key in ("c1", "c2", "c1_dcl", "c2_dcl"):
        assert 0 < r[f"{key}_error_bound"] < 1e-12, key
    assert r["c1_dcl_error_bound"] > 1e-3 * r["c1_dcl"] > 0
    assert abs(r["by_k"][0]["dcl_gap"]) <= r["by_k"][0]["dcl_gap_error_bound"]
    code, out, err = _run(capsys, *args, "--out", tmp_path / "rep")
    assert code == 0, err
    report = (tmp_path / "rep" / "report.md").read_text()
    for text in (out, report):
        line = next(x for x in text.splitlines() if "c1 = " in x)
        assert "c1~, c2~ known only to the digits shown" in line and "c1 = -1, c2 = 0.5" in line, line
        c1_dcl = line.split("(DCL: ")[1].split(",")[0]
        assert c1_dcl == f"{r['c1_dcl']:.1g}", line           # one digit: the JSON value rounded
        assert "0 ± " in text and "e-18" not in text
    a, p = _pairs(40, 8, seed=2)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "p.npy", p)
    code, out, err = _run(capsys, *args)
    line = next(x for x in out.splitlines() if "c1 = " in x)
    assert code == 0 and "known only" not in line and "0 ± " not in out, out
    r = json.loads(_run(capsys, *args, "--json")[1])
    assert f"c1 = {r['c1']:.6g}, c2 = {r['c2']:.6g} (DCL: {r['c1_dcl']:.6g}, {r['c2_dcl']:.6g})" in line, line
