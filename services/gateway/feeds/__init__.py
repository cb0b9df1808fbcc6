"""A gateway's feeds: one ``GameFeed`` per watched game, the hub that reads them all, and their checks."""
