"""Tournaments on the real local cluster (issue 42): ``harbormaster serve`` on the cluster runs three bot
tournaments at once, created and started with the CLI, to the end; each is exported and verified offline
against its games' archives and the service's log. Where everything sits is asked of the cluster itself
(``CLUSTER KEYSLOT``, the master owning each slot, each master's own keys): a tournament's keys share one
slot (its append script and transactions touch several of them), its games' keys one slot per game, the
games of every tournament spread over all three masters, and different tournaments over different ones.

The three ids are picked so their hash tags fall in the three thirds of the slots (one per master); their
games' ids are the tournament's (``<id>-r<round>-t<table>``) and spread by the hash of those alone."""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
import redis
from redis.cluster import RedisCluster

from domain import GAMES
from events import keys
from events.chain import first_broken_link
from events.log_store import LogStore
from events.tournament_store import TournamentStore, tournament_key
from services import tournament_service as service
from services.archive import archive_path
from services.audit.verify import verify_lines
from services.export import export_lines
from tests.cluster.serving import Serving, serve_on_cluster
from tests.cluster.test_rq_on_cluster import split_services
from tests.integration.cli.test_cli import hm
from tests.support.pipeline import RACE_PLUGIN, eventually
from tests.support.redis_cluster import LocalCluster

TOURNAMENTS = ("spread-a", "spread-c", "spread-b")
"""Slots 1425, 9683 and 13810 of ``{t:<id>}``: one in each master's third."""
PLAYERS, ROUNDS = 8, 3
"""Four tables of two a round: twelve games a tournament, 36 in all."""
SPEC = {"game": "race", "rounds": ROUNDS, "table_size": 2, "players": PLAYERS, "bots": ["random"],
        "points": {"2": [6, 1], "1": [6]}, "options": {"goal": 12}}  # fmt: skip
"""A short race: a bot game ends in a few moves, so three rounds of three tournaments take a minute or two."""
OWN_PARTS = {"events", "results", "meta", "tables", "recorded", "done:r1"}
"""Keys every finished tournament has: its stream and the append script's other keys (its ``commands``
stream only once a decision was refused), the round's tables and the games that ended, which the fold
worker's trigger counts against each other, and the games recorded."""


@pytest.fixture
def serving(redis_cluster: LocalCluster, tmp_path: Path) -> Iterator[Serving]:
    """``serve`` on the cluster knowing the race game (2 fold workers, 2 rq workers, its sequencer and
    reconciler), once its gateway answers. Games stay in Redis once archived (``HARBORMASTER_ARCHIVE_TRIM=0``)
    so the test can count their streams on the masters afterwards; ``test_rq_on_cluster`` trims them."""
    env = {"HARBORMASTER_ARCHIVE_TRIM": "0", "HARBORMASTER_GAME_PLUGINS": RACE_PLUGIN}
    with serve_on_cluster(redis_cluster.url, tmp_path, env) as serving:
        yield serving


def _create_and_start(url: str, tid: str, folder: Path) -> None:
    spec = folder / f"{tid}.json"
    spec.write_text(json.dumps({**SPEC, "id": tid}))  # as an organiser's file: JSON
    created = hm("tournament", "create", "--file", str(spec), url=url)
    assert created.returncode == 0, created.stderr
    assert created.stdout.splitlines()[0].decode() == tid
    started = hm("tournament", "start", tid, url=url)
    assert started.returncode == 0, started.stderr


def _spec(tid: str) -> service.TournamentSpec:
    return msgspec.json.decode(json.dumps({**SPEC, "id": tid}), type=service.TournamentSpec)


def _status(url: str, tid: str) -> str:
    said = hm("tournament", "status", tid, url=url)
    assert said.returncode == 0, said.stderr
    status: str = json.loads(said.stdout)["status"]
    return status


def _keyslot(node: redis.Redis, key: str | bytes) -> int:
    """The slot as the server computes it (not the client's own CRC16)."""
    return int(node.execute_command("CLUSTER", "KEYSLOT", key))


def _owner(cluster: RedisCluster, key: str) -> int:
    port = cluster.get_node_from_key(key).port
    assert port is not None
    return int(port)


def _keys_by_master(cluster: LocalCluster, pattern: str) -> dict[int, list[bytes]]:
    """Each master's own keys matching ``pattern`` (asked of that master alone, no redirection)."""
    found = {}
    for port in cluster.master_ports():
        node = cluster.client(port)
        try:
            found[port] = sorted(node.scan_iter(match=pattern, count=1000))
        finally:
            node.close()
    return found


def _assert_in_one_slot_on_its_master(cluster: LocalCluster, owner: int, tag: str) -> list[bytes]:
    """Every key with hash tag ``tag`` is on master ``owner`` alone, all in the slot of ``{tag}``; returns them."""
    by_master = _keys_by_master(cluster, f"hm:{{{tag}}}:*")
    assert {port for port, found in by_master.items() if found} == {owner}, (tag, by_master)
    node = cluster.client(owner)
    try:
        slots = {_keyslot(node, key) for key in by_master[owner]}
        assert slots == {_keyslot(node, f"{{{tag}}}")}, (tag, slots)
        assert node.exists(*by_master[owner]) == len(by_master[owner]), "one multi-key command, one slot"
    finally:
        node.close()
    return by_master[owner]


def test_three_tournaments_run_to_the_end_under_serve_spread_over_every_master(
    redis_cluster: LocalCluster,
    cluster_client: RedisCluster,
    rq_redis_url: str,
    serving: Serving,
    tmp_path: Path,
) -> None:
    url = redis_cluster.url
    masters = set(redis_cluster.master_ports())
    assert len(masters) == 3
    for tid in TOURNAMENTS:
        _create_and_start(url, tid, tmp_path)
    eventually(lambda: all(_status(url, tid) == "finished" for tid in TOURNAMENTS), timeout=420,
               message="the three tournaments finished under serve")  # fmt: skip

    services = split_services(url, rq_redis_url)
    homes = {tid: _owner(cluster_client, tournament_key(tid, "meta")) for tid in TOURNAMENTS}
    assert set(homes.values()) == masters, "the three tournaments on three different masters"
    games_per_master: collections.Counter[int] = collections.Counter()
    for tid in TOURNAMENTS:
        own = _assert_in_one_slot_on_its_master(redis_cluster, homes[tid], f"t:{tid}")
        parts = {key.decode().split(":", 3)[3] for key in own}
        assert parts >= OWN_PARTS, parts
        games = list(service.game_ids(service.load(services, tid)))
        assert len(games) == PLAYERS // 2 * ROUNDS
        owners = {game: _owner(cluster_client, keys.meta(game)) for game in games}
        assert set(owners.values()) == masters, (tid, "its games on every master", owners)
        games_per_master.update(owners.values())
        for game in games:
            _assert_game_on_its_master(redis_cluster, services.store.meta(game).last_seq, owners[game], game)
    assert sum(games_per_master.values()) == len(TOURNAMENTS) * PLAYERS // 2 * ROUNDS
    assert sorted(games_per_master.values()) == [11, 12, 13], games_per_master  # as docs/operations.md says

    every_game = [g for tid in TOURNAMENTS for g in service.game_ids(service.load(services, tid))]
    eventually(lambda: all(archive_path(serving.archive, g).exists() for g in every_game), timeout=240,
               message="every game archived by its rq job")  # fmt: skip
    vkey = _log_key(services.redis)
    for tid in TOURNAMENTS:
        _export_and_verify(url, tid, tmp_path / "exports" / tid, vkey)
    assert serving.process.poll() is None, "serve ran throughout"


def _assert_game_on_its_master(cluster: LocalCluster, last_seq: int, owner: int, game: str) -> None:
    """The game's keys on its master alone, in its slot; its event stream there holds every event."""
    own = _assert_in_one_slot_on_its_master(cluster, owner, f"g:{game}")
    assert keys.events(game).encode() in own and keys.meta(game).encode() in own
    node = cluster.client(owner)
    try:
        assert node.xlen(keys.events(game)) == last_seq > 0, game
    finally:
        node.close()


def _log_key(client: object) -> str:
    published = LogStore(client).published_key()
    assert published is not None, "serve's sequencer published the log's key"
    return published.vkey


def _export_and_verify(url: str, tid: str, folder: Path, vkey: str) -> None:
    """``tournament export --to`` then ``tournament verify`` on the folder: every result proven against its
    game's archive (exit 0, not 3), the chains against the log of serve's sequencer, its key pinned."""
    exported = hm("tournament", "export", tid, "--to", str(folder), url=url)
    assert exported.returncode == 0, exported.stderr
    summary = json.loads(exported.stdout)
    assert summary["not_archived"] == [] and summary["archives"] == PLAYERS // 2 * ROUNDS, summary
    assert summary["log"], summary
    verified = hm("tournament", "verify", str(folder), "--log-key", vkey, url=None)
    said = (verified.stdout + verified.stderr).decode()
    assert verified.returncode == 0, said
    assert f"OK {tid} (finished)" in said and f"{PLAYERS // 2 * ROUNDS} results proven" in said, said


def test_many_tournaments_each_in_one_slot_spread_over_the_masters(
    redis_cluster: LocalCluster, cluster_client: RedisCluster, rq_redis_url: str
) -> None:
    """Thirty tournaments of ids nobody picked for their slots: each one's keys in one slot on one master,
    and the thirty over all three masters."""
    services = split_services(redis_cluster.url, rq_redis_url)
    ids = [service.create(services, _spec(f"many-{n}")) for n in range(30)]
    homes = {tid: _owner(cluster_client, tournament_key(tid, "meta")) for tid in ids}
    for tid in ids:
        own = _assert_in_one_slot_on_its_master(redis_cluster, homes[tid], f"t:{tid}")
        assert {key.decode().split(":", 3)[3] for key in own} >= {"events", "results", "meta"}
    per_master = collections.Counter(homes.values())
    assert set(per_master) == set(redis_cluster.master_ports()), per_master
    assert sorted(per_master.values()) == [8, 9, 13], per_master  # the ids' own spread (docs/operations.md)
    slots = {int(cluster_client.execute_command("CLUSTER KEYSLOT", tournament_key(t, "meta"))) for t in ids}
    assert len(slots) == len(ids), "thirty tournaments, thirty slots"
    assert set(service.list_ids(services, 0, 100)) == set(ids), "the index of tournaments lists them all"


def test_tournament_run_plays_a_whole_tournament_on_the_cluster(
    redis_cluster: LocalCluster, cluster_client: RedisCluster, rq_redis_url: str, tmp_path: Path
) -> None:
    """``harbormaster tournament run`` with workers of its own on the cluster (a hosted game, as an operator
    runs it): every game finished and verified, the tournament's chain intact."""
    env = {**os.environ, "REDIS_URL": redis_cluster.url, "HARBORMASTER_DATA": str(tmp_path / "data"),
           "HARBORMASTER_ARCHIVE": str(tmp_path / "archive"), "HARBORMASTER_LOG_LEVEL": "warning"}  # fmt: skip
    argv = ["tournament", "run", "--game", "eic", "--players", "6", "--table-size", "2", "--rounds", "2",
            "--bots", "random", "--id", "run-on-cluster"]  # fmt: skip
    run = subprocess.run(
        [sys.executable, "-m", "services.cli", *argv], env=env, capture_output=True, timeout=600
    )
    assert run.returncode == 0, run.stderr.decode()[-2000:]
    assert b"6 games" in run.stdout, run.stdout.decode()[-2000:]
    services = split_services(redis_cluster.url, rq_redis_url)
    state = service.load(services, "run-on-cluster")
    assert state.status == "finished" and all(r.closed for r in state.rounds)
    for game in service.game_ids(state):
        report = verify_lines(export_lines(services.store, game), GAMES)
        assert report.ok and report.finished, (game, report.problems)
    tournaments = TournamentStore(services.redis)
    header = tournaments.header("run-on-cluster")
    assert first_broken_link(header, tournaments.envelopes("run-on-cluster")) is None
