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
    assert err.count("\n") == 2 and err.count("infonce-sym: error: --only: no section named") == 2


def test_an_empty_name_in_the_section_list_is_refused(capsys):
    """'exact,' was read as 'exact', where risk --k 10, is refused (the probe, Dec 2026)."""
    assert benchmark.main(["--only", "exact,"]) == 2
    assert capsys.readouterr().err == "infonce-sym: error: --only: an empty section name in 'exact,' (one of " \
        + ", ".join(benchmark.SECTIONS) + ")\n"


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


def test_exact_digits_counts_the_values_within_two_seconds(capsys, monkeypatch):
    """The exact_digits section (plumbing, not speed): per digits, how many values took at most 2 s CPU,
    the slowest, and the failures (a failed point is not counted as fast), in JSON and in the text."""
    from infonce_sym.quantities import exact
    fake = {15: [1.0, 3.0, 0.5], 100: [1.5, 40.0, 9.0]}

    def benchmark_exact(digits, points, sweep, out):
        assert sweep is None and len(points) == 2          # quick: two points, no k sweep
        rows = [{"d": 3, "kappa": 1.0, "tau": "0.1", "k": 2, "cpu_seconds": t, "agreement_digits": digits + 9.0,
                 "status": "ok" if i < 2 else "ArithmeticError: x"} for i, t in enumerate(fake[digits])]
        return {"points": rows}
    monkeypatch.setattr(exact, "benchmark_exact", benchmark_exact)
    r = benchmark.section_exact_digits(True, {"progress": False})
    assert set(r) == {"15", "100"}
    assert (r["15"]["within_2_seconds"], r["15"]["max_cpu_seconds"], r["15"]["failed"]) == (1, 3.0, 1)
    assert (r["100"]["within_2_seconds"], r["100"]["max_cpu_seconds"], r["100"]["failed"]) == (1, 40.0, 1)
    benchmark._print_sections({"exact_digits": r})
    text = capsys.readouterr().out
    assert "at 100 digits" in text and "1 of 3 within 2 s, the slowest 40.00 s, 1 failed" in text
    # every point failed: no slowest, and the text says so instead of failing to format None
    monkeypatch.setattr(exact, "benchmark_exact", lambda digits, points, sweep, out: {"points": [
        {"d": 3, "kappa": 1.0, "tau": "0.1", "k": 2, "cpu_seconds": 1.0, "agreement_digits": float("nan"),
         "status": "ArithmeticError: x"}]})
    r = benchmark.section_exact_digits(True, {"progress": False})
    assert r["15"]["max_cpu_seconds"] is None and r["15"]["within_2_seconds"] == 0 and r["15"]["failed"] == 1
    benchmark._print_sections({"exact_digits": r})
    assert "0 of 1 within 2 s, the slowest (none succeeded), 1 failed" in capsys.readouterr().out


def test_the_command_line_help_names_every_section(capsys):
    """``infonce-sym bench --help`` lists the sections from cli.BENCH_SECTIONS (the benchmark module is
    not imported for the help text): the two must name the same sections, in the same order."""
    from infonce_sym.app import cli
    assert cli.BENCH_SECTIONS == tuple(benchmark.SECTIONS)
    assert cli.main(["bench", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert ", ".join(benchmark.SECTIONS) in text


def test_the_verify_section_reads_as_text(capsys):
    """bench's text printed the verify section as a raw JSON dict; it is a sentence with every stage."""
    r = {"wall_seconds": 21.93, "checks": 97, "differ": 0, "stage_seconds": {"derivations": 14.6, "Monte Carlo": 0.5}}
    benchmark._print_sections({"verify": r})
    line = capsys.readouterr().out.strip()
    assert line == ("verify --quick on two local workers: 21.9 s wall, 97 checks, 0 differ from their expected "
                    "verdict; each stage's units (s): derivations 14.6, Monte Carlo 0.5")


def test_a_throughput_below_a_million_keeps_its_digits():
    # the naive baseline printed as "0.0 M/s" beside a speed-up of x6680 (a probe, Dec 2026)
    assert benchmark._m(46295.0).split() == ["46.3", "k/s"] and benchmark._m(3.052e8).split() == ["305.2", "M/s"]


def test_a_ratio_above_one_is_said_to_be_no_measurement(capsys):
    def case(ratio):
        q = {"per_second": 1e8, "ratio_to_limit": ratio, "ratio_to_limit_paired": ratio, "ratio_to_two_exp_limit": ratio,
             "speedup_over_numpy": 1.0, "risk": 0.1, "risk_stderr": 0.01}
        return {"k": 4096, "samples": 10, "backend": "numba", "all_quantities": q, "risk_only": q}
    lim = {"numpy": {"per_second": 1e8}, "numba": {"per_second": 1e8}, "best_per_second": 1e8}
    for ratio, noted in ((0.8, False), (1.3, True)):
        benchmark._print_monte_carlo({"model": "m", "tau": 0.1, "limit": lim, "two_exp_limit": lim, "cases": [case(ratio)],
                                      "default_backend": "numba", "numba_threads": 2})
        assert ("a ratio above 1 means the limit's runs were slowed" in capsys.readouterr().out) is noted
