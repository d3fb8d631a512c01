"""networking.k8s.io/v1 defaulting: pkg/apis/networking/v1/defaults.go (+ zz_generated.defaults.go)."""

from __future__ import annotations

from typing import Any

from apiserver.registry.core.defaults import spec_of

Obj = dict[str, Any]


def network_policy(obj: Obj) -> None:
    """SetDefaults_NetworkPolicy and, for each rule's ports, SetDefaults_NetworkPolicyPort."""
    spec = spec_of(obj)
    for direction in ("ingress", "egress"):
        for rule in spec.get(direction) or ():
            if not isinstance(rule, dict) or not isinstance(rule.get("ports"), list):
                continue
            # A null port decodes as Go's zero struct, which is defaulted like any other.
            rule["ports"] = [{} if port is None else port for port in rule["ports"]]
            for port in rule["ports"]:
                if isinstance(port, dict) and port.get("protocol") is None:
                    port["protocol"] = "TCP"
    if not spec.get("policyTypes"):
        # Every policy restricts ingress; one with egress rules restricts egress too.
        spec["policyTypes"] = ["Ingress", "Egress"] if spec.get("egress") else ["Ingress"]


def ingress_class(obj: Obj) -> None:
    """SetDefaults_IngressClass: parameters name a cluster-scoped object unless they say otherwise."""
    parameters = (obj.get("spec") or {}).get("parameters") if isinstance(obj.get("spec"), dict) else None
    if isinstance(parameters, dict) and parameters.get("scope") is None:
        parameters["scope"] = "Cluster"
