import type { RunnableSection } from './report-section.ts';
import { e2eSection } from './section-e2e.ts';
import { ingressSection } from './section-ingress.ts';
import { kafkaPerfSection } from './section-kafka-perf.ts';
import { limiterSection } from './section-limiter.ts';
import { pushSection } from './section-push.ts';
import { retrySection } from './section-retry.ts';

/**
 * What `hookstream bench` runs, in this order: Kafka's perf tests first (baselines for the rest),
 * the end-to-end run after the ingress and push runs whose figures it is compared with.
 */
export const DEFAULT_SECTIONS: readonly RunnableSection[] = [
  kafkaPerfSection,
  ingressSection,
  pushSection,
  e2eSection,
  limiterSection,
  retrySection,
];
