"""The algorithm page's owner forms: owners add a co-owner, maintainers transfer."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from frontend.contribute.access import benchmark_or_404, forbidden
from leaderboard.ownership import algorithm_owner_add, algorithm_owners_transfer
from leaderboard.services import PermissionDenied, ValidationFailed


@login_required
@require_POST
def algorithm_owners(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark = benchmark_or_404(slug=slug, user=request.user)
    algorithm = request.POST.get("algorithm", "")[:200]
    try:
        if request.POST.get("action") == "transfer":
            usernames = request.POST.get("usernames", "")[:2000].split()
            owners = algorithm_owners_transfer(
                benchmark=benchmark, user=request.user, algorithm=algorithm, usernames=usernames
            )
        else:
            owners = algorithm_owner_add(
                benchmark=benchmark,
                user=request.user,
                algorithm=algorithm,
                username=request.POST.get("username", "")[:150].strip(),
            )
    except PermissionDenied as exc:
        return forbidden(request, str(exc))
    except ValidationFailed as exc:
        for problem in exc.problems:
            messages.error(request, problem.message)
    else:
        messages.success(request, f"Owners of {algorithm}: {', '.join(owners)}.")
    return redirect("explore-algorithm", slug=benchmark.slug, algorithm=algorithm)
