"""YAML as the importers read it: the safe subset, without anchors' aliases.

A few lines of aliases expand to gigabytes (the "billion laughs"), and PyYAML's safe
loader still expands them; no results file needs them.
"""

from __future__ import annotations

from typing import Any

import yaml


class _NoAliases(yaml.SafeLoader):
    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            raise yaml.YAMLError("aliases (*name) are not read")
        return super().compose_node(parent, index)

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        # PyYAML's constructors of an explicit tag assume its value has the tag's form:
        # "!!bool x" is a KeyError, "!!int _" an IndexError, "!!timestamp x" an
        # AttributeError. Each is a value that cannot be read, said as one.
        try:
            return super().construct_object(node, deep=deep)
        except (AttributeError, IndexError, KeyError, TypeError):
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"{str(node.value)[:40]!r} cannot be read as {node.tag}",
                node.start_mark,
            ) from None


class UnreadableYaml(ValueError):
    """Why a file is not YAML Podium reads (a short reason, for the reader)."""


def load_yaml(data: bytes) -> Any:
    """The document in ``data``, or :class:`UnreadableYaml` saying why not."""
    try:
        return yaml.load(data.decode("utf-8-sig"), Loader=_NoAliases)
    except UnicodeDecodeError as exc:
        raise UnreadableYaml(f"is not UTF-8 text (byte {exc.start})") from None
    except RecursionError:
        raise UnreadableYaml("is nested too deeply") from None
    except yaml.YAMLError as exc:
        raise UnreadableYaml(f"is not valid YAML: {str(exc)[:200]}") from None
    except ValueError as exc:  # an integer of more digits than Python converts
        raise UnreadableYaml(f"holds a value Python cannot read: {str(exc)[:120]}") from None
