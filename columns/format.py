"""Formatting rules shared by the built-in printers, with upstream's fixed placeholders.

Each helper reproduces one kube-apiserver rule bit for bit (HumanDuration, label and selector
strings, canonical quantities, "a,b,c + N more..."), so printers stay short declarations.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from decimal import ROUND_CEILING, Decimal, InvalidOperation

import msgspec

from columns.base import Since, parse_time

NONE = "<none>"
UNKNOWN = "<unknown>"
UNSET = "<unset>"
PENDING = "<pending>"
INVALID = "<invalid>"


def human_duration(seconds: float) -> str:
    """Upstream's duration.HumanDuration: about 2-3 significant figures of an elapsed time."""
    whole = int(seconds)  # truncates toward zero, as Go's int(d.Seconds()) does
    # Up to 2s in the future is clock skew between machines, read as "now".
    if whole < -1:
        return INVALID
    if whole < 0:
        return "0s"
    if whole < 120:
        return f"{whole}s"
    minutes = whole // 60
    if minutes < 10:
        rest = whole % 60
        return f"{minutes}m" if rest == 0 else f"{minutes}m{rest}s"
    if minutes < 180:
        return f"{minutes}m"
    hours = whole // 3600
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h" if rest == 0 else f"{hours}h{rest}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        rest = hours % 24
        return f"{hours // 24}d" if rest == 0 else f"{hours // 24}d{rest}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        rest = (hours // 24) % 365
        years = hours // 24 // 365
        return f"{years}y" if rest == 0 else f"{years}y{rest}d"
    return f"{hours // 24 // 365}y"


def elapsed(seconds: float | None) -> str:
    """A timestamp's age, `<unknown>` when the timestamp is absent (upstream's zero time)."""
    return UNKNOWN if seconds is None else human_duration(seconds)


def epoch(timestamp: str | None) -> float | None:
    """Epoch seconds of a timestamp; Go's zero time (year 1) counts as absent, as IsZero() does."""
    if timestamp is None or timestamp.startswith("0001-01-01T00:00:00"):
        return None
    return parse_time(timestamp)


def since_epoch(at: float | None) -> Since:
    """A cell showing how long ago `at` (epoch seconds) was, rendered per request."""
    return Since(at, elapsed)


def since(timestamp: str | None) -> Since:
    """A cell showing how long ago `timestamp` was, rendered per request."""
    return Since(epoch(timestamp), elapsed)


def or_none(value: str) -> str:
    return value if value else NONE


def join_more(items: Sequence[str], count: int, limit: int = 3) -> str:
    """The first items joined by commas, then how many were left out."""
    text = ",".join(items)
    return f"{text} + {count - limit} more..." if count > limit else text


def format_labels(labels: Mapping[str, str]) -> str:
    """labels.FormatLabels: sorted key=value pairs, `<none>` for none."""
    return ",".join(f"{k}={labels[k]}" for k in sorted(labels)) or NONE


def container_cells(containers: Iterable[Container]) -> tuple[str, str]:
    """The Containers and Images cells: every container's name and image, comma-joined."""
    names: list[str] = []
    images: list[str] = []
    for container in containers:
        names.append(container.name)
        images.append(container.image)
    return ",".join(names), ",".join(images)


class Container(msgspec.Struct):
    name: str = ""
    image: str = ""


# --- label selectors ---------------------------------------------------------------------

class Requirement(msgspec.Struct):
    key: str = ""
    operator: str = ""
    values: list[str] = []


class LabelSelector(msgspec.Struct):
    matchLabels: dict[str, str] = {}
    matchExpressions: list[Requirement] = []


_NAME = r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?"
_LABEL_VALUE = re.compile(rf"({_NAME})?")
_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_QUALIFIED_NAME = re.compile(_NAME)
_OPERATORS = {"In": " in ", "NotIn": " notin ", "Exists": "", "DoesNotExist": ""}


class SelectorError(ValueError):
    """A label selector that upstream's LabelSelectorAsSelector rejects."""


def _valid_key(key: str) -> bool:
    prefix, _, name = key.rpartition("/")
    if "/" in key and (not prefix or len(prefix) > 253 or not _DNS_SUBDOMAIN.fullmatch(prefix)):
        return False
    return 0 < len(name) <= 63 and _QUALIFIED_NAME.fullmatch(name) is not None


def _valid_value(value: str) -> bool:
    return len(value) <= 63 and _LABEL_VALUE.fullmatch(value) is not None


def _requirement(key: str, operator: str, values: Sequence[str]) -> str:
    if not _valid_key(key) or operator not in _OPERATORS and operator != "=":
        raise SelectorError(f"invalid requirement {key!r} {operator!r}")
    if operator in ("Exists", "DoesNotExist"):
        if values:
            raise SelectorError("values set for an existence operator")
        return ("!" if operator == "DoesNotExist" else "") + key
    if not values or operator == "=" and len(values) != 1:
        raise SelectorError("wrong number of values")
    for value in values:
        if not _valid_value(value):
            raise SelectorError(f"invalid label value {value!r}")
    if operator == "=":
        return f"{key}={values[0]}"
    # Values are printed sorted; one value is printed as given.
    joined = values[0] if len(values) == 1 else ",".join(sorted(values))
    return f"{key}{_OPERATORS[operator]}({joined})"


def selector_string(selector: LabelSelector | None) -> str:
    """LabelSelectorAsSelector(...).String(): requirements sorted by key, "" for nil or empty."""
    if selector is None:
        return ""
    keyed = [(key, _requirement(key, "=", [value])) for key, value in selector.matchLabels.items()]
    keyed += [(r.key, _requirement(r.key, r.operator, r.values)) for r in selector.matchExpressions]
    keyed.sort(key=lambda pair: pair[0])
    return ",".join(text for _, text in keyed)


def format_label_selector(selector: LabelSelector | None) -> str:
    """metav1.FormatLabelSelector: `<error>` when invalid, `<none>` when it selects by nothing."""
    try:
        return selector_string(selector) or NONE
    except SelectorError:
        return "<error>"


# --- quantities --------------------------------------------------------------------------

_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DECIMAL_SUFFIX = {exp: suffix for suffix, exp in _DECIMAL.items()}
_BINARY_SUFFIX = {bits: suffix for suffix, bits in _BINARY.items()}
_QUANTITY = re.compile(r"([+-]?(?:\d+\.?\d*|\.\d+))(?:(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])|[eE]([+-]?\d+))?")
_NANO = Decimal("1e-9")


def canonical_quantity(text: str) -> str:
    """resource.Quantity's String(): the value in its canonical form ("10240Mi" is "10Gi")."""
    match = _QUANTITY.fullmatch(text.strip())
    if match is None:
        return text
    number, suffix, exponent = match.groups()
    try:
        value = Decimal(number)
    except InvalidOperation:
        return text
    if suffix in _BINARY:
        value *= 2 ** _BINARY[suffix]
        form = "binary"
    elif exponent is not None:
        value = value.scaleb(int(exponent))
        form = "exponent"
    else:
        value = value.scaleb(_DECIMAL[suffix or ""])
        form = "decimal"
    # Quantities keep nano precision at most, rounding up.
    places = value.as_tuple().exponent
    if isinstance(places, int) and places < -9:
        value = value.quantize(_NANO, rounding=ROUND_CEILING)
    if value == 0:
        return "0"
    if form == "binary" and abs(value) >= 1024 and value == value.to_integral_value():
        whole, bits = int(value), 0
        while bits < 60 and whole % 1024 == 0:
            whole //= 1024
            bits += 10
        return f"{whole}{_BINARY_SUFFIX.get(bits, '')}"
    mantissa, power = _base10(value)
    if form == "exponent":
        return f"{mantissa}e{power}" if power else str(mantissa)
    suffix_text = _DECIMAL_SUFFIX.get(power)
    return f"{mantissa}{suffix_text}" if suffix_text is not None else f"{mantissa}e{power}"


def _base10(value: Decimal) -> tuple[int, int]:
    """An integer mantissa and the largest exponent, a multiple of 3, that keeps it whole."""
    sign, digits, exp = value.normalize().as_tuple()
    mantissa = int("".join(map(str, digits))) * (-1 if sign else 1)
    assert isinstance(exp, int)
    shift = exp % 3
    return mantissa * 10 ** shift, exp - shift


# --- storage -----------------------------------------------------------------------------

_ACCESS_MODES = (("ReadWriteOnce", "RWO"), ("ReadOnlyMany", "ROX"), ("ReadWriteMany", "RWX"),
                 ("ReadWriteOncePod", "RWOP"))


def access_modes(modes: Sequence[str]) -> str:
    """Access modes abbreviated in upstream's fixed order, each once."""
    return ",".join(short for mode, short in _ACCESS_MODES if mode in modes)


def bool_text(value: bool | None) -> str:
    if value is None:
        return UNSET
    return "True" if value else "False"
