"""The write side on Redis: envelopes, codec, hash chain, event store and command bus (docs/design-brief.md,
"Events and commands on Redis")."""
