#!/usr/bin/env bash
# fresh-build.sh - a fresh machine's first `make` works: the build reads
# package flags (pkg-config, llvm-config, pg_config) only after `make deps`
# has run.  A copy of the tree is built with those three tools hidden
# behind shims that fail, as the missing packages would, until the copy's
# install-deps has run (it leaves a marker, then runs the real one).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/harness/tap.sh"
tmp=$(mktemp -d /tmp/ossd-fresh-build.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
marker=$tmp/deps-ran
log=$tmp/tool-calls

# the tree as it is (committed or not), without build products
mkdir -p "$tmp/src"
(cd "$top" && git ls-files -co --exclude-standard -z | grep -zv '^build/' \
   | xargs -0 cp --parents -t "$tmp/src" 2>/dev/null)
cp "$top/tests/harness/install-deps" "$tmp/real-install-deps"
cat >"$tmp/src/tests/harness/install-deps" <<SH
#!/usr/bin/env bash
touch "$marker"
exec "$tmp/real-install-deps" "\$@"
SH
chmod +x "$tmp/src/tests/harness/install-deps"

mkdir -p "$tmp/bin"
for tool in pkg-config llvm-config-14 pg_config; do
  real=$(command -v "$tool") || { tap_not_ok "$tool is installed"; tap_done; exit 1; }
  cat >"$tmp/bin/$tool" <<SH
#!/bin/sh
# not installed until install-deps has run
if [ ! -e "$marker" ]; then echo "$tool before deps: \$*" >>"$log"; exit 127; fi
exec "$real" "\$@"
SH
  chmod +x "$tmp/bin/$tool"
done

if PATH=$tmp/bin:$PATH make -C "$tmp/src" -j2 all >"$tmp/build.log" 2>&1; then
  tap_ok "make all builds on its first run with the packages appearing only at make deps"
else
  tap_not_ok "make all on a fresh tree" "$(grep -E 'error|Error' "$tmp/build.log" | head -3 | tr '\n' ' ')"
fi
if [ -s "$log" ]; then
  tap_not_ok "no package flag is read before make deps" "$(head -3 "$log" | tr '\n' ' ')"
else
  tap_ok "no package flag is read before make deps"
fi
[ -x "$tmp/src/build/ossdctl" ] && [ -f "$tmp/src/pg_ossd/pg_ossd.so" ] \
  && tap_ok "the fresh build made ossdctl and pg_ossd.so" \
  || tap_not_ok "the fresh build made ossdctl and pg_ossd.so"
tap_done
