"""pyproject.toml declares compatible ranges; constraints.txt pins what CI tests, inside them."""

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).parents[2]
# >=x.y,<next major (a CalVer year for dask; 1 for 0.x packages)
RANGE = re.compile(r">=(\d+)\.(\d+),<(\d+)")


def declared() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    groups = [project["dependencies"], *project["optional-dependencies"].values()]
    return [Requirement(text) for group in groups for text in group]


def pins() -> dict[str, Version]:
    lines = (ROOT / "constraints.txt").read_text().splitlines()
    pinned = {}
    for line in lines:
        if line and not line.startswith("#"):
            requirement = Requirement(line)
            (specifier,) = requirement.specifier
            assert specifier.operator == "==", line
            pinned[canonicalize_name(requirement.name)] = Version(specifier.version)
    return pinned


def test_dependencies_are_compatible_ranges():
    for requirement in declared():
        specifier = ",".join(sorted((str(s) for s in requirement.specifier), reverse=True))
        match = RANGE.fullmatch(specifier)
        assert match, f"{requirement}: expected >=x.y,<next major"
        major, _, upper = map(int, match.groups())
        assert upper == major + 1 or (major == 0 and upper == 1), requirement


def test_every_dependency_is_pinned_inside_its_range():
    pinned = pins()
    names = {canonicalize_name(r.name) for r in declared()}
    assert names == set(pinned)
    for requirement in declared():
        version = pinned[canonicalize_name(requirement.name)]
        assert requirement.specifier.contains(version), f"{requirement} excludes {version}"


def test_the_test_script_installs_with_the_constraints():
    script = (ROOT / "scripts" / "test.sh").read_text()
    assert "pip install --quiet --disable-pip-version-check -c constraints.txt '.[test]'" in script
