"""The rules a new username follows beyond Django's (allauth's ACCOUNT_USERNAME_VALIDATORS)."""

from __future__ import annotations

from django.contrib.auth.validators import ASCIIUsernameValidator


class PlainUsernameValidator(ASCIIUsernameValidator):
    """Letters a-z and A-Z, digits and @ . + - _ only: pages name an algorithm's owners
    by username, and a Unicode name could copy another's look (Cyrillic 'а' for 'a').
    allauth already refuses a name that differs from a taken one only in case."""

    message = (
        "Use only the letters a-z and A-Z, digits and @ . + - _ in a username (a name "
        "with other letters could look like another researcher's)."
    )


USERNAME_VALIDATORS = [PlainUsernameValidator()]
