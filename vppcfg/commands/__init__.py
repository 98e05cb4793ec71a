"""Sub-commands of the `vppcfg` CLI; see vppcfg.cli."""
