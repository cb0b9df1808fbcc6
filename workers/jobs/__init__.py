"""rq jobs: importable, module-level functions (bots, and whatever later needs a queue)."""
