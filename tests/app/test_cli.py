"""The command line: JSON shapes, exit status 2 with one line for bad input, no tracebacks."""
import json
import subprocess
import sys

import mpmath
import pytest

from infonce_sym.app.cli import main


def run(*args):
    proc = subprocess.run([sys.executable, "-m", "infonce_sym.app.cli", *args], capture_output=True, text=True,
                          timeout=600)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.parametrize("args,param", [
    (["risk", "--tau", "0", "--k", "3"], "tau"),
    (["risk", "--tau", "-1", "--k", "3"], "tau"),
    (["risk", "--tau", "nan", "--k", "3"], "tau"),
    (["risk", "--tau", "inf", "--k", "3"], "tau"),
    (["risk", "--tau", "0.5", "--k", "0"], "k"),
    (["risk", "--tau", "0.5", "--k", "x"], "k"),
    (["risk", "--tau", "0.5", "--k", "3", "--dim", "1"], "dim"),
    (["risk", "--tau", "0.5", "--k", "3", "--kappa", "-2"], "kappa"),
    (["risk", "--tau", "0.5", "--k", "3", "--digits", "4"], "digits"),
    (["risk", "--tau", "0.5", "--k", "3", "--digits", "1001"], "digits"),
    (["risk", "--tau", "0.5", "--k", "3", "--loss", "nce"], "loss"),
    (["mc", "--tau", "0.5", "--k", "3", "--samples", "0", "--seed", "1"], "samples"),
    (["expand", "--tau", "0", "--json"], "tau"),
])
def test_bad_input_exits_2_with_one_line(args, param, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{param}:" in err[0] and "Traceback" not in err[0]


def test_malformed_specs(tmp_path, capsys):
    cases = {
        "notjson.json": "{pi: }",
        "missing.json": json.dumps({"pi": [1.0]}),
        "pi.json": json.dumps({"pi": [0.5, 0.6], "M": [[1, 0], [0, 1]], "embedding": [[1, 0], [0, 1]]}),
        "M.json": json.dumps({"pi": [0.5, 0.5], "M": [[0.9, 0], [0, 1]], "embedding": [[1, 0], [0, 1]]}),
        "norm.json": json.dumps({"pi": [0.5, 0.5], "M": [[1, 0], [0, 1]], "embedding": [[1, 0.1], [0, 1]]}),
        "shape.json": json.dumps({"pi": [0.5, 0.5], "M": [[1, 0, 0], [0, 1, 0]], "embedding": [[1, 0], [0, 1]]}),
    }
    expected = {"notjson.json": "spec:", "missing.json": "spec:", "pi.json": "pi:", "M.json": "M:",
                "norm.json": "embedding:", "shape.json": "M:"}
    for name, text in cases.items():
        path = tmp_path / name
        path.write_text(text)
        assert main(["risk", "--model", "finite", "--spec", str(path), "--tau", "0.5", "--k", "2"]) == 2
        assert expected[name] in capsys.readouterr().err


def test_risk_json_subprocess_and_digits():
    code, out, err = run("risk", "--model", "sphere", "--dim", "3", "--kappa", "2", "--tau", "0.5",
                         "--k", "1000", "--digits", "20", "--json")
    assert code == 0, err
    data = json.loads(out)
    for key in ("risk", "cross_entropy_limit", "search_cross_entropy", "density_ratio_second_moment"):
        assert isinstance(data[key], str)
    mantissa = data["risk"].lstrip("-").split("e")[0].replace(".", "").lstrip("0")
    assert len(mantissa) == 20
    # closed form of the k -> oo limit on the sphere, d = 3
    with mpmath.workdps(30):
        limit = -(1 / mpmath.tanh(2) - mpmath.mpf(1) / 2) / mpmath.mpf("0.5") + mpmath.log(mpmath.sinh(2) / 2)
        assert abs(mpmath.mpf(data["cross_entropy_limit"]) - limit) < mpmath.mpf(10) ** -19


def test_mc_and_expand_json(tmp_path, capsys):
    assert main(["mc", "--tau", "0.5", "--k", "8", "--samples", "2000", "--seed", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    for key in ("risk", "cross_entropy_limit", "search_cross_entropy", "density_ratio_second_moment"):
        lo, hi = data[key]["ci95"]
        assert lo <= data[key]["estimate"] <= hi and data[key]["stderr"] > 0
    assert main(["expand", "--tau", "0.5", "--json"]) == 0
    consts = json.loads(capsys.readouterr().out)
    assert set(consts) == {"c1", "c2", "d1", "d2"}
    assert all(isinstance(v, str) for v in consts.values())
