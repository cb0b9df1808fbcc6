"""Issue 31, finding 9: the WebSocket ``Origin`` check trusts configured hosts and the address a connection
came in on, never the request's own ``Host`` (a DNS-rebinding page sends its own name in both). Over a real
socket: ``tests/integration/gateway/test_origins_over_a_socket.py``."""

from __future__ import annotations

from services.gateway.access.origins import Origins, bound_hosts, origin_key

LOCAL = ("127.0.0.1", 8000)


def test_origins_are_compared_by_scheme_host_and_port() -> None:
    assert origin_key("https://Play.Example") == (True, "play.example", 443)
    assert origin_key("http://play.example:8080") == (False, "play.example", 8080)
    assert origin_key("wss://[::1]:9000") == (True, "::1", 9000)
    for bad in ("null", "file://", "http://x:99999", "ftp://x", "", "http://"):
        assert origin_key(bad) is None, bad


def test_the_bound_address_and_localhost_on_loopback_are_allowed() -> None:
    origins = Origins((), None)
    assert origins.allows(None, LOCAL)  # not a browser page
    assert origins.allows("http://127.0.0.1:8000", LOCAL)
    assert origins.allows("http://localhost:8000", LOCAL)  # what ``serve`` tells users to open
    assert not origins.allows("http://localhost:8001", LOCAL)
    assert not origins.allows("http://127.0.0.1:8000", None)  # a Unix socket: only configured origins
    assert bound_hosts(("192.168.1.5", 80)) == {("192.168.1.5", 80)}  # not loopback: no localhost
    assert Origins((), None).allows("http://192.168.1.5", ("192.168.1.5", 80))


def test_a_rebound_name_is_refused_and_configured_ones_are_allowed() -> None:
    origins = Origins(("https://club.example", " "), "https://play.example/")
    assert not origins.allows("http://evil.example:8000", LOCAL)  # whatever its Host header says
    assert origins.allows("https://club.example", LOCAL)
    assert origins.allows("https://club.example:443", LOCAL)
    assert origins.allows("https://play.example", LOCAL)
    assert not origins.allows("http://play.example", LOCAL)  # another scheme is another origin
    assert Origins(("*",), None).allows("http://evil.example", LOCAL)
