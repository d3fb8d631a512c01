"""What the cluster's policy lets a pod ask for: kube-apiserver's `--allow-privileged`.

Upstream keeps this as a process-wide setting (pkg/capabilities, set once from the flag) that pod
validation reads; so does this server, set once per worker process when it is built. The default is
kube-apiserver's: privileged containers are refused.
"""

from __future__ import annotations

_allow_privileged = False


def setup(allow_privileged: bool) -> None:
    global _allow_privileged
    _allow_privileged = allow_privileged


def allow_privileged() -> bool:
    return _allow_privileged
