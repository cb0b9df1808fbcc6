"""The gateway's HTTP API: one ``*_http.py`` per resource, its wire Structs, OpenAPI, request decoding."""
