from django.apps import AppConfig


class EstimationConfig(AppConfig):
    name = "estimation"
    verbose_name = "Estimation"

    def ready(self) -> None:
        from estimation.latest_cache import connect_signals

        connect_signals()
