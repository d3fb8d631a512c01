"""admissionregistration.k8s.io/v1 validation: pkg/apis/admissionregistration/validation/validation.go,
for the rules ported so far: the mistakes charts make most with webhooks (names, side effects, where to
call, review versions)."""

from __future__ import annotations

from typing import Any

from apiserver.errors import FieldError
from apiserver.registry import field

Obj = dict[str, Any]

_SIDE_EFFECTS = ("None", "NoneOnDryRun")


def _webhooks(obj: Obj, creating: bool) -> list[FieldError]:
    found: list[FieldError] = []
    names: set[str] = set()
    for i, hook in enumerate(obj.get("webhooks") or ()):
        at = f"webhooks[{i}]"
        hook = hook if isinstance(hook, dict) else {}
        name = hook.get("name") or ""
        if name in names:
            found.append(field.duplicate(f"{at}.name", name))
        names.add(name)
        if not name:
            found.append(field.required(f"{at}.name"))
        elif len(name.split(".")) < 3:
            found.append(field.invalid(f"{at}.name", name, "should be a domain with at least three segments separated by dots"))
        side_effects = hook.get("sideEffects")
        if side_effects is None:
            found.append(field.required(f"{at}.sideEffects", "must specify one of " + ", ".join(_SIDE_EFFECTS)))
        elif side_effects not in _SIDE_EFFECTS and creating:
            # Upstream holds an update to this only when the old object already was (requireNoSideEffects);
            # until that is ported, updates are not held to it.
            found.append(field.not_supported(f"{at}.sideEffects", side_effects, _SIDE_EFFECTS))
        timeout = hook.get("timeoutSeconds")
        if isinstance(timeout, int) and not 1 <= timeout <= 30:
            found.append(field.invalid(f"{at}.timeoutSeconds", timeout, "the timeout value must be between 1 and 30 seconds"))
        client = hook.get("clientConfig") or {}
        if (client.get("url") is None) == (client.get("service") is None):
            found.append(field.required(f"{at}.clientConfig", "exactly one of url or service is required"))
        if not hook.get("admissionReviewVersions"):
            found.append(field.required(f"{at}.admissionReviewVersions", "must specify one of v1, v1beta1"))
    return found


def webhook_configuration(obj: Obj) -> list[FieldError]:
    return _webhooks(obj, creating=True)


def webhook_configuration_update(new: Obj, old: Obj) -> list[FieldError]:
    return _webhooks(new, creating=False)
