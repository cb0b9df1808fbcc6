"""The game WebSocket: its life, what its client sends, frames read and written below ASGI, a socket's place in a feed."""
