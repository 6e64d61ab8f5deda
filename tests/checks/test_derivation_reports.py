"""A failed derivation names its failed steps, in the check result and in report.json."""
import json

import sympy as sp

from infonce_sym.checks.derivations import derivation_check
from infonce_sym.proofs.chain import Derivation, Identity, NonNegative, Step, eq, le

x = sp.Symbol("x", positive=True)


def _toy():
    """(x + 1)^2 <= x^2 + 2x + 2, in two CAS-checked steps."""
    return Derivation("toy", "a toy bound", "none", (x + 1) ** 2, "le", x ** 2 + 2 * x + 2,
                      [Step("expand", "(1)", eq((x + 1) ** 2, x ** 2 + 2 * x + 1), "binomial", Identity()),
                       Step("1 <= 2", "(2)", le(x ** 2 + 2 * x + 1, x ** 2 + 2 * x + 2), "", NonNegative([1]))])


def test_a_mutated_step_is_named_in_the_check_and_the_report(tmp_path):
    ok = derivation_check(_toy())
    assert ok.verdict == "proved" and ok.details["failed_steps"] == []
    bad = _toy()
    bad.steps[0].claim = eq((x + 1) ** 2, x ** 2 + 3 * x + 1)           # a wrong expansion
    res = derivation_check(bad)
    assert res.verdict != "proved" and not res.ok
    assert "expand" in [f["step"] for f in res.details["failed_steps"]]
    from infonce_sym.app import report
    report.write(tmp_path, [ok, res], [], {"mode": "test", "checks": 2, "differ": 1})
    data = json.loads((tmp_path / "report.json").read_text())
    failed = [c for c in data["checks"] if c["verdict"] != "proved"]
    assert [f["step"] for f in failed[0]["details"]["failed_steps"]][0] == "expand"


def test_a_broken_link_and_a_wrong_end_are_named():
    bad = _toy()
    bad.steps[1] = Step("2 <= 2", "(2)", le(x ** 2 + 2 * x, x ** 2 + 2 * x + 2), "", NonNegative([2]))
    res = derivation_check(bad)                                       # true, but not connected
    kinds = [f["step"] for f in res.details["failed_steps"]]
    assert "link" in kinds and "2 <= 2" not in kinds
    bad = _toy()
    bad.statement = x ** 2 + 2 * x + 3
    res = derivation_check(bad)
    assert [f["step"] for f in res.details["failed_steps"]] == ["chain"]


def test_derivations_check_names_a_failed_chain_and_its_step(capsys, monkeypatch, tmp_path):
    """`infonce-sym derivations --check` exits 1 and names the failed chain and its step."""
    from infonce_sym.app.cli import main
    from infonce_sym.proofs import render
    bad = _toy()
    bad.steps[0].claim = eq((x + 1) ** 2, x ** 2 + 3 * x + 1)
    monkeypatch.setattr(render, "all_derivations", lambda: [_toy(), bad])
    monkeypatch.setattr(render, "render_index", lambda ds, rs: "index\n")
    (tmp_path / "README.md").write_text("index\n")          # a rendered directory to check against
    code = main(["derivations", "--check", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1
    failed = [line for line in out.splitlines() if line.startswith("failed: ")]
    assert len(failed) == 1 and failed[0].startswith("failed: toy: expand (1):")
