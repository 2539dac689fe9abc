"""Accounts move to django-allauth: each account's address becomes its primary allauth
EmailAddress, verified when its owner had confirmed it (a VerifiedEmail of that
address); then VerifiedEmail goes (one record of a confirmed address)."""

from django.db import migrations


def addresses_to_allauth(apps, schema_editor):
    User = apps.get_model("auth", "User")
    EmailAddress = apps.get_model("account", "EmailAddress")
    VerifiedEmail = apps.get_model("leaderboard", "VerifiedEmail")
    confirmed = {row.user_id: row.email.lower() for row in VerifiedEmail.objects.all()}
    for user in User.objects.exclude(email="").iterator():
        if EmailAddress.objects.filter(user_id=user.pk, email__iexact=user.email).exists():
            continue
        EmailAddress.objects.create(
            user_id=user.pk,
            email=user.email.lower(),
            primary=True,
            verified=confirmed.get(user.pk) == user.email.lower(),
        )


def addresses_back(apps, schema_editor):
    EmailAddress = apps.get_model("account", "EmailAddress")
    VerifiedEmail = apps.get_model("leaderboard", "VerifiedEmail")
    for address in EmailAddress.objects.filter(verified=True, primary=True).iterator():
        VerifiedEmail.objects.get_or_create(user_id=address.user_id, defaults={"email": address.email})


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboard", "0013_merge_owners_rope_ranges"),
        ("account", "0009_emailaddress_unique_primary_email"),
    ]

    operations = [
        migrations.RunPython(addresses_to_allauth, addresses_back),
        migrations.DeleteModel(name="VerifiedEmail"),
    ]
