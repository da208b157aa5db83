"""The Rodinia-style benchmark suite (issue 8): not built yet; this package only reserves the name."""
