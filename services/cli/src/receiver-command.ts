import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { SampleReceiver } from '@hookstream/receiver';
import { toolEnv } from './tool-env.ts';

export const RECEIVER_USAGE = `Usage: hookstream receiver [options]

A sample subscriber endpoint (127.0.0.1 unless --host says otherwise): verifies Standard Webhooks signatures, deduplicates on
(subscription_id, event_id), answers 204. GET /stats reports what it accepted; POST /control
with a JSON behaviour (the option names below in camelCase) changes how it answers.

Options:
  --port <n>             port to listen on (default 8090; 0 picks a free one)
  --host <address>       address to bind (default HOOKSTREAM_RECEIVER_HOST, else 127.0.0.1; 0.0.0.0
                         inside a container, where the host publishes the port on loopback)
  --secret-env <name>    environment variable holding the whsec_ secret (default HOOKSTREAM_RECEIVER_SECRET;
                         when unset, signatures are not checked)
  --rate-limit <n>       answer 429 above n requests per second
  --retry-after <s>      Retry-After seconds of those 429s (default 1)
  --fail-times <n>       answer --fail-status to the first n attempts of every event
  --fail-status <code>   default 500
  --fixed-status <code>  answer every request with this status
  --delay-ms <ms>        be slow: wait before answering`;

/** `hookstream receiver`: runs the sample endpoint until SIGINT/SIGTERM, then prints its stats. */
export async function receiverCommand(args: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      port: { type: 'string', default: '8090' },
      host: { type: 'string' },
      'secret-env': { type: 'string', default: 'HOOKSTREAM_RECEIVER_SECRET' },
      'rate-limit': { type: 'string' },
      'retry-after': { type: 'string' },
      'fail-times': { type: 'string' },
      'fail-status': { type: 'string' },
      'fixed-status': { type: 'string' },
      'delay-ms': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${RECEIVER_USAGE}\n`);
    return 0;
  }
  const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));
  const behaviour = Object.fromEntries(
    Object.entries({
      rateLimitPerSecond: num(values['rate-limit']),
      retryAfterSeconds: num(values['retry-after']),
      failTimes: num(values['fail-times']),
      failStatus: num(values['fail-status']),
      fixedStatus: num(values['fixed-status']),
      delayMs: num(values['delay-ms']),
    }).filter(([, v]) => v !== undefined),
  );
  const secret = process.env[values['secret-env']];
  const receiver = new SampleReceiver({ secret, behaviour });
  const host = values.host ?? toolEnv().HOOKSTREAM_RECEIVER_HOST;
  const url = await receiver.listen(Number(values.port), host);
  process.stdout.write(
    `receiver listening on ${url}${host === '127.0.0.1' ? '' : ` (bound to ${host})`} (signatures ${secret ? 'verified' : 'NOT checked: no secret'}); stats at ${url}/stats\n`,
  );
  await Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM')]);
  await receiver.close();
  process.stdout.write(`${JSON.stringify(receiver.stats())}\n`);
  return 0;
}
