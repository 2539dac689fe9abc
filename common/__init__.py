"""Shared plumbing every app may use: base errors, REST helpers, text rules, outage
handling, background threads. Imports nothing of the project (an import-linter
contract in pyproject.toml)."""
