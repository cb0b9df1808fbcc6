"""Players across games: the pure rules of accounts, sign-in throttling and table chat (no I/O, no clock:
the caller passes the time in)."""
