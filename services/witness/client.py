"""The witness's view of a server: its log's key, checkpoint and consistency proofs, and where to post a
cosignature (``docs/audit.md``). The standard library's ``urllib``, because a few requests a second need no
dependency; every answer is read to a bound, and anything the network does wrong is :class:`Unreachable`.
"""

from __future__ import annotations

import binascii
import http.client
import urllib.error
import urllib.parse
import urllib.request

import msgspec

from events.tlog.note import MAX_NOTE_BYTES

MAX_ANSWER_BYTES = 1 << 20
USER_AGENT = "harbormaster-witness"


class Unreachable(Exception):
    """The server did not answer usefully this time (network, 5xx, a garbled body): try again later."""


class LogKeyInfo(msgspec.Struct, frozen=True):
    origin: str
    vkey: str
    retired: list[str] = []
    witnesses: list[str] = []


class _Proof(msgspec.Struct, frozen=True):
    proof: list[bytes]


def base_url(url: str) -> str:
    """``url`` without a trailing slash, if it is an http(s) address (urllib would open ``file:`` too)."""
    parts = urllib.parse.urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"not an http(s) address: {url[:80]!r}")
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))


class LogClient:
    def __init__(self, url: str, timeout_s: float = 10.0) -> None:
        self.url = base_url(url)
        self.timeout_s = timeout_s

    def key(self) -> LogKeyInfo:
        status, body = self._request("GET", "/api/log/key")
        if status != 200:
            raise Unreachable(f"GET /api/log/key answered {status}")
        try:
            return msgspec.json.decode(body, type=LogKeyInfo)
        except (msgspec.DecodeError, msgspec.ValidationError) as error:
            raise Unreachable(f"GET /api/log/key: {error}") from None

    def checkpoint(self) -> str:
        status, body = self._request("GET", "/api/log/checkpoint", limit=MAX_NOTE_BYTES + 1)
        if status != 200:
            raise Unreachable(f"GET /api/log/checkpoint answered {status}")
        try:
            return body.decode()
        except UnicodeDecodeError:
            raise Unreachable("GET /api/log/checkpoint: not UTF-8") from None

    def consistency(self, old: int, new: int) -> list[bytes] | None:
        """The log's consistency proof from ``old`` to ``new``; ``None`` when it answers it has none (4xx)."""
        status, body = self._request("GET", f"/api/log/proof/consistency?old={old}&new={new}")
        if 400 <= status < 500 and status not in (408, 429):
            return None
        if status != 200:
            raise Unreachable(f"GET /api/log/proof/consistency answered {status}")
        try:
            return msgspec.json.decode(body, type=_Proof).proof
        except (msgspec.DecodeError, msgspec.ValidationError, binascii.Error) as error:
            raise Unreachable(f"GET /api/log/proof/consistency: {error}") from None

    def post_cosignature(self, cosigned: str) -> tuple[int, str]:
        """Post the log's note with this witness's line; the status and the start of the answer."""
        status, body = self._request("POST", "/api/log/cosignature", cosigned.encode(), limit=4096)
        if status >= 500 or status in (408, 429):
            raise Unreachable(f"POST /api/log/cosignature answered {status}")
        return status, body.decode(errors="replace")[:200]

    def _request(
        self, method: str, path: str, data: bytes | None = None, limit: int = MAX_ANSWER_BYTES
    ) -> tuple[int, bytes]:
        request = urllib.request.Request(self.url + path, data=data, method=method)
        request.add_header("User-Agent", USER_AGENT)
        if data is not None:
            request.add_header("Content-Type", "text/plain; charset=utf-8")
        try:
            return self._send(request, limit)
        except (OSError, http.client.HTTPException, ValueError) as error:
            raise Unreachable(f"{method} {self.url}{path}: {error}") from None

    def _send(self, request: urllib.request.Request, limit: int) -> tuple[int, bytes]:
        answer: http.client.HTTPResponse | urllib.error.HTTPError
        try:
            answer = urllib.request.urlopen(request, timeout=self.timeout_s)  # http(s) only: base_url
        except urllib.error.HTTPError as error:  # a 4xx or 5xx: its status is the answer
            answer = error
        with answer:
            body = answer.read(limit + 1)
            status = answer.status if isinstance(answer, http.client.HTTPResponse) else answer.code
        if len(body) > limit:
            raise Unreachable(f"the answer is larger than {limit} bytes")
        return status, body
