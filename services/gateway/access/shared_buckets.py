"""Token buckets kept in Redis, shared by every gateway: for limits whose harm is shared too.

Chat per address (issue 43, finding 13) is one: every message is written to Redis (kept 5,000 a game) and
sent to every reader through every gateway, so one address's allowance must be one, however many gateways
it spreads its posts over; in each gateway's memory, N gateways gave it N allowances. A message costs a
Redis write anyway, so its bucket's round trip adds one more to a path that is not a hot one (at most a few
messages a second from an address).

The other per-address limits stay in each gateway's memory (``limits.py``), on purpose: WebSocket opens and
``GET /api/`` reads cost the gateway that answers them its CPU, not a shared store, so each gateway's own
allowance is what protects it; and a read limit kept in Redis would add a round trip to every read, the very
cost (~0.2 ms of Redis and the loop's wait for it, at 300 reads a second) the limit exists to bound
(``docs/history/decisions.md``).

The bucket is the same as ``limits.Bucket`` (``rate`` a second, ``rate x burst`` at most, at least one),
counted by one script from the caller's clock; it expires once it would be full again, so Redis keeps one
small hash per address that posted in the last burst's worth of seconds.
"""

from __future__ import annotations

from typing import Any

from events import keys

_TAKE = """
-- KEYS: the bucket; ARGV: now (ms), rate (a second), capacity
local now, rate, capacity = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local f = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens, at = tonumber(f[1]) or capacity, tonumber(f[2]) or now
tokens = math.min(capacity, tokens + math.max(0, now - at) * rate / 1000)
if tokens < 1 then return tostring((1 - tokens) / rate) end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens - 1), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - tokens + 1) / rate * 1000) + 1000)
return '0'
"""


async def take(redis: Any, kind: str, address: str, rate: float, burst_seconds: float, now_ms: int) -> float:
    """Spend one token of ``address``'s ``kind`` bucket: 0.0 if allowed, else the seconds until one is
    there; ``rate <= 0`` allows everything without asking Redis."""
    if rate <= 0:
        return 0.0
    capacity = max(1.0, rate * burst_seconds)
    wait = await redis.eval(_TAKE, 1, keys.address_bucket(kind, address), now_ms, repr(rate), repr(capacity))
    return max(0.0, float(wait))
