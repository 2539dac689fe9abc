"""Scores: set-based reference checks instead of row-level foreign keys (PostgreSQL).

A row-level foreign key probes an index and locks the referenced row for every score;
for a million-row upload the three deferred checks took most of the commit time.
Statement-level triggers with transition tables do the same work once per statement:
they lock every distinct referenced row (FOR KEY SHARE, as a foreign-key check does),
fail with foreign_key_violation (23503, an IntegrityError) if one is missing, and the
parents refuse to lose a row that scores still reference. Other databases (SQLite, the
embedded mode) rely on the write service, which only stores references it read from the
benchmark in the same transaction, and on Django's on_delete.
"""

import django.db.models.deletion
from django.db import migrations, models

REFERENCES = (
    ("submission_id", "leaderboard_submission"),
    ("dataset_id", "leaderboard_dataset"),
    ("metric_id", "leaderboard_metric"),
)

CHECK = """
CREATE FUNCTION leaderboard_score_references_check() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    wanted bigint;
    found bigint;
BEGIN
{checks}
    RETURN NULL;
END
$$;
CREATE TRIGGER leaderboard_score_references_insert AFTER INSERT ON leaderboard_score
    REFERENCING NEW TABLE AS new_scores FOR EACH STATEMENT
    EXECUTE FUNCTION leaderboard_score_references_check();
CREATE TRIGGER leaderboard_score_references_update AFTER UPDATE ON leaderboard_score
    REFERENCING NEW TABLE AS new_scores FOR EACH STATEMENT
    EXECUTE FUNCTION leaderboard_score_references_check();
"""

ONE_CHECK = """
    SELECT count(DISTINCT {column}) INTO wanted FROM new_scores;
    SELECT count(*) INTO found FROM (
        SELECT 1 FROM {parent} WHERE id IN (SELECT {column} FROM new_scores) FOR KEY SHARE
    ) locked;
    IF found <> wanted THEN
        RAISE EXCEPTION 'leaderboard_score.{column} refers to a missing {parent} row'
            USING ERRCODE = 'foreign_key_violation';
    END IF;"""

PROTECT = """
CREATE FUNCTION {parent}_scores_protect() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (
        SELECT 1 FROM leaderboard_score WHERE {column} IN (SELECT id FROM old_rows)
    ) THEN
        RAISE EXCEPTION 'a deleted {parent} row is still referenced by leaderboard_score.{column}'
            USING ERRCODE = 'foreign_key_violation';
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER {parent}_scores_protect AFTER DELETE ON {parent}
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT
    EXECUTE FUNCTION {parent}_scores_protect();
"""


def _create(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    checks = "".join(ONE_CHECK.format(column=c, parent=p) for c, p in REFERENCES)
    schema_editor.execute(CHECK.format(checks=checks))
    for column, parent in REFERENCES:
        schema_editor.execute(PROTECT.format(column=column, parent=parent))


def _drop(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    for _, parent in REFERENCES:
        schema_editor.execute(f"DROP TRIGGER {parent}_scores_protect ON {parent}")
        schema_editor.execute(f"DROP FUNCTION {parent}_scores_protect()")
    for event in ("insert", "update"):
        schema_editor.execute(
            f"DROP TRIGGER leaderboard_score_references_{event} ON leaderboard_score"
        )
    schema_editor.execute("DROP FUNCTION leaderboard_score_references_check()")


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboard", "0004_visibility_of_unaccepted_names"),
    ]

    operations = [
        migrations.AlterField(
            model_name="score",
            name="dataset",
            field=models.ForeignKey(
                db_constraint=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="scores",
                to="leaderboard.dataset",
            ),
        ),
        migrations.AlterField(
            model_name="score",
            name="metric",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="scores",
                to="leaderboard.metric",
            ),
        ),
        migrations.AlterField(
            model_name="score",
            name="submission",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="scores",
                to="leaderboard.submission",
            ),
        ),
        migrations.RunPython(_create, _drop),
    ]
