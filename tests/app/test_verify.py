"""`infonce-sym verify --quick` end to end: every verdict as expected, report files complete."""
import json

from infonce_sym.app.cli import main


def test_verify_quick_writes_a_complete_report(tmp_path, capsys):
    code = main(["verify", "--quick", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    data = json.loads((tmp_path / "report.json").read_text())
    checks = {c["id"]: c for c in data["checks"]}
    for entry in data["checks"]:
        assert {"id", "paper_ref", "verdict", "expected", "details"} <= set(entry)
        assert entry["verdict"] == entry["expected"]
    for cid in ("P1", "DCL-11", "L4", "P2", "DCL-12", "L3", "Q-bounds", "L2", "A2", "ASYMPTOTICS",
                "MC-vs-exact", "P4", "P4-sharp", "LIP-17", "LIP-18", "P5", "T1"):
        assert cid in checks, cid
    assert checks["P4"]["details"]["constants"] == [4, 1, 3]
    assert checks["P4-sharp"]["details"]["constants"] == [2, 1, 1]
    assert "form" in checks["LIP-18"]["details"] and "form" in checks["LIP-17"]["details"]
    assert any(c.startswith("derivation:") and checks[c]["verdict"] == "proved" for c in checks)
    assert (tmp_path / "report.md").read_text().count("|") > 50
    assert list(tmp_path.glob("*.png"))
