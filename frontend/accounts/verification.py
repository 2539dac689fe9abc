"""E-mail verification: mail about submissions goes only to addresses their owner proved.

At signup (and on request, rate-limited) the account's address gets a signed link,
valid ``PODIUM_EMAIL_VERIFY_DAYS``; opening it records a :class:`VerifiedEmail`. An
address typed into someone else's account (issue 26: an attacker's benchmark title and
rejection note were mailed to a victim) is never verified, so it gets nothing more
than that one link. The check itself is ``leaderboard.notifications.email_is_verified``.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.core.mail import send_mail
from django.urls import reverse

from leaderboard.models import VerifiedEmail

_SALT = "frontend.accounts.email-verify"


def _taken(user) -> bool:
    """Whether another account has confirmed ``user``'s address."""
    return VerifiedEmail.objects.filter(email__iexact=user.email).exclude(user_id=user.pk).exists()


def verification_send(*, request, user) -> None:
    """Mail ``user``'s address a link that verifies it; when another account confirmed
    that address already, a note that someone signed up with it instead (the signup
    page says the same either way, so it tells nobody which addresses have accounts)."""
    if not user.email:
        return
    if _taken(user):
        send_mail(
            "Podium: someone signed up with your address",
            f"Someone made the Podium account {user.get_username()} with {user.email}, "
            "which your account already uses; it will never receive mail. If it was you, "
            "log in to your account instead (or reset its password from the log-in "
            "page). Otherwise, ignore this mail.\n",
            settings.DEFAULT_FROM_EMAIL,
            [user.email],
        )
        return
    token = signing.dumps({"user": user.pk, "email": user.email.lower()}, salt=_SALT)
    link = request.build_absolute_uri(reverse("account-email-verify", args=[token]))
    send_mail(
        "Podium: confirm your e-mail address",
        f"Open this link to confirm that {user.email} is the address of the Podium account "
        f"{user.get_username()}:\n\n{link}\n\nIf you did not sign up, ignore this mail: "
        "nothing more will be sent to you.\n",
        settings.DEFAULT_FROM_EMAIL,
        [user.email],
    )


def verification_confirm(*, token: str):
    """The account whose address ``token`` verifies (recording it), or None."""
    days = getattr(settings, "PODIUM_EMAIL_VERIFY_DAYS", 3)
    try:
        data = signing.loads(token, salt=_SALT, max_age=timedelta(days=days))
    except signing.BadSignature:
        return None
    user = get_user_model().objects.filter(pk=data.get("user"), is_active=True).first()
    if user is None or user.email.lower() != data.get("email") or _taken(user):
        return None  # the address changed since the link was sent, or is another's
    VerifiedEmail.objects.update_or_create(user=user, defaults={"email": user.email})
    return user
