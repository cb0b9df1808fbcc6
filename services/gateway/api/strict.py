"""Moved to ``wire/json_checks.py`` (issue 46: the socket and ``commands.py`` use the checks, and sit below the
API). Kept only while other work under ``api/`` is in flight; nothing in the tree imports it: delete it then."""

from services.gateway.wire.json_checks import MAX_DEPTH as MAX_DEPTH
from services.gateway.wire.json_checks import depth as depth
from services.gateway.wire.json_checks import too_deep as too_deep
from services.gateway.wire.json_checks import unknown_field as unknown_field
