"""Podium estimation engine: pure numpy/scipy, importable without Django."""
