#!/usr/bin/env bash
# deploy/compose.yaml's temporal service: the temporalio/server image's own entrypoint, with the
# database password read from its secret file. The image's configuration template takes it only
# from the environment (POSTGRES_PWD), and compose's environment would show it in
# `docker inspect`; this way it is in the server process's environment alone.
set -euo pipefail
POSTGRES_PWD=$(<"${POSTGRES_PWD_FILE:?}")
export POSTGRES_PWD
unset POSTGRES_PWD_FILE
exec /etc/temporal/entrypoint.sh "$@"
