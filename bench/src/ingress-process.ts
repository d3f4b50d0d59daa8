// The ingress under test, in its own process (its own event loop, as in production), started
// by the benchmark with the environment it chose. Prints its URL on stdout once listening.
import { bootIngress, loadIngressConfig } from '@hookstream/ingress';

const ingress = await bootIngress(loadIngressConfig(process.env, { port: 0 }));
// Its /metrics first (when INGRESS_METRICS_PORT is set): the URL line is what the parent waits for.
if (ingress.metricsUrl !== undefined) process.stdout.write(`metrics ${ingress.metricsUrl}\n`);
process.stdout.write(`${ingress.url}\n`);
process.once('SIGTERM', () => {
  void ingress.close().then(() => process.exit(0));
});
