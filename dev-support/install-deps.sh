#!/usr/bin/env bash
# Installs the OS packages the build and the suite use:
#   libisal-dev          Intel ISA-L, for the native coder (its headers: /usr/include/isa-l/erasure_code.h)
#   iproute2, ethtool    the real-cluster smoke test's network namespaces, links and shaping (dev-support/cluster.sh)
#   curl, util-linux     the same script's NameNode JMX queries and per-node host names (unshare)
# As root (CI, containers) it must succeed: when it cannot install a package it says which and why and exits 1, so
# no test runs without what it checks. Without root it says what to run and exits 0: the build then falls back to the
# pure-Java coder (the native tests are skipped, wide-ec.test.native=auto), and the real-cluster smoke test fails,
# saying it needs root.
set -uo pipefail
header=/usr/include/isa-l/erasure_code.h
# The Debian packages whose files are not there yet, one per line.
missing_packages() {
  [ -f "$header" ] || echo libisal-dev
  command -v ip >/dev/null && command -v tc >/dev/null || echo iproute2
  command -v ethtool >/dev/null || echo ethtool
  command -v curl >/dev/null || echo curl
  command -v unshare >/dev/null || echo util-linux
}
mapfile -t missing < <(missing_packages)
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "install-deps: missing ${missing[*]}; run 'sudo apt-get install ${missing[*]}' (without ISA-L the Java coder" \
       "is used; the real-cluster smoke test needs root and these tools)" >&2
  exit 0
fi
if ! command -v apt-get >/dev/null; then
  echo "install-deps: FAILED: running as root but apt-get is missing, so ${missing[*]} cannot be installed;" \
       "install them by other means" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! apt-get install -y -q "${missing[@]}" >"$log" 2>&1; then
  apt-get update -q >>"$log" 2>&1 && apt-get install -y -q "${missing[@]}" >>"$log" 2>&1
fi
mapfile -t still < <(missing_packages)
if [ ${#still[@]} -gt 0 ]; then
  echo "install-deps: FAILED: could not install ${still[*]} as root; apt-get said:" >&2
  tail -n 15 "$log" >&2
  exit 1
fi
