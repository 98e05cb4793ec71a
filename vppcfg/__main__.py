import sys

from vppcfg.cli import main

sys.exit(main())
