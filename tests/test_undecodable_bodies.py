"""A create or update body that is not JSON at all is refused as kube-apiserver's transformDecodeError
words it: the endpoint's kind, encoding/json's error, and the body's first bytes (hex unless an object).

The expected lines are kube-apiserver 1.36.2's answers to the same kubectl commands, captured by hand with
the reference's kubectl (`kubectl create --raw PATH -f FILE`)."""

from __future__ import annotations

import pytest
from support import ServerProcess, run_kubectl

POD_YAML = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: valid-pod\nspec:\n  containers:\n  - name: c\n    image: i\n"
PREFIX = "Error from server (BadRequest): the object provided is unrecognized (must be of type {kind}): " \
         "couldn't get version/kind; json parse error: "


@pytest.mark.parametrize(("verb", "path", "body", "expected"), [
    ("create", "/api/v1/namespaces", POD_YAML, PREFIX.format(kind="Namespace")
     + "invalid character 'a' looking for beginning of value (61706956657273696f6e3a2076310a6b696e643a20506f640a6d65746164 ...)"),
    ("create", "/api/v1/namespaces/default/configmaps", '{"kind": ', PREFIX.format(kind="ConfigMap")
     + 'unexpected end of JSON input ({"kind": )'),
    ("replace", "/api/v1/namespaces/default/configmaps/a", "x", PREFIX.format(kind="ConfigMap")
     + "invalid character 'x' looking for beginning of value (78)"),
])
def test_kubectl_raw_with_a_body_that_is_not_json(shared_server: ServerProcess, tmp_path: object, verb: str,
                                                  path: str, body: str, expected: str) -> None:
    run_kubectl(shared_server, "create", "configmap", "a", check=False)
    sent = f"{tmp_path}/body"
    with open(sent, "w") as f:
        f.write(body)
    out = run_kubectl(shared_server, verb, "--raw", path, "-f", sent, check=False)
    assert out.returncode == 1
    assert out.stderr.strip() == expected
