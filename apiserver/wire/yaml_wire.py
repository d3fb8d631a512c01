"""YAML answers, written the way kube-apiserver's YAML serializer (go-yaml) writes them.

Keys sorted, block style, sequences not indented under their key; a string that would read back
as another type (a number, a date, "true", "") is double-quoted, one with a newline is a literal
block, anything else is plain or single-quoted as the emitter needs.
"""

from __future__ import annotations

from typing import Any

import orjson
import yaml

_STR = "tag:yaml.org,2002:str"


class _GoStyleDumper(yaml.SafeDumper):
    pass


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style: str | None = None
    if "\n" in value:
        style = "|"
    elif value == "" or dumper.resolve(yaml.ScalarNode, value, (True, False)) != _STR:  # type: ignore[no-untyped-call]
        style = '"'
    return dumper.represent_scalar(_STR, value, style=style)


_GoStyleDumper.add_representer(str, _represent_str)


def yaml_of(value: Any) -> bytes:
    text: str = yaml.dump(value, Dumper=_GoStyleDumper, sort_keys=True, default_flow_style=False,
                          allow_unicode=True, width=80)
    return text.encode()


def json_to_yaml(body: bytes) -> bytes:
    """A JSON answer rewritten as YAML."""
    return yaml_of(orjson.loads(body))
