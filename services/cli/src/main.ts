const USAGE = `Usage: hookstream <command> [options]

Commands:
  start          run the pipeline locally: stack, ingress, sample receiver, a pusher, sample events
  stack          up | down | status of the local Kafka, schema registry, Jaeger and Redis
  ingress        serve the HTTP event intake (POST /v1/events) in front of Kafka
  push           run one subscriber's pusher (--config <subscriber.json>)
  subscribers    the subscriber catalog: apply | list | show | pause | resume | delete | secret
  receiver       a sample subscriber endpoint (signature check, dedupe, misbehaviour on request)
  trace          an event's delivery timeline from Jaeger
  dlq            list | replay a subscriber's dead letters (back into its retry tier 1)
  audit          the audit trail: every change to a subscriber, who made it and when
  ledger         where an event is for every subscriber: delivered, retrying, dead, filtered, not reached
  reconcile      a window of events against every required subscriber: delivered, pending, retrying, dead, lost
  api            the management API (127.0.0.1:8070, HOOKSTREAM_API_TOKENS): subscribers, DLQs, replay, ledgers, audit, pull
  pull           lease a pull subscriber's events over the management API, and --ack them
  messages       a tenant's messages and attempts over the management API: list | show | resend | send-example
  portal-links   the customer portal's links over the management API (operator token): create | list | revoke
  console        the operator console in a browser (127.0.0.1:8088, CONSOLE_TOKENS): subscribers, DLQs, replay, ledgers
  bench          the benchmarks, where the bench workspace is installed (a checkout, not the image): the full
                 report (bench/results/), or ingress | push | e2e | retry | limiter | limiter-wait | fleet | outage | reconcile alone

subscribers (apply, list, show, pause, resume, delete, rewind, secret show, secret rotate) and dlq
(list, replay) also run against a remote management API, with no Kafka settings here: --api <url>
(or HOOKSTREAM_API_URL) and HOOKSTREAM_API_TOKEN.

Run \`hookstream <command> --help\` for a command's options.`;

type Command = (argv: readonly string[]) => Promise<number>;

// Each command is loaded when it runs: loading them all (kafkajs, OpenTelemetry, the bench)
// made `hookstream --help` take seconds.
const COMMANDS: Record<string, () => Promise<Command>> = {
  stack: async () => (await import('./stack-command.ts')).stackCommand,
  start: async () => (await import('./start-command.ts')).startCommand,
  ingress: async () => (await import('./ingress-command.ts')).ingressCommand,
  push: async () => (await import('./push-command.ts')).pushCommand,
  subscribers: async () => (await import('./subscribers-command.ts')).subscribersCommand,
  receiver: async () => (await import('./receiver-command.ts')).receiverCommand,
  trace: async () => (await import('./trace-command.ts')).traceCommand,
  dlq: async () => (await import('./dlq-command.ts')).dlqCommand,
  audit: async () => (await import('./audit-command.ts')).auditCommand,
  ledger: async () => (await import('./ledger-command.ts')).ledgerCommand,
  reconcile: async () => (await import('./reconcile-command.ts')).reconcileCommand,
  console: async () => (await import('./console-command.ts')).consoleCommand,
  api: async () => (await import('./api-command.ts')).apiCommand,
  pull: async () => (await import('./pull-command.ts')).pullCommand,
  messages: async () => (await import('./messages-command.ts')).messagesCommand,
  'portal-links': async () => (await import('./portal-links-command.ts')).portalLinksCommand,
  bench: async () => (await import('./bench-loader.ts')).loadBenchCommand(),
};

/** Dispatches a command line to its command, which parses its own options; returns the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h')
    return usage(USAGE, name === undefined ? 2 : 0);
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!load) {
    process.stderr.write(`hookstream: unknown command '${name}'\n\n`);
    return usage(USAGE, 2);
  }
  const command = await load();
  try {
    return await command(rest);
  } catch (err) {
    const { HookstreamError } = await import('@hookstream/contracts');
    // A hookstream error a command did not report itself: reported the same way as the others.
    if (err instanceof HookstreamError) return (await import('./tool-errors.ts')).reportToolError(name, err);
    if (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`hookstream ${name}: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
}

export function usage(text: string, code: number): number {
  (code === 0 ? process.stdout : process.stderr).write(`${text}\n`);
  return code;
}
