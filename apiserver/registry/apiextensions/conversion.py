"""A CRD's `spec.conversion`: its v1 defaults (`v1/defaults.go`: a Service's port) and upstream's
validateCustomResourceConversion with the webhook checks it calls (`apiserver/pkg/util/webhook/
validation.go`: ValidateWebhookURL, ValidateWebhookService).

Upstream validates the internal form, where v1's `webhook.clientConfig` is `webhookClientConfig` and
`webhook.conversionReviewVersions` is `conversionReviewVersions`: the paths of its errors name those.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from apiserver.errors import FieldError
from apiserver.kinds.validation import dns1035_label, dns1123_subdomain, port_number
from apiserver.registry import field

_PATH = "spec.conversion"
_STRATEGIES = ("None", "Webhook")
_ACCEPTED_REVIEW_VERSIONS = ("v1", "v1beta1")
_FORM = "; desired format: https://host[/path]"
# The Go field orders of CustomResourceConversion, WebhookConversion, WebhookClientConfig and
# ServiceReference, so a stored CRD reads like upstream's.
_ORDERS = {"conversion": ("strategy", "webhook"), "webhook": ("clientConfig", "conversionReviewVersions"),
           "clientConfig": ("url", "service", "caBundle"), "service": ("namespace", "name", "path", "port")}


def _in_order(obj: dict[str, Any], order: tuple[str, ...]) -> dict[str, Any]:
    out = {k: obj[k] for k in order if k in obj}
    out.update((k, v) for k, v in obj.items() if k not in out)
    return out


def default_conversion(conversion: dict[str, Any]) -> dict[str, Any]:
    """SetDefaults_ServiceReference (port 443), every level in its Go field order."""
    webhook = conversion.get("webhook")
    if isinstance(webhook, dict):
        client = webhook.get("clientConfig")
        if isinstance(client, dict):
            service = client.get("service")
            if isinstance(service, dict):
                service.setdefault("port", 443)
                client["service"] = _in_order(service, _ORDERS["service"])
            webhook["clientConfig"] = _in_order(client, _ORDERS["clientConfig"])
        conversion["webhook"] = _in_order(webhook, _ORDERS["webhook"])
    return _in_order(conversion, _ORDERS["conversion"])


def validate_conversion(conversion: Any) -> list[FieldError]:
    """validateCustomResourceConversion, with a recognized review version required (as on create)."""
    if not isinstance(conversion, dict):
        return []
    found: list[FieldError] = []
    strategy = conversion.get("strategy")
    if strategy not in _STRATEGIES:
        found.append(field.not_supported(f"{_PATH}.strategy", strategy or "", _STRATEGIES))
    given = conversion.get("webhook")
    webhook: dict[str, Any] = given if isinstance(given, dict) else {}
    client = webhook.get("clientConfig")
    versions = webhook.get("conversionReviewVersions") or []
    client_path = f"{_PATH}.webhookClientConfig"
    if strategy == "Webhook":
        if not isinstance(client, dict):
            found.append(field.required(client_path, "required when strategy is set to Webhook"))
        else:
            url, service = client.get("url"), client.get("service")
            if (url is None) == (service is None):
                found.append(field.required(client_path, "exactly one of url or service is required"))
            elif url is not None:
                found += _webhook_url(f"{client_path}.url", str(url))
            elif isinstance(service, dict):
                # Upstream passes the name where the namespace goes, and the namespace for the name.
                found += _webhook_service(f"{client_path}.service", str(service.get("name") or ""),
                                          str(service.get("namespace") or ""), service.get("path"),
                                          int(service.get("port") or 0))
        found += _review_versions(versions, f"{_PATH}.conversionReviewVersions")
    else:
        if client is not None:
            found.append(field.forbidden(client_path, "should not be set when strategy is not set to Webhook"))
        if versions:
            found.append(field.forbidden(f"{_PATH}.conversionReviewVersions",
                                         "should not be set when strategy is not set to Webhook"))
    return found


def _review_versions(versions: list[Any], path: str) -> list[FieldError]:
    if not versions:
        return [field.required(path)]
    found: list[FieldError] = []
    seen: set[str] = set()
    for index, version in enumerate(str(v) for v in versions):
        if version in seen:
            found.append(field.invalid(f"{path}[{index}]", version, "duplicate version"))
            continue
        seen.add(version)
        found += [field.invalid(f"{path}[{index}]", version, text) for text in dns1035_label(version)]
    if not seen.intersection(_ACCEPTED_REVIEW_VERSIONS):
        found.append(field.invalid_shown(path, field.go_json([str(v) for v in versions]),
                                         "must include at least one of " + ", ".join(_ACCEPTED_REVIEW_VERSIONS)))
    return found


def _webhook_url(path: str, url: str) -> list[FieldError]:
    """ValidateWebhookURL with https forced."""
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        return [field.required(path, f"url must be a valid URL: {exc}{_FORM}")]
    found: list[FieldError] = []
    if parts.scheme != "https":
        found.append(field.invalid(path, parts.scheme, "'https' is the only allowed URL scheme" + _FORM))
    user, at, host = parts.netloc.rpartition("@")
    if not host:
        found.append(field.invalid(path, host, "host must be specified" + _FORM))
    if at:
        found.append(field.invalid(path, user, "user information is not permitted in the URL"))
    if parts.fragment:
        found.append(field.invalid(path, parts.fragment, "fragments are not permitted in the URL"))
    if parts.query:
        found.append(field.invalid(path, parts.query, "query parameters are not permitted in the URL"))
    return found


def _webhook_service(path: str, namespace: str, name: str, url_path: Any, port: int) -> list[FieldError]:
    """ValidateWebhookService."""
    found: list[FieldError] = []
    if not name:
        found.append(field.required(f"{path}.name"))
    if not namespace:
        found.append(field.required(f"{path}.namespace"))
    problems = port_number(port)
    if problems:
        found.append(field.invalid(f"{path}.port", port, "port is not valid: " + ", ".join(problems)))
    if url_path is None or str(url_path) in ("", "/"):
        return found
    at, text = f"{path}.path", str(url_path)
    if text == "//":
        return [*found, field.invalid(at, text, "segment[0] may not be empty")]
    if not text.startswith("/"):
        found.append(field.invalid(at, text, "must start with a '/'"))
    checked = text[1:].removesuffix("/")
    for index, step in enumerate(checked.split("/")):
        if not step:
            found.append(field.invalid(at, text, f"segment[{index}] may not be empty"))
            continue
        found += [field.invalid(at, text, f"segment[{index}]: {failure}") for failure in dns1123_subdomain(step)]
    return found
