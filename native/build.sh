#!/usr/bin/env bash
# Builds libwideec.so (JNI over ISA-L, and AES-GMAC frame tags over the system OpenSSL, opened at run time), the raw ISA-L benchmark and the memory-read probe into native/build.
# Usage: native/build.sh [JAVA_HOME] [CLASSES_DIR]  -- CLASSES_DIR also gets a copy of the library, so the
# jar carries it. Without ISA-L headers or a C compiler it says so and exits 0: the Java coder takes over.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
java_home="${1:-${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}}"
classes="${2:-}"
out="$here/build"
if [ ! -f /usr/include/isa-l/erasure_code.h ]; then
  echo "native/build.sh: ISA-L headers not found (apt-get install libisal-dev); skipping the native coder" >&2
  exit 0
fi
cc="${CC:-$(command -v gcc || command -v cc || true)}"
if [ -z "$cc" ]; then
  echo "native/build.sh: no C compiler; skipping the native coder" >&2
  exit 0
fi
mkdir -p "$out"
"$cc" -O3 -fPIC -shared -Wall -Wextra -Wno-unused-parameter \
  -I"$java_home/include" -I"$java_home/include/linux" \
  -o "$out/libwideec.so" "$here/src/wideec_isal.c" "$here/src/wideec_gmac.c" -lisal -ldl -lpthread
"$cc" -O2 -Wall -o "$out/isal_bench" "$here/bench/isal_bench.c" -lisal
"$cc" -O2 -Wall -pthread -o "$out/mem_read" "$here/bench/mem_read.c"
# The wide slicing sweep (bench/wide_sweep.c), -O3 as the library: it compiles the library's kernel in, and its byte loops vectorize only at -O3.
"$cc" -O3 -Wall -Wno-unused-function -o "$out/wide_sweep" "$here/bench/wide_sweep.c" -lisal
if [ -n "$classes" ]; then
  mkdir -p "$classes/native/linux-x86_64"
  cp "$out/libwideec.so" "$classes/native/linux-x86_64/libwideec.so"
fi
echo "native/build.sh: built $out/libwideec.so" >&2
