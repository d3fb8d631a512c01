"""validateCustomResourceConversion (apiextensions validation.go): a CRD's spec.conversion, in the
internal form (`internal.py`), and whether an update must still name a review version this server knows.
"""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.registry import field
from apiserver.registry.admissionregistration.validation import (
    REVIEW_VERSIONS,
    review_version_list,
    webhook_service,
    webhook_url,
)

Obj = dict[str, Any]

_STRATEGIES = ("None", "Webhook")


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def requires_known_review_version(old_spec: Obj) -> bool:
    """hasValidConversionReviewVersionOrEmpty of the old spec: an update keeps to a known review version
    once the CRD named one (or none)."""
    reviews = _dict(_dict(old_spec.get("conversion")).get("webhook")).get("conversionReviewVersions")
    reviews = reviews if isinstance(reviews, list) else []
    return not reviews or bool(set(map(str, reviews)) & set(REVIEW_VERSIONS))


def _review_versions(versions: list[Any], required: bool, path: str) -> list[FieldError]:
    """validateConversionReviewVersions."""
    if not versions:
        return [field.required(path)]
    return review_version_list(versions, required, path)


def conversion(conversion: Obj | None, required_review: bool) -> list[FieldError]:
    """validateCustomResourceConversion (a CA bundle is accepted until the CRD is established)."""
    if conversion is None:
        return []
    path, found = "spec.conversion", []
    strategy = conversion["strategy"]
    if not strategy:
        found.append(field.required(f"{path}.strategy"))
    elif strategy not in _STRATEGIES:
        found.append(field.not_supported(f"{path}.strategy", strategy, _STRATEGIES))
    client = conversion["webhookClientConfig"]
    if strategy == "Webhook":
        if client is None:
            found.append(
                field.required(f"{path}.webhookClientConfig", "required when strategy is set to Webhook")
            )
        else:
            client = _dict(client)
            url, service = client.get("url"), client.get("service")
            if (url is None) == (service is None):
                found.append(
                    field.required(f"{path}.webhookClientConfig", "exactly one of url or service is required")
                )
            elif url is not None:
                found += webhook_url(f"{path}.webhookClientConfig.url", str(url))
            else:
                # Upstream passes the Service's name where ValidateWebhookService takes the namespace, and
                # its namespace for the name: a missing name is reported as the namespace (recorded).
                given = _dict(service)
                swapped = {**given, "name": given.get("namespace"), "namespace": given.get("name")}
                found += webhook_service(f"{path}.webhookClientConfig.service", swapped)
        found += _review_versions(
            conversion["conversionReviewVersions"], required_review, f"{path}.conversionReviewVersions"
        )
    else:
        if client is not None:
            found.append(
                field.forbidden(
                    f"{path}.webhookClientConfig", "should not be set when strategy is not set to Webhook"
                )
            )
        if conversion["conversionReviewVersions"]:
            found.append(
                field.forbidden(
                    f"{path}.conversionReviewVersions",
                    "should not be set when strategy is not set to Webhook",
                )
            )
    return found
