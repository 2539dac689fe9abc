"""The walk of one score: ``POST .../submissions/create/`` to a number on ``/b/<slug>/``.

Issue 23 counted the files and functions a score passes and how often the call returns
into an app it had left. This makes that count reproducible. In a scratch database
(:class:`bench.scratch.Scratch`, production settings) an open benchmark of three
algorithms on five datasets is built and analysed untraced; then, under
``sys.setprofile`` (and ``threading.setprofile``), one researcher POSTs a fourth
algorithm's scores through the API, the recompute runs eagerly in the request
runs as the embedded default runs it (no broker, so ``task_always_eager``, and in
a thread of its own: ``PODIUM_RECOMPUTE_IN_THREAD``, on by default there), traced by
``threading.setprofile`` and joined before an anonymous reader GETs ``/b/<slug>/``;
the script checks that the new algorithm is on the page. ``--same-thread`` runs the
recompute inside the request instead (``PODIUM_RECOMPUTE_IN_THREAD=false``): the
same functions, but estimation's reads of leaderboard then sit on the request's
stack above leaderboard's view, which a worker's or the thread's stack never has.

What is counted, the same way before and after a change:

- **project code only**: frames whose file lies in ``leaderboard/``, ``estimation/``,
  ``frontend/``, ``operations/`` or ``config/`` of this checkout (not Django, DRF,
  Celery, numpy, the standard library, tests or bench); comprehensions, generator
  expressions, lambdas, module and class bodies are not functions, and the apps'
  modules are imported before the trace (import-time code is not the walk's);
  middleware is not on the score's path: the methods of the project's ``MIDDLEWARE``
  classes and whatever they call directly (the probe, metrics, compression and page
  cache layers every request passes) are left out, while the view Django calls through
  them is counted;
- **files** and **functions**: distinct files and distinct ``file:qualname`` with at
  least one call, over the POST (with its recompute) and the GET;
- **returns into an app it had left**: apps are ``leaderboard``, ``estimation``,
  ``frontend``; a call re-enters an app when its callee's app already lies lower on
  the stack of project frames under a different app (``leaderboard -> estimation ->
  leaderboard``: the second app calls back into the first). Counted as distinct
  (caller, callee) pairs, each listed.

Run ``python -m bench.walk [--json PATH]`` (about a minute; needs PostgreSQL and Redis
as ``bench.scratch`` does). It is not a test: the counts describe the code's shape.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import pkgutil
import sys
import tempfile
import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from bench.common import ROOT

CO_OPTIMIZED = 0x0001  # inspect.CO_OPTIMIZED: a function's code (not a class or module body)

PACKAGES = ("leaderboard", "estimation", "frontend", "operations", "config")
APPS = ("leaderboard", "estimation", "frontend")
SLUG = "walk"
HOST = "localhost"


@dataclass
class Walk:
    """What the profiler saw: calls per function and the re-entries into apps."""

    calls: Counter = field(default_factory=Counter)
    reentries: Counter = field(default_factory=Counter)
    middleware: tuple = ()  # (file, qualname) of the project's MIDDLEWARE classes
    _owned: set = field(default_factory=set)
    _stacks: dict = field(default_factory=dict)
    _paths: dict = field(default_factory=dict)

    def _where(self, code) -> tuple[str, str] | None:
        """(relative file, app or package) of project code, else None (cached)."""
        found = self._paths.get(code.co_filename, False)
        if found is False:
            found = None
            try:
                relative = Path(code.co_filename).resolve().relative_to(ROOT)
            except ValueError:
                relative = None
            if relative is not None and relative.parts[0] in PACKAGES:
                found = (relative.as_posix(), relative.parts[0])
            self._paths[code.co_filename] = found
        return found

    def _middleware(self, frame, path: str) -> bool:
        """A method of a MIDDLEWARE class, or called directly by one (kept while alive)."""
        if id(frame) in self._owned:
            return True
        qualname = frame.f_code.co_qualname
        owned = any(
            path == file and (qualname == name or qualname.startswith(name + "."))
            for file, name in self.middleware
        ) or (frame.f_back is not None and id(frame.f_back) in self._owned)
        if owned:
            self._owned.add(id(frame))
        return owned

    def profile(self, frame, event, arg) -> None:
        if event not in ("call", "return"):
            return
        code = frame.f_code
        where = self._where(code)
        if where is None or code.co_name.startswith("<") or not code.co_flags & CO_OPTIMIZED:
            return  # not project code, or a comprehension, module or class body
        if self._middleware(frame, where[0]):
            if event == "return":
                self._owned.discard(id(frame))
            return
        stack = self._stacks.setdefault(threading.get_ident(), [])
        if event == "return":
            if stack and stack[-1][0] is frame:
                stack.pop()
            return
        path, package = where
        name = f"{path}:{code.co_qualname}"
        self.calls[name] += 1
        if package in APPS and stack:
            caller_app = stack[-1][2]
            lower = {app for _, _, app in stack}
            if caller_app != package and package in lower:
                self.reentries[(stack[-1][1], name)] += 1
        stack.append((frame, name, package))

    def summary(self) -> dict:
        files = sorted({name.split(":")[0] for name in self.calls})
        by_app = Counter(name.split("/")[0] for name in self.calls)
        return {
            "files": len(files),
            "functions": len(self.calls),
            "functions_by_package": dict(sorted(by_app.items())),
            "returns_into_an_app_it_had_left": len(self.reentries),
            "reentries": [f"{caller} -> {callee}" for caller, callee in sorted(self.reentries)],
            "file_list": files,
            "function_list": sorted(self.calls),
        }


def _board() -> tuple[object, object]:
    """An open benchmark of 3 algorithms x 5 datasets (accepted on arrival, analysed
    eagerly as each arrives); and a researcher."""
    from leaderboard.models import Benchmark
    from tests.factories import make_benchmark, make_submission, make_user

    # The first arrival alone cannot be analysed (one algorithm): that failure is expected.
    logging.getLogger("estimation.recompute").setLevel(logging.CRITICAL)
    benchmark = make_benchmark(SLUG, submission_policy=Benchmark.SubmissionPolicy.OPEN)
    for k, algorithm in enumerate(("a", "b", "c")):
        make_submission(benchmark, algorithm, {f"d{i}": 0.5 + 0.1 * k + 0.01 * i for i in range(5)})
    logging.getLogger("estimation.recompute").setLevel(logging.NOTSET)
    return benchmark, make_user("walker")


def _middleware_classes() -> tuple[tuple[str, str], ...]:
    import inspect

    from django.conf import settings
    from django.utils.module_loading import import_string

    found = []
    for dotted in settings.MIDDLEWARE:
        if dotted.split(".")[0] in PACKAGES:
            thing = import_string(dotted)
            path = Path(inspect.getfile(thing)).resolve().relative_to(ROOT).as_posix()
            found.append((path, thing.__qualname__))
    return tuple(found)


def _imported() -> None:
    """Import the apps' modules and the URLconf first, so that what runs at import time
    (decorators, registrations) is not counted as the walk's."""
    from django.urls import get_resolver

    for package in (*APPS, "operations"):
        for module in pkgutil.walk_packages([str(ROOT / package)], prefix=f"{package}."):
            # not migrations or commands, nor a __main__ (it would run, with our argv)
            if not any(part in module.name for part in (".migrations", ".management", "__main__")):
                importlib.import_module(module.name)
    get_resolver().url_patterns  # noqa: B018 - imports every view module


def walk() -> dict:
    from django.conf import settings
    from django.test import Client
    from rest_framework.test import APIClient

    from estimation.recompute.background import recompute_threads_join

    assert settings.CELERY_TASK_ALWAYS_EAGER
    _, researcher = _board()
    _imported()
    api = APIClient(SERVER_NAME=HOST)
    api.force_login(researcher)
    reader = Client(SERVER_NAME=HOST)
    scores = [{"dataset": f"d{i}", "value": 0.9 + 0.001 * i} for i in range(5)]
    body = {"algorithm": "walker-algo", "scores": scores}
    seen = Walk(middleware=_middleware_classes())
    threading.setprofile(seen.profile)
    sys.setprofile(seen.profile)
    try:
        posted = api.post(
            f"/api/benchmarks/{SLUG}/submissions/create/",
            json.dumps(body),
            content_type="application/json",
        )
        recompute_threads_join(timeout=120)
        page = reader.get(f"/b/{SLUG}/")
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
    assert posted.status_code == 201 and posted.json()["status"] == "accepted", posted.content
    text = page.content.decode()
    assert page.status_code == 200 and 'data-algorithm="walker-algo"' in text, page.status_code
    return seen.summary()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="write the full counts and lists here")
    parser.add_argument(
        "--same-thread",
        action="store_true",
        help="run the recompute inside the request (PODIUM_RECOMPUTE_IN_THREAD=false)",
    )
    args = parser.parse_args(argv)
    from bench.scratch import Scratch

    scratch = Scratch()
    # The embedded default: no broker, so the recompute runs in a thread of this process.
    scratch.env.update(
        REDIS_URL="", PODIUM_RECOMPUTE_IN_THREAD="false" if args.same_thread else "true"
    )
    with scratch, tempfile.TemporaryDirectory(prefix="podium-walk-static-") as static_root:
        from django.core.management import call_command
        from django.test import override_settings

        with override_settings(STATIC_ROOT=static_root):  # the pages' manifest, as deployed
            call_command("collectstatic", interactive=False, verbosity=0)
            summary = walk()
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2) + "\n")
    print(f"files: {summary['files']}, functions: {summary['functions']}")
    print(f"functions by package: {summary['functions_by_package']}")
    print(f"returns into an app it had left: {summary['returns_into_an_app_it_had_left']}")
    for line in summary["reentries"]:
        print(f"  {line}")


if __name__ == "__main__":
    main()
