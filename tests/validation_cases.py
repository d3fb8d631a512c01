"""Writes that kube-apiserver 1.36.2 refuses (or takes), one per rule, with the runner that sends them.

Each case is an object created with dryRun=All, or, with `patch`, an object created for real and then
merge-patched (dryRun=All) and deleted again. `tools/capture_validation.py` records the reference's
answers to these into `validation_answers.json`; `test_validation_answers.py` replays them against ours.
The case's own name keeps created objects apart; nothing here depends on a case before it.
"""

from __future__ import annotations

import copy
import re
import time
from typing import Any, Callable

Obj = dict[str, Any]
# (method, path, body, content type) -> (status, decoded body)
Send = Callable[[str, str, Any, str], tuple[int, Any]]

NAMESPACE = "validation"
ADMIN_NAMESPACE = "validation-admin"  # labelled for admin access to devices


def _pod(**spec: Any) -> Obj:
    base: Obj = {"containers": [{"name": "app", "image": "nginx:1.27"}]}
    base.update(spec)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": base}


def _container(**fields: Any) -> Obj:
    c: Obj = {"name": "app", "image": "nginx:1.27"}
    c.update(fields)
    return c


def _meta(obj: Obj, **meta: Any) -> Obj:
    out = copy.deepcopy(obj)
    out["metadata"].update(meta)
    return out


_LABELS = {"app": "web"}
_TEMPLATE = {"metadata": {"labels": _LABELS}, "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}}


def _deployment(**spec: Any) -> Obj:
    base: Obj = {"selector": {"matchLabels": _LABELS}, "template": copy.deepcopy(_TEMPLATE)}
    base.update(spec)
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": base}


def _stateful_set(**spec: Any) -> Obj:
    base: Obj = {"selector": {"matchLabels": _LABELS}, "serviceName": "web", "template": copy.deepcopy(_TEMPLATE)}
    base.update(spec)
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "s"}, "spec": base}


def _daemon_set(**spec: Any) -> Obj:
    base: Obj = {"selector": {"matchLabels": _LABELS}, "template": copy.deepcopy(_TEMPLATE)}
    base.update(spec)
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "ds"}, "spec": base}


def _job(**spec: Any) -> Obj:
    template = {"spec": {"restartPolicy": "Never", "containers": [{"name": "app", "image": "busybox:1.36"}]}}
    base: Obj = {"template": template}
    base.update(spec)
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": base}


def _cron_job(**spec: Any) -> Obj:
    base: Obj = {"schedule": "*/5 * * * *", "jobTemplate": {"spec": _job()["spec"]}}
    base.update(spec)
    return {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "cj"}, "spec": base}


def _service(**spec: Any) -> Obj:
    base: Obj = {"selector": _LABELS, "ports": [{"port": 80}]}
    base.update(spec)
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc"}, "spec": base}


def _config_map(**fields: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, **fields}


def _secret(**fields: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "sec"}, **fields}


def _claim(**spec: Any) -> Obj:
    base: Obj = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
    base.update(spec)
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "pvc"}, "spec": base}


def _network_policy(**spec: Any) -> Obj:
    base: Obj = {"podSelector": {}}
    base.update(spec)
    return {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": {"name": "np"}, "spec": base}


def _ingress(**spec: Any) -> Obj:
    base: Obj = {"defaultBackend": {"service": {"name": "web", "port": {"number": 80}}}}
    base.update(spec)
    return {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "ing"}, "spec": base}


def _cluster_object(api_version: str, kind: str, name: str, **fields: Any) -> Obj:
    return {"apiVersion": api_version, "kind": kind, "metadata": {"name": name}, **fields}


def _endpoint_slice(address_type: str, *addresses: str) -> Obj:
    return {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "metadata": {"name": "es"},
            "addressType": address_type, "endpoints": [{"addresses": list(addresses)}]}


_INGRESS_BACKEND = {"service": {"name": "web", "port": {"number": 80}}}
_VOLUME_ATTACHMENT_SPEC = {"attacher": "csi.example.com", "nodeName": "node-1", "source": {"persistentVolumeName": "pv"}}


def _hpa(**spec: Any) -> Obj:
    base: Obj = {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}, "maxReplicas": 3}
    base.update(spec)
    return {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "hpa"}, "spec": base}


def _budget(**spec: Any) -> Obj:
    base: Obj = {"selector": {"matchLabels": _LABELS}}
    base.update(spec)
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "pdb"}, "spec": base}


def _event(**fields: Any) -> Obj:
    base: Obj = {"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "ev"},
                 "eventTime": "2024-01-01T00:00:00.000000Z", "reportingController": "example.com/ctl",
                 "reportingInstance": "ctl-1", "action": "Act", "reason": "Seen", "type": "Normal",
                 "regarding": {"kind": "Pod", "namespace": NAMESPACE, "name": "p"}}
    base.update(fields)
    return base


def _exit_codes_rule(**on_exit_codes: Any) -> Obj:
    return {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [1], **on_exit_codes}}


_PRIORITY_CLASSES = "/apis/scheduling.k8s.io/v1/priorityclasses"


def _volume(**spec: Any) -> Obj:
    base: Obj = {"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "1Gi"}, "hostPath": {"path": "/data/pv"}}
    base.update(spec)
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv"}, "spec": base}


def _node(name: str, **spec: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}, "spec": spec}


def _quota(**spec: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q"}, "spec": spec}


def _limits(*items: Obj) -> Obj:
    return {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "lr"}, "spec": {"limits": list(items)}}


_OWNER = {"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": "6b7e2f4c-0000-4000-8000-000000000001"}

# name -> (collection path under the namespace, or a cluster path starting with /, object, merge patch or None)
# A patch is merged into the object itself, or with a name into that subresource ("status", "approval").
# A merge patch of the object, or of a subresource; with a third element "PUT", the subresource's body.
Patch = Obj | tuple[str, Obj] | tuple[str, Obj, str] | None

# (collection, object to create, patch); without an object, the first is the path of one the server made.
CASES: dict[str, tuple[str, Obj | None, Patch]] = {
    # -- ObjectMeta (apimachinery/pkg/api/validation/objectmeta.go) ---------------------------------
    "meta-name-uppercase": ("configmaps", _meta(_config_map(), name="Bad"), None),
    "meta-name-too-long": ("configmaps", _meta(_config_map(), name="a" * 254), None),
    "meta-generate-name-invalid": ("configmaps", {**_config_map(), "metadata": {"generateName": "Bad_"}}, None),
    "meta-label-key-invalid": ("configmaps", _meta(_config_map(), labels={"bad key": "v"}), None),
    "meta-label-key-two-slashes": ("configmaps", _meta(_config_map(), labels={"a/b/c": "v"}), None),
    "meta-label-key-empty-prefix": ("configmaps", _meta(_config_map(), labels={"/name": "v"}), None),
    "meta-label-key-bad-prefix": ("configmaps", _meta(_config_map(), labels={"Example.com/name": "v"}), None),
    "meta-label-name-too-long": ("configmaps", _meta(_config_map(), labels={"n" * 64: "v"}), None),
    "meta-label-value-too-long": ("configmaps", _meta(_config_map(), labels={"k": "v" * 64}), None),
    "meta-label-value-invalid": ("configmaps", _meta(_config_map(), labels={"k": "-v"}), None),
    "meta-annotation-key-invalid": ("configmaps", _meta(_config_map(), annotations={"bad key": "v"}), None),
    "meta-annotations-too-large": ("configmaps", _meta(_config_map(), annotations={"big": "x" * (256 * 1024)}), None),
    "meta-finalizer-invalid": ("configmaps", _meta(_config_map(), finalizers=["bad finalizer"]), None),
    "meta-finalizers-orphan-and-foreground": (
        "configmaps", _meta(_config_map(), finalizers=["orphan", "foregroundDeletion"]), None),
    "meta-owner-reference-empty": ("configmaps", _meta(_config_map(), ownerReferences=[{}]), None),
    "meta-owner-reference-no-version": (
        "configmaps", _meta(_config_map(), ownerReferences=[{**_OWNER, "apiVersion": "apps/"}]), None),
    "meta-owner-reference-event": (
        "configmaps", _meta(_config_map(), ownerReferences=[{**_OWNER, "kind": "Event"}]), None),
    "meta-owner-references-two-controllers": ("configmaps", _meta(_config_map(), ownerReferences=[
        {**_OWNER, "controller": True}, {**_OWNER, "name": "other", "controller": True}]), None),
    "meta-service-name-dns1035": ("services", _meta(_service(), name="1svc"), None),
    "meta-namespace-name-dots": ("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                        "metadata": {"name": "a.b"}}, None),
    "meta-role-name-slash-percent": ("roles", {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                                               "metadata": {"name": "a%b"}}, None),
    "meta-update-label-invalid": ("configmaps", _meta(_config_map(), name="cm-upd"),
                                  {"metadata": {"labels": {"bad key": "v"}}}),
    "meta-update-generation-decrement": ("deployments", _meta(_deployment(), name="d-gen"),
                                         {"metadata": {"generation": 0}}),
    # -- ConfigMaps and Secrets -------------------------------------------------------------------------
    "configmap-key-invalid": ("configmaps", _config_map(data={"bad key": "v"}), None),
    "configmap-key-dot-dot": ("configmaps", _config_map(data={"..": "v"}), None),
    "configmap-key-in-both": ("configmaps", _config_map(data={"k": "v"}, binaryData={"k": "dg=="}), None),
    "configmap-immutable-data-change": ("configmaps", _config_map(metadata={"name": "cm-imm"}, immutable=True,
                                                                  data={"k": "v"}), {"data": {"k": "w"}}),
    "secret-key-invalid": ("secrets", _secret(data={"bad key": "dg=="}), None),
    "secret-tls-missing-keys": ("secrets", _secret(type="kubernetes.io/tls", data={}), None),
    "secret-dockerconfigjson-missing": ("secrets", _secret(type="kubernetes.io/dockerconfigjson"), None),
    "secret-basic-auth-empty": ("secrets", _secret(type="kubernetes.io/basic-auth"), None),
    "secret-ssh-auth-missing": ("secrets", _secret(type="kubernetes.io/ssh-auth"), None),
    "secret-service-account-no-annotation": ("secrets", _secret(type="kubernetes.io/service-account-token"), None),
    "secret-type-change": ("secrets", _secret(metadata={"name": "sec-type"}, data={"k": "dg=="}),
                           {"type": "example.com/other"}),
    "secret-immutable-data-change": ("secrets", _secret(metadata={"name": "sec-imm"}, immutable=True,
                                                        data={"k": "dg=="}), {"data": {"k": "dw=="}}),
    # -- Pods (pkg/apis/core/validation/validation.go) -----------------------------------------------
    "pod-container-name-uppercase": ("pods", _pod(containers=[_container(name="App")]), None),
    "pod-container-image-whitespace": ("pods", _pod(containers=[_container(image=" nginx")]), None),
    "pod-container-port-name-long": ("pods", _pod(containers=[_container(ports=[
        {"containerPort": 80, "name": "a-very-long-port-name"}])]), None),
    "pod-container-port-zero": ("pods", _pod(containers=[_container(ports=[{"containerPort": 0}])]), None),
    "pod-container-port-duplicate-name": ("pods", _pod(containers=[_container(ports=[
        {"containerPort": 80, "name": "http"}, {"containerPort": 81, "name": "http"}])]), None),
    "pod-env-name-empty": ("pods", _pod(containers=[_container(env=[{"name": "", "value": "v"}])]), None),
    "pod-env-name-equals": ("pods", _pod(containers=[_container(env=[{"name": "A=B", "value": "v"}])]), None),
    "pod-env-value-and-from": ("pods", _pod(containers=[_container(env=[
        {"name": "A", "value": "v", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}])]), None),
    "pod-env-field-ref-unsupported": ("pods", _pod(containers=[_container(env=[
        {"name": "A", "valueFrom": {"fieldRef": {"fieldPath": "spec.nope"}}}])]), None),
    "pod-env-value-from-empty": ("pods", _pod(containers=[_container(env=[{"name": "A", "valueFrom": {}}])]), None),
    "deployment-env-value-from-empty": ("deployments", _deployment(template={
        "metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [_container(env=[{"name": "A", "valueFrom": {}}])]}}), None),
    "pod-requests-above-limits": ("pods", _pod(containers=[_container(resources={
        "requests": {"cpu": "2"}, "limits": {"cpu": "1"}})]), None),
    "pod-memory-requests-above-limits": ("pods", _pod(containers=[_container(resources={
        "requests": {"memory": "2Gi"}, "limits": {"memory": "1Gi"}})]), None),
    "pod-resource-negative": ("pods", _pod(containers=[_container(resources={"requests": {"cpu": "-1"}})]), None),
    "pod-resource-name-invalid": ("pods", _pod(containers=[_container(resources={"limits": {"gpu": "1"}})]), None),
    "pod-probe-no-handler": ("pods", _pod(containers=[_container(livenessProbe={"periodSeconds": 5})]), None),
    "pod-probe-two-handlers": ("pods", _pod(containers=[_container(readinessProbe={
        "exec": {"command": ["true"]}, "tcpSocket": {"port": 80}})]), None),
    "pod-liveness-success-threshold": ("pods", _pod(containers=[_container(livenessProbe={
        "exec": {"command": ["true"]}, "successThreshold": 2})]), None),
    "pod-probe-negative-delay": ("pods", _pod(containers=[_container(readinessProbe={
        "exec": {"command": ["true"]}, "initialDelaySeconds": -1})]), None),
    "pod-probe-http-port-zero": ("pods", _pod(containers=[_container(livenessProbe={
        "httpGet": {"port": 0}})]), None),
    "pod-restart-policy-invalid": ("pods", _pod(restartPolicy="Sometimes"), None),
    "pod-dns-policy-invalid": ("pods", _pod(dnsPolicy="Google"), None),
    "pod-dns-none-without-config": ("pods", _pod(dnsPolicy="None"), None),
    "pod-volume-duplicate-name": ("pods", _pod(volumes=[{"name": "data", "emptyDir": {}},
                                                        {"name": "data", "emptyDir": {}}]), None),
    "pod-volume-no-source": ("pods", _pod(volumes=[{"name": "data"}]), None),
    "pod-volume-two-sources": ("pods", _pod(volumes=[{"name": "data", "emptyDir": {},
                                                      "hostPath": {"path": "/tmp"}}]), None),
    "pod-volume-name-invalid": ("pods", _pod(volumes=[{"name": "Data", "emptyDir": {}}]), None),
    "pod-volume-mount-missing": ("pods", _pod(containers=[_container(volumeMounts=[
        {"name": "data", "mountPath": "/data"}])]), None),
    "pod-volume-mount-no-path": ("pods", _pod(volumes=[{"name": "data", "emptyDir": {}}], containers=[_container(
        volumeMounts=[{"name": "data", "mountPath": ""}])]), None),
    "pod-configmap-volume-no-name": ("pods", _pod(volumes=[{"name": "data", "configMap": {}}]), None),
    "pod-hostpath-relative": ("pods", _pod(volumes=[{"name": "data", "hostPath": {"path": "tmp"}}]), None),
    "pod-hostpath-type-invalid": ("pods", _pod(volumes=[{"name": "data", "hostPath": {"path": "/tmp",
                                                                                      "type": "Folder"}}]), None),
    "pod-security-context-run-as-user-negative": ("pods", _pod(securityContext={"runAsUser": -1}), None),
    "pod-node-selector-invalid": ("pods", _pod(nodeSelector={"bad key": "v"}), None),
    "pod-termination-grace-negative": ("pods", _pod(terminationGracePeriodSeconds=-5), None),
    "pod-active-deadline-zero": ("pods", _pod(activeDeadlineSeconds=0), None),
    "pod-host-network-port-mismatch": ("pods", _pod(hostNetwork=True, containers=[_container(ports=[
        {"containerPort": 80, "hostPort": 81}])]), None),
    "pod-toleration-invalid": ("pods", _pod(tolerations=[{"key": "k", "operator": "Exists", "value": "v"}]), None),
    "pod-update-container-name": ("pods", _meta(_pod(), name="p-upd"),
                                  {"spec": {"containers": [{"name": "other", "image": "nginx:1.27"}]}}),
    "pod-update-image": ("pods", _meta(_pod(), name="p-img"),
                         {"spec": {"containers": [{"name": "app", "image": "nginx:1.28"}]}}),
    "pod-update-image-empty": ("pods", _meta(_pod(), name="p-img-empty"),
                               {"spec": {"containers": [{"name": "app", "image": ""}]}}),
    "pod-update-deadline-added": ("pods", _meta(_pod(), name="p-ads"), {"spec": {"activeDeadlineSeconds": 30}}),
    "pod-update-tolerations-added": ("pods", _meta(_pod(), name="p-tol"), {"spec": {"tolerations": [
        {"key": "k", "operator": "Exists", "effect": "NoSchedule"}]}}),
    # -- Services ------------------------------------------------------------------------------------
    "service-type-invalid": ("services", _service(type="Magic"), None),
    "service-port-duplicate": ("services", _service(ports=[{"name": "a", "port": 80}, {"name": "b", "port": 80}]),
                               None),
    "service-port-name-invalid": ("services", _service(ports=[{"name": "HTTP", "port": 80}]), None),
    "service-target-port-invalid-name": ("services", _service(ports=[{"port": 80, "targetPort": "Not_Valid"}]),
                                         None),
    "service-node-port-on-cluster-ip": ("services", _service(ports=[{"port": 80, "nodePort": 30080}]), None),
    "service-cluster-ip-invalid": ("services", _service(clusterIP="abc"), None),
    "service-external-name-invalid": ("services", _service(type="ExternalName", externalName="not a name"), None),
    "service-selector-invalid": ("services", _service(selector={"bad key": "v"}), None),
    "service-session-affinity-invalid": ("services", _service(sessionAffinity="Sticky"), None),
    "service-external-traffic-policy-on-cluster-ip": ("services", _service(externalTrafficPolicy="Local"), None),
    "service-update-cluster-ip": ("services", _meta(_service(), name="svc-upd"), {"spec": {"clusterIP": "10.96.0.99",
                                                                                          "clusterIPs": ["10.96.0.99"]}}),
    "service-headless-load-balancer": ("services", _service(type="LoadBalancer", clusterIP="None"), None),
    "service-lb-class-invalid": ("services", _service(type="LoadBalancer", loadBalancerClass="Not Valid"),
                                 None),
    "service-topology-annotations-differ": ("services", _meta(_service(), annotations={
        "service.kubernetes.io/topology-mode": "Auto",
        "service.kubernetes.io/topology-aware-hints": "Disabled"}), None),
    "service-source-ranges-annotation": ("services", _meta(_service(), annotations={
        "service.beta.kubernetes.io/load-balancer-source-ranges": "10.0.0.0/8, 10.1.2.3/8,bad"}), None),
    "service-external-ip-loopback": ("services", _service(externalIPs=["127.0.0.1", "010.1.2.3"]), None),
    "service-client-ip-timeout": ("services", _service(sessionAffinity="ClientIP", sessionAffinityConfig={
        "clientIP": {"timeoutSeconds": 86401}}), None),
    "service-ip-family-policy-unknown": ("services", _service(ipFamilyPolicy="Triple",
                                                              ipFamilies=["IPv4", "IPv4"]), None),
    "service-ip-family-not-configured": ("services", _service(ipFamilies=["IPv6"]), None),
    "service-require-dual-stack": ("services", _service(ipFamilyPolicy="RequireDualStack"), None),
    "service-cluster-ips-first-differs": ("services", _service(clusterIP="10.96.0.50",
                                                               clusterIPs=["10.96.0.51"]), None),
    "service-cluster-ips-one-family": ("services", _service(
        clusterIP="10.96.0.50", clusterIPs=["10.96.0.50", "10.96.0.51", "::1"]), None),
    "service-cluster-ips-single-stack-two": ("services", _service(
        clusterIP="10.96.0.50", clusterIPs=["10.96.0.50", "fd00::50"]), None),
    "service-cluster-ip-family-mismatch": ("services", _service(clusterIP="10.96.0.50", ipFamilies=["IPv6"]),
                                           None),
    "service-health-check-on-cluster-ip": ("services", _service(healthCheckNodePort=30500), None),
    "service-app-protocol-invalid": ("services", _service(ports=[{"port": 80, "appProtocol": "a/b/c"}]),
                                     None),
    "service-internal-traffic-policy-unknown": ("services", _service(internalTrafficPolicy="Node"), None),
    "service-external-name-with-families": ("services", _service(
        type="ExternalName", externalName="db.example.com", ipFamilies=["IPv4"],
        ipFamilyPolicy="SingleStack"), None),
    "service-node-port-taken-twice": ("services", _service(type="NodePort", ports=[
        {"name": "a", "port": 80, "nodePort": 30990}, {"name": "b", "port": 81, "nodePort": 30990}]), None),
    # A dry run's port allocator checks no range (nor draws from it: it hands out 32769 and up).
    "service-node-port-out-of-range": ("services", _service(type="NodePort",
                                                            ports=[{"port": 80, "nodePort": 20000}]), None),
    "service-node-port-local-traffic": ("services", _service(
        type="NodePort", ports=[{"port": 80, "nodePort": 30993}], externalTrafficPolicy="Local"), None),
    "service-update-lb-class": ("services", _meta(_service(
        type="LoadBalancer", loadBalancerClass="example.com/a"), name="svc-lbc"),
        {"spec": {"loadBalancerClass": "example.com/b"}}),
    "service-update-health-check-port": ("services", _meta(_service(
        type="LoadBalancer", externalTrafficPolicy="Local", healthCheckNodePort=30991), name="svc-hc"),
        {"spec": {"healthCheckNodePort": 30992}}),
    "service-update-to-local-traffic": ("services", _meta(_service(type="LoadBalancer"), name="svc-local"),
                                        {"spec": {"externalTrafficPolicy": "Local"}}),
    "service-update-to-node-port": ("services", _meta(_service(), name="svc-np"),
                                    {"spec": {"type": "NodePort"}}),
    "service-update-release-family": ("services", _meta(_service(clusterIP="10.96.0.77"), name="svc-fam"),
                                      {"spec": {"ipFamilyPolicy": "PreferDualStack",
                                                "ipFamilies": ["IPv6"]}}),
    "service-status-ingress-invalid": ("services", _meta(_service(type="LoadBalancer"), name="svc-st"), (
        "status", {"status": {"loadBalancer": {"ingress": [
            {"ip": "01.2.3.4", "ipMode": "Bogus"}, {"hostname": "1.2.3.4", "ipMode": "VIP"},
            {"hostname": "Bad_Name"}]}}})),
    "service-status-ingress-not-load-balancer": ("services", _meta(_service(), name="svc-st2"), (
        "status", {"status": {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}}})),
    # A status write is judged with its strategy's own update rule: ValidateLoadBalancerStatus.
    # Refused without the ipMode SetDefaults_Service gives a load balancer's ingress IPs.
    "service-status-ingress-ip-mode-defaulted": ("services", _meta(_service(type="LoadBalancer"),
                                                                   name="svc-st3"), (
        "status", {"status": {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}}})),
    "service-update-headless": ("services", _meta(_service(), name="svc-hl"),
                                {"spec": {"clusterIP": "None", "clusterIPs": ["None"]}}),
    # -- PersistentVolumeClaims ----------------------------------------------------------------------
    "pvc-no-access-modes": ("persistentvolumeclaims", _claim(accessModes=[]), None),
    "pvc-no-storage-request": ("persistentvolumeclaims", _claim(resources={}), None),
    "pvc-access-mode-invalid": ("persistentvolumeclaims", _claim(accessModes=["ReadSometimes"]), None),
    "pvc-update-storage-class": ("persistentvolumeclaims", _meta(_claim(), name="pvc-upd"),
                                 {"spec": {"storageClassName": "fast"}}),
    # -- core kinds: update and cross-field rules the differential cases do not reach --------------------
    "pod-update-toleration-changed": ("pods", _meta(_pod(tolerations=[{"key": "k", "operator": "Exists"}]),
                                                    name="p-tol-chg"),
                                      {"spec": {"tolerations": [{"key": "other", "operator": "Exists"}]}}),
    "pod-update-deadline-raised": ("pods", _meta(_pod(activeDeadlineSeconds=30), name="p-ads-up"),
                                   {"spec": {"activeDeadlineSeconds": 60}}),
    "pod-update-host-network": ("pods", _meta(_pod(), name="p-hostnet"), {"spec": {"hostNetwork": True}}),
    "pod-init-probe-without-always": ("pods", _pod(initContainers=[_container(name="init", readinessProbe={
        "exec": {"command": ["true"]}})]), None),
    "pod-sidecar-readiness-grace": ("pods", _pod(initContainers=[_container(
        name="side", restartPolicy="Always", readinessProbe={"exec": {"command": ["true"]},
                                                             "terminationGracePeriodSeconds": 5})]), None),
    "pod-ephemeral-container-ports": ("pods", _pod(ephemeralContainers=[{
        "name": "debug", "image": "busybox:1.36", "ports": [{"containerPort": 80}]}]), None),
    "pod-lifecycle-sleep-beyond-grace": ("pods", _pod(terminationGracePeriodSeconds=5, containers=[_container(
        lifecycle={"preStop": {"sleep": {"seconds": 10}}})]), None),
    "pod-topology-spread-duplicate": ("pods", _pod(topologySpreadConstraints=[
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"},
        {"maxSkew": 2, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]), None),
    "pod-affinity-weight-invalid": ("pods", _pod(affinity={"podAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 0, "podAffinityTerm": {
            "topologyKey": "zone", "labelSelector": {"matchLabels": {"app": "web"}}}}]}}), None),
    "pod-seccomp-localhost-without-profile": ("pods", _pod(securityContext={"seccompProfile": {
        "type": "Localhost"}}), None),
    "pod-apparmor-type-missing": ("pods", _pod(containers=[_container(securityContext={
        "appArmorProfile": {"localhostProfile": "x"}})]), None),
    "pod-sysctl-with-host-network": ("pods", _pod(hostNetwork=True, securityContext={"sysctls": [
        {"name": "net.core.somaxconn", "value": "1024"}]}), None),
    "pod-no-privilege-escalation-privileged": ("pods", _pod(containers=[_container(securityContext={
        "privileged": True, "allowPrivilegeEscalation": False})]), None),
    "pod-csi-volume-driver-invalid": ("pods", _pod(volumes=[{"name": "data", "csi": {"driver": "Bad_Driver"}}]),
                                      None),
    "pod-template-ephemeral-containers": ("podtemplates", {
        "apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "pt"},
        "template": {"spec": {"containers": [_container()], "ephemeralContainers": [
            {"name": "debug", "image": "busybox:1.36"}]}}}, None),
    "rc-template-restart-never": ("replicationcontrollers", {
        "apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "rc"},
        "spec": {"replicas": 1, "selector": _LABELS, "template": {"metadata": {"labels": _LABELS}, "spec": {
            "restartPolicy": "Never", "containers": [_container()]}}}}, None),
    "pv-two-sources": ("/api/v1/persistentvolumes", _volume(nfs={"server": "nfs.example.com", "path": "/x"}), None),
    "pv-local-without-affinity": ("/api/v1/persistentvolumes", {**_volume(), "spec": {
        "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "1Gi"}, "local": {"path": "/mnt/disk"}}}, None),
    "pv-recycle-root-host-path": ("/api/v1/persistentvolumes", _volume(
        hostPath={"path": "/"}, persistentVolumeReclaimPolicy="Recycle"), None),
    "pv-update-source": ("/api/v1/persistentvolumes", _meta(_volume(), name="pv-upd-src"),
                         {"spec": {"hostPath": {"path": "/data/other"}}}),
    "pvc-data-source-mismatch": ("persistentvolumeclaims", _claim(
        dataSource={"kind": "PersistentVolumeClaim", "name": "a"},
        dataSourceRef={"kind": "PersistentVolumeClaim", "name": "b"}), None),
    "pvc-update-access-modes": ("persistentvolumeclaims", _meta(_claim(), name="pvc-upd-modes"),
                                {"spec": {"accessModes": ["ReadWriteMany"]}}),
    # The diff prints metav1's LabelSelector by its json tags: sorted labels, key and operator always.
    "pvc-update-selector-shown": ("persistentvolumeclaims", _meta(_claim(), name="pvc-upd-selector"),
                                  {"spec": {"selector": {"matchLabels": {"b": "2", "a": "1"}, "matchExpressions": [
                                      {"operator": "In", "key": "tier", "values": ["x"]},
                                      {"key": "zone", "operator": "Exists"}]}}}),
    "limitrange-default-above-max": ("limitranges", _limits(
        {"type": "Container", "max": {"cpu": "1"}, "default": {"cpu": "2"}}), None),
    "limitrange-claim-without-storage": ("limitranges", _limits({"type": "PersistentVolumeClaim"}), None),
    "limitrange-ratio-below-one": ("limitranges", _limits(
        {"type": "Container", "maxLimitRequestRatio": {"cpu": "500m"}}), None),
    "quota-scopes-conflicting": ("resourcequotas", _quota(hard={"pods": "1"}, scopes=["BestEffort", "NotBestEffort"]),
                                 None),
    "quota-scope-resource-mismatch": ("resourcequotas", _quota(hard={"services": "1"}, scopes=["Terminating"]),
                                      None),
    "quota-scope-selector-operator": ("resourcequotas", _quota(hard={"pods": "1"}, scopeSelector={
        "matchExpressions": [{"scopeName": "BestEffort", "operator": "In", "values": ["x"]}]}), None),
    "quota-update-scopes": ("resourcequotas", _meta(_quota(hard={"pods": "1"}, scopes=["BestEffort"]), name="q-upd"),
                            {"spec": {"scopes": ["NotBestEffort"]}}),
    "node-taint-duplicate": ("/api/v1/nodes", _node("node-taints", taints=[
        {"key": "k", "effect": "NoSchedule"}, {"key": "k", "value": "v", "effect": "NoSchedule"}]), None),
    "node-pod-cidrs-unparsable": ("/api/v1/nodes", _node("node-cidrs", podCIDRs=["a", "a"]), None),
    "node-pod-cidrs-second-unparsable": ("/api/v1/nodes", _node("node-cidrs", podCIDRs=[
        "10.0.0.0/24", "x", "fd00::/64"]), None),
    "node-pod-cidrs-one-family": ("/api/v1/nodes", _node("node-cidrs", podCIDRs=["10.0.0.0/24", "10.1.0.0/24"]),
                                  None),
    "node-update-pod-cidr": ("/api/v1/nodes", _node("node-upd-cidr", podCIDR="10.0.0.0/24"),
                             {"spec": {"podCIDR": "10.9.0.0/24", "podCIDRs": ["10.9.0.0/24"]}}),
    "node-update-provider-id": ("/api/v1/nodes", _node("node-upd-provider", providerID="aws:///a"),
                                {"spec": {"providerID": "aws:///b"}}),
    "namespace-finalizer-not-standard": ("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                                "metadata": {"name": "ns-fin"},
                                                                "spec": {"finalizers": ["custom"]}}, None),
    "endpoints-loopback-address": ("endpoints", {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "ep"},
                                                 "subsets": [{"addresses": [{"ip": "127.0.0.1"}],
                                                              "ports": [{"port": 80}]}]}, None),
    "event-reporter-missing": ("events", {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "ev"},
                                          "involvedObject": {"kind": "Pod", "name": "p", "namespace": NAMESPACE},
                                          "eventTime": "2026-01-01T00:00:00.000000Z"}, None),
    "event-namespace-mismatch": ("events", {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "ev2"},
                                            "involvedObject": {"kind": "Pod", "name": "p", "namespace": "other"}},
                                 None),
    # -- apps ----------------------------------------------------------------------------------------
    "deployment-replicas-negative": ("deployments", _deployment(replicas=-1), None),
    "deployment-history-negative": ("deployments", _deployment(revisionHistoryLimit=-1), None),
    "deployment-min-ready-above-deadline": ("deployments", _deployment(minReadySeconds=700), None),
    "deployment-recreate-with-rolling": ("deployments", _deployment(strategy={
        "type": "Recreate", "rollingUpdate": {"maxSurge": 1}}), None),
    "deployment-rolling-both-zero": ("deployments", _deployment(strategy={
        "type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 0}}), None),
    "deployment-max-surge-percent-invalid": ("deployments", _deployment(strategy={
        "type": "RollingUpdate", "rollingUpdate": {"maxSurge": "150"}}), None),
    "deployment-template-restart-never": ("deployments", _deployment(template={
        "metadata": {"labels": _LABELS}, "spec": {"restartPolicy": "Never",
                                                  "containers": [{"name": "app", "image": "nginx:1.27"}]}}), None),
    "deployment-selector-empty": ("deployments", _deployment(selector={}), None),
    "deployment-update-selector": ("deployments", _meta(_deployment(), name="d-sel"), {"spec": {
        "selector": {"matchLabels": {"app": "web", "tier": "x"}},
        "template": {"metadata": {"labels": {"app": "web", "tier": "x"}}}}}),
    "statefulset-pod-management-invalid": ("statefulsets", _stateful_set(podManagementPolicy="Sometimes"), None),
    "statefulset-selector-mismatch": ("statefulsets", _stateful_set(selector={"matchLabels": {"app": "db"}}), None),
    "statefulset-update-forbidden-field": ("statefulsets", _meta(_stateful_set(), name="s-upd"),
                                           {"spec": {"serviceName": "other"}}),
    "statefulset-update-strategy-invalid": ("statefulsets", _stateful_set(updateStrategy={"type": "Sometimes"}),
                                            None),
    "daemonset-template-restart-never": ("daemonsets", _daemon_set(template={
        "metadata": {"labels": _LABELS}, "spec": {"restartPolicy": "Never",
                                                  "containers": [{"name": "app", "image": "nginx:1.27"}]}}), None),
    "daemonset-update-strategy-invalid": ("daemonsets", _daemon_set(updateStrategy={"type": "Sometimes"}), None),
    # A template and its pod spec are Go structs: null or left out, they are zero values and defaulted.
    "daemonset-template-spec-null": ("daemonsets", _daemon_set(template={"metadata": {"labels": _LABELS},
                                                                         "spec": None}), None),
    "statefulset-template-null": ("statefulsets", _stateful_set(template=None), None),
    # -- batch ---------------------------------------------------------------------------------------
    "job-parallelism-negative": ("jobs", _job(parallelism=-1), None),
    "job-completions-negative": ("jobs", _job(completions=-1), None),
    "job-active-deadline-zero": ("jobs", _job(activeDeadlineSeconds=0), None),
    "job-backoff-negative": ("jobs", _job(backoffLimit=-1), None),
    "job-restart-always": ("jobs", _job(template={"spec": {"restartPolicy": "Always", "containers": [
        {"name": "app", "image": "busybox:1.36"}]}}), None),
    "job-completion-mode-invalid": ("jobs", _job(completionMode="Sometimes"), None),
    "job-update-completions": ("jobs", _meta(_job(), name="j-upd"), {"spec": {"completions": 3}}),
    # The immutable template shows as the internal struct: the host namespaces in its security context,
    # the deprecated serviceAccount as serviceAccountName.
    # (A selector of its own: the generated one would put the job's uid in the message.)
    "job-update-template-shown-internal": ("jobs", _meta(_job(manualSelector=True, selector={"matchLabels": _LABELS},
                                                              template={"metadata": {"labels": _LABELS}, "spec": {
                                                                  "restartPolicy": "Never", "containers": [
                                                                      _container()]}}), name="j-upd-internal"),
                                           {"spec": {"template": {"spec": {"hostPID": True,
                                                                           "serviceAccount": "robot"}}}}),
    "cronjob-schedule-invalid": ("cronjobs", _cron_job(schedule="not a schedule"), None),
    "cronjob-job-template-null": ("cronjobs", _cron_job(jobTemplate=None), None),
    "job-template-left-out": ("jobs", {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
                                       "spec": {}}, None),
    "cronjob-time-zone-invalid": ("cronjobs", _cron_job(timeZone="Mars/Olympus"), None),
    "cronjob-concurrency-invalid": ("cronjobs", _cron_job(concurrencyPolicy="Sometimes"), None),
    "cronjob-name-too-long": ("cronjobs", _meta(_cron_job(), name="c" * 53), None),
    "cronjob-history-negative": ("cronjobs", _cron_job(successfulJobsHistoryLimit=-1), None),
    # -- apps: strategies, rolling updates, claim templates, ControllerRevisions --------------------------
    "deployment-rolling-update-both-zero": ("deployments", _deployment(strategy={
        "type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": 0}}), None),
    "deployment-rolling-update-over-100-percent": ("deployments", _deployment(strategy={
        "type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "150%", "maxSurge": "x"}}), None),
    "deployment-strategy-type-invalid": ("deployments", _deployment(strategy={
        "type": "Sometimes", "rollingUpdate": {"maxSurge": 1}}), None),
    "deployment-progress-deadline-not-above-min-ready": (
        "deployments", _deployment(minReadySeconds=10, progressDeadlineSeconds=10), None),
    "deployment-selector-operator-invalid": ("deployments", _deployment(selector={
        "matchLabels": _LABELS, "matchExpressions": [{"key": "tier", "operator": "Sometimes"}]}), None),
    "replicaset-selector-nil": ("replicasets", {**_deployment(), "kind": "ReplicaSet", "spec": {
        "template": copy.deepcopy(_TEMPLATE)}}, None),
    "daemonset-rolling-update-both-set": ("daemonsets", _daemon_set(updateStrategy={
        "type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": "10%"}}), None),
    "daemonset-rolling-update-both-zero": ("daemonsets", _daemon_set(updateStrategy={
        "type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "0%", "maxSurge": 0}}), None),
    "statefulset-name-not-label": ("statefulsets", _meta(_stateful_set(), name="s.web"), None),
    "statefulset-partition-negative": ("statefulsets", _stateful_set(updateStrategy={
        "type": "RollingUpdate", "rollingUpdate": {"partition": -1}}), None),
    "statefulset-on-delete-with-rolling-update": ("statefulsets", _stateful_set(updateStrategy={
        "type": "OnDelete", "rollingUpdate": {"partition": 2}}), None),
    "statefulset-ordinals-negative": ("statefulsets", _stateful_set(ordinals={"start": -1}), None),
    "statefulset-retention-policy-invalid": ("statefulsets", _stateful_set(
        persistentVolumeClaimRetentionPolicy={"whenDeleted": "Keep", "whenScaled": "Delete"}), None),
    "statefulset-claim-template-invalid": ("statefulsets", _stateful_set(volumeClaimTemplates=[
        {"metadata": {"name": "data"}, "spec": {"resources": {"requests": {"storage": "1Gi"}}}}]), None),
    "statefulset-service-name-invalid": ("statefulsets", _stateful_set(serviceName="Web_1"), None),
    "controllerrevision-data-missing": ("controllerrevisions", {
        "apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": {"name": "cr"}, "revision": -1}, None),
    "controllerrevision-update-data": ("controllerrevisions", {
        "apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": {"name": "cr-upd"}, "revision": 1,
        "data": {"a": 1}}, {"data": {"a": 2}}),
    # -- batch: pod failure and success policies, indexed jobs, update rules, schedules ----------------
    "job-failure-policy-action-empty": ("jobs", _job(podFailurePolicy={"rules": [
        {"onExitCodes": {"operator": "In", "values": [1]}}]}), None),
    "job-failure-policy-exit-codes": ("jobs", _job(podFailurePolicy={"rules": [
        _exit_codes_rule(values=[0, 3, 2, 2], containerName="other")]}), None),
    "job-failure-policy-both-and-neither": ("jobs", _job(podFailurePolicy={"rules": [
        {**_exit_codes_rule(), "onPodConditions": [{"type": "DisruptionTarget"}]}, {"action": "Ignore"}]}), None),
    "job-failure-policy-condition-status": ("jobs", _job(podFailurePolicy={"rules": [
        {"action": "Count", "onPodConditions": [{"type": "Bad Type", "status": "Maybe"}]}]}), None),
    "job-failure-policy-fail-index": ("jobs", _job(podFailurePolicy={"rules": [
        _exit_codes_rule(), {**_exit_codes_rule(), "action": "FailIndex"}]}), None),
    "job-failure-policy-restart-on-failure": ("jobs", _job(
        podFailurePolicy={"rules": [_exit_codes_rule()]}, template={"spec": {
            "restartPolicy": "OnFailure", "containers": [{"name": "app", "image": "busybox:1.36"}]}}), None),
    "job-replacement-policy-with-failure-policy": ("jobs", _job(
        podFailurePolicy={"rules": [_exit_codes_rule()]}, podReplacementPolicy="TerminatingOrFailed"), None),
    "job-success-policy-non-indexed": ("jobs", _job(successPolicy={"rules": [{"succeededCount": 1}]}), None),
    "job-success-policy-indexes": ("jobs", _job(completionMode="Indexed", completions=3, successPolicy={"rules": [
        {"succeededIndexes": "0-2,1", "succeededCount": 5}, {}]}), None),
    "job-per-index-limits-non-indexed": ("jobs", _job(backoffLimitPerIndex=1, maxFailedIndexes=1), None),
    "job-indexed-hostname": ("jobs", _meta(_job(completionMode="Indexed", completions=10), name="j" * 62), None),
    "job-managed-by-invalid": ("jobs", _job(managedBy="not-a-path"), None),
    "job-update-failure-policy": ("jobs", _meta(_job(), name="j-fp"), {"spec": {
        "podFailurePolicy": {"rules": [_exit_codes_rule()]}}}),
    "cronjob-schedule-out-of-range": ("cronjobs", _cron_job(schedule="61 * * * *"), None),
    "cronjob-schedule-step-zero": ("cronjobs", _cron_job(schedule="*/0 * * * *"), None),
    "cronjob-schedule-descriptor": ("cronjobs", _cron_job(schedule="@fortnightly"), None),
    "cronjob-schedule-tz": ("cronjobs", _cron_job(schedule="TZ=UTC 0 * * * *"), None),
    "cronjob-job-template-selector": ("cronjobs", _cron_job(jobTemplate={"spec": {
        **_job()["spec"], "selector": {"matchLabels": _LABELS}, "manualSelector": True}}), None),
    # -- autoscaling ---------------------------------------------------------------------------------
    "hpa-metric-type-invalid": ("horizontalpodautoscalers", _hpa(metrics=[{"type": "Sometimes"}]), None),
    "hpa-metric-source-mismatch": ("horizontalpodautoscalers", _hpa(metrics=[{"type": "Pods", "resource": {
        "name": "cpu", "target": {"type": "Utilization", "averageUtilization": 0}}}]), None),
    "hpa-container-resource-invalid": ("horizontalpodautoscalers", _hpa(metrics=[{
        "type": "ContainerResource", "containerResource": {"name": "pods", "container": "App_1", "target": {
            "type": "AverageValue", "averageValue": "-1", "averageUtilization": 50}}}]), None),
    "hpa-object-metric-invalid": ("horizontalpodautoscalers", _hpa(metrics=[{"type": "Object", "object": {
        "describedObject": {"kind": "Service", "name": "a/b"}, "metric": {"name": ".."}, "target": {"type": "Value"}}}]),
        None),
    "hpa-behavior-invalid": ("horizontalpodautoscalers", _hpa(behavior={
        "scaleUp": {"stabilizationWindowSeconds": 4000, "selectPolicy": "Most", "policies": []},
        "scaleDown": {"policies": [{"type": "Nodes", "value": 0, "periodSeconds": 1801}], "tolerance": "-1"}}), None),
    "hpa-replicas-and-target": ("horizontalpodautoscalers", _hpa(minReplicas=0, maxReplicas=-1, scaleTargetRef={
        "apiVersion": "v1", "kind": "Deployment", "name": "d"}), None),
    # -- policy, coordination, scheduling ------------------------------------------------------------
    "pdb-both-bounds": ("poddisruptionbudgets", _budget(minAvailable="150%", maxUnavailable=1,
                                                        unhealthyPodEvictionPolicy="Never"), None),
    "lease-durations-invalid": ("leases", {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                                           "metadata": {"name": "l"},
                                           "spec": {"leaseDurationSeconds": 0, "leaseTransitions": -1}}, None),
    "priorityclass-system-name": (_PRIORITY_CLASSES, {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                                                      "metadata": {"name": "system-mine"}, "value": 1}, None),
    "priorityclass-value-too-high": (_PRIORITY_CLASSES, {
        "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "pc-high"},
        "value": 1000000001, "preemptionPolicy": "Sometimes"}, None),
    "priorityclass-update-preemption-policy": (_PRIORITY_CLASSES, {
        "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "pc-upd"}, "value": 5},
        {"preemptionPolicy": "Never", "value": 6}),
    # -- events.k8s.io -------------------------------------------------------------------------------
    "event-v1-strict-fields": ("events", _event(type="Odd", reportingController="", deprecatedCount=2,
                                                series={"count": 1}, deprecatedSource={"component": "c"}), None),
    "event-v1-namespace-mismatch": ("events", _event(regarding={"kind": "Node", "name": "n"}), None),
    "event-v1-update-immutable": ("events", _meta(_event(), name="ev-upd"), {"reason": "Other", "note": "changed"}),
    # -- status subresources ------------------------------------------------------------------------
    "deployment-status-counts": ("deployments", _meta(_deployment(), name="d-st"), ("status", {"status": {
        "replicas": 1, "readyReplicas": 2, "availableReplicas": 3, "unavailableReplicas": -1}})),
    "replicaset-status-counts": ("replicasets", {**_meta(_deployment(), name="rs-st"), "kind": "ReplicaSet"},
                                 ("status", {"status": {"replicas": 1, "fullyLabeledReplicas": 2, "observedGeneration": -1}})),
    "statefulset-status-counts": ("statefulsets", _meta(_stateful_set(), name="s-st"), ("status", {"status": {
        "replicas": 1, "currentReplicas": 2, "availableReplicas": 1, "readyReplicas": 0, "collisionCount": -1}})),
    "daemonset-status-counts": ("daemonsets", _meta(_daemon_set(), name="ds-st"), ("status", {"status": {
        "numberReady": -1, "desiredNumberScheduled": 0, "currentNumberScheduled": 0, "numberMisscheduled": 0}})),
    "hpa-status-counts": ("horizontalpodautoscalers", _meta(_hpa(), name="hpa-st"), ("status", {"status": {
        "currentReplicas": -1, "desiredReplicas": -2}})),
    "pdb-status-conditions": ("poddisruptionbudgets", _meta(_budget(minAvailable=1), name="pdb-st"), ("status", {
        "status": {"disruptionsAllowed": -1, "currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0,
                   "conditions": [{"type": "Bad Type", "status": "Maybe", "reason": "1bad"},
                                  {"type": "Bad Type", "status": "True", "reason": "Fine",
                                   "lastTransitionTime": "2024-01-01T00:00:00Z"}]}})),
    "job-status-counts": ("jobs", _meta(_job(), name="j-st"), ("status", {"status": {
        "active": 1, "ready": 2, "failed": -1, "uncountedTerminatedPods": {"succeeded": ["a", ""], "failed": ["a"]}}})),
    "job-status-complete": ("jobs", _meta(_job(), name="j-done"), ("status", {"status": {
        "active": 1, "completedIndexes": "1", "conditions": [
            {"type": "Complete", "status": "True", "lastProbeTime": None, "lastTransitionTime": None},
            {"type": "Failed", "status": "True"}]}})),
    # -- rbac ----------------------------------------------------------------------------------------
    "role-rule-no-verbs": ("roles", {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                                     "metadata": {"name": "r"}, "rules": [{"apiGroups": [""], "resources": ["pods"]}]},
                           None),
    "rolebinding-subject-kind-invalid": ("rolebindings", {
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "rb"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"},
        "subjects": [{"kind": "Robot", "name": "r2"}]}, None),
    "rolebinding-update-role-ref": ("rolebindings", {
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "rb-upd"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"},
        "subjects": [{"kind": "User", "name": "u", "apiGroup": "rbac.authorization.k8s.io"}]},
        {"roleRef": {"name": "other"}}),
    # -- networking.k8s.io ----------------------------------------------------------------------------
    "networkpolicy-except-outside-cidr": ("networkpolicies", _network_policy(ingress=[{"from": [{"ipBlock": {
        "cidr": "10.0.0.0/16", "except": ["10.1.0.0/24", "10.0.0.0/8"]}}]}]), None),
    "networkpolicy-cidr-leading-zeros": ("networkpolicies", _network_policy(egress=[{"to": [{"ipBlock": {
        "cidr": "010.0.0.0/8"}}]}]), None),
    "networkpolicy-policy-types-three": ("networkpolicies", _network_policy(
        policyTypes=["Ingress", "Egress", "Ingress"]), None),
    "networkpolicy-end-port-below-port": ("networkpolicies", _network_policy(ingress=[{"ports": [
        {"port": 8080, "endPort": 80}]}]), None),
    "ingress-class-annotation-mismatch": ("ingresses", _meta(_ingress(ingressClassName="nginx"), annotations={
        "kubernetes.io/ingress.class": "traefik"}), None),
    "ingress-rule-host-ip": ("ingresses", _ingress(rules=[{"host": "10.0.0.1"}]), None),
    "ingress-exact-path-sequences": ("ingresses", _ingress(rules=[{"http": {"paths": [
        {"path": "/a//b/..", "pathType": "Exact", "backend": _INGRESS_BACKEND}]}}]), None),
    "ingress-port-name-and-number": ("ingresses", _ingress(defaultBackend={"service": {
        "name": "web", "port": {"name": "http", "number": 80}}}), None),
    "ingress-tls-wildcard-host-invalid": ("ingresses", _ingress(tls=[{"hosts": ["*.*.example.com"]}]), None),
    "ingressclass-namespace-scope-without-namespace": ("/apis/networking.k8s.io/v1/ingressclasses", _cluster_object(
        "networking.k8s.io/v1", "IngressClass", "ic-ns", spec={"controller": "example.com/ingress", "parameters": {
            "kind": "Params", "name": "p", "scope": "Namespace"}}), None),
    "ingressclass-update-controller": ("/apis/networking.k8s.io/v1/ingressclasses", _cluster_object(
        "networking.k8s.io/v1", "IngressClass", "ic-upd", spec={"controller": "example.com/ingress"}),
        {"spec": {"controller": "example.com/other"}}),
    "servicecidr-same-family": ("/apis/networking.k8s.io/v1/servicecidrs", _cluster_object(
        "networking.k8s.io/v1", "ServiceCIDR", "sc-two-v4", spec={"cidrs": ["10.200.0.0/24", "10.201.0.0/24"]}), None),
    "servicecidr-not-canonical": ("/apis/networking.k8s.io/v1/servicecidrs", _cluster_object(
        "networking.k8s.io/v1", "ServiceCIDR", "sc-v6", spec={"cidrs": ["FD00:10::/64"]}), None),
    "servicecidr-update-cidr": ("/apis/networking.k8s.io/v1/servicecidrs", _cluster_object(
        "networking.k8s.io/v1", "ServiceCIDR", "sc-upd", spec={"cidrs": ["10.210.0.0/24"]}),
        {"spec": {"cidrs": ["10.211.0.0/24"]}}),
    "ipaddress-name-not-canonical": ("/apis/networking.k8s.io/v1/ipaddresses", _cluster_object(
        "networking.k8s.io/v1", "IPAddress", "2001:DB8::10", spec={"parentRef": {
            "resource": "services", "name": "web", "namespace": "default"}}), None),
    "ipaddress-update-parent": ("/apis/networking.k8s.io/v1/ipaddresses", _cluster_object(
        "networking.k8s.io/v1", "IPAddress", "192.168.250.10", spec={"parentRef": {
            "resource": "services", "name": "web", "namespace": "default"}}),
        {"spec": {"parentRef": {"name": "other"}}}),
    # -- discovery.k8s.io -----------------------------------------------------------------------------
    "endpointslice-ipv4-loopback": ("endpointslices", _endpoint_slice("IPv4", "127.0.0.1"), None),
    "endpointslice-ipv4-as-ipv6": ("endpointslices", _endpoint_slice("IPv6", "10.0.0.1"), None),
    "endpointslice-ipv6-not-canonical": ("endpointslices", _endpoint_slice("IPv6", "2001:DB8::1"), None),
    "endpointslice-fqdn-one-label": ("endpointslices", _endpoint_slice("FQDN", "web"), None),
    "endpointslice-update-address-type": ("endpointslices", _meta(_endpoint_slice("IPv4", "10.0.0.1"),
                                                                  name="es-upd"), {"addressType": "IPv6"}),
    # -- node.k8s.io ----------------------------------------------------------------------------------
    "runtimeclass-toleration-duplicate": ("/apis/node.k8s.io/v1/runtimeclasses", _cluster_object(
        "node.k8s.io/v1", "RuntimeClass", "rc-dup", handler="runc", scheduling={"tolerations": [
            {"key": "a", "operator": "Exists"}, {"key": "a", "operator": "Exists", "tolerationSeconds": 5}]}), None),
    "runtimeclass-overhead-extended-fraction": ("/apis/node.k8s.io/v1/runtimeclasses", _cluster_object(
        "node.k8s.io/v1", "RuntimeClass", "rc-ovh", handler="runc", overhead={"podFixed": {
            "example.com/gpu": "500m"}}), None),
    "runtimeclass-update-handler": ("/apis/node.k8s.io/v1/runtimeclasses", _cluster_object(
        "node.k8s.io/v1", "RuntimeClass", "rc-upd", handler="runc"), {"handler": "crun"}),
    # -- storage.k8s.io -------------------------------------------------------------------------------
    "storageclass-update-reclaim-policy": ("/apis/storage.k8s.io/v1/storageclasses", _cluster_object(
        "storage.k8s.io/v1", "StorageClass", "sc-upd", provisioner="example.com/disk"),
        {"reclaimPolicy": "Retain", "parameters": {"type": "fast"}}),
    "storageclass-topology-duplicate-key": ("/apis/storage.k8s.io/v1/storageclasses", _cluster_object(
        "storage.k8s.io/v1", "StorageClass", "sc-topo", provisioner="example.com/disk", allowedTopologies=[
            {"matchLabelExpressions": [{"key": "zone", "values": ["a", "a"]}, {"key": "zone", "values": ["b"]}]}]),
        None),
    "csidriver-token-requests": ("/apis/storage.k8s.io/v1/csidrivers", _cluster_object(
        "storage.k8s.io/v1", "CSIDriver", "tokens.example.com", spec={"tokenRequests": [
            {"audience": "a", "expirationSeconds": 60}, {"audience": "a"}]}), None),
    "csidriver-update-attach-required": ("/apis/storage.k8s.io/v1/csidrivers", _cluster_object(
        "storage.k8s.io/v1", "CSIDriver", "upd.example.com", spec={"attachRequired": True}),
        {"spec": {"attachRequired": False, "volumeLifecycleModes": ["Ephemeral"]}}),
    "csinode-topology-keys": ("/apis/storage.k8s.io/v1/csinodes", _cluster_object(
        "storage.k8s.io/v1", "CSINode", "node-keys", spec={"drivers": [{"name": "csi.example.com", "nodeID": "n",
                                                                     "topologyKeys": ["zone", "zone", ""]}]}), None),
    "csinode-update-node-id": ("/apis/storage.k8s.io/v1/csinodes", _cluster_object(
        "storage.k8s.io/v1", "CSINode", "node-upd", spec={"drivers": [{"name": "csi.example.com", "nodeID": "n"}]}),
        {"spec": {"drivers": [{"name": "csi.example.com", "nodeID": "m"}]}}),
    "csistoragecapacity-negative": ("csistoragecapacities", {
        "apiVersion": "storage.k8s.io/v1", "kind": "CSIStorageCapacity", "metadata": {"name": "cap"},
        "storageClassName": "fast", "capacity": "-1Gi"}, None),
    "csistoragecapacity-update-class": ("csistoragecapacities", {
        "apiVersion": "storage.k8s.io/v1", "kind": "CSIStorageCapacity", "metadata": {"name": "cap-upd"},
        "storageClassName": "fast", "nodeTopology": {"matchLabels": {"zone": "a"}}},
        {"storageClassName": "slow", "nodeTopology": {"matchLabels": {"zone": "b"}}}),
    "volumeattachment-update-node": ("/apis/storage.k8s.io/v1/volumeattachments", _cluster_object(
        "storage.k8s.io/v1", "VolumeAttachment", "va-upd", spec=_VOLUME_ATTACHMENT_SPEC),
        {"spec": {"nodeName": "node-2"}}),
    "volumeattachment-no-source": ("/apis/storage.k8s.io/v1/volumeattachments", _cluster_object(
        "storage.k8s.io/v1", "VolumeAttachment", "va-none", spec={"attacher": "CSI.Example.com", "nodeName": "n",
                                                                   "source": {}}), None),
    "volumeattributesclass-update-driver": ("/apis/storage.k8s.io/v1/volumeattributesclasses", _cluster_object(
        "storage.k8s.io/v1", "VolumeAttributesClass", "vac-upd", driverName="csi.example.com",
        parameters={"iops": "100"}), {"driverName": "other.example.com", "parameters": {"iops": "200"}}),
    # A value of the wrong JSON type, named by encoding/json after upstream's Go types: a map's key
    # stays out of the path, a []byte is []uint8, a named string type keeps its package's short name.
    "decode-map-value-number": ("configmaps", _config_map(data={"k": 5}), None),
    "decode-label-value-list": ("configmaps", _meta(_config_map(), labels={"k": ["v"]}), None),
    "decode-meta-uid-number": ("configmaps", _meta(_config_map(), uid=5), None),
    "decode-secret-data-number": ("secrets", _secret(data={"k": 5}), None),
    "decode-finalizer-item-number": ("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                     "metadata": {"name": "decode-ns"}, "spec": {"finalizers": [5]}}, None),
    "decode-resource-limit-list": ("limitranges", {
        "apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "decode-lr"},
        "spec": {"limits": [{"type": "Container", "max": {"cpu": ["1"]}}]}}, None),
}


# -- admissionregistration, resource and apiextensions: the rules no generated case reaches ------------
_HOOK = {"name": "hook.example.com", "sideEffects": "None", "admissionReviewVersions": ["v1"],
         "clientConfig": {"url": "https://hook.example.com/validate"},
         "rules": [{"operations": ["CREATE"], "apiGroups": ["nobody.example.com"], "apiVersions": ["v1"],
                    "resources": ["nothings"]}]}
_ADMISSION = "/apis/admissionregistration.k8s.io/v1"
_RESOURCE = "/apis/resource.k8s.io/v1"
_CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


def _webhooks(name: str, **hook: Any) -> Obj:
    return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
            "metadata": {"name": name}, "webhooks": [{**copy.deepcopy(_HOOK), **hook}]}


def _binding(name: str, **spec: Any) -> Obj:
    return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": name}, "spec": {"policyName": "policy", "validationActions": ["Deny"], **spec}}


def _resource_claim(name: str, **devices: Any) -> Obj:
    base: Obj = {"requests": [{"name": "r", "exactly": {"deviceClassName": "dc"}}]}
    base.update(devices)
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": name},
            "spec": {"devices": base}}


def _crd(plural: str, **spec: Any) -> Obj:
    base: Obj = {"group": "vc.example.com", "scope": "Namespaced", "names": {"plural": plural, "kind": "Thing"},
                 "versions": [{"name": "v1", "served": True, "storage": True,
                               "schema": {"openAPIV3Schema": {"type": "object"}}}]}
    base.update(spec)
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{plural}.vc.example.com"}, "spec": base}


CASES.update({
    "webhook-url-user-query-fragment": (f"{_ADMISSION}/validatingwebhookconfigurations", _webhooks(
        "vc-hook-url", clientConfig={"url": "https://me@hook.example.com/v?x=1#top"}), None),
    "webhook-service-path-segments": (f"{_ADMISSION}/validatingwebhookconfigurations", _webhooks(
        "vc-hook-svc", clientConfig={"service": {"namespace": "ns", "name": "svc", "path": "v1//Bad_Path/",
                                                 "port": 70000}}), None),
    "webhook-rule-wildcards": (f"{_ADMISSION}/validatingwebhookconfigurations", _webhooks(
        "vc-hook-rules", rules=[{"operations": ["*", "CREATE"], "apiGroups": ["*", "apps"], "apiVersions": ["v1", ""],
                                 "resources": ["pods/*", "pods/log", "*/*"], "scope": "Everywhere"}]), None),
    "webhook-match-conditions-undeclared": (f"{_ADMISSION}/validatingwebhookconfigurations", _webhooks(
        "vc-hook-conditions", matchConditions=[{"name": "a", "expression": "params.x == 1"},
                                               {"name": "b", "expression": "1 + variables.y.z"},
                                               {"name": "Bad Name", "expression": "'x'"}]), None),
    "webhook-update-review-versions": (f"{_ADMISSION}/validatingwebhookconfigurations",
                                       _webhooks("vc-hook-upd"), {"webhooks": [{**_HOOK, "admissionReviewVersions":
                                                                                ["v9", "v9"]}]}),
    "binding-param-ref-name-and-selector": (f"{_ADMISSION}/validatingadmissionpolicybindings", _binding(
        "vc-binding", paramRef={"name": "p", "selector": {}, "parameterNotFoundAction": "Retry"},
        validationActions=["Deny", "Warn", "Deny"]), None),
    "policy-variables-and-audit-keys": (f"{_ADMISSION}/validatingadmissionpolicies", {
        "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "vc-policy"},
        "spec": {"paramKind": {"apiVersion": "a/b/c", "kind": "Bad_Kind"},
                 "matchConstraints": {"resourceRules": [{"operations": ["CREATE"], "apiGroups": [""],
                                                         "apiVersions": ["v1"], "resources": ["pods"]}]},
                 "variables": [{"name": "in", "expression": "1"}],
                 "auditAnnotations": [{"key": "k", "valueExpression": "1"}, {"key": "k", "valueExpression": "'x'"}]}},
        None),
    # Output types are compared exactly, as upstream's compiler does: a dyn answer is no bool or string.
    "policy-expressions-answering-dyn": (f"{_ADMISSION}/validatingadmissionpolicies", {
        "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "vc-policy-dyn"},
        "spec": {"matchConstraints": {"resourceRules": [{"operations": ["CREATE"], "apiGroups": [""],
                                                         "apiVersions": ["v1"], "resources": ["pods"]}]},
                 "matchConditions": [{"name": "flag", "expression": "object.spec.flag"}],
                 "validations": [{"expression": "{}['a']", "messageExpression": "object.metadata.name"},
                                 {"expression": "object.metadata.name == 'x'"}],
                 "auditAnnotations": [{"key": "k", "valueExpression": "object.metadata.name"}]}}, None),
    "policy-validation-reading-a-bool-variable": (f"{_ADMISSION}/validatingadmissionpolicies", {
        "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "vc-policy-bool-variable"},
        "spec": {"matchConstraints": {"resourceRules": [{"operations": ["CREATE"], "apiGroups": [""],
                                                         "apiVersions": ["v1"], "resources": ["pods"]}]},
                 "variables": [{"name": "named", "expression": "object.metadata.name == 'x'"}],
                 "validations": [{"expression": "variables.named"}]}}, None),
    "webhook-match-condition-answering-dyn": (f"{_ADMISSION}/validatingwebhookconfigurations",
                                              _webhooks("vc-hook-dyn", matchConditions=[
                                                  {"name": "flag", "expression": "object.spec.flag"}]), None),
    "mutating-policy-patch-types": (f"{_ADMISSION}/mutatingadmissionpolicies", {
        "apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicy",
        "metadata": {"name": "vc-mpolicy"},
        "spec": {"matchConstraints": {"resourceRules": [{"operations": ["DELETE"], "apiGroups": [""],
                                                         "apiVersions": ["v1"], "resources": ["pods"]}]},
                 "mutations": [{"patchType": "ApplyConfiguration", "jsonPatch": {"expression": "[]"}}],
                 "reinvocationPolicy": "Sometimes"}}, None),
    "mutating-policy-expression-types": (f"{_ADMISSION}/mutatingadmissionpolicies", {
        "apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicy",
        "metadata": {"name": "vc-mpolicy-types"},
        "spec": {"matchConstraints": {"resourceRules": [{"operations": ["CREATE"], "apiGroups": [""],
                                                         "apiVersions": ["v1"], "resources": ["pods"]}]},
                 "mutations": [{"patchType": "JSONPatch", "jsonPatch": {"expression": "[]"}},
                               {"patchType": "JSONPatch", "jsonPatch": {"expression": "1"}},
                               {"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": "a"}},
                               {"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": "1"}}],
                 "reinvocationPolicy": "Never"}}, None),
    "resourceclaim-subrequests-and-tolerations": ("resourceclaims", _resource_claim("vc-claim", requests=[
        {"name": "r", "firstAvailable": [
            {"name": "s", "deviceClassName": "dc", "allocationMode": "All", "count": 2},
            {"name": "s", "deviceClassName": "dc", "tolerations": [{"operator": "Exists", "value": "v",
                                                                   "effect": "Sometimes"}]}]}],
        constraints=[{"requests": ["r/t", "x/y/z"], "matchAttribute": "example.com/model"}]), None),
    "resourceclaim-update-spec": ("resourceclaims", _resource_claim("vc-claim-upd"),
                                  {"spec": {"devices": {"requests": [{"name": "r", "exactly": {
                                      "deviceClassName": "other"}}]}}}),
    # encoding/json keeps a mistyped value's error and decodes on; a MicroTime's own UnmarshalJSON error
    # stops it, and is the answer.
    "event-series-mistyped-count-and-bad-time": ("events", {
        "apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "vc-event"},
        "eventTime": "2024-01-01T00:00:00.000000Z", "reportingController": "example.com/ctl",
        "reportingInstance": "ctl-1", "action": "Act", "reason": "Seen", "type": "Normal",
        "regarding": {"kind": "Pod", "namespace": NAMESPACE, "name": "p"},
        "series": {"count": "2", "lastObservedTime": "2024-01-01T00:00:00Z"}}, None),
    "pod-mistyped-then-bad-quantity": ("pods", _pod(hostname=5, containers=[
        _container(resources={"limits": {"cpu": "bad"}})]), None),
    "pod-bad-time-and-mistyped": ("pods", {**_meta(_pod(hostname=5), creationTimestamp="nope")}, None),
    "pod-two-mistyped": ("pods", _pod(hostname=5, activeDeadlineSeconds="x"), None),
    "event-series-mistyped-count": ("events", {
        "apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "vc-event"},
        "eventTime": "2024-01-01T00:00:00.000000Z", "reportingController": "example.com/ctl",
        "reportingInstance": "ctl-1", "action": "Act", "reason": "Seen", "type": "Normal",
        "regarding": {"kind": "Pod", "namespace": NAMESPACE, "name": "p"},
        "series": {"count": "2", "lastObservedTime": "2024-01-01T00:00:00.000000Z"}}, None),
    # AuthorizedForAdmin (pkg/registry/resource/utils.go): admin access needs a labelled namespace, and
    # its refusal comes before the claim's own validation in one 422.
    "resourceclaim-admin-access-namespace-unlabelled": ("resourceclaims", _resource_claim("vc-claim-admin", requests=[
        {"name": "R_", "exactly": {"deviceClassName": "dc"}},
        {"name": "r", "exactly": {"deviceClassName": "dc", "adminAccess": True}}]), None),
    "resourceclaim-admin-access-namespace-labelled": (
        f"{_RESOURCE}/namespaces/{ADMIN_NAMESPACE}/resourceclaims", _resource_claim("vc-claim-admin", requests=[
            {"name": "r", "exactly": {"deviceClassName": "dc", "adminAccess": True}}]), None),
    "resourceclaim-admin-access-false": ("resourceclaims", _resource_claim("vc-claim-admin", requests=[
        {"name": "r", "exactly": {"deviceClassName": "dc", "adminAccess": False}}]), None),
    "resourceclaimtemplate-admin-access-namespace-unlabelled": ("resourceclaimtemplates", {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", "metadata": {"name": "vc-template-admin"},
        "spec": {"spec": {"devices": {"requests": [
            {"name": "r", "exactly": {"deviceClassName": "dc", "adminAccess": True}}]}}}}, None),
    # A device toleration's operator defaults to Equal (the generated defaulter), so a value is allowed.
    "resourceclaim-toleration-operator-defaulted": ("resourceclaims", _resource_claim("vc-claim-tol", requests=[
        {"name": "r", "exactly": {"deviceClassName": "dc", "tolerations": [{"key": "k", "value": "v"}]}}]), None),
    "deviceclass-selector-type-and-resource-name": (f"{_RESOURCE}/deviceclasses", {
        "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "vc-class"},
        "spec": {"selectors": [{"cel": {"expression": "1 + 1"}}], "extendedResourceName": "example.com/bad name",
                 "config": [{"opaque": {"driver": "Driver.Example.Com", "parameters": None}}]}}, None),
    "resourceslice-update-driver": (f"{_RESOURCE}/resourceslices", {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "vc-slice"},
        "spec": {"driver": "driver.example.com", "pool": {"name": "p", "resourceSliceCount": 1},
                 "allNodes": True, "devices": [{"name": "d"}]}},
        {"spec": {"driver": "other.example.com", "pool": {"name": "q"}}}),
    "resourceslice-binding-conditions-and-selection": (f"{_RESOURCE}/resourceslices", {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "vc-slice-bind"},
        "spec": {"driver": "driver.example.com", "pool": {"name": "p/Q", "resourceSliceCount": 0},
                 "nodeName": "n", "allNodes": True,
                 "devices": [{"name": "d", "nodeName": "n", "bindingConditions": ["a", "a"],
                              "bindingFailureConditions": ["a"], "taints": [{"key": "k", "effect": ""}]}]}},
        None),
    "resourceslice-list-attributes-dropped": (f"{_RESOURCE}/resourceslices", {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "vc-slice-lists"},
        "spec": {"driver": "driver.example.com", "pool": {"name": "p", "resourceSliceCount": 1}, "allNodes": True,
                 # One attribute per device: Go walks a map in no fixed order.
                 "devices": [{"name": "d", "attributes": {"model": {"strings": ["a"]}}},
                             {"name": "e", "attributes": {"bad_Name/x": {"version": "1.2"}}}]}}, None),
    "crd-conversion-webhook": (_CRDS, _crd("vcconversions", conversion={
        "strategy": "Webhook", "webhook": {"clientConfig": {"url": "http://conv.example.com"},
                                           "conversionReviewVersions": ["v9", "v9"]}}), None),
    "crd-protected-group-unapproved": (_CRDS, {**_crd("vcapprovals", group="vc.k8s.io"), "metadata": {
        "name": "vcapprovals.vc.k8s.io", "annotations": {"api-approved.kubernetes.io": "maybe"}}}, None),
    "crd-protected-group-missing-approval": (_CRDS, {**_crd("vcmissing", group="vc.kubernetes.io"), "metadata": {
        "name": "vcmissing.vc.kubernetes.io"}}, None),
    "crd-version-name-not-a-label": (_CRDS, _crd("vcversions", versions=[
        {"name": "V1.x", "served": True, "storage": True, "schema": {"openAPIV3Schema": {"type": "object"}}}]), None),
    # SetDefaults_CustomResourceDefinitionSpec defaults listKind only from a kind.
    "crd-names-empty": (_CRDS, _crd("vcempties", names={}), None),
    "crd-names-kind-empty": (_CRDS, _crd("vcempties", names={"plural": "vcempties", "kind": "", "singular": ""}), None),
    "crd-update-plural": (_CRDS, _crd("vcplurals"), {"spec": {"names": {"plural": "others"}}}),
    "crd-names-and-deprecation": (_CRDS, _crd("vcnames", names={"plural": "vcnames", "kind": "Thing",
                                                                "listKind": "Thing", "shortNames": ["Bad_Short"]},
                                              versions=[{"name": "v1", "served": True, "storage": True,
                                                         "deprecated": True, "deprecationWarning": "",
                                                         "schema": {"openAPIV3Schema": {"type": "object"}},
                                                         "subresources": {"scale": {"specReplicasPath": ".status.r",
                                                                                    "statusReplicasPath": ".spec.r"}}}]),
                                  None),
})


# -- control plane kinds: apiregistration, certificates, flowcontrol, rbac ------------------------------
_APISERVICES = "/apis/apiregistration.k8s.io/v1/apiservices"
_CSRS = "/apis/certificates.k8s.io/v1/certificatesigningrequests"
_FLOWCONTROL = "/apis/flowcontrol.apiserver.k8s.io/v1"
# A certificate request signed by its key, and the same with one bit of the signature flipped.
_SIGNED_REQUEST = (
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIT01IY0NBUUF3RlRFVE1CRUdBMVVFQXd3S2RtRnNhV1JoZEds"
    "dmJqQlpNQk1HQnlxR1NNNDlBZ0VHQ0NxRwpTTTQ5QXdFSEEwSUFCT0x3b0VMc21oaStzVlF3dk94NzVnL2lWTW9tQkRLczR2UUda"
    "YklRdytEQU9ER3FwSW44Ckp5YmU5R29xUFBXOHd1bzkvVi9IZ29zMDFwdkh5RVcwanZPZ0FEQUtCZ2dxaGtqT1BRUURBZ05IQURC"
    "RUFpQlUKenUvN2l2STFOcHRmTktjc0ZwRUpZR3RuU2dvLzg0eXhXSGd2YVI4c0d3SWdlZjFyeGFMbGREdkdsRkZsRVpVcgpJbEVs"
    "Z3MwUkdlSGVRazZtZGtRWXZUQT0KLS0tLS1FTkQgQ0VSVElGSUNBVEUgUkVRVUVTVC0tLS0tCg==")
_TAMPERED_REQUEST = (
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIT01IY0NBUUF3RlRFVE1CRUdBMVVFQXd3S2RtRnNhV1JoZEds"
    "dmJqQlpNQk1HQnlxR1NNNDlBZ0VHQ0NxR1NNNDlBd0VIQTBJQQpCT0x3b0VMc21oaStzVlF3dk94NzVnL2lWTW9tQkRLczR2UUda"
    "YklRdytEQU9ER3FwSW44SnliZTlHb3FQUFc4d3VvOS9WL0hnb3MwCjFwdkh5RVcwanZPZ0FEQUtCZ2dxaGtqT1BRUURBZ05IQURC"
    "RUFpQlV6dS83aXZJMU5wdGZOS2NzRnBFSllHdG5TZ28vODR5eFdIZ3YKYVI4c0d3SWdlZjFyeGFMbGREdkdsRkZsRVpVcklsRWxn"
    "czBSR2VIZVFrNm1ka1FadlRBPQotLS0tLUVORCBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0K")


def _api_service(name: str, **spec: Any) -> Obj:
    version, _, group = name.partition(".")
    base: Obj = {"group": group, "version": version, "groupPriorityMinimum": 100, "versionPriority": 10}
    base.update(spec)
    return {"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": name}, "spec": base}


def _csr(name: str, **spec: Any) -> Obj:
    base: Obj = {"request": _SIGNED_REQUEST, "signerName": "example.com/validation", "usages": ["client auth"]}
    base.update(spec)
    return {"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest", "metadata": {"name": name},
            "spec": base}


def _flow_schema(name: str, rule: Obj) -> Obj:
    return {"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema", "metadata": {"name": name},
            "spec": {"priorityLevelConfiguration": {"name": "global-default"}, "rules": [
                {"subjects": [{"kind": "Group", "group": {"name": "system:authenticated"}}], **rule}]}}


def _priority_level(name: str, **spec: Any) -> Obj:
    return {"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "PriorityLevelConfiguration",
            "metadata": {"name": name}, "spec": spec}


_QUEUED = {"type": "Queue", "queuing": {"queues": 128, "handSize": 9}}

CASES.update({
    "apiservice-update-group": (_APISERVICES, _api_service("v1.update.validation.example.com"),
                                {"spec": {"group": "other.example.com"}}),
    "apiservice-service-port-zero": (_APISERVICES, _api_service("v1.port.validation.example.com", service={
        "namespace": "default", "name": "api", "port": 0}), None),
    "apiservice-skip-verify-with-ca": (_APISERVICES, _api_service("v1.tls.validation.example.com", service={
        "namespace": "default", "name": "api"}, insecureSkipTLSVerify=True, caBundle="YWJj"), None),
    "apiservice-status-condition-maybe": (_APISERVICES, _api_service("v1.status.validation.example.com"), (
        "status", {"status": {"conditions": [{"type": "Available", "status": "Maybe"}]}})),
    "flowschema-status-condition-repeated": (f"{_FLOWCONTROL}/flowschemas", _flow_schema("v-status", {
        "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/healthz"]}]}), ("status", {"status": {
            "conditions": [{"type": "Dangling", "status": "True"}, {"type": "Dangling"}, {"status": "True"}]}})),
    "prioritylevel-status-condition-without-type": (f"{_FLOWCONTROL}/prioritylevelconfigurations", _priority_level(
        "v-status", type="Limited", limited={"limitResponse": {"type": "Reject"}}), ("status", {"status": {
            "conditions": [{"status": "True"}]}})),
    "apiservice-versionPriority-too-high": (_APISERVICES, _api_service("v1.prio.validation.example.com",
                                                                       versionPriority=1001), None),
    "csr-tampered-signature": (_CSRS, _csr("v-tampered", request=_TAMPERED_REQUEST), None),
    "csr-legacy-signer": (_CSRS, _csr("v-legacy", signerName="kubernetes.io/legacy-unknown"), None),
    "csr-signer-one-label-domain": (_CSRS, _csr("v-signer", signerName="example/Signer"), None),
    "csr-usages-repeated-and-unknown": (_CSRS, _csr("v-usages", usages=["client auth", "teleport", "client auth"]),
                                        None),
    "csr-approval-approved-and-denied": (_CSRS, _csr("v-approval"), ("approval", {"status": {"conditions": [
        {"type": "Approved", "status": "True", "reason": "Yes"}, {"type": "Denied", "status": "True"}]}})),
    "csr-status-certificate-not-pem": (_CSRS, _csr("v-certificate"), ("status", {"status": {"certificate": "YWJj"}})),
    "csr-status-condition-without-status": (_CSRS, _csr("v-condition"), ("status", {"status": {"conditions": [
        {"type": "Signing"}]}})),
    "flowschema-service-account-without-namespace": ("/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas", {
        **_flow_schema("v-sa", {"nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/healthz"]}]}),
        "spec": {"priorityLevelConfiguration": {"name": "global-default"}, "rules": [{
            "subjects": [{"kind": "ServiceAccount", "serviceAccount": {"name": "robot"}, "user": {"name": "u"}}],
            "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/healthz"]}]}]}}, None),
    "flowschema-url-wildcard-inside": (f"{_FLOWCONTROL}/flowschemas", _flow_schema("v-url", {"nonResourceRules": [
        {"verbs": ["get", "*"], "nonResourceURLs": ["/api/*/x", "/a b", "//x", "relative"]}]}), None),
    "flowschema-namespaces-wildcard-with-others": (f"{_FLOWCONTROL}/flowschemas", _flow_schema("v-ns", {
        "resourceRules": [{"verbs": ["list"], "apiGroups": ["*", "apps"], "resources": ["pods"],
                           "namespaces": ["*", "default"]}]}), None),
    "flowschema-precedence-one": (f"{_FLOWCONTROL}/flowschemas", {**_flow_schema("v-first", {
        "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"], "clusterScope": True}]}),
        "spec": {"matchingPrecedence": 1, "priorityLevelConfiguration": {"name": "Bad_Level"}}}, None),
    "prioritylevel-hand-size-entropy": (f"{_FLOWCONTROL}/prioritylevelconfigurations", _priority_level(
        "v-entropy", type="Limited", limited={"limitResponse": _QUEUED}), None),
    "prioritylevel-exempt-type-with-limited": (f"{_FLOWCONTROL}/prioritylevelconfigurations", _priority_level(
        "v-exempt", type="Exempt", limited={"limitResponse": {"type": "Reject"}},
        exempt={"nominalConcurrencyShares": -1, "lendablePercent": 101}), None),
    "prioritylevel-preserve-zero-annotation": (f"{_FLOWCONTROL}/prioritylevelconfigurations", _meta(
        _priority_level("v-annotated", type="Limited", limited={
            "nominalConcurrencyShares": -1, "borrowingLimitPercent": -1,
            "limitResponse": {"type": "Reject", "queuing": {"queues": 1}}}),
        annotations={"flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares": ""}), None),
    "flowschema-mandatory-exempt-changed": (f"{_FLOWCONTROL}/flowschemas/exempt", None, {"spec": {
        "matchingPrecedence": 2}}),
    "flowschema-mandatory-catch-all-rules": (f"{_FLOWCONTROL}/flowschemas/catch-all", None, {"spec": {
        "distinguisherMethod": None, "rules": [{
            "subjects": [{"kind": "ServiceAccount", "serviceAccount": {"name": "x", "namespace": "y"}}],
            "resourceRules": [{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"], "namespaces": []}],
            "nonResourceRules": []}]}}),
    "prioritylevel-mandatory-catch-all-changed": (f"{_FLOWCONTROL}/prioritylevelconfigurations/catch-all", None, {
        "spec": {"limited": {"lendablePercent": 5}}}),
    "prioritylevel-mandatory-exempt-tunable": (f"{_FLOWCONTROL}/prioritylevelconfigurations/exempt", None, {
        "spec": {"exempt": {"lendablePercent": 5}}}),
    "prioritylevel-mandatory-exempt-limited": (f"{_FLOWCONTROL}/prioritylevelconfigurations/exempt", None, {
        "spec": {"type": "Limited", "limited": {"limitResponse": {"type": "Queue", "queuing": {}}}}}),
    "clusterrole-selector-value-invalid": ("/apis/rbac.authorization.k8s.io/v1/clusterroles", {
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "v-aggregated"},
        "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"ok": "Bad Value"}, "matchExpressions": [
            {"key": "tier", "operator": "In", "values": ["not valid!"]}, {"key": "x", "operator": "Exists",
                                                                       "values": ["y"]}]}]}}, None),
    "clusterrolebinding-user-without-name": ("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", {
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": {"name": "v-crb"},
        "roleRef": {"kind": "ClusterRole", "name": "view"},
        "subjects": [{"kind": "User"}, {"kind": "ServiceAccount", "name": "Robot", "apiGroup": "x"}]}, None),
})

# A custom resource whose scale's replicas are optional: ScaleREST judges a scale update by the
# resource's own validation, and refuses to start from replicas it did not find. Its size is judged by
# CEL's quantity library, which reads a quantity as resource.ParseQuantity does.
_GADGETS = f"/apis/validation.example.com/v1/namespaces/{NAMESPACE}/gadgets"
_GADGET_CRD: Obj = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "gadgets.validation.example.com"},
    "spec": {"group": "validation.example.com", "scope": "Namespaced",
             "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
             "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                 "type": "object", "properties": {
                     "spec": {"type": "object", "properties": {
                         "replicas": {"type": "integer", "minimum": 0}, "size": {"type": "string", "maxLength": 16}},
                         "x-kubernetes-validations": [
                             {"rule": "!has(self.size) || isQuantity(self.size)", "message": "size must be a quantity"},
                             {"rule": "!has(self.size) || !isQuantity(self.size) || "
                                      "quantity(self.size).compareTo(quantity('2n')) != 0",
                              "message": "size may not be 2n"}]},
                     "status": {"type": "object", "properties": {"replicas": {"type": "integer"}}}}}},
                 "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas",
                                                          "statusReplicasPath": ".status.replicas"}}}]}}


def _gadget(name: str, **spec: Any) -> Obj:
    return {"apiVersion": "validation.example.com/v1", "kind": "Gadget", "metadata": {"name": name}, "spec": spec}


CASES.update({
    "cr-scale-patch-without-replicas": (_GADGETS, _gadget("v-unset"), ("scale", {"metadata": {"labels": {"a": "b"}}})),
    "cr-scale-patch-stand-in-replicas": (_GADGETS, _gadget("v-stand-in", replicas=1), (
        "scale", {"spec": {"replicas": -2147483648}})),
    "cr-scale-patch-negative": (_GADGETS, _gadget("v-negative", replicas=1), ("scale", {"spec": {"replicas": -3}})),
    "cr-scale-patch-kept": (_GADGETS, _gadget("v-kept", replicas=1), ("scale", {"spec": {"replicas": 4}})),
    # The Scale is decoded as autoscaling/v1's, for a custom resource too: its replicas are an int32.
    "cr-scale-put-replicas-beyond-int32": (_GADGETS, _gadget("v-int32", replicas=1), ("scale", {
        "apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "v-int32"},
        "spec": {"replicas": 3000000000}}, "PUT")),
    "deployment-scale-put-replicas-beyond-int32": ("deployments", _deployment(), ("scale", {
        "apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "d"},
        "spec": {"replicas": 3000000000}}, "PUT")),
    "cel-quantity-bare-point": (_GADGETS, _gadget("v-point", size="."), None),
    "cel-quantity-exponent-without-number": (_GADGETS, _gadget("v-exponent", size="e3"), None),
    "cel-quantity-rounded-to-nano": (_GADGETS, _gadget("v-nano", size="1.5n"), None),
    "cel-quantity-unknown-suffix": (_GADGETS, _gadget("v-suffix", size="1K"), None),
    # A name's length is counted in bytes (Go's len), whichever word the message uses for it.
    "configmap-name-multibyte-length": ("configmaps", _config_map(metadata={"name": "\u00e9" * 127}), None),
    "deviceclass-name-multibyte-length": (f"{_RESOURCE}/deviceclasses", {
        "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "\u00e9" * 127}, "spec": {}},
                                          None),
    "replicationcontroller-name-too-long": ("replicationcontrollers", {
        "apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "r" * 254},
        "spec": {"selector": {"app": "web"}, "template": _TEMPLATE}}, None),
})


# -- ValidatePodSpec's pod-wide rules (pod_spec_rules.py, resource_requirements.py) --------------------
_CLAIM_TEMPLATE = {"resourceClaimTemplateName": "gpu"}
_ZONE_A = {"key": "zone", "operator": "In", "values": ["a"]}
_GATED_AFFINITY = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
    {"matchExpressions": [_ZONE_A]}, {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}]}]}}}
CASES.update({
    "pod-resource-claim-both-and-neither": ("pods", _pod(resourceClaims=[
        {"name": "a", "resourceClaimName": "x", "resourceClaimTemplateName": "y"}, {"name": "a"}, {"name": "B_"}]),
        None),
    "pod-resource-claim-static-pod": ("pods", _meta(_pod(resourceClaims=[{"name": "a", **_CLAIM_TEMPLATE}]),
                                                    annotations={"kubernetes.io/config.mirror": "x"}), None),
    "pod-container-claims-unknown-and-duplicate": ("pods", _pod(
        resourceClaims=[{"name": "gpu", **_CLAIM_TEMPLATE}, {"name": "fpga", **_CLAIM_TEMPLATE}],
        containers=[_container(resources={"claims": [
            {"name": "gpu", "request": "one"}, {"name": "gpu"}, {"name": "gpu", "request": "Bad_"}, {"name": "tpu"},
            {"name": ""}]})]), None),
    "pod-resize-policy-never-restart": ("pods", _pod(restartPolicy="Never", containers=[_container(resizePolicy=[
        {"resourceName": "cpu", "restartPolicy": "RestartContainer"}, {"resourceName": "cpu", "restartPolicy": ""},
        {"resourceName": "", "restartPolicy": "NotRequired"}])]), None),
    "pod-env-from-sources": ("pods", _pod(containers=[_container(envFrom=[
        {"prefix": "1=x"}, {"configMapRef": {"name": "Bad"}, "secretRef": {"name": "ok-"}}, {"secretRef": {}}])]),
        None),
    "pod-host-port-conflict": ("pods", _pod(containers=[
        _container(ports=[{"containerPort": 80, "hostPort": 8080}]),
        _container(name="side", ports=[{"containerPort": 81, "hostPort": 8080}])],
        initContainers=[_container(name="init", ports=[{"containerPort": 80, "hostPort": 8080},
                                                       {"containerPort": 81, "hostPort": 8080}])]), None),
    "pod-hugepages-without-cpu-indivisible": ("pods", _pod(containers=[_container(resources={
        "limits": {"hugepages-2Mi": "3Mi"}, "requests": {"hugepages-2Mi": "3Mi"}})]), None),
    # Go walks resource maps in a random order: each case's maps hold one name that draws an error.
    "pod-level-resources-claims-and-name": ("pods", _pod(resources={"requests": {"storage": "1"},
                                                                     "claims": [{"name": "a"}]}), None),
    "pod-level-resources-below-containers": ("pods", _pod(
        resources={"requests": {"cpu": "100m"}, "limits": {"memory": "1Gi"}},
        containers=[_container(resources={"requests": {"cpu": "200m"}})],
        initContainers=[_container(name="init", resources={"requests": {"cpu": "500m"}})]), None),
    "pod-level-limits-below-container-limits": ("pods", _pod(
        resources={"limits": {"cpu": "1"}}, containers=[_container(resources={"limits": {"cpu": "2"}})]), None),
    "pod-level-resources-windows": ("pods", _pod(os={"name": "windows"}, resources={"requests": {"cpu": "1"}}),
                                    None),
    "pod-dns-config-limits": ("pods", _pod(dnsPolicy="None", dnsConfig={
        "nameservers": ["1.1.1.1", "bad", "10.0.0.1", "10.0.0.2"], "searches": ["_srv.example.com.", ".", "Bad"],
        "options": [{"name": "ndots"}, {"value": "2"}]}), None),
    "pod-dns-none-without-nameservers": ("pods", _pod(dnsPolicy="None", dnsConfig={"searches": ["a"]}), None),
    "pod-scheduling-gates-invalid": ("pods", _pod(schedulingGates=[{"name": "a"}, {"name": "a"},
                                                                   {"name": "bad name"}]), None),
    "pod-host-users-false-host-namespaces": ("pods", _pod(hostUsers=False, hostNetwork=True, hostPID=True,
                                                          hostIPC=True), None),
    "pod-hostname-override-fqdn-host-network": ("pods", _pod(hostnameOverride="Node_1", setHostnameAsFQDN=True,
                                                             hostNetwork=True), None),
    "pod-host-aliases-hostnames": ("pods", _pod(hostAliases=[{"ip": "10.0.0.1", "hostnames": ["ok", "Bad_"]},
                                                            {"ip": "010.0.0.1"}]), None),
    "pod-node-name-invalid": ("pods", _pod(nodeName="Bad_Node"), None),
    "pod-os-linux-windows-options": ("pods", _pod(os={"name": "linux"}, securityContext={"windowsOptions": {}},
                                                  containers=[_container(securityContext={"windowsOptions": {}})]),
                                     None),
    "pod-os-windows-linux-fields": ("pods", _pod(os={"name": "windows"}, hostPID=True, shareProcessNamespace=False,
                                                 securityContext={"runAsUser": 1, "fsGroup": 2, "sysctls": [
                                                     {"name": "kernel.msgmax", "value": "1"}]},
                                                 containers=[_container(securityContext={
                                                     "privileged": False, "capabilities": {}, "procMount": "Default"})]),
                                    None),
    "pod-os-name-empty": ("pods", _pod(os={"name": ""}), None),
    "pod-host-process-mixed": ("pods", _pod(securityContext={"windowsOptions": {"hostProcess": True}},
                                            containers=[_container(securityContext={"windowsOptions": {
                                                "hostProcess": False}}), _container(name="side")]), None),
    "pod-file-key-ref-volumes": ("pods", _pod(volumes=[{"name": "cfg", "configMap": {"name": "c"}}], containers=[
        _container(env=[{"name": "A", "valueFrom": {"fileKeyRef": {"volumeName": "cfg", "path": "a", "key": "A"}}},
                        {"name": "B", "valueFrom": {"fileKeyRef": {"volumeName": "none", "path": "b", "key": "B"}}}])]),
        None),
    "pod-selinux-change-policy-mount-option": ("pods", _pod(securityContext={"seLinuxChangePolicy": "MountOption"}),
                                               None),
    "deployment-overhead-hugepages": ("deployments", _deployment(template={**_TEMPLATE, "spec": {
        **_TEMPLATE["spec"], "overhead": {"hugepages-2Mi": "3Mi"}}}), None),
    "deployment-overhead-fraction-of-extended": ("deployments", _deployment(template={**_TEMPLATE, "spec": {
        **_TEMPLATE["spec"], "overhead": {"example.com/dongle": "1500m"}}}), None),
    "pod-volume-invalid-then-mounted": ("pods", _pod(volumes=[{"name": "Data", "emptyDir": {}},
                                                             {"name": "cfg", "configMap": {}}],
                                                    containers=[_container(volumeMounts=[
                                                        {"name": "Data", "mountPath": "/a"},
                                                        {"name": "cfg", "mountPath": "/b"}])]), None),
    "pod-volume-claims-own-ephemeral-claim": ("pods", _pod(volumes=[
        {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {
            "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}}},
        {"name": "data", "persistentVolumeClaim": {"claimName": "p-scratch"}}]), None),
    "pod-gated-node-selector-addition": ("pods", _meta(_pod(schedulingGates=[{"name": "example.com/gate"}],
                                                            nodeSelector={"a": "1"}), name="p-gated-add"),
                                         {"spec": {"nodeSelector": {"b": "2"}}}),
    "pod-gated-node-selector-mutation": ("pods", _meta(_pod(schedulingGates=[{"name": "example.com/gate"}],
                                                            nodeSelector={"a": "1"}), name="p-gated-mut"),
                                         {"spec": {"nodeSelector": {"a": "2"}}}),
    "pod-gated-affinity-requirement-added-and-changed": ("pods", _meta(_pod(
        schedulingGates=[{"name": "example.com/gate"}], affinity=_GATED_AFFINITY), name="p-gated-aff"),
        {"spec": {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [_ZONE_A, {"key": "disk", "operator": "Exists"}]},
                                  {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["c"]}]}]}}}}}),
    "pod-gated-affinity-term-added": ("pods", _meta(_pod(
        schedulingGates=[{"name": "example.com/gate"}], affinity=_GATED_AFFINITY), name="p-gated-terms"),
        {"spec": {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [_ZONE_A]}, {"matchExpressions": [_ZONE_A]},
                                  {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n"]}]}]}}}}}),
    "pod-ungated-node-selector-addition": ("pods", _meta(_pod(nodeSelector={"a": "1"}), name="p-ungated"),
                                           {"spec": {"nodeSelector": {"b": "2"}}}),
    "pod-specific-annotations": ("pods", _meta(_pod(), annotations={
        "kubernetes.io/config.mirror": "x", "controller.kubernetes.io/pod-deletion-cost": "+1",
        "seccomp.security.alpha.kubernetes.io/pod": "bad", "container.seccomp.security.alpha.kubernetes.io/app":
            "localhost/../x", "container.apparmor.security.beta.kubernetes.io/nope": "bad"}), None),
    "pod-tolerations-annotation": ("pods", _meta(_pod(), annotations={
        "scheduler.alpha.kubernetes.io/tolerations": '[{"key": "bad key", "operator": "Exists"}]'}), None),
    "pod-seccomp-annotation-field-mismatch": ("pods", _meta(_pod(
        securityContext={"seccompProfile": {"type": "Unconfined"}},
        containers=[_container(securityContext={"seccompProfile": {"type": "Localhost", "localhostProfile": "b"}})]),
        annotations={"seccomp.security.alpha.kubernetes.io/pod": "runtime/default",
                     "container.seccomp.security.alpha.kubernetes.io/app": "localhost/a"}), None),
    "pod-apparmor-annotation-field-mismatch": ("pods", _meta(_pod(
        securityContext={"appArmorProfile": {"type": "RuntimeDefault"}},
        containers=[_container(), _container(name="side", securityContext={
            "appArmorProfile": {"type": "Localhost", "localhostProfile": "b"}})]),
        annotations={"container.apparmor.security.beta.kubernetes.io/app": "unconfined",
                     "container.apparmor.security.beta.kubernetes.io/side": "localhost/a"}), None),
    "pod-update-adds-mirror-annotation": ("pods", _meta(_pod(), name="p-mirror"), {"metadata": {"annotations": {
        "kubernetes.io/config.mirror": "x"}}}),
    "pod-update-adds-apparmor-annotation": ("pods", _meta(_pod(), name="p-apparmor"), {"metadata": {"annotations": {
        "container.apparmor.security.beta.kubernetes.io/app": "unconfined"}}}),
    "deployment-template-pod-annotations": ("deployments", _deployment(template={
        "metadata": {"labels": _LABELS, "annotations": {"kubernetes.io/config.mirror": "x",
                                                        "seccomp.security.alpha.kubernetes.io/pod": "unconfined"}},
        "spec": {**_TEMPLATE["spec"], "securityContext": {"seccompProfile": {"type": "RuntimeDefault"}}}}), None),
    "deployment-template-preemption-runtime-class": ("deployments", _deployment(template={**_TEMPLATE, "spec": {
        **_TEMPLATE["spec"], "preemptionPolicy": "", "runtimeClassName": "Bad_", "priorityClassName": "Bad_"}}),
        None),
})


# -- the downward API, projected and ephemeral volume sources (pod_volumes.py, downward_api.py) ------------
def _downward(*items: Obj, **source: Any) -> Obj:
    return _pod(volumes=[{"name": "info", "downwardAPI": {"items": list(items), **source}}])


def _projected(*sources: Obj, account: str = "default", **projected: Any) -> Obj:
    return _pod(serviceAccountName=account, volumes=[{"name": "all", "projected": {"sources": list(sources),
                                                                                     **projected}}])


def _ephemeral(template: Any) -> Obj:
    return _pod(volumes=[{"name": "scratch", "ephemeral": {"volumeClaimTemplate": template} if template is not None
                          else {}}])


def _name_ref(path: str, field_path: str = "metadata.name", **ref: Any) -> Obj:
    return {"path": path, "fieldRef": {"fieldPath": field_path, **ref}}


def _resource_ref(path: str, **ref: Any) -> Obj:
    return {"path": path, "resourceFieldRef": ref}


_CLAIM_SPEC = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
CASES.update({
    "pod-downward-item-without-reference": ("pods", _downward({"path": "a"}), None),
    "pod-downward-item-without-path": ("pods", _downward({"fieldRef": {"fieldPath": "metadata.name"}}), None),
    "pod-downward-item-paths-outside": ("pods", _downward(_name_ref("/abs"), _name_ref("a/../../b"),
                                                          _name_ref("..hidden")), None),
    "pod-downward-modes": ("pods", _downward(dict(_name_ref("a"), mode=512), dict(_name_ref("b"), mode=-1),
                                             defaultMode=4096), None),
    "pod-downward-both-references": ("pods", _downward(dict(_name_ref("a"), resourceFieldRef={
        "containerName": "app", "resource": "limits.cpu"})), None),
    "pod-downward-field-not-for-volumes": ("pods", _downward(_name_ref("a", "spec.nodeName"),
                                                             _name_ref("b", "status.podIP")), None),
    "pod-downward-field-unknown": ("pods", _downward(_name_ref("a", "metadata.generation")), None),
    "pod-downward-field-api-version": ("pods", _downward(_name_ref("a", apiVersion="v2")), None),
    "pod-downward-field-empty": ("pods", _downward(_name_ref("a", "")), None),
    "pod-downward-field-subscripts": ("pods", _downward(
        _name_ref("a", "metadata.labels['bad key']"), _name_ref("b", "metadata.annotations['Example.com/UPPER']"),
        _name_ref("c", "metadata.annotations['-bad']"), _name_ref("d", "spec.nodeName['x']"),
        _name_ref("e", "metadata.labels['ok']")), None),
    "pod-downward-resource-without-container": ("pods", _downward(_resource_ref("a", resource="limits.cpu",
                                                                                divisor="3")), None),
    "pod-downward-resource-empty-and-unknown": ("pods", _downward(
        _resource_ref("a", containerName="app"), _resource_ref("b", containerName="app", resource="limits.pods"),
        _resource_ref("c", containerName="app", resource="requests.hugepages-2Mi")), None),
    "pod-downward-resource-divisors": ("pods", _downward(
        _resource_ref("a", containerName="app", resource="limits.cpu", divisor="2"),
        _resource_ref("b", containerName="app", resource="requests.cpu", divisor="1000m"),
        _resource_ref("c", containerName="app", resource="limits.memory", divisor="1024"),
        _resource_ref("d", containerName="app", resource="requests.ephemeral-storage", divisor="10"),
        _resource_ref("e", containerName="app", resource="limits.hugepages-1Gi", divisor="3Mi"),
        _resource_ref("f", containerName="app", resource="limits.memory", divisor="1Mi"),
        _resource_ref("g", containerName="app", resource="limits.hugepages-foo", divisor="0")), None),
    "pod-downward-second-source": ("pods", _pod(volumes=[{"name": "info", "emptyDir": {}, "downwardAPI": {
        "items": [{"path": "a"}]}}]), None),
    "pod-template-downward-item-without-reference": ("podtemplates", {
        "apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "pt-downward"},
        "template": {"spec": {"containers": [_container()], "volumes": [
            {"name": "info", "downwardAPI": {"items": [{"path": "a"}, {"path": "b", "mode": 1000}]}}]}}}, None),
    "deployment-downward-field-unknown": ("deployments", _deployment(template={**_TEMPLATE, "spec": {
        **_TEMPLATE["spec"], "volumes": [{"name": "info", "downwardAPI": {"items": [
            _name_ref("a", "metadata.generation")]}}]}}), None),
    "pod-projected-names-and-keys": ("pods", _projected({"secret": {"items": [{"key": "", "path": ""}]}},
                                                        {"configMap": {"items": [{"key": "k", "path": "/abs"}]}},
                                                        defaultMode=1024), None),
    "pod-projected-duplicate-paths": ("pods", _projected(
        {"secret": {"name": "s", "items": [{"key": "k", "path": "same"}]}},
        {"configMap": {"name": "c", "items": [{"key": "k", "path": "same"}, {"key": "j", "path": "x", "mode": 999}]}},
        {"downwardAPI": {"items": [_name_ref("x"), _name_ref("same")]}},
        {"serviceAccountToken": {"path": "x"}}), None),
    "pod-projected-downward-items": ("pods", _projected({"downwardAPI": {"items": [
        {"path": "a"}, _name_ref("b", "spec.nodeName"), dict(_name_ref("/c"), mode=-2)]}}), None),
    "pod-projected-two-types-in-one-source": ("pods", _projected(
        {"secret": {"name": "s"}, "configMap": {"name": "c"}, "downwardAPI": {},
         "serviceAccountToken": {"path": "token"}}), None),
    "pod-projected-token-expiration-and-paths": ("pods", _projected(
        {"serviceAccountToken": {"path": "", "expirationSeconds": 599}},
        {"serviceAccountToken": {"path": "/abs/..", "expirationSeconds": 4294967297}},
        {"serviceAccountToken": {"path": "..token", "audience": "x"}}), None),
    "pod-projected-token-without-account": ("pods", _projected({"serviceAccountToken": {"path": "token"}},
                                                               account=""), None),
    "pod-template-projected-token-without-account": ("podtemplates", {
        "apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "pt-token"},
        "template": {"spec": {"containers": [_container()], "volumes": [{"name": "all", "projected": {
            "sources": [{"serviceAccountToken": {"path": "t", "expirationSeconds": 60}}]}}]}}}, None),
    "pod-projected-gated-sources-dropped": ("pods", _projected(
        {"clusterTrustBundle": {"name": "Bad", "signerName": "x", "path": "/abs"}},
        {"podCertificate": {"signerName": "bad", "keyType": "DSA"}}, {"secret": {"name": "s"}}), None),
    "pod-projected-empty-source": ("pods", _projected({}), None),
    "pod-ephemeral-without-template": ("pods", _ephemeral(None), None),
    "pod-ephemeral-template-metadata": ("pods", _ephemeral({"metadata": {
        "name": "x", "namespace": "y", "generateName": "z", "finalizers": ["a/b"], "labels": {"bad key": "v"},
        "annotations": {"-x": "y"}, "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "p",
                                                         "uid": "1"}]}, "spec": _CLAIM_SPEC}), None),
    "pod-ephemeral-template-spec": ("pods", _ephemeral({"spec": {"accessModes": ["Sometimes"], "volumeMode": "Raw",
                                                                 "storageClassName": "Bad_",
                                                                 "dataSource": {"kind": "Snap", "name": "s"}}}),
                                    None),
    "pod-ephemeral-claim-name-too-long": ("pods", _meta(_ephemeral({"spec": _CLAIM_SPEC}), name="p" * 250), None),
    "statefulset-ephemeral-template-spec": ("statefulsets", _stateful_set(template={**_TEMPLATE, "spec": {
        **_TEMPLATE["spec"], "volumes": [{"name": "scratch", "ephemeral": {"volumeClaimTemplate": {
            "metadata": {"uid": "1"}, "spec": {"resources": {"requests": {"storage": "-1"}}}}}}]}}), None),
    "pod-ephemeral-second-source": ("pods", _pod(volumes=[{"name": "scratch", "emptyDir": {}, "ephemeral": {}}]),
                                    None),
    # ValidateTemplateObjectMeta names a forbidden field after its Go name, first letter lowered: UID is uID.
    "resourceclaimtemplate-metadata-uid": ("resourceclaimtemplates", {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", "metadata": {"name": "vc-template-uid"},
        "spec": {"metadata": {"uid": "1", "name": "n", "generation": 2}, "spec": {}}}, None),
    "pod-env-downward-references": ("pods", _pod(containers=[_container(env=[
        {"name": "A", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels"}}},
        {"name": "B", "valueFrom": {"fieldRef": {"fieldPath": "spec.restartPolicy"}}},
        {"name": "C", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['x']"}}},
        {"name": "D", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu", "divisor": "5"}}},
        {"name": "E", "valueFrom": {"resourceFieldRef": {"resource": "limits.nvidia.com/gpu"}}},
        {"name": "F", "valueFrom": {"resourceFieldRef": {"resource": ""}}},
        {"name": "G", "valueFrom": {"fieldRef": {"fieldPath": "spec.host"}}}])]), None),
})

# ValidateVolumeMounts whole, the ephemeral containers' allow list judged against Go's zero values, an image
# volume's reference (a pod's only) and pull policy, a PodTemplate's template defaulted though left out, and a
# pod update that changes its ephemeral containers outside their subresource.
_MOUNT_VOLUMES = [{"name": "data", "emptyDir": {}}, {"name": "blk", "persistentVolumeClaim": {"claimName": "c"}}]
CASES.update({
    "pod-volume-mount-rules": ("pods", _pod(volumes=_MOUNT_VOLUMES, containers=[_container(
        volumeDevices=[{"name": "blk", "devicePath": "/dev/b"}],
        volumeMounts=[{"name": "blk", "mountPath": "/dev/b"},
                      {"name": "data", "mountPath": "/a", "subPath": "/abs", "subPathExpr": "../x"},
                      {"name": "data", "mountPath": "/b", "mountPropagation": "Bidirectional",
                       "recursiveReadOnly": "Enabled"},
                      {"name": "gone", "mountPath": "/c", "mountPropagation": "Sideways", "recursiveReadOnly": ""},
                      {"name": "data", "mountPath": "/d", "readOnly": True, "recursiveReadOnly": "IfPossible",
                       "mountPropagation": "None"},
                      {"name": "data", "mountPath": "/e", "readOnly": True, "recursiveReadOnly": "Enabled",
                       "mountPropagation": "HostToContainer"}])]), None),
    "pod-volume-mount-bidirectional-privileged": ("pods", _pod(volumes=_MOUNT_VOLUMES[:1], containers=[_container(
        securityContext={"privileged": True},
        volumeMounts=[{"name": "data", "mountPath": "/a", "mountPropagation": "Bidirectional"}])]), None),
    "pod-init-volume-mount-unknown-modes": ("pods", _pod(initContainers=[_container(name="init", volumeMounts=[
        {"name": "a", "mountPath": "/a", "mountPropagation": "upper", "recursiveReadOnly": "xx"}])]), None),
    "deployment-template-ephemeral-empty-fields": ("deployments", _deployment(template={**_TEMPLATE, "spec": {
        **_TEMPLATE["spec"], "ephemeralContainers": [
            {"name": "e1", "image": "busybox:1.36", "lifecycle": {}, "resizePolicy": [], "ports": [],
             "restartPolicy": "", "resources": {}, "env": []},
            {"name": "e2", "image": "busybox:1.36", "resources": {"limits": {}}, "livenessProbe": None}]}}), None),
    "pod-image-volume-rules": ("pods", _pod(volumes=[{"name": "a", "image": {}}, {"name": "b", "image": {
        "reference": "x", "pullPolicy": "Sometimes"}}]), None),
    "deployment-template-image-volume-without-reference": ("deployments", _deployment(template={**_TEMPLATE, "spec": {
        **_TEMPLATE["spec"], "volumes": [{"name": "a", "image": {}}]}}), None),
    "podtemplate-empty-template": ("podtemplates", {"apiVersion": "v1", "kind": "PodTemplate",
                                                    "metadata": {"name": "pt-empty"}, "template": {}}, None),
    "podtemplate-without-template": ("podtemplates", {"apiVersion": "v1", "kind": "PodTemplate",
                                                      "metadata": {"name": "pt-none"}}, None),
    "pod-update-adds-ephemeral-container": ("pods", _meta(_pod(), name="p-ephemeral"), {"spec": {
        "ephemeralContainers": [{"name": "debug", "image": "busybox:1.36", "stdin": True}]}}),
})


def _collection(where: str, obj: Obj) -> str:
    if where.startswith("/"):
        return where
    group, _, version = str(obj["apiVersion"]).rpartition("/")
    prefix = f"/apis/{group}/{version}" if group else f"/api/{version}"
    return f"{prefix}/namespaces/{NAMESPACE}/{where}"


def answer(status: int, body: Any, uid: str = "") -> Obj:
    """What is compared of an answer: the code, and for a refusal its reason and message."""
    if status < 300 or not isinstance(body, dict):
        return {"code": status}
    message = str(body.get("message", ""))
    if uid:
        message = message.replace(uid, "UID")
    return {"code": status, "reason": body.get("reason", ""), "message": message}


def run_case(send: Send, name: str) -> Obj:
    where, obj, patch = CASES[name]
    if obj is None:
        status, body = send("PATCH", where + "?dryRun=All", patch, "application/merge-patch+json")
        return answer(status, body)
    collection = _collection(where, obj)
    if patch is None:
        status, body = send("POST", collection + "?dryRun=All", obj, "application/json")
        generated = obj["metadata"].get("generateName")
        if generated and isinstance(body, dict) and "message" in body:
            # The five random characters a generated name ends with.
            body["message"] = re.sub(re.escape(generated) + "[bcdfghjklmnpqrstvwxz2456789]{5}", generated + "XXXXX",
                                     body["message"])
        return answer(status, body)
    status, body = send("POST", collection, obj, "application/json")
    if status != 201:
        return {"setup": answer(status, body)}
    item = f"{collection}/{obj['metadata']['name']}"
    subresource, changes, method = ("", patch, "PATCH")
    if isinstance(patch, tuple):
        subresource, changes = patch[0], patch[1]
        method = patch[2] if len(patch) == 3 else "PATCH"
    try:
        status, body = send(method, item + (f"/{subresource}" if subresource else "") + "?dryRun=All", changes,
                            "application/merge-patch+json" if method == "PATCH" else "application/json")
        return answer(status, body)
    finally:
        # Finalizers (a claim's protection, a job's orphaning) would keep it, and its name, for the next run.
        send("DELETE", item + "?gracePeriodSeconds=0&propagationPolicy=Background", None, "application/json")
        send("PATCH", item, {"metadata": {"finalizers": None}}, "application/merge-patch+json")


def prepare(send: Send) -> None:
    send("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}},
         "application/json")
    send("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {
        "name": ADMIN_NAMESPACE, "labels": {"resource.kubernetes.io/admin-access": "true"}}}, "application/json")
    crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
    send("POST", crds, _GADGET_CRD, "application/json")
    for _ in range(100):  # served once established
        _, crd = send("GET", f"{crds}/{_GADGET_CRD['metadata']['name']}", None, "application/json")
        conditions = ((crd or {}).get("status") or {}).get("conditions") or ()
        if any(c.get("type") == "Established" and c.get("status") == "True" for c in conditions):
            break
        time.sleep(0.1)
    time.sleep(1)  # the group's discovery and handler follow the condition
