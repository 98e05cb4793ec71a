"""trex-loadtest: drive a T-Rex traffic generator through a device under test."""

from vppcfg import _vendor  # noqa: F401  (side effect: the .deb's private deps)
