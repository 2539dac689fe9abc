"""Transactions that write only derived data, committed without waiting for the disk.

A snapshot's rows (its version, sections and ready status) and a run's lease are
computed from the scores, which are committed as every other write is. PostgreSQL's
``synchronous_commit = off`` (set for one transaction only) returns from COMMIT before
the WAL reaches the disk: about 4 ms less per commit on this machine, three of them
between a submission and its served snapshot. Other sessions see the commit at once; a
crash of the database server can lose the last few hundred milliseconds of such
commits, never half of one, and never out of order (the WAL is replayed in order, so a
later synchronous commit, such as the run's ``computed_revision``, makes every earlier
one durable). What a crash loses is therefore a version whose revision is still
recorded as not computed: the sweep recomputes it, from the same input to the same
bytes under the same version number. A lost lease went with every session holding it.

Only where the transaction is the outermost one: inside a caller's transaction (which
may write scores) the setting would apply to the caller's writes too.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

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
