#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages the project needs (apt-get, as root).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
ensure_deps
log "all needed Debian packages are installed"
