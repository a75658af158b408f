"""Worker processes on this machine (self-play's ``runner=processes``, evaluation's
``workers=N``) that end with the process that started them: a main process killed by any
signal, ``kill -9`` included, must not leave its workers running, reparented and holding their
memory (the multiprocessing resource tracker then ends too, once no worker holds its pipe)."""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1
"""prctl(2)'s option: the signal this process gets when the thread that started it ends."""


def ignore_ctrl_c_and_end_with(parent: int) -> None:
    """A worker's initializer: Ctrl-C is the main process's to handle, and this worker ends
    when ``parent`` (the main process's pid, read there) does. Linux kills it with SIGKILL
    the moment the parent ends; elsewhere a thread looks once a second. (Linux's signal comes
    when the parent's thread that started the worker ends: the pools here start their workers
    from the main thread, or from a thread that lives as long as the pool.)"""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    else:
        threading.Thread(target=_end_with, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # the parent died before it could be watched
        os._exit(1)


def _end_with(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(1)
    os._exit(1)
