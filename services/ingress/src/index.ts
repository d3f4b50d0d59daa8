export { bootIngress } from './boot-ingress.ts';
export type { IngressConfig } from './config.ts';
export { IngressConfigError, IngressEnv, loadIngressConfig } from './config.ts';
export type { RunningIngress } from './start-ingress.ts';
export { startIngress } from './start-ingress.ts';
