export type { StackConfig } from './config.ts';
export { loadStackConfig, StackEnv, VERSIONS } from './config.ts';
export type { StackErrorCode } from './errors.ts';
export { StackError } from './errors.ts';
export type { Reporter } from './progress.ts';
export { consoleReporter, silentReporter } from './progress.ts';
export type { ComponentReport, ComponentState, StackOptions } from './stack.ts';
export { stackComponents, stackDown, stackStatus, stackUp } from './stack.ts';
export { whichCommand } from './tools.ts';
