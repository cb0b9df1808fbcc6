"""The service's transparency log, its pure parts: RFC 6962 Merkle hashing and proofs (``merkle``), C2SP signed
notes, checkpoints and cosignatures (``note``, ``checkpoint``) and what a leaf says (``leaves``).

No Redis and no clock here: the sequencer (``events/log_store.py``) stores what these compute, and ``verify``
checks it offline with the same functions.
"""
