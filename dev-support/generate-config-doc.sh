#!/usr/bin/env bash
# Development only: regenerates docs/configuration.md from the configuration catalogue
# (hadoop-wide-ec/src/main/java/org/wideec/config/ConfigCatalogue.java). `--check` only verifies that the
# checked-in file is what the catalogue renders (ConfigCatalogueTest checks the same).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
mvn -B -q -Dstyle.color=never -pl hadoop-wide-ec -am -DskipTests test-compile
module="$here/hadoop-wide-ec"
exec java -cp "$module/target/classes:$module/target/test-classes" org.wideec.config.ConfigDocGenerator "$here" "$@"
