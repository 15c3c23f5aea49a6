#!/usr/bin/env bash
# Installs the OS packages the build uses, when it can: Intel ISA-L (Debian libisal-dev) for the native
# coder. Without root it says what to run; the build then falls back to the pure-Java coder.
set -uo pipefail
if [ -f /usr/include/isa-l/erasure_code.h ]; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "install-deps: installing libisal-dev (ISA-L) for the native coder" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q libisal-dev >/dev/null 2>&1 \
    || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q libisal-dev >/dev/null 2>&1; } \
    || echo "install-deps: could not install libisal-dev; the Java coder will be used" >&2
else
  echo "install-deps: ISA-L headers not found; run 'sudo apt-get install libisal-dev' for the native coder" \
       "(the Java coder is used meanwhile)" >&2
fi
exit 0
