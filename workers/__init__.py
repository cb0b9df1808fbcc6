"""The imperative shell around decide/evolve: fold workers and rq jobs."""
