"""The archive bucket: a verified archive is uploaded to an S3-compatible server (moto's, over HTTP, in a
thread), counts as archived only once the bucket confirmed it, and ``harbormaster verify s3://…`` checks
the object itself."""

from __future__ import annotations

import gzip
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import boto3
import pytest
from moto.server import ThreadedMotoServer

from services.archive import archive_game, archive_missing, archive_path, archived
from services.archive_bucket import BUCKET_ENV, ENDPOINT_ENV
from tests.support.pipeline import TEST_PLUGINS, finished_race, services_for

CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "test",
    "AWS_SECRET_ACCESS_KEY": "test",
    "AWS_DEFAULT_REGION": "us-east-1",
}


class Bucket(NamedTuple):
    endpoint: str
    name: str


@pytest.fixture
def bucket(monkeypatch: pytest.MonkeyPatch) -> Iterator[Bucket]:
    """An S3-compatible server of the test's own, and the archive bucket setting pointing at a bucket of
    the test's own name (moto's servers in one process share their buckets)."""
    name = f"harbormaster-{secrets.token_hex(4)}"
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    for variable, value in CREDENTIALS.items():
        monkeypatch.setenv(variable, value)
    monkeypatch.setenv(BUCKET_ENV, f"s3://{name}/games")
    monkeypatch.setenv(ENDPOINT_ENV, endpoint)
    try:
        yield Bucket(endpoint, name)
    finally:
        server.stop()


def _verify(url: str, endpoint: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **CREDENTIALS, ENDPOINT_ENV: endpoint, "HARBORMASTER_GAME_PLUGINS": TEST_PLUGINS}
    command = [sys.executable, "-m", "services.cli", "verify", url]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)


def test_a_verified_archive_is_in_the_bucket_and_verify_checks_the_object(
    redis_url: str, bucket: Bucket, tmp_path: Path
) -> None:
    services = services_for(redis_url)
    s3 = boto3.client("s3", endpoint_url=bucket.endpoint)
    s3.create_bucket(Bucket=bucket.name)
    game_id = finished_race(services, redis_url)

    entry = archive_game(services.store, game_id, tmp_path)

    key = f"games/{game_id}.jsonl.gz"
    assert entry["verified"] and entry["object"] == f"s3://{bucket.name}/{key}"
    assert archived(services.redis, [game_id])[game_id]["object"] == entry["object"]
    stored = s3.get_object(Bucket=bucket.name, Key=key)["Body"].read()
    assert stored == archive_path(tmp_path, game_id).read_bytes()
    checked = _verify(entry["object"], bucket.endpoint)
    assert checked.returncode == 0 and checked.stdout.startswith(f"OK race {game_id}:"), checked.stderr

    # An object whose last event was dropped fails, with the reason; one that is not there is a clear error.
    lines = gzip.decompress(stored).splitlines(keepends=True)
    s3.put_object(
        Bucket=bucket.name, Key="games/cut.jsonl.gz", Body=gzip.compress(b"".join(lines[:-2] + lines[-1:]))
    )
    cut = _verify(f"s3://{bucket.name}/games/cut.jsonl.gz", bucket.endpoint)
    assert cut.returncode == 1 and "FAILED at seq" in cut.stderr, cut.stderr
    missing = _verify(f"s3://{bucket.name}/games/none.jsonl.gz", bucket.endpoint)
    assert missing.returncode == 2 and "cannot fetch" in missing.stderr, missing.stderr


def test_an_upload_the_bucket_refused_leaves_the_game_unverified_until_archived_again(
    redis_url: str, bucket: Bucket, tmp_path: Path
) -> None:
    services = services_for(redis_url)
    game_id = finished_race(services, redis_url)

    refused = archive_game(services.store, game_id, tmp_path)  # the bucket does not exist yet

    assert "verified" not in refused and "object" not in refused
    assert not archived(services.redis, [game_id])[game_id].get("verified")
    boto3.client("s3", endpoint_url=bucket.endpoint).create_bucket(Bucket=bucket.name)
    [again] = archive_missing(services.store, [game_id], tmp_path)
    assert again["game_id"] == game_id and again["verified"]
    assert again["object"] == f"s3://{bucket.name}/games/{game_id}.jsonl.gz"
