#!/usr/bin/env bash
# Run once by the postgres image, on an empty data directory (/docker-entrypoint-initdb.d/), as
# its superuser: the roles and databases of deploy/compose.yaml. Each role owns its databases and
# nothing more (docs/how-to/deploy.md, PostgreSQL): `flowhook` the engine's (its migrations run at
# every engine start), `temporal` Temporal's two (the temporal-schema service sets them up).
# Passwords: the `temporal` role's from its secret file, the `flowhook` role's from
# ENGINE_DB_PASSWORD (deploy/.env), since the engine takes it in FLOWHOOK_DATABASE_URL, which has
# no file form. A later password change is an ALTER ROLE (docs/how-to/deploy.md, Docker Compose).
set -euo pipefail
: "${ENGINE_DB_PASSWORD:?ENGINE_DB_PASSWORD is not set: run deploy/compose/secrets/generate.sh}"
temporal_password=$(<"${TEMPORAL_DB_PASSWORD_FILE:?}")

# psql's :'name' quotes a variable as a literal, so no password is ever spliced into SQL text.
psql -v ON_ERROR_STOP=1 --no-psqlrc --username "$POSTGRES_USER" --dbname postgres \
  --set engine_password="$ENGINE_DB_PASSWORD" --set temporal_password="$temporal_password" <<'SQL'
CREATE ROLE flowhook LOGIN PASSWORD :'engine_password';
CREATE DATABASE flowhook OWNER flowhook;
REVOKE CONNECT, TEMPORARY ON DATABASE flowhook FROM PUBLIC;

CREATE ROLE temporal LOGIN PASSWORD :'temporal_password';
CREATE DATABASE temporal OWNER temporal;
CREATE DATABASE temporal_visibility OWNER temporal;
REVOKE CONNECT, TEMPORARY ON DATABASE temporal FROM PUBLIC;
REVOKE CONNECT, TEMPORARY ON DATABASE temporal_visibility FROM PUBLIC;
SQL
