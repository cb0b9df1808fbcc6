"""What crosses the wire, at the bottom of the gateway: WebSocket frames as Structs and framed, close codes,
refusals, and the JSON checks made before decoding. It imports no other part of the gateway."""
