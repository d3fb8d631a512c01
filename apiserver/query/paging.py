"""What revision a list reads and where its page starts: resourceVersion, resourceVersionMatch, limit, continue.

The continue token is kube-apiserver's: base64url of `{"v":"meta.k8s.io/v1","rv":R,"start":"<key>\\u0000"}`,
the key relative to the listed prefix. Every page of a list reads the revision of the first one.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any, Mapping

import orjson

from apiserver import errors
from apiserver.query import list_options
from apiserver.registry.field import go_quote
from apiserver.storage.snapshot import ObjectKey
from apiserver.wire import gojson

_TOKEN_VERSION = "meta.k8s.io/v1"
_INVALID_KEY = "continue key is not valid"
LIST_TOO_OLD = "The resourceVersion for the provided list is too old."
CONTINUE_TOO_OLD = (
    "The provided continue parameter is too old to display a consistent list result. You can start a new list "
    "without the continue parameter, or use the continue token in this response to retrieve the remainder of the "
    "results. Continuing with the provided token results in an inconsistent list - objects that were created, "
    "modified, or deleted between the time the first chunk was returned and now may show up in the list.")


@dataclass(frozen=True)
class Page:
    """Where to read: `revision` None means the newest; `start` the first key; `limit` 0 means all."""

    revision: int | None
    exact: bool  # the revision must be served as asked (a snapshot), not anything newer
    start: ObjectKey | None
    limit: int
    token_start: str | None = None  # the continue token's key, to hand back in a 410


def parse_page(query: Mapping[str, str], namespaced: bool, namespace: str | None) -> Page:
    """Where a list reads; its options were judged by list_options.read at the request's edge."""
    options = list_options.decoded(query)
    limit = max(0, options.limit)
    token, rv_text, match = options.continue_token, options.resource_version, options.resource_version_match
    if token:
        if rv_text not in ("", "0"):
            raise errors.bad_request("specifying resource version is not allowed when using continue")
        revision, relative = decode_continue(token)
        return Page(None if revision == -1 else revision, revision != -1,
                    _object_key(relative, namespaced, namespace), limit, relative)
    if rv_text in ("", "0"):
        return Page(None, False, None, limit)
    try:
        revision = parse_rv(rv_text)
    except errors.ApiError as refused:
        raise errors.bad_request(f"invalid resource version: {refused.message}") from None
    # a legacy (match-less) resourceVersion with a limit pages from exactly that revision, as etcd does
    exact = match == "Exact" or (match == "" and limit > 0)
    return Page(revision, exact, None, limit)


def parse_rv(text: str) -> int:
    """A resourceVersion as the storage versioner parses it (strconv.ParseUint), refused in its words.
    Upstream passes a get's or a watch's refusal on as a 500; a client's mistake is a 400 here."""
    if text.isascii() and text.isdigit() and int(text) < 2**64:
        return int(text)
    reason = "value out of range" if text.isascii() and text.isdigit() else "invalid syntax"
    raise errors.bad_request(f"resourceVersion: Invalid value: {go_quote(text)}: strconv.ParseUint: parsing "
                             f"{go_quote(text)}: {reason}")


def too_large(requested: int, current: int, from_storage: bool = False) -> errors.ApiError:
    """The 504 of a revision not reached yet. Upstream's watch cache asks the client to retry after a
    second; a list it hands to etcd (`from_storage`: an exact revision, or a legacy one with a limit)
    fails with the storage's error, which asks nothing of the sort."""
    details: dict[str, Any] = {"causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}]}
    if not from_storage:
        details["retryAfterSeconds"] = 1
    return errors.ApiError(504, "Timeout", f"Timeout: Too large resource version: {requested}, current: {current}",
                           details)


def continue_too_old(token_start: str) -> errors.ApiError:
    """410 with a token that goes on from the same key at the newest revision (rv -1), as upstream offers."""
    return errors.ApiError(410, "Expired", CONTINUE_TOO_OLD, list_metadata={"continue": encode_raw(-1, token_start)})


def encode_continue(revision: int, last: ObjectKey, namespaced: bool, namespace: str | None) -> str:
    relative = last[1] if not namespaced or namespace is not None else f"{last[0]}/{last[1]}"
    return encode_raw(revision, relative + "\x00")


def encode_raw(revision: int, start: str) -> str:
    raw = orjson.dumps({"v": _TOKEN_VERSION, "rv": revision, "start": start})
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def decode_continue(token: str) -> tuple[int, str]:
    """The token's revision and start key; 400 with upstream's wording when it is not one of ours."""
    try:
        data = _b64decode(token)
    except ValueError as exc:
        raise _invalid_token(f"{_INVALID_KEY}: {exc}") from None
    try:
        decoded: Any = orjson.loads(data)
    except orjson.JSONDecodeError:
        raise _invalid_token(f"{_INVALID_KEY}: {gojson.syntax_error(data)}") from None
    if not isinstance(decoded, dict):
        kind = {list: "array", str: "string", bool: "bool"}.get(type(decoded), "number")
        raise _invalid_token(f"{_INVALID_KEY}: json: cannot unmarshal {kind} into Go value of type "
                             "storage.continueToken")
    version, revision, start = decoded.get("v"), decoded.get("rv", 0), decoded.get("start", "")
    if version != _TOKEN_VERSION:
        raise _invalid_token(f"{_INVALID_KEY}: server does not recognize this encoded version {version or ''}")
    if not isinstance(revision, int) or revision == 0:
        raise _invalid_token(f"{_INVALID_KEY}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
    if not isinstance(start, str) or not start:
        raise _invalid_token(f"{_INVALID_KEY}: encoded start key empty (version meta.k8s.io/v1)")
    if not _clean(start):
        raise _invalid_token(f"{_INVALID_KEY}: {start}")
    return revision, start


def _object_key(relative: str, namespaced: bool, namespace: str | None) -> ObjectKey:
    if not namespaced:
        return ("", relative)
    if namespace is not None:
        return (namespace, relative)
    ns, _, name = relative.partition("/")
    return (ns, name)


def _invalid_token(message: str) -> errors.ApiError:
    return errors.bad_request(f"invalid continue token: {message}")


def _b64decode(token: str) -> bytes:
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    for i, ch in enumerate(token):
        if ch not in alphabet:
            raise ValueError(f"illegal base64 data at input byte {i}")
    if len(token) % 4 == 1:
        raise ValueError(f"illegal base64 data at input byte {len(token) - 1}")
    try:
        return base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except binascii.Error as exc:  # pragma: no cover - the checks above leave nothing for it
        raise ValueError(str(exc)) from None


def _clean(start: str) -> bool:
    """Whether path.Clean leaves `/start` as it is: the key cannot climb out of the listed prefix."""
    key = start if start.startswith("/") else "/" + start
    parts = key.split("/")[1:]
    if key != "/" and key.endswith("/"):
        return False
    return all(part not in ("", ".", "..") for part in parts) or key == "/"
