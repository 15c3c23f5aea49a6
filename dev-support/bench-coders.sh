#!/usr/bin/env bash
# Coder benchmarks: JMH (ours on ISA-L, ours in Java, Hadoop's Java RS) plus raw ISA-L in C on the same
# matrices. Writes its full section into benchmarks/HISTORY.md and prints, last, one JSON line with the target ratios.
# --quick: the same summary from a shorter run (about 3 minutes on 2 cores).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
mvn -B -q -Dstyle.color=never -DskipTests package >&2
cp="benchmarks/target/classes:hadoop-wide-ec/target/classes:wide-ec-model/target/classes:$(cat benchmarks/target/classpath.txt)"
exec java --add-modules=jdk.incubator.vector -Xmx2g -Djava.library.path="$here/native/build" \
  -Dlog4j.configuration="file:$here/conf/log4j-cli.properties" -cp "$cp" org.wideec.bench.BenchCoders \
  --command "dev-support/bench-coders.sh $*" "$@"
