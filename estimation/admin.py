from django.contrib import admin

from estimation.models import ResultSnapshot


@admin.register(ResultSnapshot)
class ResultSnapshotAdmin(admin.ModelAdmin):
    list_display = ["benchmark", "metric", "version", "status", "finished_at"]
    list_filter = ["status", "benchmark"]
