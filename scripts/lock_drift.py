"""Print how the running environment differs from requirements.lock (make test-latest).

Usage: python scripts/lock_drift.py [requirements.lock]. Only reports: the
newest versions are expected to differ; the point is to see which ones do
before a `make lock` or a user's fresh install does.
"""

from __future__ import annotations

import re
import sys
from importlib import metadata
from pathlib import Path

from packaging.markers import Marker
from packaging.utils import canonicalize_name

PIN = re.compile(r"^([A-Za-z0-9._-]+)==([^\s;\\]+)\s*(?:;\s*([^\\]+?))?\s*\\?$")


def locked(path: Path) -> dict[str, str]:
    """name -> version of the pins in the lock that apply to this interpreter."""
    pins = {}
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line or line[0] in "# ":
            continue
        match = PIN.match(line)
        if not match:
            sys.exit(f"{path}:{lineno}: not a 'name==version' pin: {line!r}")
        name, version, marker = match.groups()
        if marker is None or Marker(marker).evaluate():
            pins[canonicalize_name(name)] = version
    return pins


def main() -> int:
    path = Path(sys.argv[1] if len(sys.argv) > 1 else "requirements.lock")
    pins = locked(path)
    installed = {
        canonicalize_name(dist.metadata["Name"]): dist.version for dist in metadata.distributions()
    }
    drift = [
        f"  {name}: locked {pins[name]}, installed {installed.get(name, '(none)')}"
        for name in sorted(pins)
        if installed.get(name) != pins[name]
    ]
    extra = sorted(set(installed) - set(pins) - {"vppcfg"})
    print(f"lock drift against {path}: {len(drift)} of {len(pins)} pins differ")
    for line in drift:
        print(line)
    if extra:
        print("  installed but not in the lock: " + ", ".join(extra))
    return 0


if __name__ == "__main__":
    sys.exit(main())
