export { ensureChromium } from './chromium.ts';
export type { Component, LaunchSpec, PrepareOptions } from './component.ts';
export { kafkaLibsDir } from './components/kafka.ts';
export type { StackConfig } from './config.ts';
export { loadStackConfig, StackEnv, VERSIONS } from './config.ts';
export type { StackErrorCode } from './errors.ts';
export { StackError } from './errors.ts';
export { ensureHelm, helmBinaryPath, helmKubeVersion } from './helm.ts';
export type { KafkaClusterOptions } from './kafka-cluster.ts';
export { KafkaCluster } from './kafka-cluster.ts';
export type { KubernetesValidator, ManifestCheck } from './kubernetes-validate.ts';
export { ensureKubernetesValidator } from './kubernetes-validate.ts';
export type { FuzzOperation, FuzzOptions, OpenApiTools, ToolRun } from './openapi-tools.ts';
export { ensureOpenApiTools } from './openapi-tools.ts';
export type { TestPki } from './pki.ts';
export { generateTestPki } from './pki.ts';
export type { Reporter } from './progress.ts';
export { consoleReporter, silentReporter } from './progress.ts';
export type { SecureKafkaOptions } from './secure-kafka.ts';
export { SecureKafka } from './secure-kafka.ts';
export type {
  ComponentReport,
  ComponentState,
  LeaveResult,
  StackOptions,
  StackSession,
  StackStatus,
} from './stack.ts';
export {
  describeHolders,
  joinStack,
  leaveStack,
  releaseAndStop,
  stackComponents,
  stackDown,
  stackStatus,
  stackUp,
  waitForComponent,
} from './stack.ts';
export type { HoldRequest } from './stack-holders.ts';
export { describeHolder, StackHolder } from './stack-holders.ts';
export { whichCommand } from './tools.ts';
