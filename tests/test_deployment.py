"""No Docker engine runs here, so check the compose file's structure instead."""

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def load_compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_runs_the_services_with_health_checks():
    services = load_compose()["services"]
    assert set(services) == {
        "db", "redis", "cache", "web", "worker", "worker-bulk", "beat", "proxy"
    }  # fmt: skip
    assert services["proxy"]["profiles"] == ["tls"]  # Caddy only with --profile tls
    assert services["proxy"]["image"].startswith("caddy:")
    assert "/health/ready/" in " ".join(services["web"]["healthcheck"]["test"])
    for name in ("db", "redis", "cache", "web", "worker", "worker-bulk"):
        assert "healthcheck" in services[name], name
    assert services["beat"]["command"][:4] == ["celery", "-A", "config", "beat"]
    assert services["db"]["image"].startswith("postgres:")
    assert services["redis"]["image"].startswith("redis:")


def test_the_page_cache_has_a_redis_of_its_own_that_evicts_no_counter():
    compose = load_compose()
    services = compose["services"]
    assert services["web"]["environment"]["PODIUM_PAGE_CACHE_URL"] == "redis://cache:6379/0"
    page_cache = services["cache"]["command"]
    assert page_cache[page_cache.index("--maxmemory-policy") + 1] == "allkeys-lru"
    counters = services["redis"]["command"]
    assert counters[counters.index("--maxmemory-policy") + 1] == "volatile-lru"


def test_stateful_services_keep_their_data_in_volumes():
    compose = load_compose()
    for name in ("db", "redis", "proxy"):
        volume = compose["services"][name]["volumes"][-2 if name == "proxy" else 0].split(":")[0]
        assert volume in compose["volumes"], name


def test_web_and_worker_wait_for_healthy_dependencies_and_use_production_settings():
    services = load_compose()["services"]
    for name in ("web", "worker", "worker-bulk"):
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
    # The workers listen on the queues the settings send tasks to (config/queues.py).
    assert "--queues=podium" in services["worker"]["command"]
    assert "--queues=podium-bulk" in services["worker-bulk"]["command"]


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


def test_gunicorn_config_outlasts_the_largest_upload_and_recycles_workers(monkeypatch, tmp_path):
    """The timeout covers reading PODIUM_MAX_UPLOAD_BYTES at 1 MB/s plus storing it."""
    import runpy

    # The config names a metrics folder in os.environ when none is set; a folder set here
    # is undone after the test, so later tests of this process keep in-process metrics.
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))

    for name in (
        "PODIUM_MAX_UPLOAD_BYTES",
        "GUNICORN_TIMEOUT",
        "GUNICORN_MAX_REQUESTS",
        "GUNICORN_MAX_REQUESTS_JITTER",
        "GUNICORN_PRELOAD",
        "GUNICORN_WORKER_CLASS",
        "GUNICORN_FORWARDED_ALLOW_IPS",
    ):
        monkeypatch.delenv(name, raising=False)
    config = runpy.run_path(str(ROOT / "config" / "gunicorn.py"))
    assert config["timeout"] >= 100 * 1024 * 1024 / 1_000_000 + 30
    assert config["max_requests"] > 0 and 0 < config["max_requests_jitter"] < config["max_requests"]
    monkeypatch.setenv("PODIUM_MAX_UPLOAD_BYTES", str(300 * 1024 * 1024))
    larger = runpy.run_path(str(ROOT / "config" / "gunicorn.py"))
    assert larger["timeout"] > config["timeout"]
    from gunicorn.config import Config

    checked = Config()
    assert config["preload_app"] is True and config["worker_class"] == "sync"
    assert config["forwarded_allow_ips"] == "", "trust no proxy's X-Forwarded-* unless named"
    assert (
        config["max_requests"] >= 5000
        and config["max_requests_jitter"] >= config["max_requests"] // 4
    )
    for name in (
        "bind",
        "preload_app",
        "worker_class",
        "forwarded_allow_ips",
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


# Variables the code reads: env_str("NAME"...) and friends in config and the apps, and
# gunicorn's settings (config/gunicorn.py).
_READ = re.compile(
    r"""(?:env_(?:str|int|bool|list|required)|_int|_bool|allauth_rate|environ\.get|getenv)\(\s*["']([A-Z][A-Z0-9_]+)["']"""
)
# Read by code, but not settings of a deployment: the quick-start snippets' base URL.
NOT_SETTINGS = {"PODIUM_URL"}
SET_BY_COMPOSE = {
    "DJANGO_SETTINGS_MODULE",
    "DATABASE_URL",
    "REDIS_URL",
    "CELERY_BROKER_URL",
    "PODIUM_PAGE_CACHE_URL",
}


def documented_settings_table() -> set[str]:
    operators = (ROOT / "docs" / "operators.md").read_text()
    table = operators.split("\n## Configuration", 1)[1].split("\n\n| variable |", 1)[1]
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    assert len(rows) > 20
    names: set[str] = set()
    for row in rows:
        names |= set(re.findall(r"`([A-Z][A-Z0-9_]+)`", row.split(" | ")[0]))
    return names


def env_example_names() -> set[str]:
    text = (ROOT / ".env.example").read_text()
    return set(re.findall(r"^#? ?([A-Z][A-Z0-9_]+)=", text, re.M))


def test_every_setting_the_code_reads_is_documented_and_in_env_example():
    read = set()
    for folder in ("config", "leaderboard", "estimation", "frontend", "operations"):
        for path in (ROOT / folder).rglob("*.py"):
            read |= set(_READ.findall(path.read_text()))
    read -= NOT_SETTINGS
    assert read, "the pattern found nothing"
    table = documented_settings_table()
    assert read <= table, (
        f"read by the code, missing from docs/operators.md's table: {sorted(read - table)}"
    )
    example = env_example_names()
    assert example == table - SET_BY_COMPOSE, (
        f"in the table, not in .env.example: {sorted(table - SET_BY_COMPOSE - example)}; "
        f"in .env.example, not in the table: {sorted(example - table)}"
    )


def test_compose_passes_the_env_file_to_every_podium_service():
    compose = load_compose()
    table = documented_settings_table()
    for name in ("web", "worker", "worker-bulk", "beat"):
        service = compose["services"][name]
        assert service["env_file"] == [".env"], name
        assert set(service["environment"]) <= table, name
        # workers run one BLAS thread a process unless .env says otherwise
        worker_only = {"OPENBLAS_NUM_THREADS"} if name.startswith("worker") else set()
        assert set(service["environment"]) == SET_BY_COMPOSE | {"DJANGO_SECRET_KEY"} | worker_only
        if worker_only:
            assert service["environment"]["OPENBLAS_NUM_THREADS"] == "${OPENBLAS_NUM_THREADS:-1}"
    text = (ROOT / "docker-compose.yml").read_text()
    interpolated = set(re.findall(r"\$\{([A-Z][A-Z0-9_]+)", text))
    assert interpolated <= table, sorted(interpolated - table)


def test_caddy_proxies_to_web_and_keeps_operators_endpoints_inside():
    caddyfile = (ROOT / "deploy" / "Caddyfile").read_text()
    assert "{$PODIUM_DOMAIN}" in caddyfile
    assert "reverse_proxy web:8000" in caddyfile
    assert re.search(r"@internal path /metrics /health/ready/\s+respond @internal 404", caddyfile)
    compose = load_compose()
    assert "./deploy/Caddyfile:/etc/caddy/Caddyfile:ro" in compose["services"]["proxy"]["volumes"]
    assert compose["services"]["web"]["ports"] == ["${PODIUM_WEB_PORT:-127.0.0.1:8000}:8000"]


def test_operators_page_names_what_an_operator_needs():
    operators = (ROOT / "docs" / "operators.md").read_text()
    production = operators.split("\n## Production with docker-compose", 1)[1]
    for needed in (
        "cp .env.example .env",
        "DJANGO_ALLOWED_HOSTS",
        "DJANGO_CSRF_TRUSTED_ORIGINS",
        "createsuperuser",
        "DJANGO_EMAIL_HOST",
        "PODIUM_LOG_FORMAT=json",
        "--profile tls",
        "## Upgrades",
        "migrate",
        "exactly one",
        "pg_dump -U podium -Fc",
        "pg_restore",
        "/health/ready/",
        "/status/",
        "/metrics",
    ):
        assert needed in production, needed
