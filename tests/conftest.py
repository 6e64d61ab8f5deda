"""Test scheduling only (no fixtures, no checks): which tests share a worker, and which start first.

With `--dist loadgroup` (pyproject.toml) pytest-xdist hands out tests one at a time, except those
of SHARE_DERIVATION_RUNS, which go to one worker together, so that the chains they need run once
there and their memoised canonical forms serve each other. (xdist's own `xdist_group` mark does not group under pytest 9:
xdist 3.8 renames `item._nodeid`, which pytest 9 no longer reads; the grouping is done here.)
The known-long tests start first (longest-processing-time-first), so that the two workers of a
2-core machine end together instead of one waiting on a long test started last. Neither changes
what any test checks. SymPy's cache size is set as the package sets it (infonce_sym/__init__.py), before
any test module imports SymPy."""
import gc
import os

import pytest

os.environ.setdefault("SYMPY_CACHE_SIZE", "100000")     # read once, when SymPy is first imported

# the tests that run registered chains: every chain (~35 s a process), a few with their citations, their
# mutants, or verify --quick's module fixture (which runs most derivation units in its own process).  One
# work unit, so that one process runs each chain once (chain.cited_result), builds the registry once and
# memoises the canonical forms (chain.canon, chain.numerically_zero) that the mutants of later chains meet.
# The five proofs files with verify's took 187 s CPU in one process (Dec 2026), 200 s in the per-test
# CPU of a two-worker run that split them; the mutants alone in one process 40 s, after the verdicts 27 s.
# The whole suite, idle, 2 workers, with the gc.freeze below: 283 s wall, 530 s CPU in tests; with the two
# groups this replaced (the listed tests of the five files and verify's; the mutants), 301 s and 565 s.
SHARE_DERIVATION_RUNS = (
    "tests/proofs/test_section3_derivations.py",
    "tests/proofs/test_section4_derivations.py",
    "tests/proofs/test_prove_cli.py",
    "tests/proofs/test_continuity.py",
    "tests/proofs/test_expansions.py",
    "tests/app/test_verify.py",                      # one verify --quick (its fixture is module-scoped)
    # derivations --check in this process (it runs every chain: 26-39 s in a process of its own)
    "tests/app/test_cli_contract.py::test_derivations_check_treats_a_non_utf8_file_as_stale_and_refuses_two_runs",
    # every statement's verdict: every chain (35-80 s CPU in the other worker, Dec 2026; its runs are this group's)
    "tests/proofs/test_statement_registry.py::test_every_statement_carries_its_verdict_and_what_its_names_mean",
)

# nodeid prefixes, longest first (per-test CPU seconds measured on 2 cores, Dec 2026); a prefix that
# no longer matches anything is harmless
LONG_FIRST = (
    "tests/app/test_verify.py",                      # one verify --quick, partly on a Dask LocalCluster
    "tests/proofs/test_section3_derivations.py::test_every_step_fails_when_mutated",    # one unit (above)
    "tests/proofs/test_section3_derivations.py::test_sampled_mutants_of_every_kind_are_killed",
    "tests/proofs/test_section3_derivations.py::test_sampled_mutants_of_the_integral_chains_are_killed",
    "tests/quantities/test_exact_concentrated.py",
    "tests/quantities/test_exact.py::test_sphere_hard_cases_against_reference",
    "tests/quantities/test_rademacher.py::test_sibling_passes_match_cube_by_cube",   # 7-13 s each
    "tests/proofs/test_expansions.py::test_mutants_of_the_remainder_bounds_killed",
    "tests/proofs/test_prove_cli.py::test_prove_p4_sharp_111_fails_at_a_named_step",
    "tests/proofs/test_section4_derivations.py::test_lemma1_with_111_is_not_proved",
    "tests/proofs/test_prove_cli.py::test_audit_json",
    "tests/app/test_notebooks.py::test_notebook_executes",
    "tests/quantities/test_exact_finite.py",
    "tests/app/test_cli_contract.py::test_ctrl_c_during_verify",
    "tests/app/test_cli_contract.py::test_digits_100_is_confirmed",
    "tests/proofs/test_section3_derivations.py::test_rendered_files_are_up_to_date",
)


# After collection and after each test, every object alive is moved out of the collector's generations
# (gc.freeze): SymPy's caches and the chains' memos grow to ~2 million objects a process, which every
# full collection scanned again (43 of them in a worker, 25-32 s; Dec 2026). Cyclic garbage still goes at
# the young collections of the test that made it; a cycle that outlives its test's young collections stays.
# The collector's behaviour only: what a test checks is unchanged.
def pytest_collection_finish(session):
    gc.freeze()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    try:
        return (yield)
    finally:
        gc.freeze()


def _rank(nodeid):
    for i, prefix in enumerate(LONG_FIRST):
        if nodeid.startswith(prefix):
            return i
    return len(LONG_FIRST)


def pytest_collection_modifyitems(session, config, items):
    """Stable sort: the listed tests first, in the order listed; every other test keeps its place."""
    items.sort(key=lambda item: _rank(item.nodeid))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """`--dist loadgroup`: one test per work unit, one unit for SHARE_DERIVATION_RUNS (and the `@group`
    suffix of xdist_group marks honoured, should xdist add it again)."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class OneTestOrTheGroup(LoadGroupScheduling):
        def _split_scope(self, nodeid):
            scope = super()._split_scope(nodeid)
            if scope != nodeid:                          # an xdist_group suffix
                return scope
            if any(nodeid.startswith(t) for t in SHARE_DERIVATION_RUNS):
                return "derivation-runs"
            return nodeid

    return OneTestOrTheGroup(config, log)
