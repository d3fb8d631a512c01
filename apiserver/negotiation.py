"""Which representation a client accepts. Plain JSON for now: Table and metadata come later."""

from __future__ import annotations

from apiserver import errors

_JSON_RANGES = ("application/json", "application/*", "*/*", "")


def require_json(accept: str) -> None:
    """Refuses, like kube-apiserver, a request that accepts no JSON at all (protobuf only, say)."""
    for clause in accept.split(","):
        media = clause.split(";", 1)[0].strip().lower()
        if media in _JSON_RANGES:
            return
    raise errors.not_acceptable("only the following media types are accepted: application/json, "
                                "application/yaml, application/vnd.kubernetes.protobuf")
