"""A tiny real HTTP server that serves a log the way the gateway does (``/api/log/...``), from an
``events/tlog`` ``MemoryTree`` and a key the test holds: so the witness can be tested against a log its
operator forks at will (rewrite leaves, sign again) without the whole service."""

from __future__ import annotations

import base64
import json
import threading
import urllib.parse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from events.tlog import leaves, merkle, note
from events.tlog.checkpoint import Checkpoint, open_checkpoint

ORIGIN = "harbormaster.test/log"


class FakeLog:
    """The operator's side: leaves, a key, and what the server shows (``shown``: a size, or the newest)."""

    def __init__(self, signer: note.Signer | None = None) -> None:
        self.signer = signer or note.Signer.generate(ORIGIN)
        self.data: list[bytes] = []
        self.tree = merkle.MemoryTree()
        self.shown: int | None = None
        self.cosignatures: dict[str, str] = {}
        """Witness vkey -> the last note with its line that the server took."""
        self.witnesses: list[note.Verifier] = []
        self.posts: list[str] = []
        self.fail_posts = 0
        """Answer this many posts with 503 first."""
        self.post_hook: Callable[[], object] | None = None
        """Called as each post arrives, before it is read; what it returns is kept in :attr:`on_post`."""
        self.on_post: list[object] = []
        self.lock = threading.Lock()

    def grow(self, count: int, tag: str = "") -> None:
        for _ in range(count):
            head = leaves.Head(stream="game", id="g1", seq=len(self.data), hash=f"{tag}{len(self.data):064x}")
            self.data.append(leaves.encode(head))
            self.tree.append(self.data[-1])

    def fork(self, at: int, tag: str = "forged") -> None:
        """Rewrite every leaf from ``at`` on and rebuild the tree, under the same key: a forked log."""
        size = len(self.data)
        kept = self.data[:at]
        self.data, self.tree = [], merkle.MemoryTree()
        for data in kept:
            self.data.append(data)
            self.tree.append(data)
        self.grow(size - at, tag)

    def checkpoint(self) -> str:
        size = len(self.data) if self.shown is None else self.shown
        cp = Checkpoint(ORIGIN, size, self.tree.root(size))
        signed = note.sign(cp.text, self.signer)
        for cosigned in self.cosignatures.values():  # the lines of witnesses that cosigned exactly this one
            text, signatures = note.split(cosigned)
            if text == cp.text:
                signed += "".join(s.line for s in signatures if s.name != self.signer.name)
        return signed

    def take(self, body: str) -> int:
        """``POST /api/log/cosignature``: 204 for a listed witness's valid line over a note this log signed."""
        self.posts.append(body)
        if self.fail_posts:
            self.fail_posts -= 1
            return 503
        try:
            open_checkpoint(body, self.signer.verifier, ORIGIN)
            _, who = note.open_note(body, self.witnesses)
        except note.NoteError:
            return 403
        self.cosignatures[who[0].vkey] = body
        return 204


class _Handler(BaseHTTPRequestHandler):
    log: FakeLog

    def do_GET(self) -> None:
        url = urllib.parse.urlsplit(self.path)
        query = {k: int(v[0]) for k, v in urllib.parse.parse_qs(url.query).items()}
        with self.log.lock:
            if url.path == "/api/log/key":
                body = {
                    "origin": ORIGIN,
                    "vkey": self.log.signer.verifier.vkey,
                    "retired": [],
                    "witnesses": [w.vkey for w in self.log.witnesses],
                }
                return self._json(200, body)
            if url.path == "/api/log/checkpoint":
                return self._send(200, self.log.checkpoint().encode(), "text/plain; charset=utf-8")
            if url.path == "/api/log/proof/consistency":
                old, new = query["old"], query["new"]
                try:
                    proof = merkle.consistency_proof(old, new, self.log.tree.node)
                except merkle.ProofError:
                    return self._json(400, {"error": "no such proof"})
                return self._json(
                    200, {"old": old, "new": new, "proof": [base64.b64encode(p).decode() for p in proof]}
                )
        self._json(404, {"error": "not found"})

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"])).decode()
        if self.log.post_hook is not None:
            self.log.on_post.append(self.log.post_hook())
        with self.log.lock:
            status = self.log.take(body)
        self._send(status, b"", "text/plain")

    def _json(self, status: int, body: object) -> None:
        self._send(status, json.dumps(body).encode(), "application/json")

    def _send(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # quiet: the test's output is the witness's
        pass


@contextmanager
def serving(log: FakeLog, port: int = 0) -> Iterator[str]:
    """Serve ``log`` on 127.0.0.1 in a thread; yields the server's URL."""
    handler = type("Handler", (_Handler,), {"log": log})
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
