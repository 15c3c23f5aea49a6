#!/usr/bin/env bash
# Builds the operator's distribution: target/hadoop-wide-ec-<version>-bin.tar.gz with
#   share/wide-ec/      the product jar, plus what it needs at run time that Hadoop does not ship (JFreeChart, JFreeSVG)
#   lib/native/         libwideec.so (the ISA-L coder; needs libisal2 on every node)
#   conf/               the policies file and the hdfs-site snippet, every key documented
#   bin/wide-ec         the command (runs through `hadoop jar`, with the cluster's configuration)
#   INSTALL.md          docs/install.md: where each file goes, prerequisites, restart order, rollback
# The test kit (demo, bench, embedded clusters) is never shipped.
# Usage: dev-support/dist.sh [extra Maven arguments, e.g. -Dhadoop.version=3.4.3]
#        dev-support/dist.sh --stage DIR   lays the same files out, unpacked, in DIR from what the last Maven build
#                                          made (no build; the installed-layout test in the test kit uses it)
#        dev-support/dist.sh --pack DIR    the tarball, into DIR, from what the last Maven build made (no build; the
#                                          real-process cluster test installs from it, as an operator would)
set -euo pipefail
shopt -s inherit_errexit # stage_layout runs in $(...): a failed copy there must still stop the build
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"

# The unpacked distribution in $1, from the built product jar and native library.
stage_layout() {
  local root="$1" version jar
  [ -f hadoop-wide-ec/target/classes/org/wideec/version.properties ] \
    || { echo "dist: hadoop-wide-ec is not built (mvn package -pl hadoop-wide-ec -am)" >&2; return 1; }
  version="$(sed -n 's/^version=//p' hadoop-wide-ec/target/classes/org/wideec/version.properties)"
  jar="hadoop-wide-ec/target/hadoop-wide-ec-$version.jar"
  [ -f "$jar" ] || { echo "dist: $jar was not built" >&2; return 1; }
  [ -f native/build/libwideec.so ] || { echo "dist: native/build/libwideec.so was not built: install libisal-dev (dev-support/install-deps.sh as root) and run again" >&2; return 1; }
  local entries
  entries="$(jar tf "$jar")"
  if grep -qE '^org/wideec/(demo|minicluster)/' <<<"$entries"; then
    echo "dist: $jar holds test-kit classes (org/wideec/demo or org/wideec/minicluster); they belong in hadoop-wide-ec-testkit" >&2
    return 1
  fi
  # The product jar folds in the model (with the native library and the code format) and the wire (shade).
  local needed
  for needed in org/wideec/gf/Gf256.class org/wideec/code/format-1.coefficients native/linux-x86_64/libwideec.so \
      org/wideec/transport/SliceTransport.class org/wideec/engine/StepService.class; do
    grep -qx "$needed" <<<"$entries" || { echo "dist: $jar lacks $needed (the model and the wire are folded in by the shade plugin)" >&2; return 1; }
  done
  mkdir -p "$root/share/wide-ec" "$root/lib/native" "$root/conf" "$root/bin"
  cp "$jar" "$root/share/wide-ec/"
  # Run-time dependencies Hadoop does not provide: only the charting libraries (everything else is Hadoop's own).
  tr ':' '\n' < hadoop-wide-ec/target/classpath.txt | grep -E '/org/jfree/' | while read -r dep; do cp "$dep" "$root/share/wide-ec/"; done
  cp native/build/libwideec.so "$root/lib/native/"
  cp conf/wide-ec-policies.xml conf/hdfs-site-wide-ec.xml "$root/conf/"
  cp bin/wide-ec "$root/bin/"
  cp docs/install.md "$root/INSTALL.md"
  echo "$version"
}

if [ "${1:-}" = "--stage" ]; then
  [ $# -eq 2 ] || { echo "usage: dev-support/dist.sh --stage DIR" >&2; exit 2; }
  stage_layout "$2" >/dev/null
  echo "dist: staged the distribution in $2"
  exit 0
fi

# The tarball of the layout in $1 (stage_layout's), named after $2 (its version), into directory $3.
pack() {
  local layout="$1" version="$2" out="$3" name="hadoop-wide-ec-$2"
  mv "$layout" "$(dirname "$layout")/$name"
  mkdir -p "$out"
  tar -C "$(dirname "$layout")" -czf "$out/$name-bin.tar.gz" "$name"
  echo "dist: built $out/$name-bin.tar.gz"
}

if [ "${1:-}" = "--pack" ]; then
  [ $# -eq 2 ] || { echo "usage: dev-support/dist.sh --pack DIR" >&2; exit 2; }
  stage="$(mktemp -d)"
  trap 'rm -rf "$stage"' EXIT
  pack "$stage/layout" "$(stage_layout "$stage/layout")" "$2"
  exit 0
fi

command -v mvn >/dev/null || { echo "dist: Maven (mvn) is needed (apt-get install maven)" >&2; exit 1; }
mvn -B -q -Dstyle.color=never -DskipTests package -pl hadoop-wide-ec -am "$@"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
pack "$stage/layout" "$(stage_layout "$stage/layout")" target
