"""Adding tokens to a test server's data directory through the real command line."""

from __future__ import annotations

import os
import subprocess
import sys

import yaml

from support import REPO, ServerProcess


def add_token(server: ServerProcess, name: str, role: str) -> tuple[str, str]:
    """`python -m apiserver token add`: the printed kubeconfig (saved as a file) and its token."""
    result = subprocess.run([sys.executable, "-m", "apiserver", "token", "add", name, "--role", role,
                             "--data-dir", server.data_dir],
                            cwd=REPO, capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    doc = yaml.safe_load(result.stdout)
    path = os.path.join(server.data_dir, f"{name}.kubeconfig")
    with open(path, "w") as f:
        f.write(result.stdout)
    return path, doc["users"][0]["user"]["token"]
