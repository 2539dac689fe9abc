"""Bad configuration fails with one clear line, not a traceback."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DATABASE_", "REDIS_", "CELERY_"))
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_production_refuses_to_start_without_a_secret_key():
    result = run_manage(
        "check",
        DJANGO_SETTINGS_MODULE="config.settings.production",
        DATABASE_URL="postgres://postgres@127.0.0.1:5432/podium",
    )
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY must be set" in result.stderr
    assert "Traceback" not in result.stderr


def test_unreachable_database_is_reported_in_one_line():
    result = run_manage(
        "migrate",
        DJANGO_SETTINGS_MODULE="config.settings.production",
        DJANGO_SECRET_KEY="x" * 50,
        DATABASE_URL="postgres://postgres@127.0.0.1:1/podium",
    )
    assert result.returncode != 0
    assert "cannot use its database (127.0.0.1:1" in result.stderr
    assert "Traceback" not in result.stderr


def test_malformed_database_url_is_reported():
    result = run_manage(
        "check", DJANGO_SETTINGS_MODULE="config.settings.local", DATABASE_URL="nonsense://x"
    )
    assert result.returncode != 0
    assert "DATABASE_URL" in result.stderr
    assert "Traceback" not in result.stderr


def test_debug_is_off_unless_asked(monkeypatch):
    monkeypatch.delenv("DJANGO_DEBUG", raising=False)
    code = "import config.settings.base as s; print(s.DEBUG)"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert result.stdout.strip() == "False", result.stderr


def test_embedded_default_runs_tasks_in_process():
    code = (
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='config.settings.local'; "
        "django.setup(); from django.conf import settings as s; "
        "print(s.CELERY_TASK_ALWAYS_EAGER, s.DATABASES['default']['ENGINE'])"
    )
    clean = {
        k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_", "REDIS_", "CELERY_"))
    }
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env=clean
    )
    assert result.stdout.split() == ["True", "django.db.backends.sqlite3"], result.stderr
