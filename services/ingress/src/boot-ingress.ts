import { collectorStateLogger, createLogger, startTracing } from '@hookstream/telemetry';
import type { IngressConfig } from './config.ts';
import { type RunningIngress, startIngress } from './start-ingress.ts';

/**
 * The ingress as a process runs it: tracing started once (service `hookstream-ingress`,
 * configured by the standard OTEL_* variables, OTEL_SDK_DISABLED=true turns it off), then the
 * ingress; closing flushes the buffered spans last. Tests that run several ingresses in one
 * process use startIngress, which leaves the process-global tracer alone.
 */
export async function bootIngress(
  config: IngressConfig,
  env: NodeJS.ProcessEnv = process.env,
): Promise<RunningIngress> {
  const logger = createLogger({ name: 'hookstream-ingress', level: config.logLevel });
  const tracing = await startTracing({
    serviceName: 'hookstream-ingress',
    env,
    onCollectorState: collectorStateLogger((level, message, fields) => logger[level](fields, message)),
  });
  logger.info({ tracing: tracing.enabled }, 'ingress starting');
  let ingress: RunningIngress;
  try {
    ingress = await startIngress(config, logger, tracing);
  } catch (err) {
    await tracing.shutdown();
    throw err;
  }
  return {
    url: ingress.url,
    port: ingress.port,
    ...(ingress.metricsUrl === undefined ? {} : { metricsUrl: ingress.metricsUrl }),
    close: async () => {
      await ingress.close();
      await tracing.shutdown();
    },
  };
}
