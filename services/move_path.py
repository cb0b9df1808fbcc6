"""Which form of a move's path runs: the C extensions mypyc built from it, or its sources.

The modules a move passes through in the gateway and the fold worker (:data:`COMPILED`) may be compiled
in place by ``python -m services.compiled`` (``services/compiled.py``): an extension module beside each
source, and the group's shared library inside the ``services`` package (``services/movepath__mypyc…so``),
so that every way of importing the package finds it (the installed ``harbormaster`` command from any
folder, the tests, ``python -m``). Python imports an extension module before the source of the same name.

A build that would run anything but the tree's sources is never used: when a compiled module is older than
any source of its group, when one is missing, or when the group's library does not import,
:func:`use_sources_if_unusable` (called as the ``services`` package is imported, before any module of the
group) puts a finder in front that imports the group from its sources, and says why in
:data:`interpreted_because`. ``HARBORMASTER_INTERPRETED=1`` does the same on purpose, for a debugger or a
coverage tracer, which see no frames of compiled code (and for patching a class in a test).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
GROUP = "services.movepath"
"""The group's name: its shared library is the extension module ``services.movepath__mypyc``."""

COMPILED = (
    "events.bus",
    "events.chain",
    "events.codec",
    "events.keys",
    "events.store",
    "events.transport.multiplexed",
    "events.transport.pipelined",
    "events.transport.resp",
    "services.gateway.access.limits",
    "services.gateway.api.requests",
    "services.gateway.commands",
    "services.gateway.feeds.blocking_read",
    "services.gateway.feeds.fanout",
    "services.gateway.feeds.feed_reads",
    "services.gateway.feeds.hub",
    "services.gateway.feeds.pending",
    "services.gateway.feeds.polling",
    "services.gateway.feeds.viewer",
    "services.gateway.sockets.protocol",
    "services.gateway.sockets.ws_commands",
    "services.gateway.wire.framing",
    "workers.cache",
    "workers.fold",
    "workers.metrics",
    "workers.reader",
    "workers.referee",
    "domain.eic.board",
    *(
        f"domain.{game}.{module}"
        for game, modules in (
            (
                "eic",
                ("common", "envoys", "epoch_end", "exchange", "flow", "loading", "navigation", "selling"),
            ),
            (
                "elcapitan",
                ("board", "building", "chain", "emitter", "flow", "payday", "pirate", "sailing", "steps"),
            ),
            ("manila", ("auction", "common", "loans", "office", "payout", "placement", "voyage")),
        )
        for module in ("evolve", "rules", *(f"rules.{m}" for m in modules))
    ),
)
"""Compiled as one group (mypyc calls between them directly, in C): change one and all are rebuilt.

The games' rules and ``evolve`` are in it for a search's sake (issue 45): ``legal_commands``, ``decide`` and
``evolve`` run a third to a half faster compiled (``docs/benchmarks.md``). Their states, commands, events
and data stay interpreted: they are ``msgspec`` Structs, which mypyc does not compile, and the engine's
generic ``Game`` record does not import compiled. East India Companies' board arithmetic is kept apart from
its Structs (``domain/eic/board.py``) so that it compiles: every event it folds passes through it."""

interpreted_because: str | None = None
"""Why the group runs from its sources although a build is there; ``None`` when it runs compiled or was
never built."""


def source(module: str) -> Path:
    """The module's source: ``a/b.py``, or ``a/b/__init__.py`` for a package (a game's ``rules``)."""
    path = ROOT.joinpath(*module.split("."))
    package = path / "__init__.py"
    return package if package.exists() else path.with_suffix(".py")


def _extension(path_without_suffix: Path) -> Path | None:
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        built = path_without_suffix.with_name(path_without_suffix.name + suffix)
        if built.exists():
            return built
    return None


def compiled_form(module: str) -> Path | None:
    """The extension module built from ``module``'s source, if there is one beside it."""
    path = source(module)
    return _extension(path.with_name(path.stem))


def shared_library() -> Path | None:
    """The group's shared library (the C code of every module of the group), if built."""
    return _extension(ROOT.joinpath(*GROUP.split(".")).with_name(GROUP.rsplit(".", 1)[1] + "__mypyc"))


def group_forms() -> list[Path]:
    """Every extension file a build leaves, this layout's and the former one's (a library at the root)."""
    forms = [form for form in map(compiled_form, COMPILED) if form is not None]
    library = shared_library()
    former = [p for suffix in importlib.machinery.EXTENSION_SUFFIXES for p in ROOT.glob(f"*__mypyc{suffix}")]
    return forms + ([library] if library else []) + former


def stale() -> list[str]:
    """The modules whose compiled form would run something other than their group's sources: older than
    the newest source, or missing beside compiled siblings. Empty when nothing is compiled."""
    forms = {module: compiled_form(module) for module in COMPILED}
    if not any(forms.values()):
        return []
    newest = max(source(module).stat().st_mtime for module in COMPILED)
    return [module for module, form in forms.items() if form is None or form.stat().st_mtime < newest]


def _unusable() -> str | None:
    """Why a build that is there must not be used; ``None`` when it may (or when there is none)."""
    if os.environ.get("HARBORMASTER_INTERPRETED", "") not in ("", "0"):
        return "HARBORMASTER_INTERPRETED is set"
    if not any(compiled_form(module) for module in COMPILED):
        return None
    old = stale()
    if old:
        return f"the build is older than the sources of {', '.join(old)} (make compiles it again)"
    if shared_library() is None:
        return f"the group's library {GROUP}__mypyc is missing (make compiles it again)"
    try:
        importlib.import_module(f"{GROUP}__mypyc")
    except ImportError as exc:
        return f"the group's library does not import: {exc}"
    return None


class _SourcesFirst(importlib.abc.MetaPathFinder):
    """Imports the group's modules from their ``.py`` sources, passing over their extension modules."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in COMPILED:
            return None
        file = source(fullname)
        if file.name == "__init__.py":  # a package: its submodules are found in its folder
            return importlib.util.spec_from_file_location(
                fullname, file, submodule_search_locations=[str(file.parent)]
            )
        return importlib.util.spec_from_file_location(fullname, file)


def use_sources_if_unusable() -> None:
    """Before any module of the group is imported: run the sources when the build must not be used."""
    global interpreted_because
    reason = _unusable()
    if reason is None or any(isinstance(f, _SourcesFirst) for f in sys.meta_path):
        return
    imported = [module for module in COMPILED if module in sys.modules]
    if imported:  # too late to choose for these; say so rather than run two forms side by side
        reason += f" (already imported compiled: {', '.join(imported)})"
    interpreted_because = reason
    sys.meta_path.insert(0, _SourcesFirst())
