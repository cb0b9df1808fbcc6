"""Starting ``harbormaster <verb>`` as a child process on the same Redis.

Its own module so that what starts children (``services/supervise.py`` for ``serve``, ``tournament_cli``
for ``tournament run``) need not import the command line, which imports them (the circle
``cli`` → ``serve`` → ``supervise`` → ``cli``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence


def child_env(url: str) -> dict[str, str]:
    """The environment for a child process: ours, pointed at the Redis we use."""
    return {**os.environ, "REDIS_URL": url}


def spawn(
    args: Sequence[str], url: str, extra_env: Mapping[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """Start ``harbormaster <args>`` as a child process on the same Redis.

    In a session of its own: a Ctrl-C in the terminal reaches only the parent, which then stops its
    children one at a time, in order (a second signal would turn a child's warm stop into a hard one).
    On Linux the child also gets SIGTERM (a warm stop) if the parent dies without stopping it (Linux ties
    that to the thread that started the child: call this from the main thread).
    """
    return subprocess.Popen(
        [sys.executable, "-m", "services.cli", *args],
        env={**child_env(url), **(extra_env or {})},
        start_new_session=True,
        preexec_fn=_stop_with_parent if sys.platform == "linux" else None,
    )


def _stop_with_parent() -> None:
    """In the child, before it runs: ask Linux for SIGTERM when the parent process dies."""
    import ctypes
    import signal

    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)
