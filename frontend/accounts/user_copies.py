"""The signed-in reader's user read through Redis, beside the session's copy.

Django reads the user row on every request that carries a session (a query, and with
persistent connections a health check before it): about two thirds of what a signed-in
reader's cached page costs over an anonymous one (issue 43 item 3, bench/README.md).
Here the user Django read is kept in the sessions' Redis, under its id and the backend
that loaded it, for as long as a session's own copy may live (``SESSION_CACHE_SECONDS``,
the same bound and the same reasoning as ``cached_db``'s copies of sessions).

A copy is used only as Django would use the row: its session must name the same user
and backend, and its session hash must match the copy's (a password changed since is a
miss, and Django's own read then signs the session out). Any change to a user made
through the ORM, a save (a deactivation, a staff flag, a password) or a delete, replaces
the copy with a tombstone at once and again after the commit, and a copy is only added
where nothing is, so a reader that read the row before the commit cannot store it
afterwards (a sign-in's save of ``last_login`` alone, which nothing a request decides
reads, keeps the copy); a change made otherwise (``QuerySet.update``) must call
:func:`user_copies_drop`. Every process reads the same Redis, so no worker keeps a
revoked user. What can outlive a change is bounded by a copy's life
(``SESSION_CACHE_SECONDS``): a change made by raw SQL, a reader slower than
:data:`TOMBSTONE_SECONDS` from its read to its store, or a change made while this process
finds Redis down (its writes are then dropped, and logged). Without that Redis (the embedded
default) nothing is copied: a copy in process memory would outlive a change made in
another process.

A page that reads a fact of its reader's own on every request (whether they maintain
anything: frontend/page_shell.py) names its cache key with :func:`read_with_user`; it is
read in the user's round trip and kept for the request (:func:`found_with_user`).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable
from functools import lru_cache, partial
from typing import Any

from django.conf import settings
from django.contrib import auth
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth import middleware as auth_middleware
from django.core.cache import BaseCache, caches
from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.http import HttpRequest
from django.utils.crypto import constant_time_compare
from django.utils.functional import SimpleLazyObject

from config import sessions

__all__ = [
    "AuthenticationMiddleware",
    "connect_signals",
    "copies_cache",
    "found_with_user",
    "read_with_user",
    "user_copies_drop",
]

_TOMBSTONE = "changed"
TOMBSTONE_SECONDS = 10
"""How long a changed user's copies are not stored again: longer than a request takes
from reading the row to storing its copy."""
logger = logging.getLogger(__name__)
_READ_WITH_USER: list[Callable[[Any], str]] = []
_FOUND_WITH_USER = "_podium_found_with_user"


def read_with_user(name_of: Callable[[Any], str]) -> None:
    """Read the cache name ``name_of(user id)`` (of :func:`copies_cache`) in the same
    round trip as the signed-in user's copy."""
    if name_of not in _READ_WITH_USER:
        _READ_WITH_USER.append(name_of)


def found_with_user(request: HttpRequest, name: str) -> tuple[bool, Any]:
    """Whether ``name`` was read with this request's user, and what it held (None when
    nothing)."""
    found = getattr(request, _FOUND_WITH_USER, None)
    if found is None or name not in found:
        return False, None
    return True, found[name]


def copies_cache() -> BaseCache | None:
    """Where the copies live (the sessions' Redis), None where nothing is copied
    (sessions are not cached: no Redis)."""
    alias = getattr(settings, "SESSION_CACHE_ALIAS", None)
    if settings.SESSION_ENGINE != sessions.__name__ or alias not in settings.CACHES:
        return None
    return caches[alias]


@lru_cache(maxsize=1)
def _copy_prefix() -> str:
    """Named by the user model's fields too: a deploy that changes them reads no copy
    pickled by the code before it."""
    fields = ",".join(f.attname for f in auth.get_user_model()._meta.concrete_fields)
    return f"podium.users.copy.v1.{hashlib.sha256(fields.encode()).hexdigest()[:8]}."


def _copy_key(user_id: object) -> str:
    return f"{_copy_prefix()}{user_id}"


def signed_in_user(request: HttpRequest):
    """The user of ``request``'s session, as :func:`django.contrib.auth.get_user` gives
    it: from the copy when it is this session's user, else read by Django and copied."""
    copies = copies_cache()
    session = request.session
    backend = session.get(BACKEND_SESSION_KEY)
    if (
        copies is None
        or SESSION_KEY not in session
        or backend not in settings.AUTHENTICATION_BACKENDS
    ):
        return auth.get_user(request)
    user_id = auth.get_user_model()._meta.pk.to_python(session[SESSION_KEY])
    key = _copy_key(user_id)
    facts = [name_of(user_id) for name_of in _READ_WITH_USER]
    found = copies.get_many([key, *facts])  # one round trip
    setattr(request, _FOUND_WITH_USER, {name: found.get(name) for name in facts})
    copy = found.get(key)
    if isinstance(copy, tuple) and len(copy) == 2:
        copied_backend, user = copy
        session_hash = session.get(HASH_SESSION_KEY)
        if (
            copied_backend == backend
            and getattr(user, "pk", None) == user_id
            and session_hash
            and constant_time_compare(session_hash, user.get_session_auth_hash())
        ):
            return user
    user = auth.get_user(request)  # Django's read: verifies, and signs out a stale session
    if user.is_authenticated and user.pk == user_id:
        # Only where nothing is: a user changed in the last SESSION_CACHE_SECONDS holds a
        # tombstone (user_copies_drop), which a row read before its change cannot replace.
        copies.add(key, (backend, user), settings.SESSION_CACHE_SECONDS)
    return user


def _cached_user(request: HttpRequest):
    if not hasattr(request, "_cached_user"):
        request._cached_user = signed_in_user(request)  # type: ignore[attr-defined]
    return request._cached_user  # type: ignore[attr-defined]


class AuthenticationMiddleware(auth_middleware.AuthenticationMiddleware):
    """Django's, with ``request.user`` from :func:`signed_in_user` (``auser`` is
    Django's: nothing here runs asynchronously)."""

    def process_request(self, request: HttpRequest) -> None:
        super().process_request(request)
        # A lazy object, as Django assigns it.
        request.user = SimpleLazyObject(partial(_cached_user, request))  # type: ignore[assignment]


def user_copies_drop(user_ids: Iterable[object]) -> None:
    """Replace the copies of these users with a tombstone, now and again after the
    commit: for :data:`TOMBSTONE_SECONDS` no copy of them is stored, so a reader that
    read the row before the change was committed cannot store what it read afterwards."""
    copies = copies_cache()
    keys = [_copy_key(user_id) for user_id in user_ids]
    if copies is None or not keys:
        return
    tombstones = dict.fromkeys(keys, _TOMBSTONE)
    seconds = TOMBSTONE_SECONDS
    _tombstones_set(copies, tombstones, seconds)
    transaction.on_commit(partial(_tombstones_set, copies, tombstones, seconds))


def _tombstones_set(copies: BaseCache, tombstones: dict[str, str], seconds: int) -> None:
    if getattr(copies, "is_down", False):  # the cache fails open: it writes nothing now
        logger.error(
            "the copies of %d changed user(s) could not be dropped (the cache is down); "
            "they expire within %d s",
            len(tombstones),
            seconds,
        )
    copies.set_many(tombstones, seconds)


def _user_changed(sender, instance, created=False, update_fields=None, **kwargs) -> None:
    if created:  # no session names a user not stored before
        return
    if update_fields is not None and set(update_fields) <= {"last_login"}:
        return  # a sign-in: nothing a request decides reads it
    user_copies_drop([instance.pk])


def connect_signals() -> None:
    user_model = auth.get_user_model()
    post_save.connect(_user_changed, sender=user_model, dispatch_uid="user-copies-save")
    post_delete.connect(_user_changed, sender=user_model, dispatch_uid="user-copies-delete")
