"""Web requests whose body is too large are refused before anything reads the body."""

from __future__ import annotations

from django.shortcuts import render

from frontend.contribute.forms import upload_limit_bytes

# Room for the form fields and multipart headers around the largest file the web takes.
FORM_ALLOWANCE_BYTES = 1024 * 1024


def web_body_limit() -> int:
    return upload_limit_bytes() + FORM_ALLOWANCE_BYTES


class WebBodyLimitMiddleware:
    """413 from the Content-Length alone for pages (the API has its own per-view limits).

    Django caps form fields (DATA_UPLOAD_MAX_MEMORY_SIZE) but streams files of any size
    to disk, and the CSRF check parses the body before a view could look at the file;
    this runs before both.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not request.path.startswith("/api/"):
            try:
                length = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                length = 0
            limit = web_body_limit()
            if length > limit:
                context = {"size": length, "limit": limit}
                return render(request, "frontend/too_large.html", context, status=413)
        return self.get_response(request)
