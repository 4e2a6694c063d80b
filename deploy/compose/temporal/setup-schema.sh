#!/usr/bin/env bash
# deploy/compose.yaml's temporal-schema service (temporalio/admin-tools, once per `up`): brings
# Temporal's two databases to the schema of the admin-tools release, as the project's own test run
# does with the same tool (docs/how-to/deploy.md, A Temporal cluster). Both steps are idempotent:
# on a set-up database `setup-schema -v 0.0` finds its bookkeeping tables and `update-schema`
# applies only the versions it lacks, which is also how a Temporal upgrade migrates.
# The databases and their owner are made by the postgres service's init-databases.sh.
set -euo pipefail
# temporal-sql-tool reads SQL_PLUGIN, SQL_HOST, SQL_PORT, SQL_USER and SQL_PASSWORD (never a
# password on its command line, where `ps` shows it).
SQL_PASSWORD=$(<"${SQL_PASSWORD_FILE:?}")
export SQL_PASSWORD
schema=/etc/temporal/schema/postgresql/v12
for pair in temporal:temporal temporal_visibility:visibility; do
  database=${pair%%:*} versions=$schema/${pair#*:}/versioned
  echo "temporal-schema: $database (schema from $versions)"
  temporal-sql-tool --db "$database" setup-schema -v 0.0
  temporal-sql-tool --db "$database" update-schema -d "$versions"
done
