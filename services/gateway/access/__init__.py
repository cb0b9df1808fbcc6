"""Who may do what at the gateway: seat and admin tokens, sessions, per-client limits, the ``Origin`` check."""
