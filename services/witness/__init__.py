"""``harbormaster witness URL``: someone other than the operator follows a server's log, cosigns each
checkpoint that extends the last one it cosigned, and raises the alarm with evidence when the log forks.

What it cosigns or refuses is judged in ``events/tlog/witness.py`` (pure); here are its files (``files``),
its HTTP client (``client``, the standard library's ``urllib``: a few GETs and a POST need no dependency)
and its loop (``run``).
"""
