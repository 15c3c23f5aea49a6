#!/usr/bin/env bash
# Development only, never on a cluster: regenerates the pinned coefficient table of the on-disk format
# (wide-ec-model/src/main/resources/org/wideec/code/format-N.coefficients) and its golden vectors
# (wide-ec-model/src/test/resources/org/wideec/golden/) from the code constructions, searches included.
# It refuses to change or drop a code the current format version already pins; new coefficients need a new
# CodeFormat.FORMAT_VERSION or codec name. `--check` only verifies that the checked-in files are what the
# constructions produce. Takes about a minute and a half on one core.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
mvn -B -q -Dstyle.color=never -pl wide-ec-model -am -DskipTests test-compile
module="$here/wide-ec-model"
cp="$module/target/classes:$module/target/test-classes:$(cat "$module/target/classpath.txt")"
exec java --add-modules=jdk.incubator.vector -cp "$cp" org.wideec.code.FormatGenerator "$module" "$@"
