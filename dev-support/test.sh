#!/usr/bin/env bash
# The test command: installs what the build needs (when it can) and runs the whole suite with `mvn -B verify`.
# Extra arguments go to Maven, e.g. dev-support/test.sh -Dhadoop.version=3.4.3
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"

"$here/dev-support/install-deps.sh"

command -v mvn >/dev/null || { echo "test.sh: Maven is required (apt-get install maven)" >&2; exit 1; }
exec mvn -B -Dstyle.color=never verify "$@"
