"""The benchmark's plumbing (not its speed): JSON output, sections, refusals."""
import json

import pytest

from infonce_sym.app import benchmark


def test_json_output_of_one_section(capsys):
    assert benchmark.main(["--quick", "--json", "--only", "sampler"]) == 0
    out = json.loads(capsys.readouterr().out)
    r = out["sections"]["sampler"]
    assert set(out["sections"]) == {"sampler"} and out["quick"] is True
    assert r["dim"] == 128 and r["numpy_ziggurat_per_second"] > 0 and r["numpy_uniform_per_second"] > 0


def test_registered_section_is_run(capsys, monkeypatch):
    monkeypatch.setitem(benchmark.SECTIONS, "probe", lambda quick, state: {"quick": quick, "value": 42})
    assert benchmark.main(["--json", "--only", "probe"]) == 0
    assert json.loads(capsys.readouterr().out)["sections"] == {"probe": {"quick": False, "value": 42}}
    assert benchmark.main(["--only", "probe"]) == 0                 # unknown sections print as JSON lines
    assert '"value": 42' in capsys.readouterr().out


def test_unknown_section_is_refused(capsys):
    assert benchmark.main(["--only", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--only" in err and "nope" in err


@pytest.mark.parametrize("only", [",", "", " , "])
def test_an_empty_section_list_is_refused_not_read_as_every_section(capsys, only):
    """'--only ,' once ran every section (minutes): an empty list is refused, through the CLI too."""
    from infonce_sym.app.cli import main
    assert benchmark.main(["--only", only]) == 2
    assert main(["bench", "--only", only]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 2 and err.count("no section named") == 2


def test_monte_carlo_ratios_paired_per_repetition(monkeypatch):
    """The Monte Carlo section's ratios (plumbing, not speed): with the limits and runs timed by a fake
    clock, ratio_to_limit is best throughput / best limit and ratio_to_limit_paired the median of the
    per-repetition ratios, each throughput over the limit measured in its own repetition."""
    import itertools
    # every call of _best returns the next wall time: per repetition the limits (numpy, numpy two exps,
    # numba, numba two exps; elements 1 each) and then the 8 runs (2 cases x 2 backends x search or not)
    walls = itertools.cycle([1.0, 1.0, 0.25, 0.25] + [4.0] * 8 +       # limit 4/s, runs n/4 per s: n/16
                            [1.0, 1.0, 1.0, 1.0] + [1.0] * 8 +          # limit 1/s, runs n per s: n
                            [1.0, 1.0, 1.0, 1.0] + [2.0] * 8)           # limit 1/s, runs n/2 per s: n/2
    monkeypatch.setattr(benchmark, "_best", lambda fn, repeat=1: (
        {"risk": {"estimate": 0.0, "stderr": 0.0}}, next(walls), 1.0))
    monkeypatch.setattr(benchmark, "_numpy_limit", lambda total, two=False: (1, None))
    monkeypatch.setattr(benchmark, "_numba_limit", lambda total, two=False: (1, None))
    monkeypatch.setattr(benchmark, "_backends", lambda: ["numpy", "numba"])
    monkeypatch.setattr(benchmark, "monte_carlo", lambda *a, **k: None)     # the warm-up runs
    monkeypatch.setattr(benchmark, "REPEAT", 3)
    r = benchmark.section_monte_carlo(True, {"progress": False})
    assert len(r["cases"]) == 4
    for c in r["cases"]:
        n = c["k"] * c["samples"]
        for q in ("all_quantities", "risk_only"):
            assert c[q]["ratio_to_limit"] == pytest.approx(n / 4)          # best run n/s over best limit 4/s
            assert c[q]["ratio_to_limit_paired"] == pytest.approx(n / 2)   # median of n/16, n, n/2
