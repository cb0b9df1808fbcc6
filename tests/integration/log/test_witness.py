"""``harbormaster witness URL`` against a real HTTP server serving a log its operator can fork at will
(``tests/support/log_server.py``): trust on first use, a private key made once, cosignatures stored before
they are posted and posted again when lost, and a fork or a rollback caught with evidence, for good."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from events.tlog import note
from events.tlog.witness import WitnessState, check_evidence, cosigned_by, pin, read_evidence
from services import logging as hm_logging
from services.cli import main
from services.witness import files
from services.witness.client import LogClient
from services.witness.run import EXIT_FORKED, Witness, follow
from tests.support.log_server import FakeLog, serving


def witness(tmp_path: Path, url: str, *extra: str, once: bool = True) -> int:
    """The command, in this process; its exit code."""
    argv = ["witness", url, "--state", str(tmp_path / "state.json"), "--key", str(tmp_path / "w.key"), *extra]
    try:
        with pytest.raises(SystemExit) as exited:
            main([*argv, "--once"] if once else argv)
    finally:  # main configures logging for a process: the other tests get the test set-up back
        hm_logging.configure("console", os.environ.get("HARBORMASTER_LOG_LEVEL", "warning"), cache=False)
    return int(exited.value.code or 0)


def state_of(tmp_path: Path) -> WitnessState:
    state = files.load_state(tmp_path / "state.json")
    assert state is not None
    return state


def key_of(tmp_path: Path) -> note.Signer:
    return files.decode_key((tmp_path / "w.key").read_text(), tmp_path / "w.key")


def test_first_contact_pins_the_log_makes_a_private_key_and_cosigns_once_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = FakeLog()
    log.grow(3)
    with serving(log) as url:
        assert witness(tmp_path, url, "--name", "witness.test/alice") == 0
        out = capsys.readouterr().out
        signer = key_of(tmp_path)
        assert f"witness key (made now): {signer.verifier.vkey}" in out
        assert (
            f"log key pinned on first use (pass --log-key to pin one you checked): {log.signer.verifier.vkey}"
            in out
        )
        assert stat.S_IMODE((tmp_path / "w.key").stat().st_mode) == 0o600
        assert signer.name == "witness.test/alice" and signer.verifier.kind == note.COSIGNATURE_V1
        assert state_of(tmp_path).size == 3 and state_of(tmp_path).log_vkey == log.signer.verifier.vkey
        assert len(log.posts) == 1 and not log.cosignatures  # posted, but the log does not list it yet
        log.witnesses.append(signer.verifier)  # the operator adds the printed key
        assert witness(tmp_path, url) == 0  # a new process posts the cosignature the log does not show
        assert "made now" not in capsys.readouterr().out
        assert cosigned_by(log.checkpoint(), signer.verifier)
        posts = len(log.posts)
        assert witness(tmp_path, url) == 0
        assert len(log.posts) == posts  # shown already: nothing to post


def test_growth_is_cosigned_and_the_state_is_on_disk_before_the_post(tmp_path: Path) -> None:
    log = FakeLog()
    log.grow(2)
    with serving(log) as url:
        assert witness(tmp_path, url) == 0
        log.witnesses.append(key_of(tmp_path).verifier)
        log.post_hook = lambda: state_of(tmp_path).size  # what the witness had stored when its post arrived
        for step in (1, 5, 9):
            log.grow(step)
            assert witness(tmp_path, url) == 0
            assert log.on_post[-1] == len(log.data) == state_of(tmp_path).size
            assert cosigned_by(log.checkpoint(), key_of(tmp_path).verifier)


def test_a_fork_stops_the_witness_with_evidence_and_for_good(tmp_path: Path) -> None:
    log = FakeLog()
    log.grow(6)
    with serving(log) as url:
        assert witness(tmp_path, url) == 0
        cosigned = state_of(tmp_path).cosigned
        log.fork(at=3)  # the operator rewrites three leaves and signs the new tree of 6
        forked = log.checkpoint()
        command = [sys.executable, "-m", "services.cli", "witness", url, "--once"]
        command += ["--state", str(tmp_path / "state.json"), "--key", str(tmp_path / "w.key")]
        env = {**os.environ, "HARBORMASTER_LOG_LEVEL": "info", "HARBORMASTER_LOG_FORMAT": "json"}
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
        assert done.returncode == EXIT_FORKED, done.stderr
        alarm = next(line for line in done.stderr.splitlines() if '"log_forked"' in line)
        assert '"level": "error"' in alarm and '"fault": "fork"' in alarm
        [evidence] = tmp_path.glob("fork-*.txt")
        text = evidence.read_text()
        assert cosigned in text and forked in text
        assert "signed two roots for its tree of 6" in check_evidence(read_evidence(text))
        state = state_of(tmp_path)
        assert state.halted.startswith("fork:") and state.evidence == str(evidence) and state.size == 6
        posts = len(log.posts)
        log.fork(at=6)  # even an honest-looking log afterwards: refused
        log.grow(4)
        assert witness(tmp_path, url) == EXIT_FORKED
        assert witness(tmp_path, url, once=False) == EXIT_FORKED  # the loop too refuses to start
        assert len(log.posts) == posts and state_of(tmp_path).size == 6


def test_growth_onto_a_rewritten_history_fails_its_proof_and_is_a_fork(tmp_path: Path) -> None:
    log = FakeLog()
    log.grow(5)
    with serving(log) as url:
        assert witness(tmp_path, url) == 0
        log.fork(at=1)
        log.grow(3)
        assert witness(tmp_path, url) == EXIT_FORKED
        [evidence] = tmp_path.glob("fork-*.txt")
        assert "trees of 5 and 8 are not one history" in check_evidence(read_evidence(evidence.read_text()))


def test_an_old_checkpoint_is_no_alarm_and_a_rollback_to_another_history_is(tmp_path: Path) -> None:
    log = FakeLog()
    log.grow(9)
    with serving(log) as url:
        assert witness(tmp_path, url) == 0
        posts = len(log.posts)
        log.shown = 4  # a cache's old answer: a prefix of the cosigned tree
        assert witness(tmp_path, url) == 0
        assert len(log.posts) == posts and state_of(tmp_path).size == 9
        log.fork(at=2)  # rewritten: its tree of 4 is no prefix of the cosigned tree of 9
        assert witness(tmp_path, url) == EXIT_FORKED
        assert state_of(tmp_path).halted.startswith("rollback:")
        assert len(list(tmp_path.glob("fork-*.txt"))) == 1


def test_a_checkpoint_of_another_key_is_refused_without_alarm(tmp_path: Path) -> None:
    log = FakeLog()
    log.grow(2)
    other = note.Signer.generate("harbormaster.test/log")
    with serving(log) as url:
        assert witness(tmp_path, url, "--log-key", other.verifier.vkey) == 4
        assert not log.posts and state_of(tmp_path).size == 0 and not state_of(tmp_path).halted
        assert not list(tmp_path.glob("fork-*.txt"))


def test_mistakes_are_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = FakeLog()
    log.grow(1)
    with serving(log) as url:
        assert witness(tmp_path, "file:///etc/passwd") == 2
        assert "not an http(s) address" in capsys.readouterr().err
        assert witness(tmp_path, url, "--name", "witness.test/a") == 0
        assert witness(tmp_path, url, "--name", "witness.test/b") == 2
        assert "is the key of witness witness.test/a, not witness.test/b" in capsys.readouterr().err
        other = note.Signer.generate("elsewhere.test/log").verifier.vkey
        assert witness(tmp_path, url, "--log-key", other) == 2
        assert "follows the log with key" in capsys.readouterr().err
        with files.locked(tmp_path / "state.json"):
            assert witness(tmp_path, url) == 2
        assert "another witness is running" in capsys.readouterr().err


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Stop(Exception):
    pass


def test_the_loop_backs_off_while_unreachable_then_cosigns_and_posts_again_what_was_lost(
    tmp_path: Path,
) -> None:
    log = FakeLog()
    log.grow(4)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    assert witness(tmp_path, url) == 3  # --once, nobody there
    signer, _ = files.load_or_make_key(tmp_path / "w.key", None)
    log.witnesses.append(signer.verifier)
    log.fail_posts = 1  # the first cosignature is lost on the way: the state has it, the log does not
    state = WitnessState(log_vkey=log.signer.verifier.vkey)
    waits: list[float] = []
    with serving(log, port) as served:
        served_log = log

        def sleep(seconds: float) -> None:
            waits.append(seconds)
            if cosigned_by(served_log.checkpoint(), signer.verifier):
                raise Stop

        unreachable = Witness(
            LogClient(f"http://127.0.0.1:{free_port()}"), signer, tmp_path / "state.json", state
        )
        tries: list[float] = []

        def give_up(seconds: float) -> None:
            tries.append(seconds)
            if len(tries) == 4:
                raise Stop

        with pytest.raises(Stop):
            follow(unreachable, 0.5, once=False, sleep=give_up)
        assert tries == [0.5, 1.0, 2.0, 4.0]
        with pytest.raises(Stop):
            follow(
                Witness(LogClient(served), signer, tmp_path / "state.json", state),
                0.5,
                once=False,
                sleep=sleep,
            )
    assert len(log.posts) == 2 and waits == [0.5, 0.5]  # the 503 cost a round: the next posted it again
    assert state_of(tmp_path).size == 4


def test_a_log_that_does_not_list_the_witness_is_told_once_not_every_round(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = FakeLog()
    signer, _ = files.load_or_make_key(tmp_path / "w.key", "witness.test/w1")
    state = WitnessState(log_vkey=log.signer.verifier.vkey)
    with serving(log) as url:
        follower = Witness(LogClient(url), signer, tmp_path / "state.json", state)
        for _ in range(3):
            log.grow(2)
            assert follower.round() is None
        log.witnesses.append(signer.verifier)
        log.grow(1)
        assert follower.round() is None
    assert capsys.readouterr().err.count("cosignature_not_taken") == 1  # three refused, told once
    assert len(log.posts) == 4 and cosigned_by(log.checkpoint(), signer.verifier)


def test_a_state_it_cannot_write_stops_it_in_one_line_before_it_cosigns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = FakeLog()
    log.grow(2)
    state = tmp_path / "state.json"
    files.save_state(state, pin(log.signer.verifier.vkey))
    (
        tmp_path / f".state.json.{os.getpid()}.tmp"
    ).mkdir()  # where its next state would be written: no file can be
    with serving(log) as url:
        assert witness(tmp_path, url) == 2
    assert "cannot keep the witness's files" in capsys.readouterr().err
    assert not log.posts and state_of(tmp_path).size == 0  # nothing cosigned that it could not remember


def test_a_rotated_log_key_given_by_the_owner_binds_the_new_key_to_the_cosigned_tree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = FakeLog()
    log.grow(5)
    with serving(log) as url:
        assert witness(tmp_path, url) == 0
        old_key = log.signer.verifier.vkey
        log.signer = note.Signer.generate("harbormaster.test/log")  # the operator rotates its key
        log.grow(2)
        assert witness(tmp_path, url) == 4  # not the pinned key: refused, until its owner checks the new one
        assert witness(tmp_path, url, "--log-key", log.signer.verifier.vkey) == 0
        assert f"log key rotated (the old one kept for what it signed): {log.signer.verifier.vkey}" in (
            capsys.readouterr().out
        )
        state = state_of(tmp_path)
        assert state.size == 7 and state.retired == (old_key,)
        log.fork(at=3)  # the new key signs another history of the tree the old one's extends
        assert witness(tmp_path, url) == EXIT_FORKED
        [evidence] = tmp_path.glob("fork-*.txt")
        assert "two roots for its tree of 7" in check_evidence(read_evidence(evidence.read_text()))


def test_evidence_of_a_fork_right_after_a_rotation_is_proven_with_the_retired_key(tmp_path: Path) -> None:
    log = FakeLog()
    log.grow(5)
    with serving(log) as url:
        assert witness(tmp_path, url) == 0
        log.signer = note.Signer.generate("harbormaster.test/log")
        log.fork(at=2)  # the new key's first checkpoint: another tree of 5
        assert witness(tmp_path, url, "--log-key", log.signer.verifier.vkey) == EXIT_FORKED
        [evidence] = tmp_path.glob("fork-*.txt")
        read = read_evidence(evidence.read_text())
        assert len(read.retired) == 1  # the cosigned head is the old key's, the conflicting one the new key's
        assert "two roots for its tree of 5" in check_evidence(read)
