"""The kubelets of simulated nodes answer: `kubectl logs` (follow, tail, timestamps, previous, since, byte
limits, container choice), exec, attach and port-forward refused as a kubelet refuses a container its
runtime does not have, and nodes/proxy reaching the kubelet's own paths."""

from __future__ import annotations

import json
import os
import re
import ssl
import subprocess
from typing import Any, Iterator

import pytest
import websocket  # websocket-client, which the kubernetes client brings
from support import ServerProcess, kubectl_path, run_kubectl, wait_for

PODS = "/api/v1/namespaces/default/pods"
LOGS = "fastkube.io/simulated-logs"
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "stream_frames.json")) as f:
    RECORDED = json.load(f)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(str(tmp_path_factory.mktemp("kubelets")),
                       extra_args=["--controllers=*", "--simulate-nodes", "3"]) as proc:
        yield proc


def running(server: ServerProcess, name: str) -> Any:
    status, pod = server.json("GET", f"{PODS}/{name}")
    return pod if status == 200 and (pod.get("status") or {}).get("phase") == "Running" else None


def run_pod(server: ServerProcess, name: str, *args: str) -> Any:
    run_kubectl(server, "run", name, "--image=nginx", *args)
    return wait_for(f"{name} running", lambda: running(server, name))


def test_logs_are_the_annotated_lines_with_the_kubelets_options(cluster: ServerProcess) -> None:
    pod = run_pod(cluster, "greeter", f"--annotations={LOGS}=starting\nlistening on :8080\nready")
    assert run_kubectl(cluster, "logs", "greeter").stdout == "starting\nlistening on :8080\nready\n"
    assert run_kubectl(cluster, "logs", "greeter", "--tail=2").stdout == "listening on :8080\nready\n"
    assert run_kubectl(cluster, "logs", "greeter", "--tail=0").stdout == ""
    assert run_kubectl(cluster, "logs", "greeter", "--limit-bytes=12").stdout == "starting\nlis"
    assert run_kubectl(cluster, "logs", "greeter", "--since=1h").stdout.count("\n") == 3
    stamped = run_kubectl(cluster, "logs", "greeter", "--timestamps", "--tail=1").stdout
    started = pod["status"]["containerStatuses"][0]["state"]["running"]["startedAt"]
    assert stamped == f"{started[:-1]}.000000000Z ready\n"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z ready\n", stamped)


def test_a_pod_without_the_annotation_says_where_it_runs(cluster: ServerProcess) -> None:
    pod = run_pod(cluster, "plain")
    printed = run_kubectl(cluster, "logs", "pod/plain").stdout
    assert printed == (f"fastkube: container plain of pod default/plain runs on the simulated node "
                       f"{pod['spec']['nodeName']}; set the pod's {LOGS} annotation to choose its log lines\n")


def test_previous_logs_exist_only_after_a_restart(cluster: ServerProcess) -> None:
    run_pod(cluster, "steady")
    refused = run_kubectl(cluster, "logs", "steady", "--previous", check=False)
    assert refused.returncode == 1
    assert refused.stderr.strip() == ('Error from server (BadRequest): previous terminated container "steady" in '
                                      'pod "steady" not found')
    run_kubectl(cluster, "run", "crasher", "--image=busybox", "--annotations=fastkube.io/simulated-exit-code=2",
                f"--annotations={LOGS}=panic: no config")
    wait_for("crasher restarting", lambda: (p := cluster.json("GET", f"{PODS}/crasher")[1])
             and p["status"].get("containerStatuses", [{}])[0].get("restartCount"))
    assert run_kubectl(cluster, "logs", "crasher", "--previous").stdout == "panic: no config\n"
    assert run_kubectl(cluster, "logs", "crasher").stdout == "panic: no config\n"  # the run that ended


def test_the_container_is_chosen_as_upstream_chooses_it(cluster: ServerProcess) -> None:
    overrides = {"spec": {"containers": [{"name": "app", "image": "nginx"}, {"name": "proxy", "image": "envoy"}]}}
    run_kubectl(cluster, "run", "pair", "--image=nginx", "--overrides", json.dumps(overrides),
                f"--annotations={LOGS}-proxy=proxy up")
    wait_for("pair running", lambda: running(cluster, "pair"))
    assert run_kubectl(cluster, "logs", "pair", "-c", "proxy").stdout == "proxy up\n"
    assert run_kubectl(cluster, "logs", "pair", "-c", "app").stdout.startswith("fastkube: container app ")
    status, body = cluster.json("GET", f"{PODS}/pair/log")
    assert (status, body["message"]) == (400, ("a container name must be specified for pod pair, choose one of: "
                                               "[app proxy]"))
    status, body = cluster.json("GET", f"{PODS}/pair/log?container=db")
    assert (status, body["reason"], body["message"]) == (400, "BadRequest", "container db is not valid for pod pair")
    printed = run_kubectl(cluster, "logs", "pair", "--all-containers", "--prefix").stdout
    assert "[pod/pair/proxy] proxy up\n" in printed and "[pod/pair/app] fastkube: container app" in printed


def test_follow_prints_new_lines_until_the_container_stops(cluster: ServerProcess) -> None:
    run_pod(cluster, "tailed", f"--annotations={LOGS}=one")
    follower = subprocess.Popen([kubectl_path(), "--kubeconfig", cluster.kubeconfig, "logs", "-f", "tailed"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert follower.stdout is not None
        assert follower.stdout.readline() == "one\n"
        run_kubectl(cluster, "annotate", "pod", "tailed", "--overwrite", f"{LOGS}=one\ntwo\nthree")
        assert follower.stdout.readline() == "two\n"
        assert follower.stdout.readline() == "three\n"
        run_kubectl(cluster, "delete", "pod", "tailed", "--wait=false")
        assert follower.wait(30) == 0  # the container stopped: its log ended
        assert follower.stdout.read() == ""
    finally:
        follower.kill()
        follower.wait()


@pytest.fixture(scope="module")
def web(cluster: ServerProcess) -> None:
    """The pod the reference's answers name (pod web, container web)."""
    run_pod(cluster, "web")


@pytest.mark.usefixtures("web")
def test_exec_attach_and_port_forward_say_the_container_is_not_there(cluster: ServerProcess) -> None:
    # What kubectl printed against kube-apiserver 1.36 whose kubelet refused the same way
    # (tools/capture_stream_frames.py): exec and attach over WebSocket, port-forward over SPDY.
    for args in (("exec", "web", "--", "ls"), ("attach", "web"), ("port-forward", "pod/web", "18080:80")):
        refused = run_kubectl(cluster, *args, check=False, timeout=30)
        assert [refused.returncode, refused.stderr.strip().splitlines()[-1]] == RECORDED["kubectl"][args[0]]
        assert "no such host" not in refused.stderr


@pytest.mark.parametrize("subresource, query", [("exec", "command=ls&container=web&stderr=true&stdout=true"),
                                                ("attach", "container=web&stderr=true&stdout=true")])
@pytest.mark.usefixtures("web")
def test_the_websocket_frames_are_the_reference_s(cluster: ServerProcess, subresource: str, query: str) -> None:
    ws = websocket.create_connection(
        f"wss://127.0.0.1:{cluster.port}/api/v1/namespaces/default/pods/web/{subresource}?{query}",
        sslopt={"cert_reqs": ssl.CERT_REQUIRED, "ca_certs": cluster.ca}, header=[f"Authorization: Bearer {cluster.token}"],
        subprotocols=["v5.channel.k8s.io", "v4.channel.k8s.io"])
    frames: list[Any] = [ws.getsubprotocol()]
    while True:
        opcode, data = ws.recv_data(control_frame=True)
        frames.append([opcode, data.decode("latin-1")])
        if opcode == websocket.ABNF.OPCODE_CLOSE:
            break
    assert frames == RECORDED["frames"][subresource]


def test_nodes_proxy_reaches_the_simulated_kubelet(cluster: ServerProcess) -> None:
    pod = run_pod(cluster, "proxied", f"--annotations={LOGS}=via the node")
    node = pod["spec"]["nodeName"]
    assert run_kubectl(cluster, "get", "--raw", f"/api/v1/nodes/{node}/proxy/healthz").stdout == "ok"
    listed = json.loads(run_kubectl(cluster, "get", "--raw", f"/api/v1/nodes/{node}/proxy/pods").stdout)
    assert listed["kind"] == "PodList" and "proxied" in [p["metadata"]["name"] for p in listed["items"]]
    assert {p["spec"]["nodeName"] for p in listed["items"]} == {node}
    logs = run_kubectl(cluster, "get", "--raw", f"/api/v1/nodes/{node}/proxy/containerLogs/default/proxied/proxied")
    assert logs.stdout == "via the node\n"
    missing = run_kubectl(cluster, "get", "--raw", f"/api/v1/nodes/{node}/proxy/configz", check=False)
    assert missing.returncode == 1
    assert "(NotFound)" in missing.stderr
