"""The command line's contract (issue 8): help works, numbers are read as typed, every bad input is
refused before any work with exit 2 and one line naming the option and the value as typed, no
traceback, no warning; closed pipes and Ctrl-C end quietly."""
import io
import math
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import mpmath
import numpy as np
import pytest

from infonce_sym.app.cli import build_parser, main

CLI = [sys.executable, "-c", "import sys; from infonce_sym.app.cli import main; sys.exit(main())"]


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    assert "internal error" not in err and "Traceback" not in err, err
    return code, out, err


def refused(argv, capsys):
    """Exit 2 and exactly one line on stderr, nothing on stdout."""
    code, out, err = run(argv, capsys)
    lines = err.strip().splitlines()
    assert code == 2, (argv, code, out, err)
    assert len(lines) == 1 and out == "", (argv, err)
    return lines[0]


# ------------------------------------------------------------------ help

def _subcommands():
    p = build_parser()
    action = next(a for a in p._actions if a.__class__.__name__ == "_SubParsersAction")
    return action.choices


def test_help_exits_0_for_the_program_and_every_command(capsys):
    for argv in (["--help"], ["-h"]):
        code, out, _ = run(argv, capsys)
        assert code == 0 and "usage: infonce-sym" in out and "95% intervals" in out
    for name in _subcommands():
        code, out, _ = run([name, "--help"], capsys)
        assert code == 0 and f"usage: infonce-sym {name}" in out


def test_every_option_of_our_commands_states_its_default_and_range():
    for name in ("verify", "risk", "mc", "expand", "rademacher", "theorem1", "derivations", "bench"):
        for action in _subcommands()[name]._actions:
            if not action.option_strings or action.dest == "help":
                continue
            assert action.help, (name, action.option_strings)
            if action.nargs is None:                  # takes a value: default and range stated
                assert any(w in action.help for w in ("default", "required")), (name, action.help)


# ------------------------------------------------------------------ numbers read as typed

def test_kappa_is_read_as_the_decimal_typed(capsys):
    """E|dM/dpi|^2 on S^2 is Z_3(2k)/Z_3(k)^2 = (sinh 2k/(2k)) / (sinh k/k)^2 = k coth k; at
    kappa = 4.1 (not the double nearest 4.1) to 30 digits."""
    code, out, _ = run(["risk", "--kappa", "4.1", "--tau", "0.5", "--k", "10", "--digits", "30", "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    assert data["inputs"]["kappa"] == "4.1"
    with mpmath.workdps(50):
        k = mpmath.mpf(41) / 10
        exact = k / mpmath.tanh(k)
        value = mpmath.mpf(data["results"]["density_ratio_second_moment"])
        assert abs(value - exact) < mpmath.mpf(10) ** -29 * exact
        # the double nearest 4.1 differs at the 17th digit: the test can tell the two apart
        kf = mpmath.mpf(4.1)
        assert abs(kf / mpmath.tanh(kf) - exact) > mpmath.mpf(10) ** -20


def test_example_a2_is_exact(capsys):
    """tau = 1/2: 1/eps = ceil(e^2 - 1) = 7 points; mixing 1/2: M = 8/14 on the diagonal, 1/14 off it,
    so E|dM/dpi|^2 = 7 (64 + 6)/196 = 5/2 exactly."""
    code, out, _ = run(["risk", "--model", "example-a2", "--tau", "0.5", "--k", "10", "--digits", "25",
                        "--json"], capsys)
    assert code == 0
    assert json.loads(out)["results"]["density_ratio_second_moment"] == "2.5" + "0" * 23


def test_integers_are_read_exactly(capsys):
    """'1e3' is the integer 1000; a huge seed is not rounded through a float."""
    a = json.loads(run(["mc", "--tau", "0.5", "--k", "1e1", "--samples", "1e2", "--seed", "7", "--json"], capsys)[1])
    b = json.loads(run(["mc", "--tau", "0.5", "--k", "10", "--samples", "100", "--seed", "7", "--json"], capsys)[1])
    assert a["results"] == b["results"] and a["inputs"]["k"] == "1e1"
    seed = 2**100
    assert float(seed) == float(seed + 1)                   # a float could not tell them apart
    c = json.loads(run(["mc", "--tau", "0.5", "--k", "4", "--samples", "50", "--seed", str(seed), "--json"], capsys)[1])
    d = json.loads(run(["mc", "--tau", "0.5", "--k", "4", "--samples", "50", "--seed", str(seed + 1), "--json"], capsys)[1])
    assert c["results"]["risk"]["estimate"] != d["results"]["risk"]["estimate"]


def test_spec_entries_as_numbers_or_decimal_strings_are_the_same_model(tmp_path, capsys):
    numbers = {"pi": [0.25, 0.75], "M": [[0.5, 0.5], [0.1, 0.9]], "embedding": [[1, 0], [0.6, 0.8]]}
    strings = {"pi": ["0.25", "0.75"], "M": [["0.5", "0.5"], ["0.1", "0.9"]],
               "embedding": [["1", "0"], ["0.6", "0.8"]]}
    outs = []
    for name, spec in (("n.json", numbers), ("s.json", strings)):
        (tmp_path / name).write_text(json.dumps(spec))
        code, out, _ = run(["risk", "--model", "finite", "--spec", str(tmp_path / name), "--tau", "0.5",
                            "--k", "3", "--digits", "20", "--json"], capsys)
        assert code == 0
        outs.append(json.loads(out)["results"])
    assert outs[0] == outs[1]
    # exact: E|dM/dpi|^2 = sum_z pi(z) sum_z' M(z,z')^2/pi(z')
    exact = mpmath.mpf(0)
    with mpmath.workdps(40):
        pi = [mpmath.mpf(1) / 4, mpmath.mpf(3) / 4]
        M = [[mpmath.mpf(1) / 2, mpmath.mpf(1) / 2], [mpmath.mpf(1) / 10, mpmath.mpf(9) / 10]]
        exact = sum(pi[i] * sum(M[i][j] ** 2 / pi[j] for j in range(2)) for i in range(2))
        assert abs(mpmath.mpf(outs[0]["density_ratio_second_moment"]) - exact) < mpmath.mpf(10) ** -19


# ------------------------------------------------------------------ bad input: one class per test row

BAD = [
    # (argv, option named, value as typed)
    (["risk", "--tau", "0", "--k", "3"], "--tau", "0"),
    (["risk", "--tau", "-1", "--k", "3"], "--tau", "-1"),
    (["risk", "--tau", "-inf", "--k", "3"], "--tau", "-inf"),
    (["risk", "--tau", "nan", "--k", "3"], "--tau", "nan"),
    (["risk", "--tau", "1e-300", "--k", "3"], "--tau", "1e-300"),
    (["risk", "--tau", "0.5x", "--k", "3"], "--tau", "0.5x"),
    (["risk", "--tau", "1e99999999999", "--k", "3"], "--tau", "1e99999999999"),
    (["risk", "--tau", "0.5", "--k", "0"], "--k", "0"),
    (["risk", "--tau", "0.5", "--k", "1.5"], "--k", "1.5"),
    (["risk", "--tau", "0.5", "--k", "1e-3"], "--k", "1e-3"),
    (["risk", "--tau", "0.5", "--k", "x"], "--k", "x"),
    (["risk", "--tau", "0.5", "--k", "1e10"], "--k", "1e10"),
    (["risk", "--tau", "0.5", "--k", "4,1,4"], "--k", "k = 4 is given twice"),
    (["risk", "--tau", "0.5", "--k", "1,,2"], "--k", "1,,2"),
    (["risk", "--tau", "0.5", "--k", "2,"], "--k", "2,"),
    (["risk", "--tau", "0.5", "--k", "3,0"], "--k", "0"),
    (["risk", "--tau", "0.5", "--k", "3,1e10"], "--k", "1e10"),
    (["risk", "--tau", "0.5", "--k", "3", "--dim", "0"], "--dim", "0"),
    (["risk", "--tau", "0.5", "--k", "3", "--dim", "1"], "--dim", "1"),
    (["risk", "--tau", "0.5", "--k", "3", "--kappa", "-2"], "--kappa", "-2"),
    (["risk", "--tau", "0.5", "--k", "3", "--kappa", "10001"], "--kappa", "10001"),
    (["expand", "--tau", "0.5", "--kappa", "10000.01"], "--kappa", "10000.01"),
    (["risk", "--tau", "0.5", "--k", "3", "--digits", "0"], "--digits", "0"),
    (["risk", "--tau", "0.5", "--k", "3", "--digits", "4"], "--digits", "4"),
    (["risk", "--tau", "0.5", "--k", "3", "--digits", "101"], "--digits", "101"),
    (["risk", "--tau", "0.5", "--k", "3", "--digits", "1000"], "--digits", "1000"),
    (["risk", "--tau", "0.5", "--k", "3", "--loss", "nce"], "--loss", "nce"),
    (["risk", "--tau", "0.5", "--k", "3", "--model", "torus"], "--model", "torus"),
    (["risk", "--tau", "0.5", "--k", "3", "--model", "finite"], "--spec", "--model finite"),
    (["risk", "--tau", "0.5", "--k", "3", "--spec", "x.json"], "--spec", "x.json"),
    (["risk", "--tau", "0.5", "--k", "3", "--model", "finite", "--kappa", "2", "--spec", "README.md"],
     "--kappa", "finite"),
    (["risk", "--tau", "2", "--k", "3", "--model", "example-a2"], "--tau", "2"),
    (["risk", "--tau", "0.1", "--k", "3", "--model", "example-a2"], "--tau", "0.1"),
    (["risk", "--tau", "0.5", "--k", "3", "--model", "example-a2", "--delta", "1"], "--delta", "1"),
    (["risk", "--tau", "0.5", "--k", "3", "--model", "example-a2", "--mixing", "-0.1"], "--mixing", "-0.1"),
    (["risk", "--k", "3"], "--tau", "required"),
    (["risk", "--tau", "0.5", "--k", "3", "--bogus", "1"], "arguments", "--bogus"),
    (["nosuch"], "arguments", "nosuch"),
    (["mc", "--tau", "0.5", "--k", "3", "--samples", "1", "--seed", "1"], "--samples", "1"),
    (["mc", "--tau", "0.5", "--k", "3", "--samples", "1e15", "--seed", "1"], "--samples", "1e15"),
    (["mc", "--tau", "0.5", "--k", "1e10", "--samples", "10", "--seed", "1"], "--k", "1e10"),
    (["mc", "--tau", "0.5", "--k", "3", "--samples", "10", "--seed", "-1"], "--seed", "-1"),
    (["mc", "--tau", "0.5", "--k", "3", "--samples", "10", "--seed", "1.5"], "--seed", "1.5"),
    (["mc", "--tau", "0.5", "--k", "3", "--samples", "10", "--seed", str(2**128)], "--seed", str(2**128)),
    (["mc", "--tau", "0.5", "--k", "1e9", "--samples", "1e12", "--seed", "1"], "--samples", "1e12"),
    (["mc", "--tau", "0.5", "--k", "3", "--samples", "10", "--seed", "1", "--kappa", "2e6"], "--kappa", "2e6"),
    (["mc", "--tau", "0.5", "--k", "3", "--samples", "10", "--seed", "1", "--max-seconds", "0"],
     "--max-seconds", "0"),
    (["expand", "--tau", "0"], "--tau", "0"),
    (["expand", "--tau", "0.5", "--digits", "0"], "--digits", "0"),
    (["rademacher", "--n", "1e9"], "--n", "1e9"),
    (["rademacher", "--k", "1e9"], "--k", "1e9"),
    (["rademacher", "--samples", "1"], "--samples", "1"),
    # d_Theta = 9: the level-0 grid (2851 cubes, each at n (k + 2) entries) alone would take ~1000 s
    (["rademacher", "--m", "3", "--dim-in", "3", "--n", "1000", "--k", "1000"], "--n", "1000"),
    (["rademacher", "--radius", "0"], "--radius", "0"),
    (["rademacher", "--data", "cauchy"], "--data", "cauchy"),
    (["rademacher", "--n", "1e6", "--k", "1e5", "--samples", "1e6"], "--samples", "1e6"),
    # d_Theta = 3 at tau = 0.01: 2 sign vectors at n = 20 took 399 s, so 100 at n = 200 are refused
    (["rademacher", "--dim-in", "3", "--tau", "0.01", "--n", "200", "--k", "64", "--samples", "100"],
     "--tau", "0.01"),
    (["theorem1", "--repeats", "1e9"], "--repeats", "1e9"),
    (["theorem1", "--repeats", "1e4", "--n", "1e6"], "--repeats", "1e4"),
    (["theorem1", "--delta", "1"], "--delta", "1"),
    (["theorem1", "--delta", "0"], "--delta", "0"),
    # found by fuzzing (Dec 2026): inside the range as decimals, not as the doubles these commands compute
    # with; the refusal named 'radius' (not --radius) and showed 0, not the value typed
    (["rademacher", "--radius", "1e-400"], "--radius", "1e-400"),
    (["theorem1", "--delta", "0.999999999999999999999"], "--delta", "0.999999999999999999999"),
    (["verify", "--workers", "x"], "--workers", "x"),
    (["verify", "--workers", "0"], "--workers", "0"),
    (["verify", "--out", ""], "--out", "''"),
    (["verify", "--out", "   "], "--out", "'   '"),
    (["verify", "--out", "/proc/no/such/dir"], "--out", "/proc/no/such/dir"),
    (["verify", "--out", str(Path(__file__))], "--out", str(Path(__file__))),
    (["risk", "--tau", "\x1b[31m", "--k", "3"], "--tau", "\\x1b[31m"),
    (["risk", "--tau", "9" * 500, "--k", "3"], "--tau", "99999"),
    # found by the probe (Dec 2026): --smallest searched from the paper's constants, silently ignoring these
    (["prove", "P4", "--smallest", "--constants", "0,0,0"], "--constants", "--smallest"),
    # found by the probe (Dec 2026): an option given twice ran with the last value, silently
    (["risk", "--tau", "0.5", "--k", "1", "--dim", "3", "--dim", "4"], "--dim", "given twice (3, then 4)"),
    (["risk", "--tau", "0.5", "--k", "1", "--model", "sphere", "--model", "finite"], "--model", "given twice"),
    (["mc", "--tau", "0.5", "--tau", "0.6", "--k", "1", "--samples", "2", "--seed", "0"], "--tau", "0.5, then 0.6"),
    (["embeddings", "--anchors", "A.npy", "--anchors", "P.npy", "--positives", "P.npy", "--tau", "1"], "--anchors",
     "given twice (A.npy, then P.npy)"),
    (["embeddings", "--anchors", "A.npy", "--positives", "P.npy", "--tau", "1", "--compare", "a", "b", "--compare",
      "c", "d"], "--compare", "(a b, then c d)"),
    (["prove", "P4", "--constants", "4,1,2.9", "--constants", "4,1,3"], "--constants", "given twice"),
    # options of a mutually exclusive group (argparse adds them through the group, not the parser)
    (["embeddings", "--anchors", "A.npy", "--positives", "P.npy", "--tau", "0.5", "--tau", "0.6"], "--tau",
     "given twice (0.5, then 0.6)"),
    (["embeddings", "--anchors", "A.npy", "--positives", "P.npy", "--tau", "1", "--negatives-from", "anchors",
      "--negatives-from", "positives"], "--negatives-from", "given twice"),
]


@pytest.mark.parametrize("argv,option,typed", BAD, ids=[" ".join(a)[:60] for a, _, _ in BAD])
def test_bad_input_is_one_line_naming_option_and_value(argv, option, typed, capsys):
    line = refused(argv, capsys)
    assert line.startswith("infonce-sym: error: ")
    assert option in line and typed in line, line
    assert line.isprintable()


def test_refusals_state_the_range(capsys):
    assert "[0, 2^128 - 1], got -1" in refused(["mc", "--tau", "1", "--k", "1", "--samples", "2",
                                                 "--seed", "-1"], capsys)
    assert "[2, 4096], got 0" in refused(["risk", "--tau", "1", "--k", "1", "--dim", "0"], capsys)
    assert "[2, 100000], got 1" in refused(["mc", "--tau", "1", "--k", "1", "--samples", "2", "--seed", "0",
                                            "--dim", "1"], capsys)
    assert "[5, 100], got 0" in refused(["risk", "--tau", "1", "--k", "1", "--digits", "0"], capsys)
    assert "[0.01, 100]" in refused(["risk", "--tau", "1e-300", "--k", "1"], capsys)
    assert "estimated cost" in refused(["mc", "--tau", "0.5", "--k", "1e9", "--samples", "1e12",
                                        "--seed", "1"], capsys)


def test_a_larger_limit_lets_a_costly_request_through_validation(capsys, monkeypatch):
    """The refusal is the limit's, not the range's: raising --max-seconds passes validation."""
    import infonce_sym.app.cli as cli
    monkeypatch.setattr(cli, "cmd_mc", lambda args: 0)
    argv = ["mc", "--tau", "0.5", "--k", "1e6", "--samples", "1e6", "--seed", "1"]
    assert "estimated cost" in refused(argv, capsys)
    monkeypatch.setattr(cli, "build_parser", cli.build_parser)
    code, _, _ = run(argv + ["--max-seconds", "1e9"], capsys)
    assert code == 0


def _random_spec(path, n, seed):
    """A finite model file: n states on S^2, pi uniform, M random rows (numpy seeded); (path, spec)."""
    rng = np.random.default_rng(seed)
    M = rng.random((n, n))
    E = rng.normal(size=(n, 3))
    spec = {"pi": [1 / n] * n, "M": (M / M.sum(axis=1, keepdims=True)).tolist(),
            "embedding": (E / np.linalg.norm(E, axis=1, keepdims=True)).tolist()}
    path.write_text(json.dumps(spec))
    return path, spec


def test_expand_on_a_large_finite_model_is_refused_beyond_max_seconds(tmp_path, capsys):
    """expand's moments are N x N sums in mpmath (N = 2000 took ~5 min and ran without a word): the estimate
    0.14 ms x N^2 + 1 s (two passes) is refused beyond --max-seconds, and a larger limit runs the same request."""
    path, _ = _random_spec(tmp_path / "sixty.json", 60, seed=0)
    argv = ["expand", "--model", "finite", "--spec", str(path), "--tau", "0.5", "--digits", "10"]
    assert "estimated cost about 1.5 s" in refused(argv + ["--max-seconds", "1"], capsys)
    code, out, _ = run(argv + ["--max-seconds", "3", "--json"], capsys)
    assert code == 0 and set(json.loads(out)["results"]) == {"c1", "c2", "d1", "d2"}


def test_risk_with_several_k_on_a_finite_model_is_refused_on_their_joint_estimate(tmp_path, capsys, monkeypatch):
    """risk --k K1,K2,... on a finite model is estimated as the costliest k alone plus a tenth of it for each
    further k (they share the work): a limit between that and the costliest k's own estimate refuses the
    list and lets that k alone through validation."""
    import infonce_sym.app.cli as cli
    from infonce_sym.models import FiniteModel
    from infonce_sym.quantities.exact_finite import estimated_seconds
    path, spec = _random_spec(tmp_path / "hundred.json", 100, seed=1)
    model = FiniteModel(spec["pi"], spec["M"], spec["embedding"])
    ks = [2, 8, 1000000]
    alone = {k: estimated_seconds(model, 0.5, k, 10) for k in ks}
    costliest = max(ks, key=alone.get)
    joint = alone[costliest] * 1.2
    limit = f"{(alone[costliest] + joint) / 2:.3g}"
    monkeypatch.setattr(cli, "cmd_risk", lambda args: 0)
    argv = ["risk", "--model", "finite", "--spec", str(path), "--tau", "0.5", "--digits", "10", "--max-seconds", limit]
    assert f"estimated cost about {joint:.3g} s" in refused(argv + ["--k", "2,8,1e6"], capsys)
    code, _, err = run(argv + ["--k", str(costliest)], capsys)
    assert code == 0, err


def test_risk_on_a_finite_model_is_refused_beyond_half_the_memory(tmp_path, capsys, monkeypatch):
    """Exact values on a finite model hold every anchor's tables (memory ~ N^2: about 13 KB per anchor and
    atom at 30 digits): a request whose estimate exceeds half of the machine's memory is refused with one
    line naming the file, whatever --max-seconds allows; the same request fits a machine twice as large."""
    import infonce_sym.app.cli as cli
    from infonce_sym.models import FiniteModel
    from infonce_sym.quantities.exact_finite import estimated_bytes
    path, spec = _random_spec(tmp_path / "hundred.json", 100, seed=2)
    need = estimated_bytes(FiniteModel(spec["pi"], spec["M"], spec["embedding"]), 10**6, 30)
    assert 100 * 2**20 + 100 * 100 * 12000 < need < 100 * 2**20 + 100 * 100 * 20000
    monkeypatch.setattr(cli, "cmd_risk", lambda args: 0)
    argv = ["risk", "--model", "finite", "--spec", str(path), "--tau", "0.5", "--k", "8,1e6", "--digits", "30",
            "--max-seconds", "1e9"]
    monkeypatch.setattr(cli, "_physical_memory", lambda: int(1.5 * need))
    line = refused(argv, capsys)
    assert "--spec" in line and "hundred.json" in line and "GiB of memory" in line, line
    monkeypatch.setattr(cli, "_physical_memory", lambda: int(2.5 * need))
    code, _, err = run(argv, capsys)
    assert code == 0, err


SPECS = {
    "notjson.json": ("{pi: }", "cannot read"),
    "empty.json": ("", "cannot read"),
    "list.json": ("[1, 2]", "JSON object"),
    "missing.json": (json.dumps({"pi": [1.0]}), "missing key"),
    "extra.json": (json.dumps({"pi": [1], "M": [[1]], "embedding": [[1]], "tau": 1}), "unknown key"),
    "nan.json": ('{"pi": [NaN], "M": [[1]], "embedding": [[1]]}', "NaN"),
    "dup.json": ('{"pi": [1], "pi": [1], "M": [[1]], "embedding": [[1]]}', "duplicate key"),
    "bool.json": (json.dumps({"pi": [True], "M": [[1]], "embedding": [[1]]}), "pi[0]"),
    "badstr.json": (json.dumps({"pi": ["one"], "M": [[1]], "embedding": [[1]]}), "pi[0]"),
    "pi.json": (json.dumps({"pi": [0.5, 0.6], "M": [[1, 0], [0, 1]], "embedding": [[1, 0], [0, 1]]}), "pi"),
    "M.json": (json.dumps({"pi": [0.5, 0.5], "M": [[0.9, 0], [0, 1]], "embedding": [[1, 0], [0, 1]]}), "M"),
    "norm.json": (json.dumps({"pi": [0.5, 0.5], "M": [[1, 0], [0, 1]], "embedding": [[1, 0.1], [0, 1]]}),
                  "embedding"),
    "shape.json": (json.dumps({"pi": [0.5, 0.5], "M": [[1, 0, 0], [0, 1, 0]], "embedding": [[1, 0], [0, 1]]}),
                   "M[0]"),
    "ragged.json": (json.dumps({"pi": [0.5, 0.5], "M": [[1, 0], [0, 1]], "embedding": [[1, 0], [1]]}),
                    "embedding"),
    "deep.json": ("[" * 100000 + "]" * 100000, "nested"),
    "deep40.json": ("[" * 40 + "]" * 40, "nested"),
    "huge.json": (json.dumps({"pi": [0.5] * 2001, "M": [[1]], "embedding": [[1]]}), "2000"),
    "latin1.json": (b"\xff\xfe{", "UTF-8"),
    # found by the probe (Dec 2026): a non-string description passed; a bad entry was not named, and 1e999
    # (a finite decimal) was called not finite
    "description.json": ('{"pi": [1], "M": [[1]], "embedding": [[1]], "description": 5}', "description: must be a string"),
    "negative.json": (json.dumps({"pi": [0.5, 0.5], "M": [[1, 0], [-0.5, 1.5]], "embedding": [[1, 0], [0, 1]]}),
                      "M[1][0]: must be >= 0, got -0.5"),
    "overflow.json": ('{"pi": [1e999, 0.5], "M": [[1, 0], [0, 1]], "embedding": [[1, 0], [0, 1]]}',
                      "pi[0]: 1E+999 is beyond the range of a double"),
    "overflow_row.json": ('{"pi": [0.5, 0.5], "M": [[1, 0], [0, 1]], "embedding": [[1, 0], [0, 1e999]]}',
                          "embedding[1][1]: 1E+999 is beyond"),
    # found by a probe (Dec 2026): pi(0) = 1e-400 was 0 to the supports of dM/dpi (search CE 'undefined:
    # pi(0) = 0') and 1e-400 to the exact route, whose integral CE came out 43 % off
    "underflow.json": ('{"pi": [1e-400, 1], "M": [[1, 0], [0, 1]], "embedding": [[1, 0], [0, 1]]}',
                       "pi[0]: 1E-400 is below the smallest normal double"),
    "underflow_M.json": ('{"pi": [0.5, 0.5], "M": [[1, "1e-320"], [0, 1]], "embedding": [[1, 0], [0, 1]]}',
                         "M[0][1]: 1E-320 is below the smallest normal double"),
}


@pytest.mark.parametrize("name", sorted(SPECS))
def test_malformed_specs_are_refused_naming_the_file(name, tmp_path, capsys):
    text, what = SPECS[name]
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    line = refused(["risk", "--model", "finite", "--spec", str(path), "--tau", "0.5", "--k", "2"], capsys)
    assert "--spec" in line and name in line and what in line, line


@pytest.mark.parametrize("path", ["/dev/zero", "/dev/urandom", "/tmp"])
def test_spec_devices_and_directories_are_refused_at_once(path, capsys):
    t0 = time.perf_counter()
    line = refused(["risk", "--model", "finite", "--spec", path, "--tau", "0.5", "--k", "2"], capsys)
    assert "--spec" in line and path in line and time.perf_counter() - t0 < 5


def test_spec_size_limit(tmp_path, capsys, monkeypatch):
    import infonce_sym.errors as errors
    monkeypatch.setattr(errors, "MAX_FILE_BYTES", 1000)
    monkeypatch.setattr(errors.read_json_file, "__defaults__", (1000, errors.MAX_JSON_DEPTH, None))
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"pi": [0.001] * 1000, "M": [[1]], "embedding": [[1]]}))
    assert "larger than the limit of 1000 bytes" in refused(
        ["risk", "--model", "finite", "--spec", str(path), "--tau", "0.5", "--k", "2"], capsys)


def test_validation_happens_before_any_work(capsys, monkeypatch):
    """A bad option anywhere on the line is refused before the command runs."""
    import infonce_sym.app.cli as cli
    ran = []
    for name in ("cmd_risk", "cmd_mc", "cmd_verify", "cmd_theorem1", "cmd_rademacher"):
        monkeypatch.setattr(cli, name, lambda args, name=name: ran.append(name) or 0)
    for argv in (["verify", "--out", str(Path(__file__)), "--quick"], ["verify", "--workers", "0"],
                 ["risk", "--tau", "0.5", "--k", "3", "--digits", "3"],
                 ["mc", "--tau", "0.5", "--k", "3", "--samples", "2", "--seed", "x"],
                 ["theorem1", "--repeats", "0"], ["rademacher", "--seed", "-3"]):
        refused(argv, capsys)
    assert ran == []


# ------------------------------------------------------------------ documented ranges at their ends

ENDS = [
    ["risk", "--tau", "0.01", "--k", "1", "--digits", "5"],
    ["risk", "--tau", "100", "--k", "1000000000", "--digits", "5"],
    ["risk", "--dim", "2", "--kappa", "0", "--tau", "0.5", "--k", "3", "--digits", "5"],
    ["risk", "--dim", "4096", "--kappa", "10000", "--tau", "0.5", "--k", "3", "--digits", "5"],
    ["risk", "--model", "example-a2", "--tau", "1.4426", "--k", "2", "--digits", "5", "--delta", "0.999",
     "--mixing", "1"],
    ["mc", "--tau", "0.01", "--k", "1", "--samples", "2", "--seed", "0", "--kappa", "0"],
    ["mc", "--tau", "100", "--k", "3", "--samples", "2", "--seed", str(2**128 - 1), "--kappa", "1e6"],
    ["mc", "--tau", "0.5", "--k", "1e6", "--samples", "2", "--seed", "0", "--dim", "100000"],
    ["expand", "--tau", "0.01", "--digits", "5"],
    ["expand", "--tau", "100", "--digits", "5", "--kappa", "10000", "--dim", "4096"],
    ["expand", "--tau", "0.01", "--digits", "100", "--kappa", "0", "--dim", "2"],
    ["rademacher", "--n", "1", "--k", "1", "--samples", "2", "--dim-in", "3", "--tau", "0.01"],
    ["rademacher", "--n", "2", "--k", "2", "--samples", "2", "--m", "3", "--dim-in", "1", "--tau", "100",
     "--radius", "10"],
    ["rademacher", "--n", "1", "--k", "1", "--samples", "2", "--m", "3", "--dim-in", "3", "--tau", "0.01",
     "--radius", "10", "--max-seconds", "2"],
    ["theorem1", "--n", "2", "--k", "1", "--samples", "2", "--repeats", "1", "--delta", "0.999"],
    ["theorem1", "--n", "1", "--k", "1", "--samples", "2", "--repeats", "1", "--m", "3", "--dim-in", "3",
     "--tau", "0.01", "--radius", "10"],
]


@pytest.mark.parametrize("argv", ENDS, ids=[" ".join(a)[:70] for a in ENDS])
def test_documented_ranges_work_at_their_ends(argv, capsys):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        code, out, err = run(argv + ["--json"], capsys)
    assert code == 0, err
    data = json.loads(out)
    assert data["command"] == argv[0] and "nan" not in out.lower() and "inf\"" not in out


@pytest.mark.parametrize("argv", [
    ["risk", "--model", "example-a2", "--tau", "0.16684", "--k", "2", "--digits", "5"],     # 400 states
    ["mc", "--model", "example-a2", "--tau", "0.16684", "--k", "2", "--samples", "100", "--seed", "0"],
])
def test_largest_example_a2_finishes(argv):
    """In a subprocess with a time bound, so that a slow exact route fails the test instead of hanging it."""
    proc = subprocess.run(CLI + argv + ["--json"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert json.loads(proc.stdout)["model"].endswith("1/eps=400)")


def test_digits_100_is_confirmed(capsys):
    code, out, err = run(["risk", "--tau", "0.5", "--k", "10", "--digits", "100", "--json"], capsys)
    assert code == 0, err
    data = json.loads(out)
    assert float(data["precision_check_digits"]) >= 100
    mantissa = data["results"]["risk"].lstrip("-").split("e")[0].replace(".", "").lstrip("0")
    assert len(mantissa) == 100


def test_single_state_model(tmp_path, capsys):
    path = tmp_path / "one.json"
    path.write_text(json.dumps({"pi": [1], "M": [[1]], "embedding": [[1]]}))
    code, out, err = run(["risk", "--model", "finite", "--spec", str(path), "--tau", "0.5", "--k", "3",
                          "--json"], capsys)
    assert code == 0, err
    # one state: every similarity is 1, R = log(1 + k) - log k (eq. (2)) exactly, E|dM/dpi|^2 = 1
    data = json.loads(out)["results"]
    with mpmath.workdps(40):
        assert abs(mpmath.mpf(data["risk"]) - mpmath.log(mpmath.mpf(4) / 3)) < mpmath.mpf(10) ** -29
    assert mpmath.mpf(data["density_ratio_second_moment"]) == 1


# ------------------------------------------------------------------ output conventions

def test_expand_where_b_fails_says_why(tmp_path, capsys):
    path = tmp_path / "notB.json"
    path.write_text(json.dumps({"pi": [1, 0], "M": [[0.5, 0.5], [0.5, 0.5]], "embedding": [[1, 0], [0, 1]]}))
    code, out, _ = run(["expand", "--model", "finite", "--spec", str(path), "--tau", "0.5"], capsys)
    assert code == 0 and "None" not in out and "assumption (B) fails" in out
    code, out, _ = run(["expand", "--model", "finite", "--spec", str(path), "--tau", "0.5", "--json"], capsys)
    data = json.loads(out)
    missing = [key for key, value in data["results"].items() if value is None]
    assert missing and all("assumption (B)" in data["undefined"][key] for key in missing)


def _kernel_vanishes_spec(tmp_path, name, pi, embedding):
    path = tmp_path / name
    path.write_text(json.dumps({"pi": pi, "M": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "embedding": embedding}))
    return str(path)


def test_expand_gives_no_search_constants_where_the_search_ce_is_undefined(tmp_path, capsys):
    """M = I: dM(z,.)/dpi vanishes off z, so the search CE is undefined at every k (as risk says): expand
    printed d1, d2 for it anyway, and with pi in 16-digit decimals failed (exit 1) on d1t, a constant it
    does not print at --loss infonce. c1 and c2 still come, against the exact route: k (∫CE - R(k)) at
    k = 10^6 is c1 + c2/k + O(k^-2)."""
    spec = _kernel_vanishes_spec(tmp_path, "ident.json", ["0.3333333333333333", "0.3333333333333333",
                                                          "0.3333333333333334"], [[1, 0], [0, 1], [0.6, 0.8]])
    code, out, _ = run(["expand", "--model", "finite", "--spec", spec, "--tau", "0.5", "--digits", "20", "--json"],
                       capsys)
    assert code == 0
    data = json.loads(out)
    assert data["results"]["d1"] is None and data["results"]["d2"] is None
    assert "M_hat_k is undefined" in data["undefined"]["d1"]
    c1, c2 = (mpmath.mpf(data["results"][key]) for key in ("c1", "c2"))
    code, out, _ = run(["risk", "--model", "finite", "--spec", spec, "--tau", "0.5", "--k", "1e6", "--digits", "20",
                        "--json"], capsys)
    risk = json.loads(out)
    entry = risk["by_k"][0] if "by_k" in risk else risk
    assert "search_cross_entropy" in entry["undefined"]
    gap = mpmath.mpf(entry["gaps"]["cross_entropy_limit_minus_risk"])
    assert abs(gap * 10 ** 6 - (c1 + c2 / 10 ** 6)) < 10 ** -9          # c3/k^2 ~ 1e-12


def test_expand_gives_a_constant_that_is_zero_as_zero(tmp_path, capsys, monkeypatch):
    """Every similarity equal: R~(k) = ∫CE at every k, so c1t = c2t = 0 exactly, which the two passes only
    see as their rounding noise (exit 1 before); risk's DCL gap there is 0 as well."""
    spec = tmp_path / "equal.json"
    spec.write_text(json.dumps({"pi": ["0.3333333333333333", "0.3333333333333333", "0.3333333333333334"],
                                "M": [[0.5, 0.25, 0.25], [0.25, 0.5, 0.25], [0.25, 0.25, 0.5]],
                                "embedding": [[1, 0], [1, 0], [1, 0]]}))
    argv = ["expand", "--model", "finite", "--spec", str(spec), "--tau", "0.5", "--loss", "dcl", "--json"]
    code, out, _ = run(argv, capsys)
    assert code == 0
    results = json.loads(out)["results"]
    assert all(mpmath.mpf(results[key]) == 0 for key in ("c1", "c2", "d1", "d2")), results
    code, out, _ = run(["risk", "--model", "finite", "--spec", str(spec), "--tau", "0.5", "--k", "7", "--loss", "dcl",
                        "--json"], capsys)
    entry = json.loads(out)
    entry = entry["by_k"][0] if "by_k" in entry else entry
    assert mpmath.mpf(entry["gaps"]["cross_entropy_limit_minus_risk"]) == 0


def test_output_names_taken_by_directories_are_refused_before_any_work(tmp_path, capsys):
    """A directory where a report file goes was an IsADirectoryError after the whole run (exit 1)."""
    (tmp_path / "v" / "report.json").mkdir(parents=True)
    line = refused(["verify", "--quick", "--out", str(tmp_path / "v")], capsys)
    assert "--out" in line and "report.json" in line
    a = np.eye(3)[[0, 1, 2, 0]] + 0.1
    np.save(tmp_path / "a.npy", a)
    (tmp_path / "e" / "report.md").mkdir(parents=True)
    line = refused(["embeddings", "--anchors", str(tmp_path / "a.npy"), "--positives", str(tmp_path / "a.npy"),
                    "--tau", "0.5", "--out", str(tmp_path / "e")], capsys)
    assert "--out" in line and "report.md" in line


def test_a_file_error_during_the_run_names_the_file(tmp_path, capsys, monkeypatch):
    """What the up-front checks cannot foresee (a plot named by model, say): exit 2 naming the file."""
    from infonce_sym.app import embeddings as app
    a = np.eye(3)[[0, 1, 2, 0]] + 0.1
    np.save(tmp_path / "a.npy", a)

    def fails(*args, **kw):
        raise IsADirectoryError(21, "Is a directory", str(tmp_path / "gap.png"))
    monkeypatch.setattr(app, "write_report", fails)
    line = refused(["embeddings", "--anchors", str(tmp_path / "a.npy"), "--positives", str(tmp_path / "a.npy"),
                    "--tau", "0.5", "--samples", "0", "--no-tau-sweep", "--out", str(tmp_path / "e")], capsys)
    assert "gap.png" in line and "Is a directory" in line


def test_derivations_json_is_json(tmp_path, capsys, monkeypatch):
    """derivations --json printed its text line (render_all stubbed: the CAS chains have their own tests)."""
    from infonce_sym.proofs import render

    def fake(out, check=False, failures=None):
        failures.append(("lemma-x", [{"step": "s1", "ref": "r", "detail": "d"}]))
        return [Path(out) / "lemma-x.md"]
    monkeypatch.setattr(render, "render_all", fake)
    code, out, _ = run(["derivations", "--json", "--out", str(tmp_path)], capsys)
    data = json.loads(out)
    assert code == 0 and data["written"] == [str(tmp_path / "lemma-x.md")] and data["failures"][0]["id"] == "lemma-x"
    (tmp_path / "README.md").write_text("the index that a rendering writes\n")
    code, out, _ = run(["derivations", "--check", "--json", "--out", str(tmp_path)], capsys)
    data = json.loads(out)
    assert code == 1 and data["stale"] == [str(tmp_path / "lemma-x.md")] and data["check"] is True


def test_derivations_check_outside_the_repository_says_so(tmp_path, capsys, monkeypatch):
    """--out's default is relative: run elsewhere, --check reported every file stale (exit 1) and left an
    empty directory behind (found by an audit)."""
    monkeypatch.chdir(tmp_path)
    line = refused(["derivations", "--check"], capsys)
    assert "--out" in line and "no rendered derivations" in line
    assert not (tmp_path / "derivations").exists()


def test_risk_prints_every_value_and_gap_to_the_digits_asked(capsys):
    """The gaps dropped trailing zeros (-0.2026 at --digits 5, where -0.20260 is confirmed; the probe, Dec
    2026): every value and gap shows --digits significant digits, as the results do."""
    import re
    code, out, _ = run(["risk", "--tau", "0.5", "--k", "10", "--digits", "5", "--json"], capsys)
    data = json.loads(out)
    shown = list(data["results"].values()) + list(data["gaps"].values())
    assert code == 0 and "-0.20260" in data["gaps"].values()
    for text in shown:
        mantissa = re.sub(r"e.*$", "", text).lstrip("-").replace(".", "").lstrip("0")
        assert len(mantissa) == 5, text


def test_verify_json_inputs_say_whether_the_run_was_quick(tmp_path, capsys, monkeypatch):
    """verify --json's inputs left --quick out (the probe, Dec 2026): which plan ran was not in the output.
    The run and the report are stubbed (the plan's own tests run it)."""
    from infonce_sym.app import report, verify
    monkeypatch.setattr(verify, "run", lambda mode, executor, on_stage=None, progress=None: ([], [], {"mode": mode, "differ": 0}))
    monkeypatch.setattr(report, "write", lambda out, results, rows, meta: {"markdown": "m", "json": "j", "plots": []})
    for argv, quick, mode in ((["--quick"], True, "quick"), ([], False, "full")):
        code, out, _ = run(["verify", *argv, "--workers", "1", "--json", "--out", str(tmp_path)], capsys)
        data = json.loads(out)
        assert code == 0 and data["inputs"]["quick"] is quick and data["meta"]["mode"] == mode


def test_derivations_check_reads_out_and_reports_files_no_derivation_renders(tmp_path, capsys, monkeypatch):
    """--check created --out and wrote a probe file into it; a Markdown file that no derivation renders
    (a derivation renamed) passed the check (the probe, Dec 2026).  The chains are stubbed: one
    derivation-free index; their own tests check the rendering."""
    from infonce_sym.proofs import render
    monkeypatch.setattr(render, "all_derivations", lambda: [])
    monkeypatch.setattr(render, "render_index", lambda derivations, results: "the index\n")
    line = refused(["derivations", "--check", "--out", str(tmp_path / "new")], capsys)
    assert "no rendered derivations" in line and not (tmp_path / "new").exists()
    (tmp_path / "README.md").write_text("the index\n")
    code, out, _ = run(["derivations", "--check", "--out", str(tmp_path)], capsys)
    assert code == 0 and "up to date" in out
    (tmp_path / "L9.renamed.md").write_text("an old rendering\n")
    (tmp_path / "notes.txt").write_text("not Markdown: not ours to judge\n")
    code, out, _ = run(["derivations", "--check", "--out", str(tmp_path)], capsys)
    assert code == 1 and out.strip() == f"stale: {tmp_path / 'L9.renamed.md'}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["L9.renamed.md", "README.md", "notes.txt"]


def test_a_named_pipe_spec_waits_for_its_writer_but_not_forever(tmp_path, capsys, monkeypatch):
    """A FIFO that no writer opens blocked the command before --max-seconds started: now exit 2 after
    PIPE_IDLE_SECONDS of silence; a writer that comes is read as a file is."""
    import threading

    from infonce_sym import errors
    monkeypatch.setattr(errors, "PIPE_IDLE_SECONDS", 0.5)
    fifo = tmp_path / "spec.json"
    os.mkfifo(fifo)
    argv = ["risk", "--model", "finite", "--spec", str(fifo), "--tau", "0.5", "--k", "3", "--digits", "10"]
    start = time.monotonic()
    line = refused(argv, capsys)
    assert "nothing came through the pipe" in line and "--spec" in line and time.monotonic() - start < 10
    spec = json.dumps({"pi": [0.5, 0.5], "M": [[0.5, 0.5], [0.5, 0.5]], "embedding": [[1, 0], [0, 1]]})

    def writer():
        time.sleep(0.2)
        with open(fifo, "w") as f:
            f.write(spec)
    thread = threading.Thread(target=writer)
    thread.start()
    code, out, _ = run(argv, capsys)
    thread.join()
    plain = tmp_path / "plain.json"
    plain.write_text(spec)
    code2, out2, _ = run(argv[:4] + [str(plain)] + argv[5:], capsys)
    assert code == code2 == 0 and out.splitlines()[1:] == out2.splitlines()[1:]     # the first line names the file


def test_one_json_convention(capsys):
    """inputs as the strings typed, results as decimal strings, counts as integers."""
    code, out, _ = run(["mc", "--tau", "0.50", "--k", "4", "--samples", "20", "--seed", "1", "--json"], capsys)
    data = json.loads(out)
    assert data["inputs"]["tau"] == "0.50" and data["inputs"]["k"] == "4"
    risk = data["results"]["risk"]
    assert isinstance(risk["estimate"], str) and isinstance(risk["samples"], int)
    mpmath.mpf(risk["estimate"])
    code, out, _ = run(["risk", "--tau", "0.50", "--k", "4", "--digits", "10", "--json"], capsys)
    data = json.loads(out)
    assert data["inputs"]["tau"] == "0.50" and all(isinstance(v, str) for v in data["results"].values())
    code, out, _ = run(["theorem1", "--n", "10", "--k", "2", "--samples", "20", "--repeats", "2", "--json"], capsys)
    data = json.loads(out)
    assert data["inputs"]["n"] == "10" and isinstance(data["results"]["coverage"], str)


# ------------------------------------------------------------------ processes: closed pipe, Ctrl-C, environment

def test_a_bad_sympy_cache_size_is_refused_in_one_line():
    """SymPy reads SYMPY_CACHE_SIZE on first import; a value it cannot read is refused before any work."""
    argv = ["prove", "L2.upper", "--json"]          # a command that imports SymPy
    env = {**os.environ, "SYMPY_CACHE_SIZE": "abc"}
    proc = subprocess.run(CLI + argv, capture_output=True, text=True, timeout=120, env=env)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and proc.stdout == "", (proc.returncode, proc.stdout, proc.stderr)
    assert lines == ["infonce-sym: error: SYMPY_CACHE_SIZE: must be an integer or None (the environment), got 'abc'"], lines
    env["SYMPY_CACHE_SIZE"] = "None"        # SymPy's unbounded cache: accepted
    proc = subprocess.run(CLI + argv, capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0 and json.loads(proc.stdout)["verdict"] == "proved", proc.stderr


def test_output_into_a_closed_pipe_ends_quietly():
    cmd = " ".join(CLI[:2]) + f" '{CLI[2]}' mc --tau 0.5 --k 4 --samples 200 --seed 1 --json | head -c 1"
    proc = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], capture_output=True, text=True, timeout=120)
    assert proc.stderr == "" and proc.returncode == 0, proc.stderr


MC_SMALL = ["mc", "--tau", "0.5", "--k", "4", "--samples", "200", "--seed", "1"]


def _one_error_line(proc, needle):
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and needle in lines[0], (proc.returncode, proc.stderr)
    assert "internal error" not in lines[0] and "Traceback" not in proc.stderr
    return lines[0]


def test_a_closed_or_full_stdout_is_one_line_naming_stdout():
    """stdout closed (>&-) is refused before any work; a full disk (/dev/full) when the results are
    written: exit 2 and one line naming stdout, not an internal error (AttributeError, OSError)."""
    cmd = " ".join(CLI[:2]) + f" '{CLI[2]}' " + " ".join(MC_SMALL) + " >&-"
    proc = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=120)
    assert _one_error_line(proc, "stdout") == "infonce-sym: error: stdout: is closed; nothing to write the results to"
    if os.path.exists("/dev/full"):
        with open("/dev/full", "w") as full:
            proc = subprocess.run(CLI + MC_SMALL, stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
        _one_error_line(proc, "infonce-sym: error: stdout: No space left on device")


def test_an_ascii_stdout_gets_escapes_for_the_characters_it_lacks():
    """PYTHONIOENCODING=ascii: ∫ and ± are written as backslash escapes, the numbers as in UTF-8."""
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    proc = subprocess.run(CLI + MC_SMALL, capture_output=True, text=True, timeout=120, env=env)
    utf8 = subprocess.run(CLI + MC_SMALL, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONIOENCODING": "utf-8"})
    assert proc.returncode == 0 and utf8.returncode == 0, proc.stderr
    assert proc.stdout == utf8.stdout.replace("±", "\\xb1").replace("∫", "\\u222b") and "\\xb1" in proc.stdout
    proc = subprocess.run(CLI + ["embeddings", "--help"], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0 and "usage: infonce-sym embeddings" in proc.stdout, proc.stderr


def test_environment_variables_that_libraries_refuse_are_one_line():
    """NUMBA_NUM_THREADS 0 or 'abc' (numba: ValueError, or a traceback printed as a warning) and, for a
    command that plots, an unknown MPLBACKEND (matplotlib's ValueError after the whole computation): exit 2
    before any work, one line naming the variable."""
    for value in ("0", "abc"):
        proc = subprocess.run(CLI + MC_SMALL, capture_output=True, text=True, timeout=120,
                              env={**os.environ, "NUMBA_NUM_THREADS": value})
        _one_error_line(proc, f"NUMBA_NUM_THREADS: must be a positive integer (the environment), got '{value}'")
    proc = subprocess.run(CLI + ["verify", "--quick"], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "MPLBACKEND": "foo"})
    _one_error_line(proc, "MPLBACKEND: is not a matplotlib backend (the environment), got 'foo'")


def test_numba_with_its_jit_disabled_runs_the_numpy_kernels():
    """NUMBA_DISABLE_JIT=1 ran the compiled kernels as plain Python: mc failed on an overflow warning,
    rademacher on an intrinsic; "auto" now picks NumPy, and the numbers are NumPy's."""
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    proc = subprocess.run(CLI + MC_SMALL + ["--json"], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["backend"] == "numpy"
    rad = ["rademacher", "--n", "5", "--k", "4", "--samples", "4", "--json"]
    proc = subprocess.run(CLI + rad, capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["results"]["backend"] == "numpy"


def test_ctrl_c_exits_130_with_one_line():
    proc = subprocess.Popen(CLI + ["mc", "--tau", "0.5", "--k", "1000", "--samples", "1e8", "--seed", "1",
                                   "--max-seconds", "1e6"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    time.sleep(4)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.strip() == "infonce-sym: interrupted"


# ------------------------------------------------------------------ the README's examples

def _readme_commands():
    text = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = text.split("## Command line", 1)[1].split("\n## ", 1)[0]
    block = section.split("```bash", 1)[1].split("```", 1)[0]
    return [line.split("#", 1)[0].split()[1:] for line in block.splitlines() if line.startswith("infonce-sym ")]


SLOW = {"verify", "bench", "derivations"}   # minutes: parsed and validated here; run by their own tests


@pytest.mark.parametrize("argv", _readme_commands(), ids=lambda a: " ".join(a)[:60])
def test_readme_examples_run_as_written(argv, capsys, monkeypatch):
    os.chdir(Path(__file__).resolve().parents[2])         # examples/ paths are relative to the repository
    if argv and argv[0] in SLOW:
        import infonce_sym.app.cli as cli
        monkeypatch.setattr(cli, f"cmd_{argv[0]}", lambda args: 0)
    code, out, err = run(argv, capsys)
    assert code == 0, err
    if "--json" in argv:
        json.loads(out)


def _ignores_sigint(pid):
    """Whether process ``pid`` ignores SIGINT (its SigIgn mask in /proc; None if unreadable)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    mask = int(next(line.split()[1] for line in status.splitlines() if line.startswith("SigIgn:")), 16)
    return bool(mask >> (signal.SIGINT - 1) & 1)


def _pool_started(pid):
    """Whether verify (process ``pid``) is past its pool's start-up: two spawned workers of its
    session, each ignoring SIGINT, and ``pid`` itself no longer ignoring it (it ignores SIGINT while
    it starts the workers). Read from /proc; None where there is no /proc."""
    if not Path("/proc/self/status").exists():
        return None
    workers = []
    for entry in Path("/proc").iterdir():
        try:
            if (entry.name.isdigit() and b"spawn_main" in (entry / "cmdline").read_bytes()
                    and int((entry / "stat").read_text().rsplit(")", 1)[1].split()[3]) == pid):
                workers.append(_ignores_sigint(entry.name))
        except OSError:               # the process has ended meanwhile
            continue
    return len(workers) >= 2 and all(workers) and _ignores_sigint(pid) is False


def test_ctrl_c_during_verify_ends_workers_with_one_line(tmp_path):
    """SIGINT to the whole process group, as a terminal's Ctrl-C: no traceback from any worker."""
    proc = subprocess.Popen(CLI + ["verify", "--quick", "--out", str(tmp_path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    # past the pool's start-up (workers are started with SIGINT ignored), then into the work units;
    # without /proc, a fixed wait that is past it
    deadline = time.monotonic() + 120
    while (started := _pool_started(proc.pid)) is False:
        assert proc.poll() is None and time.monotonic() < deadline, "verify's pool did not start"
        time.sleep(0.2)
    time.sleep(1 if started else 20)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert [line for line in err.splitlines() if not line.startswith("[verify] ")] == ["infonce-sym: interrupted"]


def test_rademacher_stops_refining_at_max_seconds(capsys, monkeypatch):
    """d_Theta = 3 at tau = 0.01 refines for seconds (this request took 5 s unbounded; n = 3, k = 4 took
    184 s) whatever the up-front estimate said (patched here to 0.4 s, what the former estimate gave, so
    that the run starts); with --max-seconds 1 it stops refining there, exits 0 with a certified but
    looser upper estimate marked incomplete, and one line on stderr says so."""
    from infonce_sym.app import cli
    monkeypatch.setattr(cli, "_rademacher_seconds", lambda *sizes: 0.4)
    start = time.monotonic()
    code, out, err = run(["rademacher", "--dim-in", "3", "--tau", "0.01", "--n", "1", "--k", "1",
                          "--samples", "2", "--max-seconds", "1", "--json"], capsys)
    assert time.monotonic() - start < 30
    assert code == 0
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "--max-seconds 1 reached" in lines[0], err
    results = json.loads(out)["results"]
    assert results["complete"] is False and results["stopped_at_max_seconds"] is True
    assert float(results["estimate"]) >= float(results["lower_estimate"])


def test_rademacher_at_a_tiny_radius_says_the_rounding_margin_dominates(capsys):
    """R = 1e-300 (a probe, Dec 2026): the certified upper values carry the float64 margin 1e-10 (1 + 2/tau +
    log(k + 1)) = 2.17e-9 at tau = 0.1, k = 1, far above the refinement's tolerance 1e-4 R/tau; stderr says so
    and the estimate is that margin (the increments are ~1e-300), while lower_estimate, an increment over
    f_sigma(theta0) that rounding made -5.6e-17, is now 0 <= it <= the estimate.  At R = 1 no such line."""
    code, out, err = run(["rademacher", "--tau", "0.1", "--k", "1", "--n", "1", "--samples", "2",
                          "--radius", "1e-300", "--json"], capsys)
    assert code == 0, err
    assert "every certified upper value carries the float64 rounding margin 2.17e-09" in err
    results = json.loads(out)["results"]
    margin = 1e-10 * (1 + 2 / 0.1 + math.log(2))
    assert float(results["float_margin"]) == pytest.approx(margin, rel=1e-12)
    assert float(results["estimate"]) == pytest.approx(margin, rel=1e-6)
    assert 0 <= float(results["lower_estimate"]) <= 1e-290
    code, _, err = run(["rademacher", "--tau", "0.1", "--k", "1", "--n", "1", "--samples", "2", "--json"], capsys)
    assert code == 0 and "rounding margin" not in err


def test_rademacher_brackets_the_sup_above_d_theta_3(capsys):
    """d_Theta = 4 and 9: exit 0 with the bracket labelled (a coarse certified upper value, an
    optimiser's lower value) and said so on stderr; the upper value is above an independent lower
    value of the same sup (the best of 4000 uniform points of Theta per sign vector, the sign
    vectors and tuples redrawn from the seed as rademacher_estimate draws them), and with
    --max-seconds the run ends near it (d_Theta = 9: the level-0 grid takes about 1.5 s of the 3),
    the optimiser having had its share."""
    from infonce_sym.models.fourier_class import FourierEmbedding, sample_tuples
    for m, dim_in, limit in ((2, 2, 2), (3, 3, 3)):
        start = time.monotonic()
        code, out, err = run(["rademacher", "--m", str(m), "--dim-in", str(dim_in), "--n", "10", "--k", "4",
                              "--samples", "6", "--seed", "5", "--tau", "0.5", "--max-seconds", str(limit),
                              "--json"], capsys)
        took = time.monotonic() - start
        assert code == 0, err
        assert f"d_Theta = {m * dim_in} > 3: the sup is bracketed" in err.splitlines()[0]
        results = json.loads(out)["results"]
        assert results["upper_kind"] == "certified (coarse)" and results["lower_kind"] == "optimiser"
        upper, lower = float(results["estimate"]), float(results["lower_estimate"])
        data_seed, sigma_seed, _ = np.random.SeedSequence(5).spawn(3)
        za, zp, zn = sample_tuples("gaussian", dim_in, 10, 4, np.random.default_rng(data_seed), sigma=0.5,
                                   kernel="additive")
        sig = np.random.default_rng(sigma_seed).choice([-1.0, 1.0], size=(6, 10))
        points = np.random.default_rng(0).normal(size=(4000, m * dim_in))
        points *= (np.random.default_rng(1).uniform(size=(4000, 1)) ** (1 / (m * dim_in))
                   / np.linalg.norm(points, axis=1, keepdims=True))
        searched = (sig @ FourierEmbedding(m, dim_in, 1.0).losses(points, za, zp, zn, 0.5).T / 10).max(axis=1)
        assert upper >= searched.mean() > 0 and upper >= lower >= 0.5 * searched.mean()
        # never above the one-ball bound on Theta itself, f(theta0) + L R (the level-0 cubes' balls
        # have radius 3R at d_Theta = 9: 13.6 here before that bound was taken, against 1.9)
        at_centre = sig @ FourierEmbedding(m, dim_in, 1.0).losses(np.zeros((1, m * dim_in)), za, zp, zn, 0.5).T / 10
        assert upper <= at_centre.mean() + float(results["L_certificate"]) + 1e-9
        assert results["stopped_at_max_seconds"] and took < limit + 6
        assert results["optimised_samples"] >= 1


def test_theorem1_says_why_its_bound_is_infinite_for_student_t(capsys):
    """Student-t data: D2 = +inf (models.fourier_class; E Z^4 = +inf under t_3), so the bound is +inf;
    one line on stderr says so (with --json, the note is in the JSON and stderr stays empty: a probe, Dec 2026).
    Gaussian data, where D2 = ((1 + sigma^2)/sigma^2)^d: the bound is finite but above 2/tau, the largest value the
    search CE can take (a probe, Dec 2026), and one line says that the coverage is then 1 for any data (vacuous =
    true in the JSON; both are vacuous)."""
    argv = ["theorem1", "--n", "20", "--k", "2", "--samples", "20", "--repeats", "1"]
    code, out, err = run(argv + ["--data", "student-t", "--json"], capsys)
    results = json.loads(out)["results"]
    assert code == 0 and results["D2"] == "inf" and results["vacuous"] and err == ""
    assert "E|dM/dpi|^2 = +inf for Student-t" in results["note"]
    assert results["settings"]["data"] == "student-t"          # as typed (it echoed student_t)
    code, out, err = run(argv + ["--data", "student-t"], capsys)
    assert code == 0 and len(err.strip().splitlines()) == 1 and "E|dM/dpi|^2 = +inf for Student-t" in err
    code, out, err = run(argv + ["--json"], capsys)
    results = json.loads(out)["results"]
    assert code == 0 and float(results["D2"]) == pytest.approx(5.0 ** 2) and results["vacuous"] and err == ""
    assert "exceeds 2/tau = 4, the largest value" in results["note"]
    assert float(results["terms"]["rhs"]) > 4 >= float(results["terms"]["lhs"])
    code, out, err = run(argv, capsys)
    assert code == 0 and len(err.strip().splitlines()) == 1 and "exceeds 2/tau = 4, the largest value" in err


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_rademacher_shows_progress_on_a_terminal(monkeypatch):
    """On a terminal, a live line for rademacher even where the estimate (the sizes' cost: 0.01 s
    here) is short, since it refines up to --max-seconds, with the sign vectors settled; it is
    cleared before the notes on stderr are written, and stdout gets only the results."""
    terminal, out = _Terminal(), io.StringIO()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setattr(sys, "stdout", out)
    code = main(["rademacher", "--m", "2", "--dim-in", "2", "--n", "10", "--k", "4", "--samples", "6",
                 "--max-seconds", "1"])
    text = terminal.getvalue()
    assert code == 0 and "internal error" not in text
    assert "[rademacher] running (estimated about" in text and "refining up to --max-seconds 1" in text
    assert "/6 " in text
    assert "\r\033[Kinfonce-sym rademacher: d_Theta = 4 > 3" in text
    assert "estimate" in out.getvalue() and "[rademacher]" not in out.getvalue()


def _alarm_state():
    return signal.getsignal(signal.SIGALRM), signal.getitimer(signal.ITIMER_REAL)


def test_risk_on_the_sphere_stops_at_max_seconds(capsys):
    """No up-front estimate covers the sphere's exact route (its cost grows with the digits, d and
    1/tau): this request runs about 15 s; with --max-seconds 1 it stops there, exit 1, one line
    naming the limit, nothing on stdout; the alarm is cancelled and SIGALRM's handler restored."""
    before = _alarm_state()
    start = time.monotonic()
    code, out, err = run(["risk", "--dim", "128", "--kappa", "100", "--tau", "0.02", "--k", "4096",
                          "--digits", "100", "--max-seconds", "1"], capsys)
    assert time.monotonic() - start < 10
    assert code == 1 and out == ""
    assert err.strip().splitlines() == ["infonce-sym risk: stopped at --max-seconds 1 before the values were "
                                        "confirmed; nothing was printed; raise --max-seconds or ask for fewer --digits (or fewer k)"]
    assert _alarm_state() == before
    # a run that finishes within its limit leaves no alarm behind
    code, out, _ = run(["risk", "--dim", "3", "--kappa", "1", "--tau", "0.5", "--k", "10", "--digits", "15",
                        "--max-seconds", "60", "--json"], capsys)
    assert code == 0 and json.loads(out)["results"]["risk"].startswith("0.06631631980166")
    assert _alarm_state() == before
    # a caller's own alarm (main() in-process) is left running, less the time spent
    previous = signal.signal(signal.SIGALRM, lambda *a: None)
    try:
        signal.setitimer(signal.ITIMER_REAL, 500)
        code, _, _ = run(["risk", "--dim", "3", "--kappa", "1", "--tau", "0.5", "--k", "10", "--digits", "15",
                          "--max-seconds", "60"], capsys)
        remaining = signal.getitimer(signal.ITIMER_REAL)[0]
        assert code == 0 and 400 < remaining < 500
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_expand_stops_at_max_seconds(capsys, monkeypatch):
    """expand keeps --max-seconds while it runs as risk does (here the constants are made to take
    30 s: the limit of 1 s stops them)."""
    from infonce_sym.proofs import expansions

    def slow(*args, **kwargs):
        end = time.monotonic() + 30
        while time.monotonic() < end:
            time.sleep(0.01)
        return {}
    monkeypatch.setattr(expansions, "confirmed_constants", slow)
    before = _alarm_state()
    start = time.monotonic()
    code, out, err = run(["expand", "--tau", "0.5", "--max-seconds", "1"], capsys)
    assert time.monotonic() - start < 10
    assert code == 1 and out == "" and len(err.strip().splitlines()) == 1
    assert "expand: stopped at --max-seconds 1" in err
    assert _alarm_state() == before


@pytest.mark.parametrize("argv,constant,hint", [
    (["mc", "--tau", "0.5", "--k", "1000000", "--samples", "20000", "--seed", "1"],
     "MC_NEGATIVES_PER_SECOND MC_COMPILED_NEGATIVES_PER_SECOND",
     "ask for fewer --samples or a smaller --k"),
    (["theorem1", "--n", "400", "--k", "256", "--samples", "400", "--repeats", "20", "--seed", "1"],
     "THEOREM1_SECONDS_PER_UNIT THEOREM1_SECONDS_PER_FIT_ENTRY", "ask for fewer --repeats or --samples, or a smaller --n or --k")])
def test_mc_and_theorem1_stop_at_max_seconds(argv, constant, hint, capsys, monkeypatch):
    """mc and theorem1 keep --max-seconds while they run, not only in their up-front estimates (which
    assume this machine's speed): here the estimate is made to pass a request of a minute or more, and
    the limit of 1 s stops it, exit 1, one line naming the limit and what to ask for instead."""
    from infonce_sym.app import cli
    for name in constant.split():
        monkeypatch.setattr(cli, name, 1e12 if name.startswith("MC") else 1e-12)
    before = _alarm_state()
    start = time.monotonic()
    code, out, err = run(argv + ["--max-seconds", "1"], capsys)
    assert time.monotonic() - start < 10
    assert code == 1 and out == ""
    assert err.strip().splitlines() == [f"infonce-sym {argv[0]}: stopped at --max-seconds 1 before the values were "
                                        f"complete; nothing was printed; raise --max-seconds or {hint}"]
    assert _alarm_state() == before


def test_theorem1_estimate_does_not_refuse_a_run_of_two_seconds(capsys):
    """The default theorem1 (about 0.3 s of work past the imports) was estimated at 7.7 s and refused at
    --max-seconds 5 (its per-unit cost dated from before the compiled Monte Carlo: 3-30x too high); it now
    runs, and a run estimated far beyond the limit is still refused up front."""
    code, out, err = run(["theorem1", "--max-seconds", "5", "--json"], capsys)
    assert code == 0 and json.loads(out)["command"] == "theorem1"
    assert err == "" and "vacuous = true" in json.loads(out)["results"]["note"]     # the bound's note, no refusal
    code, out, err = run(["theorem1", "--n", "100000", "--k", "1000", "--max-seconds", "5"], capsys)
    assert code == 2 and out == "" and "estimated cost about" in err and "exceeds --max-seconds 5" in err


def test_theorem1_on_local_workers_gives_the_numbers_of_one_process(capsys):
    """Issue 11 item 4: theorem1's repeats are work units with their own streams; --workers 2 (a process
    pool) prints the numbers --workers 1 prints."""
    argv = ["theorem1", "--n", "60", "--k", "8", "--repeats", "3", "--samples", "800", "--seed", "2", "--json"]
    got = []
    for workers in ("1", "2"):
        code, out, err = run(argv + ["--workers", workers], capsys)
        results = json.loads(out)["results"]
        assert code == 0 and err == "" and "vacuous = true" in results["note"]
        results.pop("seconds")
        got.append(results)
    assert got[0] == got[1] and len(got[0]["per_repeat"]) == 3


def test_theorem1_on_workers_stops_at_max_seconds(capsys, monkeypatch):
    """A pool's run stopped at --max-seconds ends its workers and says so in one line (exit 1)."""
    import multiprocessing
    from infonce_sym.app import cli
    monkeypatch.setattr(cli, "THEOREM1_SECONDS_PER_UNIT", 1e-12)
    monkeypatch.setattr(cli, "THEOREM1_SECONDS_PER_FIT_ENTRY", 1e-12)
    start = time.monotonic()
    code, out, err = run(["theorem1", "--n", "3000", "--k", "64", "--repeats", "40", "--workers", "2",
                          "--max-seconds", "2"], capsys)
    assert time.monotonic() - start < 20
    assert code == 1 and out == "" and len(err.strip().splitlines()) == 1 and "--max-seconds 2" in err
    deadline = time.monotonic() + 10            # the workers were told to end; they exit within moments
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not multiprocessing.active_children()


def test_mc_estimate_uses_the_rates_of_the_backend_that_will_run(monkeypatch):
    """The sphere runs on the compiled kernels when numba is installed, 7-8.5x faster than NumPy: its estimate
    used NumPy's rates and came out 3-8x high (the probe: 4.2 s estimated, 1.4 s wall). Finite models run on NumPy."""
    from types import SimpleNamespace
    from infonce_sym.app import cli
    from infonce_sym.quantities import montecarlo
    args = SimpleNamespace(model="sphere", samples=100000, k=4096)
    monkeypatch.setattr(montecarlo, "default_backend", lambda: "numba")
    compiled = cli._mc_seconds(args)
    monkeypatch.setattr(montecarlo, "default_backend", lambda: "numpy")
    plain = cli._mc_seconds(args)
    assert compiled == pytest.approx(100000 * 4096 / cli.MC_COMPILED_NEGATIVES_PER_SECOND
                                     + 100000 / cli.MC_COMPILED_TUPLES_PER_SECOND)
    assert plain == pytest.approx(100000 * 4096 / cli.MC_NEGATIVES_PER_SECOND + 100000 / cli.MC_TUPLES_PER_SECOND)
    assert plain > 3 * compiled
    monkeypatch.setattr(montecarlo, "default_backend", lambda: "numba")
    big = SimpleNamespace(size=5000)
    assert cli._mc_seconds(SimpleNamespace(model="finite", samples=100000, k=4096, finite_model=big)) == plain
    # k >= N: each tuple's negatives are counts per point (N of them), not k draws: the estimate was 10^5-10^6
    # too high at k = 10^9 (the probe, Dec 2026: estimated 1e6 s, ran in 0.36 s)
    small = SimpleNamespace(size=4)
    assert cli._mc_seconds(SimpleNamespace(model="finite", samples=100000, k=10**9, finite_model=small)) == \
        pytest.approx(100000 * 4 / cli.MC_NEGATIVES_PER_SECOND + 100000 / cli.MC_TUPLES_PER_SECOND)
    a2 = SimpleNamespace(model="example-a2", samples=100000, k=10**9, tau="0.5")        # 1/eps = ceil(e^2 - 1) = 7
    assert cli._mc_seconds(a2) == pytest.approx(100000 * 7 / cli.MC_NEGATIVES_PER_SECOND + 100000 / cli.MC_TUPLES_PER_SECOND)


def test_rademacher_estimate_follows_the_centres_the_branch_and_bound_evaluates(monkeypatch):
    """The estimate is the tuples' setup plus the evaluated centres times their cost per centre, the
    centres not growing with k.  The former rate per samples x n x (k + 2) estimated 4104 s for
    d_Theta = 3, tau 0.5, n 50, 40 samples, k 1024, which ran for a minute (59.6 s measured, stopped at
    60 s, 2026-12-05), and refused it at the default --max-seconds; the bench's d_Theta = 2, tau 0.1,
    n 50, 20 samples took 0.41/2.77/11.42 s at k = 64/1024/4096.  On the NumPy kernels the estimate is
    RADEMACHER_NUMPY_FACTOR times the compiled one."""
    from infonce_sym.app import cli
    from infonce_sym.quantities import montecarlo

    def estimate(*argv):
        args = cli.build_parser().parse_args(["rademacher", *argv])
        cli._read_options(args)
        return args.estimated_seconds
    monkeypatch.setattr(montecarlo, "default_backend", lambda: "numba")
    big = ["--dim-in", "3", "--n", "50", "--samples", "40", "--k", "1024"]
    compiled = estimate(*big)
    assert 60 / 3 <= compiled <= 60 * 3 * 2          # the run was cut at 60 s, complete = false
    for k, measured in ((64, 0.41), (1024, 2.77), (4096, 11.42)):
        assert measured / 3 <= estimate("--tau", "0.1", "--n", "50", "--samples", "20", "--k", str(k)) <= 3 * measured
    assert estimate("--dim-in", "3", "--tau", "0.05") > estimate("--dim-in", "3", "--tau", "0.1") > \
        estimate("--dim-in", "3") > estimate("--dim-in", "2") > estimate("--dim-in", "1")
    monkeypatch.setattr(montecarlo, "default_backend", lambda: "numpy")
    assert estimate(*big) == pytest.approx(cli.RADEMACHER_NUMPY_FACTOR * compiled, rel=1e-12)


def test_theorem1_text_shows_the_terms_and_the_repeats(capsys):
    """theorem1's text output skipped its terms of the bound and its repeats (a dict and a list too long to print
    whole: the probe, Dec 2026); they are printed now, the repeats as a table, equal to --json's to 6 digits."""
    argv = ["theorem1", "--n", "20", "--repeats", "2", "--samples", "200"]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    code, js, err = run(argv + ["--json"], capsys)
    results = json.loads(js)["results"]
    lines = out.splitlines()
    for name, value in results["terms"].items():
        assert any(line.split() == [name, value] for line in lines), name
    header = next(i for i, line in enumerate(lines) if line.strip().startswith("per_repeat (2;"))
    cols = lines[header + 1].split()
    for row, line in zip(results["per_repeat"], lines[header + 2:header + 4]):
        cells = dict(zip(cols, line.split()))
        flags = [c for c in cols if isinstance(row[c], bool)]          # a 95% interval's reliability
        assert all(cells[c] == str(row[c]).lower() or cells[c] == str(row[c]) for c in flags), (cells, row)
        assert all(abs(float(cells[c]) - float(row[c])) <= 1e-5 * abs(float(row[c])) for c in cols
                   if c not in flags), (cells, row)


# ------------------------------------------------------------------ a probe's cases (Dec 2026)
@pytest.mark.parametrize("mixing", ["1e-5000", "1e-400", "1e-320"])
def test_a_mixing_whose_entries_underflow_names_mixing_in_one_short_line(mixing, capsys):
    """M's off-diagonal entries are mixing/N: below the smallest normal double they were refused as
    'M[0][1]: 1/7000...' (536 bytes) or, past 4300 digits, an internal error of int -> str conversion."""
    line = refused(["risk", "--model", "example-a2", "--tau", "0.5", "--k", "10", "--mixing", mixing, "--digits", "5"], capsys)
    assert line.startswith("infonce-sym: error: --mixing: must be 0 or at least") and len(line) < 300, line


def test_the_example_label_keeps_the_decimals_typed(capsys):
    """delta = 0.99999999999999999999999999999 was labelled 1 (Decimal.normalize rounds to 28 digits), and
    1e-999999 was written out in a million characters."""
    code, out, _ = run(["risk", "--model", "example-a2", "--tau", "0.5", "--k", "10", "--digits", "5",
                        "--delta", "0.99999999999999999999999999999"], capsys)
    assert code == 0 and "delta=0.99999999999999999999999999999," in out.splitlines()[0]
    code, out, _ = run(["risk", "--model", "example-a2", "--tau", "0.5", "--k", "10", "--digits", "5",
                        "--delta", "1e-999999"], capsys)
    assert code == 0 and "delta=1E-999999," in out.splitlines()[0] and len(out.splitlines()[0]) < 200
    # the sphere's kappa too (9999.99... to 50 digits was labelled 10000; a probe, Dec 2026)
    for typed, shown in (("9999.9999999999999999999999999999999999999999999999", None), ("2.50", "2.5"),
                         ("1e-300", "1E-300"), ("4", "4")):
        code, out, _ = run(["risk", "--dim", "3", "--kappa", typed, "--tau", "0.5", "--k", "2", "--digits", "5"], capsys)
        assert code == 0 and out.startswith(f"sphere(d=3, kappa={shown or typed})  "), out.splitlines()[0]


@pytest.mark.parametrize("dim, kappa", [(3, "1e-400"), (3, "1e-5000"), (2, "1e-200"), (2, "1e-400")])
def test_a_kappa_below_the_smallest_double_is_the_decimal_typed(dim, kappa, capsys):
    """kappa = 1e-400 (in range) failed with 'ZeroDivisionError: float division by zero' (1/kappa as a double),
    and at d = 2 any kappa below 1e-162 (sphere_mode_theta's (d - 2)^2 + 4 kappa^2 underflowed to 0/0).  Independent
    route: at such kappa every value agrees with kappa = 0 to the digits asked (the kappa-dependence is O(kappa))."""
    def values(k_text):
        code, out, err = run(["risk", "--dim", str(dim), "--kappa", k_text, "--tau", "0.5", "--k", "10", "--digits", "12",
                              "--json"], capsys)
        assert code == 0, err
        return json.loads(out)["results"]
    assert values(kappa) == values("0")


@pytest.mark.parametrize("argv", [["rademacher", "--samples", "2", "--n", "2", "--k", "1", "--radius", "5e-324"],
                                  ["theorem1", "--n", "2", "--k", "2", "--samples", "2", "--repeats", "1", "--radius", "5e-324"],
                                  ["theorem1", "--n", "2", "--k", "2", "--samples", "2", "--repeats", "1", "--delta", "1e-320"]])
def test_a_subnormal_double_is_refused_where_a_command_computes_in_doubles(argv, capsys):
    """radius 5e-324 passed '(0, 10] as a double too' and then divided by R/12 = 0."""
    line = refused(argv, capsys)
    assert "not subnormal" in line and argv[-2] in line
    assert "(0 or" not in line            # 0 is in no such range: it was named as allowed


def test_theorem1_at_the_smallest_normal_delta_has_a_finite_sample_term(capsys):
    """log(2/delta) was evaluated as a double 2/delta, inf for delta < 1.1e-308 (a silently wrong 'inf' rhs);
    now as log 2 - log delta.  Independent route: sqrt(log(2/delta)/(2n)) in mpmath, times 12/tau."""
    delta = "2.2250738585072014e-308"
    code, out, _ = run(["theorem1", "--n", "2", "--k", "2", "--samples", "2", "--repeats", "1", "--delta", delta,
                        "--json"], capsys)
    got = float(json.loads(out)["results"]["terms"]["sample_variability"])
    want = 12 / 0.5 * mpmath.sqrt(mpmath.log(2 / mpmath.mpf(delta)) / 4)
    assert code == 0 and math.isfinite(got) and abs(got - float(want)) < 1e-12 * float(want), (got, want)


def test_json_numbers_keep_the_limits_of_typed_numbers(tmp_path, capsys):
    """A JSON number of 500 digits, or with exponent 999999999, was read (its string form was refused), and a
    5000-digit integer came back whole in a 5 KB message."""
    base = {"M": [[0.5, 0.5], [0.5, 0.5]], "embedding": [[1, 0], [0, 1]]}
    for pi_text, words in (("[0.5" + "0" * 300 + ", 0.5]", "more than the limit of 200"),
                           ("[1" + "0" * 5000 + ", 0.5]", "more than the limit of 200"),
                           ("[0.5, 0.5e-999999999]", "exponent beyond")):
        spec = tmp_path / "spec.json"
        spec.write_text('{"pi": ' + pi_text + ', "M": [[0.5, 0.5], [0.5, 0.5]], "embedding": [[1, 0], [0, 1]]}')
        line = refused(["risk", "--model", "finite", "--spec", str(spec), "--tau", "0.5", "--k", "2"], capsys)
        assert words in line and len(line) < 300, line
    assert base


def test_a_loop_of_symbolic_links_is_named_as_such(tmp_path, capsys):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.symlink_to(b)
    b.symlink_to(a)
    line = refused(["risk", "--model", "finite", "--spec", str(a), "--tau", "0.5", "--k", "2"], capsys)
    assert "a loop of symbolic links" in line
    c = tmp_path / "c.npy"
    c.symlink_to(tmp_path / "missing.npy")
    line = refused(["embeddings", "--anchors", str(c), "--positives", str(c), "--tau", "0.5"], capsys)
    assert "a symbolic link to a missing file" in line


def test_sums_are_shown_as_the_decimals_typed(tmp_path, capsys):
    spec = tmp_path / "spec.json"
    spec.write_text('{"pi": [0.5, 0.6], "M": [[0.5, 0.5], [0.5, 0.5]], "embedding": [[1, 0], [0, 1]]}')
    line = refused(["risk", "--model", "finite", "--spec", str(spec), "--tau", "0.5", "--k", "2"], capsys)
    assert line.endswith("sums to 1.1"), line


def test_derivations_check_treats_a_non_utf8_file_as_stale_and_refuses_two_runs(tmp_path, capsys):
    """A non-UTF-8 file in the directory was an internal error; --check --audit printed the audit and exit 0 whatever
    --check would have said (a probe, Dec 2026)."""
    import shutil
    repo = Path(__file__).resolve().parents[2] / "derivations"
    out = tmp_path / "derivations"
    shutil.copytree(repo, out)
    (out / "A1.32.md").write_bytes(b"\xff\xfe\x00abc")
    assert main(["derivations", "--check", "--out", str(out)]) == 1
    assert "A1.32.md" in capsys.readouterr().out
    assert main(["derivations", "--check", "--audit", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "exclude each other" in err and len(err.strip().splitlines()) == 1
    # --audit and --mutate write nothing: an --out given to them was silently ignored (a probe, Dec 2026)
    for flag in ("--audit", "--mutate"):
        assert main(["derivations", flag, "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "--out" in err and "writes no directory" in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_a_spec_pipe_without_a_writer_waits_no_longer_than_max_seconds(tmp_path):
    fifo = tmp_path / "spec.json"
    os.mkfifo(fifo)
    start = time.monotonic()
    proc = subprocess.run(CLI + ["risk", "--model", "finite", "--spec", str(fifo), "--tau", "0.5", "--k", "8",
                                 "--max-seconds", "1"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "nothing came through the pipe for 1 s" in proc.stderr
    assert time.monotonic() - start < 20


def test_monte_carlo_figures_carry_their_interval_reliability_and_backend(capsys):
    """theorem1 gave its Monte Carlo figures a stderr alone and named no backend; rademacher an estimate and stderr
    without an interval (a probe, Dec 2026).  The interval is the estimate +- Student's t x stderr."""
    from infonce_sym.quantities.montecarlo import quantile95
    code, out, err = run(["theorem1", "--n", "20", "--repeats", "2", "--samples", "300", "--json"], capsys)
    results = json.loads(out)["results"]
    assert code == 0 and err == "" and results["backend"] == "numpy"
    for row in results["per_repeat"]:
        for name in ("lhs", "population_risk"):
            half = quantile95(300) * float(row[f"{name}_stderr"])
            lo, hi = map(float, row[f"{name}_ci95"])
            assert lo == pytest.approx(float(row[name]) - half, rel=1e-12, abs=1e-15)
            assert hi == pytest.approx(float(row[name]) + half, rel=1e-12, abs=1e-15)
            assert isinstance(row[f"{name}_ci95_reliable"], bool)
    code, out, err = run(["rademacher", "--k", "2", "--tau", "0.5", "--n", "10", "--samples", "6", "--json"], capsys)
    r = json.loads(out)["results"]
    half = quantile95(6) * float(r["stderr"])
    assert code == 0 and [float(x) for x in r["ci95"]] == pytest.approx([float(r["estimate"]) - half,
                                                                         float(r["estimate"]) + half], rel=1e-12)
    assert isinstance(r["ci95_reliable"], bool) and r["backend"] in ("numba", "numpy")


def test_version_is_the_installed_distributions(capsys):
    """`infonce-sym --version` prints the version pyproject.toml declares (read here with tomllib), exit 0."""
    import tomllib
    from pathlib import Path
    declared = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]["version"]
    try:
        code = main(["--version"])
    except SystemExit as stop:
        code = stop.code
    out, err = capsys.readouterr()
    assert code == 0 and out.strip() == f"infonce-sym {declared}" and err == ""


def test_text_output_shows_lists_and_truth_values_as_the_json_does(capsys):
    """rademacher's text lines: ci95 as [lo, hi] and complete as true/false (they were Python reprs, ['..', '..'] and
    True), with the numbers of --json."""
    argv = ["rademacher", "--k", "4", "--samples", "4", "--n", "5"]
    code, out, _ = run(argv, capsys)
    lines = {line.split()[0]: line.split(None, 1)[1] for line in out.splitlines() if line.startswith("  ") and line.split()}
    code_json, out_json, _ = run(argv + ["--json"], capsys)
    data = json.loads(out_json)["results"]
    assert code == code_json == 0
    assert lines["ci95"] == "[" + ", ".join(data["ci95"]) + "]"
    assert lines["complete"] == ("true" if data["complete"] else "false")


def test_a_misspelt_option_is_named_beside_the_missing_one(capsys):
    """--ta for --tau (options are not abbreviated): the line names --ta, not only the missing --tau; a negative number
    given as a value is no option."""
    line = refused(["risk", "--ta", "0.5", "--k", "16"], capsys)
    assert "unrecognized arguments: --ta" in line and "--tau" in line
    line = refused(["risk", "--k", "-3"], capsys)
    assert "unrecognized" not in line and "--tau" in line


def test_an_unclosed_file_in_a_run_prints_nothing():
    """The numerical warnings of a run are errors; an unclosed file's ResourceWarning (an import that --max-seconds
    stopped mid-read left one) was too, and its finalizer printed "Exception ignored ... ResourceWarning" beside the stop's
    one line (a fresh-clone CI run, Dec 2026).  A run that drops an open file writes only what it prints itself (in a
    process of its own: pytest would catch the finalizer's report)."""
    import subprocess
    import sys
    code = """if True:
        import argparse, gc, sys
        from infonce_sym.app import cli
        def leaks(args):
            open(cli.__file__, "rb")
            gc.collect()
            print("done")
            return 0
        sys.exit(cli._run(argparse.Namespace(command="risk", func=leaks, json=True)))
    """
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout == "done\n" and done.stderr == "", done.stderr
