"""What the tests replaying a capture tool's recorded reference answers share: the tool (tools/ is put
on the path), its fixture, a sender the tool has prepared on the shared server, and answers compared
without the uids that differ between servers."""

from __future__ import annotations

import importlib
import json
import os
import re
import sys
from types import ModuleType
from typing import Any

from support import ServerProcess

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))

import capture_patch_decoding

Send = capture_patch_decoding.Send
_UID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def tool(name: str) -> tuple[ModuleType, dict[str, Any]]:
    """The capture tool of that name and the answers it recorded."""
    capture = importlib.import_module(name)
    with open(capture.FIXTURE) as f:
        return capture, json.load(f)


def prepared_sender(server: ServerProcess, capture: ModuleType) -> Any:
    """The tool's sender to the server (the patch-decoding capture's, unless it has its own), with what
    the tool's cases need made first."""
    sender = getattr(capture, "sender", capture_patch_decoding.sender)(server.kubeconfig)
    capture.prepare(sender)
    return sender


def without_uids(answer: dict[str, Any]) -> str:
    return _UID.sub("UID", json.dumps(answer, sort_keys=True))
