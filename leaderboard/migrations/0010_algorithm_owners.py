"""Algorithms get owners; each existing one is owned by its first accepted submitter.

An algorithm whose accepted results all came from a maintainer's import (no submitter)
stays without owners: only the benchmark's maintainers may then submit under it or
give it owners (leaderboard/ownership.py).
"""

from django.conf import settings
from django.db import migrations, models


def owners_from_first_accepted(apps, schema_editor):
    Algorithm = apps.get_model("leaderboard", "Algorithm")
    Submission = apps.get_model("leaderboard", "Submission")
    Owner = Algorithm.owners.through
    first: dict[int, int] = {}
    accepted = (
        Submission.objects.filter(status="accepted", submitter__isnull=False)
        .order_by("created_at", "id")
        .values_list("algorithm_id", "submitter_id")
    )
    for algorithm_id, submitter_id in accepted.iterator(chunk_size=5000):
        first.setdefault(algorithm_id, submitter_id)
    Owner.objects.bulk_create(
        [Owner(algorithm_id=a, user_id=u) for a, u in sorted(first.items())],
        batch_size=1000,
        ignore_conflicts=True,
    )


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboard", "0009_benchmark_control_algorithm"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="algorithm",
            name="owners",
            field=models.ManyToManyField(
                blank=True, related_name="owned_algorithms", to=settings.AUTH_USER_MODEL
            ),
        ),
        migrations.RunPython(owners_from_first_accepted, migrations.RunPython.noop),
    ]
