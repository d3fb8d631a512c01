"""CRD conversion through a webhook (`spec.conversion.strategy: Webhook`), as apiextensions-apiserver's
webhook_converter.go does it: the objects not yet in the desired version are sent in one
ConversionReview (v1 or v1beta1, the first of the CRD's conversionReviewVersions this server knows),
the answer is checked (its uid, its count, each object's apiVersion, kind, name, namespace and uid),
and each converted object gets its original metadata back but for labels and annotations.

The call goes through the admission webhooks' HTTPS client (`admission.webhook.client`), with
upstream's fixed 30 s timeout (conversion has no timeoutSeconds). Every failure is upstream's error,
which its handlers answer as a bare 500 Status: "conversion webhook for <gvk> failed: ...".
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import orjson

from apiserver import errors
from apiserver.admission.webhook.client import CallFailed, WebhookClient
from apiserver.admission.webhook.configurations import ClientConfig, client_config
from apiserver.registry import field
from apiserver.registry.meta import annotations as annotation_problems
from apiserver.registry.meta import labels as label_problems

Obj = dict[str, Any]
REVIEW_GROUP = "apiextensions.k8s.io"
# webhook.defaultRequestTimeout, for every call. Upstream's request context and its http.Client both
# end at it, and either may win: a hang is "context deadline exceeded" or, at times, "net/http: request
# canceled (Client.Timeout exceeded while awaiting headers)"; this server always says the first.
TIMEOUT_SECONDS = 30
_KNOWN_REVIEW_VERSIONS = ("v1beta1", "v1")
# What Go's client prefixes to a failed call; a conversion's message quotes the failure without it.
_CALL_PREFIX = "failed to call webhook: "


@dataclass(frozen=True)
class WebhookConversion:
    """A CRD's `spec.conversion.webhook`: where to call, and which ConversionReview versions it reads."""

    crd_name: str
    client: ClientConfig
    review_versions: tuple[str, ...]


def webhook_conversion(crd: Obj) -> WebhookConversion | None:
    """The CRD's conversion webhook; None for strategy None (versions differ in apiVersion only)."""
    conversion = crd["spec"].get("conversion") or {}
    if conversion.get("strategy") != "Webhook":
        return None
    webhook = conversion.get("webhook") or {}
    raw_client = dict(webhook.get("clientConfig") or {})
    if not str(raw_client.get("caBundle") or "").strip():
        raw_client.pop("caBundle", None)  # a whitespace-only caBundle is no caBundle
    return WebhookConversion(crd["metadata"]["name"], client_config(raw_client),
                             tuple(str(v) for v in webhook.get("conversionReviewVersions") or ()))


def gvk_text(api_version: str, kind: str) -> str:
    """A GroupVersionKind as Go's %v prints it."""
    return f"{api_version}, Kind={kind}"


def conversion_failed(text: str) -> errors.ApiError:
    """A conversion error as the custom resource handler answers it: a 500 Status with no reason."""
    return errors.ApiError(500, "", text)


class Converter:
    """Converts custom objects through their CRD's webhook; one per server, sharing the admission client."""

    def __init__(self, client: WebhookClient) -> None:
        self._client = client

    async def close(self) -> None:
        await self._client.close()

    async def convert(self, conversion: WebhookConversion, objects: list[Obj], desired: str,
                      described: str) -> list[Obj]:
        """`objects` in `desired` (an apiVersion), in order; those already in it are not sent.

        `described` is the GVK the errors name: the single object's, or the list's."""
        sent = [i for i, obj in enumerate(objects) if obj.get("apiVersion") != desired]
        if not sent:
            return objects
        version = next((v for v in conversion.review_versions if v in _KNOWN_REVIEW_VERSIONS), None)
        if version is None:
            raise conversion_failed("no supported conversion review versions")
        uid = str(uuid.uuid4())
        review = {"kind": "ConversionReview", "apiVersion": f"{REVIEW_GROUP}/{version}",
                  "request": {"uid": uid, "desiredAPIVersion": desired, "objects": [objects[i] for i in sent]}}
        prefix = f"conversion webhook for {described}"
        try:
            destination = self._client.destination(conversion.client, TIMEOUT_SECONDS)
            answer = await self._client.post(destination, conversion.client.ca_bundle, orjson.dumps(review),
                                             TIMEOUT_SECONDS)
        except CallFailed as exc:
            raise conversion_failed(f"{prefix} failed: {exc.reason.removeprefix(_CALL_PREFIX)}") from None
        try:
            converted = _converted_objects(version, uid, answer)
        except _Malformed as exc:
            raise conversion_failed(f"{prefix} failed: {exc}") from None
        if len(converted) != len(sent):
            raise conversion_failed(f"{prefix} returned {len(converted)} objects, expected {len(sent)}")
        out = list(objects)
        single = len(objects) == 1
        for index, (position, answered) in enumerate(zip(sent, converted)):
            out[position] = _checked(objects[position], answered, desired, prefix, index, single)
        return out


class _Malformed(Exception):
    """An answer getConvertedObjectsFromResponse refuses; the text is upstream's."""


def _converted_objects(version: str, uid: str, answer: Any) -> list[Any]:
    """getConvertedObjectsFromResponse: the answer's objects, or _Malformed with upstream's text."""
    if not isinstance(answer, dict):
        raise _Malformed("no response provided")
    if version == "v1":
        # Decoded into the v1 type whatever it says it is: Go's scheme then refuses another kind.
        answered_version, kind = str(answer.get("apiVersion") or ""), str(answer.get("kind") or "")
        if (answered_version, kind) != (f"{REVIEW_GROUP}/v1", "ConversionReview"):
            if (answered_version, kind) == (f"{REVIEW_GROUP}/v1beta1", "ConversionReview"):
                raise _Malformed("converting (v1beta1.ConversionReview) to (v1.ConversionReview): unknown conversion")
            group, _, answered = answered_version.rpartition("/")
            raise _Malformed(f"expected webhook response of {REVIEW_GROUP}/v1, Kind=ConversionReview, got "
                             f"{group}/{answered}, Kind={kind}")
    response = answer.get("response")
    if not isinstance(response, dict):
        raise _Malformed("no response provided")
    if version == "v1" and str(response.get("uid") or "") != uid:
        raise _Malformed(f'expected response.uid="{uid}", got "{response.get("uid") or ""}"')
    given = response.get("result")
    result: Obj = given if isinstance(given, dict) else {}
    if result.get("status") != "Success":
        if result.get("message"):
            raise _Malformed(str(result["message"]))
        raise _Malformed(f"response.result.status was '{result.get('status') or ''}', not 'Success'")
    converted = response.get("convertedObjects")
    return list(converted) if isinstance(converted, list) else []


def _checked(original: Obj, converted: Any, desired: str, prefix: str, index: int, single: bool) -> Obj:
    """One converted object checked as upstream checks it, with the original's metadata restored."""
    at = "invalid object at index 0" if single else f"invalid converted object at index {index}"
    if not isinstance(converted, dict):
        raise conversion_failed(f"{prefix} returned {at}: Object 'Kind' is missing in '{_go_json(converted)}'")
    answered_version = str(converted.get("apiVersion") or "")
    if answered_version != desired:
        raise conversion_failed(f"{prefix} returned {at}: invalid groupVersion (expected {desired}, received "
                                f"{answered_version})")
    kind = original.get("kind")
    if converted.get("kind") != kind:
        raise conversion_failed(f"{prefix} returned {at}: invalid kind (expected {kind}, received "
                                f"{converted.get('kind')})")
    invalid = "invalid object" if single else f"invalid converted object at index {index}"
    problem = _identity_problem(original, converted)
    if problem is not None:
        raise conversion_failed(f"{prefix} returned {invalid}: {problem}")
    restored, problem = _restored_metadata(original, converted)
    if problem is not None:
        where = "invalid metadata" if single else f"invalid metadata in object at index {index}"
        raise conversion_failed(f"{prefix} returned {where}: {problem}")
    return restored


def _meta(obj: Obj) -> Obj:
    value = obj.get("metadata")
    return value if isinstance(value, dict) else {}


def _identity_problem(original: Obj, converted: Obj) -> str | None:
    """validateConvertedObject: everything but labels and annotations is the server's, not the webhook's."""
    before, after = _meta(original), _meta(converted)
    for label, key in (("name", "name"), ("namespace", "namespace"), ("UID", "uid")):
        if (before.get(key) or "") != (after.get(key) or ""):
            return f"must have the same {label}: {before.get(key) or ''} != {after.get(key) or ''}"
    return None


def _restored_metadata(original: Obj, converted: Obj) -> tuple[Obj, str | None]:
    """restoreObjectMeta: the original's metadata, with the converted object's labels and annotations."""
    answered = converted.get("metadata")
    if "metadata" not in converted:
        return converted, "missing metadata in converted object"
    if not isinstance(answered, dict):
        return converted, f"invalid metadata of type {field.go_type_name(answered)} in converted object"
    metadata = dict(_meta(original))  # the original is this server's own copy: only its top level changes
    for name, path in (("labels", "metadata.labels"), ("annotations", "metadata.annotation")):
        value = answered.get(name)
        if value is None:
            metadata.pop(name, None)
            continue
        if not isinstance(value, dict):
            return converted, f"invalid metadata.{name} of type {field.go_type_name(value)} in converted object"
        for key, item in value.items():
            if not isinstance(item, str):
                return converted, (f"metadata.{name}[{key}] must be a string, but is {field.go_type_name(item)} in "
                                   "converted object")
        if value != (metadata.get(name) or {}):
            found = label_problems(value, path) if name == "labels" else annotation_problems(value, path)
            if found:
                return converted, errors.aggregate([f"{e.path}: {e.message}" for e in found])
        metadata[name] = value
    return {**converted, "metadata": metadata}, None




def _go_json(value: Any) -> str:
    return orjson.dumps(value).decode()

