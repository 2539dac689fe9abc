from django.apps import AppConfig


class EstimationConfig(AppConfig):
    name = "estimation"
    verbose_name = "Estimation"
