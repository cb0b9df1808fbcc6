"""Settings of accounts, sign-in and chat: read by ``services/config.py``'s ``Settings.from_env`` (the one
place that reads the environment), which hands them to the gateway as ``Settings.players``.

- ``HARBORMASTER_SECURE_COOKIES``: ``1`` marks session cookies ``Secure`` even over plain HTTP (behind a
  proxy that ends TLS); they are anyway when the request came over https or ``HARBORMASTER_PUBLIC_URL``
  is an https address.
- ``HARBORMASTER_SIGNIN_PER_NAME`` (10) and ``HARBORMASTER_SIGNIN_PER_ADDRESS`` (30): sign-in attempts per
  minute on one account name from one address, and from one address (sign-ups count against the address
  too); ``0`` turns one off.
- ``HARBORMASTER_SIGNIN_FAILURES_PER_NAME`` (50): failed sign-ins a minute on one name from every address
  together, past which only addresses that signed in to it before may try it
  (``services/gateway/access/signin_guard.py``); ``0`` off.
- ``HARBORMASTER_HASHING_QUEUE`` (8): sign-ins and sign-ups that may wait for a password hash beyond those
  being hashed; more are refused at once (503 ``busy``) rather than all waiting longer.
- ``HARBORMASTER_CHAT_PER_SECOND`` (1, with a burst of 5): chat messages per author and game; ``0`` off.
- ``HARBORMASTER_CHAT_PER_ADDRESS`` (3, with a burst of 5 seconds' worth): chat messages a second from one
  address, over every game and author (seat tokens cost nothing to make: one address with 200 games'
  tokens posted 326 lines a second under the per-author limit); ``0`` off.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from services.setting_values import number, whole


class PlayerSettings(msgspec.Struct, frozen=True, kw_only=True):
    secure_cookies: bool = False
    signin_per_name: int = 10
    signin_per_address: int = 30
    chat_per_second: float = 1.0
    chat_burst_seconds: float = 5.0
    chat_per_address: float = 3.0
    signin_failures_per_name: int = 50
    hashing_queue: int = 8

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> PlayerSettings:
        """The settings of ``env``; a malformed number is a ``ValueError`` naming it."""
        return cls(
            secure_cookies=env.get("HARBORMASTER_SECURE_COOKIES", "") in ("1", "true", "yes"),
            signin_per_name=int(_number(env, "HARBORMASTER_SIGNIN_PER_NAME", 10)),
            signin_per_address=int(_number(env, "HARBORMASTER_SIGNIN_PER_ADDRESS", 30)),
            chat_per_second=_number(env, "HARBORMASTER_CHAT_PER_SECOND", 1.0),
            chat_per_address=number(env, "HARBORMASTER_CHAT_PER_ADDRESS", 3.0),
            signin_failures_per_name=whole(env, "HARBORMASTER_SIGNIN_FAILURES_PER_NAME", 50, 0, 1_000_000),
            hashing_queue=whole(env, "HARBORMASTER_HASHING_QUEUE", 8, 0, 10_000),
        )


def _number(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError as exc:
        raise ValueError(f"{name} must be a number, not {raw!r}") from exc
    if not 0 <= value < float("inf"):
        raise ValueError(f"{name} must be a number from 0 up")
    return value
