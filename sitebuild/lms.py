"""The course packages for an LMS: SCORM 1.2 (imsmanifest.xml) and cmi5 (cmi5.xml), each a
reproducible zip of the built site; and the cmi5 library a --cmi5 site serves."""

from __future__ import annotations

import shutil
import uuid
import zipfile
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from .files import BuildError, rel, site_files
from .paths import CMI5_PACKAGE


def scorm_package_path(out: Path) -> Path:
    return out.parent / f"{out.name}-scorm.zip"


def write_scorm_package(out: Path, title: str, build_id: str) -> Path:
    """Zip the site with an imsmanifest.xml that lists every file, for an LMS to import.

    The page finds the LMS's SCORM 1.2 API itself (site/js/lms/scorm.js); this only
    describes the package: one SCO launched at index.html.
    """
    files = sorted(rel(p, out) for p in site_files(out))
    name = escape(title)
    manifest = "\n".join(
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
    package = scorm_package_path(out)
    write_zip(package, [("imsmanifest.xml", manifest.encode()), *[(f, (out / f).read_bytes()) for f in files]])
    return package


def copy_cmi5_library(vendor: Path, licenses: Path) -> Path:
    """@xapi/cmi5's browser module (one file, its dependencies bundled) and its licence."""
    module = CMI5_PACKAGE / "dist" / "Cmi5.esm.js"
    if not module.exists():
        raise BuildError("node_modules/@xapi/cmi5 is missing: run `npm ci` first")
    vendor.mkdir(parents=True, exist_ok=True)
    target = vendor / "cmi5.js"
    shutil.copyfile(module, target)
    licenses.mkdir(exist_ok=True)
    shutil.copyfile(CMI5_PACKAGE / "LICENSE.md", licenses / "xapi-cmi5.txt")
    return target


def cmi5_package_path(out: Path) -> Path:
    return out.parent / f"{out.name}-cmi5.zip"


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


def write_cmi5_package(out: Path, store: Any, *, score: bool) -> Path:
    """Zip cmi5.xml at the root beside the site, for an LMS to import."""
    files = sorted(rel(p, out) for p in site_files(out))
    package = cmi5_package_path(out)
    members = [
        ("cmi5.xml", cmi5_course_structure(store, score=score).encode()),
        *[(f, (out / f).read_bytes()) for f in files],
    ]
    write_zip(package, members)
    return package


def write_zip(package: Path, members: list[tuple[str, bytes]]) -> None:
    """A reproducible zip: fixed dates and modes."""
    with zipfile.ZipFile(package, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, data in members:
            info = zipfile.ZipInfo(member, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
