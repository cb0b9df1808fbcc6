"""Archive: Redis memory of a finished game against its archive file (gzipped export) and the export.

One round of 8 bot players at tables of 4 per game (``harbormaster tournament run``, its own workers) on
an embedded Redis; then ``MEMORY USAGE`` of each finished game's keys and the size of its archive.
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import redis

from services.redis_launcher import EmbeddedRedis


def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="hm-bench-archive"))
    server = EmbeddedRedis(folder / "data")
    server.start()
    try:
        env = {**os.environ, "REDIS_URL": server.url, "HARBORMASTER_ARCHIVE": str(folder / "archive"),
               "HARBORMASTER_LOG_LEVEL": "warning"}  # fmt: skip
        client = redis.Redis.from_url(server.url)
        for game in ("manila", "elcapitan", "eic"):
            subprocess.run([sys.executable, "-m", "services.cli", "tournament", "run", "--game", game, "--rounds", "1",
                            "--players", "8", "--table-size", "4", "--rq-workers", "2", "--id", f"a{game}"],
                           env=env, check=True, capture_output=True, timeout=1800)  # fmt: skip
            for table in (1, 2):
                game_id = f"a{game}-r1-t{table}"
                used = sum(
                    client.memory_usage(k) or 0 for k in client.scan_iter(match=f"hm:{{g:{game_id}}}:*")
                )
                path = folder / "archive" / f"{game_id}.jsonl.gz"
                export = len(gzip.decompress(path.read_bytes()))
                print(f"{game_id}: Redis {used / 1024:.0f} KiB, export {export / 1024:.0f} KiB, "
                      f"archive {path.stat().st_size / 1024:.0f} KiB ({used / path.stat().st_size:.1f}x smaller)")  # fmt: skip
    finally:
        server.stop()
