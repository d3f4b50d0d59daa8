// The management API serving pull subscribers, in its own process (its own event loop, as in
// production), started by `bench pull` with the environment it chose. Prints its URL once listening.
import { ApiServer, ApiTokens } from '@hookstream/api';
import { loadConnectionSettings } from '@hookstream/contracts';
import { createKafka } from '@hookstream/kafka';
import { kafkaPorts, ManagementService } from '@hookstream/management';
import { PullHost, PusherResources } from '@hookstream/pusher-core';
import { LiveCatalog } from '@hookstream/subscribers';

const topic = process.env.PULL_BENCH_TOPIC ?? '';
const token = process.env.PULL_BENCH_TOKEN ?? '';
const connection = loadConnectionSettings(process.env);
const kafka = createKafka({ ...connection.kafka, clientId: 'hookstream-bench-pull-api', quiet: true });
const quiet = () => undefined;
const catalog = new LiveCatalog(kafka, quiet);
await catalog.start();
const resources = PusherResources.open({ ...connection, clientId: 'hookstream-bench-pull', log: quiet });
const pull = new PullHost({
  resources: () => resources,
  eventsTopic: topic,
  log: quiet,
  records: async () => (await catalog.read()).subscribers,
});
const server = new ApiServer({
  service: new ManagementService(
    kafkaPorts({
      kafka,
      catalog,
      eventsTopic: topic,
      secretsKey: undefined,
      openPublisher: async () => {
        throw new Error('the pull benchmark publishes no notice');
      },
      pull,
    }),
  ),
  tokens: ApiTokens.parse([`${token}=*`]),
  host: '127.0.0.1',
  port: 0,
  // The benchmark's calls are what it measures, not a client to throttle.
  ratePerSecond: 100_000,
});
process.stdout.write(`${await server.start()}\n`);
process.once('SIGTERM', () => {
  void (async () => {
    await pull.stop();
    await server.close();
    await (await resources).close();
    await catalog.stop();
    process.exit(0);
  })();
});
