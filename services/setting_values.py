"""Reading one setting's value, checked: a value a process cannot use is refused when it starts, with one
line naming the variable and what it takes, never a traceback or a crash loop of its children later."""

from __future__ import annotations

import ipaddress
import math
from collections.abc import Collection, Mapping


class SettingError(ValueError):
    """A setting that cannot be used: the message names the variable and what it takes."""


def whole(env: Mapping[str, str], name: str, default: int, low: int, high: int | None = None) -> int:
    """An integer setting within ``[low, high]``."""
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise SettingError(f"{name} must be a whole number, not {raw[:40]!r}") from None
    if value < low or (high is not None and value > high):
        span = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise SettingError(f"{name} must be {span}, not {value}")
    return value


def number(env: Mapping[str, str], name: str, default: float, low: float = 0.0) -> float:
    """A finite number setting of at least ``low``."""
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise SettingError(f"{name} must be a number, not {raw[:40]!r}") from None
    if not math.isfinite(value) or value < low:
        raise SettingError(f"{name} must be a finite number of at least {low:g}, not {raw[:40]!r}")
    return value


def one_of(env: Mapping[str, str], name: str, default: str, choices: Collection[str]) -> str:
    """A setting that names one of ``choices`` (case-insensitive)."""
    raw = env.get(name, "").strip().lower()
    if not raw:
        return default
    if raw not in choices:
        raise SettingError(f"{name} must be one of {', '.join(sorted(choices))}, not {raw[:40]!r}")
    return raw


def proxies(env: Mapping[str, str], name: str) -> tuple[str, ...]:
    """Addresses and networks, comma-separated (``*``: any), each checked as one."""
    raw = env.get(name, "").strip()
    items = tuple(item.strip() for item in raw.split(",") if item.strip())
    if items == ("*",):
        return items
    for item in items:
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError:
            raise SettingError(
                f"{name} must be addresses or networks (10.0.0.0/8), comma-separated, or *, not {item[:40]!r}"
            ) from None
    return items
