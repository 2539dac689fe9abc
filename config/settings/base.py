"""Settings shared by every environment. Values come from the environment (config.env)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from csp.constants import NONE, SELF

from config.env import database_from_url, env_bool, env_int, env_list, env_networks, env_str

BASE_DIR = Path(__file__).resolve().parent.parent.parent

DEBUG = env_bool("DJANGO_DEBUG", default=False)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "axes",
    "allauth",
    "allauth.account",
    "allauth.socialaccount",
    # Installed always (their models and providers registered); a provider's sign-in
    # URLs and button exist only when its client id and secret are set (below).
    "allauth.socialaccount.providers.github",
    "allauth.socialaccount.providers.orcid",
    "csp",
    "leaderboard",
    "estimation",
    "frontend",
    "operations",
]

MIDDLEWARE = [
    # /health/ and /health/ready/ before the host check and the https redirect (probes ask
    # by address, over http), /metrics before the redirect only; then every other request
    # is timed for /metrics.
    "operations.middleware.ProbeMiddleware",
    "operations.metrics.RequestMetricsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # gzip for every response over 200 bytes whose client accepts it (WhiteNoise serves
    # static files precompressed itself). BREACH: Django's GZipMiddleware pads each
    # compressed body with random bytes (Heal The Breach), and CSRF tokens are masked
    # per response, so pages with a form are compressed too. Brotli where the client
    # asks, for anonymous GETs without a CSRF token only (config/compression.py).
    "config.compression.CompressionMiddleware",
    # Reader pages for anonymous readers from one cache read, per snapshot generation
    # (frontend/page_cache.py): inside compression, before sessions and CSRF.
    "frontend.page_cache.PageCacheMiddleware",
    # Django's, with the session read by the page cache's round trip where it was.
    "config.sessions.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    # Inside CommonMiddleware, which still redirects an API URL missing its slash.
    "config.handlers.ApiUnmatchedUrlMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    # Django's, with the signed-in user read through the sessions' Redis
    # (frontend/accounts/user_copies.py).
    "frontend.accounts.user_copies.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    # Before any view (and the CSRF check) reads a body: 413 from the Content-Length.
    "frontend.middleware.WebBodyLimitMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last: turns a lockout noted during authentication into the lockout page (429).
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        # Overrides of third-party apps' templates (rest_framework/api.html): the
        # filesystem loader is asked before the apps' directories.
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DEFAULT_DATABASE_URL = f"sqlite:///{BASE_DIR / 'var' / 'podium.sqlite3'}"
DATABASES = {"default": database_from_url(env_str("DATABASE_URL", DEFAULT_DATABASE_URL))}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        # OWASP ASVS level 2 (2.1.1): at least 12 characters.
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": env_int("PODIUM_PASSWORD_MIN_LENGTH", 12)},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT: Path | None = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# REST API. Sessions for the web, personal tokens (Authorization: Token <raw>) for
# scripts; the token authenticator comes first so that anonymous writes get a 401.
REST_FRAMEWORK: dict[str, Any] = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "leaderboard.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_PAGINATION_CLASS": "common.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "leaderboard.api.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "leaderboard.api.schema.AutoSchema",
    "DEFAULT_THROTTLE_CLASSES": [
        "leaderboard.throttling.AnonThrottle",
        "leaderboard.throttling.UserThrottle",
    ],
    # "<n>/<second|minute|hour|day>"; an empty value switches a scope off.
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_str("PODIUM_THROTTLE_ANON", "120/minute") or None,
        "user": env_str("PODIUM_THROTTLE_USER", "1200/minute") or None,
        # submissions (JSON or file) by one user to one benchmark
        "submit": env_str("PODIUM_THROTTLE_SUBMIT", "60/hour") or None,
        # submissions to one benchmark by everyone (each accepted one costs a recompute)
        "benchmark_submit": env_str("PODIUM_THROTTLE_BENCHMARK_SUBMIT", "600/hour") or None,
        # anonymous reader pages rendered because the page cache had no entry, per address
        "page_miss": env_str("PODIUM_THROTTLE_PAGE_MISS", "60/minute") or None,
    },
    # Proxies in front of Podium that set X-Forwarded-For (0: use the peer address).
    "NUM_PROXIES": env_int("PODIUM_NUM_PROXIES", 0),
}

# Two caches. "default" holds what must not be lost early: throttle counters, sign-up
# and reset limits, log-in lockouts, recompute marks. "pages" holds what can be made
# again (reader pages, API bodies, chart slices, computed pair results): bulky, and
# anyone can make it grow, so it lives apart, in a Redis of its own where
# PODIUM_PAGE_CACHE_URL names one (compose: an allkeys-lru instance), and its entries can
# never evict a counter. Both go to Redis when it is configured, so that every worker
# process shares them; the embedded default keeps them in process memory. The Redis
# caches fail open (config/cache.py): with Redis down, pages and the API are served
# uncached (and unthrottled), and Redis is tried again every few seconds.
CACHE_URL = env_str("PODIUM_CACHE_URL", env_str("REDIS_URL", ""))
PAGE_CACHE_URL = env_str("PODIUM_PAGE_CACHE_URL", "") or CACHE_URL


def _redis_cache(location: str) -> dict[str, Any]:
    return {
        "BACKEND": "config.cache.FailOpenRedisCache",
        "LOCATION": location,
        "KEY_PREFIX": env_str("PODIUM_CACHE_PREFIX", "podium"),
        "OPTIONS": {
            "socket_connect_timeout": 1,
            "socket_timeout": 1,
            "retry_seconds": env_int("PODIUM_CACHE_RETRY_SECONDS", 5),
        },
    }


_LOCAL_CACHE = "django.core.cache.backends.locmem.LocMemCache"
CACHES = {
    "default": _redis_cache(CACHE_URL) if CACHE_URL else {"BACKEND": _LOCAL_CACHE},
    "pages": (
        _redis_cache(PAGE_CACHE_URL)
        if PAGE_CACHE_URL
        else {"BACKEND": _LOCAL_CACHE, "LOCATION": "pages"}
    ),
}

# Sessions: stored in the database (durable: a Redis restart signs nobody out), read
# through the page cache's Redis where one is configured (Django's cached_db engine), so
# that a signed-in reader's page needs no session query. A cached session is only a copy
# and can be made again, hence the page cache (evicting it costs one query). Each copy
# lives at most SESSION_CACHE_SECONDS: a sign-out whose cache delete is lost (Redis
# unreachable: the cache fails open) or raced by a concurrent first read of the same
# session outlives itself by at most that long (the browser's cookie is gone at once).
# A pending upload (the web form's preview: the file compressed, up to 5 MB) is session
# data too, so its copy also sits in that Redis for up to SESSION_CACHE_SECONDS.
# Without Redis the sessions stay in the database alone: a cache in process memory
# would keep a signed-out session alive in every other worker process.
SESSION_CACHE_SECONDS = env_int("PODIUM_SESSION_CACHE_SECONDS", 60)
if PAGE_CACHE_URL:
    SESSION_ENGINE = "config.sessions"  # cached_db, and a key with no session remembered
    SESSION_CACHE_ALIAS = "sessions"
    CACHES["sessions"] = _redis_cache(PAGE_CACHE_URL)
    CACHES["sessions"]["OPTIONS"]["max_timeout"] = SESSION_CACHE_SECONDS

SPECTACULAR_SETTINGS = {
    "TITLE": "Podium API",
    "DESCRIPTION": "Benchmarks, submissions and computed results of the Podium leaderboard.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": "/api/",
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "leaderboard.api.examples.examples_fill",
        "leaderboard.api.schema.responses_complete",
        "leaderboard.api.schema.parameters_complete",
        "leaderboard.api.schema_descriptions.descriptions_complete",
    ],
    "ENUM_NAME_OVERRIDES": {
        "SubmissionStatusEnum": "leaderboard.models.Submission.Status",
        "SnapshotStatusEnum": "estimation.models.ResultSnapshot.Status",
    },
}

# Upload limits. A results file may be up to PODIUM_MAX_UPLOAD_BYTES (413 beyond) and
# PODIUM_MAX_UPLOAD_ROWS data rows (400 beyond, also the cap on scores in one JSON
# submission); other request bodies, JSON included, up to DATA_UPLOAD_MAX_MEMORY_SIZE.
# Uploaded files over FILE_UPLOAD_MAX_MEMORY_SIZE are spooled to disk while parsing.
PODIUM_MAX_UPLOAD_BYTES = env_int("PODIUM_MAX_UPLOAD_BYTES", 100 * 1024 * 1024)
PODIUM_MAX_UPLOAD_ROWS = env_int("PODIUM_MAX_UPLOAD_ROWS", 1_000_000)
# A results file over PODIUM_BACKGROUND_UPLOAD_BYTES is stored and processed by a worker
# (202 + a job to poll), so no request runs near a server timeout; 0 sends every file
# there. PODIUM_UPLOAD_TIME_LIMIT bounds one job, in seconds.
PODIUM_BACKGROUND_UPLOAD_BYTES = env_int("PODIUM_BACKGROUND_UPLOAD_BYTES", 4 * 1024 * 1024)
# A zip of another tool's files counts by what it unpacks to, and a background job reads
# at most PODIUM_MAX_BACKGROUND_UPLOAD_ROWS results (leaderboard.uploads.upload_limits).
PODIUM_MAX_BACKGROUND_UPLOAD_ROWS = env_int("PODIUM_MAX_BACKGROUND_UPLOAD_ROWS", 2_000_000)
# A CSV that is read whole before parsing (one row per model, turned into long rows:
# leaderboard/ingest/results_csv/sheets.py) holds ~45 bytes of Python per byte of the file
# while it is tidied, so it may be at most this large (the command line reads any size; a
# pandas index column and NaN cells are read row by row, at any size).
PODIUM_MAX_TIDY_UPLOAD_BYTES = env_int("PODIUM_MAX_TIDY_UPLOAD_BYTES", 4 * 1024 * 1024)
PODIUM_UPLOAD_TIME_LIMIT = env_int("PODIUM_UPLOAD_TIME_LIMIT", 900)
# A queued upload no worker took after this many seconds is queued again by the sweep
# (leaderboard.uploads.upload_jobs_sweep), and failed with a reason after the time limit.
PODIUM_UPLOAD_QUEUE_SECONDS = env_int("PODIUM_UPLOAD_QUEUE_SECONDS", 120)
PODIUM_API_MAX_PROBLEMS = env_int("PODIUM_API_MAX_PROBLEMS", 100)
# Quotas (leaderboard/quotas.py): benchmarks an account may maintain when it creates
# one (staff exempt) and background upload jobs it may have waiting at once; 0 turns a
# quota off. A change of analysis settings while a recompute of the benchmark is
# queued queues no other (estimation/recompute/coalesce.py) for up to
# PODIUM_RECOMPUTE_COALESCE_SECONDS, after which the stale sweep takes over (the bound
# on how long a queued task the broker lost holds back its benchmark's recomputes).
PODIUM_MAX_BENCHMARKS_PER_ACCOUNT = env_int("PODIUM_MAX_BENCHMARKS_PER_ACCOUNT", 10)
PODIUM_MAX_PENDING_UPLOADS_PER_ACCOUNT = env_int("PODIUM_MAX_PENDING_UPLOADS_PER_ACCOUNT", 2)
PODIUM_RECOMPUTE_COALESCE_SECONDS = env_int("PODIUM_RECOMPUTE_COALESCE_SECONDS", 300)
# A JSON submission (.../submissions/create/) is checked score by score within the
# request: over PODIUM_MAX_JSON_SUBMISSION_BYTES or PODIUM_MAX_JSON_SCORES scores it is
# a 413 that names the limit and points to the results-file upload (which goes to the
# background above PODIUM_BACKGROUND_UPLOAD_BYTES), so no JSON body holds a web worker
# for long (issue 26: 19.7 MiB of JSON ran 165 s until gunicorn killed the worker).
PODIUM_MAX_JSON_SUBMISSION_BYTES = env_int("PODIUM_MAX_JSON_SUBMISSION_BYTES", 1024 * 1024)
PODIUM_MAX_JSON_SCORES = env_int("PODIUM_MAX_JSON_SCORES", 20_000)
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("PODIUM_MAX_BODY_BYTES", 20 * 1024 * 1024)
FILE_UPLOAD_MAX_MEMORY_SIZE = 2_621_440  # Django's default, stated: larger files go to disk

# Analysis settings that cost server time on every recompute: a maintainer may not set
# more bootstrap replicates than this (the model's own ceiling is 100,000). Evaluation
# folds and repeats are fixed by the engine (10 x 5), not set per benchmark.
PODIUM_MAX_BOOTSTRAP = env_int("PODIUM_MAX_BOOTSTRAP", 2000)

# Celery. With no broker configured, tasks run in-process (the embedded default);
# with REDIS_URL / CELERY_BROKER_URL set, they go to Redis and any number of workers.
REDIS_URL = env_str("REDIS_URL", "")
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", REDIS_URL)
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
if CELERY_TASK_ALWAYS_EAGER:
    CELERY_BROKER_URL = "memory://localhost/"
CELERY_RESULT_BACKEND = None
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_QUEUE", "podium")
# Fairness (config/queues.py, estimation/recompute/lanes.py): uploads and an account's recomputes
# beyond PODIUM_INTERACTIVE_RECOMPUTES_PER_ACCOUNT queued or running go to the bulk queue
# (default: the default queue's name + "-bulk"), which has workers of its own; 0 puts
# every recompute on the default queue. Keep it below the default queue's process count.
PODIUM_BULK_QUEUE = env_str("CELERY_BULK_QUEUE", "")
PODIUM_INTERACTIVE_RECOMPUTES_PER_ACCOUNT = env_int("PODIUM_INTERACTIVE_RECOMPUTES_PER_ACCOUNT", 1)
# A worker consuming only the bulk queue runs this much nicer (0: as the others).
PODIUM_BULK_WORKER_NICE = env_int("PODIUM_BULK_WORKER_NICE", 10)
CELERY_TASK_ROUTES = ("config.queues.route_task",)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Fail fast when Redis is down at submission time; the score is already saved and the
# periodic sweep (or the next change) recomputes once the broker is back.
CELERY_BROKER_TRANSPORT_OPTIONS = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2}
# Without a broker, a recompute runs in a background thread of the server process
# (estimation/recompute/background.py) rather than inside the request that asked for it.
RECOMPUTE_IN_THREAD = env_bool("PODIUM_RECOMPUTE_IN_THREAD", CELERY_TASK_ALWAYS_EAGER)
RECOMPUTE_TIME_LIMIT = env_int("PODIUM_RECOMPUTE_TIME_LIMIT", 600)
# A run holds a per-benchmark lease that a heartbeat thread renews every third of it,
# whatever the analysis is doing; a dead worker's lease expires after this long and the
# beat sweep (every RECOMPUTE_SWEEP_SECONDS) hands the benchmark to a live worker.
RECOMPUTE_LEASE_SECONDS = env_int("PODIUM_RECOMPUTE_LEASE_SECONDS", 15)
RECOMPUTE_SWEEP_SECONDS = env_int("PODIUM_RECOMPUTE_SWEEP_SECONDS", 10)
# A run that cannot read or store a metric is retried after RETRY_BASE seconds, doubled
# after each further failure up to RETRY_MAX (a new change retries at once).
RECOMPUTE_RETRY_BASE_SECONDS = env_int("PODIUM_RECOMPUTE_RETRY_BASE_SECONDS", 30)
RECOMPUTE_RETRY_MAX_SECONDS = env_int("PODIUM_RECOMPUTE_RETRY_MAX_SECONDS", 3600)
# A task that loses the database retries itself after BACKOFF seconds, doubled up to
# BACKOFF_MAX, TASK_RETRIES times: 5 + 10 + 20 + 40 + 4 x 60 = 315 s by default, so an
# outage of a few minutes costs no recompute (estimation.tasks.retry_budget_seconds);
# after that the stale sweep takes the benchmark up again.
RECOMPUTE_TASK_RETRIES = env_int("PODIUM_RECOMPUTE_TASK_RETRIES", 8)
RECOMPUTE_TASK_BACKOFF_SECONDS = env_int("PODIUM_RECOMPUTE_TASK_BACKOFF_SECONDS", 5)
RECOMPUTE_TASK_BACKOFF_MAX_SECONDS = env_int("PODIUM_RECOMPUTE_TASK_BACKOFF_MAX_SECONDS", 60)
# A task computes at most this many passes (each the newest input when it starts), then
# hands the benchmark to a fresh task at the back of its queue when newer input arrived,
# so no recompute holds a worker across a steady stream of submissions.
PODIUM_RECOMPUTE_MAX_PASSES = env_int("PODIUM_RECOMPUTE_MAX_PASSES", 1)
# The stale sweep queues a benchmark again whose queued task has not started after this
# many seconds (its coalescing mark counts as lost: estimation/recompute/coalesce.py).
PODIUM_RECOMPUTE_REQUEUE_SECONDS = env_int("PODIUM_RECOMPUTE_REQUEUE_SECONDS", 30)
# Retention (estimation/recompute/retention.py, docs/operators.md "Retention"): a superseded version that
# was served for less than this and never cited is pruned; failed versions that are no
# longer the newest are pruned after SNAPSHOT_FAILED_KEEP_DAYS.
SNAPSHOT_COALESCE_SECONDS = env_int("PODIUM_SNAPSHOT_COALESCE_SECONDS", 600)
SNAPSHOT_FAILED_KEEP_DAYS = env_int("PODIUM_SNAPSHOT_FAILED_KEEP_DAYS", 7)
# An abandoned version (its worker stopped) stays this long once superseded, so that the
# maintainers' page and the status page can show it happened.
SNAPSHOT_ABANDONED_KEEP_HOURS = env_int("PODIUM_SNAPSHOT_ABANDONED_KEEP_HOURS", 24)
# Unacknowledged tasks (a worker died) are redelivered after this many seconds.
CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] = RECOMPUTE_TIME_LIMIT + 60
# Changes whose enqueue failed (broker down) are swept up by the beat scheduler.
CELERY_BEAT_SCHEDULE = {
    "recompute-stale": {
        "task": "estimation.recompute_stale",
        "schedule": float(RECOMPUTE_SWEEP_SECONDS),
    },
    "prune-snapshots": {
        "task": "estimation.prune_snapshots",
        "schedule": float(env_int("PODIUM_PRUNE_SECONDS", 300)),
    },
    "sweep-uploads": {"task": "leaderboard.sweep_uploads", "schedule": 60.0},
}

# Beat's scheduler records beat's heartbeat (operations/beat.py); workers record theirs
# from a thread (operations/heartbeats.py), every PODIUM_HEARTBEAT_SECONDS (0: never).
# The status page and "Benchmarks I maintain" warn when recomputes are queued and no
# worker was seen for PODIUM_WORKER_SILENT_MINUTES (the status page also for beat).
CELERY_BEAT_SCHEDULER = "operations.beat:HeartbeatScheduler"
PODIUM_HEARTBEAT_SECONDS = env_int("PODIUM_HEARTBEAT_SECONDS", 15)
PODIUM_WORKER_SILENT_MINUTES = env_int("PODIUM_WORKER_SILENT_MINUTES", 2)
# A benchmark whose new input no task has run for this long (or whose version is marked
# computing with no task holding its lease) is "stalled" in the status API, the pages
# and /metrics (estimation.activity.recompute_activities).
PODIUM_RECOMPUTE_STALL_SECONDS = env_int("PODIUM_RECOMPUTE_STALL_SECONDS", 120)
# /metrics (Prometheus) is closed unless one of these is set: a bearer token
# ("Authorization: Bearer <token>"), or the networks a scraper connects from (CIDRs,
# comma-separated; a request a proxy relays never counts as coming from them).
PODIUM_METRICS_TOKEN = env_str("PODIUM_METRICS_TOKEN", "")
PODIUM_METRICS_NETWORKS = env_networks("PODIUM_METRICS_NETWORKS")

# PODIUM_LOG_FORMAT: plain (default) or json (one object per line, config/json_logs.py).
LOG_FORMAT = env_str("PODIUM_LOG_FORMAT", "plain")
if LOG_FORMAT not in ("plain", "json"):
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured(f"PODIUM_LOG_FORMAT must be plain or json; got {LOG_FORMAT!r}")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
        "json": {"()": "config.json_logs.JsonFormatter"},
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT}},
    "root": {"handlers": ["console"], "level": env_str("PODIUM_LOG_LEVEL", "INFO")},
}

# Content-Security-Policy: scripts, style sheets, images, fonts and fetches from our own
# origin only (static files, served by WhiteNoise), no plugins, no framing, forms post
# to us. No 'unsafe-inline' anywhere, not even for style attributes: computed geometry
# goes into SVG attributes instead (the leaderboard's interval bars, the charts' natural
# width), which are not style attributes. Every environment sends it, and a browser test
# visits every page type and fails on any violation (tests/browser/test_csp.py).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

# Accounts: django-allauth (frontend/accounts, docs/operators.md "Sign-in and accounts"). Sign-up
# asks for a username, an address and a password (AUTH_PASSWORD_VALIDATORS: 12
# characters); nobody logs in until the address is confirmed through the mailed link
# (valid PODIUM_EMAIL_VERIFY_DAYS), so mail goes only to addresses their owner proved.
# Sign-up and reset answer the same whether or not an account has the address.
ACCOUNT_LOGIN_METHODS = {"username"}
ACCOUNT_SIGNUP_FIELDS = ["username*", "email*", "password1*", "password2*"]
ACCOUNT_USERNAME_VALIDATORS = "frontend.accounts.validators.USERNAME_VALIDATORS"
ACCOUNT_EMAIL_VERIFICATION = "mandatory"
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_PREVENT_ENUMERATION = True
ACCOUNT_EMAIL_UNKNOWN_ACCOUNTS = False  # no mail to an address nobody proved to read
# Opening the link shows a Confirm button: a mail scanner that follows links must not
# confirm a stranger's sign-up with the address it guards.
ACCOUNT_CONFIRM_EMAIL_ON_GET = False
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
ACCOUNT_EMAIL_CONFIRMATION_EXPIRE_DAYS = env_int("PODIUM_EMAIL_VERIFY_DAYS", 3)
ACCOUNT_EMAIL_SUBJECT_PREFIX = "Podium: "
ACCOUNT_ADAPTER = "frontend.accounts.adapter.AccountAdapter"
ACCOUNT_FORMS = {
    "signup": "frontend.accounts.forms.SignupForm",
    "login": "frontend.accounts.forms.LoginForm",
    "reset_password": "frontend.accounts.forms.ResetPasswordForm",
    "reset_password_from_key": "frontend.accounts.forms.ResetPasswordKeyForm",
    "change_password": "frontend.accounts.forms.ChangePasswordForm",
}


def allauth_rate(name: str, default: str, *, per: str = "ip") -> str | None:
    """The environment's ``N/period`` (as the API throttles take it, e.g. ``5/hour``; more
    than one comma-separated, all applying) in allauth's form (``5/h/ip``), counted per
    ``per`` (ip, user or key); empty turns the limit off."""
    raw = env_str(name, default).strip()
    if not raw:
        return None
    rates = []
    for rate in raw.split(","):
        amount, _, period = rate.strip().partition("/")
        if not amount.isdigit() or period not in ("second", "minute", "hour", "day"):
            from django.core.exceptions import ImproperlyConfigured

            raise ImproperlyConfigured(
                f"{name} must be N/second, N/minute, N/hour or N/day (or empty); got {raw!r}"
            )
        rates.append(f"{int(amount)}/{period[0]}/{per}")
    return ",".join(rates)


def allauth_rates(*rates: str | None) -> str | None:
    """Several limits on one action (allauth applies each)."""
    return ",".join(rate for rate in rates if rate) or None


# Per client address: sign-ups (a refused one counts too) and password-reset requests
# (PODIUM_SIGNUP_RATE, PODIUM_PASSWORD_RESET_RATE); reset mails to one address, from any
# client addresses (PODIUM_PASSWORD_RESET_ACCOUNT_RATE: allauth keys it by the address);
# per account, changes on the e-mail page (each added address is mailed a link:
# PODIUM_MANAGE_EMAIL_RATE), and at most PODIUM_MAX_EMAIL_ADDRESSES addresses. allauth's
# own failed-login limit is off, because it is keyed by the account alone (anyone could
# lock an owner out): django-axes below counts failures by account and address together.
ACCOUNT_RATE_LIMITS: dict[str, str | None] | bool = {
    "signup": allauth_rate("PODIUM_SIGNUP_RATE", "5/hour"),
    "reset_password": allauth_rates(
        allauth_rate("PODIUM_PASSWORD_RESET_RATE", "5/hour"),
        allauth_rate("PODIUM_PASSWORD_RESET_ACCOUNT_RATE", "3/hour", per="key"),
    ),
    "manage_email": allauth_rate("PODIUM_MANAGE_EMAIL_RATE", "5/hour,10/day", per="user"),
    "login_failed": None,
}
ACCOUNT_MAX_EMAIL_ADDRESSES = env_int("PODIUM_MAX_EMAIL_ADDRESSES", 5) or None
# Optional sign-in with GitHub and ORCID: each is offered only when both its client id
# and secret are set (docs/operators.md "Sign-in and accounts"). A provider's account gets its
# address confirmed only when the provider says it verified it (GitHub); any other
# address is mailed a link like a sign-up's. Nobody is logged into an existing account
# by an address a provider reports.
_SIGN_IN_APPS = {
    "github": (env_str("PODIUM_GITHUB_CLIENT_ID", ""), env_str("PODIUM_GITHUB_CLIENT_SECRET", "")),
    "orcid": (env_str("PODIUM_ORCID_CLIENT_ID", ""), env_str("PODIUM_ORCID_CLIENT_SECRET", "")),
}
_SIGN_IN_OPTIONS: dict[str, dict[str, Any]] = {
    "github": {"SCOPE": ["read:user", "user:email"]},
    # sandbox.orcid.org for trying it out.
    "orcid": {"BASE_DOMAIN": env_str("PODIUM_ORCID_DOMAIN", "orcid.org")},
}
SOCIALACCOUNT_PROVIDERS: dict[str, dict[str, Any]] = {
    provider: {"APPS": [{"client_id": client_id, "secret": secret}], **_SIGN_IN_OPTIONS[provider]}
    for provider, (client_id, secret) in _SIGN_IN_APPS.items()
    if client_id and secret
}
SOCIALACCOUNT_EMAIL_REQUIRED = True
SOCIALACCOUNT_EMAIL_AUTHENTICATION = False
SOCIALACCOUNT_EMAIL_AUTHENTICATION_AUTO_CONNECT = False
SOCIALACCOUNT_LOGIN_ON_GET = False  # a POST (with its CSRF token) starts a provider sign-in

# Brute-force protection on every password login (/account/login/ and /admin/; the
# browsable API's /api-auth/login/ only leads to /account/login/): django-axes counts
# failures in the database and refuses further attempts for PODIUM_LOGIN_COOLOFF_MINUTES
# once PODIUM_LOGIN_FAILURE_LIMIT is reached for one account from one client address
# (so a stranger's guesses never lock the owner out from elsewhere), or from one
# address over any accounts (password spraying).
# Reset: `manage.py axes_reset_username NAME`, `axes_reset_ip IP` or `axes_reset`
# (docs/command-line.md).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
AXES_FAILURE_LIMIT = env_int("PODIUM_LOGIN_FAILURE_LIMIT", 10)
# API tokens: the longest life a token may be given, in days, and the one it gets when
# its owner gives none (empty: it lasts until revoked).
PODIUM_API_TOKEN_MAX_DAYS = env_int("PODIUM_API_TOKEN_MAX_DAYS", 3650)
PODIUM_API_TOKEN_DEFAULT_DAYS: int | None = env_int("PODIUM_API_TOKEN_DEFAULT_DAYS", 0) or None
AXES_COOLOFF_TIME = timedelta(minutes=env_int("PODIUM_LOGIN_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]
# A success does not wipe earlier failures: axes would also wipe those of the same
# address, so an attacker could reset the count by logging into an account of their own
# between guesses. Failures expire PODIUM_LOGIN_COOLOFF_MINUTES after the last one.
AXES_RESET_ON_SUCCESS = False
AXES_LOCKOUT_TEMPLATE = "frontend/accounts/locked_out.html"
AXES_HTTP_RESPONSE_CODE = 429
# The client address as the API throttles see it (PODIUM_NUM_PROXIES).
AXES_CLIENT_IP_CALLABLE = "leaderboard.throttling.client_address"
AXES_VERBOSE = False

# Mail to submitters (their submission was accepted or rejected). The embedded default
# prints it on the console; with a broker configured (a real deployment), SMTP.
EMAIL_BACKEND = env_str(
    "DJANGO_EMAIL_BACKEND",
    "django.core.mail.backends.console.EmailBackend"
    if CELERY_TASK_ALWAYS_EAGER
    else "django.core.mail.backends.smtp.EmailBackend",
)
EMAIL_HOST = env_str("DJANGO_EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("DJANGO_EMAIL_PORT", 25)
EMAIL_HOST_USER = env_str("DJANGO_EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("DJANGO_EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("DJANGO_EMAIL_USE_TLS", False)
EMAIL_TIMEOUT = 10
DEFAULT_FROM_EMAIL = env_str("DJANGO_DEFAULT_FROM_EMAIL", "podium@localhost")

# A demo maintainer account made by load_demo: local settings only (config.settings.local).
PODIUM_DEMO_MAINTAINER: dict[str, str] | None = None

# The site's own account pages (frontend/accounts).
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "account-home"
LOGOUT_REDIRECT_URL = "benchmark-index"
