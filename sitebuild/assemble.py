"""The one path from a store to a site or an LMS package, run by build.py under CPython and
by the page's worker under Pyodide: given the store's text, the page's prerender of it and
the bytes of every file of the site that does not depend on the store, it makes index.html,
sw.js and, for a package, the manifest and the zip, deterministically.

It reads nothing from disk and imports only the standard library, Jinja2 (with MarkupSafe)
and the engine, so the same code makes the same bytes in both places. Everything it needs
besides the store travels in the packaging zip (PACKAGING): the template, the inlined script
and stylesheet, sw.js, the cmi5 library and a description of the rest of the site
(site.json: the runtime block, the preload list, the file list), written once by build.py.
"""

from __future__ import annotations

import hashlib
import io
import json
import uuid
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import jinja2
from markupsafe import Markup

import engine
from engine.api import check_store
from engine.fields import field_rows

# Where in the site the packaging zip is, and where its data files are inside it. The zip's
# own name carries its content hash (PACKAGING_PREFIX-<hash>.zip), so a new build's never
# meets an old copy in a cache.
PACKAGING_DIR = "packaging"
PACKAGING_PREFIX = "packaging"
SOURCES = "sources/"
DESCRIPTION = SOURCES + "site.json"
TEMPLATE = SOURCES + "index.html.j2"
INLINE_SCRIPT = SOURCES + "first-frames.js"
INLINE_STYLE = SOURCES + "site.css"
SERVICE_WORKER = SOURCES + "sw.js"
# A cmi5 package's site serves @xapi/cmi5's browser module and its licence at these paths.
CMI5_LIBRARY = {"js/vendor/cmi5.js": SOURCES + "cmi5.js", "licenses/xapi-cmi5.txt": SOURCES + "xapi-cmi5.txt"}

# Replaced by the build id once every other file is made (see service_worker).
BUILD_ID_PLACEHOLDER = "@@build-id@@"
KINDS = ("site", "scorm", "cmi5")
# What each download is called: build.py's names for the same zips.
ZIP_NAMES = {"site": "dist.zip", "scorm": "dist-scorm.zip", "cmi5": "dist-cmi5.zip"}


def escape(text: str) -> str:
    """Text as XML character data or a quoted attribute's value (no quotes in it): the three
    characters xml.sax.saxutils.escape replaces, without the dozen modules it imports."""
    return text.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")


def extend_split_packages(root: str) -> list[str]:
    """Let the packages that the page's trimmed stdlib holds in part (encodings, say) find
    their other modules under ``root``, where the packaging zip is unpacked: a package's
    modules are looked for only beside its __init__. Returns their names."""
    import importlib
    import os

    split = []
    for name in sorted(os.listdir(root)):
        folder = f"{root}/{name}"
        if not os.path.isdir(folder) or os.path.exists(f"{folder}/__init__.py") or not name.isidentifier():
            continue
        try:
            package = importlib.import_module(name)
        except ImportError:
            continue
        if folder not in getattr(package, "__path__", [folder]):
            package.__path__.append(folder)
            split.append(name)
    return split


class Refused(Exception):
    """A store that is not built: each problem as (path in the store, message)."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        super().__init__(f"{len(problems)} problem(s)")
        self.problems = problems


def refusals(store_text: str) -> list[tuple[str, str]]:
    """Every reason not to build a site around this store, as (path, message); none when it
    may be built. The one gate both build.py and the page's downloads go through: a check
    added here (a guided claim that is not true, say) refuses in both places at once."""
    try:
        data = json.loads(store_text)
    except json.JSONDecodeError as error:
        return [("", f"not valid JSON ({error})")]
    checked = check_store(data)
    if checked["problems"]:
        return [(p["path"], p["message"]) for p in checked["problems"]]
    # A guide must not teach what its answer contradicts: the lines --check-guides prints.
    lines = [claim["text"] for claim in checked["claims"]]
    lines += [f"{step['guide']} step {step['step']} not checked: {step['why']}" for step in checked["unchecked"]]
    return [("", line) for line in lines]


def problem_lines(problems: list[tuple[str, str]]) -> list[str]:
    """The problems as build.py prints them, one line each."""
    return [f"{path}: {message}" if path else message for path, message in problems]


@dataclass(frozen=True)
class Prepared:
    """A store accepted for building, with the default configuration's result."""

    store: Any
    result: Any

    def prerender_request(self) -> str:
        """What the page's renderer (site/js/views/prerender.js) is given, as JSON text."""
        store, result = self.store, self.result
        labels = {t["id"]: t["label"] for t in store["tenants"]}
        chosen = (result["selected"] or result["ranked"] or [result["records"][0]["id"]])[0]
        return json.dumps({"store": store, "result": result, "tenantLabels": labels, "chosenId": chosen})


def prepare(store_text: str) -> Prepared:
    """The store parsed and answered with the default policy; Refused with every problem."""
    problems = refusals(store_text)
    if problems:
        raise Refused(problems)
    store = json.loads(store_text)
    return Prepared(store, engine.run({"store": store, "policy": {}}))


def check(store_text: str) -> str:
    """The page's first question before a download, answered as JSON text: the store's
    problems as build.py prints them ({"problems": [line...]}), or what the page's renderer
    must draw for it ({"request": prerender request})."""
    problems = refusals(store_text)
    if problems:
        return json.dumps({"problems": problem_lines(problems)})
    return json.dumps({"request": prepare(store_text).prerender_request()})


def store_from_boot(boot_text: str) -> str:
    """The store of a page's boot block as JSON text that parses to the very objects the
    store file it was built from does (floats keep their ".0", which JavaScript's JSON
    would drop): what the page packages when no store was opened from a file."""
    return json.dumps(json.loads(boot_text)["store"], ensure_ascii=False)


def read_tree(root: str) -> dict[str, bytes]:
    """Every file under ``root`` by its path from there: the site's files, where the page's
    worker wrote them into Python's file system."""
    import os

    files = {}
    for folder, _dirs, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            with open(path, "rb") as file:
                files[os.path.relpath(path, root)] = file.read()
    return files


def package_tree(kind: str, store_text: str, fragments_text: str, root: str, *, score: bool = True) -> bytes:
    """package, from the site's files as they lie under ``root`` (see read_tree)."""
    return package(kind, store_text, fragments_text, read_tree(root), score=score)


def remove_tree(root: str) -> None:
    """Remove what read_tree read, so the worker does not keep the site's files."""
    import shutil

    shutil.rmtree(root, ignore_errors=True)


def packaging_path(files: Mapping[str, bytes]) -> str:
    """The packaging zip's path in the site."""
    found = [p for p in files if p.startswith(f"{PACKAGING_DIR}/{PACKAGING_PREFIX}-") and p.endswith(".zip")]
    if len(found) != 1:
        raise ValueError(f"expected one {PACKAGING_DIR}/{PACKAGING_PREFIX}-*.zip among the site's files, found {found}")
    return found[0]


def sources(files: Mapping[str, bytes]) -> dict[str, bytes]:
    """The data files of the packaging zip, by their name inside it."""
    with zipfile.ZipFile(io.BytesIO(files[packaging_path(files)])) as archive:
        return {name: archive.read(name) for name in archive.namelist() if name.startswith(SOURCES)}


def site_order(paths: list[str]) -> list[str]:
    """Paths in the order a walk of the site lists them: folder by folder (as pathlib sorts)."""
    return sorted(paths, key=lambda path: path.split("/"))


def inline_source(text: str) -> str:
    """A CSP source that allows exactly this inline script or stylesheet."""
    import base64

    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def content_security_policy(script: str, style: str, *, cmi5: bool = False) -> str:
    """Only this site's own files and the two inline blocks, by their hashes; WebAssembly
    compilation is the one exception to "no eval". A cmi5 package also talks to the LMS's
    learning record store, wherever the launch says it is (over HTTPS, or on this origin)."""
    return "; ".join(
        [
            "default-src 'self'",
            f"script-src 'self' 'wasm-unsafe-eval' {inline_source(script)}",
            "worker-src 'self'",
            "connect-src 'self' https:" if cmi5 else "connect-src 'self'",
            f"style-src 'self' {inline_source(style)}",
            "img-src 'self' data:",
            "font-src 'self'",
            "object-src 'none'",
            "base-uri 'self'",
            "form-action 'none'",
        ]
    )


def script_json(value: Any) -> Markup:
    """JSON for a <script type="application/json"> element: "<" escaped, so no text in
    the store can close the element."""
    return Markup(json.dumps(value, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c"))


def render_page(
    prepared: Prepared,
    fragments: Any,
    data: Mapping[str, bytes],
    description: Any,
    runtime: dict[str, Any],
    *,
    score: bool,
    cmi5: bool,
) -> str:
    """index.html, with the build id still a placeholder."""
    store, result = prepared.store, prepared.result
    # What the page's script reads at start; the field and outcome tables reach it as
    # js/core/tables.js, so they are not repeated here.
    boot = {
        "store": store,
        "result": result,
        "buildId": BUILD_ID_PLACEHOLDER,
        # What an LMS package reports (site/js/panels/lms.js).
        "lms": {"score": score, "cmi5": cmi5},
    }
    env = jinja2.Environment(
        loader=jinja2.DictLoader({"index.html.j2": data[TEMPLATE].decode("utf-8")}),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    script = data[INLINE_SCRIPT].decode("utf-8")
    style = data[INLINE_STYLE].decode("utf-8")
    return env.get_template("index.html.j2").render(
        csp=content_security_policy(script, style, cmi5=cmi5),
        inline_script=Markup(script),
        inline_style=Markup(style),
        store=store,
        policy=result["policy"],
        fields=field_rows(),
        stop_words=sorted(engine.STOP_WORDS),
        prerendered={
            **{k: Markup(v) for k, v in fragments["html"].items()},
            "options": {k: Markup(v) for k, v in fragments["options"].items()},
            "question": result["question"]["text"],
        },
        stages=fragments["stages"],
        page_size=fragments["pageSize"],
        timeline_span=fragments["timelineSpan"],
        boot_json=script_json(boot),
        runtime_json=script_json(runtime),
        early_modules=description["early"],
        engine_version=engine.__version__,
        pyodide_version=description["pyodide"]["version"],
        pyodide_python=description["pyodide"]["python"],
        vectors=description["vectors"],
    )


def runtime_block(description: Any, site: Mapping[str, bytes], packaging: str) -> dict[str, Any]:
    """The runtime block of index.html: build.py's description of the runtime files, with
    the page's script files as this site holds them (but those fetched on demand), and the
    packaging zip."""
    # Those a package alone needs are on demand: no page loads them again to cache their code.
    page_modules = sorted(
        path for path in site if path.startswith("js/") and path.endswith(".js") and path not in description["onDemand"]
    )
    runtime: dict[str, Any] = {}
    for key, value in description["runtime"].items():
        if key == "warmModules":
            value = [path for path in page_modules if path in value]
        elif key == "pageModules":
            value = page_modules
        runtime[key] = value
    runtime["packagingURL"] = packaging
    return runtime


def service_worker(site: dict[str, bytes], script: bytes, on_demand: list[str]) -> str:
    """sw.js with the exact list of files to precache and a build id from their bytes,
    which also replaces the placeholder in index.html; returns the build id.

    The ``on_demand`` files (the embedding's vectors and their papers, the packaging zip and
    the scripts only a package needs) are left out of the precache, since most visits never
    fetch them: sw.js keeps each the first time it is fetched.
    """
    paths = site_order(list(site))
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.encode() + b"\0" + site[path] + b"\0")
    build_id = digest.hexdigest()[:16]
    site["index.html"] = site["index.html"].replace(BUILD_ID_PLACEHOLDER.encode(), build_id.encode())
    manifest = {
        "hash": build_id,
        # index.html is cached as "./", the URL every link to the page shares.
        "files": ["./" if path == "index.html" else path for path in paths if path not in on_demand],
        "immutable": ["pyodide/", "wheels/"],
        "onDemand": on_demand,
    }
    site["sw.js"] = f"const BUILD = {json.dumps(manifest, indent=1)};\n{script.decode('utf-8')}".encode()
    return build_id


@dataclass(frozen=True)
class Site:
    """A site's every file by its path, and its build id."""

    files: dict[str, bytes]
    build_id: str


def make_site(prepared: Prepared, fragments_text: str, files: Mapping[str, bytes], *, score: bool, cmi5: bool) -> Site:
    """The whole site around the prepared store: ``files`` (the store-independent files, as
    build.py lists them in site.json, and the packaging zip), with index.html and sw.js
    made for this store, and for ``cmi5`` the cmi5 library besides."""
    data = sources(files)
    description = json.loads(data[DESCRIPTION])
    packaging = packaging_path(files)
    expected = {*description["files"], packaging}
    if set(files) != expected:
        missing, extra = sorted(expected - set(files)), sorted(set(files) - expected)
        raise ValueError(f"the site's files do not match its description: missing {missing}, unexpected {extra}")
    site = dict(files)
    if cmi5:
        for path, source in CMI5_LIBRARY.items():
            site[path] = data[source]
    site["index.html"] = b""  # its place in the page's script list and the build id's order
    page = render_page(
        prepared,
        json.loads(fragments_text),
        data,
        description,
        runtime_block(description, site, packaging),
        score=score,
        cmi5=cmi5,
    )
    site["index.html"] = page.encode("utf-8")
    build_id = service_worker(site, data[SERVICE_WORKER], [*description["onDemand"], packaging])
    return Site(site, build_id)


def scorm_manifest(files: list[str], title: str, build_id: str) -> str:
    """imsmanifest.xml, listing every file, for an LMS to import.

    The page finds the LMS's SCORM 1.2 API itself (site/js/lms/scorm.js); this only
    describes the package: one SCO launched at index.html.
    """
    name = escape(title)
    return "\n".join(
        [
            '<?xml version="1.0" encoding="UTF-8"?>',
            f'<manifest identifier="retrieval-workbench-{build_id}" version="1.0"',
            '  xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2"',
            '  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2">',
            "  <metadata><schema>ADL SCORM</schema><schemaversion>1.2</schemaversion></metadata>",
            '  <organizations default="workbench">',
            '    <organization identifier="workbench">',
            f"      <title>{name}</title>",
            f'      <item identifier="experiment" identifierref="site"><title>Retrieval Workbench: {name}</title></item>',
            "    </organization>",
            "  </organizations>",
            "  <resources>",
            '    <resource identifier="site" type="webcontent" adlcp:scormtype="sco" href="index.html">',
            *[f'      <file href="{escape(f)}"/>' for f in files],
            "    </resource>",
            "  </resources>",
            "</manifest>",
            "",
        ]
    )


def course_iri(store: Any) -> str:
    """The course's IRI, the same for every build of the same store title, so an LMS
    keeps matching a re-uploaded package to the learners' records."""
    return uuid.uuid5(uuid.NAMESPACE_URL, f"retrieval-workbench:{store['title']}").urn


def cmi5_course_structure(store: Any, *, score: bool) -> str:
    """cmi5.xml: one course with one assignable unit, the page, launched in any window.

    The AU is satisfied once completed (a whole guided experiment finished); with a
    score it also reports passed or failed, against the LMS's mastery score if one is set.
    """
    course = course_iri(store)
    title = escape(store["title"])
    described = escape(
        "Watch an AI agent's memory retrieval step by step; finish a guided experiment, predicting each tray."
        + ("" if score else " No score is reported.")
    )
    return "\n".join(
        [
            '<?xml version="1.0" encoding="utf-8"?>',
            '<courseStructure xmlns="https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd">',
            f'  <course id="{course}">',
            f'    <title><langstring lang="en">{title}</langstring></title>',
            f'    <description><langstring lang="en">{described}</langstring></description>',
            "  </course>",
            f'  <au id="{course}/experiment" moveOn="Completed" launchMethod="AnyWindow">',
            f'    <title><langstring lang="en">Retrieval Workbench: {title}</langstring></title>',
            f'    <description><langstring lang="en">{described}</langstring></description>',
            "    <url>index.html</url>",
            "  </au>",
            "</courseStructure>",
            "",
        ]
    )


def zip_bytes(members: list[tuple[str, bytes]]) -> bytes:
    """A reproducible zip, in the order given: fixed dates and modes, each member deflated
    at zlib's default level (the same bytes from CPython's zlib and Pyodide's)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, data in members:
            info = zipfile.ZipInfo(member, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    return out.getvalue()


def package_members(kind: str, prepared: Prepared, site: Site, *, score: bool) -> list[tuple[str, bytes]]:
    """What the zip of ``kind`` holds, in order: the site's files (sorted), after the
    manifest for an LMS package."""
    files = sorted(site.files)
    members = [(path, site.files[path]) for path in files]
    if kind == "scorm":
        return [("imsmanifest.xml", scorm_manifest(files, prepared.store["title"], site.build_id).encode()), *members]
    if kind == "cmi5":
        return [("cmi5.xml", cmi5_course_structure(prepared.store, score=score).encode()), *members]
    return members


def package(
    kind: str, store_text: str, fragments_text: str, files: Mapping[str, bytes], *, score: bool = True
) -> bytes:
    """The zip build.py writes for ``kind`` (site: the plain site, dist/, zipped; scorm:
    dist-scorm.zip; cmi5: dist-cmi5.zip) around this store; Refused with every problem
    when the store cannot be built. ``fragments_text`` is the page's renderer's answer to
    ``prepare(store_text).prerender_request()``."""
    if kind not in KINDS:
        raise ValueError(f"no package of kind {kind!r}: one of {', '.join(KINDS)}")
    prepared = prepare(store_text)
    site = make_site(prepared, fragments_text, files, score=score, cmi5=kind == "cmi5")
    return zip_bytes(package_members(kind, prepared, site, score=score))
