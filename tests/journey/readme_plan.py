"""How the journey suite runs each command line of the README's code blocks, or why it does not.

The README is the contract with a new user: every line of its shell blocks is either run as written (the
``.venv/bin/`` of a fresh clone in place of the relative one, a placeholder filled in) or named here with
the reason it is not. A line the plan does not know fails ``tests/unit/contract/test_docs.py``, so a command
added to the README is a command some test runs.
"""

from __future__ import annotations

import re
from pathlib import Path

import msgspec

README = Path(__file__).resolve().parents[2] / "README.md"

PLAYERS_IN_JOURNEY = 8
"""``tournament run … --players 40`` runs with 8: the same command, a shorter tournament."""


class Step(msgspec.Struct, frozen=True, kw_only=True):
    """One README line and what the journey does with it."""

    line: str
    """The command as the README writes it (without its comment)."""
    kind: str
    """``make-run``; ``shell``: run with bash; ``help``: run each of ``commands`` (``--help`` forms);
    ``not-run``: see ``reason``."""
    commands: tuple[str, ...] = ()
    reason: str = ""


def code_lines(text: str) -> list[str]:
    """The command lines of the README's ``sh`` blocks, each without its trailing comment."""
    lines: list[str] = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S):
        for raw in block.splitlines():
            command = re.sub(r"\s+#\s.*$", "", raw).strip()
            if command and not command.startswith("#"):
                lines.append(command)
    return lines


def step_for(line: str, venv_bin: str) -> Step:
    """What the journey does with one README line; ``venv_bin`` replaces ``.venv/bin/``."""
    if line == "make run":
        return Step(line=line, kind="make-run")
    if line == "make test":
        return Step(line=line, kind="not-run", reason="it is the run that runs this journey")
    if not line.startswith(".venv/bin/harbormaster "):
        return Step(line=line, kind="unknown")
    command = line.replace(".venv/bin/", venv_bin)
    verb = line.split()[1]
    if verb == "serve":  # a synopsis: make run runs `serve --demo`; the flags it shows must exist
        return Step(line=line, kind="help", commands=(f"{venv_bin}harbormaster serve --help",))
    if "|" in line and "&&" not in line:  # `worker | rq-worker | gateway`: a list of verbs
        verbs = [part.strip().split("/")[-1].replace("harbormaster ", "") for part in line.split("|")]
        return Step(
            line=line, kind="help", commands=tuple(f"{venv_bin}harbormaster {v} --help" for v in verbs)
        )
    if verb == "games" and "[--live]" in line:
        return Step(
            line=line,
            kind="shell",
            commands=(command.replace(" [--live]", ""), command.replace("[--live]", "--live")),
        )
    if verb == "witness":  # a synopsis: a witness follows another party's server; its flags must exist
        return Step(line=line, kind="help", commands=(f"{venv_bin}harbormaster witness --help",))
    if (
        verb == "verify" and "VKEY" in line
    ):  # first keep what an auditor keeps: a checkpoint, the log, its key
        key = f"$({venv_bin}harbormaster log-key | {venv_bin}python -c 'import json,sys; print(json.load(sys.stdin)[\"vkey\"])')"
        return Step(
            line=line,
            kind="shell",
            commands=(
                f"{venv_bin}harbormaster checkpoint > kept.txt",
                f"{venv_bin}harbormaster log-export > log.jsonl",
                command.replace("VKEY", f'"{key}"'),
            ),
        )
    if verb == "tournament":
        command = re.sub(r"--players \d+", f"--players {PLAYERS_IN_JOURNEY}", command)
    return Step(line=line, kind="shell", commands=(command,))


def plan(venv_bin: str = "VENV/", text: str | None = None) -> list[Step]:
    return [step_for(line, venv_bin) for line in code_lines(README.read_text() if text is None else text)]


def synopsis_flags(line: str) -> list[str]:
    """The ``--flags`` a synopsis line shows (``serve [--host H] [--port N]`` → ``--host``, ``--port``)."""
    return re.findall(r"--[a-z][a-z-]*", line)
