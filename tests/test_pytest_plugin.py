"""The `fastkube` pytest plugin, run as a project using it runs it: pytest in a subprocess on a small project.

Each project here is what a user would write: the tests name the plugin's fixtures and drive the server
with the clients Python projects use (the official `kubernetes` client, kr8s, lightkube) and an
operator written with kopf.
"""

from __future__ import annotations

import importlib.metadata
import os
import textwrap
import tomllib

import pytest
from support import REPO

pytest_plugins = ["pytester"]
# Each run starts servers of its own, on the embedded store.
pytestmark = pytest.mark.store_once

PLUGIN_MODULE = "apiserver.testing.pytest_plugin"


def _plugin_args() -> list[str]:
    """Nothing when the package's entry point is installed (pytest loads it), else the module by name."""
    installed = {ep.value for ep in importlib.metadata.entry_points(group="pytest11")}
    return [] if PLUGIN_MODULE in installed else ["-p", PLUGIN_MODULE]


@pytest.fixture(autouse=True)
def _this_checkout_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """The projects' pytest imports this checkout's package, whichever one is installed."""
    monkeypatch.setenv("PYTHONPATH", REPO)


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(*_plugin_args(), "-p", "no:cacheprovider", *args, timeout=240)


def test_the_package_registers_the_plugin() -> None:
    with open(f"{REPO}/pyproject.toml", "rb") as f:
        project = tomllib.load(f)["project"]
    assert project["entry-points"]["pytest11"] == {"fastkube": PLUGIN_MODULE}
    if os.environ.get("CI") == "true":
        # CI installs the checkout (pip install -e), so there the projects below get the plugin as a
        # project that depends on the package does: from the entry point, with no -p.
        assert _plugin_args() == []


def test_a_new_project_tests_against_a_real_server_in_under_ten_lines(pytester: pytest.Pytester) -> None:
    test_file = pytester.makepyfile(test_first="""
        from kubernetes import client

        def test_configmap_round_trip(fastkube_client, fastkube_namespace):
            core = client.CoreV1Api(fastkube_client)
            body = {"metadata": {"name": "app"}, "data": {"a": "1"}}
            core.create_namespaced_config_map(fastkube_namespace, body)
            assert core.read_namespaced_config_map("app", fastkube_namespace).data == {"a": "1"}
    """)
    assert len(test_file.read_text().strip().splitlines()) < 10
    result = _run(pytester)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        ["fastkube: served https://127.0.0.1:*; kubeconfig *kubeconfig; log *server.log"])


def test_a_run_whose_tests_use_no_fixture_starts_no_server(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain="def test_arithmetic():\n    assert 1 + 1 == 2\n")
    result = _run(pytester)
    result.assert_outcomes(passed=1)
    assert "fastkube: served" not in result.stdout.str()


def test_each_test_gets_a_fresh_namespace_deleted_after_it(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_namespaces="""
        from kubernetes import client

        seen = []

        def test_first(fastkube_client, fastkube_namespace):
            seen.append(fastkube_namespace)
            assert fastkube_namespace.startswith("test-first-")
            namespace = client.CoreV1Api(fastkube_client).read_namespace(fastkube_namespace)
            assert namespace.status.phase == "Active"

        def test_second(fastkube_client, fastkube_namespace):
            assert fastkube_namespace != seen[0]
            gone = client.CoreV1Api(fastkube_client).list_namespace(field_selector=f"metadata.name={seen[0]}")
            # deleted, or still finishing its deletion
            assert [ns.metadata.deletion_timestamp is not None for ns in gone.items] in ([], [True])
    """)
    _run(pytester).assert_outcomes(passed=2)


def test_settings_come_from_the_ini_file_and_the_command_line_wins(pytester: pytest.Pytester) -> None:
    pytester.makeini("""
        [pytest]
        fastkube_simulate_nodes = 5
        fastkube_server_args = --anonymous-auth
    """)
    pytester.makepyfile(test_cluster="""
        import time
        import urllib.request
        from kubernetes import client

        def test_a_deployment_runs_on_simulated_nodes(fastkube_client, fastkube_namespace):
            core, apps = client.CoreV1Api(fastkube_client), client.AppsV1Api(fastkube_client)
            assert sorted(n.metadata.name for n in core.list_node().items) == ["node-1", "node-2"]
            apps.create_namespaced_deployment(fastkube_namespace, {
                "metadata": {"name": "web"},
                "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                         "template": {"metadata": {"labels": {"app": "web"}},
                                      "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}})
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                pods = core.list_namespaced_pod(fastkube_namespace).items
                if len(pods) == 2 and all(p.status.phase == "Running" for p in pods):
                    break
                time.sleep(0.2)
            assert {p.spec.node_name for p in pods} <= {"node-1", "node-2"}
            assert [p.status.phase for p in pods] == ["Running", "Running"]

        def test_the_server_args_were_passed(fastkube_server):
            import ssl
            context = ssl.create_default_context(cafile=fastkube_server.ca)
            with urllib.request.urlopen(fastkube_server.url + "/version", context=context) as answer:
                assert answer.status == 200  # anonymous, as --anonymous-auth lets it in
    """)
    _run(pytester, "--fastkube-simulate-nodes=2").assert_outcomes(passed=2)


def test_a_bad_setting_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_any="def test_server(fastkube_server):\n    pass\n")
    result = _run(pytester, "--fastkube-simulate-nodes=many")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*fastkube_simulate_nodes must be a whole number, not 'many'*"])


OPERATOR = '''
    """A kopf operator: every Greeting gets its message in status, and an Event saying so."""
    import kopf

    @kopf.on.login()
    def login(**kwargs):
        # KUBECONFIG as the test sets it: the kubernetes package read its default path once, at import
        return kopf.login_with_kubeconfig(**kwargs)

    @kopf.on.create("hello.fastkube.io", "v1", "greetings")
    @kopf.on.update("hello.fastkube.io", "v1", "greetings", field="spec.name")
    def greet(spec, body, **_):
        message = f"Hello, {spec['name']}!"
        kopf.info(body, reason="Greeted", message=message)
        return message
'''

GREETING_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "greetings.hello.fastkube.io"},
    "spec": {"group": "hello.fastkube.io", "scope": "Namespaced",
             "names": {"plural": "greetings", "singular": "greeting", "kind": "Greeting",
                       "listKind": "GreetingList"},
             "versions": [{"name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
                           "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                               "spec": {"type": "object", "properties": {"name": {"type": "string"}}},
                               "status": {"type": "object",
                                          "x-kubernetes-preserve-unknown-fields": True}}}}}]}}


def test_a_kopf_operator_reconciles_a_custom_resource(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(greeter=textwrap.dedent(OPERATOR))
    pytester.makepyfile(test_operator=f"""
        import time
        from kopf.testing import KopfRunner
        from kubernetes import client

        CRD = {GREETING_CRD!r}

        def wait_for(probe):
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                found = probe()
                if found:
                    return found
                time.sleep(0.1)
            raise AssertionError("timed out")

        def established(extensions):
            crd = extensions.read_custom_resource_definition("greetings.hello.fastkube.io")
            return any(c.type == "Established" and c.status == "True" for c in crd.status.conditions or ())

        def test_greetings(fastkube_client, fastkube_kubeconfig, fastkube_namespace, monkeypatch):
            monkeypatch.setenv("KUBECONFIG", fastkube_kubeconfig)
            extensions = client.ApiextensionsV1Api(fastkube_client)
            extensions.create_custom_resource_definition(CRD)
            wait_for(lambda: established(extensions))
            custom = client.CustomObjectsApi(fastkube_client)
            greetings = ("hello.fastkube.io", "v1", fastkube_namespace, "greetings")
            status = lambda: custom.get_namespaced_custom_object(*greetings, "world").get("status", {{}})
            args = ["run", "--standalone", "--namespace", fastkube_namespace, "greeter.py"]
            with KopfRunner(args, timeout=60) as runner:
                custom.create_namespaced_custom_object(*greetings, {{
                    "apiVersion": "hello.fastkube.io/v1", "kind": "Greeting", "metadata": {{"name": "world"}},
                    "spec": {{"name": "world"}}}})
                wait_for(lambda: status().get("greet") == "Hello, world!")
                custom.patch_namespaced_custom_object(*greetings, "world", {{"spec": {{"name": "kopf"}}}})
                # kopf keeps each handler's result under the handler's id, here `greet/spec.name`
                wait_for(lambda: "Hello, kopf!" in status().values())
                events = client.CoreV1Api(fastkube_client).list_namespaced_event(fastkube_namespace).items
                assert {{e.message for e in events if e.reason == "Greeted"}} >= {{"Hello, world!"}}
                custom.delete_namespaced_custom_object(*greetings, "world")
                # kopf's finalizer is taken off by the running operator, so the object goes
                wait_for(lambda: not custom.list_namespaced_custom_object(*greetings)["items"])
            assert runner.exception is None, runner.output
            assert runner.exit_code == 0, runner.output
    """)
    result = _run(pytester)
    result.assert_outcomes(passed=1)


def test_kr8s_and_lightkube_clients(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_clients="""
        import kr8s
        from kr8s.objects import ConfigMap as Kr8sConfigMap
        from lightkube import Client, KubeConfig
        from lightkube.models.meta_v1 import ObjectMeta
        from lightkube.resources.core_v1 import ConfigMap

        def test_kr8s(fastkube_kubeconfig, fastkube_namespace):
            api = kr8s.api(kubeconfig=fastkube_kubeconfig)
            assert api.version()["major"] == "1"
            settings = Kr8sConfigMap({"metadata": {"name": "settings", "namespace": fastkube_namespace,
                                                   "labels": {"app": "demo"}},
                                      "data": {"mode": "fast"}}, api=api)
            settings.create()
            settings.patch({"data": {"mode": "faster"}})
            # the namespace also holds kube-root-ca.crt, as every namespace of a cluster with controllers
            found = list(api.get("configmaps", namespace=fastkube_namespace, label_selector={"app": "demo"}))
            assert [(c.name, c.raw["data"]) for c in found] == [("settings", {"mode": "faster"})]
            settings.delete()
            assert not settings.exists()

        def test_lightkube(fastkube_kubeconfig, fastkube_namespace):
            client = Client(KubeConfig.from_file(fastkube_kubeconfig), namespace=fastkube_namespace)
            demo = {"app": "demo"}
            client.create(ConfigMap(metadata=ObjectMeta(name="created", labels=demo), data={"k": "v"}))
            applied = client.apply(ConfigMap(metadata=ObjectMeta(name="applied", labels=demo),
                                             data={"owner": "lightkube"}), field_manager="lightkube-test")
            assert [m.manager for m in applied.metadata.managedFields] == ["lightkube-test"]
            names = sorted(c.metadata.name for c in client.list(ConfigMap, labels=demo))
            assert names == ["applied", "created"]
            for event, obj in client.watch(ConfigMap, labels=demo, resource_version="0"):
                assert event == "ADDED"
                break
            client.delete(ConfigMap, "created")
            assert [c.metadata.name for c in client.list(ConfigMap, labels=demo)] == ["applied"]
    """)
    _run(pytester).assert_outcomes(passed=2)
