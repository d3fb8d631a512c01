"""`kubectl replace` of a pod from its manifest: the admission plugins that filled the pod in on create
fill it in again on update (DefaultTolerationSeconds adds its tolerations, Priority keeps its priority
and preemption policy), so a replace that changes only what a pod may change is allowed, as on
kube-apiserver (test/cmd's save-config and recursive-resources entries replace pods this way)."""

from __future__ import annotations

import json

from support import ServerProcess, run_kubectl

MANIFEST = """
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  labels:
    status: {status}
spec:
  {priority_class}
  containers:
  - name: pause
    image: registry.example/pause:3.10
"""


def _pod(server: ServerProcess, name: str) -> dict:
    return json.loads(run_kubectl(server, "get", "pod", name, "-o", "json").stdout)  # type: ignore[no-any-return]


def test_a_replace_from_the_manifest_keeps_what_admission_added(shared_server: ServerProcess) -> None:
    run_kubectl(shared_server, "create", "-f", "-", stdin=MANIFEST.format(name="replaced", status="created",
                                                                         priority_class=""))
    created = _pod(shared_server, "replaced")["spec"]
    assert [t["key"] for t in created["tolerations"]] == ["node.kubernetes.io/not-ready",
                                                          "node.kubernetes.io/unreachable"]
    run_kubectl(shared_server, "replace", "--save-config", "-f", "-",
                stdin=MANIFEST.format(name="replaced", status="replaced", priority_class=""))
    replaced = _pod(shared_server, "replaced")
    assert replaced["metadata"]["labels"] == {"status": "replaced"}
    assert replaced["spec"]["tolerations"] == created["tolerations"]
    assert (replaced["spec"]["priority"], replaced["spec"]["preemptionPolicy"]) == (0, "PreemptLowerPriority")


def test_a_replace_keeps_the_priority_of_its_class(shared_server: ServerProcess) -> None:
    run_kubectl(shared_server, "create", "priorityclass", "replace-high", "--value=1000",
                "--preemption-policy=Never")
    manifest = MANIFEST.format(name="prioritized", status="created", priority_class="priorityClassName: replace-high")
    run_kubectl(shared_server, "create", "-f", "-", stdin=manifest)
    run_kubectl(shared_server, "replace", "-f", "-", stdin=manifest.replace("status: created", "status: replaced"))
    spec = _pod(shared_server, "prioritized")["spec"]
    assert (spec["priority"], spec["preemptionPolicy"]) == (1000, "Never")


def test_a_replace_changing_a_fixed_field_is_still_refused(shared_server: ServerProcess) -> None:
    run_kubectl(shared_server, "create", "-f", "-", stdin=MANIFEST.format(name="fixed", status="created",
                                                                         priority_class=""))
    changed = MANIFEST.format(name="fixed", status="created", priority_class="restartPolicy: Never")
    result = run_kubectl(shared_server, "replace", "-f", "-", stdin=changed, check=False)
    assert result.returncode != 0
    assert 'The Pod "fixed" is invalid: spec: Forbidden: pod updates may not change fields' in result.stderr
