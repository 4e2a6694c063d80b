#!/usr/bin/env bash
# Makes what deploy/compose.yaml reads and nobody commits (this directory's .gitignore keeps all of
# it out of git): run it once before the first `docker compose -f deploy/compose.yaml up -d`.
# It only adds what is missing, so running it again changes nothing, and deleting one file and
# running it again makes a new one of that file alone (see docs/how-to/deploy.md, Docker Compose).
#
# Here, one value a file, read through compose `secrets:` (mounted under /run/secrets/):
#   postgres-password        the PostgreSQL superuser's (the postgres image's POSTGRES_PASSWORD_FILE)
#   temporal-db-password     the `temporal` role's, owner of the databases temporal, temporal_visibility
#   payload-key              FLOWHOOK_PAYLOAD_KEY_FILE of engines and workers: doNotLogPayload keys, newest first
#   secrets-key              FLOWHOOK_SECRETS_KEY_FILE of engines: the secret store's keys, newest first
#   ca.crt, ca.key           a private CA (ca.key is mounted nowhere: keep it for the next certificate)
#   engine.crt, engine.key   the engine's TLS certificate (DNS name `engine`), signed by that CA
# In deploy/.env (mode 0600), read by compose for interpolation: the two values flowhook has no
# file form for (FLOWHOOK_DATABASE_URL holds the engine's password; the bootstrap admin token).
#   ENGINE_DB_PASSWORD       the `flowhook` role's password, in the engine's FLOWHOOK_DATABASE_URL
#   FLOWHOOK_ADMIN_TOKEN     the engine's bootstrap admin token, with which the init services
#                            create the facade's, the worker's and the CLI's service accounts
#
# The directory is made 0700 and the files in it 0444: the directory keeps them from other users
# of the host, and the containers, which run as users of their own (flowhook as 10001, postgres as
# 999, Temporal as 1000) and get each file bind-mounted (compose ignores a file secret's
# uid/gid/mode), can read them. Needs openssl.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
env_file="$(cd "$here/../.." && pwd)/.env"
command -v openssl >/dev/null || {
  echo "generate.sh: openssl is needed (Debian: apt-get install openssl)" >&2
  exit 1
}
umask 077
chmod 0700 "$here"
made=()

# name, then the command whose standard output is the file's content; skipped when the file is there.
secret_file() {
  local name=$1 path="$here/$1"
  shift
  [[ -s "$path" ]] && return 0
  "$@" >"$path.new"
  chmod 0444 "$path.new"
  mv -f "$path.new" "$path"
  made+=("$name")
}
hex() { openssl rand -hex "$1"; }
key() { openssl rand -base64 32; }

secret_file postgres-password hex 24
secret_file temporal-db-password hex 24
secret_file payload-key key
secret_file secrets-key key

# The engine's TLS: flowhook's roles talk to it over the compose network, which carries access
# keys, flow secrets, payloads and tokens (docs/how-to/deploy.md, TLS). Ten years: the CA is
# trusted by these containers only, and a certificate that expires under a running deployment
# stops it. Written with what OpenSSL 1.1, 3 and LibreSSL all have (a config file, x509 -req).
tls_config="$here/.openssl.cnf"
cat >"$tls_config" <<'CNF'
[req]
distinguished_name = dn
[dn]
[ca]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[engine]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = DNS:engine
authorityKeyIdentifier = keyid
CNF
# OpenSSL's chatter (the signature is ok, the subject) is shown only when a step fails.
quiet() {
  local out
  out=$("$@" 2>&1) || {
    printf '%s\n' "$out" >&2
    return 1
  }
}
ec_key() { quiet openssl ecparam -name prime256v1 -genkey -noout -out "$1"; }
if [[ ! -s "$here/ca.crt" || ! -s "$here/ca.key" ]]; then
  rm -f "$here/engine.crt" "$here/engine.key"
  ec_key "$here/ca.key"
  quiet openssl req -x509 -new -sha256 -days 3650 -key "$here/ca.key" -subj "/CN=flowhook compose CA" \
    -config "$tls_config" -extensions ca -out "$here/ca.crt"
  chmod 0400 "$here/ca.key" && chmod 0444 "$here/ca.crt"
  made+=(ca.crt ca.key)
fi
if [[ ! -s "$here/engine.crt" || ! -s "$here/engine.key" ]]; then
  ec_key "$here/engine.key"
  quiet openssl req -new -sha256 -key "$here/engine.key" -subj "/CN=engine" -config "$tls_config" -out "$here/engine.csr"
  quiet openssl x509 -req -sha256 -days 3650 -in "$here/engine.csr" -CA "$here/ca.crt" -CAkey "$here/ca.key" \
    -set_serial "0x$(hex 16)" -extfile "$tls_config" -extensions engine -out "$here/engine.crt"
  rm -f "$here/engine.csr"
  chmod 0444 "$here/engine.key" "$here/engine.crt"
  made+=(engine.crt engine.key)
fi
rm -f "$tls_config"

# deploy/.env: values are added, never replaced (an operator's own lines stay as they are).
if [[ ! -s "$env_file" ]]; then
  cat >"$env_file" <<'ENV'
# Read by `docker compose -f deploy/compose.yaml` (and compose.lite.yaml) for ${…} in those files.
# Made by deploy/compose/secrets/generate.sh; git-ignored; keep it 0600. Uncomment to change a default:
# FLOWHOOK_PUBLIC_URL=http://localhost:7048   the base URL callers use (set it to your proxy's https URL)
# FACADE_ADDRESS=127.0.0.1                    host address the facade is published on (0.0.0.0: every one)
# FACADE_PORT=7048                            host port of the facade
# TEMPORAL_UI_ADDRESS=127.0.0.1               host address of the Temporal Web UI (it has no sign-in)
# TEMPORAL_UI_PORT=8080                       host port of the Temporal Web UI
# TEMPORAL_NAMESPACE=default                  the Temporal namespace of engines and workers
# NAMESPACE_RETENTION=7d                      closed executions kept this long (set when the namespace is made)
# FLOWHOOK_EGRESS_ALLOW=                      internal hosts flows may call (worker)
# FLOWHOOK_ENGINE_EGRESS_ALLOW=               internal hosts alert messages may go to (engine)
# FLOWHOOK_TRUSTED_PROXIES=                   the proxy in front of the facade (its address as the facade sees it)
# FLOWHOOK_LOG_LEVEL=info                     engine, worker, facade
# FLOWHOOK_IMAGE=localhost/flowhook           the flowhook image (a registry's, say)
# FLOWHOOK_TAG=<this checkout's version>      its tag (compose.lite.yaml adds -lite)
# LITE_PORT=7048                              host port of compose.lite.yaml's endpoint
ENV
fi
chmod 0600 "$env_file"
env_value() {
  local name=$1 value=$2
  grep -q "^$name=" "$env_file" && return 0
  printf '%s=%s\n' "$name" "$value" >>"$env_file"
  made+=("$name in $env_file")
}
# Hex: the password goes into a URL as it is, and neither needs quoting in any .env reader.
env_value ENGINE_DB_PASSWORD "$(hex 24)"
# 64 characters; FLOWHOOK_ADMIN_TOKEN needs 32. To retire it after the first start, blank it
# (`FLOWHOOK_ADMIN_TOKEN=`) rather than delete the line, or the next run here adds a new one.
env_value FLOWHOOK_ADMIN_TOKEN "$(hex 32)"

if ((${#made[@]} == 0)); then
  echo "generate.sh: nothing to do: every secret is already in $here and $env_file"
else
  printf 'generate.sh: made %s\n' "${made[@]}"
fi
