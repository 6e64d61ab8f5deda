"""Ctrl-C and the --max-seconds alarm held back during a compiled kernel's first call.

The first call of a numba kernel compiles it (several seconds on a new machine, before numba's disk
cache holds it).  An exception raised by a Python signal handler while LLVM is calling back into
Python is swallowed there ("Exception ignored on calling ctypes callback function", with a traceback
on stderr) and the call then fails with a RuntimeError: the command line would print a traceback
and an internal error instead of its one line (exit 130 for Ctrl-C, exit 1 for --max-seconds).
``held_during_first_call(name)`` replaces the Python handlers of SIGINT and SIGALRM by ones that
only note the signal, for the first call of ``name`` in this process, and delivers a noted signal
to the saved handler when the call returns.  Only in the main thread (signal handlers can be set
nowhere else) and only for handlers that are Python functions (a default or ignored signal is left
as it is).
"""
from __future__ import annotations

import signal
import threading
from contextlib import contextmanager

__all__ = ["held_during_first_call", "GuardedKernels"]

_CALLED = set()          # the kernels called once already in this process
_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGALRM") if hasattr(signal, name))


@contextmanager
def held_during_first_call(name):
    """Hold SIGINT and SIGALRM (their Python handlers) during the first call of kernel ``name``."""
    if name in _CALLED or threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = {s: h for s in _SIGNALS if callable(h := signal.getsignal(s))}
    held = []
    for s in saved:
        signal.signal(s, lambda signum, frame: held.append((signum, frame)))
    try:
        yield
        _CALLED.add(name)
    finally:
        for s, handler in saved.items():
            signal.signal(s, handler)
    if held:
        signum, frame = held[0]
        saved[signum](signum, frame)          # e.g. default_int_handler raises KeyboardInterrupt


class GuardedKernels:
    """A module of compiled kernels whose functions each run their first call under
    ``held_during_first_call``; later calls go to the kernel itself."""

    def __init__(self, module, prefix):
        self._module, self._prefix = module, prefix

    def __getattr__(self, name):
        kernel = getattr(self._module, name)
        key = f"{self._prefix}.{name}"
        if key in _CALLED or not callable(kernel):
            return kernel

        def first(*args, **kwargs):
            with held_during_first_call(key):
                return kernel(*args, **kwargs)
        return first
