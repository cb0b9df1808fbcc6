"""``python -m services.compiled``: compile a move's path to C with mypyc, in place (``--remove`` drops it).

The modules are those of ``services/move_path.py``, compiled from the same typed source that ``mypy
--strict`` checks, so compiling changes how fast the code runs, not what it does
(``docs/history/decisions.md``, "Why a move's path is compiled with mypyc"). ``make`` runs this whenever a
source of the group changes. Which form runs is chosen by ``services/move_path.py``: a stale or broken build
is passed over.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from services.move_path import COMPILED, GROUP, ROOT, group_forms, shared_library, source, stale

LOG = ROOT / "build" / "mypyc.log"


def remove() -> None:
    """Remove every compiled form: the sources are imported again."""
    for form in group_forms():
        form.unlink()


BUILD = """
import sys
from setuptools import setup
from mypyc.build import mypycify
paths = sys.argv[2:]
extensions = mypycify(paths, group_name=sys.argv[1], opt_level="3", multi_file=True)
for extension in extensions:  # the group's header is written beside its library, under build/
    extension.include_dirs.append("build/" + sys.argv[1].rpartition(".")[0].replace(".", "/"))
setup(
    name="harbormaster-move-path",
    ext_modules=extensions,
    script_args=["build_ext", "--inplace", "--build-temp", "build/mypyc-temp"],
)
"""
"""mypyc's own ``setup.py`` with the group's name set, so that its library lands inside ``services``. One C
file per module (``multi_file``): the build took 148 s of CPU with the group in one 34 MB C file (gcc -O3
on it alone about 120 s, on one core) and 97 s (mypy's cache warm) in 58 files of 13 MB, with the rules as
fast in both (``tests.bench engine_speed``, issue 46). mypyc includes the group's header by its bare name,
so its folder is added to the include path."""


def build() -> int:
    """Compile the group in place; on failure (no C compiler, say) leave it interpreted, and say so. Returns
    the build's exit status."""
    remove()
    LOG.parent.mkdir(exist_ok=True)
    paths = [str(source(m).relative_to(ROOT)) for m in COMPILED]
    started = time.time()  # before mypyc reads a source
    with LOG.open("w") as log:
        done = subprocess.run(
            [sys.executable, "-c", BUILD, GROUP, *paths],
            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, check=False,
        )  # fmt: skip
    if done.returncode != 0 or shared_library() is None:
        remove()
        sys.stderr.write(f"mypyc failed (see {LOG}): the move path runs interpreted, and slower\n")
        return done.returncode or 1
    for form in group_forms():
        # Dated when the sources were read, not now (a module's unchanged part is copied from an earlier
        # build with that build's time): a source edited during the build (in a shared checkout) is then
        # newer than the forms, so the stale build is passed over, not run as code older than the tree.
        os.utime(form, (started, started))
    if stale():
        remove()
        sys.stderr.write("a source changed during the build: the move path runs interpreted; build again\n")
        return 1
    broken = _import_failure()
    if broken:
        remove()
        sys.stderr.write(f"the compiled move path does not import ({broken}): it runs interpreted\n")
        return 1
    return 0


CHECK = "import importlib, services.move_path as m; [importlib.import_module(n) for n in m.COMPILED]"


def _import_failure() -> str | None:
    """The last line of the error a fresh interpreter meets importing the group compiled, from a folder
    outside the tree (as the installed command does); ``None`` when every module imports."""
    done = subprocess.run([sys.executable, "-c", CHECK], cwd=ROOT.parent, capture_output=True, text=True,
                          check=False)  # fmt: skip
    return None if done.returncode == 0 else (done.stderr.strip().splitlines() or ["?"])[-1]


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
