"""Records how kube-apiserver 1.36 answers `kubectl exec` and `kubectl attach` over WebSocket when the
kubelet refuses the stream, in tests/data/stream_frames.json (tests/test_simulated_kubelet.py holds
the simulated kubelets to it).

Usage: python tools/capture_stream_frames.py BIN DIR
The reference API server (../shared/reference/start.sh, no controllers) gets a Node whose kubelet
address is a stand-in kubelet started here: it refuses every stream with a 500 and the text the
kubelet's GetExec/GetAttach/GetPortForward return for a container or pod its runtime does not have
(pkg/kubelet/kubelet_pods.go). What is recorded is what the API server and kubectl make of that.
"""

from __future__ import annotations

import http.server
import json
import os
import socket
import ssl
import subprocess
import sys
import threading
from typing import Any

import websocket  # websocket-client, which the kubernetes client brings
import yaml

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from apiserver.auth import pki  # noqa: E402

SHARED = os.environ.get("FASTKUBE_SHARED") or os.path.join(os.path.dirname(REPO), "shared")
OUT = os.path.join(REPO, "tests", "data", "stream_frames.json")
REFUSALS = {"exec": 'container not found ("web")', "attach": "container web not found in pod web_default",
            "portForward": 'pod not found ("web_default")'}


class StandInKubelet(http.server.BaseHTTPRequestHandler):
    def _refuse(self) -> None:
        body = REFUSALS.get(self.path.strip("/").split("/")[0], "404 page not found\n").encode()
        self.send_response(500)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _refuse

    def log_message(self, *args: Any) -> None:
        pass


def main(binaries: str, directory: str) -> None:
    kubeconfig = subprocess.run([os.path.join(SHARED, "reference", "start.sh"), binaries, directory],
                                check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
    creds = pki.ensure_credentials(os.path.join(directory, "kubelet"), [])
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = http.server.HTTPServer(("127.0.0.1", port), StandInKubelet)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(creds.serving_cert, creds.serving_key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()

    def kubectl(*args: str, stdin: str | None = None, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run([os.path.join(binaries, "kubectl"), "--kubeconfig", kubeconfig, *args], check=check,
                              capture_output=True, text=True, input=stdin)

    try:
        kubectl("create", "-f", "-", stdin=json.dumps({"apiVersion": "v1", "kind": "Node",
                                                       "metadata": {"name": "stand-in"}}))
        kubectl("patch", "node", "stand-in", "--subresource=status", "--type=merge", "-p", json.dumps(
            {"status": {"addresses": [{"type": "InternalIP", "address": "127.0.0.1"}],
                        "daemonEndpoints": {"kubeletEndpoint": {"Port": port}}}}))
        kubectl("run", "web", "--image=nginx", "--overrides", json.dumps({"spec": {"nodeName": "stand-in"}}))
        kubectl("patch", "pod", "web", "--subresource=status", "--type=merge", "-p", '{"status":{"phase":"Running"}}')
        answers: dict[str, Any] = {"kubectl": {}, "frames": {}}
        for args in (("exec", "web", "--", "ls"), ("attach", "web"), ("port-forward", "pod/web", "18089:80")):
            done = kubectl(*args, check=False)
            answers["kubectl"][args[0]] = [done.returncode, done.stderr.strip().splitlines()[-1]]
        with open(kubeconfig) as f:
            config = yaml.safe_load(f)
        url = config["clusters"][0]["cluster"]["server"].replace("https://", "wss://")
        token = config["users"][0]["user"]["token"]
        for sub, query in (("exec", "command=ls&container=web&stderr=true&stdout=true"),
                           ("attach", "container=web&stderr=true&stdout=true")):
            ws = websocket.create_connection(f"{url}/api/v1/namespaces/default/pods/web/{sub}?{query}",
                                             sslopt={"cert_reqs": ssl.CERT_NONE}, header=[f"Authorization: Bearer {token}"],
                                             subprotocols=["v5.channel.k8s.io", "v4.channel.k8s.io"])
            frames = [ws.getsubprotocol()]
            while True:
                opcode, data = ws.recv_data(control_frame=True)
                frames.append([opcode, data.decode("latin-1")])
                if opcode == websocket.ABNF.OPCODE_CLOSE:
                    break
            answers["frames"][sub] = frames
    finally:
        server.shutdown()
        subprocess.run([os.path.join(SHARED, "reference", "stop.sh"), directory], check=False)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(answers, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main(*sys.argv[1:3])
