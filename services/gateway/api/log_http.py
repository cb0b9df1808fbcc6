"""The service's transparency log over HTTP (part of ``openapi.ENDPOINTS``): its key, its latest checkpoint
(with the cosignatures of the configured witnesses), its leaves, inclusion and consistency proofs, the
witnesses' cosignatures, and a chain's receipt (its newest logged head, proven in the latest checkpoint).

Every read goes through ``events/log_store.py`` (synchronous redis-py, in the thread pool: a proof is one
pipelined round trip). Every query parameter is checked: 400 with a message for a malformed number, a range
the wrong way round, or a size beyond the tree.
"""

from __future__ import annotations

import base64
import functools
from typing import Any

import msgspec
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from events import keys
from events.log_store import LogStore
from events.tlog import leaves, note
from events.tlog.checkpoint import parse
from events.tournament_store import tournament_key
from services.gateway.api.operation import Endpoint, op, path_param, query
from services.gateway.api.requests import ApiError, int_param, json_response, read_body
from services.gateway.context import gateway_of

MAX_LEAVES = 1000
"""Leaves one ``GET /api/log/leaves`` answers at most."""


class LogKey(msgspec.Struct, kw_only=True):
    origin: str
    vkey: str
    retired: list[str]
    witnesses: list[str]


class LeafPage(msgspec.Struct, kw_only=True):
    start: int
    leaves: list[str]
    """Each leaf's data, base64."""


class InclusionProof(msgspec.Struct, kw_only=True):
    index: int
    size: int
    proof: list[str]


class ConsistencyProof(msgspec.Struct, kw_only=True):
    old: int
    new: int
    proof: list[str]


class Receipt(msgspec.Struct, kw_only=True):
    stream: str
    id: str
    seed_commitment: str
    leaf: str
    index: int
    checkpoint: str
    size: int
    proof: list[str]


def _b64(values: list[bytes]) -> list[str]:
    return [base64.b64encode(v).decode() for v in values]


@functools.cache
def _store(client: Any) -> LogStore:
    return LogStore(client)


def store_of(request: Request) -> LogStore:
    return _store(gateway_of(request).services.redis)


def _required(request: Request, name: str, low: int = 0) -> int:
    if not request.query_params.get(name):
        raise ApiError(400, "bad_parameter", f"{name} is required")
    return int_param(request, name, 0, low)


def _size_within(store: LogStore, size: int, name: str) -> None:
    current = store.size()
    if size > current:
        raise ApiError(
            400, "beyond_the_tree", f"{name} {size} is beyond the tree, which has {current} leaves"
        )


# --- reads ----------------------------------------------------------------------------------------------


async def log_key(request: Request) -> Response:
    """``GET /api/log/key``: the log's origin, verifier key, retired keys and the witnesses it collects."""
    published = await run_in_threadpool(store_of(request).published_key)
    if (
        published is None
    ):  # no log yet: nothing to fetch, and nothing wrong (a browser logs a 404 as an error)
        return Response(status_code=204)
    witnesses = list(gateway_of(request).settings.log.witnesses)
    return json_response(
        LogKey(origin=published.origin, vkey=published.vkey, retired=published.retired, witnesses=witnesses)
    )


async def log_checkpoint(request: Request) -> Response:
    """``GET /api/log/checkpoint``: the latest signed checkpoint note, with the cosignature lines of the
    configured witnesses that cosigned exactly it."""
    witnesses = gateway_of(request).settings.log.witness_verifiers()
    text = await run_in_threadpool(store_of(request).cosigned_checkpoint, witnesses)
    if text is None:
        raise ApiError(404, "no_log", "the log has no checkpoint yet (no sequencer has run)")
    return Response(text, media_type="text/plain; charset=utf-8")


async def log_leaves(request: Request) -> Response:
    """``GET /api/log/leaves?start=S&end=E``: leaves ``[S, E)``, at most ``MAX_LEAVES`` (fewer: ask again)."""
    start = int_param(request, "start", 0)
    end = int_param(request, "end", start + MAX_LEAVES, 0)
    if end < start:
        raise ApiError(400, "bad_parameter", "end must not be below start")
    store = store_of(request)

    def read() -> list[bytes]:
        _size_within(store, start, "start")
        return store.leaves(start, min(end, start + MAX_LEAVES, store.size()))

    return json_response(LeafPage(start=start, leaves=_b64(await run_in_threadpool(read))))


async def inclusion(request: Request) -> Response:
    """``GET /api/log/proof/inclusion?index=I&size=N``: leaf ``I``'s audit path in the tree of ``N``."""
    index, size = _required(request, "index"), _required(request, "size", 1)
    if index >= size:
        raise ApiError(400, "bad_parameter", f"index {index} is not below size {size}")
    store = store_of(request)

    def prove() -> list[bytes]:
        _size_within(store, size, "size")
        return store.inclusion_proof(index, size)

    proof = await run_in_threadpool(prove)
    return json_response(InclusionProof(index=index, size=size, proof=_b64(proof)))


async def consistency(request: Request) -> Response:
    """``GET /api/log/proof/consistency?old=M&new=N``: that the tree of ``M`` is a prefix of the tree of ``N``."""
    old, new = _required(request, "old"), _required(request, "new")
    if old > new:
        raise ApiError(400, "bad_parameter", f"old {old} is above new {new}")
    store = store_of(request)

    def prove() -> list[bytes]:
        _size_within(store, new, "new")
        return store.consistency_proof(old, new)

    proof = await run_in_threadpool(prove)
    return json_response(ConsistencyProof(old=old, new=new, proof=_b64(proof)))


def receipt_of(
    store: LogStore, stream: leaves.Stream, chain_id: str, witnesses: list[note.Verifier]
) -> Receipt | None:
    """The chain's newest logged head at or below the latest checkpoint, proven in it; ``None`` if none yet."""
    checkpoint = store.cosigned_checkpoint(witnesses)
    if checkpoint is None:
        return None
    size = parse(note.split(checkpoint)[0]).size  # read first: leaves appended since are past it
    index = next((i for i, seq in store.chain(stream, chain_id, newest=64) if seq > 0 and i < size), None)
    start = store.chain_start(stream, chain_id)
    if index is None or start is None:
        return None
    started = leaves.decode(store.leaves(start, start + 1)[0])
    assert isinstance(started, leaves.Start)
    proof = store.inclusion_proof(index, size)
    data = store.leaves(index, index + 1)[0]
    return Receipt(stream=stream, id=chain_id, seed_commitment=started.seed_commitment, leaf=_b64([data])[0],
                   index=index, checkpoint=checkpoint, size=size, proof=_b64(proof))  # fmt: skip


async def _receipt(request: Request, stream: leaves.Stream, chain_id: str) -> Response:
    witnesses = gateway_of(request).settings.log.witness_verifiers()
    store = store_of(request)
    found = await run_in_threadpool(receipt_of, store, stream, chain_id, witnesses)
    if found is not None:
        return json_response(found)
    meta = keys.meta(chain_id) if stream == "game" else tournament_key(chain_id, "meta")
    if not await run_in_threadpool(store.redis.exists, meta):
        raise ApiError(404, "not_found", f"no {stream} {chain_id!r}")
    return Response(status_code=204)  # not logged yet: asked again later (no error in a browser's console)


async def game_receipt(request: Request) -> Response:
    """``GET /api/games/{game_id}/receipt``."""
    return await _receipt(request, "game", request.path_params["game_id"])


async def tournament_receipt(request: Request) -> Response:
    """``GET /api/tournaments/{tournament_id}/receipt``."""
    return await _receipt(request, "tournament", request.path_params["tournament_id"])


# --- witnesses ------------------------------------------------------------------------------------------


async def cosignature(request: Request) -> Response:
    """``POST /api/log/cosignature``: a checkpoint this log signed, with a configured witness's cosignature
    line; kept (the witness's newest) and shown with that checkpoint while it is the latest."""
    witnesses = gateway_of(request).settings.log.witness_verifiers()
    try:
        signed = (await read_body(request)).decode()
        text, _ = note.split(signed)
        checkpoint = parse(text)
    except (UnicodeDecodeError, note.NoteError) as exc:
        raise ApiError(400, "malformed_note", f"not a signed checkpoint: {exc}") from exc
    try:
        _, cosigners = note.open_note(signed, witnesses)
    except note.NoteError as exc:
        raise ApiError(
            403, "not_a_witness", f"no valid cosignature of a witness this log collects: {exc}"
        ) from exc
    await run_in_threadpool(
        _keep, store_of(request), checkpoint.size, text, signed, [w.name for w in cosigners]
    )
    return Response(status_code=204)


def _keep(store: LogStore, size: int, text: str, signed: str, names: list[str]) -> None:
    if not store.has_checkpoint(size, text):
        raise ApiError(409, "unknown_checkpoint", "this log never signed that checkpoint")
    stored = store.cosigned()
    for name in names:
        previous = stored.get(name)
        if previous is None or parse(note.split(previous)[0]).size <= size:  # never back to an older one
            store.store_cosigned(name, signed)


# --- the table of endpoints -----------------------------------------------------------------------------


def _int(name: str, low: int, text: str, required: bool = False) -> dict[str, Any]:
    return {**query(name, {"type": "integer", "minimum": low}, text), "required": required}


TEXT = {"200": {"description": "the signed checkpoint note", "content": {"text/plain": {}}}}
CHECKPOINT = op(log_checkpoint, "The latest signed checkpoint (c2sp.org/tlog-checkpoint), with the cosignatures of "
                "the configured witnesses that cosigned exactly it.", "200", None, "404")  # fmt: skip
CHECKPOINT.doc["responses"]["200"] = TEXT["200"]


def _not_yet(*endpoints: Endpoint) -> None:
    """A 204 answer besides the 200: nothing to give yet (not an error a browser logs)."""
    for endpoint in endpoints:
        endpoint.doc["responses"]["204"] = {"description": "nothing logged yet: ask again later"}


ENDPOINTS: dict[str, dict[str, Endpoint]] = {
    "/api/log/key": {
        "get": op(log_key, "The log's origin, verifier key (c2sp.org/signed-note vkey), retired keys (still valid "
                  "for what they signed) and the witnesses whose cosignatures it collects (204: no log yet).", "200",
                  LogKey),
    },
    "/api/log/checkpoint": {"get": CHECKPOINT},
    "/api/log/leaves": {
        "get": op(log_leaves, f"Leaves [start, end) of the log, base64, at most {MAX_LEAVES} (ask again for more).",
                  "200", LeafPage, "400", parameters=[_int("start", 0, "the first leaf (at most the tree's size)"),
                                                      _int("end", 0, "after the last leaf")]),
    },
    "/api/log/proof/inclusion": {
        "get": op(inclusion, "The audit path of leaf `index` in the tree of `size` leaves (RFC 9162 2.1.3).", "200",
                  InclusionProof, "400", parameters=[_int("index", 0, "the leaf", True),
                                                     _int("size", 1, "the tree's size (at most the log's)", True)]),
    },
    "/api/log/proof/consistency": {
        "get": op(consistency, "The proof that the tree of `old` leaves is a prefix of the tree of `new` (RFC 9162 "
                  "2.1.4).", "200", ConsistencyProof, "400",
                  parameters=[_int("old", 0, "the older size", True), _int("new", 0, "the newer size (at most the "
                                                                                      "log's)", True)]),
    },
    "/api/log/cosignature": {
        "post": op(cosignature, "A witness's cosignature (c2sp.org/tlog-cosignature) of a checkpoint this log "
                   "signed: the note with the witness's line. 403: not a configured witness's valid cosignature; "
                   "409: a checkpoint this log never signed.", "204", None, "400 403 409 413",
                   requestBody={"required": True, "content": {"text/plain": {}}}),
    },
    "/api/games/{game_id}/receipt": {
        "get": op(game_receipt, "The game's newest logged head, proven in the latest checkpoint (204 until one is; "
                  "404: no such game).", "200", Receipt, "404", parameters=[path_param("game_id")]),
    },
    "/api/tournaments/{tournament_id}/receipt": {
        "get": op(tournament_receipt, "The tournament's newest logged head, proven in the latest checkpoint (204 "
                  "until one is; 404: no such tournament).", "200", Receipt, "404",
                  parameters=[path_param("tournament_id")]),
    },
}  # fmt: skip

_not_yet(
    ENDPOINTS["/api/log/key"]["get"],
    ENDPOINTS["/api/games/{game_id}/receipt"]["get"],
    ENDPOINTS["/api/tournaments/{tournament_id}/receipt"]["get"],
)

STRUCTS: tuple[Any, ...] = (LogKey, LeafPage, InclusionProof, ConsistencyProof, Receipt)
