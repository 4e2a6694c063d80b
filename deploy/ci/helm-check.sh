#!/usr/bin/env bash
# Checks the Helm chart deploy/helm/flowhook without a cluster, and exits non-zero on any failure:
#   1. helm lint --strict with the default values and each deploy/helm/flowhook/ci/*-values.yaml;
#   2. helm template of each, for the oldest Kubernetes the chart supports and the newest one here;
#   3. kubeconform -strict on every rendered manifest, against JSON schemas generated from the Kubernetes
#      OpenAPI document of that version (Go module k8s.io/kubernetes) and from the CRDs of KEDA
#      (github.com/kedacore/keda/v2) and the Prometheus operator (github.com/prometheus-operator/prometheus-operator);
#   4. the pod templates against the "restricted" Pod Security Standard, with the admission controller's own
#      checks (k8s.io/pod-security-admission, deploy/helm/tooling/pss-check);
#   5. each role's environment through flowhook's own configuration readers, and the objects' cross-references
#      (deploy/helm/tooling/config-check.ts);
#   6. the values table in deploy/helm/flowhook/README.md and values.schema.json are current
#      (deploy/helm/tooling/values-reference.ts), and those TypeScript tools typecheck;
#   7. canaries: values the chart must refuse are refused, and the validators reject a broken manifest.
# Tools come from the Go module proxy (`go install`), built once into a cache directory
# (FLOWHOOK_TOOLS_DIR, default ~/.cache/flowhook/tools). Needs Go, openssl and `npm install` done (node_modules).
# A rendered chart is not a running one: nothing here starts a pod.
set -euo pipefail
exec </dev/null
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

HELM_VERSION=v3.22.0
KUBECONFORM_VERSION=v0.8.0
# The chart's kubeVersion floor (Chart.yaml) and the newest Kubernetes the Go module proxy serves here.
KUBE_VERSIONS=(1.30.14 1.37.2)
KEDA_VERSION=v2.21.0
PROMETHEUS_OPERATOR_VERSION=v0.85.0
CHART=deploy/helm/flowhook
TOOLING=deploy/helm/tooling
NODE=node_modules/.bin/node
TOOLS=${FLOWHOOK_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/flowhook/tools}

passed=0
failed=0
started=$SECONDS
say() { printf 'helm-check: %s\n' "$*"; }
die() {
  say "$*" >&2
  exit 1
}
# check NAME COMMAND…: runs one check, counts it, shows its output only when it fails.
check() {
  local name=$1 log
  shift
  log=$(mktemp)
  local t0=$SECONDS
  if "$@" >"$log" 2>&1; then
    passed=$((passed + 1))
    say "ok     $name ($((SECONDS - t0)) s)"
  else
    failed=$((failed + 1))
    say "FAILED $name ($((SECONDS - t0)) s)"
    sed 's/^/    /' "$log" >&2
  fi
  rm -f "$log"
}
# refused_with PATTERN COMMAND…: the command fails, saying PATTERN (so it failed for the reason meant).
refused_with() {
  local pattern=$1 out
  shift
  if out=$("$@" 2>&1); then
    echo "succeeded, but should have failed saying: $pattern"
    return 1
  fi
  grep -q -- "$pattern" <<<"$out" || {
    echo "failed without saying: $pattern"
    echo "$out"
    return 1
  }
}

if ! command -v go >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then export PATH="$PATH:/usr/local/go/bin"; fi
command -v go >/dev/null 2>&1 || die "needs Go (the tools come from the Go module proxy)"
command -v openssl >/dev/null 2>&1 || die "needs openssl (config-check makes a throwaway CA)"
[[ -x $NODE ]] || die "needs $NODE: run npm install first"
mkdir -p "$TOOLS"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# go_tool NAME PACKAGE VERSION: the path of the binary, built by go install when missing.
go_tool() {
  local name=$1 package=$2 version=$3 dir="$TOOLS/$1-$3"
  if [[ ! -x $dir/$name ]]; then
    say "building $name $version with go install (once; cached in $dir)" >&2
    mkdir -p "$dir"
    GOBIN="$dir" go install "$package@$version" >"$dir/build.log" 2>&1 || die "go install $package@$version failed: $(tail -20 "$dir/build.log")"
  fi
  echo "$dir/$name"
}
# module_dir MODULE VERSION: where the Go module cache holds that module's files.
module_dir() {
  local dir
  dir=$(go mod download -json "$1@$2" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [[ -n $dir && -d $dir ]] || die "go mod download $1@$2 gave no directory"
  echo "$dir"
}

t0=$SECONDS
HELM=$(go_tool helm helm.sh/helm/v3/cmd/helm "$HELM_VERSION")
KUBECONFORM=$(go_tool kubeconform github.com/yannh/kubeconform/cmd/kubeconform "$KUBECONFORM_VERSION")
pss_hash=$(cat "$TOOLING"/pss-check/go.mod "$TOOLING"/pss-check/go.sum "$TOOLING"/pss-check/main.go | sha256sum | cut -c1-12)
PSS_CHECK="$TOOLS/pss-check-$pss_hash/pss-check"
if [[ ! -x $PSS_CHECK ]]; then
  say "building pss-check (once; cached in $(dirname "$PSS_CHECK"))"
  mkdir -p "$(dirname "$PSS_CHECK")"
  (cd "$TOOLING/pss-check" && go build -o "$PSS_CHECK" . >"$(dirname "$PSS_CHECK")/build.log" 2>&1) ||
    die "building pss-check failed: $(tail -20 "$(dirname "$PSS_CHECK")/build.log")"
fi
KEDA_CRDS=$(module_dir github.com/kedacore/keda/v2 "$KEDA_VERSION")/config/crd/bases
PROMETHEUS_CRDS=$(module_dir github.com/prometheus-operator/prometheus-operator "$PROMETHEUS_OPERATOR_VERSION")/example/prometheus-operator-crd
schemas_hash=$(sha256sum "$TOOLING/kube-schemas.ts" | cut -c1-12)
for kube in "${KUBE_VERSIONS[@]}"; do
  schemas="$TOOLS/kube-schemas-$schemas_hash/v$kube+keda-$KEDA_VERSION+prometheus-operator-$PROMETHEUS_OPERATOR_VERSION"
  if [[ ! -f $schemas/.complete ]]; then
    swagger=$(module_dir k8s.io/kubernetes "v$kube")/api/openapi-spec/swagger.json
    rm -rf "$schemas"
    "$NODE" "$TOOLING/kube-schemas.ts" --out "$schemas" --swagger "$swagger" \
      --crd "$KEDA_CRDS/keda.sh_scaledobjects.yaml" --crd "$KEDA_CRDS/keda.sh_triggerauthentications.yaml" \
      --crd "$PROMETHEUS_CRDS/monitoring.coreos.com_servicemonitors.yaml" >/dev/null || die "generating the schemas of Kubernetes $kube failed"
    touch "$schemas/.complete"
  fi
done
psa_version=$(sed -n 's|^[[:space:]]*k8s.io/pod-security-admission \(v[^ ]*\).*|\1|p' "$TOOLING/pss-check/go.mod")
say "tools: helm $HELM_VERSION, kubeconform $KUBECONFORM_VERSION, pss-check (k8s.io/pod-security-admission $psa_version); schemas: Kubernetes ${KUBE_VERSIONS[*]}, KEDA $KEDA_VERSION, Prometheus operator $PROMETHEUS_OPERATOR_VERSION ($((SECONDS - t0)) s)"

# The value sets: the defaults, and each ci/*-values.yaml.
sets=(default)
for file in "$CHART"/ci/*-values.yaml; do sets+=("$(basename "$file" -values.yaml)"); done
values_of() { [[ $1 == default ]] || printf '%s\n' "--values=$CHART/ci/$1-values.yaml"; }
newest=${KUBE_VERSIONS[-1]}
# render_to FILE HELM-TEMPLATE-ARGS…
render_to() {
  local out=$1
  shift
  "$HELM" template flowhook "$CHART" --namespace flowhook "$@" >"$out"
}
pss() { "$PSS_CHECK" -level restricted -version latest <"$1"; }

for set in "${sets[@]}"; do
  mapfile -t values < <(values_of "$set")
  check "helm lint --strict ($set values)" "$HELM" lint --strict --kube-version "$newest" "$CHART" "${values[@]}"
  for kube in "${KUBE_VERSIONS[@]}"; do
    rendered="$WORK/$set-$kube.yaml"
    check "helm template ($set values, Kubernetes $kube)" render_to "$rendered" --kube-version "$kube" "${values[@]}"
    [[ -s $rendered ]] || continue
    schemas="$TOOLS/kube-schemas-$schemas_hash/v$kube+keda-$KEDA_VERSION+prometheus-operator-$PROMETHEUS_OPERATOR_VERSION"
    check "kubeconform -strict ($set values, Kubernetes $kube schemas)" "$KUBECONFORM" -strict -summary -output text \
      -schema-location "$schemas/{{ .ResourceKind }}{{ .KindSuffix }}.json" \
      -schema-location "$schemas/{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json" "$rendered"
  done
  rendered="$WORK/$set-$newest.yaml"
  [[ -s $rendered ]] || continue
  check "Pod Security Standard restricted ($set values)" pss "$rendered"
  check "flowhook accepts each role's environment; references resolve ($set values)" "$NODE" "$TOOLING/config-check.ts" "$rendered"
done
check "values table (README.md) and values.schema.json are current" "$NODE" "$TOOLING/values-reference.ts" --check
check "the chart's TypeScript tools typecheck" node_modules/.bin/tsc --noEmit -p "$TOOLING"

# Canaries: values that cannot work are refused at render time, and the validators do reject what is wrong.
render() { "$HELM" template flowhook "$CHART" --kube-version "$newest" "$@"; }
check "refused: a misspelt value (values.schema.json)" refused_with "additional properties 'replica' not allowed" render --set facade.replica=3
check "refused: KEDA scaling workers to zero" refused_with "minReplicaCount must be at least 1" render --set worker.keda.enabled=true --set worker.keda.minReplicaCount=0
check "refused: engine TLS without its certificate" refused_with "needs tls.engine.existingSecret" render --set tls.engine.enabled=true
check "refused: gRPC probes on a TLS engine" refused_with "gRPC probe speaks no TLS" render --set tls.engine.enabled=true --set tls.engine.existingSecret=x --set engine.probeMode=grpc
check "refused: console without an https public URL" refused_with "console.enabled needs console.publicUrl" render --set console.enabled=true
check "refused: ServiceMonitor without the metrics token" refused_with "needs secrets.metricsToken.enabled" render --set serviceMonitor.enabled=true
check "refused: KEDA with server-only TLS to Temporal" refused_with "would dial in cleartext" render --set worker.keda.enabled=true --set temporal.tls.enabled=true --set temporal.tls.existingSecret=x
schemas="$TOOLS/kube-schemas-$schemas_hash/v$newest+keda-$KEDA_VERSION+prometheus-operator-$PROMETHEUS_OPERATOR_VERSION"
sed 's/^\(          \)readinessProbe:/\1readinesProbe:/' "$WORK/default-$newest.yaml" >"$WORK/misspelt.yaml"
check "kubeconform rejects a misspelt field" refused_with "additional properties 'readinesProbe'" "$KUBECONFORM" -strict -schema-location "$schemas/{{ .ResourceKind }}{{ .KindSuffix }}.json" "$WORK/misspelt.yaml"
render_to "$WORK/escalating.yaml" --kube-version "$newest" --set securityContext.allowPrivilegeEscalation=true
check "pss-check rejects allowPrivilegeEscalation" refused_with "allowPrivilegeEscalation != false" pss "$WORK/escalating.yaml"
render_to "$WORK/plain-secret.yaml" --kube-version "$newest" --set-string engine.env.FLOWHOOK_METRICS_TOKEN=0123456789abcdef0
check "config-check rejects a secret in a plain value" refused_with "FLOWHOOK_METRICS_TOKEN is a secret but comes from a plain value" "$NODE" "$TOOLING/config-check.ts" "$WORK/plain-secret.yaml"

say "$((SECONDS - started)) s"
echo "helm-check: $passed passed, $failed failed"
((failed == 0))
