{{/*
The pod of each role: one Deployment shape (flowhook.deployment) filled with the role's ports, probes,
environment and mounts. Every pod passes the restricted Pod Security Standard: non-root, RuntimeDefault
seccomp, no privilege escalation, no capabilities, read-only root filesystem with emptyDir /tmp and /data.
*/}}

{{/* Volumes of a role: (dict "root" $ "role" "engine"). */}}
{{- define "flowhook.volumes" -}}
{{- $v := .root.Values -}}
- name: tmp
  emptyDir:
    sizeLimit: {{ $v.writableVolumes.tmpSizeLimit }}
- name: data
  emptyDir:
    sizeLimit: {{ $v.writableVolumes.dataSizeLimit }}
{{- if and (eq .role "engine") $v.tls.engine.enabled }}
- name: engine-tls
  secret:
    secretName: {{ $v.tls.engine.existingSecret }}
    defaultMode: 0440
    items:
      - { key: tls.crt, path: tls.crt }
      - { key: tls.key, path: tls.key }
{{- if $v.tls.engine.mutual.enabled }}
{{- $ca := $v.tls.engine.mutual.clientCa }}
- name: engine-client-ca
  secret:
    secretName: {{ default (default $v.tls.engine.existingSecret $v.tls.engine.ca.name) $ca.name }}
    defaultMode: 0440
    items:
      - { key: {{ $ca.key }}, path: ca.crt }
{{- end }}
{{- end }}
{{- if $v.tls.engine.enabled }}
{{- /* On engines too: admin commands run there (kubectl exec) trust the engine through it. */}}
- name: engine-ca
  secret:
    secretName: {{ default $v.tls.engine.existingSecret $v.tls.engine.ca.name }}
    defaultMode: 0440
    items:
      - { key: {{ $v.tls.engine.ca.key }}, path: ca.crt }
{{- end }}
{{- if and (ne .role "engine") $v.tls.engine.enabled }}
{{- if $v.tls.engine.mutual.enabled }}
- name: client-tls
  secret:
    secretName: {{ ternary $v.tls.engine.mutual.facadeSecret $v.tls.engine.mutual.workerSecret (eq .role "facade") }}
    defaultMode: 0440
    items:
      - { key: tls.crt, path: tls.crt }
      - { key: tls.key, path: tls.key }
{{- end }}
{{- end }}
{{- if and (eq .role "facade") $v.tls.facade.enabled }}
- name: facade-tls
  secret:
    secretName: {{ $v.tls.facade.existingSecret }}
    defaultMode: 0440
    items:
      - { key: tls.crt, path: tls.crt }
      - { key: tls.key, path: tls.key }
{{- end }}
{{- if and (ne .role "facade") $v.temporal.tls.enabled (or $v.temporal.tls.ca $v.temporal.tls.clientCertificate) }}
- name: temporal-tls
  secret:
    secretName: {{ $v.temporal.tls.existingSecret }}
    defaultMode: 0440
    items:
      {{- if $v.temporal.tls.ca }}
      - { key: ca.crt, path: ca.crt }
      {{- end }}
      {{- if $v.temporal.tls.clientCertificate }}
      - { key: tls.crt, path: tls.crt }
      - { key: tls.key, path: tls.key }
      {{- end }}
{{- end }}
{{- end -}}

{{/* Mounts of a role, one per volume above. */}}
{{- define "flowhook.volumeMounts" -}}
{{- $v := .root.Values -}}
- { name: tmp, mountPath: /tmp }
- { name: data, mountPath: /data }
{{- if and (eq .role "engine") $v.tls.engine.enabled }}
- { name: engine-tls, mountPath: /etc/flowhook/tls/engine, readOnly: true }
{{- if $v.tls.engine.mutual.enabled }}
- { name: engine-client-ca, mountPath: /etc/flowhook/tls/engine-client-ca, readOnly: true }
{{- end }}
{{- end }}
{{- if $v.tls.engine.enabled }}
- { name: engine-ca, mountPath: /etc/flowhook/tls/engine-ca, readOnly: true }
{{- end }}
{{- if and (ne .role "engine") $v.tls.engine.enabled }}
{{- if $v.tls.engine.mutual.enabled }}
- { name: client-tls, mountPath: /etc/flowhook/tls/client, readOnly: true }
{{- end }}
{{- end }}
{{- if and (eq .role "facade") $v.tls.facade.enabled }}
- { name: facade-tls, mountPath: /etc/flowhook/tls/facade, readOnly: true }
{{- end }}
{{- if and (ne .role "facade") $v.temporal.tls.enabled (or $v.temporal.tls.ca $v.temporal.tls.clientCertificate) }}
- { name: temporal-tls, mountPath: /etc/flowhook/tls/temporal, readOnly: true }
{{- end }}
{{- end -}}

{{/* Container ports of a role. */}}
{{- define "flowhook.ports" -}}
{{- $v := .root.Values -}}
{{- if eq .role "facade" -}}
- { name: http, containerPort: {{ $v.facade.port }}, protocol: TCP }
- { name: metrics, containerPort: {{ $v.facade.metricsPort }}, protocol: TCP }
{{- else if eq .role "engine" }}
- { name: grpc, containerPort: {{ $v.engine.port }}, protocol: TCP }
- { name: metrics, containerPort: {{ $v.engine.metricsPort }}, protocol: TCP }
{{- if $v.console.enabled }}
- { name: console, containerPort: {{ $v.console.port }}, protocol: TCP }
{{- end }}
{{- else }}
- { name: metrics, containerPort: {{ $v.worker.metricsPort }}, protocol: TCP }
{{- end }}
{{- end -}}

{{/* The default probes of a role, as {startupProbe, livenessProbe, readinessProbe}; values replace any of them. */}}
{{- define "flowhook.defaultProbes" -}}
{{- $v := .root.Values -}}
{{- if eq .role "facade" }}
{{- $scheme := ternary "HTTPS" "HTTP" $v.tls.facade.enabled }}
startupProbe: { httpGet: { path: /healthz, port: http, scheme: {{ $scheme }} }, periodSeconds: 2, failureThreshold: 30 }
livenessProbe: { httpGet: { path: /healthz, port: http, scheme: {{ $scheme }} }, periodSeconds: 10, timeoutSeconds: 2, failureThreshold: 3 }
readinessProbe: { httpGet: { path: /readyz, port: http, scheme: {{ $scheme }} }, periodSeconds: 5, timeoutSeconds: 3, failureThreshold: 2 }
{{- else if eq .role "engine" }}
{{- if eq (include "flowhook.engineProbeMode" .root) "grpc" }}
startupProbe: { grpc: { port: {{ $v.engine.port }} }, periodSeconds: 5, failureThreshold: 60 }
livenessProbe: { grpc: { port: {{ $v.engine.port }} }, periodSeconds: 10, timeoutSeconds: 2, failureThreshold: 3 }
readinessProbe: { grpc: { port: {{ $v.engine.port }}, service: {{ $v.engine.grpcReadinessService | quote }} }, periodSeconds: 5, timeoutSeconds: 2, failureThreshold: 2 }
{{- else }}
startupProbe: { httpGet: { path: /healthz, port: metrics }, periodSeconds: 5, failureThreshold: 60 }
livenessProbe: { httpGet: { path: /healthz, port: metrics }, periodSeconds: 10, timeoutSeconds: 2, failureThreshold: 3 }
readinessProbe: { httpGet: { path: /readyz, port: metrics }, periodSeconds: 5, timeoutSeconds: 2, failureThreshold: 2 }
{{- end }}
{{- else }}
startupProbe: { httpGet: { path: /healthz, port: metrics }, periodSeconds: 2, failureThreshold: 60 }
livenessProbe: { httpGet: { path: /healthz, port: metrics }, periodSeconds: 10, timeoutSeconds: 2, failureThreshold: 3 }
readinessProbe: { httpGet: { path: /readyz, port: metrics }, periodSeconds: 10, timeoutSeconds: 3, failureThreshold: 3 }
{{- end }}
{{- end -}}

{{/* One role's Deployment: (dict "root" $ "role" "engine" "replicas" <int or nil>). */}}
{{- define "flowhook.deployment" -}}
{{- $root := .root -}}
{{- $v := $root.Values -}}
{{- $r := index $v .role -}}
{{- $probes := include "flowhook.defaultProbes" . | fromYaml -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "flowhook.roleName" . }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "flowhook.roleLabels" . | nindent 4 }}
spec:
  {{- if not (kindIs "invalid" .replicas) }}
  replicas: {{ .replicas }}
  {{- end }}
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      {{- include "flowhook.selectorLabels" . | nindent 6 }}
  strategy:
    type: RollingUpdate
    rollingUpdate: { maxSurge: 25%, maxUnavailable: 0 }
  template:
    metadata:
      labels:
        {{- include "flowhook.roleLabels" . | nindent 8 }}
        {{- with $r.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      {{- if or $v.secrets.create $r.podAnnotations }}
      annotations:
        {{- if $v.secrets.create }}
        # Pods roll when the Secret the chart made changes.
        checksum/secret: {{ include (print $root.Template.BasePath "/secret.yaml") $root | sha256sum }}
        {{- end }}
        {{- with $r.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      {{- end }}
    spec:
      serviceAccountName: {{ include "flowhook.serviceAccountName" $root }}
      automountServiceAccountToken: false
      # Service links would add FLOWHOOK_ENGINE_PORT=tcp://… and the like for Services named flowhook-engine, …:
      # variables that read as flowhook settings.
      enableServiceLinks: false
      {{- with $v.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $r.priorityClassName }}
      priorityClassName: {{ . }}
      {{- end }}
      terminationGracePeriodSeconds: {{ $r.terminationGracePeriodSeconds }}
      securityContext:
        {{- toYaml $v.podSecurityContext | nindent 8 }}
      containers:
        - name: {{ .role }}
          image: {{ include "flowhook.image" $root | quote }}
          imagePullPolicy: {{ $v.image.pullPolicy }}
          {{- with $v.image.command }}
          command:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          args: [{{ .role | quote }}]
          securityContext:
            {{- toYaml $v.securityContext | nindent 12 }}
          ports:
            {{- include "flowhook.ports" . | trim | nindent 12 }}
          env:
            {{- include (printf "flowhook.env.%s" .role) $root | nindent 12 }}
          {{- range $probe := list "startupProbe" "livenessProbe" "readinessProbe" }}
          {{ $probe }}:
            {{- toYaml (default (index $probes $probe) (index $r $probe)) | nindent 12 }}
          {{- end }}
          {{- if gt (int (default 0 $r.preStopSleepSeconds)) 0 }}
          lifecycle:
            # Keep serving while the endpoints controller and the load balancers drop this pod; then SIGTERM.
            preStop:
              sleep:
                seconds: {{ $r.preStopSleepSeconds }}
          {{- end }}
          resources:
            {{- toYaml $r.resources | nindent 12 }}
          volumeMounts:
            {{- include "flowhook.volumeMounts" . | trim | nindent 12 }}
      volumes:
        {{- include "flowhook.volumes" . | trim | nindent 8 }}
      {{- with $r.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $r.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $r.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      topologySpreadConstraints:
        {{- if $r.topologySpreadConstraints }}
        {{- toYaml $r.topologySpreadConstraints | nindent 8 }}
        {{- else }}
        - maxSkew: 1
          topologyKey: kubernetes.io/hostname
          whenUnsatisfiable: ScheduleAnyway
          labelSelector:
            matchLabels:
              {{- include "flowhook.selectorLabels" . | nindent 14 }}
        {{- end }}
{{- end -}}
