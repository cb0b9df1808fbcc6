"""A move's path runs compiled where it was built (``services/compiled.py``), and never stale."""

from __future__ import annotations

import importlib
import os

import pytest

from services import compiled


def _built() -> bool:
    return any(compiled.compiled_form(module) is not None for module in compiled.COMPILED)


pytestmark = pytest.mark.skipif(not _built(), reason="not compiled here (mypyc found no C compiler)")


def test_every_module_of_the_group_is_imported_from_its_compiled_form() -> None:
    for module in compiled.COMPILED:
        form = compiled.compiled_form(module)
        assert form is not None, module
        assert importlib.import_module(module).__file__ == str(form)
    assert compiled.stale() == []


def test_a_source_newer_than_the_build_makes_the_whole_group_stale() -> None:
    source = compiled.source("events.keys")
    before = source.stat()
    built = max(form.stat().st_mtime_ns for form in map(compiled.compiled_form, compiled.COMPILED) if form)
    try:
        os.utime(source, ns=(before.st_atime_ns, built + 10**9))  # saved a second after the build
        assert compiled.stale() == list(compiled.COMPILED)  # one group: every module is built again
    finally:
        os.utime(source, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert compiled.stale() == []
