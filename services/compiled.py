"""The modules that run compiled to C by mypyc: the gateway's and the fold worker's part of every move.

They are compiled from the same typed source that ``mypy --strict`` checks, so compiling changes how fast
the code runs, not what it does (``docs/decisions.md``, "Why a move's path is compiled with mypyc").
``make`` compiles them in place (``python -m services.compiled``): an extension module beside each source,
which Python imports before the source. Without a C compiler they stay interpreted, and run as before.

A compiled module older than any source of its group would run code that is no longer in the tree, so
the services warn at start (``stale``) and the tests refuse to run.
"""

from __future__ import annotations

import importlib.machinery
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOG = ROOT / "build" / "mypyc.log"

COMPILED = (
    "events.bus",
    "events.chain",
    "events.codec",
    "events.keys",
    "events.store",
    "services.gateway.commands",
    "services.gateway.fanout",
    "services.gateway.feed_reads",
    "services.gateway.hub",
    "services.gateway.limits",
    "services.gateway.requests",
    "services.gateway.socket_reader",
    "services.gateway.socket_writer",
    "services.gateway.viewer",
    "services.gateway.wire",
    "services.gateway.ws_commands",
    "workers.cache",
    "workers.decide",
    "workers.fold",
    "workers.metrics",
    "workers.reader",
    "workers.wire",
)
"""Compiled as one group (mypyc calls between them directly, in C): change one and all are rebuilt."""


def source(module: str) -> Path:
    return ROOT.joinpath(*module.split(".")).with_suffix(".py")


def compiled_form(module: str) -> Path | None:
    """The extension module built from ``module``'s source, if there is one beside it."""
    path = source(module)
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        built = path.with_name(path.stem + suffix)
        if built.exists():
            return built
    return None


def _group_forms() -> list[Path]:
    """Every extension file a build leaves: one per module, and the group's shared library at the root."""
    forms = [form for form in map(compiled_form, COMPILED) if form is not None]
    shared = [p for suffix in importlib.machinery.EXTENSION_SUFFIXES for p in ROOT.glob(f"*__mypyc{suffix}")]
    return forms + shared


def stale() -> list[str]:
    """The modules whose compiled form would run something other than their group's sources: older than
    the newest source, or missing beside compiled siblings. Empty when nothing is compiled."""
    forms = {module: compiled_form(module) for module in COMPILED}
    if not any(forms.values()):
        return []
    newest = max(source(module).stat().st_mtime for module in COMPILED)
    return [module for module, form in forms.items() if form is None or form.stat().st_mtime < newest]


def remove() -> None:
    """Remove every compiled form: the sources are imported again."""
    for form in _group_forms():
        form.unlink()


def build() -> int:
    """Compile the group in place; on failure (no C compiler, say) leave it interpreted, and say so. Returns
    mypyc's exit status."""
    remove()
    LOG.parent.mkdir(exist_ok=True)
    with LOG.open("w") as log:
        done = subprocess.run(
            [sys.executable, "-m", "mypyc", *(str(source(m).relative_to(ROOT)) for m in COMPILED)],
            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, check=False,
        )  # fmt: skip
    if done.returncode != 0:
        remove()
        sys.stderr.write(f"mypyc failed (see {LOG}): the hot path runs interpreted, and slower\n")
        return done.returncode
    for form in _group_forms():
        form.touch()  # a module's unchanged part is copied from an earlier build with that build's time
    return 0


def main(argv: list[str]) -> int:
    """``--remove`` drops the compiled forms; otherwise build them. Exits 0 either way: a failed build
    leaves the group interpreted, which runs the same code."""
    if argv == ["--remove"]:
        remove()
    else:
        build()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
