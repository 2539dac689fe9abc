from django.apps import AppConfig


class EstimationConfig(AppConfig):
    name = "estimation"
    verbose_name = "Estimation"

    def ready(self) -> None:
        # Registered with the Celery app at start-up: requests are sent by task name
        # (estimation.requests), in every process, not only in workers.
        from estimation import tasks  # noqa: F401
        from estimation.latest_cache import connect_signals

        connect_signals()
