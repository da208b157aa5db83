"""The cuda2cpu HTTP service (issue 7): not built yet; this package only reserves the name."""
