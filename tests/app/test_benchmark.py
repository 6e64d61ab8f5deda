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
