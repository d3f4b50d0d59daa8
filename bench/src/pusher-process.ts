// A pusher under test in its own process, as `hookstream push` runs it, started by the benchmark
// with the environment it chose. Prints "started" on stdout once its group is positioned, and its
// delivery counts as one JSON line when SIGTERM stopped it.
import { loadConnectionSettings } from '@hookstream/contracts';
import { loadSubscriber, Pusher } from '@hookstream/pusher';

const env = process.env;
const loaded = await loadSubscriber(env.BENCH_PUSHER_DEFINITION ?? '');
const { kafka, registry } = loadConnectionSettings(env);
const pusher = new Pusher(loaded, {
  kafka,
  registry,
  topic: env.BENCH_PUSHER_TOPIC ?? '',
  limiterRedisUrl: env.BENCH_PUSHER_REDIS || undefined,
  log: (level, message, fields) => {
    if (level === 'warn' || level === 'error')
      process.stderr.write(`${JSON.stringify({ level, message, ...fields })}\n`);
  },
  onFatal: (error) => {
    process.stderr.write(`pusher failed: ${error.message}\n`);
    process.exit(1);
  },
});
await pusher.start();
process.stdout.write('started\n');
process.once('SIGTERM', () => {
  void pusher.stop().then(() => {
    process.stdout.write(`${JSON.stringify(pusher.counts)}\n`);
    process.exit(0);
  });
});
