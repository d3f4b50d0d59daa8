import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { SubscriberName } from '@hookstream/contracts';
import {
  type ComponentReport,
  joinStack,
  leaveStack,
  loadStackConfig,
  type StackConfig,
  waitForComponent,
} from '@hookstream/stack';
import { formatTable } from '@hookstream/terminal';
import { ServiceProcess } from './service-process.ts';
import { renderReports } from './stack-command.ts';
import { subscribersCommand } from './subscribers-command.ts';

export const START_USAGE = `Usage: hookstream start [--once] [--ingress-port <n>] [--receiver-port <n>] [--topic <name>]
                       [--subscriber <name>]

Runs the whole pipeline locally: the stack (Kafka, registry, Jaeger, Redis; joined if another
checkout runs it), an ingress, the sample receiver, and a pusher fleet (hookstream push --all)
running the sample subscriber (examples/subscribers/sample.json, registered with hookstream
subscribers apply), then publishes one event of each type through the ingress and shows them
arrive at the receiver. The pipeline does not wait for Jaeger (its first build takes minutes):
spans wait in each process until it answers, and a line says when tracing joins.
Runs until Ctrl-C; --once stops everything (but the stack) after the sample events arrived.
--subscriber names the sample subscriber in the machine's one catalog (default sample): a second
pipeline beside a running one, on a --topic of its own, needs a name of its own too, or the two
would share one subscriber and its group.`;

const EXAMPLE = resolve(import.meta.dirname, '../../../examples/subscribers/sample.json');

const SAMPLE_EVENTS = (run: string) => [
  {
    id: `demo-${run}-1`,
    type: 'shipment.updated',
    key: 'shp_demo',
    data: { shipment: { id: 'shp_demo', status: 'in_transit', carrier: 'dhl' } },
  },
  {
    id: `demo-${run}-2`,
    type: 'enrollment.updated',
    key: 'enr_demo',
    data: { enrollment: { id: 'enr_demo', student_id: 'stu_1', course_id: 'crs_1', status: 'active' } },
  },
  {
    id: `demo-${run}-3`,
    type: 'key.revoked',
    key: 'ten_demo',
    data: { tenant_id: 'ten_demo', key_id: 'key_1' },
  },
];

/** `npm start`: the local pipeline end to end, with sample events to watch. */
export async function startCommand(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      once: { type: 'boolean', default: false },
      'ingress-port': { type: 'string', default: '8080' },
      'receiver-port': { type: 'string', default: '8090' },
      topic: { type: 'string', default: 'events' },
      subscriber: { type: 'string', default: 'sample' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${START_USAGE}\n`);
    return 0;
  }
  const name = SubscriberName.safeParse(values.subscriber);
  if (!name.success) {
    process.stderr.write(
      `hookstream start: --subscriber: ${name.error.issues[0]?.message ?? 'not a subscriber name'}\n`,
    );
    return 2;
  }
  const config = loadStackConfig({ HOOKSTREAM_REDIS: 'on', ...process.env });
  const started = Date.now();
  const session = await joinStack({ command: 'npm start' }, { config });
  process.stdout.write(`${renderReports(session.reports)}\n\n`);
  try {
    return await runPipeline(config, values, session.reports, started);
  } finally {
    await leaveStack(session.holder.id, { config });
  }
}

interface StartFlags {
  readonly once: boolean;
  readonly 'ingress-port': string;
  readonly 'receiver-port': string;
  readonly topic: string;
  readonly subscriber: string;
}

async function runPipeline(
  config: StackConfig,
  values: StartFlags,
  reports: readonly ComponentReport[],
  started: number,
): Promise<number> {
  const jaeger = reports.find((r) => r.name === 'jaeger');
  if (jaeger?.state === 'starting' && !values.once) void announceTracing(config, started);

  const ingressUrl = `http://127.0.0.1:${values['ingress-port']}`;
  const receiverUrl = `http://127.0.0.1:${values['receiver-port']}`;
  const token = randomBytes(24).toString('base64url');
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const demoDir = join(config.workDir, 'demo');
  const logs = join(config.workDir, 'logs');
  await mkdir(demoDir, { recursive: true });
  // The committed example, pointed at this run's receiver.
  const definition = {
    ...JSON.parse(await readFile(EXAMPLE, 'utf8')),
    name: values.subscriber,
    url: `${receiverUrl}/`,
  };
  const definitionFile = join(demoDir, 'sample-subscriber.json');
  await writeFile(definitionFile, `${JSON.stringify(definition, null, 2)}\n`);

  const env = {
    ...process.env,
    INGRESS_TOKENS: token,
    HOOKSTREAM_SECRET_SAMPLE: secret,
    HOOKSTREAM_RECEIVER_SECRET: secret,
  };
  const receiver = new ServiceProcess(
    'receiver',
    ['receiver', '--port', values['receiver-port']],
    env,
    join(logs, 'receiver.log'),
  );
  const ingress = new ServiceProcess(
    'ingress',
    ['ingress', '--port', values['ingress-port']],
    { ...env, INGRESS_TOPIC: values.topic },
    join(logs, 'ingress.log'),
  );
  const services = [receiver, ingress];
  const stopAll = () => Promise.all(services.map((s) => s.stop()));
  try {
    await waitUntil('the ingress to be ready', services, () => httpOk(`${ingressUrl}/readyz`));
    await waitUntil('the receiver to listen', services, () => httpOk(`${receiverUrl}/stats`));
    // The ingress has created the events topic by now, which the pusher expects to exist.
    const redis = `redis://${config.host}:${config.redis.port}`;
    // The sample subscriber goes into the registry, and a fleet runs it from there: the way a
    // team adds subscribers to running fleets. --match keeps this fleet to the sample one.
    if ((await subscribersCommand(['apply', definitionFile])) !== 0)
      throw new Error(`could not register the sample subscriber from ${definitionFile}`);
    services.push(
      new ServiceProcess(
        'pusher',
        ['push', '--all', '--match', definition.name, '--topic', values.topic, '--redis', redis],
        env,
        join(logs, 'pusher.log'),
      ),
    );
    const events = SAMPLE_EVENTS(randomUUID().slice(0, 8));
    const res = await fetch(`${ingressUrl}/v1/events/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ events }),
    });
    if (res.status !== 202)
      throw new Error(`the ingress refused the sample events: ${res.status} ${await res.text()}`);
    process.stdout.write(`published ${events.length} sample events through ${ingressUrl}/v1/events/batch\n`);
    // Asked per event: on a topic with history, the pusher may deliver older events first.
    await waitUntil(
      'the sample events to reach the receiver',
      services,
      async () => {
        const answers = await Promise.all(
          events.map((e) => httpOk(`${receiverUrl}/accepted/${definition.name}/${encodeURIComponent(e.id)}`)),
        );
        return answers.every(Boolean);
      },
      60_000,
    );
    const stats = await receiverStats(receiverUrl);
    process.stdout.write(
      `${formatTable(
        ['event id', 'type', 'at the receiver'],
        events.map((e) => [e.id, e.type, 'accepted: signature verified, one effect']),
      )}\n\nreceiver: ${stats.accepted} accepted, ${stats.duplicates} duplicates, ${stats.badSignatures} bad signatures\n`,
    );
  } catch (err) {
    process.stderr.write(`hookstream start: ${(err as Error).message}; logs in ${logs}\n`);
    await stopAll();
    return 1;
  }
  if (values.once) {
    await stopAll();
    return 0;
  }
  process.stdout.write(
    `\nRunning: ingress ${ingressUrl} (token ${token}), receiver ${receiverUrl}, a pusher fleet running subscriber ` +
      `'${definition.name}'. Logs in ${logs}. Ctrl-C stops the services; \`npx hookstream stack down\` the stack.\n`,
  );
  await new Promise<void>((done) => {
    process.once('SIGINT', () => done());
    process.once('SIGTERM', () => done());
  });
  await stopAll();
  return 0;
}

/** Says when Jaeger, started in the background, answers: from then on traces are collected. */
async function announceTracing(config: StackConfig, started: number): Promise<void> {
  try {
    const jaeger = await waitForComponent('jaeger', { config });
    const after = Math.round((Date.now() - started) / 1000);
    process.stdout.write(
      `tracing joined: Jaeger answers at ${jaeger.endpoints.query} (${after} s after start); the spans each ` +
        'process held until now are being sent\n',
    );
  } catch (err) {
    process.stdout.write(`tracing did not join: ${(err as Error).message}\n`);
  }
}

interface Stats {
  accepted: number;
  duplicates: number;
  badSignatures: number;
}

async function receiverStats(url: string): Promise<Stats> {
  return (await (await fetch(`${url}/stats`)).json()) as Stats;
}

async function httpOk(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

/** Polls `probe`; fails early, naming the service, if one of them exits meanwhile. */
async function waitUntil(
  what: string,
  services: readonly ServiceProcess[],
  probe: () => Promise<boolean>,
  timeoutMs = 30_000,
): Promise<void> {
  let crashed: ServiceProcess | undefined;
  for (const s of services) void s.exited.then(() => (crashed ??= s));
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (crashed) throw new Error(`${crashed.name} exited while waiting for ${what} (see ${crashed.logFile})`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}
