"""``python -m tests.bench.move_path_lines [TREE …]``: the lines of the move path (gateway, fold worker and
transport), counted the same way in each tree given (a checkout of another commit, say), for issue 34's
before-and-after figure.

The path is every Python module under ``services/gateway/``, ``workers/`` (not its rq jobs) and
``events/transport/``. Two counts: all lines, and code lines (no blank line, comment or docstring).
"""

from __future__ import annotations

import io
import sys
import tokenize
from pathlib import Path

GLOBS = ("services/gateway/**/*.py", "workers/*.py", "events/transport/*.py")


def code_lines(source: str) -> int:
    """Lines holding a token that is neither a comment nor a docstring (a string standing as a statement)."""
    lines: set[int] = set()
    previous = tokenize.NEWLINE
    line_starts = (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        kind = token.type
        if kind in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
            if kind in line_starts:
                previous = kind
            continue
        if not (kind == tokenize.STRING and previous in line_starts):
            lines.update(range(token.start[0], token.end[0] + 1))
        previous = kind
    return len(lines)


def count(tree: Path) -> tuple[int, int, int]:
    """Modules, all lines and code lines of the move path in ``tree``."""
    files = sorted({f for pattern in GLOBS for f in tree.glob(pattern)})
    texts = [f.read_text() for f in files]
    return len(files), sum(t.count("\n") for t in texts), sum(code_lines(t) for t in texts)


def main(trees: list[str]) -> None:
    for tree in trees or ["."]:
        modules, lines, code = count(Path(tree))
        sys.stdout.write(f"{tree}: {modules} modules, {lines:,} lines, {code:,} code lines\n")


if __name__ == "__main__":
    main(sys.argv[1:])
