"""The verify report: statements from the registry, margins defined per verdict, tightness from the
worst point, numeric checks before derivations, a console table whose cells fit their columns."""
import io
import json

import sympy as sp

from infonce_sym.app import report
from infonce_sym.app.cli import _Progress
from infonce_sym.checks.results import CheckResult
from infonce_sym.proofs.statement_registry import statement

LONG_REF = "Prop. 1, eq. (6), with the constant of Lemma 4 and a reference far longer than any column"


def _results():
    return [
        CheckResult("derivation:P1.upper", "Prop. 1", "upper bound", "proved", "proved",
                    details={"steps": 5, "failed_steps": []}),
        CheckResult("P1", LONG_REF, "Prop. 1 on the grid", "holds", "holds", margin=0.25,
                    details={"points": 12, "worst_point": {"model": "sphere(d=3, kappa=4)", "tau": 0.5, "k": 10,
                                                           "side": "upper", "bound": 3.0, "value": 1.5},
                             "margin_is": "relative: (bound - value)/max(|bound|, |value|)"}),
        CheckResult("MC-vs-exact", "eqs. (2), (9)", "Monte Carlo agrees", "consistent", "consistent", margin=3.03,
                    details={"points": []}),
        CheckResult("LIP-17", "eq. (17)", "attacked", "violated", "holds", margin=-0.5,
                    details={"worst_ratio_actual_over_bound": 1.5, "witness": {"tau": 0.1}}),
        CheckResult("derivation:L4", "Lemma 4", "gap", "proved", "proved", details={"steps": 3,
                                                                                    "failed_steps": ["s2"]}),
    ]


def test_console_table_cells_fit_their_columns():
    text = report.table(_results(), width=100)
    lines = text.splitlines()
    assert all(len(line.split("  <--")[0]) <= 100 for line in lines)
    row = next(line for line in lines if line.startswith("P1 "))
    assert "…" in row and LONG_REF not in row                  # cut with an ellipsis
    # the verdict column starts at the same offset in the header and in the row
    head = next(line for line in lines if line.startswith("result"))
    assert row[head.index("verdict"):].startswith("holds")
    # numeric checks come first, derivations in their own block
    assert text.index("numeric checks") < text.index("derivations") < text.index("P1.upper")
    assert "<-- differs from expected" in next(line for line in lines if line.startswith("LIP-17"))


def test_report_md_states_what_each_check_asserts(tmp_path):
    paths = report.write(tmp_path, _results(), [], {"mode": "quick", "checks": 5, "differ": 1})
    md = paths["markdown"].read_text()
    # the statement comes from the registry (the same SymPy object the derivation proves)
    assert sp.latex(statement("P1.upper").expr) in md and sp.latex(statement("P1.lower").expr) in md
    assert md.index("## Numeric checks") < md.index("## Derivations")
    numeric = md.split("## Numeric checks")[1].split("## Derivations")[0]
    assert "| P1 |" in numeric and "derivation:" not in numeric and "| P1.upper |" not in numeric
    # one definition of the margin per kind of verdict, written in the report
    for verdict in ("holds", "consistent", "proved", "violated"):
        assert md.count(f"- **{verdict}**:") == 1
    # where the worst point is, and the tightness bound/value = 3.0/1.5 there
    p1 = next(line for line in numeric.splitlines() if line.startswith("| P1 |"))
    assert "tau=0.5" in p1 and "k=10" in p1 and "| 2 (bound / exact at the worst point)" in p1
    # an attack's tightness: 1 / (actual/bound)
    lip = next(line for line in numeric.splitlines() if line.startswith("| LIP-17 |"))
    assert "0.667" in lip
    # failed derivation steps are listed
    assert "| s2 |" in md.split("## Derivations")[1]
    assert json.loads(paths["json"].read_text())["meta"]["differ"] == 1


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_progress_within_a_stage_on_a_terminal():
    stream = _Tty()
    with _Progress(stream) as p:
        p.within("Section 4", 3, 10)
        assert "Section 4 3/10" in p._line()
        p.stage_done("Section 4", 1.5)
    assert "[verify] Section 4: 1.5s" in stream.getvalue()
    quiet = io.StringIO()                       # not a terminal: nothing (issue 11 item 5)
    with _Progress(quiet) as p:
        p.within("Section 4", 3, 10)
        p.stage_done("Section 4", 1.5)
    assert quiet.getvalue() == ""
    terminal_json = _Tty()                      # a terminal with --json: nothing either
    with _Progress(terminal_json, quiet=True) as p:
        p.within("Section 4", 3, 10)
        p.stage_done("Section 4", 1.5)
    assert terminal_json.getvalue() == ""


def test_report_names_a_special_case_and_a_check_s_own_tightness(tmp_path):
    """L6 is proved for finitely supported mu only: its row says so (the report said "proved" alone); P5's tightness
    is bound / a Monte Carlo estimate, not "exact" (a probe, Dec 2026)."""
    from infonce_sym.checks.derivations import derivation_check
    from infonce_sym.proofs.register import derivation
    l6 = derivation_check(derivation("L6"))
    assert derivation("L6").generality and l6.details["generality"] == derivation("L6").generality
    p5 = CheckResult("P5", "Prop. 5", "Rademacher", "consistent", "consistent", margin=0.5, tightness=651.0,
                     details={"tightness_is": "the smallest bound/estimate over the points: more words"})
    md = report.write(tmp_path, [p5, l6], [], {"mode": "quick", "checks": 2, "differ": 0})["markdown"].read_text()
    row = next(line for line in md.splitlines() if line.startswith("| L6 |"))
    assert "only a special case: " + derivation("L6").generality.split(",")[0] in row.replace("\\|", "|")
    p5_row = next(line for line in md.splitlines() if line.startswith("| P5 |"))
    assert "651 (the smallest bound/estimate over the points)" in p5_row and "exact at" not in p5_row


def test_a_derivation_row_names_what_the_chain_defines(tmp_path):
    """L5's statement speaks of T := sum_j e^{...} (its "where" line); the report's row said nothing of it (a probe,
    Dec 2026).  The names come from the run, the same ones the rendered derivation lists."""
    from infonce_sym.checks.derivations import derivation_check
    from infonce_sym.proofs.chain import statement_definitions
    from infonce_sym.proofs.register import derivation
    check = derivation_check(derivation("L5"))
    names = [str(s) for s, _ in statement_definitions(derivation("L5"))]
    assert names and check.details["defines"] == names
    md = report.write(tmp_path, [check], [], {"mode": "quick", "checks": 1, "differ": 0})["markdown"].read_text()
    row = next(line for line in md.splitlines() if line.startswith("| L5 |"))
    assert "names defined by the chain (in the statement or its assumptions): " + ", ".join(names) in row.replace("\\|", "|")
