"""pods/ephemeralcontainers, the subresource kubectl debug adds its container through: only the ephemeral
containers change, and they may be added, never changed or removed (ValidatePodEphemeralContainersUpdate)."""

from __future__ import annotations

import pytest
from support import ServerProcess, run_kubectl

PODS = "/api/v1/namespaces/default/pods"


@pytest.fixture(scope="module")
def pod(shared_server: ServerProcess) -> str:
    run_kubectl(shared_server, "run", "target", "--image=registry.example/app:1", "--labels=app=target")
    return "target"


def _ephemeral(server: ServerProcess, name: str) -> list[dict]:
    status, pod = server.json("GET", f"{PODS}/{name}/ephemeralcontainers")
    assert status == 200 and pod["kind"] == "Pod"
    return pod["spec"].get("ephemeralContainers") or []  # type: ignore[no-any-return]


def test_kubectl_debug_adds_an_ephemeral_container(shared_server: ServerProcess, pod: str) -> None:
    run_kubectl(shared_server, "debug", pod, "--image=registry.example/busybox:1", "-c", "debugger",
                "--target=target", "--", "sleep", "3600")
    added = _ephemeral(shared_server, pod)
    assert [(c["name"], c["image"], c.get("targetContainerName")) for c in added] == [
        ("debugger", "registry.example/busybox:1", "target")]
    assert added[0]["terminationMessagePolicy"] == "File"  # defaulted as any container
    entries = shared_server.json("GET", f"{PODS}/{pod}")[1]["metadata"]["managedFields"]
    assert any(e.get("subresource") == "ephemeralcontainers" for e in entries)


def test_an_update_through_the_subresource_changes_nothing_else(shared_server: ServerProcess, pod: str) -> None:
    status, current = shared_server.json("GET", f"{PODS}/{pod}/ephemeralcontainers")
    assert status == 200
    current["spec"]["containers"][0]["image"] = "registry.example/other:2"
    current["spec"].setdefault("ephemeralContainers", []).append(
        {"name": "second", "image": "registry.example/busybox:1"})
    status, updated = shared_server.json("PUT", f"{PODS}/{pod}/ephemeralcontainers", current)
    assert status == 200, updated
    assert updated["spec"]["containers"][0]["image"] == "registry.example/app:1"
    assert [c["name"] for c in updated["spec"]["ephemeralContainers"]][-1] == "second"


@pytest.mark.parametrize(("change", "field", "message"), [
    (lambda cs: cs.clear(), "spec.ephemeralContainers",
     'Forbidden: existing ephemeral containers "debugger" may not be removed\n'),
    (lambda cs: cs[0].update(image="registry.example/changed:1"), "spec.ephemeralContainers",
     'Forbidden: existing ephemeral containers "debugger" may not be changed\n'),
    (lambda cs: cs.append({"name": "probe", "image": "i", "readinessProbe": {"exec": {"command": ["true"]}}}),
     "spec.ephemeralContainers[1].readinessProbe", "Forbidden: cannot be set for an Ephemeral Container"),
    (lambda cs: cs.append({"name": "target", "image": "i"}), "spec.ephemeralContainers[1].name",
     'Duplicate value: "target"'),
    (lambda cs: cs.append({"name": "aimless", "image": "i", "targetContainerName": "nobody"}),
     "spec.ephemeralContainers[1].targetContainerName", 'Not found: "nobody"'),
])
def test_what_the_subresource_refuses(shared_server: ServerProcess, change: object, field: str,
                                      message: str) -> None:
    run_kubectl(shared_server, "run", "refusing", "--image=registry.example/app:1", "--overrides",
                '{"spec":{"containers":[{"name":"target","image":"registry.example/app:1"}]}}')
    try:
        status, pod = shared_server.json("GET", f"{PODS}/refusing/ephemeralcontainers")
        pod["spec"]["ephemeralContainers"] = [{"name": "debugger", "image": "registry.example/busybox:1"}]
        status, pod = shared_server.json("PUT", f"{PODS}/refusing/ephemeralcontainers", pod)
        assert status == 200, pod
        change(pod["spec"]["ephemeralContainers"])  # type: ignore[operator]
        status, refused = shared_server.json("PUT", f"{PODS}/refusing/ephemeralcontainers", pod)
        assert status == 422, refused
        cause = next(c for c in refused["details"]["causes"] if c["field"] == field)
        assert cause["message"].startswith(message)
    finally:
        run_kubectl(shared_server, "delete", "pod", "refusing", "--wait=false")


def test_a_static_pod_takes_no_ephemeral_containers(shared_server: ServerProcess) -> None:
    # A mirror pod names its node (ValidatePodSpecificAnnotations refuses one without).
    run_kubectl(shared_server, "run", "mirror", "--image=registry.example/app:1",
                "--annotations=kubernetes.io/config.mirror=abc", '--overrides={"spec": {"nodeName": "node-a"}}')
    out = run_kubectl(shared_server, "debug", "mirror", "--image=registry.example/busybox:1", check=False)
    assert out.returncode == 1
    assert "static pods do not support ephemeral containers" in out.stderr


def _debugged(server: ServerProcess, name: str) -> dict:
    """A pod with one ephemeral container, added through the subresource."""
    run_kubectl(server, "run", name, "--image=registry.example/app:1", "--labels=app=debugged")
    status, pod = server.json("GET", f"{PODS}/{name}/ephemeralcontainers")
    pod["spec"]["ephemeralContainers"] = [{"name": "dbg", "image": "busybox", "stdin": True}]
    status, pod = server.json("PUT", f"{PODS}/{name}/ephemeralcontainers", pod)
    assert status == 200, pod
    return pod  # type: ignore[no-any-return]


def test_the_subresource_keeps_the_metadata_a_status_update_keeps(shared_server: ServerProcess) -> None:
    """dropNonEphemeralContainerUpdates resets labels and annotations as ResetObjectMetaForStatus does (the
    reference answers so)."""
    pod = _debugged(shared_server, "relabelled")
    try:
        pod["metadata"]["labels"] = {"app": "other", "b": "3"}
        pod["metadata"]["annotations"] = {"x": "y"}
        pod["spec"]["ephemeralContainers"].append({"name": "dbg2", "image": "busybox"})
        status, updated = shared_server.json("PUT", f"{PODS}/relabelled/ephemeralcontainers", pod)
        assert status == 200, updated
        assert updated["metadata"]["labels"] == {"app": "debugged"}
        assert "annotations" not in updated["metadata"]
        assert [c["name"] for c in updated["spec"]["ephemeralContainers"]] == ["dbg", "dbg2"]
    finally:
        run_kubectl(shared_server, "delete", "pod", "relabelled", "--wait=false")


def test_a_changed_ephemeral_container_is_shown_as_the_internal_struct_diff(shared_server: ServerProcess) -> None:
    pod = _debugged(shared_server, "changed")
    try:
        pod["spec"]["ephemeralContainers"][0]["image"] = "busybox:2"
        status, refused = shared_server.json("PUT", f"{PODS}/changed/ephemeralcontainers", pod)
        assert status == 422
        # The reference's words (kube-apiserver 1.36.2): diff.Diff of the two internal EphemeralContainers.
        assert refused["details"]["causes"] == [{
            "reason": "FieldValueForbidden", "field": "spec.ephemeralContainers",
            "message": 'Forbidden: existing ephemeral containers "dbg" may not be changed\n@@ -1,6 +1,6 @@\n {\n'
                       '  "Name": "dbg",\n- "Image": "busybox",\n+ "Image": "busybox:2",\n  "Command": null,\n'
                       '  "Args": null,\n  "WorkingDir": "",\n'}]
    finally:
        run_kubectl(shared_server, "delete", "pod", "changed", "--wait=false")


def test_an_update_of_the_pod_may_not_change_its_ephemeral_containers(shared_server: ServerProcess) -> None:
    """ValidatePodUpdate compares them with the rest of the spec: only the subresource changes them."""
    _debugged(shared_server, "main-resource")
    try:
        status, refused = shared_server.json(
            "PATCH", f"{PODS}/main-resource", {"spec": {"ephemeralContainers": [
                {"name": "dbg", "image": "busybox", "stdin": False}]}},
            content_type="application/strategic-merge-patch+json")
        assert status == 422
        [cause] = refused["details"]["causes"]
        assert cause["field"] == "spec"
        assert cause["message"].startswith("Forbidden: pod updates may not change fields other than ")
        assert cause["message"].endswith('\n    "SecurityContext": null,\n-   "Stdin": true,\n+   "Stdin": false,\n'
                                         '    "StdinOnce": false,\n    "TTY": false,\n    "TargetContainerName": ""\n')
    finally:
        run_kubectl(shared_server, "delete", "pod", "main-resource", "--wait=false")
