"""Kubernetes' CEL semver library (`k8s.io/apiserver/pkg/cel/library/semverlib.go`, version 1, on
blang/semver/v4's Parse and Compare).

`semver('1.2.3')`, `isSemver(s)`, each with a `normalize` flag (a leading "v" dropped, leading zeroes
trimmed, a missing minor or patch taken as 0), and on a version: `major`, `minor`, `patch`,
`isGreaterThan`, `isLessThan`, `compareTo`. A version travels as `kubernetes.Semver` holding its text
without build metadata, which Compare ignores, so equal versions are equal values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from apiserver.cel.opaque import Semver

_NUMBERS = "0123456789"
_ALPHANUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-" + _NUMBERS
_MAX_UINT64 = 2**64 - 1


class SemverError(ValueError):
    pass


@dataclass(frozen=True)
class Version:
    major: int
    minor: int
    patch: int
    pre: tuple[int | str, ...]

    def text(self) -> str:
        core = f"{self.major}.{self.minor}.{self.patch}"
        return core + ("-" + ".".join(str(p) for p in self.pre) if self.pre else "")


def _only(text: str, allowed: str) -> bool:
    return all(char in allowed for char in text)


def _uint(text: str) -> int:
    """strconv.ParseUint(text, 10, 64)."""
    if not text or not _only(text, _NUMBERS):
        raise SemverError(f'strconv.ParseUint: parsing "{text}": invalid syntax')
    if int(text) > _MAX_UINT64:
        raise SemverError(f'strconv.ParseUint: parsing "{text}": value out of range')
    return int(text)


def _number(text: str, name: str) -> int:
    if not _only(text, _NUMBERS):
        raise SemverError(f"Invalid character(s) found in {name} number {_quoted(text)}")
    if len(text) > 1 and text[0] == "0":
        raise SemverError(f"{name.capitalize()} number must not contain leading zeroes {_quoted(text)}")
    return _uint(text)


def _quoted(text: str) -> str:
    """Go's %q for the texts a version holds."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _prerelease(text: str) -> int | str:
    if not text:
        raise SemverError("Prerelease is empty")
    if _only(text, _NUMBERS):
        if len(text) > 1 and text[0] == "0":
            raise SemverError(f"Numeric PreRelease version must not contain leading zeroes {_quoted(text)}")
        return _uint(text)
    if _only(text, _ALPHANUM):
        return text
    raise SemverError(f"Invalid character(s) found in prerelease {_quoted(text)}")


def parse(text: str) -> Version:
    """semver.Parse, with its messages."""
    if not text:
        raise SemverError("Version string empty")
    parts = text.split(".", 2)
    if len(parts) != 3:
        raise SemverError("No Major.Minor.Patch elements found")
    major, minor = _number(parts[0], "major"), _number(parts[1], "minor")
    patch, build, pre = parts[2], [], []
    if "+" in patch:
        patch, _, rest = patch.partition("+")
        build = rest.split(".")
    if "-" in patch:
        patch, _, rest = patch.partition("-")
        pre = rest.split(".")
    version = Version(major, minor, _number(patch, "patch"), tuple(_prerelease(p) for p in pre))
    for meta in build:
        if not meta:
            raise SemverError("Build meta data is empty")
        if not _only(meta, _ALPHANUM):
            raise SemverError(f"Invalid character(s) found in build meta data {_quoted(meta)}")
    return version


def normalize_and_parse(text: str) -> Version:
    """normalizeAndParse: no leading "v", no leading zeroes, a missing minor or patch as 0."""
    parts = text.removeprefix("v").split(".", 2)
    for i, part in enumerate(parts):
        if len(part) > 1:
            part = part.lstrip("0")
            if not part or part[0] not in _NUMBERS:
                part = "0" + part
            parts[i] = part
    if len(parts) < 3:
        if any(char in parts[-1] for char in "+-"):
            raise SemverError("short version cannot contain PreRelease/Build meta data")
        parts += ["0"] * (3 - len(parts))
    return parse(".".join(parts))


def _compare_pre(a: int | str, b: int | str) -> int:
    if isinstance(a, int) != isinstance(b, int):
        return -1 if isinstance(a, int) else 1
    return (a > b) - (a < b)  # type: ignore[operator]


def compare(v: Version, o: Version) -> int:
    """Version.Compare: major, minor, patch, then prereleases (a release above its prereleases)."""
    for mine, theirs in ((v.major, o.major), (v.minor, o.minor), (v.patch, o.patch)):
        if mine != theirs:
            return 1 if mine > theirs else -1
    if not v.pre or not o.pre:
        return (not v.pre) - (not o.pre)
    for mine_pre, theirs_pre in zip(v.pre, o.pre):
        if (found := _compare_pre(mine_pre, theirs_pre)) != 0:
            return found
    return (len(v.pre) > len(o.pre)) - (len(v.pre) < len(o.pre))


def _version(value: Any) -> Version:
    return parse(str(value.value))


def semver(text: str, normalize: bool = False) -> Any:
    return Semver(value=(normalize_and_parse(text) if normalize else parse(text)).text())


def is_semver(text: str, normalize: bool = False) -> bool:
    try:
        normalize_and_parse(text) if normalize else parse(text)
    except SemverError:
        return False
    return True


def major(value: Any) -> int:
    return _version(value).major


def minor(value: Any) -> int:
    return _version(value).minor


def patch(value: Any) -> int:
    return _version(value).patch


def compare_to(value: Any, other: Any) -> int:
    return compare(_version(value), _version(other))


def is_greater_than(value: Any, other: Any) -> bool:
    return compare_to(value, other) == 1


def is_less_than(value: Any, other: Any) -> bool:
    return compare_to(value, other) == -1
