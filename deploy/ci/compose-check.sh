#!/usr/bin/env bash
# Validates the Docker Compose files without running them (the official PostgreSQL and Temporal
# images cannot be pulled in CI): deploy/compose.yaml, deploy/compose.lite.yaml, and the latter
# with deploy/compose/lite-host-network.yaml. On a copy of deploy/ as a fresh clone has it, with
# secrets that compose/secrets/generate.sh makes there (the checkout's own secrets are not read):
#
#   1. generate.sh makes every file and deploy/.env with the modes it promises, and a second run
#      changes nothing;
#   2. the shell scripts pass `bash -n` and ShellCheck (Debian's, installed with apt-get when
#      missing), the init script `node --check`;
#   3. each project loads as Docker Compose loads it (compose-config: the specification's own
#      library): the Compose specification's JSON schema, every service, network, volume and
#      secret a service names is declared, interpolation, and `config` renders it (YAML and JSON);
#      without deploy/.env it refuses to, naming generate.sh;
#   4. compose-rules.js: every secret file and bind-mounted file exists, every flowhook variable
#      is a setting its role reads with a value it parses, pinned tags, loopback ports, the search
#      attributes, the image's paths (see that file).
#
# Needs Go (the Temporal server run of .ci/run needs it too; the Compose library comes from the Go
# module proxy, pinned by deploy/ci/compose-config/go.sum), openssl, and `npm install` done (the
# configuration table is read with the project's Node). Exits non-zero at the first failing step.
set -euo pipefail
exec </dev/null
started=$SECONDS
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
say() { printf 'compose-check: %s\n' "$*"; }
fail() {
  say "FAILED: $*" >&2
  exit 1
}

node="$repo/node_modules/.bin/node"
[[ -x "$node" ]] || fail "no project Node in node_modules: run npm install first"
if ! command -v go >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then export PATH="$PATH:/usr/local/go/bin"; fi
command -v go >/dev/null || fail "go is needed to build the Compose loader (deploy/ci/compose-config)"
command -v openssl >/dev/null || fail "openssl is needed by deploy/compose/secrets/generate.sh"
if ! command -v shellcheck >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  say "no shellcheck on PATH; installing Debian's shellcheck with apt-get"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends shellcheck >/dev/null 2>&1 ||
    { DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends shellcheck >/dev/null; } ||
    say "could not install shellcheck" >&2
fi

# The loader, built once per change of its sources (Go's own build cache does the rest).
tools="$repo/.flowhook/tools"
loader="$tools/compose-config"
mkdir -p "$tools"
(cd deploy/ci/compose-config && GOFLAGS="-mod=readonly -buildvcs=false" go build -trimpath -o "$loader" .) || fail "could not build deploy/ci/compose-config"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# deploy/ as a fresh clone has it: tracked files and new ones, never ignored ones (a checkout's secrets).
git ls-files -z --cached --others --exclude-standard -- deploy | while IFS= read -r -d '' file; do
  if [[ -f "$file" ]]; then mkdir -p "$work/$(dirname "$file")" && cp -p "$file" "$work/$file"; fi
done
deploy="$work/deploy"
secrets="$deploy/compose/secrets"
# Compose sees only what the files and deploy/.env say, never the caller's environment.
compose_config() { env -i PATH="$PATH" HOME="$HOME" "$loader" "$@"; }

say "1. secrets: generate.sh"
[[ ! -e "$deploy/.env" ]] || fail "deploy/.env is tracked or not ignored"
compose_config "$deploy/compose.yaml" >"$work/no-env.out" 2>&1 && fail "compose.yaml loads without deploy/.env"
grep -q 'generate.sh' "$work/no-env.out" || fail "without deploy/.env, compose.yaml does not say to run generate.sh: $(cat "$work/no-env.out")"
bash "$secrets/generate.sh" >/dev/null
again=$(bash "$secrets/generate.sh")
[[ "$again" == *"nothing to do"* ]] || fail "a second run of generate.sh made something: $again"
mode() { stat -c %a "$1"; }
[[ $(mode "$secrets") == 700 ]] || fail "compose/secrets is $(mode "$secrets"), not 700"
[[ $(mode "$deploy/.env") == 600 ]] || fail "deploy/.env is $(mode "$deploy/.env"), not 600"
for file in postgres-password temporal-db-password payload-key secrets-key ca.crt engine.crt engine.key; do
  [[ -s "$secrets/$file" && $(mode "$secrets/$file") == 444 ]] || fail "compose/secrets/$file is missing or not 0444"
done
[[ $(mode "$secrets/ca.key") == 400 ]] || fail "compose/secrets/ca.key is not 0400"
openssl verify -CAfile "$secrets/ca.crt" -verify_hostname engine "$secrets/engine.crt" >/dev/null || fail "engine.crt is not valid for the name engine under ca.crt"
[[ $(wc -c <"$secrets/payload-key") -ge 44 ]] || fail "payload-key holds no key"
# Every variable the compose files interpolate is one deploy/.env names (set, or documented as a default).
# shellcheck disable=SC2016 # a literal ${ in the pattern
mapfile -t variables < <(grep -oh '\${[A-Z_][A-Z0-9_]*' "$deploy"/compose*.yaml | cut -c3- | sort -u)
for variable in "${variables[@]}"; do
  grep -Eq "^(# )?$variable=" "$deploy/.env" || fail "compose files interpolate $variable, which deploy/.env (generate.sh) does not name"
done
for file in .env $(cd "$deploy" && find compose/secrets -mindepth 1 -maxdepth 1 | sort); do
  [[ "$file" == */generate.sh || "$file" == */.gitignore ]] && continue
  git check-ignore -q --no-index "deploy/$file" || fail "deploy/$file, which generate.sh makes, is not git-ignored"
done

say "2. scripts: bash -n, shellcheck, node --check"
mapfile -t scripts < <(cd "$deploy" && find compose ci -name '*.sh' | sort)
for script in "${scripts[@]}"; do bash -n "$deploy/$script" || fail "$script: bash -n"; done
if command -v shellcheck >/dev/null 2>&1; then
  (cd "$deploy" && shellcheck "${scripts[@]}") || fail "shellcheck"
else
  say "shellcheck is not available here: skipped" >&2
fi
for script in compose/flowhook/service-account.mjs ci/compose-rules.js; do "$node" --check "$deploy/$script" || fail "$script: node --check"; done
# The dynamic configuration, by the server release the compose file runs, where the test run built
# it (.ci/run's Temporal server run: bin/embedded/temporal-server-install.ts). It warns, not fails.
temporal_version=$(sed -n 's/^ *image: temporalio\/server:\([0-9.]*\)$/\1/p' "$deploy/compose.yaml")
temporal_server="$repo/.flowhook/temporal-server-v$temporal_version/bin/temporal-server"
if [[ -x "$temporal_server" ]]; then
  checked=$("$temporal_server" validate-dynamic-config "$deploy/compose/temporal/dynamicconfig.yaml" 2>&1) || fail "dynamicconfig.yaml: $checked"
  [[ "$checked" != *warning* ]] || fail "compose/temporal/dynamicconfig.yaml: $checked"
  say "compose/temporal/dynamicconfig.yaml: valid for Temporal server $temporal_version"
else
  say "no Temporal server $temporal_version built in .flowhook/: its dynamic configuration is not validated" >&2
fi

say "3. compose: schema, references, interpolation, config"
projects=("compose.yaml" "compose.lite.yaml" "compose.lite.yaml compose/lite-host-network.yaml")
rendered=()
for project in "${projects[@]}"; do
  read -r -a files <<<"$project"
  label=${project// / + }
  out="$work/$(echo "$label" | tr -c 'a-z0-9\n' '-')"
  compose_config -format yaml "${files[@]/#/$deploy/}" >"$out.yaml" 2>"$out.err" || fail "$label: $(cat "$out.err")"
  compose_config -format json "${files[@]/#/$deploy/}" >"$out.json" 2>"$out.err" || fail "$label: $(cat "$out.err")"
  [[ ! -s "$out.err" ]] || say "$label: $(cat "$out.err")"
  say "$label: $("$node" -p 'Object.keys(require(process.argv[1]).services).length' "$out.json") services; config renders ($(wc -l <"$out.yaml") lines)"
  rendered+=("$out.json")
done

say "4. rules"
"$node" "$repo/deploy/ci/compose-rules.js" "${rendered[@]}" || fail "compose-rules.js"

say "ok in $((SECONDS - started)) s (validated only: the stack itself is not run here, its images cannot be pulled)"
