"""The library internals the gateway relies on, each pinned and checked, so that an upgrade that changes one
fails here, by name, and not as a socket that hangs in production.

They are used where a measurement showed they pay (``docs/history/decisions.md``): the socket protocol that reads a
move's frame below ASGI (gateway CPU per move 81–88 → 67–69 µs) and writes frames straight to the transport
(``services/gateway/sockets/``), and the HTTP protocol with header and body deadlines
(``services/gateway/server.py``: uvicorn has none before a first response). ``pyproject.toml`` pins
uvicorn and websockets to the versions these were written against.

The transports read two of redis-py's private attributes (``redis`` is pinned below its next minor for them,
checked here); the attributes themselves are checked on a real connection in
``tests/integration/transport/test_redis_py_internals.py``.
"""

from __future__ import annotations

import importlib.metadata
import inspect
import re
import tomllib
from pathlib import Path

import pytest
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.http11 import Request
from websockets.protocol import State
from websockets.server import ServerProtocol

from services.gateway.sockets.protocol import at_frame_boundary

ROOT = Path(__file__).resolve().parents[3]
HANDSHAKE = (
    b"GET /ws HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)

HTTP_ATTRIBUTES = ("parser", "cycle", "pipeline", "transport", "loop")
HTTP_METHODS = ("connection_made", "connection_lost", "on_headers_complete", "on_message_complete",
                "on_response_complete", "_should_upgrade")  # fmt: skip
"""What ``HeaderTimeoutProtocol`` overrides or reads of uvicorn's httptools protocol."""

SOCKET_ATTRIBUTES = ("conn", "transport", "queue", "read_paused", "close_sent", "handshake_complete",
                     "handshake_initiated", "scope")  # fmt: skip
SOCKET_METHODS = ("data_received", "handle_ping", "handle_connect", "send")
"""What ``SocketProtocol`` overrides or reads of uvicorn's sans-I/O WebSocket protocol."""


def _pinned(package: str) -> tuple[str, str]:
    """The ``>=low,<high`` bounds ``pyproject.toml`` gives the package."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    spec = next(d for d in project["dependencies"] if re.match(rf"{package}\b", d))
    found = re.search(r">=([\d.]+),<([\d.]+)", spec)
    assert found, f"{package} is not pinned to a range in pyproject.toml: {spec!r}"
    return found.group(1), found.group(2)


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


@pytest.mark.parametrize("package", ["uvicorn", "websockets", "redis", "openskill"])
def test_the_installed_version_is_the_pinned_one(package: str) -> None:
    low, high = _pinned(package)
    installed = importlib.metadata.version(package)
    assert _version(low) <= _version(installed) < _version(high), (package, installed, low, high)


def _set_in_source(cls: type, attribute: str) -> bool:
    """Whether the class or a base sets or reads ``self.<attribute>`` in its source."""
    return any(
        re.search(rf"\bself\.{attribute}\b", inspect.getsource(base))
        for base in cls.__mro__
        if base.__module__.startswith(("uvicorn", "websockets"))
    )


def test_uvicorns_http_protocol_has_what_the_header_deadlines_use() -> None:
    assert [m for m in HTTP_METHODS if not callable(getattr(HttpToolsProtocol, m, None))] == []
    assert [a for a in HTTP_ATTRIBUTES if not _set_in_source(HttpToolsProtocol, a)] == []


def test_uvicorns_websocket_protocol_has_what_the_socket_protocol_uses() -> None:
    assert [m for m in SOCKET_METHODS if not callable(getattr(WebSocketsSansIOProtocol, m, None))] == []
    assert [a for a in SOCKET_ATTRIBUTES if not _set_in_source(WebSocketsSansIOProtocol, a)] == []
    # the WebSocket connection it holds is websockets' sans-I/O server protocol
    assert "ServerProtocol(" in inspect.getsource(WebSocketsSansIOProtocol)


def test_websockets_parser_is_read_as_the_text_reader_expects() -> None:
    """``protocol.at_frame_boundary`` reads the connection's state, its reader's buffer and its parser
    generator, which waits in ``StreamReader.at_eof`` between frames."""
    conn = ServerProtocol()
    conn.receive_data(HANDSHAKE)
    (request,) = conn.events_received()
    assert isinstance(request, Request)
    conn.send_response(conn.accept(request))
    assert conn.state is State.OPEN
    conn.data_to_send()
    assert conn.max_message_size is None or isinstance(conn.max_message_size, int)
    assert conn.expect_continuation_frame is False
    assert conn.reader.buffer == bytearray() or conn.reader.buffer == b""
    assert conn.extensions == []
    assert at_frame_boundary(conn)
    conn.receive_data(b"\x81\x85")  # the start of a masked text frame: the parser is inside it
    assert not at_frame_boundary(conn)
    conn.receive_data(b"\x00\x00\x00\x00hello")
    assert at_frame_boundary(conn) and len(conn.events_received()) == 1
    conn.send_close(1008, "flooded")
    assert b"".join(conn.data_to_send()).startswith(b"\x88")  # a close frame
