"""No importer answers 500 on any file: given a damaged version of a real-shaped upload
(the fixtures, mutated), each reader returns usable results or refuses with a
:class:`ResultsImportError` naming the file and key, never another exception.

The damage is what uploads in the wild carry: a value of another type or out of range
(huge integers, NaN, control characters, lone surrogates), a key deleted or renamed, a
level of nesting added or taken away, a file cut off, a byte flipped, a BOM, a file
missing or renamed; for YAML, XML and CSV the same at the level of their own syntax.
Both ``on_error`` modes read each upload, with a bound on the results now and then.
"Usable" means what is stored next can be: finite values, names and messages UTF-8,
provenance and metadata JSON that PostgreSQL takes.

Hypothesis runs derandomised (the same examples every run), ``MAX_EXAMPLES`` per format;
the crashes it found are pinned by name in test_damaged_values.py.
"""

from __future__ import annotations

import ast
import copy
import csv
import datetime
import io
import json
import math
import re
from pathlib import Path, PurePosixPath
from xml.etree import ElementTree

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leaderboard.ingest import formats
from leaderboard.ingest.formats import IMPORT_FORMATS, ResultsImportError, read_imported
from leaderboard.ingest.formats.files import files_from_path
from tests.ingest.helpers import FIXTURES

# The fixture folders each format reads (test_formats.py, test_source_orders.py, ...).
FOLDERS = {
    "mteb": ("mteb", "mteb-revisions"),
    "lm-eval": ("lm-eval", "lm-eval-0.3", "lm-eval-0.3-neo", "lm-eval-pythia"),
    "hf-leaderboard": ("hf-leaderboard", "hf-leaderboard-v1"),
    "openml": (
        "openml",
        "openml-cc18",
        "openml-cc18-csv",
        "openml-cc18-xml",
        "openml-csv",
        "openml-xml",
    ),
    "helm": ("helm", "helm-lite"),
    "eee": ("eee", "eee-global-mmlu-lite", "eee-helm-lite", "eee-open-llm-v2"),
    "pwc": ("pwc", "pwc-ogb"),
    "lighteval": ("lighteval",),
    "eval-results": ("eval-results", "eval-results-cards"),
}
# Examples per format in CI: the whole module stays well under a minute of CPU.
MAX_EXAMPLES = 200

HUGE_INTEGER = "9" * 5000  # past Python's 4,300-digit limit for reading an integer
_HUGE_MARK = "\x00huge-integer\x00"
# Nesting deeper than Python's recursion limit, and just under it.
DEEP = {
    "\x00deep-lists\x00": "[" * 990 + "1" + "]" * 990,
    "\x00deep-objects\x00": '{"a":' * 990 + "1" + "}" * 990,
    "\x00deeper\x00": "[" * 5000 + "]" * 5000,
}
DEEP_MARKS = tuple(DEEP)


def _upload(folder: str) -> dict[str, bytes]:
    files = files_from_path(FIXTURES / folder)
    if folder == "helm-lite":  # a HELM schema in YAML as well as JSON
        schema = next(v for k, v in files.items() if k.endswith("schema.json"))
        files["schema_lite.yaml"] = yaml.safe_dump(json.loads(schema)).encode()
    return files


UPLOADS = {folder: _upload(folder) for folders in FOLDERS.values() for folder in folders}


# --- values ----------------------------------------------------------------------------

ODD_TEXTS = (
    "",
    " ",
    "0",
    "-1",
    "1e999",
    "NaN",
    "nan",
    "inf",
    "-Infinity",
    "null",
    "None",
    "N/A",
    "-",
    "±",
    "0.5 ± 0.1",
    "0.5 ±",
    "± 0.1",
    "0.5 +/- 0.1",
    "45.3%",
    "1,5",
    "1_000",
    "0x10",
    "٣",
    "½",
    "²",
    "1.²",
    "v1.14.12",
    "\x00",
    "a\nb",
    "\u202emodel",
    "\ufeff",
    "\ud800",
    "a/b",
    "/",
    ":",
    "=",
    ",",
    "model=a,b=c",
    "pretrained=",
    "pretrained=a,pretrained=b",
    "x" * 300,
    "true",
    "test",
    "valid",
    "main_score",
    "acc",
    "../../etc/passwd",
)
ODD_NUMBERS = (
    0,
    -1,
    1,
    2**31,
    2**63,
    -(2**63) - 1,
    10**309,
    -(10**309),
    10**400,
    1e308,
    -0.0,
    5e-324,
)


def _texts() -> st.SearchStrategy[str]:
    # Any code point, surrogates and controls included.
    return st.text(st.characters(codec=None, categories=None), max_size=12) | st.sampled_from(
        ODD_TEXTS
    )


def _leaves(keys: tuple[str, ...]) -> st.SearchStrategy:
    return st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.sampled_from(ODD_NUMBERS),
        st.just(_HUGE_MARK),
        st.floats(),  # NaN and the infinities included
        _texts(),
        st.sampled_from(keys) if keys else _texts(),
    )


def _key_names(keys: tuple[str, ...]) -> st.SearchStrategy[str]:
    """A key the document has, or any text."""
    return st.sampled_from(keys) | _texts() if keys else _texts()


def _values(keys: tuple[str, ...]) -> st.SearchStrategy:
    keys_or_text = _key_names(keys)
    return st.recursive(
        _leaves(keys),
        lambda inner: st.lists(inner, max_size=3)
        | st.dictionaries(keys_or_text, inner, max_size=3),
        max_leaves=6,
    )


# --- documents (JSON and YAML): damage to the structure -----------------------------------


def _paths(doc, limit: int = 20_000) -> list[tuple]:
    """The path (keys and indices) of every node, the root's ``()`` first."""
    found, stack = [], [()]
    while stack and len(found) < limit:
        path = stack.pop()
        found.append(path)
        node = _at(doc, path)
        if isinstance(node, dict):
            stack.extend((*path, k) for k in node)
        elif isinstance(node, list):
            stack.extend((*path, i) for i in range(len(node)))
    return found


def _at(doc, path: tuple):
    for step in path:
        doc = doc[step]
    return doc


def _read_keys() -> frozenset[str]:
    """The keys the readers look up: the short words among their source's strings."""
    found = set()
    for module in Path(formats.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(module.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if re.fullmatch(r"[A-Za-z_][\w.:-]{0,40}", node.value):
                    found.add(node.value)
    return frozenset(found)


READ_KEYS = _read_keys()


def _keys(doc) -> tuple[str, ...]:
    """The document's keys and every key a reader looks up (a renamed key may be one)."""
    keys = {k for p in _paths(doc, 2000) for k in p if isinstance(k, str)}
    return tuple(sorted(keys | READ_KEYS))


def _set(doc, path: tuple, value):
    if not path:
        return value
    _at(doc, path[:-1])[path[-1]] = value
    return doc


OPERATIONS = (
    "replace",
    "replace_with_other_node",
    "delete",
    "rename_key",
    "wrap_in_list",
    "wrap_in_object",
    "unwrap",
    "empty",
    "as_text",
    "duplicate_item",
    "nest_deeply",
)


def _damaged_document(data: st.DataObject, doc):
    doc = copy.deepcopy(doc)
    keys = _keys(doc)
    for _ in range(data.draw(st.integers(1, 4), label="structural damages")):
        paths = _paths(doc)
        path = paths[data.draw(st.integers(0, len(paths) - 1), label="where")]
        node = _at(doc, path)
        operation = data.draw(st.sampled_from(OPERATIONS), label="operation")
        parent = _at(doc, path[:-1]) if path else None
        if operation == "replace":
            doc = _set(doc, path, data.draw(_values(keys), label="value"))
        elif operation == "replace_with_other_node":
            other = paths[data.draw(st.integers(0, len(paths) - 1), label="other")]
            doc = _set(doc, path, copy.deepcopy(_at(doc, other)))
        elif operation == "delete" and parent is not None:
            del parent[path[-1]]
        elif operation == "rename_key" and isinstance(parent, dict):
            new = data.draw(_key_names(keys), label="new key")
            parent[new] = parent.pop(path[-1])
        elif operation == "wrap_in_list":
            doc = _set(doc, path, [node])
        elif operation == "wrap_in_object":
            doc = _set(doc, path, {data.draw(_key_names(keys)): node})
        elif operation == "unwrap" and isinstance(node, (dict, list)) and node:
            children = list(node.values()) if isinstance(node, dict) else node
            doc = _set(doc, path, children[data.draw(st.integers(0, len(children) - 1))])
        elif operation == "empty":
            doc = _set(doc, path, data.draw(st.sampled_from([{}, [], "", None, 0])))
        elif operation == "as_text":
            doc = _set(doc, path, node if isinstance(node, str) else json.dumps(node, default=str))
        elif operation == "duplicate_item" and isinstance(parent, list):
            parent.insert(path[-1], copy.deepcopy(node))
        elif operation == "nest_deeply":  # written out as text (see _json_text)
            doc = _set(doc, path, data.draw(st.sampled_from(DEEP_MARKS)))
    return doc


def _json_text(data: st.DataObject, doc) -> bytes:
    ascii_only = data.draw(st.booleans(), label="ascii JSON")
    text = json.dumps(doc, ensure_ascii=ascii_only, indent=data.draw(st.sampled_from([None, 2])))
    text = text.replace(json.dumps(_HUGE_MARK), HUGE_INTEGER)
    for mark, nested in DEEP.items():
        text = text.replace(json.dumps(mark), nested)
    return text.encode("utf-8", "surrogatepass")


# YAML's own types besides JSON's: dates, binary, sets, a key of a list.
YAML_LEAVES = st.sampled_from(
    [
        datetime.date(2024, 1, 1),
        datetime.datetime(2024, 1, 1, 12, 0),
        b"\x00\xff",
        {1, 2},
        {(1, 2): "x"},
    ]
)


def _yaml_text(data: st.DataObject, doc) -> bytes:
    if data.draw(st.booleans(), label="a YAML type"):
        paths = _paths(doc)
        path = paths[data.draw(st.integers(0, len(paths) - 1))]
        doc = _set(doc, path, data.draw(YAML_LEAVES))
    try:
        text = yaml.dump(doc, Dumper=yaml.Dumper, allow_unicode=data.draw(st.booleans()))
    except (yaml.YAMLError, UnicodeError, ValueError):
        text = yaml.safe_dump(json.loads(json.dumps(doc, default=str)))
    text = text.replace(yaml.safe_dump(_HUGE_MARK).split("\n")[0], HUGE_INTEGER)
    for mark, nested in DEEP.items():
        text = text.replace(yaml.safe_dump(mark).split("\n")[0], nested)
    return text.encode("utf-8", "surrogatepass")


# --- text: damage to the syntax -------------------------------------------------------------

SNIPPETS = {
    "yaml": (
        "*alias",
        "&anchor x",
        "!!python/object:os.system x",
        "!!binary AAEC",
        "!!set {a, b}",
        "!!timestamp 2024-01-01",
        "!!timestamp x",
        "!!bool x",
        "!!int _",
        "!!float _",
        "? [a, b]\n: c",
        "[a, b]: c",
        "{a: 1}: b",
        "\t",
        "---",
        "...",
        "- - - x",
        "key: value: other",
        "'unclosed",
        "2024-01-01",
        ".nan",
        "-.inf",
        "0x1F",
        "0o17",
        "1_000",
        "~",
        "<<: {a: 1}",
        "<<: [1, 2]",
        "%YAML 1.1",
        "!<tag:yaml.org,2002:int> x",
        "9" * 5000,
    ),
    "xml": (
        "<!DOCTYPE x [<!ENTITY e 'entity'>]>",
        "<?xml version='1.0' encoding='klingon'?>",
        "<?xml version='1.0' encoding='utf-32'?>",
        "<?xml version='1.0' encoding='cp1252'?>",
        "&e;",
        "&undefined;",
        "&#0;",
        "&#x110000;",
        "<![CDATA[ ]]>",
        "<?pi x?>",
        "<!-- -->",
        "<oml:value>NaN</oml:value>",
        "<oml:value>1e999</oml:value>",
        "<oml:value></oml:value>",
        "<oml:values>[[0.5]]</oml:values>",
        "<oml:evaluation></oml:evaluation>",
        "</oml:evaluation>",
        "<x xmlns='urn:other'>",
        "9" * 5000,
    ),
    "csv": (
        '"',
        '"unclosed',
        ",",
        ",,,,,,,",
        "\r",
        "\x00",
        "[[0.5, 0.6]]",
        "[[NaN]]",
        "[",
        "{}",
        "9" * 5000,
        "run_id,task_id,flow_name,data_name,function,value,values",
    ),
    "json": (
        "NaN",
        "Infinity",
        "-Infinity",
        "9" * 5000,
        "[" * 3000,
        "{",
        '"\\ud800"',
        '"\\u0000"',
        "//",
    ),
}


def _damaged_text(data: st.DataObject, text: bytes, kind: str) -> bytes:
    for _ in range(data.draw(st.integers(1, 2), label="text damages")):
        n = len(text)
        at = data.draw(st.integers(0, n), label="at")
        operation = data.draw(
            st.sampled_from(
                [
                    "truncate",
                    "flip_byte",
                    "insert_bytes",
                    "insert_snippet",
                    "prepend_snippet",
                    "delete_span",
                    "duplicate_span",
                    "bom",
                    "utf16",
                    "delete_line",
                    "duplicate_line",
                    "indent_line",
                ]
            ),
            label="text operation",
        )
        lines = text.split(b"\n")
        line = data.draw(st.integers(0, len(lines) - 1), label="line")
        if operation == "truncate":
            text = text[:at]
        elif operation == "flip_byte" and at < n:
            flipped = text[at] ^ data.draw(st.integers(1, 255))
            text = text[:at] + bytes([flipped]) + text[at + 1 :]
        elif operation == "insert_bytes":
            inserted = data.draw(
                st.sampled_from([b"\xff", b"\xc3", b"\x00", b"\xef\xbb\xbf", b"\xed\xa0\x80"])
                | st.binary(min_size=1, max_size=4)
            )
            text = text[:at] + inserted + text[at:]
        elif operation == "insert_snippet":
            snippet = data.draw(st.sampled_from(SNIPPETS[kind])).encode()
            text = text[:at] + snippet + text[at:]
        elif operation == "prepend_snippet":
            text = data.draw(st.sampled_from(SNIPPETS[kind])).encode() + text
        elif operation == "delete_span":
            end = data.draw(st.integers(at, min(n, at + 200)))
            text = text[:at] + text[end:]
        elif operation == "duplicate_span":
            end = data.draw(st.integers(at, min(n, at + 200)))
            text = text[:end] + text[at:end] + text[end:]
        elif operation == "bom":
            text = b"\xef\xbb\xbf" + text
        elif operation == "utf16":
            text = text.decode("utf-8", "replace").encode("utf-16")
        elif operation == "delete_line":
            text = b"\n".join(lines[:line] + lines[line + 1 :])
        elif operation == "duplicate_line":
            text = b"\n".join(lines[: line + 1] + lines[line:])
        elif operation == "indent_line":
            lines[line] = data.draw(st.sampled_from([b"  ", b"\t", b"- "])) + lines[line]
            text = b"\n".join(lines)
    return text


# --- XML and CSV: damage to their structure ---------------------------------------------------


def _damaged_xml(data: st.DataObject, root: ElementTree.Element, text: bytes) -> bytes:
    elements = list(root.iter())
    tags = tuple(sorted({e.tag for e in elements}))
    parents = {child: parent for parent in elements for child in parent}
    for _ in range(data.draw(st.integers(1, 3), label="XML damages")):
        element = elements[data.draw(st.integers(0, len(elements) - 1), label="element")]
        operation = data.draw(
            st.sampled_from(["text", "delete", "rename", "duplicate", "add_child", "attribute"])
        )
        parent = parents.get(element)
        if operation == "text":
            element.text = data.draw(_texts() | st.from_regex(r"-?[0-9.e+]{1,8}", fullmatch=True))
        elif operation == "delete" and parent is not None and element in list(parent):
            parent.remove(element)
        elif operation == "rename":
            element.tag = data.draw(
                st.sampled_from(tags) | st.from_regex(r"[a-z]{1,5}", fullmatch=True)
            )
        elif operation == "duplicate" and parent is not None and element in list(parent):
            parent.append(copy.deepcopy(element))
        elif operation == "add_child":
            child = ElementTree.SubElement(element, data.draw(st.sampled_from(tags)))
            child.text = data.draw(_texts())
        elif operation == "attribute":
            element.set(data.draw(st.sampled_from(["id", "name", "value"])), data.draw(_texts()))
    try:
        return ElementTree.tostring(
            root, encoding="utf-8", xml_declaration=data.draw(st.booleans())
        )
    except (ValueError, UnicodeError):
        return text


def _damaged_csv(data: st.DataObject, rows: list[list[str]]) -> bytes:
    rows = rows or [[]]
    for _ in range(data.draw(st.integers(1, 3), label="CSV damages")):
        row = data.draw(st.integers(0, len(rows) - 1), label="row")
        width = max(len(rows[row]), 1)
        column = data.draw(st.integers(0, width - 1), label="column")
        operation = data.draw(
            st.sampled_from(
                [
                    "cell",
                    "cell_json",
                    "drop_column",
                    "drop_cell",
                    "extra_cell",
                    "drop_row",
                    "empty_row",
                    "header_twice",
                    "header_renamed",
                ]
            )
        )
        if operation == "cell" and column < len(rows[row]):
            rows[row][column] = data.draw(_texts())
        elif operation == "cell_json" and column < len(rows[row]):
            value = data.draw(_values(()))
            rows[row][column] = json.dumps(value).replace(json.dumps(_HUGE_MARK), HUGE_INTEGER)
        elif operation == "drop_column":
            rows = [r[:column] + r[column + 1 :] for r in rows]
        elif operation == "drop_cell":
            rows[row] = rows[row][:column] + rows[row][column + 1 :]
        elif operation == "extra_cell":
            rows[row] = [*rows[row], data.draw(_texts())]
        elif operation == "drop_row":
            del rows[row]
            if not rows:
                rows = [[]]
        elif operation == "empty_row":
            rows[row] = []
        elif operation == "header_twice" and column < len(rows[0]):
            rows[0][column] = rows[0][data.draw(st.integers(0, len(rows[0]) - 1))]
        elif operation == "header_renamed" and column < len(rows[0]):
            rows[0][column] = data.draw(_texts())
    out = io.StringIO()
    csv.writer(out).writerows(rows)
    return out.getvalue().encode("utf-8", "surrogatepass")


# --- an upload ---------------------------------------------------------------------------


def _kind(path: str) -> str:
    suffix = PurePosixPath(path).suffix.lower()
    return {".yaml": "yaml", ".yml": "yaml", ".xml": "xml", ".csv": "csv"}.get(suffix, "json")


def _damaged_file(data: st.DataObject, path: str, text: bytes) -> bytes:
    kind = _kind(path)
    if data.draw(st.booleans(), label="structural damage"):
        try:
            if kind == "json":
                return _json_text(data, _damaged_document(data, json.loads(text)))
            if kind == "yaml":
                return _yaml_text(data, _damaged_document(data, yaml.safe_load(text)))
            if kind == "xml":
                return _damaged_xml(data, ElementTree.fromstring(text), text)
            if kind == "csv":
                return _damaged_csv(data, list(csv.reader(io.StringIO(text.decode()))))
        except (ValueError, RecursionError, yaml.YAMLError, ElementTree.ParseError, csv.Error):
            pass  # damaged already (a file renamed, junk): damage its text
    return _damaged_text(data, text, kind)


NEW_NAMES = (
    "results.json",
    "model_meta.json",
    "run_spec.json",
    "stats.json",
    "schema.json",
    "schema.yaml",
    "results_2024-01-01T00-00-00.json",
    "evaluation-tables.json",
    "evaluations.csv",
    "evaluations.xml",
    ".eval_results/x.yaml",
    "a/.eval_results/x.yaml",
    "a/b/.eval_results/x.yml",
    "x.txt",
    "\u00e9/\u00e9.json",
    "a\x00b.json",
    "\u202e.json",
    "tab\t/.eval_results/x.yaml",
)


def _damaged_upload(data: st.DataObject, files: dict[str, bytes]) -> dict[str, bytes]:
    files = dict(files)
    for _ in range(data.draw(st.integers(1, 2), label="files damaged")):
        paths = sorted(files)
        path = data.draw(st.sampled_from(paths), label="file")
        operation = data.draw(
            st.sampled_from(["damage"] * 6 + ["delete", "rename", "copy", "junk"]),
            label="file operation",
        )
        if operation == "damage":
            files[path] = _damaged_file(data, path, files[path])
        elif operation == "delete" and len(files) > 1:
            del files[path]
        elif operation in ("rename", "copy"):
            name = data.draw(st.sampled_from(NEW_NAMES), label="new name")
            new = str(PurePosixPath(path).parent / name) if data.draw(st.booleans()) else name
            files[new] = files[path] if operation == "copy" else files.pop(path)
        elif operation == "junk":
            files[data.draw(st.sampled_from(NEW_NAMES))] = data.draw(st.binary(max_size=40))
    return files


def damaged_upload(data: st.DataObject, format: str) -> dict[str, bytes]:
    """The files of one of ``format``'s fixture folders, damaged."""
    folder = data.draw(st.sampled_from(FOLDERS[format]), label="folder")
    return _damaged_upload(data, UPLOADS[folder])


def reader_options(format: str) -> st.SearchStrategy[dict]:
    """A bound on the results, and the format's own options (READER_OPTIONS)."""
    own = {
        "mteb": st.fixed_dictionaries({"subsets": st.sampled_from(["mean", "datasets"])}),
        "lm-eval": st.fixed_dictionaries({"algorithm": st.sampled_from(["", "m"]) | _texts()}),
        "eval-results": st.fixed_dictionaries({"algorithm": st.sampled_from(["", "m"]) | _texts()}),
    }.get(format, st.just({}))
    bound = st.fixed_dictionaries({"max_results": st.sampled_from([None, None, 1, 3, 1000])})
    return st.tuples(own, bound).map(lambda pair: {**pair[0], **pair[1]})


def _texts_in(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _texts_in(key)
            yield from _texts_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from _texts_in(item)


def read_never_crashes(format: str, files: dict[str, bytes], *, on_error: str, **options):
    """The reader's results, checked usable, or None after a refusal; anything else (a
    500 at the web and API) raises."""
    try:
        imported = read_imported(files, format=format, on_error=on_error, **options)
    except ResultsImportError as exc:
        str(exc).encode("utf-8")  # the message renders, and can be sent
        assert exc.errors
        return None
    parsed = imported.parsed
    n = parsed.n_records
    assert n >= 1
    for column in (parsed.dataset_codes, parsed.algorithm_codes, parsed.values, parsed.folds):
        assert len(column) == n
    assert all(math.isfinite(v) for v in parsed.values.tolist())
    assert all(imported.where(line) for line in parsed.lines.tolist())
    for name in (*parsed.datasets, *parsed.algorithms, *parsed.metrics):
        name.encode("utf-8")
    for metric in parsed.metrics or (None,):
        parsed.to_table(metric=metric)
    for said in (*imported.left_out, *imported.notes):
        assert "\x00" not in str(said)
        str(said).encode("utf-8")
    for values in imported.published.values():  # names are checked where they are stored
        assert all(math.isfinite(v) for v in values.values())
    # What reaches the database's JSON columns, each imported algorithm's provenance and
    # metadata, is JSON PostgreSQL takes: finite numbers, UTF-8, no NUL (the url is
    # checked where it is stored, by url_problem).
    provenance = [imported.provenance.get(name, {}) for name in parsed.algorithms]
    metadata = [{**info.__dict__, "url": ""} for info in imported.algorithms]
    for stored in (provenance, metadata):
        json.dumps(stored, allow_nan=False, ensure_ascii=False).encode("utf-8")
        assert not any("\x00" in text for text in _texts_in(stored))
    return imported


@pytest.mark.parametrize("format", IMPORT_FORMATS)
@settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_a_damaged_upload_is_read_or_refused_never_a_crash(format, data):
    files = damaged_upload(data, format)
    options = data.draw(reader_options(format), label="options")
    for on_error in ("refuse", "skip"):
        read_never_crashes(format, files, on_error=on_error, **options)
