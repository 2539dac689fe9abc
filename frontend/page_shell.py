"""A signed-in reader's page: the anonymous page of the page cache with the reader's own
regions drawn for them.

A template marks each part of a page that depends on who reads it as a region,
``<!--podium:NAME-->...<!--/podium:NAME-->``: the site navigation (username, log-out form
and its CSRF token: ``frontend/_site_nav.html``) on every page, the maintainer's links on
the leaderboard (``frontend/readers/_page_actions.html``), and on the leaderboard the
reader's own messages (what their upload did: ``frontend/accounts/_messages.html``; the
anonymous rendering has none, so the stored entry never holds one). Everything else of a reader
page (the board, its table, charts and links) reads nothing of the reader, so the
anonymous rendering of it is every reader's. :class:`frontend.page_cache.PageCacheMiddleware`
hands a signed-in reader's request the anonymous entry, and the view's shell (below)
draws each of the reader's regions for this request, which replace the anonymous
drawings (frontend/page_regions.py): what one reader sees of their own never reaches a stored entry, and the board
is the same bytes for everyone by construction.

When the page does not have a region the shell drew (a template changed), the view
renders the page as before.

Whether a reader maintains any benchmark, and whether they maintain this one (with its
submission policy), are kept in the cache for ``MAINTAINS_SECONDS``
(:func:`_maintained_policy`; beside the user's copy where there is one, read in its round
trip, and bounded by a session copy's life: frontend/accounts/user_copies.py): a
signed-in reader's page asks the database nothing of it once known. A change of the
user's maintainer rows drops both at once (:func:`connect_signals`), a change of the benchmark replaces its generation, so an edit
shows on the next page; the bound covers a raw write to the rows, which sends no signal.
"""

from __future__ import annotations

import uuid
from functools import lru_cache

from django.contrib.messages import get_messages
from django.core.cache import cache
from django.core.signals import setting_changed
from django.db import transaction
from django.db.models.signals import m2m_changed
from django.dispatch import receiver
from django.http import HttpRequest
from django.middleware.csrf import get_token
from django.template import Context
from django.template.context_processors import csrf
from django.template.loader import get_template, render_to_string
from django.urls import get_script_prefix
from django.utils.html import conditional_escape

from frontend.accounts import user_copies
from leaderboard.selectors import benchmark_policy_if_maintained, user_maintains_any

SITE_NAV = "site-nav"
PAGE_ACTIONS = "page-actions"
MESSAGES = "messages"
MAINTAINS_SECONDS = 300  # bounds a change made around the signal (a raw through-row insert)


def _drawn(name: str, context: dict) -> str:
    """The template ``name`` drawn with ``context`` alone: a region reads only what it
    is given, so the context processors (each a lookup per request) are not run."""
    return get_template(name).template.render(Context(context))  # type: ignore[attr-defined]


SITE_NAV_TEMPLATE = "frontend/_site_nav.html"
# Stand-ins drawn into the signed-in navigation once per process; nothing a reader can
# choose reaches the template then, and each must come out exactly once.
_USERNAME_STAND_IN = "podium-shell-username-4d1c9e"
_TOKEN_STAND_IN = "podium-shell-csrf-token-4d1c9e"


class _SignedInStandIn:
    """What the signed-in navigation reads of its reader: that they are signed in, and
    their username (frontend/_site_nav.html says so)."""

    is_authenticated = True

    @staticmethod
    def get_username() -> str:
        return _USERNAME_STAND_IN


@lru_cache(maxsize=4)
def _signed_in_nav_format(script_prefix: str) -> str | None:
    """The signed-in navigation as a ``str.format`` pattern of ``username`` and
    ``token`` (its links are reversed once, not per request), or None when the template
    does not show each stand-in exactly once (then it is drawn per request)."""
    html = _drawn(SITE_NAV_TEMPLATE, {"user": _SignedInStandIn(), "csrf_token": _TOKEN_STAND_IN})
    if html.count(_USERNAME_STAND_IN) != 1 or html.count(_TOKEN_STAND_IN) != 1:
        return None
    pattern = html.replace("{", "{{").replace("}", "}}")
    return pattern.replace(_USERNAME_STAND_IN, "{username}").replace(_TOKEN_STAND_IN, "{token}")


@receiver(setting_changed)
def _templates_changed(*, setting: str, **kwargs) -> None:
    if setting in ("TEMPLATES", "ROOT_URLCONF"):
        _signed_in_nav_format.cache_clear()


def _site_nav(request: HttpRequest) -> str:
    """The site navigation for this reader; a signed-in one's from the pattern drawn
    once (their username escaped as the template escapes it, a CSRF token of their own)."""
    user = request.user
    if user.is_authenticated:
        pattern = _signed_in_nav_format(get_script_prefix())
        if pattern is not None:
            username = conditional_escape(user.get_username())
            return pattern.format(username=username, token=get_token(request))
    # The token only if drawn (the log-out form): a reader signed out is given no cookie.
    context = {"request": request, "user": user, **csrf(request)}
    return _drawn(SITE_NAV_TEMPLATE, context)


def _messages(request: HttpRequest) -> str | None:
    """The reader's messages drawn, None when they have none (most answers). Drawing
    them uses them up: they show on this answer only."""
    messages = get_messages(request)
    if not len(messages):
        return None
    return _drawn("frontend/accounts/_messages.html", {"messages": messages})


def _own_nav(request: HttpRequest) -> dict[str, str]:
    """The navigation region to draw for this reader: none for a reader not signed in
    (a cookie of no session, or of one signed out), whose navigation is the shared
    entry's as it stands, since every entry is an anonymous rendering of this URL."""
    if not request.user.is_authenticated:
        return {}
    return {SITE_NAV: _site_nav(request)}


def site_nav_shell(request: HttpRequest, **view_kwargs) -> dict[str, str]:
    """A page whose only reader's part is the site navigation."""
    return _own_nav(request)


def leaderboard_shell(
    request: HttpRequest, *, slug: str, generation: str, **view_kwargs
) -> dict[str, str]:
    """The leaderboard: the navigation, the maintainer's links for a maintainer (a
    reader who maintains nothing here sees the anonymous ones: submit and upload, unless
    the benchmark is closed), and the reader's messages. ``generation``: the benchmark's
    generation token the shared entry was made under."""
    regions = _own_nav(request)
    policy = _maintained_policy(request, slug=slug, generation=generation)
    if policy is not None:
        regions[PAGE_ACTIONS] = render_to_string(
            "frontend/readers/_page_actions.html",
            {"benchmark": {"slug": slug, "submission_policy": policy}, "is_maintainer": True},
        )
    messages = _messages(request)
    if messages is not None:  # else the anonymous drawing (none) stays
        regions[MESSAGES] = messages
    return regions


def _maintainer_key(user_id: int) -> str:
    return f"shell:maintainer:v2:{user_id}"


def _board_key(token: str, user, slug: str, generation: str) -> str:
    return f"shell:maintains:v2:{token}:{int(user.is_superuser)}:{slug}:{generation}"


def _facts():
    """Where the maintainer facts live: beside the user's copy where there is one (read
    in its round trip: frontend/accounts/user_copies.py), else the default cache."""
    return user_copies.copies_cache() or cache


def _maintained_policy(request: HttpRequest, *, slug: str, generation: str) -> str | None:
    """The submission policy of benchmark ``slug`` if the reader maintains it, else None.

    Two cached facts, each asked of the database once: the user's maintainer token (False
    when they maintain nothing, most readers: one cache read and done), and, under that
    token and the benchmark's generation, the policy ("" for a board they do not
    maintain). A change of the user's maintainer rows drops their token, so every board
    fact under it is dead at once; a change of the benchmark (its policy) replaces its
    generation. Whether they are a superuser is in the key as well."""
    user = request.user
    if not user.is_authenticated:
        return None
    facts = _facts()
    key = _maintainer_key(user.pk)
    read, token = user_copies.found_with_user(request, key)
    if not read:
        token = facts.get(key)
    if not isinstance(token, str | bool):
        token = uuid.uuid4().hex if user_maintains_any(user=user) else False
        facts.set(key, token, timeout=MAINTAINS_SECONDS)
    if token is False and not user.is_superuser:  # a superuser maintains every board
        return None
    board_key = _board_key(str(token), user, slug, generation)
    policy = facts.get(board_key)
    if not isinstance(policy, str):
        policy = benchmark_policy_if_maintained(slug=slug, user=user) or ""
        facts.set(board_key, policy, timeout=MAINTAINS_SECONDS)
    return policy or None


def _maintainers_changed(sender, instance, action, reverse, pk_set, **kwargs) -> None:
    """Drop the maintainer token of every user whose maintainer rows change, now and
    again after commit (a reader that read the rows before the commit may have stored
    a token made from them meanwhile)."""
    if action not in ("post_add", "post_remove", "pre_clear"):
        return
    if reverse:  # user.maintained_benchmarks.add(...): the instance is the user
        user_ids = [instance.pk]
    elif action == "pre_clear":  # benchmark.maintainers.clear(): whom it removes, read now
        user_ids = list(instance.maintainers.values_list("pk", flat=True))
    else:
        user_ids = list(pk_set or ())
    keys = [_maintainer_key(user_id) for user_id in user_ids]
    if keys:
        facts = _facts()
        facts.delete_many(keys)
        transaction.on_commit(lambda: facts.delete_many(keys))


def connect_signals() -> None:
    from leaderboard.models import Benchmark

    user_copies.read_with_user(_maintainer_key)  # whether the reader maintains anything
    m2m_changed.connect(
        _maintainers_changed,
        sender=Benchmark.maintainers.through,
        dispatch_uid="shell-maintainers",
    )
