"""The recompute pipeline: a benchmark's changed input becomes new result versions.

``runs`` (the lease, passes and sweeps) -> ``refresh`` (each metric: read its input with
``inputs``, decide the version with ``versions``, analyse) -> ``store`` (sections and
status) -> ``uncertainty`` (the served version's bootstrap, evaluation and advisor).
Beside them: ``leases``, ``coalesce`` and ``lanes`` (queueing), ``background`` (runs in
the server's threads), ``commits`` (transactions of derived data), ``completion`` (the
sweep for versions left incomplete) and ``retention`` (pruning old versions). Callers
outside start at :mod:`estimation.requests` (asking for a recompute) and
:mod:`estimation.services`.
"""
