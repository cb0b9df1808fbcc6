"""A newcomer's first half hour, as the README tells it: from a fresh ``git clone``, through the installed
``harbormaster`` command, with the working directory elsewhere.

``make run`` in the background until the address it prints answers; the lobby lists live games of all three
kinds and a board renders in headless Chromium; then each command line of the README's blocks
(``readme_plan.py``), ``tournament run`` with ``serve`` up; Ctrl-C to ``make run`` leaves no process of
ours; ``tournament run`` again with nothing running, and once more stopped by SIGTERM, leaving nothing.

The clone's virtual environment reuses the packages of the one that runs the tests (a ``.pth`` file), and
its own checkout is installed into it by pip, so ``.venv/bin/harbormaster`` is the console script pip
makes; the compiled move path is copied from the tree that runs the tests when it has a usable one.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import threading
import time
from pathlib import Path

import httpx
import pytest

from services import move_path
from tests.browser.waiting import wait_until
from tests.journey.readme_plan import Step, plan, synopsis_flags

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("HARBORMASTER_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
KINDS = {"manila": "Manila", "elcapitan": "El Capitán", "eic": "East India Companies"}

pytestmark = pytest.mark.xdist_group("journey")


# --- the clone --------------------------------------------------------------------------------------------


def _user_env() -> dict[str, str]:
    """Our environment without what the tests set for themselves: a user has no REDIS_URL and so on."""
    dropped = (
        "REDIS_URL",
        "RQ_REDIS_URL",
        "HARBORMASTER_DATA",
        "HARBORMASTER_ARCHIVE",
        "PYTEST_",
        "VIRTUAL_ENV",
    )
    return {k: v for k, v in os.environ.items() if not k.startswith(dropped)}


def _venv_reusing_ours(clone: Path) -> None:
    """``clone/.venv`` with our installed packages and the clone itself installed (editable) by pip."""
    venv = clone / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    theirs = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                            check=True, capture_output=True, text=True).stdout.strip()  # fmt: skip
    (Path(theirs) / "_harbormaster_journey.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "-e", "."],
                   cwd=clone, check=True, capture_output=True)  # fmt: skip
    (venv / ".installed").touch()  # the Makefile's stamp: newer than pyproject.toml, nothing to install


def _copy_build(clone: Path) -> None:
    """Our compiled move path into the clone, newer than its sources, with the Makefile's stamp."""
    library = move_path.shared_library()
    if library is None or move_path.interpreted_because is not None:
        return  # `make run` compiles it in the clone (about a minute)
    forms = [move_path.compiled_form(m) for m in move_path.COMPILED] + [library]
    for form in forms:
        assert form is not None
        copied = clone / form.relative_to(ROOT)
        shutil.copy2(form, copied)
        copied.touch()
    (clone / "build").mkdir(exist_ok=True)
    (clone / "build" / ".compiled").touch()


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    checkout = tmp_path_factory.mktemp("journey") / "harbormaster"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(checkout)], check=True)
    _venv_reusing_ours(checkout)
    _copy_build(checkout)
    return checkout


def _ours(folder: Path) -> list[str]:
    """The processes working in ``folder`` (our commands, their workers, the embedded Redis in its data)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            cwd = os.readlink(proc / "cwd")
        except OSError:
            continue
        if proc.name.isdigit() and int(proc.name) != os.getpid() and cwd.startswith(str(folder)):
            command = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            found.append(f"{proc.name}: {command}")
    return found


def _wait_gone(folder: Path, timeout_s: float = 30.0) -> list[str]:
    deadline = time.monotonic() + timeout_s
    while (left := _ours(folder)) and time.monotonic() < deadline:
        time.sleep(0.5)
    return left


def _shell(command: str, cwd: Path, timeout_s: float = 240.0) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["bash", "-c", command], cwd=cwd, env=_user_env(), capture_output=True, text=True,
                          timeout=timeout_s, check=False)  # fmt: skip
    assert done.returncode == 0, f"{command}\nstdout: {done.stdout[-2000:]}\nstderr: {done.stderr[-2000:]}"
    return done


# --- make run ---------------------------------------------------------------------------------------------


class MakeRun:
    """``make run`` in a session of its own (a terminal's foreground job), its output read line by line."""

    def __init__(self, clone: Path) -> None:
        self.process = subprocess.Popen(["make", "run"], cwd=clone, env=_user_env(), stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True, start_new_session=True)  # fmt: skip
        self.lines: list[str] = []
        self.address: str | None = None
        self._seen = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.rstrip())
            found = re.search(r"Harbormaster is up: open (http://\S+)", line)
            if found:
                self.address = found.group(1)
                self._seen.set()
        self._seen.set()

    def wait_for_address(self, timeout_s: float) -> str:
        self._seen.wait(timeout_s)
        assert self.address, "make run printed no address:\n" + "\n".join(self.lines[-40:])
        return self.address

    def ctrl_c(self) -> int:
        os.killpg(self.process.pid, signal.SIGINT)  # what a terminal sends its foreground job
        return self.process.wait(timeout=60)


def _live_kinds(address: str) -> dict[str, str]:
    games = httpx.get(address + "api/games?status=live&limit=50", timeout=10).json()["games"]
    return {game["game"]: game["game_id"] for game in games if game["game_id"].startswith("demo-")}


def _wait_for_demo_games(address: str, timeout_s: float = 60.0) -> dict[str, str]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            kinds = _live_kinds(address)
        except httpx.HTTPError:
            kinds = {}
        if set(kinds) == set(KINDS):
            return kinds
        time.sleep(0.5)
    raise AssertionError(f"the lobby does not list live games of all three kinds at {address}")


def _in_chromium(address: str, demo: dict[str, str]) -> None:
    """The lobby lists the live games of all three kinds; a board is drawn."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1360, "height": 1000})
            page.goto(address)
            for title in KINDS.values():
                page.locator("#live .game-row", has_text=title).first.wait_for(timeout=20_000)
            page.goto(f"{address}games/{demo['manila']}")
            # polled with evaluate: wait_for_function's predicate is an eval, which the page's CSP refuses
            wait_until(page, "document.querySelectorAll('#board svg *').length > 50", timeout_ms=20_000)
        finally:
            browser.close()


# --- the README's commands ---------------------------------------------------------------------------------


def _run_step(step: Step, elsewhere: Path, game_id: str | None) -> str | None:
    """Run one planned line; returns the id of a game it created."""
    created = None
    for command in step.commands:
        done = _shell(command.replace("GAME_ID", game_id or "GAME_ID"), elsewhere)
        out = done.stdout
        if step.kind == "help":
            assert out.startswith("usage: harbormaster"), out
            assert all(flag in out for flag in synopsis_flags(step.line)), (step.line, out)
        elif " new " in command:
            created = json.loads(out)["game_id"]
        elif " send " in command:
            assert json.loads(out)["status"] == "applied", out
        elif " log " in command:
            assert json.loads(out.splitlines()[0])["seq"] == 1, out
        elif " verify " in command:
            assert out.startswith("OK "), out
        elif " games" in command:
            assert game_id is not None and game_id in out, out
        elif " tournament run " in command:
            assert "winner" in out and "finished" in out, out
    return created


def test_a_newcomer_follows_the_readme(clone: Path, tmp_path: Path) -> None:
    steps = plan(venv_bin=f"{clone}/.venv/bin/")
    assert not [s.line for s in steps if s.kind == "unknown"], "README lines the journey does not know"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = MakeRun(clone)
    try:
        address = run.wait_for_address(timeout_s=300)
        demo = _wait_for_demo_games(address)
        _in_chromium(address, demo)
        game_id = None
        for step in steps:
            if step.kind in ("shell", "help"):
                game_id = _run_step(step, elsewhere, game_id) or game_id
    finally:
        code = run.ctrl_c()
    assert code in (0, 2, 130, -signal.SIGINT), "\n".join(run.lines[-30:])
    assert _wait_gone(clone) == [], "make run left processes after Ctrl-C"


def _tournament_run(venv_bin: str) -> str:
    return next(c for s in plan(venv_bin=venv_bin) for c in s.commands if " tournament run " in c)


def test_tournament_run_needs_no_serve_and_leaves_nothing(clone: Path, tmp_path: Path) -> None:
    command = _tournament_run(f"{clone}/.venv/bin/")
    done = _shell(command, tmp_path)
    assert "winner" in done.stdout and "finished" in done.stdout, done.stdout
    assert "no running server found" in done.stderr
    assert _wait_gone(tmp_path) == [], "tournament run left processes"


def test_sigterm_stops_tournament_run_and_all_it_started(clone: Path, tmp_path: Path) -> None:
    command = _tournament_run(f"{clone}/.venv/bin/")
    process = subprocess.Popen(["bash", "-c", f"exec {command}"], cwd=tmp_path, env=_user_env(),
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)  # fmt: skip
    deadline = time.monotonic() + 60
    while len(_ours(tmp_path)) < 4 and time.monotonic() < deadline:  # itself, Redis and its workers
        time.sleep(0.3)
    assert len(_ours(tmp_path)) >= 4, _ours(tmp_path)
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=60)
    assert _wait_gone(tmp_path) == [], "SIGTERM left processes of tournament run"


@pytest.mark.parametrize("verb", ["gateway --port 0", "worker", "rq-worker"])
def test_sigterm_stops_a_part_and_the_redis_it_started(clone: Path, tmp_path: Path, verb: str) -> None:
    """Run alone in an empty folder, a part starts an embedded Redis; SIGTERM stops both."""
    process = subprocess.Popen(["bash", "-c", f"exec {clone}/.venv/bin/harbormaster {verb}"], cwd=tmp_path,
                               env=_user_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    socket = tmp_path / ".harbormaster" / "redis.sock"
    deadline = time.monotonic() + 60
    while not socket.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert socket.exists(), "no embedded Redis was started"
    time.sleep(2)  # past its start-up, into its loop
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=60)
    assert _wait_gone(tmp_path) == [], f"SIGTERM to {verb} left processes"
