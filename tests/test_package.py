"""The LMS packages' manifests against the official schemas (SCORM 1.2's, as ADL distributes
them, and cmi5's CourseStructure.xsd, vendored in tests/schemas/ with their licences), and
the one path's zips: reproducible, and refused stores refused with build.py's lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from lxml import etree

from harness import ROOT
from harness.fixtures import FIXTURES, SUPPORT_STORE, load_json
from sitebuild import assemble
from sitebuild.files import BuildError
from sitebuild.store import load_store

SCHEMAS = ROOT / "tests" / "schemas"
# Two namespaces, one document: the manifest's elements are IMS CP's, its scormtype ADL's.
SCORM_DRIVER = """<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema">
<xsd:import namespace="http://www.imsproject.org/xsd/imscp_rootv1p1p2" schemaLocation="{cp}"/>
<xsd:import namespace="http://www.adlnet.org/xsd/adlcp_rootv1p2" schemaLocation="{adlcp}"/>
</xsd:schema>"""
TITLES = ['Week 3 <b>"memory"</b> & recall', "Ünïcode — ‘quotes’"]


@pytest.fixture(scope="module")
def scorm_schema() -> etree.XMLSchema:
    folder = SCHEMAS / "scorm12"
    driver = SCORM_DRIVER.format(
        cp=(folder / "imscp_rootv1p1p2.xsd").as_uri(), adlcp=(folder / "adlcp_rootv1p2.xsd").as_uri()
    )
    return etree.XMLSchema(etree.fromstring(driver.encode()))


@pytest.fixture(scope="module")
def cmi5_schema() -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(SCHEMAS / "cmi5" / "CourseStructure.xsd")))


def stores() -> list[Any]:
    default = load_json(FIXTURES / "store.json")
    return [default, load_json(SUPPORT_STORE), *({**default, "title": title} for title in TITLES)]


def test_scorm_manifests_validate_against_the_scorm_1_2_schemas(scorm_schema: etree.XMLSchema) -> None:
    """imsmanifest.xml for both fixture stores and titles with markup and non-ASCII text, with files whose
    names need escaping, is valid under IMS CP 1.1.2 with ADL's SCORM 1.2 extension; one it must refuse is refused."""
    files = ["index.html", "js/main.js", "a&b.txt", "licenses/zstddec.txt"]
    for store in stores():
        manifest = assemble.scorm_manifest(files, store["title"], "0123456789abcdef").encode()
        assert scorm_schema.validate(etree.fromstring(manifest)), (store["title"], scorm_schema.error_log)
    wrong = assemble.scorm_manifest(files, "t", "0123456789abcdef").replace('scormtype="sco"', 'scormtype="page"')
    assert not scorm_schema.validate(etree.fromstring(wrong.encode()))


def test_cmi5_course_structures_validate_against_the_cmi5_schema(cmi5_schema: etree.XMLSchema) -> None:
    """cmi5.xml, scored or not, for the same stores, is valid under cmi5's CourseStructure.xsd; one with its
    AU's url before its description is refused."""
    for store in stores():
        for score in (True, False):
            structure = assemble.cmi5_course_structure(store, score=score).encode()
            assert cmi5_schema.validate(etree.fromstring(structure)), (store["title"], cmi5_schema.error_log)
    lines = assemble.cmi5_course_structure(stores()[0], score=True).splitlines()
    url = next(i for i, line in enumerate(lines) if "<url>" in line)
    lines[url - 1], lines[url] = lines[url], lines[url - 1]
    assert not cmi5_schema.validate(etree.fromstring("\n".join(lines).encode()))


def test_the_schemas_travel_with_their_licences() -> None:
    assert "Apache License" in (SCHEMAS / "cmi5" / "LICENSE").read_text(encoding="utf-8")
    readme = (SCHEMAS / "README.md").read_text(encoding="utf-8")
    assert "IMS Global Learning Consortium" in readme and "AICC/CMI-5_Spec_Current" in readme


def test_zips_are_reproducible() -> None:
    """Fixed dates, modes and order: the same members give the same bytes, and the zip lists them as given."""
    members = [("b.txt", b"two" * 100), ("a/one.txt", b"one")]
    made = assemble.zip_bytes(members)
    assert made == assemble.zip_bytes(list(members))
    import io
    import zipfile

    with zipfile.ZipFile(io.BytesIO(made)) as archive:
        infos = archive.infolist()
    assert [i.filename for i in infos] == ["b.txt", "a/one.txt"]
    assert {(i.date_time, i.external_attr >> 16, i.create_system, i.compress_type) for i in infos} == {
        ((1980, 1, 1, 0, 0, 0), 0o644, 3, zipfile.ZIP_DEFLATED)
    }


def test_the_packaging_refuses_what_build_py_refuses_with_the_same_lines(tmp_path: Path) -> None:
    """A malformed store and text that is not JSON: check() (what the page asks first) lists exactly the lines
    build.py prints after its first, and prepare() refuses them too; a good store passes with a prerender request."""
    bad = tmp_path / "bad.json"
    for text in (json.dumps({"schema": 2, "title": "", "tenants": []}), "{not json"):
        bad.write_text(text, encoding="utf-8")
        with pytest.raises(BuildError) as refused:
            load_store(bad)
        printed = [line.strip() for line in str(refused.value).splitlines()[1:]]
        assert json.loads(assemble.check(text)) == {"problems": printed}
        with pytest.raises(assemble.Refused):
            assemble.prepare(text)
    good = (FIXTURES / "store.json").read_text(encoding="utf-8")
    request = json.loads(json.loads(assemble.check(good))["request"])
    assert request["store"] == json.loads(good) and request["result"]["policy"]["question"]


def test_the_boot_block_gives_back_the_store_file_objects() -> None:
    """The page packages its own store from its boot block: what that parses to equals the store file, floats kept."""
    store = load_json(FIXTURES / "store.json")
    store["records"][0]["age_hours"] = 3.0
    boot = json.dumps({"store": store, "result": {}}, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    again = json.loads(assemble.store_from_boot(boot))
    assert again == store and isinstance(again["records"][0]["age_hours"], float)
