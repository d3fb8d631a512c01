"""The controller manager's seam: the --controllers flag, the work queue, and the first controllers
(a `default` ServiceAccount and `kube-root-ca.crt` in every namespace), on a real server."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from typing import Any, Iterator

import pytest
from support import REPO, ServerProcess, run_kubectl, wait_for

from apiserver.controllers.manager import enabled_controllers
from apiserver.controllers.workqueue import WorkQueue

ALL = ["serviceaccount-controller", "root-ca-certificate-publisher-controller"]  # the first two; more follow


@pytest.mark.parametrize("flag, expected", [
    ("*", ALL),
    ("-*", []),
    ("", []),
    ("serviceaccount", ["serviceaccount-controller"]),
    ("*,-serviceaccount-controller", ["root-ca-certificate-publisher-controller"]),
    ("-serviceaccount,*,serviceaccount", ["root-ca-certificate-publisher-controller"]),  # the first mention decides
    ("-*,root-ca-certificate-publisher", ["root-ca-certificate-publisher-controller"]),
])
def test_controllers_flag_reads_as_kube_controller_managers(flag: str, expected: list[str]) -> None:
    assert [n for n in enabled_controllers(flag) if n in ALL] == expected


@pytest.mark.parametrize("alias, name", [
    ("persistentvolume-binder", "persistentvolume-binder-controller"),
    ("pvc-protection", "persistentvolumeclaim-protection-controller"),
    ("pv-protection", "persistentvolume-protection-controller"),
    ("csrsigning", "certificatesigningrequest-signing-controller"),
    ("horizontalpodautoscaling", "horizontal-pod-autoscaler-controller"),
    ("podgc", "pod-garbage-collector-controller"),
    ("nodeipam", "node-ipam-controller"),
    ("service", "service-lb-controller"),
])
def test_kube_controller_managers_aliases_name_the_new_controllers(alias: str, name: str) -> None:
    # The short names kube-controller-manager still accepts (cmd/kube-controller-manager/app aliases).
    assert enabled_controllers(f"-*,{alias}") == [name]
    assert name in enabled_controllers("*") and name not in enabled_controllers(f"*,-{alias}")


@pytest.mark.parametrize("flag, runs", [
    ("*", True),
    ("*,-fastkube-simulated-nodes", False),  # test/cmd's set-up: kube-controller-manager alone
    ("-*,fastkube-simulated-nodes", True),
    ("*,-fastkube-simulated-nodes,fastkube-simulated-provisioner", True),  # named itself, it decides
    ("*,-fastkube-simulated-provisioner", False),
])
def test_the_simulated_provisioner_and_node_ipam_follow_the_simulated_nodes(flag: str, runs: bool) -> None:
    assert ("fastkube-simulated-provisioner" in enabled_controllers(flag)) is runs
    assert ("node-ipam-controller" in enabled_controllers(flag.replace("fastkube-simulated-provisioner",
                                                                      "node-ipam-controller"))) is runs


def test_an_unknown_controller_is_refused_at_start(tmp_path: Any) -> None:
    result = subprocess.run([sys.executable, "-m", "apiserver", "--data-dir", str(tmp_path),
                             "--controllers=*,nope"], cwd=REPO, capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert "'nope' is not in the list of known controllers" in result.stderr


def test_work_queue_folds_repeats_and_never_hands_out_a_key_twice_at_once() -> None:
    async def scenario() -> list[str]:
        queue: WorkQueue[str] = WorkQueue()
        queue.add("a")
        queue.add("b")
        queue.add("a")
        assert len(queue) == 2
        first = await queue.get()
        queue.add(first)  # changed while being worked on: waits until done
        assert len(queue) == 1
        seen = [first, await queue.get()]
        queue.done(first)
        seen.append(await queue.get())
        queue.add_after("c", 0.01)
        seen.append(await asyncio.wait_for(queue.get(), 5))
        return seen

    assert asyncio.run(scenario()) == ["a", "b", "a", "c"]




@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(str(tmp_path_factory.mktemp("controllers")), extra_args=["--controllers=*"]) as proc:
        yield proc


def get(server: ServerProcess, path: str) -> Any:
    status, body = server.json("GET", path)
    return body if status == 200 else None


def metric(server: ServerProcess, name: str) -> dict[str, float]:
    status, raw = server.request("GET", "/metrics")
    assert status == 200
    values = {}
    for line in raw.decode().splitlines():
        if line.startswith(name + "{"):
            labels, _, value = line.partition("} ")
            values[labels[len(name) + 1:]] = float(value)
    return values


def test_every_namespace_gets_a_default_service_account_and_the_root_ca(cluster: ServerProcess) -> None:
    with open(cluster.ca) as f:
        ca_pem = f.read()
    for existing in ("default", "kube-system", "kube-public", "kube-node-lease"):
        wait_for(f"default/{existing}", lambda: get(cluster, f"/api/v1/namespaces/{existing}/serviceaccounts/default"))
    run_kubectl(cluster, "create", "namespace", "team-a")
    account = wait_for("the service account", lambda: get(cluster, "/api/v1/namespaces/team-a/serviceaccounts/default"))
    assert account["metadata"]["namespace"] == "team-a"
    cm = wait_for("the root CA", lambda: get(cluster, "/api/v1/namespaces/team-a/configmaps/kube-root-ca.crt"))
    assert cm["data"] == {"ca.crt": ca_pem}
    assert cm["metadata"]["annotations"]["kubernetes.io/description"].startswith("Contains a CA bundle")
    assert [(m["manager"], m["operation"]) for m in cm["metadata"]["managedFields"]] == [
        ("kube-controller-manager", "Update")]
    out = run_kubectl(cluster, "get", "serviceaccounts,configmaps", "-n", "team-a", "-o", "name").stdout.split()
    assert out == ["serviceaccount/default", "configmap/kube-root-ca.crt"]


def test_what_is_removed_or_changed_is_put_back(cluster: ServerProcess) -> None:
    run_kubectl(cluster, "create", "namespace", "team-b")
    first = wait_for("the account", lambda: get(cluster, "/api/v1/namespaces/team-b/serviceaccounts/default"))
    wait_for("the root CA", lambda: get(cluster, "/api/v1/namespaces/team-b/configmaps/kube-root-ca.crt"))
    run_kubectl(cluster, "delete", "serviceaccount", "default", "-n", "team-b")
    again = wait_for("a new account", lambda: (a := get(cluster, "/api/v1/namespaces/team-b/serviceaccounts/default"))
                     and a["metadata"]["uid"] != first["metadata"]["uid"] and a)
    assert again["metadata"]["name"] == "default"
    run_kubectl(cluster, "patch", "configmap", "kube-root-ca.crt", "-n", "team-b", "--type=merge",
                "-p", json.dumps({"data": {"ca.crt": "forged", "extra": "x"}}))
    with open(cluster.ca) as f:
        ca_pem = f.read()
    restored = wait_for("the CA put back", lambda: (c := get(cluster, "/api/v1/namespaces/team-b/configmaps/"
                                                              "kube-root-ca.crt")) and c["data"].get("ca.crt") == ca_pem and c)
    assert restored["data"] == {"ca.crt": ca_pem}


def test_a_terminated_namespace_is_left_alone(cluster: ServerProcess) -> None:
    run_kubectl(cluster, "create", "namespace", "short-lived")
    wait_for("the account", lambda: get(cluster, "/api/v1/namespaces/short-lived/serviceaccounts/default"))
    run_kubectl(cluster, "delete", "namespace", "short-lived", "--wait=true", "--timeout=20s")
    # A later write is seen by the controllers after the deletion: by then nothing may have come back.
    run_kubectl(cluster, "create", "namespace", "after")
    wait_for("the later account", lambda: get(cluster, "/api/v1/namespaces/after/serviceaccounts/default"))
    assert get(cluster, "/api/v1/namespaces/short-lived") is None
    assert get(cluster, "/api/v1/namespaces/short-lived/serviceaccounts/default") is None


def test_controllers_follow_the_change_feed_without_resyncing(cluster: ServerProcess) -> None:
    for i in range(20):
        run_kubectl(cluster, "create", "namespace", f"load-{i}")
    for i in range(20):
        wait_for(f"load-{i}", lambda: get(cluster, f"/api/v1/namespaces/load-{i}/configmaps/kube-root-ca.crt"))
    relists = metric(cluster, "apiserver_controller_relists_total")
    assert set(relists) >= {'resource="namespaces"', 'resource="serviceaccounts"', 'resource="configmaps"'}
    assert all(value == 0 for value in relists.values()), relists


def test_metrics_show_the_controllers_unfinished_work_until_it_is_done(cluster: ServerProcess) -> None:
    """The gauges benches/api_load waits on: one per running controller and per informer, back at zero
    once every write has been handled (the namespaces' accounts and CA bundles made)."""
    for i in range(10):
        run_kubectl(cluster, "create", "namespace", f"backlog-{i}")
    keys = metric(cluster, "apiserver_controller_queue_keys")
    assert {'controller="serviceaccount-controller"', 'controller="root-ca-certificate-publisher-controller"'} <= set(keys)
    assert 'resource="namespaces"' in metric(cluster, "apiserver_controller_informer_backlog")
    for i in range(10):
        path = f"/api/v1/namespaces/backlog-{i}/configmaps/kube-root-ca.crt"
        wait_for(path, lambda path=path: get(cluster, path))
    wait_for("no unfinished work", lambda: sum(metric(cluster, "apiserver_controller_queue_keys").values())
             + sum(metric(cluster, "apiserver_controller_informer_backlog").values()) == 0)


def test_no_controllers_flag_starts_none(server: ServerProcess) -> None:
    assert "--controllers=-*" in server.args
    assert "controllers running" not in server.log()
    run_kubectl(server, "create", "namespace", "quiet")
    assert get(server, "/api/v1/namespaces/quiet/serviceaccounts")["items"] == []
    assert metric(server, "apiserver_controller_relists_total") == {}
    assert metric(server, "apiserver_controller_queue_keys") == {}
