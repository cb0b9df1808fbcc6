"""Audit: export a game's whole log, and verify an export offline."""
