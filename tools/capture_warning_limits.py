"""Records the Warning lines kube-apiserver answers when a request's warnings pass its limits.

Usage: python tools/capture_warning_limits.py KUBECONFIG  (a reference started by ../shared/reference/start.sh)
Each scenario creates (dryRun=All) a ConfigMap with `count` unknown fields of a given name length
under fieldValidation=Warn, one warning each; the answer kept is the list of Warning header lines.
tests/test_warning_limits.py holds ours to them (apiserver/http/warning_limits.py).
"""

from __future__ import annotations

import json
import os
import sys

from kubernetes import client, config

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(os.path.dirname(HERE), "tests", "fixtures", "warning_limits.json")

# (unknown fields, characters of padding in each field's name): under the 4 KiB total, just past it
# (the replay), far past it (later warnings dropped), and long texts cut to 256 characters.
SCENARIOS = [(3, 10), (57, 40), (58, 40), (120, 40), (30, 300), (200, 400)]


def body(count: int, padding: int) -> dict[str, object]:
    obj: dict[str, object] = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "warned"}}
    for i in range(count):
        obj[f"unknownField{i:03d}" + "x" * padding] = i
    return obj


def warnings(api: client.ApiClient, count: int, padding: int) -> list[str]:
    """The Warning lines, in order, of the dry-run create, read through the kubernetes client's own
    transport (its typed models refuse unknown fields before sending)."""
    method, url, headers, data, _ = api.param_serialize(
        method="POST", resource_path="/api/v1/namespaces/{namespace}/configmaps", path_params={"namespace": "default"},
        query_params=[("dryRun", "All"), ("fieldValidation", "Warn")],
        header_params={"Content-Type": "application/json", "Accept": "application/json"},
        body=body(count, padding), auth_settings=["BearerToken"])
    response = api.call_api(method, url, headers, data)
    response.read()
    assert response.status == 201, response.status
    return list(response.headers.getlist("Warning"))


def main(kubeconfig: str) -> None:
    api = config.new_client_from_config(config_file=kubeconfig)
    answers = {f"{count}x{padding}": warnings(api, count, padding) for count, padding in SCENARIOS}
    with open(FIXTURE, "w") as f:
        json.dump(answers, f, indent=1)
        f.write("\n")
    print(", ".join(f"{name}: {len(lines)} lines" for name, lines in answers.items()))


if __name__ == "__main__":
    main(sys.argv[1])
