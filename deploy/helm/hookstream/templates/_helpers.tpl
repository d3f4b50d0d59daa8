{{/*
Names and labels. Kubernetes names are at most 63 characters, hence the truncation.
*/}}
{{- define "hookstream.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "hookstream.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Component names leave room for the suffix (ReplicaSet and pod hashes are added later). */}}
{{- define "hookstream.ingress.fullname" -}}
{{- printf "%s-ingress" (include "hookstream.fullname" . | trunc 45 | trimSuffix "-") }}
{{- end }}

{{- define "hookstream.pusher.fullname" -}}
{{- printf "%s-pusher" (include "hookstream.fullname" . | trunc 45 | trimSuffix "-") }}
{{- end }}

{{- define "hookstream.api.fullname" -}}
{{- printf "%s-api" (include "hookstream.fullname" . | trunc 45 | trimSuffix "-") }}
{{- end }}

{{- define "hookstream.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "hookstream.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "hookstream.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "hookstream.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/* Labels every object carries; call with (dict "root" $ "component" "ingress"). */}}
{{- define "hookstream.labels" -}}
helm.sh/chart: {{ include "hookstream.chart" .root }}
{{ include "hookstream.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: hookstream
{{- end }}

{{/* Selector labels never change after install (a Deployment's selector is immutable). */}}
{{- define "hookstream.selectorLabels" -}}
app.kubernetes.io/name: {{ include "hookstream.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
{{- if .component }}
app.kubernetes.io/component: {{ .component }}
{{- end }}
{{- end }}

{{/*
Fails the render on settings that would only fail later inside a pod, with the value to fix.
*/}}
{{- define "hookstream.validate" -}}
{{- $k := .Values.kafka -}}
{{- if and $k.tls.clientCert.secretName (not $k.tls.enabled) }}
{{- fail "kafka.tls.clientCert is set but kafka.tls.enabled is false: a client certificate needs TLS" }}
{{- end }}
{{- if and $k.tls.ca.secretName (not $k.tls.enabled) }}
{{- fail "kafka.tls.ca is set but kafka.tls.enabled is false" }}
{{- end }}
{{- if $k.sasl.mechanism }}
{{- if not $k.sasl.username }}
{{- fail "kafka.sasl.mechanism is set: kafka.sasl.username is required" }}
{{- end }}
{{- if not $k.sasl.passwordSecret.name }}
{{- fail "kafka.sasl.mechanism is set: kafka.sasl.passwordSecret.name (an existing Secret) is required" }}
{{- end }}
{{- end }}
{{- if and .Values.registry.username (not .Values.registry.passwordSecret.name) }}
{{- fail "registry.username is set: registry.passwordSecret.name (an existing Secret) is required" }}
{{- end }}
{{- if and .Values.registry.caSecret.name (not (hasPrefix "https://" .Values.registry.url)) }}
{{- fail "registry.caSecret is set but registry.url is not https:// (the components refuse REGISTRY_CA_FILE without TLS)" }}
{{- end }}
{{- $api := .Values.api.kafkaSasl }}
{{- if and (or $api.username $api.passwordSecret.name) (not $k.sasl.mechanism) }}
{{- fail "api.kafkaSasl is set but kafka.sasl.mechanism is empty: the API's own principal needs SASL" }}
{{- end }}
{{- if ne (empty $api.username) (empty $api.passwordSecret.name) }}
{{- fail "api.kafkaSasl: set both username and passwordSecret.name (an existing Secret), or neither" }}
{{- end }}
{{- if and .Values.keda.enabled (eq (len .Values.keda.subscribers) 0) }}
{{- fail "keda.enabled: list at least one subscriber name in keda.subscribers (their consumer lag drives the scaling)" }}
{{- end }}
{{- end }}

{{/*
Connection settings both components read, by the same variable names. Secrets are never
inlined: a password is a file from a mounted Secret (the *_FILE variables), or a secretKeyRef.
*/}}
{{- define "hookstream.connectionEnv" -}}
{{- $k := .Values.kafka -}}
- name: KAFKA_BROKERS
  value: {{ required "kafka.brokers is required (comma-separated host:port)" $k.brokers | quote }}
- name: KAFKA_TLS
  value: {{ $k.tls.enabled | quote }}
{{- if $k.tls.enabled }}
- name: KAFKA_TLS_CHECK_SERVER_NAME
  value: {{ $k.tls.checkServerName | quote }}
{{- if $k.tls.ca.secretName }}
- name: KAFKA_TLS_CA_FILE
  value: /etc/hookstream/kafka-tls/ca.crt
{{- end }}
{{- if $k.tls.clientCert.secretName }}
- name: KAFKA_TLS_CERT_FILE
  value: /etc/hookstream/kafka-tls/client.crt
- name: KAFKA_TLS_KEY_FILE
  value: /etc/hookstream/kafka-tls/client.key
{{- end }}
{{- end }}
{{- if $k.sasl.mechanism }}
- name: KAFKA_SASL_MECHANISM
  value: {{ $k.sasl.mechanism | quote }}
- name: KAFKA_SASL_USERNAME
  value: {{ $k.sasl.username | quote }}
- name: KAFKA_SASL_PASSWORD_FILE
  value: /etc/hookstream/kafka-sasl/password
{{- end }}
- name: REGISTRY_URL
  value: {{ required "registry.url is required" .Values.registry.url | quote }}
{{- if .Values.registry.username }}
- name: REGISTRY_USERNAME
  value: {{ .Values.registry.username | quote }}
- name: REGISTRY_PASSWORD_FILE
  value: /etc/hookstream/registry/password
{{- end }}
{{- if .Values.registry.caSecret.name }}
- name: REGISTRY_CA_FILE
  value: /etc/hookstream/registry-ca/ca.crt
{{- end }}
{{- if .Values.limiterRedis.urlSecret.name }}
- name: HOOKSTREAM_LIMITER_REDIS
  valueFrom:
    secretKeyRef:
      name: {{ .Values.limiterRedis.urlSecret.name | quote }}
      key: {{ .Values.limiterRedis.urlSecret.key | quote }}
{{- end }}
{{- if .Values.otel.endpoint }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ .Values.otel.endpoint | quote }}
{{- end }}
{{- /* The production default (values.yaml): a share of new traces; null leaves both unset. */}}
{{- if not (kindIs "invalid" .Values.otel.sampleRatio) }}
- name: OTEL_TRACES_SAMPLER
  value: parentbased_traceidratio
- name: OTEL_TRACES_SAMPLER_ARG
  value: {{ .Values.otel.sampleRatio | toString | quote }}
{{- end }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/*
Secret-backed volumes both components mount read-only. Only keys that are asked for are
projected, under fixed file names the *_FILE variables above point at.
*/}}
{{- define "hookstream.connectionVolumes" -}}
{{- $k := .Values.kafka -}}
- name: tmp
  emptyDir:
    sizeLimit: 64Mi
{{- if and $k.tls.enabled (or $k.tls.ca.secretName $k.tls.clientCert.secretName) }}
- name: kafka-tls
  projected:
    defaultMode: 0440
    sources:
      {{- if $k.tls.ca.secretName }}
      - secret:
          name: {{ $k.tls.ca.secretName | quote }}
          items:
            - key: {{ $k.tls.ca.key | quote }}
              path: ca.crt
      {{- end }}
      {{- if $k.tls.clientCert.secretName }}
      - secret:
          name: {{ $k.tls.clientCert.secretName | quote }}
          items:
            - key: {{ $k.tls.clientCert.certKey | quote }}
              path: client.crt
            - key: {{ $k.tls.clientCert.keyKey | quote }}
              path: client.key
      {{- end }}
{{- end }}
{{- if $k.sasl.mechanism }}
- name: kafka-sasl
  secret:
    secretName: {{ $k.sasl.passwordSecret.name | quote }}
    defaultMode: 0440
    items:
      - key: {{ $k.sasl.passwordSecret.key | quote }}
        path: password
{{- end }}
{{- if .Values.registry.username }}
- name: registry-password
  secret:
    secretName: {{ .Values.registry.passwordSecret.name | quote }}
    defaultMode: 0440
    items:
      - key: {{ .Values.registry.passwordSecret.key | quote }}
        path: password
{{- end }}
{{- if .Values.registry.caSecret.name }}
- name: registry-ca
  secret:
    secretName: {{ .Values.registry.caSecret.name | quote }}
    defaultMode: 0440
    items:
      - key: {{ .Values.registry.caSecret.key | quote }}
        path: ca.crt
{{- end }}
{{- end }}

{{- define "hookstream.connectionVolumeMounts" -}}
{{- $k := .Values.kafka -}}
# Node and its libraries write temporary files here; the root filesystem is read-only.
- name: tmp
  mountPath: /tmp
{{- if and $k.tls.enabled (or $k.tls.ca.secretName $k.tls.clientCert.secretName) }}
- name: kafka-tls
  mountPath: /etc/hookstream/kafka-tls
  readOnly: true
{{- end }}
{{- if $k.sasl.mechanism }}
- name: kafka-sasl
  mountPath: /etc/hookstream/kafka-sasl
  readOnly: true
{{- end }}
{{- if .Values.registry.username }}
- name: registry-password
  mountPath: /etc/hookstream/registry
  readOnly: true
{{- end }}
{{- if .Values.registry.caSecret.name }}
- name: registry-ca
  mountPath: /etc/hookstream/registry-ca
  readOnly: true
{{- end }}
{{- end }}

{{/* The pod-level settings both Deployments share. */}}
{{- define "hookstream.podSpecCommon" -}}
serviceAccountName: {{ include "hookstream.serviceAccountName" . }}
# hookstream never calls the Kubernetes API: no token in the pods.
automountServiceAccountToken: false
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- end }}
