"""A move's path runs compiled where a usable build is there, and from its sources otherwise
(``services/move_path.py``): a stale, broken or switched-off build never breaks a command."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from importlib.machinery import ExtensionFileLoader
from pathlib import Path

import pytest

from services import move_path


def _built() -> bool:
    return any(move_path.compiled_form(module) is not None for module in move_path.COMPILED)


built = pytest.mark.skipif(not _built(), reason="not compiled here (mypyc found no C compiler)")


def _imported_from(env: dict[str, str], cwd: Path) -> list[str]:
    """The loaders the group's modules are imported with, in a fresh interpreter started in ``cwd``."""
    code = "import services, importlib, sys; from services.move_path import COMPILED; " + (
        "print('\\n'.join(type(importlib.import_module(m).__loader__).__name__ for m in COMPILED))"
    )
    done = subprocess.run([sys.executable, "-c", code], env={**os.environ, **env}, cwd=cwd,
                          capture_output=True, text=True, check=True)  # fmt: skip
    return done.stdout.split()


@built
def test_every_module_of_the_group_is_imported_from_its_compiled_form() -> None:
    assert move_path.interpreted_because is None, move_path.interpreted_because
    for module in move_path.COMPILED:
        form = move_path.compiled_form(module)
        assert form is not None, module
        # mypyc names the group's library in a compiled module's __file__: ask the loader what it is
        assert isinstance(importlib.import_module(module).__loader__, ExtensionFileLoader), module
    assert move_path.stale() == []


@built
def test_the_group_imports_from_any_folder(tmp_path: Path) -> None:
    """The group's library sits inside the package, where the installed command finds it."""
    library = move_path.shared_library()
    assert library is not None and library.parent == move_path.ROOT / "services"
    files = _imported_from({}, tmp_path)
    assert set(files) == {"ExtensionFileLoader"}, files


def test_interpreted_on_request_runs_every_source(tmp_path: Path) -> None:
    files = _imported_from({"HARBORMASTER_INTERPRETED": "1"}, tmp_path)
    assert set(files) == {"SourceFileLoader"}, files


@built
def test_a_source_newer_than_the_build_makes_the_whole_group_stale() -> None:
    source = move_path.source("events.keys")
    before = source.stat()
    built_at = max(
        form.stat().st_mtime_ns for form in map(move_path.compiled_form, move_path.COMPILED) if form
    )
    try:
        os.utime(source, ns=(before.st_atime_ns, built_at + 10**9))  # saved a second after the build
        assert move_path.stale() == list(move_path.COMPILED)  # one group: every module is built again
    finally:
        os.utime(source, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert move_path.stale() == []
