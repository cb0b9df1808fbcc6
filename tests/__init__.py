"""The tests: the package is imported before any test module, and imports ``services`` first."""

import services  # noqa: F401  (chooses compiled or source for the move path before anything imports it)
