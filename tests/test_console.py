"""The console at /console/, driven in a real headless Chromium against a real server.

Each state the page reaches is saved as a screenshot under test-artifacts/console/.
"""

from __future__ import annotations

import base64
import json
import re
import socket
import ssl
from typing import Any, Iterator

import pytest
from accounts import add_token
from browser import chromium, screenshot, wait_for
from support import ServerProcess

# Once, on the embedded store: the console's pages are above the API, whichever store it has.
pytestmark = [pytest.mark.slow, pytest.mark.store_once]

BACKUP_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "backups.ops.example.com"},
    "spec": {
        "group": "ops.example.com", "scope": "Namespaced",
        "names": {"plural": "backups", "singular": "backup", "kind": "Backup", "shortNames": ["bk"]},
        "versions": [{
            "name": "v1", "served": True, "storage": True,
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                "spec": {"type": "object", "properties": {
                    "schedule": {"type": "string"}, "retain": {"type": "integer"}}}}}},
            "additionalPrinterColumns": [
                {"name": "Schedule", "type": "string", "jsonPath": ".spec.schedule"},
                {"name": "Retain", "type": "integer", "jsonPath": ".spec.retain"},
                {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}],
        }],
    },
}


def pod(name: str, labels: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels},
            "spec": {"containers": [{"name": "app", "image": "registry.example.com/shop/cart:1.4.2"}]}}


@pytest.fixture(scope="module")
def console_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    # No bookmark arrives while the fan-out counters are compared.
    proc = ServerProcess(str(tmp_path_factory.mktemp("console")), extra_args=["--watch-bookmark-seconds", "3600"])
    proc.start()
    try:
        assert proc.json("POST", "/api/v1/namespaces", {"metadata": {"name": "shop"}})[0] == 201
        assert proc.json("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", BACKUP_CRD)[0] == 201
        wait_for(lambda: proc.request("GET", "/apis/ops.example.com/v1/namespaces/shop/backups")[0] == 200,
                 "the Backup CRD to be served")
        yield proc
    finally:
        proc.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium()


def body_state(driver: Any) -> str:
    return str(driver.find_element("tag name", "body").get_attribute("data-state"))


def headers(driver: Any) -> list[str]:
    return [th.text for th in driver.find_elements("css selector", "#resource-table thead th")]


def table(driver: Any) -> list[list[str]]:
    """The table's cells as drawn."""
    return [[td.text for td in tr.find_elements("tag name", "td")]
            for tr in driver.find_elements("css selector", "#resource-table tbody tr")]


def rows(driver: Any) -> dict[str, list[str]]:
    """A one-namespace view's rows by their first cell, the name."""
    return {cells[0]: cells for cells in table(driver)}


def log_in(driver: Any, server: ServerProcess, path: str, token: str) -> None:
    driver.get(server.url + path)
    wait_for(lambda: body_state(driver) == "login", "the login form")
    driver.find_element("id", "token").send_keys(token)
    driver.find_element("id", "login-submit").click()


def show(driver: Any, resource: str, selector: str = "") -> None:
    """Picks a view with the page's own form, as a person would."""
    for field, value in (("resource", resource), ("selector", selector)):
        element = driver.find_element("id", field)
        element.clear()
        element.send_keys(value)
    driver.find_element("id", "show").click()


def test_console_follows_pods_and_custom_resources_live(console_server: ServerProcess, browser: Any) -> None:
    server = console_server
    assert server.json("POST", "/api/v1/namespaces/shop/pods", pod("checkout", {"app": "checkout"}))[0] == 201

    browser.delete_all_cookies()
    browser.get(server.url + "/console/")
    browser.execute_script("sessionStorage.clear()")
    log_in(browser, server, "/console/namespaces/shop/pods", server.token)
    screenshot(browser, "console", "01-login")
    wait_for(lambda: body_state(browser) == "live", "the pods table to go live")
    assert headers(browser) == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    assert rows(browser)["checkout"][1:3] == ["0/1", "Pending"]
    screenshot(browser, "console", "02-pods")

    # Created through the API: the row appears without a reload.
    assert server.json("POST", "/api/v1/namespaces/shop/pods", pod("cart", {"app": "cart", "tier": "front"}))[0] == 201
    wait_for(lambda: "cart" in rows(browser), "the created pod's row")
    screenshot(browser, "console", "03-created")

    # A label selector view: relabelling moves the pod out of it and back.
    show(browser, "pods", "tier=front")
    wait_for(lambda: "tier" in browser.current_url and body_state(browser) == "live",
             lambda: f"the selector view at {browser.current_url} ({body_state(browser)})")
    assert browser.current_url.endswith("/console/namespaces/shop/pods?labelSelector=tier%3Dfront")
    wait_for(lambda: set(rows(browser)) == {"cart"}, "only the selected pod")
    patch = {"metadata": {"labels": {"tier": "back"}}}
    assert server.json("PATCH", "/api/v1/namespaces/shop/pods/cart", patch,
                       content_type="application/merge-patch+json")[0] == 200
    wait_for(lambda: rows(browser) == {}, "the relabelled pod to leave the view")
    screenshot(browser, "console", "04-relabelled-out")
    patch = {"metadata": {"labels": {"tier": "front"}}}
    assert server.json("PATCH", "/api/v1/namespaces/shop/pods/cart", patch,
                       content_type="application/merge-patch+json")[0] == 200
    wait_for(lambda: set(rows(browser)) == {"cart"}, "the relabelled pod to come back")

    # Deleted through the API (no grace period: no kubelet would confirm it): the row goes.
    assert server.request("DELETE", "/api/v1/namespaces/shop/pods/cart",
                          {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0})[0] == 200
    wait_for(lambda: rows(browser) == {}, "the deleted pod's row to go")
    screenshot(browser, "console", "05-deleted")

    # A custom resource shows its CRD's printer columns, by the address kubectl would name it by.
    backup = {"apiVersion": "ops.example.com/v1", "kind": "Backup", "metadata": {"name": "nightly"},
              "spec": {"schedule": "0 3 * * *", "retain": 7}}
    status, created = server.json("POST", "/apis/ops.example.com/v1/namespaces/shop/backups", backup)
    assert status == 201
    event = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "nightly.1", "namespace": "shop"},
             "involvedObject": {"apiVersion": "ops.example.com/v1", "kind": "Backup", "name": "nightly",
                                "namespace": "shop", "uid": created["metadata"]["uid"]},
             "reason": "Scheduled", "message": "next run at 03:00", "type": "Normal", "count": 1,
             "source": {"component": "backup-operator"}}
    assert server.json("POST", "/api/v1/namespaces/shop/events", event)[0] == 201
    show(browser, "backups.ops.example.com")
    wait_for(lambda: "nightly" in rows(browser), "the Backup row")
    assert browser.current_url.endswith("/console/namespaces/shop/backups.ops.example.com")
    assert headers(browser) == ["NAME", "SCHEDULE", "RETAIN", "AGE"]
    assert rows(browser)["nightly"][1:3] == ["0 3 * * *", "7"]
    screenshot(browser, "console", "06-custom-resource")

    # A row opens the object as the server's YAML, with its events.
    browser.find_element("css selector", "#resource-table tbody tr").click()
    yaml_text = wait_for(lambda: browser.find_element("id", "detail-yaml").text, "the object's YAML")
    assert "kind: Backup" in yaml_text and "schedule: 0 3 * * *" in yaml_text
    events = wait_for(lambda: browser.find_element("id", "detail-events").find_elements("css selector", "tbody tr"),
                      "its events")
    assert [td.text for td in events[0].find_elements("tag name", "td")][1:] == [
        "Normal", "Scheduled", "backup/nightly", "next run at 03:00"]
    screenshot(browser, "console", "07-detail")


def test_all_namespaces_and_wide_addresses(console_server: ServerProcess, browser: Any) -> None:
    server = console_server
    assert server.json("POST", "/api/v1/namespaces/default/pods", pod("probe", {"app": "probe"}))[0] == 201
    browser.get(server.url + "/console/")
    browser.execute_script("sessionStorage.clear()")
    log_in(browser, server, "/console/all/pods?wide=1", server.token)
    wait_for(lambda: body_state(browser) == "live", "the all-namespaces view")
    assert headers(browser) == ["NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE",
                                "NOMINATED NODE", "READINESS GATES"]
    drawn = {cells[1]: cells[0] for cells in table(browser)}
    assert drawn.get("probe") == "default"
    screenshot(browser, "console", "08-all-namespaces-wide")


def test_a_viewer_sees_what_rbac_lets_it_and_is_told_what_not(console_server: ServerProcess, browser: Any) -> None:
    server = console_server
    _, token = add_token(server, "viewer", "view")
    browser.get(server.url + "/console/")
    browser.execute_script("sessionStorage.clear()")
    log_in(browser, server, "/console/namespaces/shop/secrets", token)
    message = wait_for(lambda: browser.find_element("id", "message").text, "the forbidden message")
    assert message == ('secrets is forbidden: User "viewer" cannot list resource "secrets" in API group "" '
                       'in the namespace "shop"')
    assert body_state(browser) == "forbidden"
    assert rows(browser) == {}
    screenshot(browser, "console", "09-viewer-forbidden")
    show(browser, "pods")
    wait_for(lambda: body_state(browser) == "live", "the viewer's pods view")
    assert "checkout" in rows(browser)
    screenshot(browser, "console", "10-viewer-pods")


def test_a_wrong_token_is_asked_again(console_server: ServerProcess, browser: Any) -> None:
    browser.get(console_server.url + "/console/")
    browser.execute_script("sessionStorage.clear()")
    log_in(browser, console_server, "/console/namespaces/shop/pods", "not-a-token")
    wait_for(lambda: browser.find_element("id", "login-error").text == "That token was not accepted.",
             "the refusal")
    assert body_state(browser) == "login"


def _counter(server: ServerProcess, name: str, resource: str) -> float:
    status, body = server.request("GET", "/metrics")
    assert status == 200
    match = re.search(rf'^{name}_total{{resource="{re.escape(resource)}"}} (\S+)$', body.decode(), re.M)
    return float(match.group(1)) if match else 0.0


def test_a_hundred_consoles_share_one_encoding_per_event(console_server: ServerProcess, browser: Any) -> None:
    """100 feeds open in the browser: one write is encoded once and delivered once to each."""
    server = console_server
    browser.get(server.url + "/console/")
    browser.execute_script("sessionStorage.clear()")
    log_in(browser, server, "/console/namespaces/shop/configmaps", server.token)
    wait_for(lambda: body_state(browser) == "live", "the page")  # watching configmaps, not pods
    status, listing = server.json("GET", "/api/v1/namespaces/shop/pods")
    browser.execute_script("""
        const [token, rv] = arguments;
        const bearer = 'base64url.bearer.authorization.k8s.io.' +
            btoa(token).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
        window.feeds = [];
        for (let i = 0; i < 100; i++) {
          const ws = new WebSocket(`wss://${location.host}/console/feed/api/v1/namespaces/shop/pods?resourceVersion=${rv}`,
                                   [bearer, 'watch.console.fastkube']);
          const feed = { open: false, seen: '' };
          ws.binaryType = 'arraybuffer';
          ws.onopen = () => { feed.open = true; };
          ws.onmessage = (m) => { feed.seen += new TextDecoder().decode(m.data); };
          window.feeds.push(feed);
        }""", server.token, listing["metadata"]["resourceVersion"])
    wait_for(lambda: browser.execute_script("return window.feeds.every((f) => f.open)"), "100 open feeds")
    # Exactly these: watches of pages the browser has left are gone before the write.
    wait_for(lambda: _watchers(server, "pods") == 100,
             lambda: f"100 watchers on the server, not {_watchers(server, 'pods')}")
    encoded = _counter(server, "apiserver_watch_events_encoded", "pods")
    delivered = _counter(server, "apiserver_watch_events_delivered", "pods")

    assert server.json("POST", "/api/v1/namespaces/shop/pods", pod("fanout", {"app": "fanout"}))[0] == 201
    wait_for(lambda: browser.execute_script("return window.feeds.every((f) => f.seen.includes('\"fanout\"'))"),
             "the event in every feed")
    assert _counter(server, "apiserver_watch_events_encoded", "pods") - encoded == 1
    assert _counter(server, "apiserver_watch_events_delivered", "pods") - delivered == 100
    event = json.loads(browser.execute_script("return window.feeds[0].seen.trim().split('\\n').pop()"))
    assert event["type"] == "ADDED" and event["object"]["kind"] == "Table"
    browser.execute_script("window.feeds = []")


def _watchers(server: ServerProcess, resource: str) -> float:
    status, body = server.request("GET", "/metrics")
    match = re.search(rf'^apiserver_watchers{{resource="{re.escape(resource)}"}} (\S+)$', body.decode(), re.M)
    return float(match.group(1)) if match else 0.0


def _handshake(server: ServerProcess, protocols: str) -> bytes:
    """A raw WebSocket handshake on the feed: the server's answer up to the end of its headers."""
    context = ssl.create_default_context(cafile=server.ca)
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname="127.0.0.1") as conn:
            key = base64.b64encode(b"0123456789abcdef").decode()
            conn.sendall((f"GET /console/feed/api/v1/namespaces/shop/pods HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                          f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                          f"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: {protocols}\r\n\r\n").encode())
            answer = b""
            while b"\r\n\r\n" not in answer:
                chunk = conn.recv(4096)
                if not chunk:
                    break
                answer += chunk
            return answer


def _bearer(token: str) -> str:
    return "base64url.bearer.authorization.k8s.io." + base64.urlsafe_b64encode(token.encode()).decode().rstrip("=")


@pytest.mark.parametrize("protocols", [
    pytest.param("{bearer}", id="no-other-protocol"),
    pytest.param("{bearer}, {bearer}, watch.console.fastkube", id="two-tokens"),
    pytest.param("base64url.bearer.authorization.k8s.io.***, watch.console.fastkube", id="bad-encoding"),
])
def test_feed_refuses_malformed_bearer_protocols(console_server: ServerProcess, protocols: str) -> None:
    answer = _handshake(console_server, protocols.format(bearer=_bearer(console_server.token)))
    assert answer.startswith(b"HTTP/1.1 403"), answer


def test_feed_echoes_the_other_protocol_and_hides_the_token(console_server: ServerProcess) -> None:
    answer = _handshake(console_server, f"{_bearer(console_server.token)}, watch.console.fastkube")
    assert answer.startswith(b"HTTP/1.1 101")
    assert b"sec-websocket-protocol: watch.console.fastkube\r\n" in answer.lower()
    assert console_server.token.encode() not in answer


def test_console_can_be_turned_off(tmp_path: Any) -> None:
    server = ServerProcess(str(tmp_path), extra_args=["--console=false"])
    server.start()
    try:
        status, body = server.request("GET", "/console/", auth=False)
        assert (status, body) == (404, b"404 page not found\n")  # a path outside the API, as upstream answers it
    finally:
        server.stop()


def test_the_page_allows_nothing_but_itself(console_server: ServerProcess) -> None:
    import urllib.request
    request = urllib.request.Request(console_server.url + "/console/namespaces/shop/pods")
    with urllib.request.urlopen(request, context=console_server.ssl_context(), timeout=10) as resp:
        policy = resp.headers["Content-Security-Policy"]
        assert resp.headers["Content-Type"] == "text/html; charset=utf-8"
        assert resp.headers["X-Content-Type-Options"] == "nosniff"
    assert "default-src 'none'" in policy and "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
