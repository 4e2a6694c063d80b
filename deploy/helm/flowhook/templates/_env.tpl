{{/*
The environment of each role. The chart's own entries come first, then `env` (global, then the role's) and
`extraEnv`: Kubernetes keeps the last entry of a name, so the operator's values win. Secrets are only ever
`secretKeyRef`s; file paths point into the TLS mounts of _pod.tpl.
*/}}

{{/* Entries of a {NAME: value} map, sorted by name. */}}
{{- define "flowhook.envMap" -}}
{{- range $name, $value := . }}
- name: {{ $name }}
  value: {{ $value | toString | quote }}
{{- end }}
{{- end -}}

{{/* What every role reads the same way. */}}
{{- define "flowhook.env.common" -}}
- name: FLOWHOOK_LOG_LEVEL
  value: {{ .Values.logLevel | quote }}
# The kubelet and Prometheus reach the metrics ports from outside the pod; /metrics itself still needs the token.
- name: FLOWHOOK_METRICS_HOST
  value: 0.0.0.0
{{- if .Values.secrets.metricsToken.enabled }}
{{ include "flowhook.secretEnv" (dict "root" . "env" "FLOWHOOK_METRICS_TOKEN" "entry" "metricsToken") }}
{{- end }}
{{- end -}}

{{/* Temporal, for engines and workers. */}}
{{- define "flowhook.env.temporal" -}}
- name: TEMPORAL_ADDRESS
  value: {{ .Values.temporal.address | quote }}
- name: TEMPORAL_NAMESPACE
  value: {{ .Values.temporal.namespace | quote }}
- name: FLOWHOOK_TASK_QUEUE
  value: {{ .Values.taskQueue | quote }}
{{- if .Values.temporal.tls.enabled }}
- name: TEMPORAL_TLS
  value: "true"
{{- with .Values.temporal.tls.serverName }}
- name: TEMPORAL_TLS_SERVER_NAME
  value: {{ . | quote }}
{{- end }}
{{- if .Values.temporal.tls.ca }}
- name: TEMPORAL_TLS_CA
  value: /etc/flowhook/tls/temporal/ca.crt
{{- end }}
{{- if .Values.temporal.tls.clientCertificate }}
- name: TEMPORAL_TLS_CERT
  value: /etc/flowhook/tls/temporal/tls.crt
- name: TEMPORAL_TLS_KEY
  value: /etc/flowhook/tls/temporal/tls.key
{{- end }}
{{- end }}
{{- if .Values.temporal.apiKey.enabled }}
{{ include "flowhook.secretEnv" (dict "root" . "env" "TEMPORAL_API_KEY" "entry" "temporalApiKey") }}
{{- end }}
{{- end -}}

{{/* How facade and workers reach the engine. */}}
{{- define "flowhook.env.engineClient" -}}
- name: FLOWHOOK_ENGINE_URL
  value: {{ include "flowhook.engineUrl" . | quote }}
{{- if .Values.tls.engine.enabled }}
- name: FLOWHOOK_ENGINE_CA
  value: /etc/flowhook/tls/engine-ca/ca.crt
{{- if .Values.tls.engine.mutual.enabled }}
- name: FLOWHOOK_ENGINE_CLIENT_CERT
  value: /etc/flowhook/tls/client/tls.crt
- name: FLOWHOOK_ENGINE_CLIENT_KEY
  value: /etc/flowhook/tls/client/tls.key
{{- end }}
{{- end }}
{{- end -}}

{{/* Entries the operator adds: global env, the role's env, global extraEnv, the role's extraEnv. */}}
{{- define "flowhook.env.operator" -}}
{{- $role := index .root.Values .role -}}
{{- include "flowhook.envMap" (merge (dict) $role.env .root.Values.env) }}
{{- with .root.Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- with $role.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "flowhook.env.facade" -}}
{{ include "flowhook.env.common" . }}
- name: FLOWHOOK_FACADE_HOST
  value: 0.0.0.0
- name: FLOWHOOK_FACADE_PORT
  value: {{ .Values.facade.port | quote }}
- name: FLOWHOOK_FACADE_METRICS_PORT
  value: {{ .Values.facade.metricsPort | quote }}
- name: FLOWHOOK_PUBLIC_URL
  value: {{ include "flowhook.publicUrl" . | quote }}
- name: FLOWHOOK_INSTANCE
  value: {{ .Values.instance | quote }}
{{- with .Values.facade.trustedProxies }}
- name: FLOWHOOK_TRUSTED_PROXIES
  value: {{ . | quote }}
{{- end }}
{{- with .Values.facade.oauth.issuers }}
- name: FLOWHOOK_OAUTH_ISSUERS
  value: {{ . | quote }}
{{- end }}
{{- with .Values.facade.oauth.audience }}
- name: FLOWHOOK_OAUTH_AUDIENCE
  value: {{ . | quote }}
{{- end }}
- name: FLOWHOOK_BASIC_AUTH
  value: {{ .Values.facade.oauth.basicAuth | quote }}
{{- if .Values.tls.facade.enabled }}
- name: FLOWHOOK_FACADE_TLS_CERT
  value: /etc/flowhook/tls/facade/tls.crt
- name: FLOWHOOK_FACADE_TLS_KEY
  value: /etc/flowhook/tls/facade/tls.key
{{- end }}
{{ include "flowhook.env.engineClient" . }}
{{ include "flowhook.secretEnv" (dict "root" . "env" "FLOWHOOK_ENGINE_TOKEN" "entry" "facadeEngineToken") }}
{{- include "flowhook.env.operator" (dict "root" . "role" "facade") }}
{{- end -}}

{{- define "flowhook.env.engine" -}}
{{ include "flowhook.env.common" . }}
- name: FLOWHOOK_ENGINE_HOST
  value: 0.0.0.0
- name: FLOWHOOK_ENGINE_PORT
  value: {{ .Values.engine.port | quote }}
- name: FLOWHOOK_ENGINE_METRICS_PORT
  value: {{ .Values.engine.metricsPort | quote }}
- name: FLOWHOOK_FACADE_PORT
  value: {{ .Values.facade.port | quote }}
- name: FLOWHOOK_PUBLIC_URL
  value: {{ include "flowhook.publicUrl" . | quote }}
- name: FLOWHOOK_INSTANCE
  value: {{ .Values.instance | quote }}
{{- if .Values.tls.engine.enabled }}
- name: FLOWHOOK_ENGINE_TLS_CERT
  value: /etc/flowhook/tls/engine/tls.crt
- name: FLOWHOOK_ENGINE_TLS_KEY
  value: /etc/flowhook/tls/engine/tls.key
{{- if .Values.tls.engine.mutual.enabled }}
- name: FLOWHOOK_ENGINE_TLS_CLIENT_CA
  value: /etc/flowhook/tls/engine-client-ca/ca.crt
{{- end }}
# For admin commands run in this container (kubectl exec), over loopback, so they work while no engine is
# ready (bootstrap): the certificate names localhost too. The engine itself reads neither.
- name: FLOWHOOK_ENGINE_URL
  value: {{ printf "https://localhost:%v" .Values.engine.port | quote }}
- name: FLOWHOOK_ENGINE_CA
  value: /etc/flowhook/tls/engine-ca/ca.crt
{{- else }}
# No TLS: h2c on the pod network, which the engine refuses unless told the network is trusted (NetworkPolicies).
- name: FLOWHOOK_ENGINE_INSECURE
  value: "true"
{{- end }}
{{ include "flowhook.secretEnv" (dict "root" . "env" "FLOWHOOK_DATABASE_URL" "entry" "databaseUrl") }}
{{ include "flowhook.secretEnv" (dict "root" . "env" "FLOWHOOK_PAYLOAD_KEY" "entry" "payloadKey") }}
{{ include "flowhook.secretEnv" (dict "root" . "env" "FLOWHOOK_SECRETS_KEY" "entry" "secretsKey") }}
{{- if .Values.secrets.adminToken.enabled }}
{{ include "flowhook.secretEnv" (dict "root" . "env" "FLOWHOOK_ADMIN_TOKEN" "entry" "adminToken") }}
{{- end }}
{{ include "flowhook.env.temporal" . }}
{{- if .Values.console.enabled }}
- name: FLOWHOOK_CONSOLE_PORT
  value: {{ .Values.console.port | quote }}
- name: FLOWHOOK_CONSOLE_HOST
  value: 0.0.0.0
- name: FLOWHOOK_CONSOLE_PUBLIC_URL
  value: {{ .Values.console.publicUrl | quote }}
{{- if and .Values.console.insecure (not .Values.tls.engine.enabled) }}
- name: FLOWHOOK_CONSOLE_INSECURE
  value: "true"
{{- end }}
{{- with .Values.console.temporalUiUrl }}
- name: FLOWHOOK_TEMPORAL_UI_URL
  value: {{ . | quote }}
{{- end }}
{{- with .Values.console.oidc }}
{{- if .issuer }}
- name: FLOWHOOK_CONSOLE_OIDC_ISSUER
  value: {{ .issuer | quote }}
- name: FLOWHOOK_CONSOLE_OIDC_CLIENT_ID
  value: {{ required "console.oidc.clientId is required with console.oidc.issuer" .clientId | quote }}
{{- with .rolesClaim }}
- name: FLOWHOOK_CONSOLE_OIDC_ROLES_CLAIM
  value: {{ . | quote }}
{{- end }}
{{- with .scopes }}
- name: FLOWHOOK_CONSOLE_OIDC_SCOPES
  value: {{ . | quote }}
{{- end }}
{{- end }}
{{- end }}
{{- if and .Values.console.oidc.issuer .Values.console.oidc.clientSecret }}
{{ include "flowhook.secretEnv" (dict "root" . "env" "FLOWHOOK_CONSOLE_OIDC_CLIENT_SECRET" "entry" "oidcClientSecret") }}
{{- end }}
{{- end }}
{{- with .Values.engine.egressAllow }}
- name: FLOWHOOK_EGRESS_ALLOW
  value: {{ . | quote }}
{{- end }}
{{- include "flowhook.env.operator" (dict "root" . "role" "engine") }}
{{- end -}}

{{- define "flowhook.env.worker" -}}
{{ include "flowhook.env.common" . }}
- name: FLOWHOOK_WORKER_METRICS_PORT
  value: {{ .Values.worker.metricsPort | quote }}
# flowhook's own ports, which the worker refuses to flows.
- name: FLOWHOOK_FACADE_PORT
  value: {{ .Values.facade.port | quote }}
- name: FLOWHOOK_FACADE_METRICS_PORT
  value: {{ .Values.facade.metricsPort | quote }}
- name: FLOWHOOK_ENGINE_PORT
  value: {{ .Values.engine.port | quote }}
- name: FLOWHOOK_ENGINE_METRICS_PORT
  value: {{ .Values.engine.metricsPort | quote }}
- name: FLOWHOOK_CONSOLE_PORT
  value: {{ .Values.console.port | quote }}
{{- with .Values.worker.egressAllow }}
- name: FLOWHOOK_EGRESS_ALLOW
  value: {{ . | quote }}
{{- end }}
{{- with .Values.worker.workflowConcurrency | toString }}
- name: FLOWHOOK_WORKER_WORKFLOW_CONCURRENCY
  value: {{ . | quote }}
{{- end }}
{{- with .Values.worker.activityConcurrency | toString }}
- name: FLOWHOOK_WORKER_ACTIVITY_CONCURRENCY
  value: {{ . | quote }}
{{- end }}
{{ include "flowhook.env.engineClient" . }}
{{ include "flowhook.secretEnv" (dict "root" . "env" "FLOWHOOK_ENGINE_TOKEN" "entry" "workerEngineToken") }}
{{ include "flowhook.secretEnv" (dict "root" . "env" "FLOWHOOK_PAYLOAD_KEY" "entry" "payloadKey") }}
{{ include "flowhook.env.temporal" . }}
{{- include "flowhook.env.operator" (dict "root" . "role" "worker") }}
{{- end -}}
