"""``make chaos``: concurrent bot and HTTP games under ``harbormaster serve`` while a fault injector
``kill -9``s its processes; then every promise is checked (see ``run.py``)."""
