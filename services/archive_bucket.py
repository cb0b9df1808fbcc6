"""An S3-compatible bucket beside the archive folder: each archive file, once written, is uploaded there.

``HARBORMASTER_ARCHIVE_BUCKET=s3://<bucket>/<prefix>`` turns it on; ``HARBORMASTER_ARCHIVE_S3_ENDPOINT``
names a server other than AWS (MinIO, Ceph, Garage, R2 …); credentials and region come from the usual
``AWS_*`` variables or files (boto3's own lookup). The folder stays the working copy (the job writes and
verifies the file there first); the bucket is where the archive outlives the machine. An upload is checked
by its size and a SHA-256 the server computes and returns (``ChecksumSHA256``); only a game whose object is
confirmed counts as archived and may be trimmed from Redis. ``harbormaster verify s3://…`` fetches an
object and verifies it like a file.
"""

from __future__ import annotations

import base64
import hashlib
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

BUCKET_ENV = "HARBORMASTER_ARCHIVE_BUCKET"
ENDPOINT_ENV = "HARBORMASTER_ARCHIVE_S3_ENDPOINT"
"""The variables' names, for tests that set them; ``services/config.py`` reads them."""


class BucketError(Exception):
    """The bucket refused or lost an upload (the game stays unverified, in Redis, for the next try)."""


def parse_url(url: str) -> tuple[str, str]:
    """``s3://bucket/some/prefix`` -> (``bucket``, ``some/prefix``)."""
    if not url.startswith("s3://") or len(url) <= len("s3://"):
        raise ValueError(f"an archive bucket is named s3://<bucket>[/<prefix>], not {url!r}")
    bucket, _, prefix = url[len("s3://") :].partition("/")
    return bucket, prefix.strip("/")


class ArchiveBucket:
    """Where archive files are uploaded, and fetched back for ``verify``."""

    def __init__(self, url: str, endpoint: str | None = None) -> None:
        import boto3  # only where a bucket is configured

        self.bucket, self.prefix = parse_url(url)
        self.client: Any = boto3.client("s3", endpoint_url=endpoint or None)

    def key(self, name: str) -> str:
        return f"{self.prefix}/{name}" if self.prefix else name

    def url(self, name: str) -> str:
        return f"s3://{self.bucket}/{self.key(name)}"

    def upload(self, path: Path) -> str:
        """Upload the file under its own name; its ``s3://`` address once the server confirmed every byte."""
        data = path.read_bytes()
        digest = base64.b64encode(hashlib.sha256(data).digest()).decode()
        try:
            self._put_new(path.name, data, digest)
            stored = self.client.head_object(
                Bucket=self.bucket, Key=self.key(path.name), ChecksumMode="ENABLED"
            )
        except Exception as exc:  # botocore's errors: the network, the credentials, the bucket
            raise BucketError(f"upload of {path.name} to {self.url(path.name)} failed: {exc}") from exc
        if stored.get("ContentLength") != len(data) or stored.get("ChecksumSHA256", digest) != digest:
            # Never overwritten: an object there is an archive uploaded (and verified) before.
            raise BucketError(f"the bucket holds a different {path.name} than was sent; it is kept as it is")
        return self.url(path.name)

    def _put_new(self, name: str, data: bytes, digest: str) -> None:
        """Upload unless an object holds the key (``If-None-Match: *``): the same archive again is found
        equal by the caller's check, a different one refused there; neither replaces what is stored."""
        try:
            self.client.put_object(
                Bucket=self.bucket,
                Key=self.key(name),
                Body=data,
                ChecksumSHA256=digest,  # the server refuses the upload if what it got differs
                ContentType="application/gzip",
                IfNoneMatch="*",
            )
        except Exception as exc:
            if getattr(exc, "response", {}).get("Error", {}).get("Code") != "PreconditionFailed":
                raise


@contextmanager
def fetched(url: str, endpoint: str | None = None) -> Iterator[Path]:
    """An ``s3://bucket/key`` object as a temporary file (named as the object, so ``.gz`` is read as gzip)."""
    bucket_name, key = parse_url(url)
    bucket = ArchiveBucket(f"s3://{bucket_name}", endpoint)
    with tempfile.TemporaryDirectory(prefix="harbormaster-verify-") as folder:
        path = Path(folder) / (key.rsplit("/", 1)[-1] or "archive")
        try:
            bucket.client.download_file(bucket_name, key, str(path))
        except Exception as exc:
            raise BucketError(f"cannot fetch {url}: {exc}") from exc
        yield path
