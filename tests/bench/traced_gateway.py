"""A ``harbormaster gateway`` under tracemalloc, for ``bench_socket_memory.py``: on SIGUSR1 it writes a
snapshot to ``$HM_TRACE_DIR/N.snap`` and the number of objects the cyclic collector tracks to ``N.objects`` (N counting from 0). Run as ``python -m tests.bench.traced_gateway PORT``."""

from __future__ import annotations

import gc
import os
import signal
import sys
import tracemalloc
from pathlib import Path
from types import FrameType

import uvicorn

from services.bootstrap import build
from services.config import Settings
from services.gateway.app import create_app
from services.gateway.sockets.protocol import SocketProtocol


def main() -> None:
    tracemalloc.start(8)
    folder = Path(os.environ["HM_TRACE_DIR"])
    taken = [0]

    def snapshot(signum: int, frame: FrameType | None) -> None:
        gc.collect()
        (folder / f"{taken[0]}.objects").write_text(str(len(gc.get_objects())))
        tracemalloc.take_snapshot().dump(str(folder / f"{taken[0]}.snap"))
        (folder / f"{taken[0]}.done").touch()
        taken[0] += 1

    signal.signal(signal.SIGUSR1, snapshot)
    url = os.environ["REDIS_URL"]
    services = build(Settings.from_env(), url)
    uvicorn.run(
        create_app(services, redis_url=url), host="127.0.0.1", port=int(sys.argv[1]), log_level="warning",
        ws_per_message_deflate=False, ws=SocketProtocol,
    )  # fmt: skip


if __name__ == "__main__":
    main()
