"""The layers import one way: models -> quantities -> proofs -> checks -> app (errors below all),
and no module imports another module's private name. Parsed from the source, not imported."""
import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "infonce_sym"
LAYERS = ["errors", "models", "quantities", "proofs", "checks", "app"]


def _layer(module: str) -> int | None:
    parts = module.split(".")
    if parts[0] != "infonce_sym" or len(parts) < 2:
        return None
    return LAYERS.index(parts[1]) if parts[1] in LAYERS else None


def _imports(path: Path):
    """(imported module, names, line) of every import in ``path``, relative imports resolved."""
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    package = list(rel.parts[:-1]) if rel.name != "__init__" else list(rel.parts[:-1])
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, [], node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            names = [a.name for a in node.names]
            if not node.module:       # "from . import x": x is a module
                for n in names:
                    yield module + "." + n, [], node.lineno
            else:
                yield module, names, node.lineno
                for n in names:          # "from ..checks import section3" may name a module
                    yield module + "." + n, [], node.lineno


def _modules():
    return sorted(p for p in PACKAGE.rglob("*.py"))


def test_the_parser_sees_the_known_edges():
    """The test itself can fail: it finds the imports we know are there."""
    cli = {m for m, _, _ in _imports(PACKAGE / "app" / "cli.py")}
    assert "infonce_sym.errors" in cli
    verify = {m for m, _, _ in _imports(PACKAGE / "app" / "verify.py")}
    assert "infonce_sym.checks.section3" in verify and "infonce_sym.checks.grids" in verify


def test_no_import_runs_against_the_layers():
    back = []
    for path in _modules():
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        own = _layer(".".join(rel.parts))
        if own is None:
            continue
        for module, _, line in _imports(path):
            other = _layer(module)
            if other is not None and other > own:
                back.append(f"{rel}:{line} imports {module}")
    assert not back, "imports against the layers:\n" + "\n".join(back)


def test_no_private_name_is_imported_across_modules():
    private = []
    for path in _modules():
        for module, names, line in _imports(path):
            if not module.startswith("infonce_sym"):
                continue
            private += [f"{path.relative_to(PACKAGE.parent)}:{line} imports {module}.{n}"
                        for n in names if n.startswith("_") and not n.startswith("__")]
    assert not private, "\n".join(private)
