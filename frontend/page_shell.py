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
replaces each region's anonymous drawing with the same template drawn for this
request: what one reader sees of their own never reaches a stored entry, and the board
is the same bytes for everyone by construction.

A shell returns None when the page does not have its regions (a template changed): the
view then renders the page as before.

Whether a reader maintains any benchmark is kept per user for ``MAINTAINS_SECONDS`` (most
readers maintain nothing, and they then skip the maintainer query on every board); the
entry is dropped when the user's maintainer rows change (:func:`connect_signals`), and a
kept "maintains something" only means the query runs.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.core.cache import cache
from django.db.models.signals import m2m_changed
from django.http import HttpRequest
from django.template.loader import render_to_string

from leaderboard.selectors import benchmark_policy_if_maintained, user_maintains_any

SITE_NAV = "site-nav"
PAGE_ACTIONS = "page-actions"
MESSAGES = "messages"
MAINTAINS_SECONDS = 300  # bounds a change made around the signal (a raw through-row insert)


def _markers(name: str) -> tuple[bytes, bytes]:
    return f"<!--podium:{name}-->".encode(), f"<!--/podium:{name}-->".encode()


def regions_replaced(body: bytes, regions: Mapping[str, str]) -> bytes | None:
    """``body`` with the inside of each region (in page order) replaced; None if one is
    missing. Each marker is looked for after the previous region, and page text cannot
    forge one (templates escape ``<``), nor could a forged one show a reader anything
    but their own regions."""
    parts: list[bytes] = []
    position = 0
    for name, html in regions.items():
        opening, closing = _markers(name)
        start = body.find(opening, position)
        if start < 0:
            return None
        start += len(opening)
        end = body.find(closing, start)
        if end < 0:
            return None
        parts += [body[position:start], html.encode()]
        position = end
    parts.append(body[position:])
    return b"".join(parts)


def _site_nav(request: HttpRequest) -> str:
    return render_to_string("frontend/_site_nav.html", request=request)


def site_nav_shell(request: HttpRequest, body: bytes, **view_kwargs) -> bytes | None:
    """A page whose only reader's part is the site navigation."""
    return regions_replaced(body, {SITE_NAV: _site_nav(request)})


def leaderboard_shell(request: HttpRequest, body: bytes, *, slug: str, **view_kwargs):
    """The leaderboard: the navigation, the maintainer's links for a maintainer (a
    reader who maintains nothing here sees the anonymous ones: submit and upload, unless
    the benchmark is closed), and the reader's messages."""
    regions = {SITE_NAV: _site_nav(request)}
    user = request.user
    policy = benchmark_policy_if_maintained(slug=slug, user=user) if _maintains_any(user) else None
    if policy is not None:
        regions[PAGE_ACTIONS] = render_to_string(
            "frontend/readers/_page_actions.html",
            {"benchmark": {"slug": slug, "submission_policy": policy}, "is_maintainer": True},
        )
    # Drawing them uses them up: they show on this answer only.
    regions[MESSAGES] = render_to_string("frontend/accounts/_messages.html", request=request)
    return regions_replaced(body, regions)


def _maintains_key(user_id: int) -> str:
    return f"shell:maintains:v1:{user_id}"


def _maintains_any(user) -> bool:
    """Whether ``user`` may maintain some benchmark (a superuser maintains all), from the
    per-user entry; a missed entry asks the database once."""
    if not user.is_authenticated:
        return False
    if user.is_superuser:
        return True
    key = _maintains_key(user.pk)
    kept = cache.get(key)
    if isinstance(kept, bool):
        return kept
    maintains = user_maintains_any(user=user)
    cache.set(key, maintains, timeout=MAINTAINS_SECONDS)
    return maintains


def _maintainers_changed(sender, instance, action, reverse, pk_set, **kwargs) -> None:
    if not action.startswith("post_"):
        return
    if reverse:  # user.maintained_benchmarks.add(...): the instance is the user
        user_ids = [instance.pk]
    elif pk_set is not None:
        user_ids = list(pk_set)
    else:  # benchmark.maintainers.clear(): whom it removed is not said; a stale True is safe
        return
    cache.delete_many([_maintains_key(user_id) for user_id in user_ids])


def connect_signals() -> None:
    from leaderboard.models import Benchmark

    m2m_changed.connect(
        _maintainers_changed,
        sender=Benchmark.maintainers.through,
        dispatch_uid="shell-maintainers",
    )
