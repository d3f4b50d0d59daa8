import type { RunnableSection } from './report-section.ts';
import { apiSection } from './section-api.ts';
import { batchSection } from './section-batch.ts';
import { e2eSection } from './section-e2e.ts';
import { ingressSection } from './section-ingress.ts';
import { kafkaPerfSection } from './section-kafka-perf.ts';
import { limiterSection } from './section-limiter.ts';
import { pullSection } from './section-pull.ts';
import { pushSection } from './section-push.ts';
import { reconcileSection } from './section-reconcile.ts';
import { retrySection } from './section-retry.ts';

/**
 * What `hookstream bench` runs, in this order: Kafka's perf tests first (baselines for the rest),
 * the end-to-end run after the ingress and push runs whose figures it is compared with, then the
 * features' own figures; reconcile last, as it writes the most (a million events at full scale).
 * `--fleet` adds the fleet section (fleet-section.ts) after these.
 */
export const DEFAULT_SECTIONS: readonly RunnableSection[] = [
  kafkaPerfSection,
  ingressSection,
  pushSection,
  e2eSection,
  limiterSection,
  retrySection,
  apiSection,
  batchSection,
  pullSection,
  reconcileSection,
];
