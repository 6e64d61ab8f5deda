"""Fuzzing the command line (issue 8): random and adversarial argument lists, option values, number
texts and finite-model files. Every run ends with exit 0, 1 or 2 within a time bound, prints at most
one line on stderr, never a traceback, an internal error or a warning. Work is stubbed out (the
commands' validation is what is fuzzed) except for a few tiny real runs."""
import json
import string
import time
import warnings
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

import infonce_sym.app.cli as cli
from infonce_sym.errors import InputError, read_int, read_real

FAST = settings(max_examples=60, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
COMMANDS = ("risk", "mc", "expand", "verify", "rademacher", "theorem1", "derivations", "bench")

ADVERSARIAL = ["", " ", "-", "--", "-1", "0", "1", "-0", "+1", "1e3", "1e-3", "1.5", "nan", "NaN", "inf",
               "-inf", "Infinity", "1e999999999", "1e-999999999", "9" * 300, "0x10", "1_000", "１", "½",
               "1/3", "0.1.2", "1e", ".", "e5", "--tau", "-h", "\x00", "\n", "\x1b[31m", "é", "None",
               "true", "[]", "{}", "0.5 ", " 0.5", "1e+3", "2**10", "3j", "∞", "/dev/zero", "/", "."]


def numberish():
    """Texts near and far from the valid ranges."""
    return st.one_of(
        st.sampled_from(ADVERSARIAL),
        st.integers(-10**40, 10**40).map(str),
        st.decimals(allow_nan=True, allow_infinity=True).map(str),
        st.floats().map(repr),
        st.builds(lambda m, e: f"{m}e{e}", st.integers(-999, 999), st.integers(-400, 400)),
        st.text(alphabet=string.printable, max_size=12),
        st.text(max_size=6),
    )


def _options(command):
    action = next(a for a in cli.build_parser()._actions if a.__class__.__name__ == "_SubParsersAction")
    sub = action.choices[command]
    flags = [a.option_strings[-1] for a in sub._actions if a.option_strings and a.dest != "help"]
    return [f for f in flags if f.startswith("--")]


def invoke(argv, capsys, bound=10.0):
    """main(argv) in process; returns (code, err) after checking the contract."""
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        code = cli.main(argv)
    elapsed = time.perf_counter() - t0
    out, err = capsys.readouterr()
    assert code in (0, 1, 2), (argv, code, err)
    lines = err.strip().splitlines()
    assert len(lines) <= 1, (argv, err)
    assert "Traceback" not in err and "internal error" not in err and "Warning" not in err, (argv, err)
    if code == 2:
        assert lines and lines[0].startswith("infonce-sym: error: "), (argv, err)
    assert elapsed < bound, (argv, elapsed)
    return code, err


@pytest.fixture
def stubbed(monkeypatch):
    """Every command's work replaced by a no-op: parsing and validation only."""
    for name in COMMANDS:
        monkeypatch.setattr(cli, f"cmd_{name}", lambda args: 0)
    return monkeypatch


@FAST
@given(argv=st.lists(st.one_of(st.sampled_from(COMMANDS + ("--tau", "--k", "--json", "--help", "-h", "--model",
                                                             "finite", "--seed", "--samples", "--out")),
                               numberish()), max_size=8))
def test_random_argument_lists(argv, capsys, stubbed):
    invoke(argv, capsys)


@FAST
@given(data=st.data(), command=st.sampled_from(("risk", "mc", "expand", "rademacher", "theorem1", "verify")))
def test_each_commands_validation(data, command, capsys, stubbed, tmp_path_factory):
    """Random values for a random subset of the command's options (required ones always given)."""
    required = {"risk": ["--tau", "--k"], "mc": ["--tau", "--k", "--samples", "--seed"], "expand": ["--tau"]}
    options = [o for o in _options(command) if o not in ("--out", "--spec", "--scheduler")]
    chosen = data.draw(st.lists(st.sampled_from(options), unique=True, max_size=5))
    argv = [command]
    for flag in dict.fromkeys(required.get(command, []) + chosen):
        if flag in ("--json", "--quick"):
            argv.append(flag)
        else:
            argv += [flag, data.draw(numberish())]
    code, err = invoke(argv, capsys)
    if code == 2:
        assert "--" in err or "arguments" in err


@FAST
@given(text=numberish())
def test_number_readers_are_exact_or_refuse(text):
    try:
        value = read_real("--x", text)
    except InputError as exc:
        assert str(exc).startswith("--x: ")
    else:
        assert value == Decimal(text.strip()) and value.is_finite()
    try:
        n = read_int("--n", text, 0, 10**30)
    except InputError as exc:
        assert str(exc).startswith("--n: ")
    else:
        assert Decimal(n) == Decimal(text.strip()) and 0 <= n <= 10**30


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-10**30, 10**30), st.floats(allow_nan=False),
              st.decimals(allow_nan=False, allow_infinity=False).map(str), st.text(max_size=5)),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=4), children, max_size=4),
    max_leaves=20)


def spec_like():
    """Near-valid specs (right keys, wrong shapes or numbers) and arbitrary JSON."""
    row = st.lists(st.one_of(st.sampled_from([0, 1, 0.5, "0.5", -1, 2, 1e308, "x", None, True, [0.5]]),
                             st.floats(allow_nan=False)), min_size=0, max_size=3)
    near = st.fixed_dictionaries({"pi": row, "M": st.lists(row, max_size=3), "embedding": st.lists(row, max_size=3)},
                                 optional={"description": st.text(max_size=5), "tau": json_values})
    return st.one_of(near, json_values)


@FAST
@given(spec=spec_like(), garbage=st.sampled_from(["", "{", "]", "\xff", "NaN", "[" * 50 + "]" * 50]))
def test_finite_spec_loader(spec, garbage, tmp_path_factory, capsys):
    path = tmp_path_factory.mktemp("spec") / "model.json"
    path.write_text(json.dumps(spec))
    try:
        model = cli.finite_model_from_spec(path, "--spec")
    except InputError as exc:
        assert str(exc).startswith("--spec") and "\n" not in str(exc)
    else:
        assert model.size >= 1
    path.write_bytes(b"\xff" if garbage == "\xff" else garbage.encode())
    with pytest.raises(InputError):
        cli.finite_model_from_spec(path, "--spec")


@settings(max_examples=6, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tau=st.sampled_from(["0.01", "0.05", "0.5", "3", "100"]), k=st.integers(1, 6),
       samples=st.integers(2, 40), seed=st.integers(0, 2**70), kappa=st.sampled_from(["0", "0.5", "50", "1e4"]),
       loss=st.sampled_from(["infonce", "dcl"]))
def test_tiny_real_monte_carlo_runs(tau, k, samples, seed, kappa, loss, capsys):
    code, _ = invoke(["mc", "--tau", tau, "--k", str(k), "--samples", str(samples), "--seed", str(seed),
                      "--kappa", kappa, "--loss", loss, "--json"], capsys, bound=30)
    assert code == 0


@FAST
@given(parts=st.lists(numberish(), min_size=3, max_size=3))
@example(parts=["1_0", "1", "1"]).via("an underscore Fraction reads")
@example(parts=["\u0661", "1", "1"]).via("a Unicode digit Fraction reads")
def test_prove_constants_reader(parts):
    """`prove --constants`: three texts give three exact rationals in [0, 10^6] (printable) or one InputError
    naming --constants, at once ('1e999999999' built a billion-digit integer; '1e-999999' failed to print)."""
    from fractions import Fraction
    from infonce_sym.app.prove_cli import read_constants
    t0 = time.perf_counter()
    try:
        out = read_constants("P4", ",".join(parts))
    except InputError as exc:
        assert str(exc).startswith("--constants: ") and "\n" not in str(exc)
    else:
        assert all(isinstance(v, Fraction) and 0 <= v <= 10**6 for v in out) and str(out)
        assert out == [Fraction(p.strip()) for p in parts]
        assert all(set(p.strip()) <= set("0123456789+-./eE") for p in parts), parts     # ASCII, as typed
    assert time.perf_counter() - t0 < 1.0


@FAST
@given(text=numberish(), flag=st.sampled_from(["--tau", "--scale", "--logit-scale"]))
def test_embeddings_temperature_and_k_readers(text, flag):
    """`embeddings`: a temperature from any of its three options is a decimal in [0.01, 100] or an InputError
    naming that option; --k is a sorted list of distinct integers in [1, 10^12] or an InputError naming --k."""
    from types import SimpleNamespace
    from infonce_sym.app.embeddings_cli import read_ks, read_tau
    args = SimpleNamespace(tau=None, scale=None, logit_scale=None)
    setattr(args, flag[2:].replace("-", "_"), text)
    try:
        tau = read_tau(args)
    except InputError as exc:
        assert str(exc).startswith(flag + ": ") and "\n" not in str(exc)
    else:
        assert Decimal("0.01") <= Decimal(tau) <= 100
    try:
        ks = read_ks(text)
    except InputError as exc:
        assert str(exc).startswith("--k: ")
    else:
        assert ks == sorted(set(ks)) and all(1 <= k <= 10**12 for k in ks)
