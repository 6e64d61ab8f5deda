"""`infonce-sym rademacher` with several --k or --tau: a sweep over tau x k through the executor of
--workers / --scheduler (issue 11, item 4), each point the single-point command's numbers."""
import json

import pytest

from infonce_sym.app import cli
from infonce_sym.app.cli import main

SIZES = ["--n", "10", "--samples", "4", "--seed", "3"]
NUMBERS = ("estimate", "stderr", "lower_estimate", "bound_prop5", "bound_sharpened", "bound_lipschitz_route",
           "bound_lipschitz_route_exact", "certificate", "complete")


def _json(argv, capsys):
    code = main(argv + ["--json"])
    out, err = capsys.readouterr()
    assert code == 0 and "Traceback" not in err and "internal error" not in err, err
    return json.loads(out)


def test_a_sweep_is_the_single_point_runs_on_any_number_of_workers(capsys):
    """Rows in the order tau, then k, both increasing whatever the order typed; each row has the
    numbers of the command run at that point alone (a separate run, the route of one point); a pool
    of two processes gives the same rows as this process."""
    argv = ["rademacher", "--k", "4,1", "--tau", "1,0.5", *SIZES]
    here = _json(argv, capsys)["points"]
    pool = _json(argv + ["--workers", "2"], capsys)["points"]
    assert [(row["tau"], row["k"]) for row in here] == [("0.5", 1), ("0.5", 4), ("1", 1), ("1", 4)]
    strip = lambda rows: [{key: v for key, v in row.items() if key != "seconds"} for row in rows]  # noqa: E731
    assert strip(here) == strip(pool)
    for row in here:
        alone = _json(["rademacher", "--k", str(row["k"]), "--tau", row["tau"], *SIZES], capsys)["results"]
        assert {key: row[key] for key in NUMBERS} == {key: alone[key] for key in NUMBERS}, row
        assert float(row["lower_estimate"]) <= float(row["estimate"]) <= float(row["bound_sharpened"])


def test_the_sweep_table_shows_every_point(capsys):
    code = main(["rademacher", "--k", "1,4", "--tau", "0.5", *SIZES])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("rademacher sweep: data=gaussian") and "d_Theta = 2" in lines[0]
    assert lines[1].split()[:3] == ["tau", "k", "estimate"]
    rows = [line.split() for line in lines[2:-1]]
    # the columns that no registered statement gives are starred and said so
    assert [c for c in lines[1].split() if c.endswith("*")] == ["exact*", "exact*"]
    assert lines[-1].strip().startswith("Prop. 5 is the registered P5") and "(18) route P5.lip" in lines[-1] \
        and "* numbers that no registered" in lines[-1]
    points = _json(["rademacher", "--k", "1,4", "--tau", "0.5", *SIZES], capsys)["points"]
    assert [(r[0], r[1]) for r in rows] == [("0.5", "1"), ("0.5", "4")]
    assert [float(r[2]) for r in rows] == [float(f"{float(p['estimate']):.6g}") for p in points]


@pytest.mark.parametrize("flag, text, shown", [("--k", "4,1e0,1", "1"), ("--tau", "0.1,0.10", "0.10"),
                                                ("--tau", "0.5,", "0.5,"), ("--k", "2,0", "0"),
                                                ("--tau", "0.1,0.10000000000000000001", "same double")])
def test_a_value_given_twice_or_out_of_range_is_refused(capsys, flag, text, shown):
    argv = ["rademacher", *SIZES, flag, text]
    code = main(argv)
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == 2 and out == "" and len(lines) == 1, err
    assert lines[0].startswith(f"infonce-sym: error: {flag}:") and shown in lines[0]


def test_the_estimate_of_a_sweep_is_the_sum_of_its_points_shared_by_the_workers():
    parser = cli.build_parser()

    def estimate(*extra):
        args = parser.parse_args(["rademacher", "--n", "50", "--samples", "100", *extra])
        cli._read_options(args)
        return args.estimated_seconds
    singles = sum(estimate("--k", str(k), "--tau", tau) for k in (16, 256) for tau in ("0.05", "0.5"))
    assert estimate("--k", "16,256", "--tau", "0.05,0.5") == pytest.approx(singles, rel=1e-12)
    assert estimate("--k", "16,256", "--tau", "0.05,0.5", "--workers", "4") == pytest.approx(singles / 4, rel=1e-12)
    assert estimate("--k", "16,256", "--tau", "0.05,0.5", "--workers", "8") == pytest.approx(singles / 4, rel=1e-12)


def test_one_point_with_a_scheduler_runs_there_and_gives_the_local_numbers(capsys):
    """--scheduler with a single (tau, k) ran the point here and never read the address (a probe: exit 0 with
    '--scheduler foo'); now the point is a work unit on the cluster, with the numbers of the local run."""
    distributed = pytest.importorskip("distributed")
    argv = ["rademacher", "--k", "2", "--tau", "0.5", *SIZES]
    here = _json(argv, capsys)["results"]
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        there = _json(argv + ["--scheduler", cluster.scheduler_address], capsys)["results"]
    assert {key: here[key] for key in NUMBERS} == {key: there[key] for key in NUMBERS}
    assert main(argv + ["--scheduler", "foo"]) == 2
    assert "--scheduler" in capsys.readouterr().err
