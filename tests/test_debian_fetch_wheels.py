"""debian/fetch-wheels: the .deb's vendored packages come from requirements.lock, with hashes.

The download itself runs in CI (scripts/check-deb.sh, scripts/ci-debian13.sh); here the
picking: every vendored name is found in the real lock with its sha256 hashes, and a lock
that lacks a name or a hash stops the build with a message naming both.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import shutil
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load(path: Path) -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("fetch_wheels", str(path))
    spec = importlib.util.spec_from_loader("fetch_wheels", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def _vendored_names() -> list[str]:
    text = (ROOT / "debian/vendor-requirements.txt").read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and line[0] != "#"]


def test_every_vendored_package_is_locked_with_hashes():
    fetch = _load(ROOT / "debian/fetch-wheels")
    entries = fetch.lock_entries(ROOT / "requirements.lock")
    names = _vendored_names()
    assert "lbr-trex-client" in names  # a package user can loadtest
    for name in names:
        entry = entries[fetch.normalize(name)]
        assert "==" in entry
        hashes = [word for word in entry.split() if word.startswith("--hash=sha256:")]
        assert hashes, entry
        assert all(len(h.split(":", 1)[1]) == 64 for h in hashes), entry


def _copy_tool(tmp_path: Path, lock_text: str) -> Path:
    debian = tmp_path / "debian"
    debian.mkdir()
    shutil.copy(ROOT / "debian/fetch-wheels", debian / "fetch-wheels")
    shutil.copy(ROOT / "debian/vendor-requirements.txt", debian / "vendor-requirements.txt")
    (tmp_path / "requirements.lock").write_text(lock_text, encoding="utf-8")
    return debian / "fetch-wheels"


def _lock_without(name: str) -> str:
    """The real lock with `name`'s entry (and its continuation lines) dropped."""
    kept, skipping = [], False
    for line in (ROOT / "requirements.lock").read_text(encoding="utf-8").splitlines():
        if not line.startswith((" ", "#")):
            skipping = line.lower().startswith(name + "==")
        if not skipping:
            kept.append(line)
    return "\n".join(kept) + "\n"


def test_a_name_missing_from_the_lock_is_refused_naming_it(tmp_path, capsys):
    tool = _copy_tool(tmp_path, _lock_without("lbr-trex-client"))
    assert _load(tool).main() == 1
    err = capsys.readouterr().err
    assert "lbr-trex-client" in err and "requirements.lock" in err
    assert not (tmp_path / "debian/wheels/requirements.txt").exists()


def test_an_entry_without_hash_is_refused(tmp_path, capsys):
    lock = _lock_without("yamale") + "yamale==6.1.0\n"
    tool = _copy_tool(tmp_path, lock)
    assert _load(tool).main() == 1
    assert "yamale has no --hash" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["MLRsearch", "mlrsearch", "vpp_papi", "Vpp.Papi"])
def test_names_match_as_pip_normalizes_them(name):
    fetch = _load(ROOT / "debian/fetch-wheels")
    entries = fetch.lock_entries(ROOT / "requirements.lock")
    assert fetch.normalize(name) in entries
