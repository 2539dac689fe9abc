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
through the ORM, a save (a deactivation, a staff flag, a password, a sign-in's
``last_login``) or a delete, drops the copy at once and again after the commit (a reader
that read the row before the commit may have stored it meanwhile); a change made
otherwise (``QuerySet.update``) must call :func:`user_copies_drop`. Every process reads
the same Redis, so no worker keeps a revoked user. Without that Redis (the embedded
default) nothing is copied: a copy in process memory would outlive a change made in
another process.

A page that reads a fact of its reader's own on every request (whether they maintain
anything: frontend/page_shell.py) names its cache key with :func:`read_with_user`; it is
read in the user's round trip and kept for the request (:func:`found_with_user`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
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

__all__ = [
    "AuthenticationMiddleware",
    "connect_signals",
    "copies_cache",
    "found_with_user",
    "read_with_user",
    "user_copies_drop",
]

COPY_PREFIX = "podium.users.copy.v1."
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
    """Where the copies live (the sessions' Redis), None where nothing is copied."""
    return _copies()


def _copies() -> BaseCache | None:
    """The sessions' Redis, or None where sessions are not cached (no Redis)."""
    alias = getattr(settings, "SESSION_CACHE_ALIAS", None)
    if settings.SESSION_ENGINE != "config.sessions" or alias not in settings.CACHES:
        return None
    return caches[alias]


def _copy_key(user_id: object) -> str:
    return f"{COPY_PREFIX}{user_id}"


def signed_in_user(request: HttpRequest):
    """The user of ``request``'s session, as :func:`django.contrib.auth.get_user` gives
    it: from the copy when it is this session's user, else read by Django and copied."""
    copies = _copies()
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
        copies.set(key, (backend, user), settings.SESSION_CACHE_SECONDS)
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
        request.user = SimpleLazyObject(partial(_cached_user, request))  # type: ignore[assignment]  # as Django does


def user_copies_drop(user_ids: Iterable[object]) -> None:
    """Drop the copies of these users now and again after the commit."""
    copies = _copies()
    keys = [_copy_key(user_id) for user_id in user_ids]
    if copies is None or not keys:
        return
    copies.delete_many(keys)
    transaction.on_commit(partial(copies.delete_many, keys))


def _user_changed(sender, instance, **kwargs) -> None:
    user_copies_drop([instance.pk])


def connect_signals() -> None:
    user_model = auth.get_user_model()
    post_save.connect(_user_changed, sender=user_model, dispatch_uid="user-copies-save")
    post_delete.connect(_user_changed, sender=user_model, dispatch_uid="user-copies-delete")
