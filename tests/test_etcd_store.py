"""The etcd store: kube-apiserver's keys and values in a real etcd, and several servers over one etcd."""

from __future__ import annotations

import http.client
import json
import os
import signal
import threading
import time
import urllib.parse
from typing import Any, Iterator

import grpc
import pytest
from aetcd import rpc
from google.protobuf import json_format
from support import REPO, EtcdCluster, EtcdTls, ServerProcess

from apiserver.kinds.resources import builtin_registry
from apiserver.server import etcd_layout
from apiserver.storage.etcdkeys import Layout
from apiserver.wire import protobuf

# Starts its own etcd: the same in both passes.
pytestmark = pytest.mark.store_once

CMS = "/api/v1/namespaces/default/configmaps"


@pytest.fixture(scope="module")
def etcd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EtcdCluster]:
    cluster = EtcdCluster(str(tmp_path_factory.mktemp("etcd"))).start()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="module")
def pair(etcd: EtcdCluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    """Two servers over the one etcd, as on two machines."""
    servers = [ServerProcess(str(tmp_path_factory.mktemp(name)), extra_args=["--etcd-servers", etcd.servers])
               for name in ("a", "b")]
    for server in servers:
        server.start()
    try:
        yield servers[0], servers[1]
    finally:
        for server in servers:
            server.stop()


def kv(cluster: EtcdCluster) -> Any:
    return rpc.KVStub(grpc.insecure_channel(cluster.servers.split(",")[0].removeprefix("http://")))


def etcd_get(cluster: EtcdCluster, key: str) -> Any:
    found = kv(cluster).Range(rpc.RangeRequest(key=key.encode()), timeout=10).kvs
    return found[0] if found else None


def etcd_put(cluster: EtcdCluster, key: str, value: bytes) -> int:
    return int(kv(cluster).Put(rpc.PutRequest(key=key.encode(), value=value), timeout=10).header.revision)


def configmap(name: str, **data: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


# -- the layout ------------------------------------------------------------------------------------

def test_docs_table_is_the_one_generated_from_the_registry() -> None:
    import sys
    sys.path.insert(0, os.path.join(REPO, "tools"))
    from etcd_keys import table
    with open(os.path.join(REPO, "docs", "storage.md")) as f:
        assert table() in f.read(), "docs/storage.md's etcd key table is stale: python tools/etcd_keys.py"


def test_every_key_parses_back_to_its_resource() -> None:
    registry = builtin_registry()
    layout = etcd_layout(registry, "/registry")
    for rt in registry.types:
        if rt.synthetic:
            continue
        key = (rt.storage_key, "ns1" if rt.namespaced else "", "n.a-me")
        assert layout.parse(layout.key(key)) == key, rt.qualified_name
    for key in [("example.com/widgets", "ns1", "w"), ("example.com/clusterwidgets", "", "w")]:
        assert layout.parse(layout.key(key)) == key
    assert layout.key(("services", "default", "kubernetes")) == b"/registry/services/specs/default/kubernetes"
    assert layout.parse(b"/other/pods/a/b") is None
    assert Layout("/custom/", {}).key(("pods", "a", "b")) == b"/custom/pods/a/b"


# -- one server ------------------------------------------------------------------------------------

def test_objects_are_stored_where_and_how_kube_apiserver_keeps_them(pair: tuple[ServerProcess, ServerProcess],
                                                                     etcd: EtcdCluster) -> None:
    a, _ = pair
    created = {
        "/registry/minions/n1": ("/api/v1/nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}),
        "/registry/services/specs/default/web": (
            "/api/v1/namespaces/default/services",
            {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}, "spec": {"ports": [{"port": 80}]}}),
        "/registry/ingress/default/in": (
            "/apis/networking.k8s.io/v1/namespaces/default/ingresses",
            {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "in"},
             "spec": {"defaultBackend": {"service": {"name": "web", "port": {"number": 80}}}}}),
        "/registry/configmaps/default/layout": (CMS, configmap("layout", a="b")),
    }
    for key, (path, body) in created.items():
        status, obj = a.json("POST", path, body)
        assert status == 201, obj
        stored = etcd_get(etcd, key)
        assert stored is not None, key
        assert str(stored.mod_revision) == obj["metadata"]["resourceVersion"]
        value = json.loads(stored.value)
        # kube-apiserver sets resourceVersion from the mod revision on read; nothing else differs.
        assert value["metadata"]["resourceVersion"] == ""
        value["metadata"]["resourceVersion"] = obj["metadata"]["resourceVersion"]
        assert value == obj


def test_values_kube_apiserver_wrote_in_protobuf_are_served(pair: tuple[ServerProcess, ServerProcess],
                                                            etcd: EtcdCluster) -> None:
    a, _ = pair
    inner = json_format.ParseDict({"metadata": {"name": "from-go", "namespace": "default", "uid": "u-1",
                                                "creationTimestamp": {"seconds": 1700000000}},
                                   "data": {"k": "v"}}, protobuf.message_class("v1", "ConfigMap")())
    envelope: Any = json_format.ParseDict({"typeMeta": {"apiVersion": "v1", "kind": "ConfigMap"}},
                                          protobuf.ENVELOPE())
    envelope.raw = inner.SerializeToString()
    revision = etcd_put(etcd, "/registry/configmaps/default/from-go", protobuf.MAGIC + envelope.SerializeToString())
    status, obj = a.json("GET", CMS + "/from-go")
    assert status == 200, obj
    assert obj["data"] == {"k": "v"}
    assert obj["metadata"]["resourceVersion"] == str(revision)
    assert obj["metadata"]["creationTimestamp"] == "2023-11-14T22:13:20Z"


def test_stale_writes_and_creates_of_existing_keys_are_409(pair: tuple[ServerProcess, ServerProcess],
                                                           etcd: EtcdCluster) -> None:
    a, b = pair
    status, obj = a.json("POST", CMS, configmap("contended", v="1"))
    assert status == 201
    status, _ = b.json("PUT", CMS + "/contended", {**obj, "data": {"v": "2"}})
    assert status == 200
    status, stale = a.json("PUT", CMS + "/contended", {**obj, "data": {"v": "3"}})
    assert (status, stale["reason"]) == (409, "Conflict")
    etcd_put(etcd, "/registry/configmaps/default/written-elsewhere", json.dumps(configmap("written-elsewhere")).encode())
    status, exists = a.json("POST", CMS, configmap("written-elsewhere"))
    assert (status, exists["reason"]) == (409, "AlreadyExists")


def test_events_are_stored_with_a_lease(pair: tuple[ServerProcess, ServerProcess], etcd: EtcdCluster) -> None:
    a, _ = pair
    event = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e1"},
             "involvedObject": {"kind": "ConfigMap", "name": "x", "namespace": "default"}, "reason": "Test"}
    status, _ = a.json("POST", "/api/v1/namespaces/default/events", event)
    assert status == 201
    assert etcd_get(etcd, "/registry/events/default/e1").lease != 0
    assert etcd_get(etcd, "/registry/configmaps/default/layout").lease == 0


# -- several servers -------------------------------------------------------------------------------

def watch_lines(server: ServerProcess, path: str, seen: list[dict[str, Any]], ready: threading.Event,
                **params: str) -> None:
    conn = http.client.HTTPSConnection("127.0.0.1", server.port, context=server.ssl_context(), timeout=30)
    conn.request("GET", path + "?" + urllib.parse.urlencode({"watch": "1", **params}),
                 headers={"Authorization": f"Bearer {server.token}"})
    resp = conn.getresponse()
    ready.set()
    for line in resp:
        seen.append(json.loads(line))


def test_writes_on_one_server_reach_a_watcher_on_another_in_order(pair: tuple[ServerProcess, ServerProcess]) -> None:
    a, b = pair
    status, listed = b.json("GET", CMS)
    seen: list[dict[str, Any]] = []
    ready = threading.Event()
    watcher = threading.Thread(target=watch_lines, args=(b, CMS, seen, ready), daemon=True,
                               kwargs={"resourceVersion": listed["metadata"]["resourceVersion"],
                                       "timeoutSeconds": "8"})
    watcher.start()
    assert ready.wait(10)
    written = []
    for i in range(20):
        status, obj = a.json("POST", CMS, configmap(f"ordered-{i}", i=str(i)))
        assert status == 201
        written.append(obj["metadata"]["resourceVersion"])
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and len([e for e in seen if e["object"]["metadata"]["name"].startswith(
            "ordered-")]) < 20:
        time.sleep(0.05)
    got = [e["object"]["metadata"]["resourceVersion"] for e in seen
           if e["object"]["metadata"]["name"].startswith("ordered-")]
    assert got == written
    assert all(e["type"] == "ADDED" for e in seen if e["object"]["metadata"]["name"].startswith("ordered-"))


def test_a_read_on_another_server_shows_what_was_just_written(pair: tuple[ServerProcess, ServerProcess]) -> None:
    a, b = pair
    for i in range(20):
        status, obj = a.json("POST", CMS, configmap(f"fresh-{i}"))
        assert status == 201
        status, got = b.json("GET", CMS + f"/fresh-{i}")
        assert status == 200, got
        status, listed = b.json("GET", CMS)
        assert int(listed["metadata"]["resourceVersion"]) >= int(obj["metadata"]["resourceVersion"])
        assert f"fresh-{i}" in {item["metadata"]["name"] for item in listed["items"]}


def test_a_consistent_read_passes_revisions_written_outside_the_prefix(pair: tuple[ServerProcess, ServerProcess],
                                                                      etcd: EtcdCluster) -> None:
    a, _ = pair
    for i in range(3):  # another tenant of the same etcd: the watch of our prefix sees none of it
        elsewhere = etcd_put(etcd, f"/elsewhere/key-{i}", b"x")
        status, listed = a.json("GET", CMS)
        assert status == 200, listed
        assert int(listed["metadata"]["resourceVersion"]) >= elsewhere
        status, watched = a.json("GET", f"{CMS}?watch=1&timeoutSeconds=1&resourceVersion={elsewhere}")
        assert status == 200, watched  # not "too large": the cache was confirmed at that revision


def test_a_gap_is_confirmed_only_when_it_holds_no_change_of_ours(etcd: EtcdCluster) -> None:
    import asyncio

    from apiserver.storage.etcd import EtcdOptions, EtcdStore
    from apiserver.storage.interface import Change

    key = ("configmaps", "gap", "held-back")

    async def run() -> None:
        store = EtcdStore(EtcdOptions([etcd.servers]), etcd_layout(builtin_registry(), "/registry"))
        await store.start()
        seen: list[Change] = []
        store.subscribe("configmaps", seen.append)
        try:
            # Hold the watch back, as an etcd stream lagging behind its writes would.
            assert store._follower is not None
            store._follower.cancel()
            held_at = store.revision
            etcd_put(etcd, "/registry/configmaps/gap/held-back", json.dumps(configmap("held-back")).encode())
            outside = etcd_put(etcd, "/elsewhere/after-ours", b"x")
            with pytest.raises(TimeoutError):  # a change of ours is in the gap: only its event may close it
                await asyncio.wait_for(store.catch_up(None), 1.5)
            assert store.revision == held_at and store.get(key) is None

            kv(etcd).DeleteRange(rpc.DeleteRangeRequest(key=b"/registry/configmaps/gap/held-back"), timeout=10)
            outside = etcd_put(etcd, "/elsewhere/after-the-delete", b"x")
            await asyncio.wait_for(store.catch_up(None), 5)  # made and deleted within the gap: nothing changed
            assert store.revision >= outside and store.get(key) is None

            store._follower = asyncio.create_task(store._follow())
            made = etcd_put(etcd, "/registry/configmaps/gap/after", json.dumps(configmap("after")).encode())
            await asyncio.wait_for(store.catch_up(None), 5)
            # The gap's events stay out: nothing older than the revision the cache was confirmed at.
            assert [(c.rv, c.type, c.key) for c in seen] == [(made, "ADDED", ("configmaps", "gap", "after"))]
            assert store.get(key) is None
        finally:
            await store.close()

    asyncio.run(run())


def test_pages_continue_on_another_server(pair: tuple[ServerProcess, ServerProcess]) -> None:
    a, b = pair
    for i in range(9):
        assert a.json("POST", "/api/v1/namespaces/kube-public/configmaps", configmap(f"page-{i}"))[0] == 201
    names: list[str] = []
    token = ""
    servers = [a, b]
    for turn in range(10):
        query = "limit=2" + (f"&continue={urllib.parse.quote(token)}" if token else "")
        status, page = servers[turn % 2].json("GET", f"/api/v1/namespaces/kube-public/configmaps?{query}")
        assert status == 200, page
        names += [item["metadata"]["name"] for item in page["items"]]
        if turn == 1:  # a write after the first page: no page shows it, as all read the first page's revision
            assert a.json("POST", "/api/v1/namespaces/kube-public/configmaps", configmap("page-late"))[0] == 201
        token = page["metadata"].get("continue", "")
        if not token:
            break
    assert names == sorted(f"page-{i}" for i in range(9))  # kube-public holds nothing else


# -- failures --------------------------------------------------------------------------------------

def test_etcd_down_answers_503_or_504_in_time_and_readyz_follows(tmp_path: Any) -> None:
    cluster = EtcdCluster(str(tmp_path / "etcd")).start()
    server = ServerProcess(str(tmp_path / "server"),
                           extra_args=["--etcd-servers", cluster.servers, "--request-timeout", "4"])
    try:
        server.start()
        status, before = server.json("POST", CMS, configmap("before"))
        assert status == 201
        seen: list[dict[str, Any]] = []
        ready = threading.Event()
        watcher = threading.Thread(target=watch_lines, args=(server, CMS, seen, ready), daemon=True,
                                   kwargs={"resourceVersion": before["metadata"]["resourceVersion"],
                                           "timeoutSeconds": "40"})
        watcher.start()
        assert ready.wait(10)
        member = cluster.members[0]
        cluster.kill(member)
        for method, path, body in [("GET", CMS, None), ("POST", CMS, configmap("during")),
                                   ("GET", CMS + "/before", None)]:
            started = time.monotonic()
            status, answer = server.json(method, path, body)
            assert status in (503, 504), (method, status, answer)
            assert answer["kind"] == "Status" and answer["code"] == status
            assert time.monotonic() - started < 6
        deadline = time.monotonic() + 10
        while server.request("GET", "/readyz", auth=False)[0] == 200 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert server.request("GET", "/readyz", auth=False)[0] == 500
        status, cached = server.json("GET", CMS + "/before?resourceVersion=0")
        assert status == 200 and cached["metadata"]["name"] == "before"  # resourceVersion=0 may be stale
        cluster.start_member(member)
        deadline = time.monotonic() + 20
        while server.request("GET", "/readyz", auth=False)[0] != 200 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert server.request("GET", "/readyz", auth=False)[0] == 200
        assert server.json("POST", CMS, configmap("after"))[0] == 201
        status, listed = server.json("GET", CMS)
        assert {"before", "after"} <= {item["metadata"]["name"] for item in listed["items"]}
        # The watch opened before etcd went away goes on, and sees the write made after it came back.
        deadline = time.monotonic() + 10
        while not any(e["object"]["metadata"]["name"] == "after" for e in seen) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [e["object"]["metadata"]["name"] for e in seen] == ["after"]
    finally:
        server.stop()
        cluster.stop()


# More events than etcd buffers for a watcher (128 responses) and gRPC's windows hold.
BIG = 600


def test_a_compacted_watch_reloads_the_cache_and_ends_watches(tmp_path: Any) -> None:
    cluster = EtcdCluster(str(tmp_path / "etcd")).start()
    server = ServerProcess(str(tmp_path / "server"), extra_args=["--etcd-servers", cluster.servers])
    try:
        server.start()
        status, listed = server.json("GET", CMS)
        before = listed["metadata"]["resourceVersion"]
        seen: list[dict[str, Any]] = []
        ready = threading.Event()
        watcher = threading.Thread(target=watch_lines, args=(server, CMS, seen, ready), daemon=True,
                                   kwargs={"resourceVersion": before, "timeoutSeconds": "60"})
        watcher.start()
        assert ready.wait(10)
        assert server.proc is not None
        # Frozen, the server stops reading its etcd watch; etcd falls behind on sending it, and can no
        # longer once the revisions it would send from are compacted away.
        server.proc.send_signal(signal.SIGSTOP)
        try:
            big = "x" * 50_000
            for i in range(BIG):
                revision = etcd_put(cluster, f"/registry/configmaps/default/big-{i}",
                                    json.dumps(configmap(f"big-{i}", v=big)).encode())
            kv(cluster).Compact(rpc.CompactionRequest(revision=revision, physical=True), timeout=30)
        finally:
            server.proc.send_signal(signal.SIGCONT)
        deadline = time.monotonic() + 20
        while "reloading the watch cache" not in server.log() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "reloading the watch cache" in server.log()
        watcher.join(20)
        assert not watcher.is_alive(), "the open watch was not ended"
        listed_now = server.json("GET", CMS)[1]["items"]
        assert {f"big-{i}" for i in range(BIG)} <= {item["metadata"]["name"] for item in listed_now}
        resumed = []
        resumed_ready = threading.Event()
        watch_lines(server, CMS, resumed, resumed_ready, resourceVersion=before, timeoutSeconds="2")
        assert resumed[0]["type"] == "ERROR" and resumed[0]["object"]["code"] == 410
    finally:
        server.stop()
        cluster.stop()


def test_servers_creating_services_at_once_never_share_an_ip_or_node_port(
        pair: tuple[ServerProcess, ServerProcess]) -> None:
    a, b = pair
    conflicts: list[int] = []
    failures: list[Any] = []

    def create(server: ServerProcess, prefix: str) -> None:
        for i in range(15):
            body = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": f"{prefix}-{i}"},
                    "spec": {"type": "NodePort", "ports": [{"name": "http", "port": 80}, {"name": "https", "port": 443}]}}
            for _ in range(10):  # a 409 after several lost races is the client's to retry, as upstream
                status, answer = server.json("POST", "/api/v1/namespaces/default/services", body)
                if status != 409:
                    break
                conflicts.append(1)
            if status != 201:
                failures.append(answer)

    threads = [threading.Thread(target=create, args=(server, f"race-{n}-{j}"))
               for n, server in enumerate((a, b)) for j in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert failures == []
    status, listed = a.json("GET", "/api/v1/namespaces/default/services")
    raced = [svc for svc in listed["items"] if svc["metadata"]["name"].startswith("race-")]
    assert len(raced) == 60
    ips = [svc["spec"]["clusterIP"] for svc in raced]
    ports = [p["nodePort"] for svc in raced for p in svc["spec"]["ports"]]
    assert len(set(ips)) == len(ips)
    assert len(set(ports)) == len(ports) == 120


def test_a_write_decided_on_an_older_state_of_its_resource_is_refused(etcd: EtcdCluster) -> None:
    import asyncio

    from apiserver.storage.etcd import EtcdOptions, EtcdStore
    from apiserver.storage.interface import PreconditionFailed, ResourceChanged

    def service(name: str) -> dict[str, Any]:
        return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": "guarded"}}

    async def run() -> None:
        layout = etcd_layout(builtin_registry(), "/registry")
        first, second = (EtcdStore(EtcdOptions([etcd.servers]), layout) for _ in range(2))
        await first.start()
        await second.start()
        try:
            decided_at = first.revision
            await second.submit(("services", "guarded", "other"), service("other"), None)
            with pytest.raises(ResourceChanged):
                await first.submit(("services", "guarded", "mine"), service("mine"), None, unchanged_since=decided_at)
            await first.catch_up(None)
            await first.submit(("services", "guarded", "mine"), service("mine"), None, unchanged_since=first.revision)
            with pytest.raises(PreconditionFailed) as refused:  # the key itself exists: not a race to retry
                await second.submit(("services", "guarded", "mine"), service("mine"), None,
                                    unchanged_since=0)
            assert not isinstance(refused.value, ResourceChanged)
        finally:
            await first.close()
            await second.close()

    asyncio.run(run())


def client_certificate(pki_dir: str, out: str) -> tuple[str, str]:
    """A client certificate signed by the CA in `pki_dir` (as apiserver.auth.pki made it)."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    with open(os.path.join(pki_dir, "ca.key"), "rb") as f:
        ca_key: Any = serialization.load_pem_private_key(f.read(), None)
    with open(os.path.join(pki_dir, "ca.crt"), "rb") as f:
        ca = x509.load_pem_x509_certificate(f.read())
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "fastkube-etcd-client")]))
            .issuer_name(ca.subject).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    cert_path, key_path = os.path.join(out, "client.crt"), os.path.join(out, "client.key")
    with open(cert_path, "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(key_path, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    return cert_path, key_path


def test_etcd_over_tls_with_a_client_certificate(tmp_path: Any) -> None:
    from apiserver.auth import pki
    creds = pki.ensure_credentials(str(tmp_path / "etcd-ca"), [])
    cert, key = client_certificate(str(tmp_path / "etcd-ca" / "pki"), str(tmp_path))
    cluster = EtcdCluster(str(tmp_path / "etcd"), tls=EtcdTls(creds.ca_cert, creds.serving_cert, creds.serving_key))
    cluster.start()
    server = ServerProcess(str(tmp_path / "server"), extra_args=[
        "--etcd-servers", cluster.servers, "--etcd-cafile", creds.ca_cert, "--etcd-certfile", cert,
        "--etcd-keyfile", key])
    try:
        assert cluster.servers.startswith("https://")
        server.start()
        status, created = server.json("POST", CMS, configmap("over-tls"))
        assert status == 201, created
        assert server.json("GET", CMS + "/over-tls")[1]["metadata"]["uid"] == created["metadata"]["uid"]
    finally:
        server.stop()
        cluster.stop()
