"""The stock Pyodide page the benchmarks hold the workbench to, built beside the site.

What most projects do: a bare page whose module worker calls loadPyodide() with its
defaults (pyodide-lock.json fetched, the stock python_stdlib.zip), then
pyodide.loadPackage(<the same engine wheel>) and `import engine`; the page draws the
engine's result for the default store as a plain table once Python answers, so its
first table paint comes after Python. Runtime files are copied from node_modules/pyodide,
untouched.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import build

PAGES = ("workbench", "stock")
STOCK_RUNTIME = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")

STOCK_HTML = """<!doctype html>
<html lang="en" data-engine="loading">
<head>
<meta charset="utf-8">
<title>Retrieval engine on stock Pyodide</title>
<link rel="icon" href="data:,">
<script type="module" src="main.js"></script>
</head>
<body>
<h1>Retrieval engine on stock Pyodide</h1>
<p id="status">Loading Python…</p>
<table>
<thead><tr><th>ID</th><th>Memory text</th><th>Cosine</th><th>Blended score</th><th>Outcome</th></tr></thead>
<tbody id="records-body"></tbody>
</table>
<script type="application/json" id="store">__STORE__</script>
</body>
</html>
"""

STOCK_MAIN = """// The page's side: start the worker, draw the engine's answer as a table.
const store = JSON.parse(document.getElementById("store").textContent);
const status = document.getElementById("status");
const worker = new Worker("worker.js", { type: "module" });
worker.onmessage = ({ data }) => {
  if (data.type === "ready") {
    performance.mark("rw:engine-ready");
    document.documentElement.dataset.engine = "ready";
    worker.postMessage(JSON.stringify({ store, policy: {} }));
  } else if (data.type === "result") {
    showTable(JSON.parse(data.response));
    status.textContent = "Python is running the engine.";
  } else {
    document.documentElement.dataset.engine = "failed";
    status.textContent = "Python could not start: " + data.message;
  }
};

function showTable(result) {
  const body = document.getElementById("records-body");
  for (const r of result.records) {
    const row = body.insertRow();
    row.dataset.recordId = r.id;
    for (const value of [r.id, r.text, r.cosine.toFixed(3), r.score.toFixed(3), r.outcome]) {
      row.insertCell().textContent = value;
    }
  }
}
"""

STOCK_WORKER = """// Pyodide the usual way: default loadPyodide(), then the wheel through loadPackage.
import { loadPyodide } from "./pyodide/pyodide.mjs";

try {
  const pyodide = await loadPyodide();
  await pyodide.loadPackage(new URL("wheels/__WHEEL__", import.meta.url).href);
  const engine = pyodide.pyimport("engine");
  self.onmessage = ({ data }) => postMessage({ type: "result", response: engine.run_json(data) });
  postMessage({ type: "ready" });
} catch (error) {
  postMessage({ type: "failed", message: String(error) });
}
"""


def build_pages(root: Path) -> None:
    """root/workbench: the built site; root/stock: the stock page around the same wheel."""
    build.build(out=root / "workbench", quiet=True)
    stock = root / "stock"
    (stock / "pyodide").mkdir(parents=True)
    for name in STOCK_RUNTIME:
        shutil.copyfile(build.PYODIDE_PACKAGE / name, stock / "pyodide" / name)
    (wheel,) = (root / "workbench" / "wheels").rglob("*.whl")
    (stock / "wheels").mkdir()
    shutil.copyfile(wheel, stock / "wheels" / wheel.name)
    store = json.dumps(json.loads(build.DEFAULT_STORE.read_text(encoding="utf-8"))).replace("<", "\\u003c")
    (stock / "index.html").write_text(STOCK_HTML.replace("__STORE__", store), encoding="utf-8")
    (stock / "main.js").write_text(STOCK_MAIN, encoding="utf-8")
    (stock / "worker.js").write_text(STOCK_WORKER.replace("__WHEEL__", wheel.name), encoding="utf-8")
