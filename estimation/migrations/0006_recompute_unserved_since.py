from django.db import migrations, models
from django.db.models import F


def stale_since_last_request(apps, schema_editor):
    """A benchmark stale at the upgrade: its newest request is the best date known."""
    state = apps.get_model("estimation", "RecomputeState")
    state.objects.filter(computed_revision__lt=F("requested_revision")).update(
        unserved_since=F("requested_at")
    )


class Migration(migrations.Migration):
    dependencies = [("estimation", "0005_section_body_lz4")]

    operations = [
        migrations.AddField(
            model_name="recomputestate",
            name="unserved_since",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(stale_since_last_request, migrations.RunPython.noop),
    ]
