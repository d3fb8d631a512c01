"""A real headless Chromium (Debian's chromium and chromium-driver) driven through selenium."""

from __future__ import annotations

import os
import shutil
import time
from typing import Any, Callable, Iterator

from support import REPO, unavailable

ARTIFACTS = os.environ.get("FASTKUBE_ARTIFACTS") or os.path.join(REPO, "test-artifacts")


def chromium() -> Iterator[Any]:
    """A headless browser that trusts the test server's self-signed certificate chain."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        unavailable("selenium is not installed (the test extra)")
    binary = shutil.which("chromium")
    driver_path = shutil.which("chromedriver")
    if binary is None or driver_path is None:
        unavailable("Debian's chromium and chromium-driver are not installed")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--ignore-certificate-errors",
                "--window-size=1400,900", "--disable-gpu"):
        options.add_argument(arg)
    # The driver is Debian's, named explicitly: selenium must not try to download one.
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def wait_for(check: Callable[[], Any], what: str | Callable[[], str], timeout: float = 15.0) -> Any:
    """Polls until check() is truthy and returns it; fails naming what never happened."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        try:
            last = check()
        except Exception as exc:  # the page is mid-render: an element may come and go
            last = exc
        else:
            if last:
                return last
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what if isinstance(what, str) else what()} (last: {last!r})")


def screenshot(driver: Any, folder: str, name: str) -> None:
    """Saves what the page shows now, as a test artifact."""
    os.makedirs(os.path.join(ARTIFACTS, folder), exist_ok=True)
    driver.save_screenshot(os.path.join(ARTIFACTS, folder, f"{name}.png"))
