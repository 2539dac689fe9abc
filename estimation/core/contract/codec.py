"""JSON to and from the contract's frozen dataclasses, checked field by field."""

from __future__ import annotations

import sys
import types
import typing
from dataclasses import MISSING, fields, is_dataclass
from functools import cache
from typing import Any, Literal, TypeGuard

from estimation.core.contract.basics import NotApplicable

# --- JSON <-> dataclasses -------------------------------------------------------------------

_PRIMITIVES = (str, int, float, bool)


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls, vars(sys.modules[cls.__module__]))


def _is_dataclass_type(tp: Any) -> TypeGuard[type]:
    return isinstance(tp, type) and is_dataclass(tp)


def _is_union(tp: Any) -> bool:
    return typing.get_origin(tp) in (typing.Union, types.UnionType)


def to_json(value: Any) -> Any:
    """Plain JSON (dicts, lists, str, numbers, bools, None) of a contract object."""
    if isinstance(value, NotApplicable):
        return {"not_applicable": value.reason}
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, (tuple, list)):
        if not value or isinstance(value[0], (*_PRIMITIVES, type(None))):
            if all(v is None or isinstance(v, _PRIMITIVES) for v in value):
                return list(value)
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    return value


def _is_flat_sequence(tp: Any) -> bool:
    """tuple[<primitive or primitive | None>, ...]: converted with one tuple() call."""
    if typing.get_origin(tp) is not tuple:
        return False
    args = typing.get_args(tp)
    if len(args) != 2 or args[1] is not Ellipsis:
        return False
    item = args[0]
    if item in _PRIMITIVES:
        return True
    return _is_union(item) and all(a in (*_PRIMITIVES, type(None)) for a in typing.get_args(item))


def from_json(tp: Any, data: Any) -> Any:
    """The contract object of type ``tp`` from its JSON; a ``ValueError`` says where the
    data do not fit."""
    return _from_json(tp, data, "$")


def _from_json(tp: Any, data: Any, path: str) -> Any:
    if tp is Any:
        return data
    if _is_union(tp):
        args = typing.get_args(tp)
        if data is None:
            if type(None) in args:
                return None
            raise ValueError(f"{path}: null is not allowed here")
        if isinstance(data, dict) and "not_applicable" in data and NotApplicable in args:
            return NotApplicable(str(data["not_applicable"]))
        others = [a for a in args if a not in (type(None), NotApplicable)]
        if len(others) == 1:
            return _from_json(others[0], data, path)
        if all(a in _PRIMITIVES for a in others):
            return data
        raise TypeError(f"{path}: ambiguous union {tp}")
    origin = typing.get_origin(tp)
    if origin is Literal:
        if data not in typing.get_args(tp):
            raise ValueError(f"{path}: {data!r} is not one of {list(typing.get_args(tp))}")
        return data
    if origin is tuple:
        if not isinstance(data, list):
            raise ValueError(f"{path}: expected a list")
        if _is_flat_sequence(tp):
            if _float_items(tp):
                return tuple(float(v) if type(v) is int else v for v in data)
            return tuple(data)
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_from_json(args[0], v, f"{path}[{k}]") for k, v in enumerate(data))
        return tuple(
            _from_json(a, v, f"{path}[{k}]")
            for k, (a, v) in enumerate(zip(args, data, strict=True))
        )
    if origin is dict:
        if not isinstance(data, dict):
            raise ValueError(f"{path}: expected an object")
        value_type = typing.get_args(tp)[1]
        return {k: _from_json(value_type, v, f"{path}.{k}") for k, v in data.items()}
    if _is_dataclass_type(tp):
        if not isinstance(data, dict):
            raise ValueError(f"{path}: expected an object for {tp.__name__}")
        hints = _hints(tp)
        kwargs = {}
        for f in fields(tp):
            if f.name in data:
                kwargs[f.name] = _from_json(hints[f.name], data[f.name], f"{path}.{f.name}")
            elif f.default is MISSING:
                raise ValueError(f"{path}: {tp.__name__} needs {f.name!r}")
        return tp(**kwargs)
    if tp is float:
        if not isinstance(data, (int, float)) or isinstance(data, bool):
            raise ValueError(f"{path}: expected a number")
        return float(data)
    if tp in (str, int, bool):
        if not isinstance(data, tp) or (tp is int and isinstance(data, bool)):
            raise ValueError(f"{path}: expected {tp.__name__}")
        return data
    raise TypeError(f"{path}: unsupported type {tp!r}")


@cache
def _float_items(tp: Any) -> bool:
    item = typing.get_args(tp)[0]
    return item is float or (_is_union(item) and float in typing.get_args(item))
