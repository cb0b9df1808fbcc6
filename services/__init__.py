"""Composition root and delivery: CLI, gateway, embedded Redis, audit."""
