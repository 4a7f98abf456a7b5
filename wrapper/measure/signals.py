"""SIGINT/SIGTERM/SIGHUP for a whole session of runs: remembered, and readable as bytes on a pipe.

A Python signal handler alone can't stop a read loop that sleeps in ``select``: the call is restarted after
the handler with its old timeout (PEP 475), so a deadline the handler sets is seen only when the child next
prints. Instead the handlers do nothing and ``signal.set_wakeup_fd`` writes each signal's number to a pipe
that the read loop watches like the child's output, and that the session looks at between runs. A signal that
arrives between two runs, or while a run is being prepared, is therefore never lost and never takes the
default action (killed without a summary, or a KeyboardInterrupt traceback).
"""
from __future__ import annotations

import os
import signal
import threading
from typing import Optional

FORWARDED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _ignore(_signum, _frame) -> None:
    """Installed so that the C-level handler writes to the wakeup fd; the pipe is the real handler."""


class SignalGuard:
    """Use as ``with SignalGuard() as guard:``; ``guard.fd`` becomes readable when a signal arrives, ``take()``
    returns the signals since the last call, ``received`` is the first one of the session.

    Only the main thread can install handlers: elsewhere the guard is inactive (``fd`` is None) and signals
    keep their previous handlers.
    """

    def __init__(self, signals=FORWARDED_SIGNALS) -> None:
        self._signals = tuple(signals)
        self.received: Optional[int] = None
        self.fd: Optional[int] = None
        self._w: Optional[int] = None
        self._old_handlers: dict = {}
        self._old_wakeup: Optional[int] = None

    def __enter__(self) -> "SignalGuard":
        if threading.current_thread() is not threading.main_thread():
            return self
        self.fd, self._w = os.pipe()
        os.set_blocking(self.fd, False)
        os.set_blocking(self._w, False)
        self._old_wakeup = signal.set_wakeup_fd(self._w, warn_on_full_buffer=False)
        for sig in self._signals:
            self._old_handlers[sig] = signal.signal(sig, _ignore)
        return self

    def take(self) -> list[int]:
        """The signals received since the last call (oldest first); also sets ``received``."""
        if self.fd is None:
            return []
        try:
            data = os.read(self.fd, 512)
        except BlockingIOError:
            return []
        signums = [n for n in data if n in self._signals]
        if signums and self.received is None:
            self.received = signums[0]
        return signums

    def __exit__(self, *_exc) -> None:
        if self.fd is None:
            return
        self.take()  # a signal that came in at the very end still counts
        for sig, handler in self._old_handlers.items():
            signal.signal(sig, handler)
        signal.set_wakeup_fd(self._old_wakeup if self._old_wakeup is not None else -1)
        for fd in (self.fd, self._w):
            os.close(fd)
        self.fd = self._w = None
