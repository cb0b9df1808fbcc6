"""Running a fold worker as a process: signals and the bot hook wired in."""

from __future__ import annotations

import gc
import signal
from types import FrameType

import structlog
from rq import Queue

from events.bus import CommandBus
from events.store import EventStore
from workers.fold import FoldWorker
from workers.jobs.bots import BOT_QUEUE, BotTrigger

log = structlog.get_logger("runner")


def install_stop_signals(worker: FoldWorker) -> None:
    """First SIGTERM/SIGINT: warm stop (finish the batch in flight). Second: leave at once."""

    def handle(signum: int, frame: FrameType | None) -> None:
        if worker.stopping:
            log.warning("hard_stop", signal=signum)
            raise SystemExit(1)
        log.info("warm_stop", signal=signum)
        worker.request_stop()

    signal.signal(signal.SIGTERM, handle)
    signal.signal(signal.SIGINT, handle)


def run_fold_worker(
    store: EventStore,
    bus: CommandBus,
    redis_url: str,
    bot_delay_s: float = 0.0,
    batch_size: int = 256,
    plugins: tuple[str, ...] = (),
) -> int:
    """A fold worker process's whole life; returns the number of commands it folded."""
    trigger = BotTrigger(
        queue=Queue(BOT_QUEUE, connection=store.redis),
        redis_url=redis_url,
        delay_s=bot_delay_s,
        partitions=bus.partitions,
        plugins=plugins,
    )
    worker = FoldWorker(store.redis, store, bus, on_applied=trigger, batch_size=batch_size)
    install_stop_signals(worker)
    # Start-up objects (modules, game tables) never die: keep them out of the collector's scans, and collect
    # the young generation less often, so a full collection does not stall a batch of commands.
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)
    return worker.run()
