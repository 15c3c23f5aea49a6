#!/usr/bin/env bash
# Development only: prints the package map of docs/architecture.md, read from the sources' imports and
# fully-qualified names (comments skipped): per package its files, lines, layer (DESIGN.md §4: model <- wire <- hdfs
# <- cli), whether it names Hadoop or Netty, the packages of ours it uses, and every arrow that points up a layer or
# out of the model. Paste its output over the table in docs/architecture.md after code moves.
# Usage: dev-support/package-map.sh [SOURCE_ROOT...]   (default: every product module's src/main/java)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ $# -gt 0 ]; then roots=("$@"); else roots=("$here/wide-ec-model/src/main/java" "$here/wide-ec-wire/src/main/java" "$here/hadoop-wide-ec/src/main/java"); fi

# The layer each package belongs to once the code is where DESIGN.md §4 puts it. Edit here when a package moves.
layer_of() {
  case "$1" in
    org.wideec.gf|org.wideec.code|org.wideec.coder|org.wideec.topology|org.wideec.analysis|org.wideec.placement|\
    org.wideec.archive|org.wideec.archive.encode|org.wideec.repair|org.wideec.time) echo model ;;
    org.wideec.transport|org.wideec.protocol|org.wideec.engine) echo wire ;;
    org.wideec.cli) echo cli ;;
    *) echo hdfs ;;
  esac
}
rank() { case "$1" in model) echo 0 ;; wire) echo 1 ;; hdfs) echo 2 ;; cli) echo 3 ;; esac; }

echo "| package | files | lines | layer | Hadoop | Netty | uses (ours) | arrows against the rule |"
echo "|---|---|---|---|---|---|---|---|"
for root in "${roots[@]}"; do find "$root" -name '*.java' -printf "%h\t$root\n"; done | sort -u | while IFS=$'\t' read -r dir root; do
  pkg="$(realpath --relative-to="$root" "$dir" | tr / .)"
  files=("$dir"/*.java)
  lines="$(cat "${files[@]}" | wc -l)"
  # Code only: drop block-comment lines, line comments and string literals; keep imports and qualified names.
  code="$(sed -E '/^[[:space:]]*(\/\*|\*)/d; s@//.*$@@; s/"([^"\\]|\\.)*"//g' "${files[@]}" | grep -v '^package ')"
  hadoop=no; grep -q 'org\.apache\.hadoop\.' <<<"$code" && hadoop=yes
  netty=no; grep -q 'io\.netty\.' <<<"$code" && netty=yes
  uses="$(grep -oE '\borg\.wideec(\.[a-z][a-z0-9]*)*\.[A-Z]' <<<"$code" | sed -E 's/\.[A-Z]$//' | sort -u \
    | grep -vx "$pkg" || true)"
  layer="$(layer_of "$pkg")"
  against=()
  for u in $uses; do
    [ "$(rank "$(layer_of "$u")")" -gt "$(rank "$layer")" ] && against+=("${u#org.wideec.} ($(layer_of "$u"))")
  done
  if [ "$layer" = model ]; then
    [ "$hadoop" = yes ] && against+=("Hadoop")
    [ "$netty" = yes ] && against+=("Netty")
  fi
  [ "$layer" = wire ] && [ "$hadoop" = yes ] && against+=("Hadoop")
  printf '| `%s` | %s | %s | %s | %s | %s | %s | %s |\n' "$pkg" "${#files[@]}" "$lines" "$layer" "$hadoop" "$netty" \
    "$(echo $uses | sed 's/org\.wideec\.//g; s/ /, /g')" "$(IFS=,; echo "${against[*]:-}" | sed 's/,/, /g')"
done
