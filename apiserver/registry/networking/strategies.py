"""networking.k8s.io/v1's strategies: pkg/registry/networking/<kind>/strategy.go.

Generation (NetworkPolicy, Ingress, IngressClass: set to 1, bumped by a spec change) and the status
reset of Ingress and ServiceCIDR (ServiceCIDRStatusFieldWiping is on in 1.36) are the write path's,
from the resource facts.
"""

from __future__ import annotations

from apiserver.registry.core import object_warnings
from apiserver.registry.networking import defaults, validation
from apiserver.registry.strategy import KindStrategy, Strategy

STRATEGIES: dict[str, Strategy] = {
    "NetworkPolicy": KindStrategy(
        default=defaults.network_policy, validate=validation.network_policy,
        validate_update=validation.network_policy_update,
        warnings_on_create=validation.network_policy_warnings,
        warnings_on_update=lambda new, old: validation.network_policy_warnings(new)),
    "Ingress": KindStrategy(validate=validation.ingress, validate_update=validation.ingress_update,
                            warnings_on_create=validation.ingress_warnings,
                            validate_subresource_update=lambda _, new, old: validation.ingress_status_update(new, old),
                            warnings_on_subresource_update=object_warnings.load_balancer_status),
    "IngressClass": KindStrategy(default=defaults.ingress_class, validate=validation.ingress_class,
                                 validate_update=validation.ingress_class_update),
    "IPAddress": KindStrategy(name_rule=validation.ip_address_name, suffixes_generated_names=False,
                              validate=validation.ip_address, validate_update=validation.ip_address_update),
    "ServiceCIDR": KindStrategy(validate=validation.service_cidr, validate_update=validation.service_cidr_update),
}
