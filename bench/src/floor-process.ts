// The fleet's memory floor: as many plain kafkajs consumers as the fleet has subscribers, in one
// process sharing one client, each in a group of its own subscribed to one topic, doing nothing
// with what they fetch. Started by the benchmark (kafka-floor.ts), which waits for the groups
// to join and reads this process's RSS; SIGTERM makes every consumer leave its group.
import { loadConnectionSettings } from '@hookstream/contracts';
import { createKafka, createRawConsumer, type RawConsumer } from '@hookstream/kafka';
import { floorGroups } from './kafka-floor.ts';

const env = process.env;
const topic = env.BENCH_FLOOR_TOPIC ?? '';
const groups = floorGroups(env.BENCH_FLOOR_PREFIX ?? '', Number(env.BENCH_FLOOR_COUNT ?? 0));
/** Consumers connecting at once: a thousand metadata and join requests together would only queue. */
const AT_ONCE = 50;

const { kafka } = loadConnectionSettings(env);
const connection = createKafka({ ...kafka, clientId: 'hookstream-bench-floor', quiet: true });
const consumers: RawConsumer[] = [];
let stopping = false;

process.once('SIGTERM', () => {
  stopping = true;
  void Promise.allSettled(consumers.map((c) => c.disconnect())).then(() => process.exit(0));
});

for (let i = 0; i < groups.length && !stopping; i += AT_ONCE) {
  await Promise.all(
    groups.slice(i, i + AT_ONCE).map(async (groupId) => {
      const consumer = createRawConsumer(connection, { groupId });
      consumers.push(consumer);
      await consumer.connect();
      await consumer.subscribe([topic]);
      // Nothing is produced to the topic: the handler is never called, as the fleet's idle ones.
      await consumer.run(async () => undefined);
    }),
  );
}
process.stdout.write(`${consumers.length} consumers running\n`);
