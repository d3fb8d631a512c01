"""`python -m benches.console`: how fast the console shows writes, with 1,000 rows and 50 changes a second.

A server (started here) holds 1,000 ConfigMaps; a headless Chromium shows them in the console. Then
for --seconds a writer patches 50 ConfigMaps a second, each one once, adding a data key, so its DATA
cell goes from 3 to 4. The page records, with a MutationObserver, when each row's cell changed. Reported
(JSON): the time from a write's acknowledgement to its row changing (p50, p95, p99, max), writes never
seen, the time until the first 1,000 rows were drawn, and the page's responsiveness while it worked
(long tasks over 50 ms, and the longest gap between animation frames).

    python -m benches.console                    # 10 s at 50 writes/s
    python -m benches.console --seconds 5 --rate 100
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from typing import Any

from benches.api_load.client import Client, seed_configmaps
from benches.api_load.servers import REPO, LocalServer, free_port

sys.path.insert(0, os.path.join(REPO, "tests"))
from browser import chromium, wait_for  # noqa: E402  (the tests' real-browser set-up, not a copy)

NAMESPACE = "console-bench"
ROWS = 1000
WATCH_PAGE = """
window.bench = { changes: {}, longTasks: [], maxFrameGap: 0 };
const body = document.querySelector('#resource-table tbody');
const dataColumn = [...document.querySelectorAll('#resource-table thead th')].findIndex((th) => th.textContent === 'DATA');
new MutationObserver((records) => {
  const now = Date.now();
  for (const record of records) {  // the page redraws a changed row's cells: the record's target is its <tr>
    const tr = record.target;
    if (tr.tagName !== 'TR') continue;
    const name = tr.cells[0].textContent;
    if (!(name in window.bench.changes) && tr.cells[dataColumn].textContent === '4') window.bench.changes[name] = now;
  }
}).observe(body, { childList: true, subtree: true });
new PerformanceObserver((list) => { for (const e of list.getEntries()) window.bench.longTasks.push(e.duration); })
  .observe({ type: 'longtask', buffered: false });
let last = performance.now();
const frame = (t) => { window.bench.maxFrameGap = Math.max(window.bench.maxFrameGap, t - last); last = t; requestAnimationFrame(frame); };
requestAnimationFrame(frame);
"""


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def run(seconds: float, rate: float, work: str) -> dict[str, Any]:
    server = LocalServer(REPO, os.path.join(work, "server"), free_port())
    target = server.start()
    try:
        client = Client(target)
        client.ensure_namespace(NAMESPACE)
        seed_configmaps(client, NAMESPACE, ROWS, prefix="row")
        for driver in chromium():
            driver.get(target.url + "/console/")
            driver.execute_script("sessionStorage.setItem('fastkube.console.token', arguments[0])", target.token)
            opened = time.monotonic()
            driver.get(f"{target.url}/console/namespaces/{NAMESPACE}/configmaps")
            wait_for(lambda: driver.execute_script(
                "return document.body.dataset.state === 'live' && "
                "document.querySelectorAll('#resource-table tbody tr').length") == ROWS, "1,000 rows", 120)
            first_draw_s = time.monotonic() - opened
            driver.execute_script(WATCH_PAGE)
            acked: dict[str, float] = {}
            start = time.monotonic()
            writes = int(seconds * rate)
            for i in range(writes):
                pause = start + i / rate - time.monotonic()
                if pause > 0:
                    time.sleep(pause)
                name = f"row-{i:06d}"
                answer = client.call("PATCH", f"/api/v1/namespaces/{NAMESPACE}/configmaps/{name}",
                                     {"data": {"changed": str(i)}}, content_type="application/merge-patch+json")
                if answer.status != 200:
                    raise RuntimeError(f"patch {name}: HTTP {answer.status}")
                acked[name] = time.time() * 1000
            achieved_rate = writes / (time.monotonic() - start)
            wait_for(lambda: len(driver.execute_script("return window.bench.changes")) >= writes,
                     "every change in the page", 30)
            page = driver.execute_script("return window.bench")
        latencies = [page["changes"][name] - at for name, at in acked.items() if name in page["changes"]]
        return {
            "rows": ROWS, "writes": writes, "writes_per_s": round(achieved_rate, 1),
            "first_draw_s": round(first_draw_s, 2),
            "write_to_row_ms": {"p50": statistics.median(latencies), "p95": percentile(latencies, 0.95),
                                "p99": percentile(latencies, 0.99), "max": max(latencies)},
            "unseen": writes - len(latencies),
            "long_tasks": {"count": len(page["longTasks"]), "total_ms": round(sum(page["longTasks"]), 1)},
            "max_frame_gap_ms": round(page["maxFrameGap"], 1),
        }
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benches.console", description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rate", type=float, default=50.0, help="writes per second")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        print(json.dumps(run(args.seconds, args.rate, work), indent=2))


if __name__ == "__main__":
    main()
