"""Webhook configurations' validation: pkg/apis/admissionregistration/validation/validation.go's
validate{Validating,Mutating}WebhookConfiguration and validate{Validating,Mutating}Webhook, with the
options their Update variants derive from the old object (a rule the old object already broke is not
held against the update), and k8s.io/apiserver/pkg/util/webhook's ValidateWebhookURL and
ValidateWebhookService."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from apiserver.errors import FieldError
from apiserver.kinds.validation import dns1035_label, dns1123_subdomain
from apiserver.registry import field
from apiserver.registry.admissionregistration import rules
from apiserver.registry.meta import label_selector

Obj = dict[str, Any]

REVIEW_VERSIONS = ("v1", "v1beta1")
_SIDE_EFFECTS = ("None", "NoneOnDryRun", "Some", "Unknown")
_NO_SIDE_EFFECTS = ("None", "NoneOnDryRun")
_REINVOCATION_POLICIES = ("IfNeeded", "Never")
_URL_FORM = "; desired format: https://host[/path]"


@dataclass(frozen=True)
class _Options:
    ignore_match_conditions: bool = False
    require_no_side_effects: bool = True
    require_recognized_review_version: bool = True
    require_unique_names: bool = True


def fully_qualified_name(path: str, name: str) -> list[FieldError]:
    """utilvalidation.IsFullyQualifiedName."""
    if not name:
        return [field.required(path)]
    if errs := dns1123_subdomain(name):
        return [field.invalid(path, name, ",".join(errs))]
    if len(name.split(".")) < 3:
        return [
            field.invalid(path, name, "should be a domain with at least three segments separated by dots")
        ]
    return []


def webhook_url(path: str, url: str) -> list[FieldError]:
    """ValidateWebhookURL with https forced, as Go's url.Parse splits the URL."""
    try:
        parts = urlsplit(url)
    except ValueError as error:
        return [field.required(path, f"url must be a valid URL: {error}{_URL_FORM}")]
    found: list[FieldError] = []
    if parts.scheme != "https":
        found.append(field.invalid(path, parts.scheme, "'https' is the only allowed URL scheme" + _URL_FORM))
    host = parts.netloc.rpartition("@")[2]
    if not host:
        found.append(field.invalid(path, host, "host must be specified" + _URL_FORM))
    if "@" in parts.netloc:
        found.append(
            field.invalid(
                path, parts.netloc.rpartition("@")[0], "user information is not permitted in the URL"
            )
        )
    if parts.fragment:
        found.append(field.invalid(path, parts.fragment, "fragments are not permitted in the URL"))
    if parts.query:
        found.append(field.invalid(path, parts.query, "query parameters are not permitted in the URL"))
    return found


def webhook_service(path: str, service: Obj) -> list[FieldError]:
    """ValidateWebhookService: name, namespace, port and a path of DNS-subdomain segments."""
    found: list[FieldError] = []
    if not service.get("name"):
        found.append(field.required(f"{path}.name"))
    if not service.get("namespace"):
        found.append(field.required(f"{path}.namespace"))
    port = service.get("port", 443)
    if not isinstance(port, int) or not 1 <= port <= 65535:
        found.append(
            field.invalid(f"{path}.port", port, "port is not valid: must be between 1 and 65535, inclusive")
        )
    url_path = service.get("path")
    if not isinstance(url_path, str) or url_path in ("", "/"):
        return found
    if url_path == "//":
        return found + [field.invalid(f"{path}.path", url_path, "segment[0] may not be empty")]
    if not url_path.startswith("/"):
        found.append(field.invalid(f"{path}.path", url_path, "must start with a '/'"))
    to_check = url_path[1:]
    to_check = to_check.removesuffix("/")
    for i, step in enumerate(to_check.split("/")):
        if not step:
            found.append(field.invalid(f"{path}.path", url_path, f"segment[{i}] may not be empty"))
            continue
        found += [
            field.invalid(f"{path}.path", url_path, f"segment[{i}]: {msg}") for msg in dns1123_subdomain(step)
        ]
    return found


def _review_versions(versions: list[Any], required: bool, path: str) -> list[FieldError]:
    """validateAdmissionReviewVersions."""
    if not versions:
        return [field.required(path, "must specify one of " + ", ".join(REVIEW_VERSIONS))]
    return review_version_list(versions, required, path)


def review_version_list(versions: list[Any], required: bool, path: str) -> list[FieldError]:
    """The items of a non-empty review version list: each a DNS-1035 label, none twice, and (`required`)
    one this server speaks. Webhooks' and CRD conversions' validations share it, as upstream's copies agree."""
    found: list[FieldError] = []
    seen: set[str] = set()
    for i, version in enumerate(versions):
        version = version if isinstance(version, str) else ""
        if version in seen:
            found.append(field.invalid(f"{path}[{i}]", version, "duplicate version"))
            continue
        seen.add(version)
        found += [field.invalid(f"{path}[{i}]", version, msg) for msg in dns1035_label(version)]
    if required and not seen & set(REVIEW_VERSIONS):
        found.append(
            field.invalid(path, versions, "must include at least one of " + ", ".join(REVIEW_VERSIONS))
        )
    return found


def _webhook(hook: Obj, mutating: bool, opts: _Options, path: str) -> list[FieldError]:
    found = fully_qualified_name(f"{path}.name", hook.get("name") or "")
    for i, rule in enumerate(rules.as_list(hook.get("rules"))):
        found += rules.rule_with_operations(rules.as_dict(rule), f"{path}.rules[{i}]")
    for name, supported in (("failurePolicy", rules.FAILURE_POLICIES), ("matchPolicy", rules.MATCH_POLICIES)):
        if hook.get(name) is not None and hook[name] not in supported:
            found.append(field.not_supported(f"{path}.{name}", hook[name], supported))
    allowed = _NO_SIDE_EFFECTS if opts.require_no_side_effects else _SIDE_EFFECTS
    side_effects = hook.get("sideEffects")
    if side_effects is None:
        found.append(field.required(f"{path}.sideEffects", "must specify one of " + ", ".join(allowed)))
    elif side_effects not in allowed:
        found.append(field.not_supported(f"{path}.sideEffects", side_effects, allowed))
    timeout = hook.get("timeoutSeconds")
    if isinstance(timeout, int) and not 1 <= timeout <= 30:
        found.append(
            field.invalid(
                f"{path}.timeoutSeconds", timeout, "the timeout value must be between 1 and 30 seconds"
            )
        )
    for selector in ("namespaceSelector", "objectSelector"):
        if hook.get(selector) is not None:
            found += label_selector(hook[selector], f"{path}.{selector}")
    policy = hook.get("reinvocationPolicy")
    if mutating and policy is not None and policy not in _REINVOCATION_POLICIES:
        found.append(field.not_supported(f"{path}.reinvocationPolicy", policy, _REINVOCATION_POLICIES))
    client = rules.as_dict(hook.get("clientConfig"))
    url, service = client.get("url"), client.get("service")
    if (url is None) == (service is None):
        found.append(field.required(f"{path}.clientConfig", "exactly one of url or service is required"))
    elif url is not None:
        found += webhook_url(f"{path}.clientConfig.url", str(url))
    else:
        found += webhook_service(f"{path}.clientConfig.service", rules.as_dict(service))
    if not opts.ignore_match_conditions:
        found += rules.match_conditions(
            rules.as_list(hook.get("matchConditions")), f"{path}.matchConditions", params=False
        )
    return found


def _configuration(obj: Obj, mutating: bool, opts: _Options) -> list[FieldError]:
    found: list[FieldError] = []
    names: set[str] = set()
    for i, hook in enumerate(rules.as_list(obj.get("webhooks"))):
        hook, at = rules.as_dict(hook), f"webhooks[{i}]"
        found += _webhook(hook, mutating, opts, at)
        found += _review_versions(
            rules.as_list(hook.get("admissionReviewVersions")),
            opts.require_recognized_review_version,
            f"{at}.admissionReviewVersions",
        )
        name = hook.get("name") or ""
        if opts.require_unique_names and name:
            if name in names:
                found.append(field.duplicate(f"{at}.name", name))
            names.add(name)
    return found


def _update_options(new: Obj, old: Obj) -> _Options:
    """What the old object already broke is not held against an update
    (Validate*WebhookConfigurationUpdate)."""
    new_hooks = [rules.as_dict(h) for h in rules.as_list(new.get("webhooks"))]
    old_hooks = [rules.as_dict(h) for h in rules.as_list(old.get("webhooks"))]
    names = [h.get("name") or "" for h in old_hooks]
    return _Options(
        ignore_match_conditions=len(new_hooks) == len(old_hooks)
        and all(
            (n.get("matchConditions") or None) == (o.get("matchConditions") or None)
            for n, o in zip(new_hooks, old_hooks)
        ),
        require_no_side_effects=all(h.get("sideEffects") in _NO_SIDE_EFFECTS for h in old_hooks),
        require_recognized_review_version=all(
            not h.get("admissionReviewVersions") or set(h["admissionReviewVersions"]) & set(REVIEW_VERSIONS)
            for h in old_hooks
        ),
        require_unique_names=len(set(names)) == len(names),
    )


def validating_webhook_configuration(obj: Obj) -> list[FieldError]:
    return _configuration(obj, False, _Options())


def validating_webhook_configuration_update(new: Obj, old: Obj) -> list[FieldError]:
    return _configuration(new, False, _update_options(new, old))


def mutating_webhook_configuration(obj: Obj) -> list[FieldError]:
    return _configuration(obj, True, _Options())


def mutating_webhook_configuration_update(new: Obj, old: Obj) -> list[FieldError]:
    return _configuration(new, True, _update_options(new, old))
