"""YAML read as kube-apiserver reads it: sigs.k8s.io/yaml's go-yaml v2 (YAML 1.1, its own way) into JSON values.

PyYAML's safe loader and go-yaml v2 disagree on what an unquoted scalar is. go-yaml's rules, which this
loader follows instead of PyYAML's resolvers:
- booleans: y/Y/yes/Yes/YES/true/True/TRUE/on/On/ON and n/N/no/No/NO/false/False/FALSE/off/Off/OFF
  (PyYAML leaves y and n as strings);
- integers as Go's strconv.ParseInt with base 0 after dropping underscores (0x, 0o, 0b prefixes, a
  leading 0 is octal); no base-60 numbers (`12:30` is a string, not 750);
- floats by `[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?` (`1e3` is a float, a string to PyYAML),
  plus .inf/.nan;
- anything else is a string, `=` included (PyYAML refuses it as the YAML 1.1 "value" type);
- decoded into interface{}, a timestamp stays the text written, !!binary becomes the decoded text, and a
  tag go-yaml does not know (`!Ref x`, `!!set`) is ignored: the node is read as its plain shape;
- a merge key (`<<: *base`) applies where it stands, overriding the keys written before it;
- keys are spelt as JSON strings at once (a Go map keeps `true` and `1` apart), numbers as Go spells them.
Only the first document of a stream is read, as go-yaml's Unmarshal does.
"""

from __future__ import annotations

import base64
import math
import re
import struct
from typing import Any

import yaml

from apiserver.wire import goprint

# The C parser when PyYAML was built with libyaml; resolution and construction below stay in Python.
_SafeLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_PLAIN = "tag:fastkube,2026:go-plain"  # an unquoted, untagged scalar, resolved by go-yaml's rules
_MERGE = "tag:yaml.org,2002:merge"

_WORDS: dict[str, Any] = {
    **{w: True for w in ("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON")},
    **{w: False for w in ("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF")},
    **{w: None for w in ("", "~", "null", "Null", "NULL")},
    **{w: float("nan") for w in (".nan", ".NaN", ".NAN")},
    **{w: float("inf") for w in (".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF")},
    **{w: float("-inf") for w in ("-.inf", "-.Inf", "-.INF")},
}
# strconv.ParseInt(s, 0, 64)'s syntax: an optional sign, then a prefixed, octal or decimal number.
_GO_INT = re.compile(r"([-+]?)(0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+|0[0-7]*|[1-9][0-9]*)")
_GO_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_DOT_FLOAT = re.compile(r"\.[0-9]+([eE][-+]?[0-9]+)?")
_TIMESTAMP_START = re.compile(r"[0-9]{4}-")
_BASES = {"x": 16, "X": 16, "b": 2, "B": 2, "o": 8, "O": 8}


def plain_scalar(text: str) -> Any:
    """An unquoted scalar's value by go-yaml v2's resolve(), as decoding into interface{} keeps it."""
    if text in _WORDS:
        return _WORDS[text]
    first = text[0]
    if first == ".":
        value = float(text) if _DOT_FLOAT.fullmatch(text) else math.inf
        return text if math.isinf(value) else value
    if first not in "+-0123456789" or _TIMESTAMP_START.match(text):
        # Timestamps are kept as the text written when the target is interface{}.
        return text
    digits = text.replace("_", "")
    number = _go_int(digits)
    if number is not None:
        return number
    if _GO_FLOAT.fullmatch(digits):
        value = float(digits)
        return text if math.isinf(value) else value  # past float64, ParseFloat fails: the text stays
    return text


def _go_int(digits: str) -> int | None:
    match = _GO_INT.fullmatch(digits)
    if match is None:
        return None
    sign, body = match.groups()
    if len(body) > 1 and body[1] in _BASES:
        value = int(body[2:], _BASES[body[1]])
    elif len(body) > 1 and body[0] == "0":
        value = int(body, 8)
    else:
        value = int(body)
    return -value if sign == "-" else value


class NotJSON(ValueError):
    """A document sigs.k8s.io/yaml cannot turn into JSON, in its words."""


class YamlError(ValueError):
    """go-yaml's refusal of a document, in its words ("yaml: line 3: did not find expected key")."""


def json_key(key: Any, value: Any) -> str:
    """A mapping key spelt as sigs.k8s.io/yaml's conversion spells it; JSON has no null or collection keys
    (go-yaml itself refuses a collection as a key of the map[interface{}]interface{} it decodes into)."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return str(key)
    if isinstance(key, float):
        return _go_float32_text(key)
    if key is None:
        raise NotJSON(f"unsupported map key of type: %!s(<nil>), key: <nil>, value: {_go_sharp(value)}")
    raise YamlError(f"yaml: invalid map key: {_go_sharp(key)}")


def _go_sharp(value: Any) -> str:
    """fmt's %#v of what go-yaml decodes into interface{}, whose maps are map[interface {}]interface {}."""
    return goprint.sharp(value, "map[interface {}]interface {}")


def _go_float32_text(value: float) -> str:
    """strconv.FormatFloat(value, 'g', -1, 32) with go-yaml's spellings of infinities and NaN."""
    if value != value:
        return ".nan"
    try:
        single = struct.unpack("f", struct.pack("f", value))[0]
    except OverflowError:  # past float32's range Go's conversion gives an infinity
        single = math.copysign(math.inf, value)
    if math.isinf(single):
        return ".inf" if single > 0 else "-.inf"
    for precision in range(1, 10):  # the fewest digits that read back as the same float32
        mantissa, _, exponent = f"{single:.{precision - 1}e}".partition("e")
        if struct.unpack("f", struct.pack("f", float(mantissa + "e" + exponent)))[0] == single:
            break
    power = int(exponent)
    digits = mantissa.replace(".", "").lstrip("-").rstrip("0") or "0"
    sign = "-" if mantissa.startswith("-") else ""
    if power < -4 or power >= 6:  # shortest formatting switches to an exponent from 1e6 on
        tail = f"{digits[0]}.{digits[1:]}" if len(digits) > 1 else digits
        return f"{sign}{tail}e{'-' if power < 0 else '+'}{abs(power):02d}"
    if power < 0:
        return f"{sign}0.{'0' * (-power - 1)}{digits}"
    whole = digits.ljust(power + 1, "0")
    return f"{sign}{whole[:power + 1]}" + (f".{whole[power + 1:]}" if len(whole) > power + 1 else "")


class _GoYamlReading:
    """What reads a composed document as go-yaml decodes it into interface{}, on either parser."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)  # type: ignore[call-arg]
        self._filling: set[yaml.Node] = set()  # the mappings being built, which a merge must not bring in
        self._raw = stream

    def resolve(self, kind: Any, value: str, implicit: tuple[bool, bool]) -> str:
        if kind is yaml.ScalarNode and implicit[0]:
            return _MERGE if value == "<<" else _PLAIN
        return super().resolve(kind, value, implicit)  # type: ignore[misc,no-any-return]

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        # Always deep: a collection is built whole before anything refers to it, so that an anchor whose
        # value refers to itself is met while it is being built, which go-yaml refuses.
        if node in self.recursive_objects:  # type: ignore[attr-defined]
            name = _named_at(self._raw, node.start_mark, "&")
            raise yaml.constructor.ConstructorError(None, None, f"anchor '{name}' value contains itself",
                                                    node.start_mark)
        return super().construct_object(node, deep=True)  # type: ignore[misc]

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[str, Any]:
        # Keys become JSON's strings at once: a Go map keeps true and 1 apart where a dict would not.
        mapping: dict[str, Any] = {}
        filling = self._filling
        filling.add(node)
        try:
            for key_node, value_node in node.value:
                if key_node.tag == _MERGE:
                    # go-yaml merges where the key stands, so a merge overrides the keys written before it.
                    for source in _merge_sources(value_node):
                        if source in filling:
                            raise yaml.constructor.ConstructorError(None, None, "an anchor's value contains itself",
                                                                    source.start_mark)
                        # construct_object remembers each node: merges of merges cost no more than their size.
                        mapping.update(self.construct_object(source, deep=True))
                    continue
                value = self.construct_object(value_node, deep=deep)
                mapping[json_key(self.construct_object(key_node, deep=deep), value)] = value
        finally:
            filling.discard(node)
        return mapping


class GoYamlLoader(_GoYamlReading, _SafeLoader):  # type: ignore[misc]
    """libyaml's parser (go-yaml's is a port of it, so its errors are go-yaml's), composed in C."""


class _RedefiningLoader(_GoYamlReading, yaml.SafeLoader):  # type: ignore[misc]
    """PyYAML's own parser and composer, for a document that defines an anchor twice: go-yaml lets the
    later definition stand where libyaml's composer refuses it."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        if not isinstance(event, yaml.AliasEvent) and event.anchor is not None:
            self.anchors.pop(event.anchor, None)
        return super().compose_node(parent, index)


def _merge_sources(node: yaml.Node) -> list[yaml.MappingNode]:
    """The maps a merge key brings, in the order go-yaml applies them (of a list, the first one last)."""
    if isinstance(node, yaml.MappingNode):
        return [node]
    if isinstance(node, yaml.SequenceNode) and all(isinstance(item, yaml.MappingNode) for item in node.value):
        return list(reversed(node.value))
    raise yaml.constructor.ConstructorError(None, None, "map merge requires map or sequence of maps as the value",
                                            node.start_mark)


def _construct_plain(loader: _GoYamlReading, node: yaml.ScalarNode) -> Any:
    return plain_scalar(node.value)


def _construct_binary(loader: _GoYamlReading, node: yaml.ScalarNode) -> str:
    try:
        data = base64.b64decode("".join(node.value.split()), validate=True)
    except ValueError:
        raise yaml.constructor.ConstructorError(None, None, "!!binary value contains invalid base64 data",
                                                node.start_mark) from None
    # Go's string(data), which encoding/json writes with invalid UTF-8 replaced.
    return data.decode("utf-8", errors="replace")


_LONG_TAG = "tag:yaml.org,2002:"
_RESOLVABLE = {_LONG_TAG + name for name in ("str", "bool", "int", "float", "null", "timestamp")}
_TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}"
                        r"([Tt ][0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(\.[0-9]{1,9})?(Z|[-+][0-9]{2}:[0-9]{2})?)?")


def _construct_tagged(loader: _GoYamlReading, node: yaml.Node) -> Any:
    """A scalar with a resolvable tag (!!int, !!bool ...), as go-yaml's resolve(tag, text) takes it: read as
    if unquoted, it must be of the tag's type, but for an integer tagged !!float."""
    if not isinstance(node, yaml.ScalarNode):
        return _construct_untagged(loader, "", node)
    tag, text = node.tag, node.value
    if tag == _LONG_TAG + "str":
        return text
    value = plain_scalar(text)
    if tag == _LONG_TAG + "timestamp" and isinstance(value, str) and _TIMESTAMP.fullmatch(text):
        return text  # decoded into interface{}, a timestamp keeps the text written
    found = _LONG_TAG + ("null" if value is None else "bool" if isinstance(value, bool) else
                         "int" if isinstance(value, int) else "float" if isinstance(value, float) else "str")
    if found == tag:
        return value
    if tag == _LONG_TAG + "float" and isinstance(value, int):
        return float(value)
    raise yaml.constructor.ConstructorError(None, None, f"cannot decode !!{found[len(_LONG_TAG):]} `{text}` as a "
                                            f"!!{tag[len(_LONG_TAG):]}", node.start_mark)


def _construct_untagged(loader: _GoYamlReading, suffix: str, node: yaml.Node) -> Any:
    """A node whose tag go-yaml ignores, read as its shape alone."""
    if isinstance(node, yaml.MappingNode):
        return loader.construct_yaml_map(node)  # type: ignore[attr-defined]
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_yaml_seq(node)  # type: ignore[attr-defined]
    return loader.construct_scalar(node)  # type: ignore[attr-defined]


for _loader in (GoYamlLoader, _RedefiningLoader):
    _loader.add_constructor(_PLAIN, _construct_plain)
    _loader.add_constructor(_LONG_TAG + "binary", _construct_binary)
    for _tag in _RESOLVABLE:
        _loader.add_constructor(_tag, _construct_tagged)
    for _ignored in ("map", "seq", "set", "omap", "pairs"):
        _loader.add_constructor(_LONG_TAG + _ignored, lambda loader, node: _construct_untagged(loader, "", node))
    _loader.add_multi_constructor("", _construct_untagged)


def load_first_document(raw: bytes) -> Any:
    """The first document's value (None for an empty stream); later documents are not read.
    Raises YamlError in go-yaml's words."""
    try:
        return _first_document(raw, GoYamlLoader)
    except yaml.composer.ComposerError as exc:
        if "duplicate anchor" not in f"{exc.context} {exc.problem}":
            raise YamlError(_go_message(exc, raw)) from None
    except yaml.YAMLError as exc:
        raise YamlError(_go_message(exc, raw)) from None
    try:
        return _first_document(raw, _RedefiningLoader)
    except yaml.YAMLError as exc:
        raise YamlError(_go_message(exc, raw)) from None


def _first_document(raw: bytes, loader: type) -> Any:
    for document in yaml.load_all(raw, Loader=loader):
        return document
    return None


def _go_message(exc: yaml.YAMLError, raw: bytes) -> str:
    """What go-yaml says where libyaml (or our construction) stopped: its problem, after the line
    go-yaml's parser.fail() names (the problem's, one-based for a scanner's, else the context's; line 0
    is never named)."""
    if isinstance(exc, yaml.reader.ReaderError):
        return f"yaml: {exc.reason}"
    if not isinstance(exc, yaml.MarkedYAMLError):
        return f"yaml: {exc}"
    problem = exc.problem or "unknown problem parsing YAML content"
    if isinstance(exc, yaml.composer.ComposerError) and problem.startswith("found undefined alias"):
        return f"yaml: unknown anchor '{_named_at(raw, exc.problem_mark, '*')}' referenced"
    if isinstance(exc, yaml.constructor.ConstructorError):
        return f"yaml: {problem}"
    line = 0
    if exc.problem_mark is not None and exc.problem_mark.line != 0:
        line = exc.problem_mark.line + (1 if isinstance(exc, yaml.scanner.ScannerError) else 0)
    elif exc.context_mark is not None and exc.context_mark.line != 0:
        line = exc.context_mark.line
    return f"yaml: line {line}: {problem}" if line else f"yaml: {problem}"


_LINE_BREAK = re.compile("\r\n|\r|\n|\x85|\u2028|\u2029")


def _named_at(raw: Any, mark: Any, sigil: str) -> str:
    """The anchor an alias (`*`) or anchor (`&`) names where a mark points."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    lines = _LINE_BREAK.split(text)
    found = re.match(re.escape(sigil) + r"([0-9A-Za-z_-]*)", lines[mark.line][mark.column:]) \
        if mark is not None and mark.line < len(lines) else None
    return found.group(1) if found else ""
