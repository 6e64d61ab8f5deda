"""Signals held back during a compiled kernel's first call (``quantities.first_call``), delivered after it."""
import signal
import types

import pytest

from infonce_sym.quantities import first_call


class Stop(BaseException):
    pass


def _raise_stop(signum, frame):
    raise Stop(signum)


@pytest.fixture
def alarm_handler():
    saved = signal.signal(signal.SIGALRM, _raise_stop)
    yield
    signal.signal(signal.SIGALRM, saved)


def test_alarm_is_delivered_after_the_first_call_only(alarm_handler):
    """The alarm raised inside the first call does not interrupt it (the call finishes), and reaches
    the saved handler when the call returns; the handler is restored; a second call is not held."""
    events = []
    with pytest.raises(Stop):
        with first_call.held_during_first_call("test.alarm"):
            signal.raise_signal(signal.SIGALRM)
            events.append("call finished")
    assert events == ["call finished"]
    assert signal.getsignal(signal.SIGALRM) is _raise_stop
    with pytest.raises(Stop):
        with first_call.held_during_first_call("test.alarm"):
            signal.raise_signal(signal.SIGALRM)
            events.append("not reached")
    assert events == ["call finished"]


def test_ctrl_c_becomes_keyboard_interrupt_after_the_first_call():
    saved = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        done = []
        with pytest.raises(KeyboardInterrupt):
            with first_call.held_during_first_call("test.sigint"):
                signal.raise_signal(signal.SIGINT)
                done.append(True)
        assert done == [True] and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, saved)


def test_a_first_call_that_fails_is_held_again_next_time(alarm_handler):
    with pytest.raises(ValueError):
        with first_call.held_during_first_call("test.fails"):
            raise ValueError
    assert signal.getsignal(signal.SIGALRM) is _raise_stop
    events = []
    with pytest.raises(Stop):
        with first_call.held_during_first_call("test.fails"):
            signal.raise_signal(signal.SIGALRM)
            events.append("held")
    assert events == ["held"]


def test_guarded_kernels_hold_only_the_first_call(alarm_handler):
    calls = []

    def kernel(x):
        signal.raise_signal(signal.SIGALRM)
        calls.append(x)
        return 2 * x
    guarded = first_call.GuardedKernels(types.SimpleNamespace(kernel=kernel, N=3), "test.guarded")
    assert guarded.N == 3
    with pytest.raises(Stop):
        guarded.kernel(1)
    assert calls == [1]                    # finished before the alarm reached its handler
    with pytest.raises(Stop):
        guarded.kernel(2)                  # the second call is the kernel itself: interrupted
    assert calls == [1]
