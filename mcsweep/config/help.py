"""`python -m mcsweep --help-config [GROUP]`: every config field with its type, default and help.

Hydra's `--help` lists groups and options; this prints what each key means, from the schema's own
`metadata={"help": ...}` (mcsweep/config/schema.py), so the text cannot drift from the code.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterator
from dataclasses import MISSING, Field, fields, is_dataclass
from enum import Enum

from mcsweep.config.schema import RunConfig, allowed


def _type_name(hint: typing.Any) -> str:
    if isinstance(hint, type) and issubclass(hint, Enum):
        return "{" + allowed(hint).replace(", ", "|") + "}"
    if isinstance(hint, type):
        return hint.__name__
    args = typing.get_args(hint)
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return " | ".join("null" if a is type(None) else _type_name(a) for a in args)
    if origin is not None:
        return f"{origin.__name__}[{', '.join(_type_name(a) for a in args)}]"
    return str(hint).replace("typing.", "")


def _default(f: Field) -> str:
    if f.default is not MISSING:
        value = f.default
    elif f.default_factory is not MISSING:
        value = f.default_factory()
    else:
        return "(required)"
    if isinstance(value, Enum):
        return str(value.value)
    return "null" if value is None else repr(value)


def rows(schema: type = RunConfig, prefix: str = "") -> Iterator[tuple[str, str, str, str]]:
    """(dotted key, type, default, help) for every field, nested groups expanded after their line."""
    hints = typing.get_type_hints(schema)
    for f in fields(schema):
        hint = hints[f.name]
        key = prefix + f.name
        if is_dataclass(hint):
            yield key, "group", "", f.metadata["help"]
            yield from rows(hint, key + ".")
        else:
            yield key, _type_name(hint), _default(f), f.metadata["help"]


def groups() -> list[str]:
    hints = typing.get_type_hints(RunConfig)
    return [f.name for f in fields(RunConfig) if is_dataclass(hints[f.name])]


def render(group: str | None = None) -> str:
    """The help text of one group (`model`, `model.micro`, ...), or of every key when None."""
    selected = [r for r in rows() if group is None or r[0] == group or r[0].startswith(group + ".")]
    if not selected:
        raise KeyError(f"--help-config: unknown group {group!r}; one of {', '.join(groups())}")
    lines = [
        "Each key with its type, the schema's default and its help. The group options (conf/<group>/) and",
        "presets set most of them; `python -m mcsweep --cfg job` prints the values a command composes.",
        "",
    ]
    for key, type_name, default, text in selected:
        if type_name == "group":
            lines.append(f"\n{key}: {text}")
            continue
        lines.append(f"  {key}: {type_name} = {default}")
        lines.append(f"      {text}")
    return "\n".join(lines) + "\n"
