"""A warning as kube-apiserver's recorder writes it into a Warning header."""

from __future__ import annotations


def warning_line(text: str) -> str:
    """One warning as net.NewWarningHeader writes it: only `"` and `\\` escaped, the text's UTF-8 bytes as
    they are (carried here as the latin-1 characters of those bytes, as header values are written)."""
    quoted = '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return ("299 - " + quoted).encode("utf-8").decode("latin-1")
