"""Composition root and delivery: CLI, gateway, embedded Redis, audit."""

from services.move_path import use_sources_if_unusable

# Before any module of the compiled group is imported (every entry point imports this package first): a
# build that is stale, broken or switched off runs the tree's sources instead (services/move_path.py).
use_sources_if_unusable()
