"""vppcfg: a declarative configurator for the FD.io VPP dataplane."""

__version__ = "0.1.0"
