"""Scores: a row per submission and metric (``ScorePack``) instead of a row per score.

The stored rows are packed submission by submission, each submission gets its counts,
and on PostgreSQL the datasets' list column gets a GIN index and the datasets a
deferred trigger that refuses to lose one a pack still names; migration 0005's
triggers go with the old table. Reversible: back to 0016 every pack is a row per score
again, under 0005's triggers (tests/leaderboard/test_score_packs.py goes both ways).
"""

import importlib

import django.db.models.deletion
import numpy as np
from django.db import migrations, models

import leaderboard.models
from leaderboard.score_packs import scores_pack, scores_unpack

ROWS = 5000  # scores a read or a write

PROTECT = """
CREATE FUNCTION leaderboard_dataset_packs_protect() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (
        SELECT 1 FROM leaderboard_scorepack WHERE datasets @> ARRAY[OLD.id]::bigint[]
    ) THEN
        RAISE EXCEPTION 'a deleted leaderboard_dataset row is still named by a score pack'
            USING ERRCODE = 'foreign_key_violation';
    END IF;
    RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER leaderboard_dataset_packs_protect AFTER DELETE ON leaderboard_dataset
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    EXECUTE FUNCTION leaderboard_dataset_packs_protect();
CREATE INDEX leaderboard_scorepack_datasets ON leaderboard_scorepack USING gin (datasets);
"""


def _pack(apps, schema_editor) -> None:
    """One submission at a time (the rows stream in key order): memory is bounded by the
    largest submission, whatever the table's size."""
    Score = apps.get_model("leaderboard", "Score")
    ScorePack = apps.get_model("leaderboard", "ScorePack")
    Submission = apps.get_model("leaderboard", "Submission")
    rows = (
        Score.objects.order_by("submission_id", "metric_id")
        .values_list("submission_id", "metric_id", "dataset_id", "fold", "value")
        .iterator(chunk_size=ROWS)
    )
    owner, scores = None, []
    for submission, metric, dataset, fold, value in rows:
        if owner is not None and submission != owner:
            _submission_pack(ScorePack, Submission, owner, scores)
            scores = []
        owner = submission
        scores.append((metric, dataset, -1 if fold is None else fold, value))
    if owner is not None:
        _submission_pack(ScorePack, Submission, owner, scores)


def _submission_pack(ScorePack, Submission, submission: int, scores: list[tuple]) -> None:
    metric, dataset, fold, value = (np.array(column) for column in zip(*scores, strict=True))
    packs = []
    for key in np.unique(metric).tolist():
        mine = metric == key
        pack = scores_pack(dataset[mine], fold[mine], value[mine])
        packs.append(
            ScorePack(
                submission_id=submission,
                metric_id=key,
                datasets=pack.datasets,
                counts=pack.counts,
                folds=pack.folds,
                scores=pack.scores,
            )
        )
    ScorePack.objects.bulk_create(packs)
    Submission.objects.filter(pk=submission).update(
        n_scores=len(value),
        n_datasets=len(np.unique(dataset)),
        n_folds=len(np.unique(fold[fold >= 0])),
    )


def _unpack(apps, schema_editor) -> None:
    Score = apps.get_model("leaderboard", "Score")
    ScorePack = apps.get_model("leaderboard", "ScorePack")
    for pack in ScorePack.objects.order_by("pk").iterator(chunk_size=1):
        scores = scores_unpack(pack.datasets, pack.counts, pack.folds, pack.scores)
        rows = list(
            zip(scores.dataset.tolist(), scores.fold.tolist(), scores.value.tolist(), strict=True)
        )
        for start in range(0, len(rows), ROWS):
            Score.objects.bulk_create(
                Score(
                    submission_id=pack.submission_id,
                    metric_id=pack.metric_id,
                    dataset_id=d,
                    fold=None if f < 0 else f,
                    value=v,
                )
                for d, f, v in rows[start : start + ROWS]
            )


def _triggers_back(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(
        "DROP TRIGGER leaderboard_dataset_packs_protect ON leaderboard_dataset; "
        "DROP FUNCTION leaderboard_dataset_packs_protect(); "
        "DROP INDEX leaderboard_scorepack_datasets"
    )
    references = importlib.import_module("leaderboard.migrations.0005_score_set_based_references")
    references._create(apps, schema_editor)


def _triggers(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    for parent in ("leaderboard_submission", "leaderboard_dataset", "leaderboard_metric"):
        schema_editor.execute(f"DROP TRIGGER {parent}_scores_protect ON {parent}")
        schema_editor.execute(f"DROP FUNCTION {parent}_scores_protect()")
    for event in ("insert", "update"):
        schema_editor.execute(
            f"DROP TRIGGER leaderboard_score_references_{event} ON leaderboard_score"
        )
    schema_editor.execute("DROP FUNCTION leaderboard_score_references_check()")
    schema_editor.execute(PROTECT)


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboard", "0016_upload_job_filename"),
    ]

    operations = [
        migrations.AddField(
            model_name="submission",
            name="n_datasets",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="submission",
            name="n_folds",
            field=models.PositiveIntegerField(default=0, help_text="distinct fold numbers"),
        ),
        migrations.AddField(
            model_name="submission",
            name="n_scores",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.CreateModel(
            name="ScorePack",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("datasets", leaderboard.models.DatasetKeys()),
                ("counts", models.BinaryField()),
                ("folds", models.BinaryField()),
                ("scores", models.BinaryField()),
                (
                    "metric",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="score_packs",
                        to="leaderboard.metric",
                    ),
                ),
                (
                    "submission",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="score_packs",
                        to="leaderboard.submission",
                    ),
                ),
            ],
        ),
        migrations.AddConstraint(
            model_name="scorepack",
            constraint=models.UniqueConstraint(
                fields=("submission", "metric"), name="score_pack_unique"
            ),
        ),
        migrations.RunPython(_pack, _unpack),
        migrations.RunPython(_triggers, _triggers_back),
        migrations.DeleteModel(
            name="Score",
        ),
    ]
