"""Settings, read once from the environment."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import msgspec

from events.bus import DEFAULT_PARTITIONS
from events.replica_ack import ReplicaAck


class Limits(msgspec.Struct, frozen=True, kw_only=True):
    """What one client may do at a gateway (per process; see ``docs/limits.md``). 0 turns a limit off."""

    sockets_per_address: int = 64
    """``HARBORMASTER_WS_PER_ADDRESS``: open WebSockets one address may hold (more: close 4429)."""
    commands_per_token: float = 20.0
    """``HARBORMASTER_COMMANDS_PER_TOKEN``: commands a second one seat token may send, sustained."""
    commands_per_address: float = 100.0
    """``HARBORMASTER_COMMANDS_PER_ADDRESS``: commands (and games created) a second from one address."""
    burst: float = 5.0
    """``HARBORMASTER_RATE_BURST``: a bucket holds this many seconds' worth (bursts up to rate x burst)."""
    stall_seconds: float = 30.0
    """``HARBORMASTER_WS_STALL_SECONDS``: a WebSocket whose client has not read a waiting frame for this
    long is dropped (it may reconnect with ``from=`` and lose nothing)."""

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Limits:
        default = cls()
        return cls(
            sockets_per_address=int(env.get("HARBORMASTER_WS_PER_ADDRESS", default.sockets_per_address)),
            commands_per_token=float(env.get("HARBORMASTER_COMMANDS_PER_TOKEN", default.commands_per_token)),
            commands_per_address=float(
                env.get("HARBORMASTER_COMMANDS_PER_ADDRESS", default.commands_per_address)
            ),
            burst=float(env.get("HARBORMASTER_RATE_BURST", default.burst)),
            stall_seconds=float(env.get("HARBORMASTER_WS_STALL_SECONDS", default.stall_seconds)),
        )


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    redis_url: str | None
    """``REDIS_URL``; without it an embedded ``redis-server`` is started under ``data_dir``."""
    rq_redis_url: str | None = None
    """``RQ_REDIS_URL``: a standalone Redis for the rq queues (bot turns, tournament rounds, archives);
    required when ``REDIS_URL`` names a Cluster, on which rq cannot run; without it rq uses ``REDIS_URL``."""
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
    public_url: str | None = None
    """``HARBORMASTER_PUBLIC_URL``: the gateway's address as users reach it (for ``watch_url``); without
    it ``watch_url`` is a relative URL (never built from the request's ``Host`` header)."""
    limits: Limits = Limits()
    """Per-client limits of the gateway (``docs/limits.md``)."""
    archive_dir: Path | None = None
    """``HARBORMASTER_ARCHIVE`` (default ``<data_dir>/archive``; ``off``: no archive): where each finished
    game is archived as ``<game id>.jsonl.gz`` (``services/archive.py``)."""
    replica_ack: ReplicaAck = ReplicaAck()
    """``HARBORMASTER_REPLICA_ACK`` (``none``/``wait``/``waitaof``), ``_REPLICAS``, ``_TIMEOUT_MS``: whether an
    append waits for replicas to confirm it before its command is acknowledged (``events/replica_ack.py``)."""

    @classmethod
    def from_env(cls) -> Settings:
        env = os.environ
        data_dir = Path(env.get("HARBORMASTER_DATA", ".harbormaster")).resolve()
        archive = env.get("HARBORMASTER_ARCHIVE", "")
        return cls(
            redis_url=env.get("REDIS_URL") or None,
            rq_redis_url=env.get("RQ_REDIS_URL") or None,
            data_dir=data_dir,
            partitions=int(env.get("HARBORMASTER_PARTITIONS", DEFAULT_PARTITIONS)),
            snapshot_every=int(env.get("HARBORMASTER_SNAPSHOT_EVERY", 200)),
            admin_token=env.get("HARBORMASTER_ADMIN_TOKEN") or None,
            log_format=env.get("HARBORMASTER_LOG_FORMAT", "console"),
            log_level=env.get("HARBORMASTER_LOG_LEVEL", "info"),
            game_plugins=tuple(p for p in env.get("HARBORMASTER_GAME_PLUGINS", "").split(",") if p),
            ws_compression=env.get("HARBORMASTER_WS_COMPRESSION", "") in ("1", "true", "yes"),
            public_url=env.get("HARBORMASTER_PUBLIC_URL", "").rstrip("/") or None,
            limits=Limits.from_env(env),
            replica_ack=ReplicaAck.from_env(env),
            archive_dir=None
            if archive == "off"
            else Path(archive).resolve()
            if archive
            else data_dir / "archive",
        )
