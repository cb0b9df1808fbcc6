"""Settings of open tables, the lobby's way for accounts to make games: read by ``services/config.py``'s
``Settings.from_env`` (the one place that reads the environment), handed to the gateway and to ``serve``'s
reconciler as ``Settings.tables``.

Tables make games whatever ``HARBORMASTER_ADMIN_TOKEN`` says (it closes ``POST /api/games``, not the lobby),
so they have quotas of their own, per account and per address, counted in Redis (every gateway together):

- ``HARBORMASTER_TABLES_PER_ACCOUNT`` (5) and ``HARBORMASTER_TABLES_PER_ADDRESS`` (10): open tables one
  account, and one address, may have waiting at once;
- ``HARBORMASTER_TABLE_GAMES_PER_ACCOUNT`` (10) and ``HARBORMASTER_TABLE_GAMES_PER_ADDRESS`` (20): live games
  the tables one account (one address) opened may have made; a started table counts until its game ends;
- ``HARBORMASTER_TABLE_OPEN_MINUTES`` (60): an open table nobody filled is closed (``expired``) this long
  after it was opened;
- ``HARBORMASTER_TABLE_GAME_IDLE_HOURS`` (72): a seat of a table's game that has been to act this long
  without moving is out of time: the clock plays its default move, and all its later turns at once, so a
  game its players left ends (``services/players/table_clock.py``) instead of living, and holding its
  quota, for ever;
- ``HARBORMASTER_TABLE_STAND_IN`` (empty): a bot (``strong``, say) that plays a forfeited seat's later
  turns instead of the clock's default moves, so the one who stayed plays on against a real opponent.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from services.setting_values import one_of, whole

STAND_INS = ("random", "greedy", "strong-0.2", "strong", "strong-5")
"""The server's bots (``workers.jobs.bots.bot_names``; a game without the one named gets default moves)."""


class TableSettings(msgspec.Struct, frozen=True, kw_only=True):
    open_per_account: int = 5
    open_per_address: int = 10
    games_per_account: int = 10
    games_per_address: int = 20
    open_minutes: int = 60
    idle_hours: int = 72
    stand_in: str = ""
    """``HARBORMASTER_TABLE_STAND_IN``: the bot that plays a forfeited seat's later turns (``strong``, say);
    empty: the clock's default move, as for the first timeout (``services/players/table_clock.py``)."""

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> TableSettings:
        """The settings of ``env``; a value out of range is a ``SettingError`` naming it. Each is at least 1:
        a quota of 0 would read as "no limit" in the other settings and as "no tables" here, so neither."""
        d = cls()
        return cls(
            open_per_account=whole(env, "HARBORMASTER_TABLES_PER_ACCOUNT", d.open_per_account, 1, 1000),
            open_per_address=whole(env, "HARBORMASTER_TABLES_PER_ADDRESS", d.open_per_address, 1, 10_000),
            games_per_account=whole(
                env, "HARBORMASTER_TABLE_GAMES_PER_ACCOUNT", d.games_per_account, 1, 10_000
            ),
            games_per_address=whole(
                env, "HARBORMASTER_TABLE_GAMES_PER_ADDRESS", d.games_per_address, 1, 100_000
            ),
            open_minutes=whole(env, "HARBORMASTER_TABLE_OPEN_MINUTES", d.open_minutes, 1, 7 * 24 * 60),
            idle_hours=whole(env, "HARBORMASTER_TABLE_GAME_IDLE_HOURS", d.idle_hours, 1, 365 * 24),
            stand_in=one_of(env, "HARBORMASTER_TABLE_STAND_IN", d.stand_in, STAND_INS),
        )
