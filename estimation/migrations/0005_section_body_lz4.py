"""Snapshot section bodies compressed with lz4 instead of pglz where PostgreSQL has it.

A snapshot's sections (megabytes of JSON at m = 200) are written while a reader waits
for the version to be served; lz4 compresses and decompresses them several times
faster than PostgreSQL's default pglz, at a slightly larger size. Only new values use
it (rows already stored stay as they are); a server built without lz4, and SQLite, keep
their default. Nothing in the model changes: the compression is the column's storage.
"""

from django.db import DatabaseError, migrations, transaction

TABLE = "estimation_snapshotsection"


def _compression(method: str):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        try:
            with transaction.atomic(using=schema_editor.connection.alias):
                schema_editor.execute(
                    f"ALTER TABLE {TABLE} ALTER COLUMN body SET COMPRESSION {method}"
                )
        except DatabaseError:  # built without lz4: the default stays
            pass

    return apply


class Migration(migrations.Migration):
    dependencies = [("estimation", "0004_pruned_snapshot")]

    operations = [migrations.RunPython(_compression("lz4"), _compression("pglz"))]
