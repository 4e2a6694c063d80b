{{/* Names, labels and small lookups shared by the templates. */}}

{{- define "flowhook.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* <release>-<chart>, or the release name alone when it already contains the chart name; 63 characters less a role suffix. */}}
{{- define "flowhook.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 56 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 56 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 56 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The name of one role's resources: (dict "root" $ "role" "engine"). */}}
{{- define "flowhook.roleName" -}}
{{- printf "%s-%s" (include "flowhook.fullname" .root) .role -}}
{{- end -}}

{{- define "flowhook.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "flowhook.labels" -}}
helm.sh/chart: {{ include "flowhook.chart" . }}
app.kubernetes.io/name: {{ include "flowhook.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: flowhook
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Labels of one role: (dict "root" $ "role" "engine"). */}}
{{- define "flowhook.roleLabels" -}}
{{ include "flowhook.labels" .root }}
app.kubernetes.io/component: {{ .role }}
{{- end -}}

{{- define "flowhook.selectorLabels" -}}
app.kubernetes.io/name: {{ include "flowhook.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .role }}
{{- end -}}

{{- define "flowhook.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "flowhook.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "flowhook.image" -}}
{{- $tag := default .Chart.AppVersion .Values.image.tag -}}
{{- if .Values.image.digest -}}
{{- printf "%s:%s@%s" .Values.image.repository $tag .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository $tag -}}
{{- end -}}
{{- end -}}

{{/* The Secret one `secrets.<entry>` reads from: its own name, else secrets.existingSecret, else the release's full name. */}}
{{- define "flowhook.secretName" -}}
{{- $entry := index .root.Values.secrets .entry -}}
{{- default (default (include "flowhook.fullname" .root) .root.Values.secrets.existingSecret) $entry.name -}}
{{- end -}}

{{/* An env entry read from a Secret: (dict "root" $ "env" "FLOWHOOK_DATABASE_URL" "entry" "databaseUrl"). */}}
{{- define "flowhook.secretEnv" -}}
- name: {{ .env }}
  valueFrom:
    secretKeyRef:
      name: {{ include "flowhook.secretName" . }}
      key: {{ (index .root.Values.secrets .entry).key }}
{{- end -}}

{{/* How the kubelet probes the engine: grpc or http (engine.probeMode, auto resolved). */}}
{{- define "flowhook.engineProbeMode" -}}
{{- $mode := .Values.engine.probeMode -}}
{{- if eq $mode "auto" -}}
{{- ternary "http" "grpc" .Values.tls.engine.enabled -}}
{{- else if and (eq $mode "grpc") .Values.tls.engine.enabled -}}
{{- fail "engine.probeMode grpc cannot work with tls.engine.enabled: the kubelet's gRPC probe speaks no TLS. Use http (the metrics port's /healthz and /readyz) or auto." -}}
{{- else if or (eq $mode "grpc") (eq $mode "http") -}}
{{- $mode -}}
{{- else -}}
{{- fail (printf "engine.probeMode must be auto, grpc or http, not %q" $mode) -}}
{{- end -}}
{{- end -}}

{{/* Where facade and workers reach the engines: the engine Service. */}}
{{- define "flowhook.engineUrl" -}}
{{- printf "%s://%s.%s.svc:%v" (ternary "https" "http" .Values.tls.engine.enabled) (include "flowhook.roleName" (dict "root" . "role" "engine")) .Release.Namespace .Values.engine.port -}}
{{- end -}}

{{- define "flowhook.publicUrl" -}}
{{- if .Values.publicUrl -}}
{{- .Values.publicUrl | trimSuffix "/" -}}
{{- else if and .Values.ingress.enabled .Values.ingress.hosts -}}
{{- printf "%s://%s" (ternary "https" "http" (ne .Values.ingress.tlsSecretName "")) (first .Values.ingress.hosts) -}}
{{- else -}}
{{- printf "%s://%s.%s.svc:%v" (ternary "https" "http" .Values.tls.facade.enabled) (include "flowhook.roleName" (dict "root" . "role" "facade")) .Release.Namespace .Values.facade.service.port -}}
{{- end -}}
{{- end -}}

{{/* The host of console.publicUrl. */}}
{{- define "flowhook.consoleHost" -}}
{{- (urlParse .Values.console.publicUrl).host | splitList ":" | first -}}
{{- end -}}

{{/* Checks that stop a render whose values cannot work, with the reason. */}}
{{- define "flowhook.validate" -}}
{{- if and .Values.tls.engine.enabled (not .Values.tls.engine.existingSecret) -}}
{{- fail "tls.engine.enabled needs tls.engine.existingSecret (a kubernetes.io/tls Secret whose SANs name the engine Service)" -}}
{{- end -}}
{{- if and .Values.tls.engine.mutual.enabled (not .Values.tls.engine.enabled) -}}
{{- fail "tls.engine.mutual.enabled needs tls.engine.enabled" -}}
{{- end -}}
{{- if and .Values.tls.engine.mutual.enabled (or (not .Values.tls.engine.mutual.facadeSecret) (not .Values.tls.engine.mutual.workerSecret)) -}}
{{- fail "tls.engine.mutual.enabled needs tls.engine.mutual.facadeSecret and tls.engine.mutual.workerSecret (client certificates whose CN is each one's service account)" -}}
{{- end -}}
{{- if and .Values.tls.facade.enabled (not .Values.tls.facade.existingSecret) -}}
{{- fail "tls.facade.enabled needs tls.facade.existingSecret" -}}
{{- end -}}
{{- if and .Values.temporal.tls.enabled (or .Values.temporal.tls.ca .Values.temporal.tls.clientCertificate) (not .Values.temporal.tls.existingSecret) -}}
{{- fail "temporal.tls.ca and temporal.tls.clientCertificate read temporal.tls.existingSecret: name it, or turn both off to trust the system roots" -}}
{{- end -}}
{{- if .Values.console.enabled -}}
{{- if not (hasPrefix "https://" .Values.console.publicUrl) -}}
{{- fail "console.enabled needs console.publicUrl, the https URL people open (the console refuses to listen beyond loopback without one)" -}}
{{- end -}}
{{- if and (not .Values.tls.engine.enabled) (not .Values.console.insecure) -}}
{{- fail "the console needs TLS on its listener (tls.engine.enabled) or console.insecure behind a proxy that terminates TLS" -}}
{{- end -}}
{{- end -}}
{{- if and .Values.worker.keda.enabled (lt (int .Values.worker.keda.minReplicaCount) 1) -}}
{{- fail "worker.keda.minReplicaCount must be at least 1: without a worker polling, facades are not ready, no call comes in and the backlog never grows to scale up" -}}
{{- end -}}
{{- if and .Values.serviceMonitor.enabled (not .Values.secrets.metricsToken.enabled) -}}
{{- fail "serviceMonitor.enabled needs secrets.metricsToken.enabled: /metrics answers non-loopback scrapers only with the metrics token" -}}
{{- end -}}
{{- if and .Values.console.ingress.enabled (not .Values.console.enabled) -}}
{{- fail "console.ingress.enabled needs console.enabled" -}}
{{- end -}}
{{- end -}}

{{/* One NetworkPolicy rule of {ports, to}: `to` left out when empty (any destination on those ports). */}}{{- define "flowhook.networkPolicy.rule" -}}
- ports:
    {{- toYaml .ports | nindent 4 }}
  {{- with .to }}
  to:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end -}}
