"""Make the Debian package's private copies of non-Debian dependencies importable.

The .deb carries yamale, MLRsearch and vpp_papi under /usr/lib/vppcfg/vendor
(Debian 12 does not package them). The directory goes at the END of sys.path,
so a system copy (e.g. FD.io's python3-vpp-api) or a virtualenv's wins.
"""

import os
import sys

VENDOR_DIR = "/usr/lib/vppcfg/vendor"

if os.path.isdir(VENDOR_DIR) and VENDOR_DIR not in sys.path:
    sys.path.append(VENDOR_DIR)
