"""Admission: what may change or refuse a write after it is decoded and before it is stored.

`attributes` says what crosses the seam, `chain` runs the plugins, `plugins` registers them in
upstream's order. The endpoint builds the Attributes and calls the chain; nothing here imports HTTP.
"""

from apiserver.admission.attributes import Attributes, GroupVersionKind, GroupVersionResource, Operation
from apiserver.admission.chain import (
    ALLOWED,
    AdmissionChain,
    Admitted,
    MutatingPlugin,
    ValidatingPlugin,
    Verdict,
)
from apiserver.admission.plugins import ORDERED_PLUGINS, PluginContext, build_chain, register

__all__ = [
    "ALLOWED",
    "ORDERED_PLUGINS",
    "AdmissionChain",
    "Admitted",
    "Attributes",
    "GroupVersionKind",
    "GroupVersionResource",
    "MutatingPlugin",
    "Operation",
    "PluginContext",
    "ValidatingPlugin",
    "Verdict",
    "build_chain",
    "register",
]
