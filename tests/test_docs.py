"""The docs build strictly (a broken link or anchor fails), and the README keeps the commands CI runs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from support import REPO

pytestmark = pytest.mark.store_once  # starts no server


def mkdocs_build(root: str, site: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", site],
                          cwd=root, capture_output=True, text=True, timeout=120, check=False)


def test_the_docs_build_strictly(tmp_path: object) -> None:
    built = mkdocs_build(REPO, os.path.join(str(tmp_path), "site"))
    assert built.returncode == 0, built.stderr
    assert os.path.exists(os.path.join(str(tmp_path), "site", "testing", "index.html"))


@pytest.mark.parametrize("broken", ["[gone](nowhere.md)", "[gone](running.md#no-such-section)"])
def test_a_broken_link_fails_the_build(tmp_path: object, broken: str) -> None:
    root = str(tmp_path)
    shutil.copy(os.path.join(REPO, "mkdocs.yml"), root)
    shutil.copytree(os.path.join(REPO, "docs"), os.path.join(root, "docs"))
    with open(os.path.join(root, "docs", "index.md"), "a") as f:
        f.write(f"\nSee {broken}.\n")
    built = mkdocs_build(root, os.path.join(root, "site"))
    assert built.returncode != 0
    assert "index.md" in built.stderr


def test_the_readme_opens_with_the_commands_ci_runs() -> None:
    with open(os.path.join(REPO, "README.md")) as f:
        readme = f.read().splitlines()
    with open(os.path.join(REPO, ".ci", "run")) as f:
        ci_command = f.read().strip().splitlines()[-1]
    assert readme[2] == "```sh"
    assert readme[3].startswith("python3 -m pip install -e . && python3 -m apiserver --data-dir ./data")
    assert readme[4].startswith(ci_command + "   # the whole test suite")
