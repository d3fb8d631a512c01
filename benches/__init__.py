"""Benchmarks: micro (pytest-benchmark), api_load (the real server over HTTP), scaling. See README.md."""
