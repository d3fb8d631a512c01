"""Simulated nodes: a Node that registers, heartbeats through its Lease, and a fake kubelet that runs
nothing but moves the pods bound to it through their lives as a kubelet reports them.

`--simulate-nodes N` registers `node-1`..`node-N`; a Node created by anyone with the annotation
`fastkube.io/simulated: "true"` is looked after the same way, and taking the annotation off stops
its kubelet (the node goes Unknown once the node monitor's grace period has passed). A bound pod gets a pod IP from its node's
podCIDR, Running, Ready and running container statuses, once its node has a podCIDR and its claims are
bound. Deleting a pod stops its containers at
once (they exit on SIGTERM) unless the pod's `fastkube.io/simulated-termination-seconds` says they
take longer, never longer than the deletion's grace period; then the kubelet removes the pod, as
upstream's does, with a zero grace period. Pods meant to finish (restartPolicy Never or OnFailure)
run for a second (`fastkube.io/simulated-run-seconds`) and exit 0; `fastkube.io/simulated-exit-code`
makes a pod's containers exit with that code: Succeeded or Failed under restartPolicy Never (or
OnFailure and 0), restarting in CrashLoopBackOff otherwise.
"""

from __future__ import annotations

import datetime
import hashlib
import ipaddress
from typing import Hashable

from apiserver import errors
from apiserver.controllers.base import Context, Controller, Obj, either, object_key
from apiserver.controllers.client import KUBE_VERSION, KUBELET
from apiserver.controllers.volumes import claim_names, is_bound
from apiserver.kinds.objects import now_rfc3339
from apiserver.simulated.annotations import (
    EXIT_CODE,
    RUN_SECONDS,
    SIMULATED,
    TERMINATION_SECONDS,
    is_simulated,
)

BATCH_RUN_SECONDS = 1.0  # how long a pod that is meant to finish (restartPolicy Never/OnFailure) runs
LEASE_NAMESPACE = "kube-node-lease"
LEASE_SECONDS = 40
RENEW_SECONDS = 10.0  # the kubelet renews its lease every quarter of its duration

_CAPACITY = {"cpu": "8", "ephemeral-storage": "102626232Ki", "hugepages-1Gi": "0", "hugepages-2Mi": "0",
             "memory": "16369604Ki", "pods": "110"}


def _micro_time() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def node_manifest(name: str, index: int, with_cidr: bool = True) -> Obj:
    """A Node as a kubelet registers it, on a made-up machine; without a podCIDR when the node IPAM
    controller gives it one, as it gives a real kubelet's node."""
    cidr = f"10.244.{index}.0/24"
    now = now_rfc3339()
    conditions = [
        {"type": kind, "status": "False", "lastHeartbeatTime": now, "lastTransitionTime": now,
         "reason": reason, "message": message}
        for kind, reason, message in (
            ("MemoryPressure", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
            ("DiskPressure", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
            ("PIDPressure", "KubeletHasSufficientPID", "kubelet has sufficient PID available"))]
    conditions.append({"type": "Ready", "status": "True", "lastHeartbeatTime": now, "lastTransitionTime": now,
                       "reason": "KubeletReady", "message": "kubelet is posting ready status"})
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "annotations": {SIMULATED: "true", "node.alpha.kubernetes.io/ttl": "0"},
                     "labels": {"beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux",
                                "kubernetes.io/arch": "amd64", "kubernetes.io/hostname": name,
                                "kubernetes.io/os": "linux"}},
        "spec": {"podCIDR": cidr, "podCIDRs": [cidr]} if with_cidr else {},
        "status": {
            "capacity": dict(_CAPACITY), "allocatable": dict(_CAPACITY), "conditions": conditions,
            "addresses": [{"type": "InternalIP", "address": f"172.18.0.{index + 1}"},
                          {"type": "Hostname", "address": name}],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {"machineID": hashlib.md5(name.encode()).hexdigest(),
                         "systemUUID": hashlib.md5(b"uuid" + name.encode()).hexdigest(),
                         "bootID": hashlib.md5(b"boot" + name.encode()).hexdigest(),
                         "kernelVersion": "6.8.0-fastkube", "osImage": "Debian GNU/Linux 12 (bookworm)",
                         "containerRuntimeVersion": "containerd://2.1.0", "kubeletVersion": KUBE_VERSION,
                         "kubeProxyVersion": "", "operatingSystem": "linux", "architecture": "amd64"}}}


def _image_ref(image: str) -> str:
    """The image as the runtime reports it: registry and tag filled in."""
    name, tag = image, ""
    if "@" not in image:
        last = image.rsplit("/", 1)[-1]
        if ":" not in last:
            tag = ":latest"
    first = name.split("/", 1)[0]
    if "/" not in name:
        name = "docker.io/library/" + name
    elif "." not in first and ":" not in first and first != "localhost":
        name = "docker.io/" + name
    return name + tag


def _container_status(container: Obj, pod_uid: str, state: Obj, ready: bool, restarts: int = 0,
                      last_state: Obj | None = None) -> Obj:
    image = _image_ref(str(container.get("image", "")))
    digest = hashlib.sha256(image.encode()).hexdigest()
    cid = hashlib.sha256(f"{pod_uid}/{container['name']}/{restarts}".encode()).hexdigest()
    return {"name": container["name"], "state": state, "lastState": last_state or {}, "ready": ready,
            "restartCount": restarts, "image": image, "imageID": f"{image.rsplit(':', 1)[0]}@sha256:{digest}",
            "containerID": f"containerd://{cid}", "started": "running" in state}


class SimulatedNodes(Controller):
    name = "fastkube-simulated-nodes"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.client = ctx.client.with_agent(KUBELET)
        self.nodes_type = ctx.resource("", "v1", "nodes")
        self.pods_type = ctx.resource("", "v1", "pods")
        self.leases_type = ctx.resource("coordination.k8s.io", "v1", "leases")
        self.nodes = ctx.informer("", "v1", "nodes")
        self.pods = ctx.informer("", "v1", "pods")
        self.own = {f"node-{i}": i for i in range(1, ctx.simulated_nodes + 1)}
        self.ipam = "node-ipam-controller" in ctx.enabled  # nodes get their podCIDR from it
        # Renewed well within the grace the node lifecycle controller gives, however short it is set.
        self.renew_seconds = min(RENEW_SECONDS, ctx.node_monitor_grace_seconds / 4)
        self.ips: dict[tuple[str, str], str] = {}  # handed out but perhaps not seen back yet
        self.claims = ctx.informer("", "v1", "persistentvolumeclaims")
        self.nodes.add_handler(self._node_changed)
        self.pods.add_handler(self._pod_changed)
        self.claims.add_handler(self._claim_changed)
        for name in self.own:
            self.queue.add(("node", name))

    def _node_changed(self, old: Obj | None, new: Obj | None) -> None:
        if new is not None and is_simulated(new) and old is None:
            self.queue.add(("node", new["metadata"]["name"]))
        if new is not None and old is not None and (new.get("spec") or {}).get("podCIDR") and \
                not (old.get("spec") or {}).get("podCIDR"):
            # Its network is ready: the pods that waited for it start.
            name = new["metadata"]["name"]
            for pod in self.pods:
                if (pod.get("spec") or {}).get("nodeName") == name:
                    self.queue.add(("pod", *object_key(pod)))

    def _claim_changed(self, old: Obj | None, new: Obj | None) -> None:
        if new is None or not is_bound(new):
            return
        namespace, name = object_key(new)
        for pod in self.pods.items(namespace):  # pods that waited for it to mount
            if (pod.get("spec") or {}).get("nodeName") and name in claim_names(pod):
                self.queue.add(("pod", namespace, pod["metadata"]["name"]))

    def _volumes_ready(self, pod: Obj) -> bool:
        """Whether every claim the pod names is bound, as the kubelet mounts none before."""
        namespace = pod["metadata"].get("namespace", "")
        return all((claim := self.claims.get(namespace, name)) is not None and is_bound(claim)
                   for name in claim_names(pod))

    def _pod_changed(self, old: Obj | None, new: Obj | None) -> None:
        pod = either(old, new)
        if new is None:
            self.ips.pop(object_key(pod), None)
        elif (pod.get("spec") or {}).get("nodeName"):
            self.queue.add(("pod", *object_key(pod)))

    async def sync(self, key: Hashable) -> None:
        assert isinstance(key, tuple)
        if key[0] == "node":
            await self._heartbeat(key[1])
        else:
            await self._pod(key[1], key[2])

    # -- the node --------------------------------------------------------------------------------

    async def _heartbeat(self, name: str) -> None:
        node = self.nodes.get("", name) or self.client.get(self.nodes_type, "", name)
        if node is None:
            if name not in self.own:
                return
            try:
                node = await self.client.create(self.nodes_type, "", node_manifest(name, self.own[name], not self.ipam))
            except errors.ApiError as exc:
                if exc.code != 409:
                    raise
                return  # registered meanwhile: its add brings it back here
        if not is_simulated(node):
            return
        await self._post_ready(node)
        lease = self.client.get(self.leases_type, LEASE_NAMESPACE, name)
        if lease is None:
            await self.client.create(self.leases_type, LEASE_NAMESPACE, {
                "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                "metadata": {"name": name, "namespace": LEASE_NAMESPACE, "ownerReferences": [{
                    "apiVersion": "v1", "kind": "Node", "name": name, "uid": node["metadata"]["uid"]}]},
                "spec": {"holderIdentity": name, "leaseDurationSeconds": LEASE_SECONDS, "renewTime": _micro_time()}})
        else:
            lease["spec"]["renewTime"] = _micro_time()
            await self.client.update(self.leases_type, lease)
        self.queue.add_after(("node", name), self.renew_seconds)

    async def _post_ready(self, node: Obj) -> None:
        """Back from silence (a restart of the server, which is also this kubelet): say Ready again."""
        conditions = (node.get("status") or {}).get("conditions") or []
        if all(c.get("status") == ("True" if c.get("type") == "Ready" else "False") for c in conditions):
            return
        fresh = {c["type"]: c for c in node_manifest(node["metadata"]["name"], 0)["status"]["conditions"]}
        node["status"]["conditions"] = [fresh.get(c.get("type"), c) for c in conditions]
        await self.client.update(self.nodes_type, node, subresource="status")

    # -- its pods --------------------------------------------------------------------------------

    async def _pod(self, namespace: str, name: str) -> None:
        pod = self.pods.get(namespace, name)
        if pod is None:
            return
        node = self.nodes.get("", pod["spec"]["nodeName"])
        if not is_simulated(node):
            return
        assert node is not None
        if pod["metadata"].get("deletionTimestamp"):
            await self._stop(pod)
            return
        status = pod.get("status") or {}
        if status.get("phase") in ("Succeeded", "Failed"):
            return
        annotations = pod["metadata"].get("annotations") or {}
        if status.get("phase") != "Running":
            if self.ipam and not (node.get("spec") or {}).get("podCIDR") and not pod["spec"].get("hostNetwork"):
                return  # no pod network on the node yet: its podCIDR's arrival brings the pod back
            if not self._volumes_ready(pod):
                return  # its claims' binding brings it back
            await self._start(pod, node)
            return
        if self._exited(pod):
            return
        batch = pod["spec"].get("restartPolicy", "Always") != "Always"
        if EXIT_CODE not in annotations and not batch:
            return  # a server runs until it is deleted
        left = self._run_left(pod, float(annotations.get(RUN_SECONDS, BATCH_RUN_SECONDS if batch else 0)))
        if left > 0:
            self.queue.add_after(("pod", namespace, name), left)
            return
        await self._exit(pod, int(annotations.get(EXIT_CODE, 0)))

    def _run_left(self, pod: Obj, seconds: float) -> float:
        started = (pod.get("status") or {}).get("startTime")
        if not started:
            return 0.0
        began = datetime.datetime.fromisoformat(started.replace("Z", "+00:00"))
        return seconds - (datetime.datetime.now(datetime.timezone.utc) - began).total_seconds()

    def _exited(self, pod: Obj) -> bool:
        return any("running" not in (s.get("state") or {})
                   for s in (pod.get("status") or {}).get("containerStatuses") or ())

    def _pod_ip(self, pod: Obj, node: Obj) -> str:
        key = object_key(pod)
        if key in self.ips:
            return self.ips[key]
        network = ipaddress.ip_network((node.get("spec") or {}).get("podCIDR") or "10.244.0.0/24", strict=False)
        node_name = node["metadata"]["name"]
        taken = set(self.ips.values())
        taken.update(str((p.get("status") or {}).get("podIP")) for p in self.pods
                     if (p.get("spec") or {}).get("nodeName") == node_name)
        for address in list(network.hosts())[1:]:
            if str(address) not in taken:
                self.ips[key] = str(address)
                return str(address)
        raise errors.internal(f"node {node_name} has no pod IP left in {network}")

    async def _start(self, pod: Obj, node: Obj) -> None:
        now = now_rfc3339()
        host_ip = next((a["address"] for a in (node.get("status") or {}).get("addresses") or ()
                        if a.get("type") == "InternalIP"), "")
        pod_ip = host_ip if (pod.get("spec") or {}).get("hostNetwork") else self._pod_ip(pod, node)
        uid = pod["metadata"].get("uid", "")
        spec = pod["spec"]
        status = dict(pod.get("status") or {})
        scheduled = next((c for c in status.get("conditions") or () if c.get("type") == "PodScheduled"),
                         {"type": "PodScheduled", "status": "True", "lastProbeTime": None, "lastTransitionTime": now})
        status.update({
            "phase": "Running",
            "conditions": [
                {"type": "PodReadyToStartContainers", "status": "True", "lastProbeTime": None, "lastTransitionTime": now},
                {"type": "Initialized", "status": "True", "lastProbeTime": None, "lastTransitionTime": now},
                {"type": "Ready", "status": "True", "lastProbeTime": None, "lastTransitionTime": now},
                {"type": "ContainersReady", "status": "True", "lastProbeTime": None, "lastTransitionTime": now},
                scheduled],
            "hostIP": host_ip, "hostIPs": [{"ip": host_ip}], "podIP": pod_ip, "podIPs": [{"ip": pod_ip}],
            "startTime": status.get("startTime") or now,
            "containerStatuses": [_container_status(c, uid, {"running": {"startedAt": now}}, True)
                                  for c in spec.get("containers") or ()],
        })
        if spec.get("initContainers"):
            status["initContainerStatuses"] = [
                _container_status(c, uid, {"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": now,
                                                          "finishedAt": now}}, True)
                for c in spec["initContainers"]]
        pod["status"] = status
        await self.client.update(self.pods_type, pod, subresource="status")

    async def _exit(self, pod: Obj, code: int) -> None:
        now = now_rfc3339()
        policy = pod["spec"].get("restartPolicy", "Always")
        done = policy == "Never" or (policy == "OnFailure" and code == 0)
        reason = "Completed" if code == 0 else "Error"
        status = pod["status"]
        statuses = []
        for old, container in zip(status.get("containerStatuses") or (), pod["spec"].get("containers") or ()):
            started = (old.get("state") or {}).get("running", {}).get("startedAt", now)
            terminated = {"terminated": {"exitCode": code, "reason": reason, "startedAt": started, "finishedAt": now,
                                         "containerID": old.get("containerID")}}
            if done:
                statuses.append({**old, "state": terminated, "ready": False, "started": False})
            else:
                waiting = {"waiting": {"reason": "CrashLoopBackOff", "message": f"back-off 10s restarting failed "
                                       f"container={container['name']} pod={pod['metadata']['name']}_"
                                       f"{pod['metadata'].get('namespace')}({pod['metadata'].get('uid')})"}}
                statuses.append({**old, "state": waiting, "lastState": terminated, "ready": False, "started": False,
                                 "restartCount": int(old.get("restartCount", 0)) + 1})
        status["containerStatuses"] = statuses
        if done:
            status["phase"] = "Succeeded" if code == 0 else "Failed"
        for condition in status.get("conditions") or ():
            if condition.get("type") in ("Ready", "ContainersReady"):
                condition.update({"status": "False", "lastTransitionTime": now,
                                  "reason": "PodCompleted" if done else "ContainersNotReady"})
                if not done:
                    condition["message"] = f"containers with unready status: [{statuses[0]['name']}]" if statuses \
                        else ""
        await self.client.update(self.pods_type, pod, subresource="status")

    async def _stop(self, pod: Obj) -> None:
        meta = pod["metadata"]
        wanted = int((meta.get("annotations") or {}).get(TERMINATION_SECONDS, 0) or 0)
        grace = int(meta.get("deletionGracePeriodSeconds") or 0)
        deadline = datetime.datetime.fromisoformat(meta["deletionTimestamp"].replace("Z", "+00:00"))
        started = deadline - datetime.timedelta(seconds=grace)
        stops = started + datetime.timedelta(seconds=min(wanted, grace))
        left = (stops - datetime.datetime.now(datetime.timezone.utc)).total_seconds()
        if left > 0:
            self.queue.add_after(("pod", *object_key(pod)), left)
            return
        await self.client.delete(self.pods_type, meta.get("namespace", ""), meta["name"],
                                 {"gracePeriodSeconds": 0, "preconditions": {"uid": meta.get("uid")}})
