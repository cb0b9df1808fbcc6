"""Players across games, the Redis side: accounts and sessions, open tables, seats held by accounts, table
chat. The rules they follow are pure, in ``domain/players``; the HTTP side is in ``services/gateway``."""
