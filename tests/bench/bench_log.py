"""The transparency log: appends, a sequencer round over many moving games, checkpoint signing, proof sizes and
reads, and Redis memory a leaf and a game (``python -m tests.bench log``).

On an embedded Redis of its own: (1) 100,000 leaves appended in batches of 1,000 (the sequencer's batch);
(2) one sequencer round over 1,000 games that all moved since the last (their positions set directly, as a
fold would); (3) Ed25519 signing and verifying of a checkpoint; (4) inclusion and consistency proofs read from
the 100,000-leaf tree, and the proof sizes at 10^4 and 10^6 leaves (computed: they depend on sizes alone);
(5) ``MEMORY USAGE`` of the log's keys per leaf, and per game for a game logged with one head an event.
"""

from __future__ import annotations

import secrets
import statistics
import tempfile
import time
from pathlib import Path

import redis

from events import codec, keys
from events.envelope import GameHeader
from events.log_store import LogStore, new_token
from events.tlog import leaves, merkle, note
from events.tlog.checkpoint import Checkpoint
from services.redis_launcher import EmbeddedRedis
from workers.log_sequencer import LogSequencer

LEAVES = 100_000
BATCH = 1000
GAMES = 1000


def _head(i: int) -> bytes:
    return leaves.encode(
        leaves.Head(stream="game", id=f"bench-{i % 997:04d}", seq=i + 1, hash=secrets.token_hex(32))
    )


def appends(log: LogStore, signer: note.Signer) -> None:
    token = new_token()
    log.acquire(token, 600_000)
    data = [_head(i) for i in range(LEAVES)]
    started = time.perf_counter()
    size = log.size()
    for first in range(0, LEAVES, BATCH):
        size = log.append(token, size, data[first : first + BATCH], signer).size
    took = time.perf_counter() - started
    print(f"append: {LEAVES:,} leaves in batches of {BATCH}: {took:.2f} s, {LEAVES / took:,.0f} leaves/s "
          f"({took / (LEAVES / BATCH) * 1000:.1f} ms a batch, nodes and signed checkpoint included)")  # fmt: skip
    log.release(token)


def sequencer_round(client: redis.Redis, signer: note.Signer) -> None:
    pipe = client.pipeline(transaction=False)
    for n in range(GAMES):
        game_id = f"moving-{n}"
        header = GameHeader(
            game_id=game_id, game="manila", seats=3, options={}, seed_commitment="00", created_ms=1
        )
        pipe.hset(keys.meta(game_id), mapping={"header": codec.encode_header(header), "status": "live"})
        pipe.hset(keys.results(game_id), keys.POSITION_FIELD, f"1:{secrets.token_hex(32)}")
        pipe.zadd(keys.LIVE_GAMES, {game_id: n})
        pipe.zadd(keys.GAMES_INDEX, {game_id: n})
    pipe.execute()
    sequencer = LogSequencer(client, signer)
    sequencer.publish()
    times = []
    for seq in range(2, 7):
        for n in range(GAMES):
            pipe.hset(keys.results(f"moving-{n}"), keys.POSITION_FIELD, f"{seq}:{secrets.token_hex(32)}")
        pipe.execute()
        started = time.perf_counter()
        added = sequencer.tick()
        times.append((time.perf_counter() - started, added))
    took, added = times[-1]
    print(f"sequencer round, {GAMES:,} live games all moved: {added:,} head leaves in {took * 1000:.0f} ms "
          f"({added / took:,.0f} leaves/s, reads of every game's status and position included; first round, "
          f"{times[0][1]:,} leaves with the starts: {times[0][0] * 1000:.0f} ms)")  # fmt: skip
    sequencer.store.release(sequencer.token)


def signing(signer: note.Signer) -> None:
    text = Checkpoint(signer.name, 123_456_789, secrets.token_bytes(32)).text
    runs = 2000
    started = time.perf_counter()
    for _ in range(runs):
        signed = note.sign(text, signer)
    sign_us = (time.perf_counter() - started) / runs * 1e6
    started = time.perf_counter()
    for _ in range(runs):
        note.open_note(signed, [signer.verifier])
    verify_us = (time.perf_counter() - started) / runs * 1e6
    print(f"checkpoint: sign {sign_us:.0f} us, verify {verify_us:.0f} us (Ed25519 through cryptography); "
          f"a signed note is {len(signed.encode())} bytes")  # fmt: skip


def proofs(log: LogStore) -> None:
    size = log.size()
    reads = []
    for index in range(0, size, size // 200):
        started = time.perf_counter()
        log.inclusion_proof(index, size)
        reads.append(time.perf_counter() - started)
    started = time.perf_counter()
    for old in range(1, size, size // 100):
        log.consistency_proof(old, size)
    consistency_ms = (time.perf_counter() - started) / 100 * 1000
    print(f"proofs from Redis at {size:,} leaves: inclusion median {statistics.median(reads) * 1000:.2f} ms, "
          f"consistency {consistency_ms:.2f} ms (one pipelined round trip each)")  # fmt: skip
    for leaves_count in (10_000, 1_000_000):
        hashes = max(len(merkle.inclusion_proof(i, leaves_count, lambda level, index: bytes(32)))
                     for i in (0, leaves_count // 3, leaves_count - 1))  # fmt: skip
        print(f"inclusion proof at {leaves_count:,} leaves: at most {hashes} hashes = {hashes * 32} bytes "
              f"({(hashes * 32 + 2) // 3 * 4 + hashes * 3} characters of JSON base64)")  # fmt: skip


def memory(client: redis.Redis, log: LogStore) -> None:
    size = log.size()
    log_keys = [keys.LOG_LEAVES, keys.LOG_HEADS, keys.LOG_OPEN, keys.LOG_CHECKPOINT]
    log_keys += [keys.log_level(level) for level in range(size.bit_length())]
    tree = sum(client.memory_usage(k) or 0 for k in log_keys)
    chains = sum(client.memory_usage(k) or 0 for k in client.scan_iter(match=f"{keys.LOG}:chain:*"))
    checkpoints = client.memory_usage(keys.LOG_CHECKPOINTS) or 0
    per_leaf = (tree + chains) / size
    print(f"memory: {size:,} leaves take {(tree + chains) / 2**20:.1f} MiB ({per_leaf:.0f} bytes a leaf: data, "
          f"nodes, chain sorted sets, heads) + {checkpoints / 2**20:.1f} MiB of signed checkpoints "
          f"({client.zcard(keys.LOG_CHECKPOINTS):,} kept)")  # fmt: skip
    for events in (100, 300, 1000):
        print(f"  a game of {events} events logged with a head at every event (the most: one a round): "
              f"{(events + 1) * per_leaf / 1024:.0f} KiB")  # fmt: skip


def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="hm-bench-log"))
    with EmbeddedRedis(folder / "data") as server:
        client = redis.Redis.from_url(server.url)
        log = LogStore(client)
        signer = note.Signer.generate("bench.local/log")
        log.publish_key(signer.name, signer.verifier.vkey, [])
        signing(signer)
        sequencer_round(client, signer)
        appends(log, signer)
        proofs(log)
        memory(client, log)


if __name__ == "__main__":
    main()
