"""The cuda2cpu HTTP service (issue 7): `server.app` (FastAPI app), `server.cli` (`cuda2cpu serve`)."""
