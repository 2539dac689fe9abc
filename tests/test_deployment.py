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
    assert "gunicorn -c config/gunicorn.py config.wsgi:application" in services["web"]["command"]
    assert services["worker"]["command"][:4] == ["celery", "-A", "config", "worker"]
    # The worker listens on the queue the settings send tasks to.
    assert "--queues=podium" in services["worker"]["command"]


def test_dockerfile_installs_pinned_requirements_and_runs_gunicorn():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11", dockerfile, re.M)
    assert "pip install --no-cache-dir -r requirements.txt" in dockerfile
    assert "collectstatic" in dockerfile
    assert "USER podium" in dockerfile
    assert 'CMD ["gunicorn", "-c", "config/gunicorn.py", "config.wsgi:application"]' in dockerfile
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            assert "==" in line, f"unpinned requirement: {line}"


def test_gunicorn_config_outlasts_the_largest_upload_and_recycles_workers(monkeypatch):
    """The timeout covers reading PODIUM_MAX_UPLOAD_BYTES at 1 MB/s plus storing it."""
    import runpy

    for name in ("PODIUM_MAX_UPLOAD_BYTES", "GUNICORN_TIMEOUT", "GUNICORN_MAX_REQUESTS"):
        monkeypatch.delenv(name, raising=False)
    config = runpy.run_path(str(ROOT / "config" / "gunicorn.py"))
    assert config["timeout"] >= 100 * 1024 * 1024 / 1_000_000 + 30
    assert config["max_requests"] > 0 and 0 < config["max_requests_jitter"] < config["max_requests"]
    monkeypatch.setenv("PODIUM_MAX_UPLOAD_BYTES", str(300 * 1024 * 1024))
    larger = runpy.run_path(str(ROOT / "config" / "gunicorn.py"))
    assert larger["timeout"] > config["timeout"]
    from gunicorn.config import Config

    checked = Config()
    for name in (
        "bind",
        "workers",
        "timeout",
        "graceful_timeout",
        "max_requests",
        "max_requests_jitter",
        "limit_request_line",
        "worker_tmp_dir",
        "accesslog",
        "preload_app",
    ):
        checked.set(name, config[name])  # gunicorn's own validation of each value


def test_gunicorn_passes_request_lines_up_to_its_maximum_to_podium(tmp_path):
    """With config/gunicorn.py, a request line of 8000 bytes (a long ?algorithms=) reaches
    Django, which answers in the API's envelope; past 8190 gunicorn refuses it itself."""
    import os
    import socket
    import subprocess
    import sys
    import time
    import urllib.error
    import urllib.request

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "GUNICORN_BIND": f"127.0.0.1:{port}",
        "GUNICORN_WORKERS": "1",
        "GUNICORN_ACCESSLOG": str(tmp_path / "access.log"),
    }
    gunicorn = Path(sys.executable).parent / "gunicorn"
    server = subprocess.Popen(
        [str(gunicorn), "-c", "config/gunicorn.py", "config.wsgi:application"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

    def get(query_length: int) -> tuple[int, str]:
        path = "/api/nothing/?algorithms=" + "a" * query_length
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
                return r.status, r.headers["Content-Type"]
        except urllib.error.HTTPError as error:
            return error.code, error.headers["Content-Type"]

    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                get(1)
                break
            except urllib.error.URLError:
                assert time.monotonic() < deadline and server.poll() is None, "no gunicorn"
                time.sleep(0.2)
        # "GET " + path + " HTTP/1.1": 8000 bytes of query is a line of about 8040.
        assert get(8000) == (404, "application/json")
        status, content_type = get(8200)
        assert status == 400 and content_type.startswith("text/html")
    finally:
        server.terminate()
        server.wait(timeout=30)
