"""Who may submit under an algorithm's name: its owners.

An algorithm belongs to the account, or team of accounts, whose submission under its
name was accepted first; nobody else may submit under that name until an owner adds
them, and a benchmark's maintainers may hand the algorithm to other accounts. An
algorithm with accepted results but no owner (a maintainer's import) is the
maintainers' to submit under or give away. Before any acceptance, a name is nobody's:
several researchers may have pending submissions under it, and the first one accepted
makes its submitter the owner (a moderated benchmark cannot be squatted by a pending
submission).

The submission services call :func:`submit_check` and :func:`owners_claim`; the
errors are theirs (``leaderboard.services``), imported as a module because the
services import this one.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import cast

from django.contrib.auth import get_user_model
from django.db import transaction

from leaderboard.models import Algorithm, Benchmark, Submission
from leaderboard.services.access import user_is_maintainer
from leaderboard.services.errors import (
    NameNotFound,
    PermissionDenied,
    Problem,
    StateConflict,
    ValidationFailed,
)

Owner = Algorithm.owners.through

# A refusal names at most this many algorithms and owners.
_NAMED = 3


def owner_names(*, algorithm_ids: Collection[int]) -> dict[int, list[str]]:
    """Each algorithm's owners' usernames, sorted (algorithms without owners are absent)."""
    names: dict[int, list[str]] = {}
    rows = (
        Owner.objects.filter(algorithm_id__in=list(algorithm_ids))
        .order_by("user__username")
        .values_list("algorithm_id", "user__username")
    )
    for algorithm_id, username in rows:
        names.setdefault(algorithm_id, []).append(username)
    return names


def _who(owners: Sequence[str]) -> str:
    shown = ", ".join(repr(name) for name in owners[:_NAMED])
    return shown + (f" and {len(owners) - _NAMED} more" if len(owners) > _NAMED else "")


def submit_check(
    *,
    benchmark: Benchmark,
    submitter,
    names: Iterable[str],
    is_maintainer: bool,
    lock: bool = False,
) -> None:
    """Raise ``PermissionDenied`` unless ``submitter`` may submit under every name.

    With ``lock`` (inside the write's transaction) the algorithms' rows are locked first,
    so a concurrent first acceptance cannot slip between this check and the write.
    The refusal says who can let the submitter in.
    """
    if submitter is None:  # a maintainer's import (the services checked that)
        return
    wanted = sorted(set(names))
    if not wanted:
        return
    algorithms = Algorithm.objects.filter(benchmark=benchmark, name__in=wanted)
    if lock:
        algorithms = algorithms.select_for_update().order_by("pk")
    found = {a.pk: a.name for a in algorithms.only("pk", "name")}
    if not found:
        return
    owners = owner_names(algorithm_ids=found)
    owner_ids = set(
        Owner.objects.filter(algorithm_id__in=list(owners), user_id=submitter.pk).values_list(
            "algorithm_id", flat=True
        )
    )
    unowned_public = set(
        Submission.objects.filter(
            algorithm_id__in=[pk for pk in found if pk not in owners],
            status=Submission.Status.ACCEPTED,
        ).values_list("algorithm_id", flat=True)
    )
    refusals = []
    for pk, name in sorted(found.items(), key=lambda item: item[1]):
        if pk in owners and pk not in owner_ids:
            refusals.append(
                f"algorithm {name!r} belongs to {_who(owners[pk])}: only its owners may "
                f"submit under its name; an owner can add you (or a maintainer of "
                f"{benchmark.slug!r} can transfer it), or submit under another name"
            )
        elif pk in unowned_public and not is_maintainer:
            refusals.append(
                f"algorithm {name!r} has no owner and is kept by the maintainers of "
                f"{benchmark.slug!r}: a maintainer can make you an owner, or submit under "
                "another name"
            )
    if refusals:
        more = len(refusals) - _NAMED
        raise PermissionDenied(
            "; ".join(refusals[:_NAMED]) + (f"; and {more} more algorithms" if more > 0 else "")
        )


def owners_claim(*, submissions: Sequence[Submission]) -> None:
    """Accepted ``submissions``: an algorithm without owners becomes its submitter's.

    Raises ``StateConflict`` for a submission whose algorithm came to belong to someone
    else while it waited (its submitter is not an owner): nothing is accepted.
    Called inside the accepting transaction; the algorithms' rows are locked.
    """
    with_submitter = [s for s in submissions if s.submitter_id is not None]
    if not with_submitter:
        return
    ids = sorted({s.algorithm_id for s in with_submitter})
    list(Algorithm.objects.select_for_update().filter(pk__in=ids).order_by("pk").values("pk"))
    owners: dict[int, set[int]] = {}
    for algorithm_id, user_id in Owner.objects.filter(algorithm_id__in=ids).values_list(
        "algorithm_id", "user_id"
    ):
        owners.setdefault(algorithm_id, set()).add(user_id)
    new_rows = []
    for submission in with_submitter:
        current = owners.get(submission.algorithm_id)
        submitter_id = cast(int, submission.submitter_id)
        if current is None:
            owners[submission.algorithm_id] = {submitter_id}
            new_rows.append(
                Owner(algorithm_id=submission.algorithm_id, user_id=submission.submitter_id)
            )
        elif submission.submitter_id not in current:
            name = Algorithm.objects.get(pk=submission.algorithm_id).name
            raise StateConflict(
                f"submission {submission.pk}: algorithm {name!r} now belongs to "
                f"{_who(owner_names(algorithm_ids=[submission.algorithm_id])[submission.algorithm_id])}"
                "; an owner must add its submitter before it can be accepted"
            )
    Owner.objects.bulk_create(new_rows, ignore_conflicts=True)


def _algorithm_for_change(*, benchmark: Benchmark, name: str) -> Algorithm:
    try:
        return Algorithm.objects.select_for_update().get(benchmark=benchmark, name=name)
    except Algorithm.DoesNotExist:
        raise NameNotFound(
            [Problem(f"no algorithm named {name!r} in this benchmark", "algorithm")]
        ) from None


def _accounts(usernames: Sequence[str], field: str) -> list:
    User = get_user_model()
    wanted = list(dict.fromkeys(usernames))
    found = {u.username: u for u in User.objects.filter(username__in=wanted, is_active=True)}
    missing = [name for name in wanted if name not in found]
    if missing:
        raise ValidationFailed([Problem(f"no account named {name!r}", field) for name in missing])
    if not wanted:
        raise ValidationFailed([Problem("name at least one account", field)])
    return [found[name] for name in wanted]


@transaction.atomic
def algorithm_owner_add(*, benchmark: Benchmark, user, algorithm: str, username: str) -> list[str]:
    """An owner (or a maintainer) adds an account to an algorithm's owners.

    Returns the owners' usernames. An algorithm without owners is the maintainers' to
    give: an owner of nothing cannot add anyone.
    """
    if user is None or not user.is_authenticated:
        raise PermissionDenied("log in to change an algorithm's owners")
    row = _algorithm_for_change(benchmark=benchmark, name=algorithm)
    is_owner = row.owners.filter(pk=user.pk).exists()
    if not (is_owner or user_is_maintainer(user=user, benchmark=benchmark)):
        owners = owner_names(algorithm_ids=[row.pk]).get(row.pk, [])
        who = f"its owners ({_who(owners)})" if owners else "nobody yet"
        raise PermissionDenied(
            f"only the owners of {algorithm!r} or the maintainers of {benchmark.slug!r} may "
            f"add owners; it belongs to {who}"
        )
    (account,) = _accounts([username], "username")
    row.owners.add(account)
    return owner_names(algorithm_ids=[row.pk])[row.pk]


@transaction.atomic
def algorithm_owners_transfer(
    *, benchmark: Benchmark, user, algorithm: str, usernames: Sequence[str]
) -> list[str]:
    """A maintainer hands an algorithm to these accounts (replacing its owners)."""
    if not user_is_maintainer(user=user, benchmark=benchmark):
        raise PermissionDenied(f"only maintainers of {benchmark.slug!r} may transfer an algorithm")
    row = _algorithm_for_change(benchmark=benchmark, name=algorithm)
    row.owners.set(_accounts(usernames, "usernames"))
    return owner_names(algorithm_ids=[row.pk])[row.pk]
