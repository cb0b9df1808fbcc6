"""The witness's loop: fetch the log's checkpoint, the consistency proof from the last cosigned one, judge it
(``events/tlog/witness.judge``), store the new state durably, and only then post the cosignature.

Exit codes (``docs/audit.md``): 0 a ``--once`` round that ended well; 2 a mistake of the user's (a bad key,
state or address); 3 ``--once`` and the server unreachable; 4 ``--once`` and a checkpoint refused (not the
pinned key's, another origin, no proof); 5 the log forked or rolled back: evidence written, and this
witness refuses the log from then on (every later start exits 5 too). Without ``--once`` the loop never
stops for a network error or a refusal: it logs them and tries again, backing off while unreachable.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import structlog

from events.tlog import note
from events.tlog import witness as core
from services.witness import files
from services.witness.client import LogClient, Unreachable

EXIT_OK = 0
EXIT_UNREACHABLE = 3
EXIT_REFUSED = 4
EXIT_FORKED = 5
MAX_BACKOFF_S = 60.0

log = structlog.get_logger("witness")


class Witness:
    """One witness following one log; ``round`` is one look at the log."""

    def __init__(
        self, client: LogClient, signer: note.Signer, state_path: Path, state: core.WitnessState
    ) -> None:
        self.client, self.signer, self.state_path, self.state = client, signer, state_path, state
        self.delivered = -1
        """The tree size whose cosignature the log took (or refused for good) since this process started."""
        self.refused = 0
        """The status the log refused the last cosignature with (0: it took it)."""

    def round(self, now: Callable[[], float] = time.time) -> int | None:
        """Look once; an exit code when the witness must stop (or report), ``None`` when all is well."""
        signed = self.client.checkpoint()
        sizes = core.needed_proof(self.state, signed)
        proof = self.client.consistency(*sizes) if sizes else []
        verdict = core.judge(self.state, signed, proof, self.signer, int(now()))
        if isinstance(verdict, core.Cosign):
            files.save_state(self.state_path, verdict.state)  # durably, before the cosignature leaves
            self.state = verdict.state
            log.info("cosigned", origin=self.state.origin, size=self.state.size)
            self._deliver(verdict.note + verdict.line)
        elif isinstance(verdict, core.Unchanged):
            self._deliver_again(signed, int(now()))
        elif isinstance(verdict, core.Stale):
            log.warning(
                "old_checkpoint_served",
                origin=self.state.origin,
                size=verdict.size,
                cosigned=self.state.size,
            )
        elif isinstance(verdict, core.Refused):
            log.error("checkpoint_refused", origin=self.state.origin, reason=verdict.reason)
            return EXIT_REFUSED
        else:
            return self._alarm(verdict, now())
        return None

    def _deliver_again(self, signed: str, timestamp: int) -> None:
        """The checkpoint is the one cosigned: post the cosignature again if the log does not show it and this
        process has not delivered it (a crash between the state's write and the post, a post that failed)."""
        if self.delivered == self.state.size or core.cosigned_by(signed, self.signer.verifier):
            return
        line = core.cosign(self.state.checkpoint, self.signer, timestamp)
        self._deliver(core.log_signed(signed, self.state.log) + line)

    def _deliver(self, cosigned: str) -> None:
        status, answer = self.client.post_cosignature(cosigned)
        self.delivered = self.state.size
        if status in (200, 204):
            log.info("cosignature_taken", size=self.state.size)
        elif status != self.refused:  # most often the log does not list it: said once, not each round
            log.warning("cosignature_not_taken", size=self.state.size, status=status, answer=answer)
        self.refused = 0 if status in (200, 204) else status

    def _alarm(self, verdict: core.Forked, at: float) -> int:
        stamp = datetime.fromtimestamp(at, UTC)
        text = core.evidence_text(verdict.evidence, self.signer.verifier.vkey, stamp.isoformat())
        path = files.write_evidence(self.state_path, text, stamp.strftime("%Y%m%dT%H%M%SZ"))
        self.state = msgspec.structs.replace(verdict.state, evidence=str(path))
        files.save_state(self.state_path, self.state)
        log.error(
            "log_forked",
            origin=self.state.origin,
            fault=verdict.evidence.fault,
            reason=verdict.evidence.reason,
            evidence=str(path),
        )
        return EXIT_FORKED


def follow(
    witness: Witness, interval_s: float, once: bool, sleep: Callable[[float], None] = time.sleep
) -> int:
    """Rounds every ``interval_s`` until the log forks (or, with ``once``, after one round)."""
    backoff = interval_s
    while True:
        try:
            code = witness.round()
        except Unreachable as error:
            log.warning("log_unreachable", error=str(error), retry_in_s=round(backoff, 1))
            if once:
                return EXIT_UNREACHABLE
            sleep(backoff)
            backoff = min(backoff * 2, max(MAX_BACKOFF_S, interval_s))
            continue
        backoff = interval_s
        if code == EXIT_FORKED or once:
            return EXIT_OK if code is None else code
        sleep(interval_s)
