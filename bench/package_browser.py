"""Benchmark: the default store's SCORM zip made in the page and downloaded, once it is loaded.

Builds the site (with `--scorm`, to compare), serves it locally, and in headless Chromium
with a fresh context per run: loads the page, waits until Python is ready, opens the
downloads panel and clicks "Download SCORM 1.2 package", timing from the click to the
browser's download being saved (the first package of a visit: the packaging code and every
file of the site are fetched then), and then a second SCORM zip in the same page (the code
loaded, the files through the service worker or the HTTP cache). Each zip is checked
against build.py's. Also prints the packaging zip's size: what a package costs a visit.

Target: the first SCORM zip in ≤ 5 s on this machine.

Run: python bench/package_browser.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import build
from harness.browser import launch
from harness.page_timing import wait_in_page
from harness.servers import StaticServer

TARGET_S = 5.0


def package_once(page: Page, folder: Path, name: str) -> tuple[float, bytes]:
    """Seconds from the click to the saved download, and the zip."""
    button = page.get_by_role("button", name="Download SCORM 1.2 package")
    started = time.perf_counter()
    with page.expect_download(timeout=120_000) as saved:
        button.click()
    target = folder / name
    saved.value.save_as(target)
    return time.perf_counter() - started, target.read_bytes()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as scratch, sync_playwright() as playwright:
        out = Path(scratch) / "dist"
        build.build(out=out, scorm=True, quiet=True)
        expected = build.scorm_package_path(out).read_bytes()
        runtime = json.loads(
            (out / "index.html").read_text(encoding="utf-8").split('id="runtime">', 1)[1].split("</script>", 1)[0]
        )
        packaging_bytes = (out / runtime["packagingURL"]).stat().st_size
        server = StaticServer(out)
        browser = launch(playwright)
        try:
            for run in range(args.runs):
                context = browser.new_context(viewport={"width": 1280, "height": 800}, accept_downloads=True)
                page = context.new_page()
                page.goto(server.url)
                wait_in_page(page, "document.documentElement.dataset.engine === 'ready'")
                page.locator("#packages summary").click()
                first, zipped = package_once(page, Path(scratch), f"first-{run}.zip")
                second, again = package_once(page, Path(scratch), f"second-{run}.zip")
                context.close()
                runs.append(
                    {
                        "first_s": round(first, 2),
                        "second_s": round(second, 2),
                        "zip_bytes": len(zipped),
                        "equals_build_py": zipped == expected and again == expected,
                    }
                )
                print(json.dumps(runs[-1]), file=sys.stderr)
        finally:
            browser.close()
            server.close()
    firsts = [r["first_s"] for r in runs]
    summary = {
        "first_s_median": statistics.median(firsts),
        "first_s_max": max(firsts),
        "second_s_median": statistics.median(r["second_s"] for r in runs),
        "zip_mb": round(runs[0]["zip_bytes"] / 1e6, 2),
        "packaging_zip_kb": round(packaging_bytes / 1e3, 1),
        "all_equal_build_py": all(r["equals_build_py"] for r in runs),
        "target_first_s": TARGET_S,
        "meets_target": max(firsts) <= TARGET_S,
    }
    print(json.dumps({"runs": runs, "summary": summary}, indent=2))
    return 0 if summary["meets_target"] and summary["all_equal_build_py"] else 1


if __name__ == "__main__":
    sys.exit(main())
