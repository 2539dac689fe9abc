"""/api/docs/: a reference page built from the OpenAPI schema, with no JavaScript.

Swagger UI and Redoc load their code from a CDN (drf-spectacular-sidecar, which bundles
it, is not a dependency), and a CDN may be unreachable; this page needs nothing but the
server. The schema itself is at /api/schema/ for tools, and every endpoint can also be
tried in DRF's browsable API by opening its URL in a browser.
"""

from __future__ import annotations

import json

from django.http import HttpResponse
from django.template import Context, Engine
from django.templatetags.static import static
from django.urls import reverse
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.renderers import StaticHTMLRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from common.rest import ApiView
from leaderboard.api.quickstart import quickstart

METHODS = ("get", "post", "put", "patch", "delete")

TEMPLATE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>{{ info.title }} reference</title>
<link rel="stylesheet" href="{{ stylesheet }}"></head><body>
<h1>{{ info.title }} <small>{{ info.version }}</small></h1>
<p>{{ info.description }}</p>
<nav><a href="#quick-start">Quick start</a> <a href="#reference">Reference</a>
<a href="{{ schema_url }}">OpenAPI schema (YAML)</a>
<a href="{{ schema_url }}?format=json">(JSON)</a>
<a href="/api/contract/">Snapshot contract (every field: meaning, units, when null)</a>
<a href="/api/contract/snapshot.schema.json">Snapshot JSON Schema</a></nav>
<section id="quick-start" data-testid="quick-start">
<h2>Quick start</h2>
{% for step in quickstart %}<h3>{{ step.title }}</h3>
<p>{{ step.text }}</p>
{% for snippet in step.snippets %}<pre data-example="{{ snippet.key }}" data-language="{{ snippet.language }}"><code>{{ snippet.code }}</code></pre>
{% endfor %}{% endfor %}
</section>
<h2 id="reference">Reference</h2>
<p>Authentication: the web session, or <code>Authorization: Token &lt;token&gt;</code>.
Errors are <code>{"detail": ..., "problems": [{"line", "field", "message"}]}</code>.</p>
{% for op in operations %}<div class="op" id="{{ op.id }}">
<div><span class="m {{ op.method }}">{{ op.method }}</span> <code>{{ op.path }}</code>
&nbsp; {{ op.summary }}</div>
{% if op.description %}<p>{{ op.description }}</p>{% endif %}
{% if op.parameters %}<table><tr><th>parameter</th><th>in</th><th></th></tr>
{% for p in op.parameters %}<tr><td><code>{{ p.name }}</code>{% if p.required %} *{% endif %}</td>
<td>{{ p.in }}</td><td>{{ p.description }}</td></tr>{% endfor %}</table>{% endif %}
{% if op.request %}<div>Request: {% for r in op.request %}<code>{{ r }}</code> {% endfor %}</div>{% endif %}
{% for example in op.examples %}<details class="example"><summary>{{ example.kind }} example: {{ example.summary }}</summary>
<pre>{{ example.value }}</pre></details>{% endfor %}
<div>Responses: {% for code, what in op.responses %}<code>{{ code }}</code> {{ what }}{% if not forloop.last %}; {% endif %}{% endfor %}</div>
</div>{% endfor %}
<h2>Schemas</h2>
{% for name, fields in components %}<h3 id="{{ name }}">{{ name }}</h3>
<table>{% for f in fields %}<tr><td><code>{{ f.name }}</code>{% if f.required %} *{% endif %}</td>
<td>{{ f.type }}</td><td>{{ f.description }}</td></tr>{% endfor %}</table>{% endfor %}
</body></html>"""


def _ref_name(schema: dict) -> str:
    if "$ref" in schema:
        return schema["$ref"].rsplit("/", 1)[-1]
    if schema.get("type") == "array":
        return f"[{_ref_name(schema.get('items', {}))}]"
    if "allOf" in schema:
        return " & ".join(_ref_name(s) for s in schema["allOf"])
    if "oneOf" in schema:
        return " | ".join(_ref_name(s) for s in schema["oneOf"])
    kind = schema.get("type", "object")
    if "enum" in schema:
        kind += " (" + ", ".join(str(v) for v in schema["enum"]) + ")"
    return kind + (f" {schema['format']}" if "format" in schema else "")


def _shown(example: dict) -> str:
    value = example.get("value")
    return value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)


def _context(schema: dict, schema_url: str) -> dict:
    operations = []
    for path, item in schema.get("paths", {}).items():
        for method in METHODS:
            op = item.get(method)
            if op is None:
                continue
            request = [
                f"{media}: {_ref_name(body.get('schema', {}))}"
                for media, body in op.get("requestBody", {}).get("content", {}).items()
            ]
            responses = []
            for code, response in op.get("responses", {}).items():
                content = response.get("content", {})
                what = ", ".join(_ref_name(c.get("schema", {})) for c in content.values())
                responses.append((code, what or response.get("description", "")))
            examples = [
                {
                    "kind": "Request",
                    "summary": example.get("summary", name),
                    "value": _shown(example),
                }
                for body in op.get("requestBody", {}).get("content", {}).values()
                for name, example in body.get("examples", {}).items()
            ]
            examples += [
                {
                    "kind": f"Response {code}",
                    "summary": example.get("summary", name),
                    "value": _shown(example),
                }
                for code, response in op.get("responses", {}).items()
                for content in response.get("content", {}).values()
                for name, example in content.get("examples", {}).items()
            ]
            operations.append(
                {
                    "examples": examples,
                    "id": op.get("operationId", ""),
                    "method": method,
                    "path": path,
                    "summary": op.get("summary", ""),
                    "description": op.get("description", ""),
                    "parameters": op.get("parameters", []),
                    "request": request,
                    "responses": responses,
                }
            )
    components = []
    for name, component in schema.get("components", {}).get("schemas", {}).items():
        required = set(component.get("required", []))
        fields = [
            {
                "name": field,
                "required": field in required,
                "type": _ref_name(spec),
                "description": spec.get("description", ""),
            }
            for field, spec in component.get("properties", {}).items()
        ]
        components.append((name, fields))
    return {
        "quickstart": [],
        "info": schema.get("info", {}),
        "schema_url": schema_url,
        "operations": operations,
        "components": components,
    }


class ApiDocsView(ApiView):
    permission_classes = [AllowAny]
    renderer_classes = [StaticHTMLRenderer]

    @extend_schema(exclude=True)
    def get(self, request: Request) -> HttpResponse:
        schema = SchemaGenerator().get_schema(request=request, public=True)
        context = _context(schema, "/api/schema/")
        context["quickstart"] = quickstart(request.build_absolute_uri("/").rstrip("/"))
        # A linked file: the Content-Security-Policy refuses inline <style> (style-src 'self').
        context["stylesheet"] = static("leaderboard/api-docs.css")
        html = Engine().from_string(TEMPLATE).render(Context(context))
        return HttpResponse(html, content_type="text/html; charset=utf-8")


class ApiRootApi(ApiView):
    """/api/: where a client (or a person who typed the address) finds the rest."""

    permission_classes = [AllowAny]

    class OutputSerializer(serializers.Serializer):
        benchmarks = serializers.URLField(help_text="the benchmarks you can read")
        docs = serializers.URLField(help_text="the reference, with a quick start")
        schema = serializers.URLField(help_text="the OpenAPI schema (YAML; ?format=json)")
        contract = serializers.URLField(help_text="what each field of a snapshot means")

    @extend_schema(
        summary="Where to start",
        description="Links to the benchmark list, the reference, the OpenAPI schema and "
        "the snapshot contract.",
        responses={200: OutputSerializer},
    )
    def get(self, request: Request) -> Response:
        links = {
            "benchmarks": reverse("api-benchmark-list"),
            "docs": reverse("api-docs"),
            "schema": reverse("api-schema"),
            "contract": reverse("api-snapshot-contract"),
        }
        absolute = {name: request.build_absolute_uri(path) for name, path in links.items()}
        return Response(self.OutputSerializer(absolute).data)
