{{/*
Names and labels. Every template below takes a chart context (.Values, .Release, .Chart). A parent chart that
includes hudi-tsd as a dependency passes the subchart's own context: (index .Subcharts "hudi-tsd").
*/}}
{{- define "hudi-tsd.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "hudi-tsd.fullname" -}}
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

{{- define "hudi-tsd.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "hudi-tsd.selectorLabels" -}}
app.kubernetes.io/name: {{ include "hudi-tsd.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "hudi-tsd.labels" -}}
helm.sh/chart: {{ include "hudi-tsd.chart" . }}
{{ include "hudi-tsd.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "hudi-tsd.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "hudi-tsd.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "hudi-tsd.image" -}}
{{- $tag := .Values.image.tag | default .Chart.AppVersion -}}
{{- if not $tag }}
{{- fail "hudi-tsd: image.tag is empty and the chart has no appVersion" }}
{{- end }}
{{- printf "%s:%s" .Values.image.repository (toString $tag) }}
{{- end }}

{{/* The Secret holding the API token, or nothing when the API is open. */}}
{{- define "hudi-tsd.tokenSecretName" -}}
{{- if .Values.apiToken.existingSecret }}
{{- .Values.apiToken.existingSecret }}
{{- else if .Values.apiToken.value }}
{{- printf "%s-token" (include "hudi-tsd.fullname" .) }}
{{- end }}
{{- end }}

{{- define "hudi-tsd.tokenSecretKey" -}}
{{- if .Values.apiToken.existingSecret }}
{{- .Values.apiToken.existingSecretKey | default "token" }}
{{- else }}
{{- "token" }}
{{- end }}
{{- end }}

{{/* The ConfigMap holding Hadoop's configuration files, or nothing. */}}
{{- define "hudi-tsd.hadoopConfigMapName" -}}
{{- if .Values.hadoop.configMap }}
{{- .Values.hadoop.configMap }}
{{- else if .Values.hadoop.files }}
{{- printf "%s-hadoop" (include "hudi-tsd.fullname" .) }}
{{- end }}
{{- end }}

{{/*
The global hoodie.* keys of tsd.yml: config.hoodie plus the ZooKeeper lock keys from `zookeeper`, as YAML.
*/}}
{{- define "hudi-tsd.hoodieKeys" -}}
{{- $zookeeperProvider := "org.apache.hudi.client.transaction.lock.ZookeeperBasedLockProvider" }}
{{- $hoodie := deepCopy (.Values.config.hoodie | default dict) }}
{{- $provider := get $hoodie "hoodie.write.lock.provider" }}
{{- if .Values.zookeeper.connect }}
{{- if and $provider (ne $provider $zookeeperProvider) }}
{{- fail (printf "hudi-tsd: zookeeper.connect is set, and config.hoodie sets hoodie.write.lock.provider to %s; set one of them" $provider) }}
{{- end }}
{{- $_ := set $hoodie "hoodie.write.lock.provider" $zookeeperProvider }}
{{- $_ := set $hoodie "hoodie.write.lock.zookeeper.url" .Values.zookeeper.connect }}
{{- $_ := set $hoodie "hoodie.write.lock.zookeeper.base_path" (required "hudi-tsd: zookeeper.lockBasePath is required with zookeeper.connect" .Values.zookeeper.lockBasePath) }}
{{- if .Values.zookeeper.sessionTimeoutMs }}
{{- $_ := set $hoodie "hoodie.write.lock.zookeeper.session_timeout_ms" (.Values.zookeeper.sessionTimeoutMs | int64 | toString) }}
{{- end }}
{{- if .Values.zookeeper.connectionTimeoutMs }}
{{- $_ := set $hoodie "hoodie.write.lock.zookeeper.connection_timeout_ms" (.Values.zookeeper.connectionTimeoutMs | int64 | toString) }}
{{- end }}
{{- end }}
{{- toYaml $hoodie }}
{{- end }}

{{/* Whether a lock is configured that writers in other pods can share: a provider other than Hudi's in-process one.
With none, the daemon takes its storage lock on file/hdfs tables and refuses object-store tables; the chart does not
count that as shared, since it cannot tell the tables' stores and writers would have to name the daemon's class. */}}
{{- define "hudi-tsd.sharedLock" -}}
{{- $provider := get (fromYaml (include "hudi-tsd.hoodieKeys" .)) "hoodie.write.lock.provider" }}
{{- if and $provider (ne $provider "org.apache.hudi.client.transaction.lock.InProcessLockProvider") }}true{{ end }}
{{- end }}

{{/*
The lock settings a writer of the same tables needs beside the daemon, in Java properties format (for a Hudi
Streamer --props file, or as --hoodie-conf options): multi-writer mode, lazy cleaning of failed writes and the
daemon's hoodie.write.lock.* keys.
*/}}
{{- define "hudi-tsd.writerLockProperties" -}}
{{- if not (include "hudi-tsd.sharedLock" .) }}
{{- fail "hudi-tsd: writers in another process share no lock with the daemon: set zookeeper.connect (or a lock provider in config.hoodie)" }}
{{- end }}
{{- $hoodie := fromYaml (include "hudi-tsd.hoodieKeys" .) -}}
hoodie.write.concurrency.mode=OPTIMISTIC_CONCURRENCY_CONTROL
hoodie.cleaner.policy.failed.writes=LAZY
{{- range $key := keys $hoodie | sortAlpha }}
{{- if hasPrefix "hoodie.write.lock." $key }}
{{ $key }}={{ get $hoodie $key }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The ha section of tsd.yml from `zookeeper` (the ensemble of the table lock), as YAML, or nothing: rendered for the
Deployment when zookeeper.connect is set and zookeeper.ha.enabled, unless config.ha is given. Every replica reads the
same ConfigMap, so replicaId is left to the daemon's default, hostname-pid: a pod's hostname is its name, unique
among the Deployment's pods.
*/}}
{{- define "hudi-tsd.haSection" -}}
{{- $ha := (.Values.zookeeper.ha | default dict) }}
{{- if hasKey (.Values.config | default dict) "ha" }}
{{- if and .Values.zookeeper.connect $ha.enabled }}
{{- fail "hudi-tsd: config.ha is set, and the chart renders ha from zookeeper.connect with zookeeper.ha.enabled; set zookeeper.ha.enabled: false to give config.ha yourself" }}
{{- end }}
{{- else if and .Values.deployment.enabled .Values.zookeeper.connect $ha.enabled }}
{{- $section := dict "zookeeper" .Values.zookeeper.connect }}
{{- with $ha.basePath }}
{{- if eq (trimSuffix "/" .) (trimSuffix "/" ($.Values.zookeeper.lockBasePath | default "")) }}
{{- fail (printf "hudi-tsd: zookeeper.ha.basePath and zookeeper.lockBasePath are both %s; the replicas' ownership nodes and the writers' locks need znodes of their own" .) }}
{{- end }}
{{- $_ := set $section "basePath" . }}
{{- end }}
{{- with $ha.sessionTimeout }}
{{- $_ := set $section "sessionTimeout" . }}
{{- end }}
{{- toYaml $section }}
{{- end }}
{{- end }}

{{/* Whether the Spark engine runs on Kubernetes: the service accounts, Role and RoleBinding are rendered. */}}
{{- define "hudi-tsd.sparkKubernetes" -}}
{{- $spark := .Values.spark | default dict }}
{{- if and $spark.enabled ($spark.kubernetes | default dict).enabled }}true{{ end }}
{{- end }}

{{/* The namespace of the Spark driver and executor pods. */}}
{{- define "hudi-tsd.sparkNamespace" -}}
{{- ((.Values.spark | default dict).kubernetes | default dict).namespace | default .Release.Namespace }}
{{- end }}

{{/* The service account of the Spark driver (cluster mode) and executor pods. */}}
{{- define "hudi-tsd.sparkServiceAccountName" -}}
{{- $serviceAccount := (((.Values.spark | default dict).kubernetes | default dict).serviceAccount | default dict) }}
{{- $serviceAccount.name | default (printf "%s-spark" (include "hudi-tsd.fullname" . | trunc 57 | trimSuffix "-")) }}
{{- end }}

{{/*
The spark section of tsd.yml (the daemon's SparkConfig) from .Values.spark, as YAML. On Kubernetes it adds the keys
that tie the applications to what the chart renders (namespace, service accounts, image) and refuses a spark.conf
that contradicts them; in client mode the driver, a child JVM in the daemon's container, advertises the pod's IP
(POD_IP from the downward API, which Spark expands in ${env:...}) and, when its executors run in the pod's own
namespace, owns them through the pod (POD_NAME), so that deleting the pod deletes them.
*/}}
{{- define "hudi-tsd.sparkSection" -}}
{{- $spark := .Values.spark }}
{{- $kubernetes := $spark.kubernetes | default dict }}
{{- $section := dict }}
{{- if and $spark.sparkHome $spark.sparkSubmit }}
{{- fail "hudi-tsd: spark.sparkHome and spark.sparkSubmit are both set; set one of them" }}
{{- end }}
{{- if $spark.sparkSubmit }}
{{- $_ := set $section "sparkSubmit" $spark.sparkSubmit }}
{{- else }}
{{- $_ := set $section "sparkHome" ($spark.sparkHome | default "/opt/spark") }}
{{- end }}
{{- $master := $spark.master | default "" }}
{{- if $kubernetes.enabled }}
{{- $master = $master | default "k8s://https://kubernetes.default.svc:443" }}
{{- if not (hasPrefix "k8s://" $master) }}
{{- fail (printf "hudi-tsd: spark.kubernetes.enabled runs Spark on Kubernetes, and spark.master is %s; leave it empty or give a k8s:// master" $master) }}
{{- end }}
{{- else if not $master }}
{{- fail "hudi-tsd: spark.enabled needs spark.master (spark://host:7077, yarn, local[n]), or spark.kubernetes.enabled for Spark on Kubernetes" }}
{{- else if hasPrefix "k8s://" $master }}
{{- fail (printf "hudi-tsd: spark.master is %s; set spark.kubernetes.enabled too, for the service account, the RBAC and the image of the driver and executor pods" $master) }}
{{- end }}
{{- $deployMode := $spark.deployMode | default "client" }}
{{- $_ := set $section "master" $master }}
{{- $_ := set $section "deployMode" $deployMode }}
{{- with $spark.applicationJar }}
{{- $_ := set $section "applicationJar" . }}
{{- end }}
{{- with $spark.jars }}
{{- $_ := set $section "jars" . }}
{{- end }}
{{- $conf := dict }}
{{- range $key, $value := ($spark.conf | default dict) }}
{{- if and (kindIs "float64" $value) (eq $value (float64 (int64 $value))) }}
{{- $_ := set $conf $key (int64 $value | toString) }}
{{- else }}
{{- $_ := set $conf $key (toString $value) }}
{{- end }}
{{- end }}
{{- if $kubernetes.enabled }}
{{- $namespace := include "hudi-tsd.sparkNamespace" . }}
{{- $serviceAccount := include "hudi-tsd.sparkServiceAccountName" . }}
{{- $owned := dict "spark.kubernetes.namespace" (list $namespace "spark.kubernetes.namespace")
    "spark.kubernetes.authenticate.driver.serviceAccountName" (list $serviceAccount "spark.kubernetes.serviceAccount.name")
    "spark.kubernetes.authenticate.executor.serviceAccountName" (list $serviceAccount "spark.kubernetes.serviceAccount.name") }}
{{- if $kubernetes.image }}
{{- $_ := set $owned "spark.kubernetes.container.image" (list $kubernetes.image "spark.kubernetes.image") }}
{{- else if not (hasKey $conf "spark.kubernetes.container.image") }}
{{- fail "hudi-tsd: spark.kubernetes.image is required: the image of the driver and executor pods (Spark 3.5 for Scala 2.12 with hudi-spark3.5-bundle_2.12-1.2.0.jar)" }}
{{- end }}
{{- range $key := keys $owned | sortAlpha }}
{{- $value := index (get $owned $key) 0 }}
{{- if and (hasKey $conf $key) (ne (get $conf $key) $value) }}
{{- fail (printf "hudi-tsd: spark.conf sets %s to %s, and the chart renders %s for %s; set %s instead" $key (get $conf $key) $value $key (index (get $owned $key) 1)) }}
{{- end }}
{{- $_ := set $conf $key $value }}
{{- end }}
{{- if not (hasKey $conf "spark.kubernetes.container.image.pullPolicy") }}
{{- $_ := set $conf "spark.kubernetes.container.image.pullPolicy" ($kubernetes.imagePullPolicy | default "IfNotPresent") }}
{{- end }}
{{- if and $kubernetes.imagePullSecrets (not (hasKey $conf "spark.kubernetes.container.image.pullSecrets")) }}
{{- $_ := set $conf "spark.kubernetes.container.image.pullSecrets" (join "," $kubernetes.imagePullSecrets) }}
{{- end }}
{{- if eq $deployMode "cluster" }}
{{- if not (hasKey $conf "spark.kubernetes.file.upload.path") }}
{{- fail "hudi-tsd: spark.deployMode cluster on Kubernetes needs spark.conf.spark.kubernetes.file.upload.path (a directory on s3a://, hdfs://, ... the driver pod can read): spark-submit uploads the runner jar, the lock-providers jar and each plan's properties file there" }}
{{- end }}
{{- else if and (eq $namespace .Release.Namespace) (not (hasKey $conf "spark.kubernetes.driver.pod.name")) }}
{{- $_ := set $conf "spark.kubernetes.driver.pod.name" "${env:POD_NAME}" }}
{{- end }}
{{- end }}
{{- if and (eq $deployMode "client") (not (hasKey $conf "spark.driver.host")) }}
{{- $_ := set $conf "spark.driver.host" "${env:POD_IP}" }}
{{- end }}
{{- $_ := set $section "conf" $conf }}
{{- $_ := set $section "maxApplications" (int64 $spark.maxApplications) }}
{{- $_ := set $section "timeout" $spark.timeout }}
{{- $_ := set $section "logDir" $spark.logDir }}
{{- with $spark.uiUrl }}
{{- $_ := set $section "uiUrl" . }}
{{- end }}
{{- toYaml $section }}
{{- end }}

{{/*
The daemon's tsd.yml: .Values.config plus what the chart owns (server ports, history file, token file, ZooKeeper lock
keys). Refuses what the daemon would refuse, or what would be unsafe in a cluster, with a message naming the value.
*/}}
{{- define "hudi-tsd.configYaml" -}}
{{- $config := deepCopy (.Values.config | default dict) }}
{{- $discovery := $config.discovery | default dict }}
{{- if and (empty $config.tables) (empty $discovery.roots) }}
{{- fail "hudi-tsd: set config.tables or config.discovery.roots; the daemon refuses a configuration with nothing to service" }}
{{- end }}
{{- $hoodie := fromYaml (include "hudi-tsd.hoodieKeys" .) }}
{{- with include "hudi-tsd.haSection" . }}
{{- $_ := set $config "ha" (fromYaml .) }}
{{- end }}
{{- if and .Values.deployment.enabled (gt (int .Values.replicaCount) 1) }}
{{- if not (include "hudi-tsd.sharedLock" .) }}
{{- fail "hudi-tsd: replicaCount > 1 needs a lock shared across processes: set zookeeper.connect (or a lock provider in config.hoodie)" }}
{{- end }}
{{- if not (hasKey $config "ha") }}
{{- fail "hudi-tsd: replicaCount > 1 needs config.ha, or every replica services every table: set zookeeper.connect with zookeeper.ha.enabled (the chart renders ha from them), or config.ha" }}
{{- end }}
{{- end }}
{{- $_ := set $config "hoodie" $hoodie }}
{{- if hasKey $config "spark" }}
{{- fail "hudi-tsd: config.spark is rendered from the chart's spark values; set spark.enabled and spark.* instead" }}
{{- end }}
{{- if (.Values.spark | default dict).enabled }}
{{- $_ := set $config "spark" (fromYaml (include "hudi-tsd.sparkSection" .)) }}
{{- end }}
{{- $history := $config.history | default dict }}
{{- if not (hasKey $history "file") }}
{{- $_ := set $history "file" (printf "%s/history.jsonl" (trimSuffix "/" .Values.history.mountPath)) }}
{{- end }}
{{- $_ := set $config "history" $history }}
{{- if include "hudi-tsd.tokenSecretName" . }}
{{- $auth := $config.auth | default dict }}
{{- if or (hasKey $auth "tokenFile") (hasKey $auth "tokenEnv") }}
{{- fail "hudi-tsd: apiToken is set, and so is config.auth.tokenFile or config.auth.tokenEnv; set one of them" }}
{{- end }}
{{- $_ := set $auth "tokenFile" (printf "%s/token" (trimSuffix "/" .Values.apiToken.mountPath)) }}
{{- $_ := set $config "auth" $auth }}
{{- end }}
{{- $server := $config.server | default dict }}
{{- if not (hasKey $server "applicationConnectors") }}
{{- $_ := set $server "applicationConnectors" (list (dict "type" "http" "port" (int .Values.ports.api))) }}
{{- end }}
{{- if not (hasKey $server "adminConnectors") }}
{{- $_ := set $server "adminConnectors" (list (dict "type" "http" "port" (int .Values.ports.admin))) }}
{{- end }}
{{- $_ := set $config "server" $server }}
{{- toYaml $config }}
{{- end }}

{{/* Volumes the daemon's container mounts; their names are prefixed so that they fit into another pod. */}}
{{- define "hudi-tsd.volumes" -}}
- name: hudi-tsd-history
  {{- if .Values.history.persistence.enabled }}
  persistentVolumeClaim:
    claimName: {{ .Values.history.persistence.existingClaim | default (printf "%s-history" (include "hudi-tsd.fullname" .)) }}
  {{- else }}
  emptyDir: {}
  {{- end }}
{{ include "hudi-tsd.sharedVolumes" . }}
{{- end }}

{{/* The volumes of once's pods: the daemon's, the history an emptyDir (once keeps none; the claim is the daemon's). */}}
{{- define "hudi-tsd.onceVolumes" -}}
- name: hudi-tsd-history
  emptyDir: {}
{{ include "hudi-tsd.sharedVolumes" . }}
{{- end }}

{{/* The volumes of the daemon's and once's containers but the history. */}}
{{- define "hudi-tsd.sharedVolumes" -}}
- name: hudi-tsd-config
  configMap:
    name: {{ include "hudi-tsd.fullname" . }}
- name: hudi-tsd-tmp
  emptyDir:
    {{- with .Values.tmp.sizeLimit }}
    sizeLimit: {{ . }}
    {{- end }}
{{- with include "hudi-tsd.tokenSecretName" . }}
- name: hudi-tsd-token
  secret:
    secretName: {{ . }}
    defaultMode: 0440
    items:
      - key: {{ include "hudi-tsd.tokenSecretKey" $ }}
        path: token
{{- end }}
{{- with include "hudi-tsd.hadoopConfigMapName" . }}
- name: hudi-tsd-hadoop-conf
  configMap:
    name: {{ . }}
{{- end }}
{{- if (.Values.spark | default dict).enabled }}
- name: hudi-tsd-spark-logs
  emptyDir:
    {{- with .Values.spark.logSizeLimit }}
    sizeLimit: {{ . }}
    {{- end }}
{{- end }}
{{- with .Values.extraVolumes }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* The daemon's container, the same in the Deployment and as a sidecar. */}}
{{- define "hudi-tsd.container" -}}
name: hudi-tsd
image: {{ include "hudi-tsd.image" . }}
imagePullPolicy: {{ .Values.image.pullPolicy }}
args: [server, /etc/tsd/tsd.yml]
ports:
  - name: tsd-api
    containerPort: {{ .Values.ports.api }}
    protocol: TCP
  - name: tsd-admin
    containerPort: {{ .Values.ports.admin }}
    protocol: TCP
{{ include "hudi-tsd.containerRuntime" . }}
startupProbe:
  httpGet:
    path: /live
    port: tsd-admin
  {{- toYaml .Values.probes.startup | nindent 2 }}
livenessProbe:
  httpGet:
    path: /live
    port: tsd-admin
  {{- toYaml .Values.probes.liveness | nindent 2 }}
readinessProbe:
  httpGet:
    path: /ready
    port: tsd-admin
  {{- toYaml .Values.probes.readiness | nindent 2 }}
{{ include "hudi-tsd.containerResources" . }}
{{- end }}

{{/*
The container of once (cronJob.enabled): one pass over the tables of the same tsd.yml, with the same environment,
credentials and mounts as the daemon's container; no ports, no probes.
*/}}
{{- define "hudi-tsd.onceContainer" -}}
name: hudi-tsd-once
image: {{ include "hudi-tsd.image" . }}
imagePullPolicy: {{ .Values.image.pullPolicy }}
args:
  {{- toYaml (concat (list "once" "--config" "/etc/tsd/tsd.yml" "--timeout-minutes" (toString (int .Values.cronJob.timeoutMinutes))) (.Values.cronJob.extraArgs | default list)) | nindent 2 }}
{{ include "hudi-tsd.containerRuntime" . }}
{{ include "hudi-tsd.containerResources" . }}
{{- end }}

{{/* The environment of the daemon's and once's containers. */}}
{{- define "hudi-tsd.containerRuntime" -}}
env:
  - name: TSD_JAVA_OPTS
    value: {{ .Values.javaOpts | quote }}
  {{- if include "hudi-tsd.hadoopConfigMapName" . }}
  - name: HADOOP_CONF_DIR
    value: {{ .Values.hadoop.confDir | quote }}
  {{- end }}
  {{- with .Values.hadoop.userName }}
  - name: HADOOP_USER_NAME
    value: {{ . | quote }}
  {{- end }}
  {{- if (.Values.spark | default dict).enabled }}
  # Spark's properties expand ${env:POD_IP} and ${env:POD_NAME}: a client-mode driver advertises the pod's IP and
  # owns its executor pods through this pod.
  - name: POD_IP
    valueFrom:
      fieldRef:
        fieldPath: status.podIP
  - name: POD_NAME
    valueFrom:
      fieldRef:
        fieldPath: metadata.name
  {{- end }}
  {{- with .Values.env }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- with .Values.envFrom }}
envFrom:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/* Resources, security context and mounts of the daemon's and once's containers. */}}
{{- define "hudi-tsd.containerResources" -}}
{{- with .Values.resources }}
resources:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.securityContext }}
securityContext:
  {{- toYaml . | nindent 2 }}
{{- end }}
volumeMounts:
  - name: hudi-tsd-config
    mountPath: /etc/tsd/tsd.yml
    subPath: tsd.yml
    readOnly: true
  - name: hudi-tsd-tmp
    mountPath: /tmp
  - name: hudi-tsd-history
    mountPath: {{ .Values.history.mountPath }}
  {{- if include "hudi-tsd.tokenSecretName" . }}
  - name: hudi-tsd-token
    mountPath: {{ .Values.apiToken.mountPath }}
    readOnly: true
  {{- end }}
  {{- if include "hudi-tsd.hadoopConfigMapName" . }}
  - name: hudi-tsd-hadoop-conf
    mountPath: {{ .Values.hadoop.confDir }}
    readOnly: true
  {{- end }}
  {{- if (.Values.spark | default dict).enabled }}
  - name: hudi-tsd-spark-logs
    mountPath: {{ .Values.spark.logDir }}
  {{- end }}
  {{- with .Values.extraVolumeMounts }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- end }}

{{/*
The daemon as a container of another pod (an ingestion job's), with the same configuration, tables and lock
settings as the release. Use it as a list entry under containers, or under initContainers with
sidecar.restartPolicy: Always (Kubernetes native sidecars: the daemon stops when the job's containers finish):

  initContainers:
    - {{ include "hudi-tsd.sidecarContainer" (index .Subcharts "hudi-tsd") | indent 6 | trim }}
  volumes:
    {{- include "hudi-tsd.sidecarVolumes" (index .Subcharts "hudi-tsd") | nindent 4 }}
*/}}
{{- define "hudi-tsd.sidecarContainer" -}}
{{ include "hudi-tsd.container" . }}
{{- with (.Values.sidecar | default dict).restartPolicy }}
restartPolicy: {{ . }}
{{- end }}
{{- end }}

{{/* The volumes hudi-tsd.sidecarContainer mounts, for the other pod's volumes list. */}}
{{- define "hudi-tsd.sidecarVolumes" -}}
{{ include "hudi-tsd.volumes" . }}
{{- end }}

{{/* Label matchers selecting this release's scrape target in alert expressions. */}}
{{- define "hudi-tsd.alertSelector" -}}
job="{{ .Values.prometheusRule.job | default (include "hudi-tsd.fullname" .) }}",namespace="{{ .Release.Namespace }}"
{{- end }}
