"""ResultSnapshot.leader: the board's first algorithm, stored with the ready status so that
the list of benchmarks reads no payload; the newest ready version of each benchmark and
metric is filled in from its board section."""

import json

from django.db import migrations, models


def leaders_fill(apps, schema_editor):
    from estimation.core.contract import SCHEMA_VERSION, section_from_json

    snapshot_model = apps.get_model("estimation", "ResultSnapshot")
    section_model = apps.get_model("estimation", "SnapshotSection")
    newest: dict[tuple[int, int], int] = {}
    ready = snapshot_model.objects.filter(status="ready", schema_version=SCHEMA_VERSION)
    for pk, benchmark_id, metric_id in ready.order_by("version").values_list(
        "pk", "benchmark_id", "metric_id"
    ):
        newest[benchmark_id, metric_id] = pk
    for pk in newest.values():
        body = (
            section_model.objects.filter(snapshot_id=pk, name="board")
            .values_list("body", flat=True)
            .first()
        )
        if body is None:
            continue
        try:
            top = section_from_json("board", json.loads(body)).top(1)
        except Exception:  # a board this engine cannot read: filled at its next recompute
            continue
        if top:
            snapshot_model.objects.filter(pk=pk).update(leader=top[0][:200])


class Migration(migrations.Migration):
    dependencies = [
        ("estimation", "0006_recompute_pending_since"),
    ]

    operations = [
        migrations.AddField(
            model_name="resultsnapshot",
            name="leader",
            field=models.CharField(
                blank=True,
                default="",
                help_text="the board's first algorithm under its default estimator (ready only)",
                max_length=200,
            ),
        ),
        migrations.RunPython(leaders_fill, migrations.RunPython.noop),
    ]
