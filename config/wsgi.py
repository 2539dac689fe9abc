import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")
application = get_wsgi_application()

# Import every view now (the URLconf imports them), not on a worker's first request:
# gunicorn preloads this module in its master (config/gunicorn.py), so each forked
# worker starts with them. Nothing here opens a connection.
from django.urls import get_resolver  # noqa: E402

_views = get_resolver().url_patterns
