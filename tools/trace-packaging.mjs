// Build-time: which standard library modules making a package imports. Boots the pinned
// Pyodide under Node with its whole stdlib, installs the site's engine wheel, unpacks the
// site's packaging zip where the page's worker unpacks it, and makes every kind of package
// (site, SCORM, cmi5; with and without a score) from the site's files as the worker does.
// Prints the stdlib files (names in python_stdlib.zip) loaded by then, and those loaded
// before packaging, once the engine has answered and imported all it imports when first
// needed, as the page's worker has before it keeps a memory snapshot: {base, used}. A
// Python restored from that snapshot has only those base modules and no stdlib files, so
// build.py puts the others used into the packaging zip.
//
// usage: node tools/trace-packaging.mjs <pyodide dir> <site dir> <store.json> <fragments.json>
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, siteDir, storePath, fragmentsPath] = process.argv.slice(2).map((p) => path.resolve(p));
for (const event of ["uncaughtException", "unhandledRejection"]) {
  process.on(event, (error) => {
    console.error(`trace-packaging: ${error?.message ?? error}`);
    process.exit(1);
  });
}
const SITE_PACKAGES = "/lib/python3.14/site-packages";
const PACKAGING = "/lib/rw-packaging";
const SITE = "/tmp/site";
const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL: `${pyodideDir}/`, stdout: () => {}, stderr: (text) => console.error(`[python] ${text}`) });

const files = readdirSync(siteDir, { recursive: true }).map(String).filter((name) => statSync(path.join(siteDir, name)).isFile());
for (const name of files) {
  pyodide.FS.mkdirTree(path.posix.dirname(`${SITE}/${name}`));
  pyodide.FS.writeFile(`${SITE}/${name}`, readFileSync(path.join(siteDir, name)));
}
const bytes = (/** @type {string} */ name) => new Uint8Array(readFileSync(path.join(siteDir, name)));
const wheel = files.find((name) => name.startsWith("wheels/") && name.endsWith(".whl"));
const packaging = files.find((name) => name.startsWith("packaging/") && name.endsWith(".zip"));
if (!wheel || !packaging) throw new Error(`${siteDir} holds no engine wheel or no packaging zip`);
pyodide.unpackArchive(bytes(wheel), "wheel", { extractDir: SITE_PACKAGES });
pyodide.unpackArchive(bytes(packaging), "zip", { extractDir: PACKAGING });
const globals = pyodide.toPy({ SITE, PACKAGING, STORE: storePath, FRAGMENTS: fragmentsPath });
pyodide.FS.mkdirTree(path.dirname(storePath));
pyodide.FS.writeFile(storePath, readFileSync(storePath));
pyodide.FS.mkdirTree(path.dirname(fragmentsPath));
pyodide.FS.writeFile(fragmentsPath, readFileSync(fragmentsPath));
const used = pyodide.runPython(
  String.raw`
import json, sys
sys.path.append(PACKAGING)
import engine

prefix = "/lib/python314.zip/"
def loaded():
    return sorted({
        origin[len(prefix):]
        for module in list(sys.modules.values())
        if isinstance(origin := getattr(getattr(module, "__spec__", None), "origin", None), str) and origin.startswith(prefix)
    })

with open(STORE, encoding="utf-8") as file:
    opening = engine.open_json(file.read())
opening.session.answer_json("{}")
engine.import_everything()
# The vectors, as the page loads them before a package whose guides use the embedding
# (their claims are checked as build.py checks them).
import glob
engine.load_embedding(glob.glob(SITE + "/embedding/*.rwse")[0])
base = loaded()
from sitebuild import assemble

files = assemble.read_tree(SITE)
with open(STORE, encoding="utf-8") as file:
    store = file.read()
with open(FRAGMENTS, encoding="utf-8") as file:
    fragments = file.read()
assemble.check(assemble.store_from_boot(json.dumps({"store": json.loads(store)})))
for kind in assemble.KINDS:
    for score in (True, False):
        assemble.package(kind, store, fragments, files, score=score)
json.dumps({"base": base, "used": loaded()})
`,
  { globals },
);
process.stdout.write(used);
