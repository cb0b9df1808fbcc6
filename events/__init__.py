"""The write side on Redis: envelopes, codec, hash chain, event store and command bus (DESIGN.md)."""
