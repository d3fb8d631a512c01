"""The admission seam on the real Endpoint and store, in process: where the write path calls the
chain, what each plugin is shown, and what a refusal, a mutation, a dry run and warnings do."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import orjson
import pytest

from apiserver import errors
from apiserver.admission import plugins
from apiserver.admission.attributes import Attributes
from apiserver.admission.chain import ALLOWED, AdmissionChain, Verdict
from apiserver.auth.tokens import User
from apiserver.http.endpoint import Endpoint, Target
from apiserver.kinds.resources import builtin_registry
from apiserver.storage.embedded import EmbeddedStore, StoreOptions

ALICE = User("alice", "uid-1", ("devs", "system:authenticated"), (("scopes", ("a", "b")),))
JSON = "application/json"


class Recorder:
    """A plugin that records what it is shown and may add a label, warn or refuse."""

    def __init__(self, name: str, label: str | None = None, warn: str | None = None,
                 refuse: bool = False, reinvoke: bool = False) -> None:
        self.name = name
        self.seen: list[tuple[str, dict[str, Any]]] = []
        self.label, self.warn, self.refuse, self.reinvoke = label, warn, refuse, reinvoke

    def handles(self, attributes: Attributes) -> bool:
        return attributes.resource.resource != "namespaces"

    def _record(self, phase: str, a: Attributes) -> None:
        self.seen.append((phase, {
            "operation": a.operation, "kind": tuple(a.kind), "resource": tuple(a.resource),
            "subresource": a.subresource, "namespace": a.namespace, "name": a.name, "dry_run": a.dry_run,
            "object": copy.deepcopy(a.object), "old": copy.deepcopy(a.old_object), "options": a.options,
            "user": a.user.name, "reinvoking": a.reinvoking}))

    async def admit(self, a: Attributes) -> Verdict:
        self._record("admit", a)
        if self.label is not None and a.object is not None:
            a.object["metadata"].setdefault("labels", {})[self.label] = "yes"
            a.reinvoke = a.reinvoke or self.reinvoke
        return Verdict((self.warn,), (("recorder/seen", "yes"),)) if self.warn else ALLOWED

    async def validate(self, a: Attributes) -> Verdict:
        self._record("validate", a)
        if self.refuse:
            raise errors.ApiError(400, "BadRequest", f'admission webhook "{self.name}" denied the request')
        return ALLOWED


async def _endpoint(tmp: str, chain: AdmissionChain) -> tuple[Endpoint, Any]:
    registry = builtin_registry()
    endpoint = Endpoint(EmbeddedStore(StoreOptions(tmp)), registry)
    namespaces = registry.lookup("", "v1", "namespaces")
    assert namespaces is not None
    await endpoint.create(Target(namespaces, "", None, None, {}), b'{"metadata":{"name":"ns"}}', JSON)
    endpoint.admission = chain
    return endpoint, registry


def _target(rt: Any, name: str | None = None, sub: str | None = None, query: dict[str, str] | None = None,
            user: User | None = ALICE) -> Target:
    return Target(rt, "ns", name, sub, query or {}, "kubectl/v1.36", user=user)


def test_a_create_is_mutated_before_the_server_fills_it_in_and_validated_as_stored(tmp_path: Any) -> None:
    plugin = Recorder("rec.example.com", label="mutated", warn="look out")

    async def scenario() -> None:
        endpoint, registry = await _endpoint(str(tmp_path), AdmissionChain([plugin], [plugin]))
        cms = registry.lookup("", "v1", "configmaps")
        reply = await endpoint.create(_target(cms, query={"fieldManager": "me"}),
                                      b'{"metadata":{"generateName":"cm-"},"data":{"a":"1"}}', JSON)
        stored = orjson.loads(reply.body)
        assert stored["metadata"]["labels"] == {"mutated": "yes"}
        assert reply.headers["Warning"] == '299 - "look out"'
        (phase1, admitted), (phase2, validated) = plugin.seen
        assert (phase1, phase2) == ("admit", "validate")
        assert admitted["operation"] == "CREATE" and admitted["old"] is None
        assert admitted["kind"] == ("", "v1", "ConfigMap")
        assert admitted["resource"] == ("", "v1", "configmaps")
        # Upstream's mutating admission runs before BeforeCreate: no name, uid or creation time yet.
        assert admitted["name"] == "" and "uid" not in admitted["object"]["metadata"]
        assert "creationTimestamp" not in admitted["object"]["metadata"]
        assert admitted["options"] == {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1",
                                       "fieldManager": "me"}
        assert admitted["user"] == "alice" and admitted["dry_run"] is False
        assert validated["object"]["metadata"]["uid"] == stored["metadata"]["uid"]
        assert validated["object"]["metadata"]["name"] == stored["metadata"]["name"]
        assert validated["object"]["metadata"]["labels"] == {"mutated": "yes"}
    asyncio.run(scenario())


def test_a_refusal_stores_nothing_and_a_dry_run_is_admitted_without_storing(tmp_path: Any) -> None:
    refusing = Recorder("deny.example.com", refuse=True)
    passing = Recorder("pass.example.com")

    async def scenario() -> None:
        endpoint, registry = await _endpoint(str(tmp_path), AdmissionChain([], [refusing]))
        cms = registry.lookup("", "v1", "configmaps")
        with pytest.raises(errors.ApiError) as refused:
            await endpoint.create(_target(cms), b'{"metadata":{"name":"x"}}', JSON)
        assert refused.value.message == 'admission webhook "deny.example.com" denied the request'
        assert endpoint.store.latest((cms.storage_key, "ns", "x")) is None
        endpoint.admission = AdmissionChain([passing], [passing])
        await endpoint.create(_target(cms, query={"dryRun": "All"}), b'{"metadata":{"name":"x"}}', JSON)
        assert [s[1]["dry_run"] for s in passing.seen] == [True, True]
        assert passing.seen[0][1]["options"]["dryRun"] == ["All"]
        assert endpoint.store.latest((cms.storage_key, "ns", "x")) is None
    asyncio.run(scenario())


def test_updates_patches_and_scale_are_admitted_with_their_old_object(tmp_path: Any) -> None:
    plugin = Recorder("rec.example.com", label="mutated")

    async def scenario() -> None:
        endpoint, registry = await _endpoint(str(tmp_path), AdmissionChain())
        deployments = registry.lookup("apps", "v1", "deployments")
        body = {"metadata": {"name": "web"}, "spec": {"replicas": 1, "selector": {"matchLabels": {"a": "b"}},
                "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [
                    {"name": "c", "image": "nginx"}]}}}}
        await endpoint.create(_target(deployments), orjson.dumps(body), JSON)
        endpoint.admission = AdmissionChain([plugin], [plugin])
        reply = await endpoint.patch(_target(deployments, "web"), b'{"spec":{"replicas":2}}',
                                     "application/merge-patch+json")
        assert orjson.loads(reply.body)["metadata"]["labels"] == {"mutated": "yes"}
        admitted = plugin.seen[0][1]
        assert admitted["operation"] == "UPDATE" and admitted["name"] == "web"
        assert admitted["old"]["spec"]["replicas"] == 1 and admitted["object"]["spec"]["replicas"] == 2
        assert admitted["options"] == {"kind": "UpdateOptions", "apiVersion": "meta.k8s.io/v1"}
        plugin.seen.clear()
        await endpoint.update(_target(deployments, "web", "scale"),
                              b'{"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"web"},'
                              b'"spec":{"replicas":3}}', JSON)
        admitted = plugin.seen[0][1]
        assert admitted["kind"] == ("autoscaling", "v1", "Scale") and admitted["subresource"] == "scale"
        assert admitted["resource"] == ("apps", "v1", "deployments")
        assert admitted["old"]["spec"] == {"replicas": 2} and admitted["object"]["spec"] == {"replicas": 3}
        assert plugin.seen[1][1]["object"]["spec"] == {"replicas": 3}
    asyncio.run(scenario())


def test_deletes_show_the_object_going_and_a_collection_s_items_are_unnamed(tmp_path: Any) -> None:
    plugin = Recorder("rec.example.com")

    async def scenario() -> None:
        endpoint, registry = await _endpoint(str(tmp_path), AdmissionChain())
        cms = registry.lookup("", "v1", "configmaps")
        for name in ("a", "b", "c"):
            await endpoint.create(_target(cms), orjson.dumps({"metadata": {"name": name}}), JSON)
        endpoint.admission = AdmissionChain([plugin], [plugin])
        await endpoint.delete(_target(cms, "a"), b'{"gracePeriodSeconds":0}', JSON)
        (phase1, admitted), (phase2, validated) = plugin.seen
        assert (phase1, phase2) == ("admit", "validate") and admitted == validated
        assert admitted["operation"] == "DELETE" and admitted["object"] is None
        assert admitted["old"]["metadata"]["name"] == "a" and admitted["name"] == "a"
        assert admitted["options"] == {"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1",
                                       "gracePeriodSeconds": 0}
        plugin.seen.clear()
        await endpoint.delete_collection(_target(cms), b"", None)
        assert sorted(s[1]["old"]["metadata"]["name"] for s in plugin.seen if s[0] == "admit") == ["b", "c"]
        assert {s[1]["name"] for s in plugin.seen} == {""}
    asyncio.run(scenario())


def test_the_server_s_own_writes_are_not_admitted_and_reinvocation_reruns_every_plugin(tmp_path: Any) -> None:
    first = Recorder("first")
    second = Recorder("second", label="late", reinvoke=True)

    async def scenario() -> None:
        endpoint, registry = await _endpoint(str(tmp_path), AdmissionChain([first, second], []))
        cms = registry.lookup("", "v1", "configmaps")
        await endpoint.create(_target(cms, user=None), b'{"metadata":{"name":"own"}}', JSON)
        assert first.seen == [] and second.seen == []
        await endpoint.create(_target(cms), b'{"metadata":{"name":"theirs"}}', JSON)
        assert [(s[1]["reinvoking"]) for s in first.seen] == [False, True]
        assert first.seen[1][1]["object"]["metadata"]["labels"] == {"late": "yes"}
        assert len(second.seen) == 2
    asyncio.run(scenario())


def test_plugins_run_in_upstream_s_order_whatever_order_they_were_registered_in(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plugins, "_FACTORIES", {})
    names = ("ResourceQuota", "ValidatingAdmissionWebhook", "MutatingAdmissionWebhook", "LimitRanger",
             "NamespaceLifecycle")
    made = {name: Recorder(name) for name in names}
    for name, plugin in made.items():
        plugins.register(name, lambda _context, plugin=plugin: plugin)
    plugins.register("PodSecurity", lambda _context: None)
    chain = plugins.build_chain(plugins.PluginContext(None, None, None), disabled=frozenset({"LimitRanger"}))
    order = ["NamespaceLifecycle", "MutatingAdmissionWebhook", "ValidatingAdmissionWebhook", "ResourceQuota"]
    assert [p.name for p in chain.mutating] == order and [p.name for p in chain.validating] == order
    with pytest.raises(ValueError):
        plugins.register("NoSuchPlugin", lambda _context: None)
    assert AdmissionChain().empty and not chain.empty
