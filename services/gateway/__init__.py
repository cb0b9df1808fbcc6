"""The gateway: HTTP API, WebSockets with fan-out, OpenAPI, metrics and the web client (issue 7)."""
