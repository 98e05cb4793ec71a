"""Packaging for vppcfg: the VPP dataplane configurator and the T-Rex loadtest harness."""

from pathlib import Path

from setuptools import find_packages, setup

VERSION = "0.1.0"
COMMANDS = ("vppcfg", "vppcfg-sim", "trex-loadtest", "trex-emu")

setup(
    name="vppcfg",
    version=VERSION,
    description="Declarative VPP dataplane configurator and T-Rex loadtest harness",
    long_description=Path("README.md").read_text(encoding="utf-8"),
    long_description_content_type="text/markdown",
    license="Apache-2.0",
    # Tested on 3.11, 3.12 and 3.13 (the T-Rex client through loadtest.trex_compat);
    # pip refuses other versions with this range in its message.
    python_requires=">=3.11,<3.14",
    packages=[
        *find_packages(include=["vppcfg", "vppcfg.*", "loadtest", "loadtest.*"]),
        "vppcfg.schema",
    ],
    package_dir={"vppcfg.schema": "schema"},
    package_data={
        "vppcfg.schema": ["*.yaml"],
        "vppcfg": ["templates/*.j2", "sim/api/*/*/*.json", "sim/*.yaml"],
        "loadtest": ["templates/*.j2", "profiles/*.py", "profiles/*.yaml"],
    },
    install_requires=[
        "PyYAML~=6.0",
        "yamale~=6.1",
        "vpp-papi~=2.4.2",
        "Jinja2~=3.1",
        "pyzmq~=27.0",
        "MLRsearch~=1.2.1",
        # the Linux side of lcp pairs, through netlink (Debian 12 ships 0.7.2)
        "pyroute2>=0.7.2,<0.10",
    ],
    extras_require={
        # The T-Rex stateless client; on Python 3.12+ loadtest.trex_compat supplies
        # what it imports from the standard library of old.
        "trex": ["lbr-trex-client==3.4.0"],
        # The Ansible collection in ansible/ and its tests (2.19: Python 3.11-3.13).
        "ansible": ["ansible-core~=2.19.14"],
        "test": [
            "pytest~=9.2",
            "hypothesis~=6.170",
            "ruff~=0.17.5",
            "lbr-trex-client==3.4.0",
            "jsonschema~=4.26.0",
            "ansible-core~=2.19.14",
        ],
    },
    # Man pages and shell completions, generated from the argument parsers by
    # `python -m vppcfg.docgen` (tests/test_docs_sync.py keeps them current).
    data_files=[
        ("share/man/man1", [f"docs/man/{name}.1" for name in COMMANDS]),
        ("share/bash-completion/completions", [f"contrib/completion/bash/{name}"
                                               for name in COMMANDS]),
        ("share/zsh/site-functions", ["contrib/completion/zsh/_vppcfg"]),
    ],
    entry_points={
        "console_scripts": [
            "vppcfg=vppcfg.cli:main",
            "vppcfg-sim=vppcfg.sim.__main__:main",
            "trex-loadtest=loadtest.cli:main",
            "trex-emu=loadtest.emu.__main__:main",
        ]
    },
)
