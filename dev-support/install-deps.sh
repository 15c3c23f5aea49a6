#!/usr/bin/env bash
# Installs the OS packages the build uses: Intel ISA-L (Debian libisal-dev) for the native coder.
# As root (CI, containers) it must succeed: when it cannot install ISA-L it says why and exits 1, because the
# native tests would otherwise run without the coder they check. Without root it says what to run and exits 0;
# the build then falls back to the pure-Java coder and the native tests are skipped (wide-ec.test.native=auto).
set -uo pipefail
header=/usr/include/isa-l/erasure_code.h
if [ -f "$header" ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "install-deps: ISA-L headers not found; run 'sudo apt-get install libisal-dev' for the native coder" \
       "(the Java coder is used meanwhile)" >&2
  exit 0
fi
if ! command -v apt-get >/dev/null; then
  echo "install-deps: FAILED: running as root but apt-get is missing, so libisal-dev (ISA-L) cannot be" \
       "installed; install ISA-L's headers ($header) by other means" >&2
  exit 1
fi
echo "install-deps: installing libisal-dev (ISA-L) for the native coder" >&2
export DEBIAN_FRONTEND=noninteractive
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! apt-get install -y -q libisal-dev >"$log" 2>&1; then
  apt-get update -q >>"$log" 2>&1 && apt-get install -y -q libisal-dev >>"$log" 2>&1
fi
if [ ! -f "$header" ]; then
  echo "install-deps: FAILED: could not install libisal-dev (ISA-L) as root; apt-get said:" >&2
  tail -n 15 "$log" >&2
  exit 1
fi
