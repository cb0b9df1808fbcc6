"""Account records with a password hash and no name, removed by ``serve``'s pass (issue 43, finding 10).

An older version wrote a sign-up's hash and its name in two steps; refused at Redis's memory limit between
them, it left a record that answered ``name_taken`` to a new sign-up and 401 to every sign-in. Today's
sign-up writes both in one ``HSET`` (``accounts._CREATE``) and takes such a record over, so none is made
any more, and those left are found once per Redis (a scan of the account keys) rather than at every pass.

Removed, not repaired: the sign-up that wrote it was answered with an error, so nobody holds that account,
and the name as its owner chose to write it (its case) was never stored. The script deletes a record only
while it has no name, so a sign-up that takes it over at the same moment keeps what it wrote.
"""

from __future__ import annotations

from typing import Any

import structlog

from events import keys

log = structlog.get_logger("accounts")

SWEPT = keys.ACCOUNTS_SWEPT
"""Set once this Redis's account records were swept."""

_REMOVE = """
-- KEYS: the account's record, its known addresses, its sessions
if redis.call('TYPE', KEYS[1]).ok ~= 'hash' or redis.call('HEXISTS', KEYS[1], 'name') == 1 then return 0 end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
return 1
"""


def sweep_nameless(client: Any) -> int:
    """Once per Redis: remove every account record with no name; returns how many (synchronous: serve's
    client). A Redis error goes up before the mark is set, so the next pass sweeps again."""
    if client.exists(SWEPT):
        return 0
    removed = 0
    for key in client.scan_iter(match=keys.account("*"), count=1000):
        if key.count(b":") == 2:  # hm:account:<name>, not one of its :sessions, :known ... keys
            removed += int(client.eval(_REMOVE, 3, key, key + b":known", key + b":sessions"))
    client.set(SWEPT, 1)
    if removed:
        log.info("nameless_accounts_removed", accounts=removed)
    return removed
