"""How a move's path talks to Redis: submit a command, read feeds, append a batch (``interface.py``).

Plain implementations on redis-py (``plain.py``) and fast ones (``multiplexed.py`` for the gateway,
``pipelined.py`` for the fold worker), each with a Cluster form routed by slot; RESP is packed in
``resp.py``. ``docs/architecture.md`` draws the package; ``tests/integration/transport/`` holds every implementation
to one contract.
"""
