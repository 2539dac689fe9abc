"""Transactions that write only derived data, committed without waiting for the disk.

A snapshot's rows (its version, sections and ready status) and a run's lease are
computed from the scores, which are committed as every other write is. PostgreSQL's
``synchronous_commit = off`` (set for one transaction only) returns from COMMIT before
the WAL reaches the disk: about 4 ms less per commit on this machine, three of them
between a submission and its served snapshot, and one more (the board's completion with
its bootstrap intervals and evaluation) before the board is whole. Other sessions see the commit at once; a
crash of the database server can lose the last few hundred milliseconds of such
commits, never half of one, and never out of order (the WAL is replayed in order, so a
later synchronous commit, such as the run's ``computed_revision``, makes every earlier
one durable). What a crash loses is therefore a version whose revision is still
recorded as not computed: the sweep recomputes it, from the same input to the same
bytes under the same version number; or a served board left deferred, which the
completion sweep completes (estimation/recompute/completion.py). A lost lease went with every session holding it.

Only where the transaction is the outermost one: inside a caller's transaction (which
may write scores) the setting would apply to the caller's writes too.

The input of a run is read in one REPEATABLE READ transaction (:func:`snapshot_read_atomic`)
whose level is named in its BEGIN, not set by a statement of its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from django.db import connection, transaction


@contextmanager
def derived_atomic() -> Iterator[None]:
    """``transaction.atomic()`` whose commit does not wait for the WAL flush when it is
    the outermost transaction on PostgreSQL (see the module docstring)."""
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if outermost and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL synchronous_commit TO off")
        yield


@contextmanager
def snapshot_read_atomic() -> Iterator[None]:
    """``transaction.atomic()`` whose reads all see one database snapshot: REPEATABLE
    READ on PostgreSQL when it is the outermost transaction (inside a caller's, the
    caller's own level applies). psycopg names the level in the BEGIN it sends before
    the first statement (a ``SET TRANSACTION`` after it is one round trip more); the
    connection's level is put back once the transaction has ended, or the connection
    closed when that fails, so that no later transaction inherits it."""
    if connection.in_atomic_block or connection.vendor != "postgresql":
        with transaction.atomic():
            yield
        return
    raw = None
    try:
        with transaction.atomic():
            raw = connection.connection  # connected: atomic() turned autocommit off
            before = raw.isolation_level
            raw.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
            yield
    finally:
        if raw is not None:
            try:
                raw.isolation_level = before
            except psycopg.Error:  # the connection broke: it goes, with its level
                connection.close()
