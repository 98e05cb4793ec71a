"""vppcfg: a declarative configurator for the FD.io VPP dataplane."""

from vppcfg import _vendor  # noqa: F401  (side effect: the .deb's private deps)

__version__ = "0.1.0"
