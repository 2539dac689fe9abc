"""No Docker engine runs here, so check the compose file's structure instead."""

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def load_compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_runs_the_services_with_health_checks():
    services = load_compose()["services"]
    assert set(services) == {"db", "redis", "web", "worker", "beat"}
    for name in ("db", "redis", "web", "worker"):
        assert "healthcheck" in services[name], name
    assert services["beat"]["command"][:4] == ["celery", "-A", "config", "beat"]
    assert services["db"]["image"].startswith("postgres:")
    assert services["redis"]["image"].startswith("redis:")


def test_stateful_services_keep_their_data_in_volumes():
    compose = load_compose()
    for name in ("db", "redis"):
        volume = compose["services"][name]["volumes"][0].split(":")[0]
        assert volume in compose["volumes"], name


def test_web_and_worker_wait_for_healthy_dependencies_and_use_production_settings():
    services = load_compose()["services"]
    for name in ("web", "worker"):
        service = services[name]
        assert service["depends_on"]["db"]["condition"] == "service_healthy"
        assert service["depends_on"]["redis"]["condition"] == "service_healthy"
        env = service["environment"]
        assert env["DJANGO_SETTINGS_MODULE"] == "config.settings.production"
        assert env["DATABASE_URL"].startswith("postgres://") and "@db:5432/" in env["DATABASE_URL"]
        assert env["REDIS_URL"].startswith("redis://redis:6379")
        assert "?" in env["DJANGO_SECRET_KEY"], "the secret must be required, not defaulted"
    assert "gunicorn config.wsgi:application" in services["web"]["command"]
    assert services["worker"]["command"][:4] == ["celery", "-A", "config", "worker"]
    # The worker listens on the queue the settings send tasks to.
    assert "--queues=podium" in services["worker"]["command"]


def test_dockerfile_installs_pinned_requirements_and_runs_gunicorn():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11", dockerfile, re.M)
    assert "pip install --no-cache-dir -r requirements.txt" in dockerfile
    assert "collectstatic" in dockerfile
    assert "USER podium" in dockerfile
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            assert "==" in line, f"unpinned requirement: {line}"
