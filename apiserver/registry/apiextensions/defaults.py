"""apiextensions.k8s.io/v1 defaulting of the CustomResourceDefinition object itself
(staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1/defaults.go), in its Go field order.

What a CRD declares for the objects it serves is `apiserver.crd.crdspec`'s; this is about the CRD object.
"""

from __future__ import annotations

from typing import Any

# Field orders of the CRD's Go types, so a stored CRD reads like upstream's.
_SPEC_ORDER = ("group", "names", "scope", "versions", "conversion", "preserveUnknownFields")
_NAMES_ORDER = ("plural", "singular", "shortNames", "kind", "listKind", "categories")
_VERSION_ORDER = ("name", "served", "storage", "deprecated", "deprecationWarning", "schema", "subresources",
                  "additionalPrinterColumns", "selectableFields")
_COLUMN_ORDER = ("name", "type", "format", "description", "priority", "jsonPath")


def _in_order(obj: dict[str, Any], order: tuple[str, ...]) -> dict[str, Any]:
    out = {k: obj[k] for k in order if k in obj}
    out.update((k, v) for k, v in obj.items() if k not in out)
    return out


def default_crd(crd: dict[str, Any]) -> None:
    """Fills what upstream defaults in a CRD's spec, in its Go field order."""
    spec = crd.get("spec")
    if not isinstance(spec, dict):
        return
    names = spec.get("names")
    if isinstance(names, dict):
        # SetDefaults_CustomResourceDefinitionSpec: an empty singular is the kind in lower case (itself
        # empty without one); an empty listKind is the kind's List only when there is a kind.
        kind = names.get("kind") if isinstance(names.get("kind"), str) else ""
        if not names.get("singular"):
            names["singular"] = kind.lower()
        if not names.get("listKind") and kind:
            names["listKind"] = kind + "List"
        spec["names"] = _in_order(names, _NAMES_ORDER)
    versions = spec.get("versions")
    if isinstance(versions, list):
        spec["versions"] = [_default_version(v) if isinstance(v, dict) else v for v in versions]
    conversion = spec.setdefault("conversion", {"strategy": "None"})
    if isinstance(conversion, dict):
        spec["conversion"] = default_conversion(conversion)
    crd["spec"] = _in_order(spec, _SPEC_ORDER)


def _default_version(version: dict[str, Any]) -> dict[str, Any]:
    columns = version.get("additionalPrinterColumns")
    if isinstance(columns, list):
        version["additionalPrinterColumns"] = [_in_order(c, _COLUMN_ORDER) if isinstance(c, dict) else c
                                               for c in columns]
    return _in_order(version, _VERSION_ORDER)


# The Go field orders of CustomResourceConversion, WebhookConversion, WebhookClientConfig and
# ServiceReference.
_CONVERSION_ORDERS = {"conversion": ("strategy", "webhook"), "webhook": ("clientConfig", "conversionReviewVersions"),
                      "clientConfig": ("url", "service", "caBundle"), "service": ("namespace", "name", "path", "port")}


def default_conversion(conversion: dict[str, Any]) -> dict[str, Any]:
    """SetDefaults_ServiceReference (a Service's port 443), every level in its Go field order."""
    webhook = conversion.get("webhook")
    if isinstance(webhook, dict):
        client = webhook.get("clientConfig")
        if isinstance(client, dict):
            service = client.get("service")
            if isinstance(service, dict):
                service.setdefault("port", 443)
                client["service"] = _in_order(service, _CONVERSION_ORDERS["service"])
            webhook["clientConfig"] = _in_order(client, _CONVERSION_ORDERS["clientConfig"])
        conversion["webhook"] = _in_order(webhook, _CONVERSION_ORDERS["webhook"])
    return _in_order(conversion, _CONVERSION_ORDERS["conversion"])
