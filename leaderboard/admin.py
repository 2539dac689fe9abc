from django.contrib import admin

from leaderboard.models import Algorithm, Benchmark, Dataset, Metric, Score, Submission

admin.site.register([Benchmark, Metric, Algorithm, Dataset, Score])


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = ["benchmark", "algorithm", "status", "created_at"]
    list_filter = ["status", "benchmark"]
