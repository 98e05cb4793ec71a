"""Where apply keeps its run-time files (a module of its own so that the CLI
can show the defaults without importing the lock and commit-confirm code)."""

DEFAULT_LOCK_FILE = "/run/vppcfg/apply.lock"
DEFAULT_STATE_DIR = "/run/vppcfg"
