"""Checks on client JSON that msgspec does not make for us: nesting depth, and unknown fields in commands.

Depth: msgspec decodes recursively, so a small body nested a thousand deep raises ``RecursionError`` (a
500, or a WebSocket dropped without a close code). Every body and frame is measured before it is decoded.

Unknown fields: a game's command Structs do not forbid unknown fields (they are the domain's, shared with
the fold worker and the bots), so ``{"type": "Bid", "amount": 3, "amuont": 4}`` would be applied as
``Bid(3)`` with the typo silently dropped. The gateway refuses such a command, as it refuses unknown
options, by walking the raw JSON against the command type's ``msgspec.inspect`` description.
"""

from __future__ import annotations

import functools
import itertools
import re
from typing import Any

import msgspec
import msgspec.inspect as mi

MAX_DEPTH = 32
"""The deepest nesting of arrays and objects a body or frame may have (commands and options need ~4)."""

_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"[]{}")
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


def depth(data: bytes | str) -> int:
    """The deepest nesting of ``[`` and ``{`` in a JSON text (brackets inside strings do not count).

    Well-formedness is msgspec's job; for malformed text this is only an upper bound, which is enough.
    """
    raw = data.encode() if isinstance(data, str) else bytes(data)
    brackets = _STRINGS.sub(b"", raw).translate(None, _NOT_BRACKETS)
    return max(itertools.accumulate(_STEP[c] for c in brackets), default=0)


def too_deep(data: bytes | str) -> bool:
    # Nesting never exceeds the number of opening brackets: most texts are cleared by two counts in C.
    opens = (
        data.count("[") + data.count("{") if isinstance(data, str) else data.count(b"[") + data.count(b"{")
    )
    return opens > MAX_DEPTH and depth(data) > MAX_DEPTH


@functools.cache
def _info(kind: Any) -> mi.Type:
    return mi.type_info(kind)


def unknown_field(raw: bytes, kind: Any) -> str | None:
    """The first field of the JSON ``raw`` (already known to decode as ``kind``) that ``kind`` lacks,
    as a dotted path, or None."""
    return _walk(msgspec.json.decode(raw), _info(kind), "")


def _walk(value: Any, info: mi.Type, path: str) -> str | None:
    if isinstance(info, mi.UnionType):
        return _walk_union(value, info, path)
    if isinstance(info, mi.StructType) and isinstance(value, dict):
        return _walk_struct(value, info, path)
    if isinstance(info, (mi.ListType, mi.VarTupleType, mi.SetType, mi.FrozenSetType)) and isinstance(
        value, list
    ):
        return _first(_walk(item, info.item_type, f"{path}[{i}]") for i, item in enumerate(value))
    if isinstance(info, mi.TupleType) and isinstance(value, list):
        pairs = zip(value, info.item_types, strict=False)
        return _first(_walk(item, t, f"{path}[{i}]") for i, (item, t) in enumerate(pairs))
    if isinstance(info, mi.DictType) and isinstance(value, dict):
        return _first(_walk(v, info.value_type, f"{path}.{k}") for k, v in value.items())
    return None


def _walk_union(value: Any, info: mi.UnionType, path: str) -> str | None:
    structs = [t for t in info.types if isinstance(t, mi.StructType)]
    if isinstance(value, dict) and structs:
        tagged = [t for t in structs if t.tag_field is not None and value.get(t.tag_field) == t.tag]
        return _walk_struct(value, (tagged or structs)[0], path)
    others = [t for t in info.types if not isinstance(t, (mi.StructType, mi.NoneType))]
    return _walk(value, others[0], path) if len(others) == 1 else None


def _walk_struct(value: dict[str, Any], info: mi.StructType, path: str) -> str | None:
    fields = {f.encode_name: f for f in info.fields}
    for key, item in value.items():
        where = f"{path}.{key}" if path else key
        if key == info.tag_field:
            continue
        field = fields.get(key)
        if field is None:
            return where
        found = _walk(item, field.type, where)
        if found is not None:
            return found
    return None


def _first(found: Any) -> str | None:
    return next((f for f in found if f is not None), None)
