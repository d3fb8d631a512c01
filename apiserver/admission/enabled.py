"""Importing this module registers every admission plugin this server enforces through the chain.

One import per plugin module: the module calls `apiserver.admission.plugins.register` with its
upstream name, which alone decides where it runs.
"""

from apiserver.admission import webhook  # noqa: F401  (registers the webhook plugins)
from apiserver.admission.policy import mutating as mutating_admission_policy  # noqa: F401
from apiserver.admission.policy import validating as validating_admission_policy  # noqa: F401
from apiserver.admissionplugins import registered  # noqa: F401  (LimitRanger, PodSecurity, ResourceQuota, ...)
