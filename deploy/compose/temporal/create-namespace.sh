#!/usr/bin/env bash
# deploy/compose.yaml's temporal-init service (temporalio/admin-tools, once per `up`, after the
# server is healthy): the namespace flowhook runs in and flowhook's search attributes on it
# (docs/how-to/deploy.md, A Temporal cluster). Idempotent: an existing namespace is left as it is
# (its retention too: change that with `temporal operator namespace update --retention`), and
# SQL visibility skips attributes that already exist.
set -euo pipefail
namespace=${NAMESPACE:?}
retention=${NAMESPACE_RETENTION:?}

if temporal operator namespace describe --namespace "$namespace" >/dev/null 2>&1; then
  echo "temporal-init: namespace $namespace is there"
else
  echo "temporal-init: creating namespace $namespace (retention $retention)"
  temporal operator namespace create --namespace "$namespace" --retention "$retention" \
    --description "flowhook's executions (deploy/compose.yaml)"
fi
# A namespace just created reaches the frontend's cache within seconds.
for _ in $(seq 60); do
  temporal operator search-attribute list --namespace "$namespace" >/dev/null 2>&1 && break
  sleep 1
done

# flowhook's ten, as flow/search-attribute-keys.ts defines them (deploy/ci/compose-check.sh
# holds this list to that file). The engine would add missing ones itself where the cluster lets
# it; here they exist before the first execution starts, and the UI can filter by them at once.
attributes=(
  Company=Keyword FlowActivity=Keyword FlowName=Keyword ResponseMode=Keyword FlowCaller=Keyword
  FlowVersion=Int FlowOutcome=Keyword RerunOf=Keyword FlowKey=KeywordList FlowWaitMs=Int
)
args=()
for attribute in "${attributes[@]}"; do args+=(--name "${attribute%%=*}" --type "${attribute#*=}"); done
temporal operator search-attribute create --namespace "$namespace" "${args[@]}"
echo "temporal-init: search attributes ${attributes[*]%%=*} are registered on $namespace"
