"""Where build.py writes the course packages for an LMS: SCORM 1.2 (imsmanifest.xml) and cmi5
(cmi5.xml). What they hold is made by sitebuild/assemble.py, the path the page's own
downloads take too."""

from __future__ import annotations

from pathlib import Path


def scorm_package_path(out: Path) -> Path:
    return out.parent / f"{out.name}-scorm.zip"


def cmi5_package_path(out: Path) -> Path:
    return out.parent / f"{out.name}-cmi5.zip"
