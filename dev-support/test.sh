#!/usr/bin/env bash
# The test command: installs what the build needs (when it can) and runs the whole suite with `mvn -B verify`.
# Extra arguments go to Maven, e.g. dev-support/test.sh -Dhadoop.version=3.4.3
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"

# Intel ISA-L headers and library (Debian libisal-dev) for the native coder.
if [ ! -f /usr/include/isa-l.h ] && [ ! -f /usr/include/isa-l/erasure_code.h ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "test.sh: installing libisal-dev" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q libisal-dev >/dev/null 2>&1 \
      || (apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q libisal-dev >/dev/null) \
      || echo "test.sh: could not install libisal-dev; native coder tests will be skipped in favour of the Java coder" >&2
  else
    echo "test.sh: ISA-L headers not found and not root: run 'sudo apt-get install libisal-dev' for the native coder" >&2
  fi
fi

command -v mvn >/dev/null || { echo "test.sh: Maven is required (apt-get install maven)" >&2; exit 1; }
exec mvn -B -Dstyle.color=never verify "$@"
