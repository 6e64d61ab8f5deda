"""The narrative notebooks: stored without outputs, and each executes without error."""
import gc
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import pytest
import zmq
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

NOTEBOOKS_DIR = Path(__file__).resolve().parents[2] / "notebooks"
REPO_ROOT = NOTEBOOKS_DIR.parent
NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("[0-9][0-9]_*.ipynb"))


def test_all_seven_notebooks_present():
    assert [p.name[:2] for p in NOTEBOOKS] == ["01", "02", "03", "04", "05", "06", "07"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_stored_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.get("outputs", []) == [], f"{path.name}: a code cell has stored outputs"
            assert cell.get("execution_count") is None, f"{path.name}: a code cell has an execution count"


KERNEL_NAME = "infonce-sym-tests"


@pytest.fixture(scope="module")
def kernel_dir(tmp_path_factory):
    """A kernelspec for *this* interpreter, first on JUPYTER_PATH: a stale user-level "python3"
    kernelspec (pointing at some other, deleted environment) must not decide which Python runs."""
    root = tmp_path_factory.mktemp("jupyter")
    spec = root / "kernels" / KERNEL_NAME
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "infonce-sym tests", "language": "python"}))
    return root


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_executes(path, monkeypatch, kernel_dir):
    monkeypatch.setenv("JUPYTER_PATH", os.pathsep.join(filter(None, [str(kernel_dir), os.environ.get("JUPYTER_PATH")])))
    # the kernel is a subprocess: make the package importable there even without `pip install -e .`
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    monkeypatch.setenv("INFONCE_SYM_NOTEBOOK_SIZE", "small")      # every cell runs, at reduced sizes
    nb = nbformat.read(path, as_version=4)
    # the kernel's sockets are Unix sockets in a directory of this test's own: TCP ports, picked by
    # binding and releasing, could be taken meanwhile by a process of another test (a fresh-clone run
    # once failed with "Address already in use")
    sockets = tempfile.mkdtemp(prefix="nbk", dir="/tmp")
    km = KernelManager(kernel_name=KERNEL_NAME, transport="ipc", ip=os.path.join(sockets, "k"))
    client = NotebookClient(nb, km=km, timeout=600, kernel_name=KERNEL_NAME,
                            resources={"metadata": {"path": str(NOTEBOOKS_DIR)}})
    start = time.perf_counter()
    try:
        # raises CellExecutionError on the first failing cell.  cleanup_kc: nbclient given a manager keeps
        # the kernel running and the client's channels open (the kernel process lived until the worker
        # ended; the garbage collector reported the sockets, "Unclosed socket", during some later test)
        client.execute(cleanup_kc=True)
    finally:
        km.context.destroy(linger=0)            # the manager's own context: its control socket
        shutil.rmtree(sockets, ignore_errors=True)
    gc.collect()
    assert not [s for s in gc.get_objects() if isinstance(s, zmq.Socket) and not s.closed], "zmq sockets left open"
    elapsed = time.perf_counter() - start
    errors = [out for cell in nb.cells if cell.cell_type == "code"
              for out in cell.get("outputs", []) if out.get("output_type") == "error"]
    assert not errors, f"{path.name}: {errors[0].get('ename')}: {errors[0].get('evalue')}"
    print(f"{path.name}: {elapsed:.1f} s")
