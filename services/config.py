"""Settings, read once from the environment."""

from __future__ import annotations

import os
from pathlib import Path

import msgspec

from events.bus import DEFAULT_PARTITIONS


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    redis_url: str | None
    """``REDIS_URL``; without it an embedded ``redis-server`` is started under ``data_dir``."""
    data_dir: Path
    """``HARBORMASTER_DATA`` (default ``./.harbormaster``): the embedded Redis's files."""
    partitions: int = DEFAULT_PARTITIONS
    snapshot_every: int = 200
    admin_token: str | None = None
    """``HARBORMASTER_ADMIN_TOKEN``: when set, creating a game needs it."""
    log_format: str = "console"
    log_level: str = "info"
    game_plugins: tuple[str, ...] = ()
    """``HARBORMASTER_GAME_PLUGINS``: extra games as ``module:ATTRIBUTE``, comma-separated (tests use it)."""
    ws_compression: bool = False
    """``HARBORMASTER_WS_COMPRESSION=1``: offer permessage-deflate on WebSockets. Off by default: frames are
    small, and compressing each one per socket cost the gateway more CPU than anything else it does."""

    @classmethod
    def from_env(cls) -> Settings:
        env = os.environ
        return cls(
            redis_url=env.get("REDIS_URL") or None,
            data_dir=Path(env.get("HARBORMASTER_DATA", ".harbormaster")).resolve(),
            partitions=int(env.get("HARBORMASTER_PARTITIONS", DEFAULT_PARTITIONS)),
            snapshot_every=int(env.get("HARBORMASTER_SNAPSHOT_EVERY", 200)),
            admin_token=env.get("HARBORMASTER_ADMIN_TOKEN") or None,
            log_format=env.get("HARBORMASTER_LOG_FORMAT", "console"),
            log_level=env.get("HARBORMASTER_LOG_LEVEL", "info"),
            game_plugins=tuple(p for p in env.get("HARBORMASTER_GAME_PLUGINS", "").split(",") if p),
            ws_compression=env.get("HARBORMASTER_WS_COMPRESSION", "") in ("1", "true", "yes"),
        )
