"""Let the T-Rex stateless client run on Python 3.12 and 3.13.

The client on PyPI (lbr-trex-client 3.4.0) and T-Rex's own client both carry
code written for older Pythons, and T-Rex's profile files import it as is.
Three things they use are gone:

* `imp` (removed in 3.12): `trex.stl.trex_stl_streams` imports it for
  `imp.reload` only, so a stand-in module with `reload` is enough;
* `cgi` (removed in 3.13): the bundled scapy 2.4.3's `themes.py` imports it
  and calls `cgi.escape` in one HTML prompt;
* the finder/loader protocol of `find_module`/`load_module`: the bundled
  six 1.10.0 serves `scapy.modules.six.moves` through a meta-path importer
  with only that protocol, which 3.12 no longer calls (the import then fails
  with "No module named 'scapy.modules.six.moves'"). An adapter finder asks
  such old-style importers and wraps what they return in a module spec.

`install()` must run before the client is imported. It only adds what this
interpreter lacks, so on 3.11 it changes nothing, and it never replaces a
module that exists (a client path that brings its own `imp` keeps it).
"""

from __future__ import annotations

import html
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any


def _missing(name: str) -> bool:
    """True when `import name` would fail (and no stand-in was put in place)."""
    if name in sys.modules:
        return False
    try:
        return importlib.util.find_spec(name) is None
    except (ImportError, ValueError):
        return True


def _stand_in(name: str, doc: str, **attrs: Any) -> ModuleType:
    module = ModuleType(name, doc)
    module.__dict__.update(attrs)
    sys.modules[name] = module
    return module


def _cgi_escape(text: str, quote: bool = False) -> str:
    # cgi.escape's contract: &, < and > always; the double quote only when asked
    # (html.escape would also turn ' into &#x27;, which cgi.escape never did).
    out = html.escape(text, quote=False)
    return out.replace('"', "&quot;") if quote else out


class _LegacyLoader(importlib.abc.Loader):
    """Runs an old-style `load_module` loader under the spec protocol."""

    def __init__(self, legacy: Any) -> None:
        self.legacy = legacy
        self.spec_before: Any = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        # load_module builds (or finds) the module and puts it in sys.modules itself
        module = self.legacy.load_module(spec.name)
        self.spec_before = getattr(module, "__spec__", None)
        return module

    def exec_module(self, module: ModuleType) -> None:
        # Nothing to run, but the import system has just set __spec__ to ours: six
        # hands out real modules (`moves.queue` is `queue`), whose own spec must stay.
        if self.spec_before is not None:
            module.__spec__ = self.spec_before


class LegacyFinderAdapter(importlib.abc.MetaPathFinder):
    """Asks meta-path entries that only have `find_module` (pre-3.4 protocol)."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        for finder in list(sys.meta_path):
            if hasattr(finder, "find_spec") or not hasattr(finder, "find_module"):
                continue  # the import system asks these itself
            loader = finder.find_module(fullname, path)
            if loader is None:
                continue
            is_package = getattr(loader, "is_package", None)
            package = bool(is_package(fullname)) if is_package else False
            return importlib.util.spec_from_loader(
                fullname, _LegacyLoader(loader), is_package=package
            )
        return None


def _load_source(name: str, path: str) -> ModuleType:
    """imp.load_source: a module from a source file, kept in sys.modules (the client's
    console plugins and EMU client load files this way)."""
    loader = importlib.machinery.SourceFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    if spec is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module


def install() -> list[str]:
    """Add what the T-Rex client needs and this Python lacks; return what was added."""
    added = []
    if _missing("imp"):
        _stand_in("imp", "imp.reload and imp.load_source for the T-Rex client "
                  "(vppcfg's loadtest.trex_compat)",
                  reload=importlib.reload, load_source=_load_source)
        added.append("imp")
    if _missing("cgi"):
        _stand_in("cgi", "cgi.escape for scapy 2.4.3 (vppcfg's loadtest.trex_compat)",
                  escape=_cgi_escape)
        added.append("cgi")
    if sys.version_info >= (3, 12) and not any(
        isinstance(f, LegacyFinderAdapter) for f in sys.meta_path
    ):
        sys.meta_path.append(LegacyFinderAdapter())
        added.append("legacy meta-path finders")
    return added
