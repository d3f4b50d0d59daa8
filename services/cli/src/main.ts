import { HookstreamError } from '@hookstream/contracts';
import { benchCommand } from './bench-command.ts';
import { dlqCommand } from './dlq-command.ts';
import { ingressCommand } from './ingress-command.ts';
import { ledgerCommand } from './ledger-command.ts';
import { pushCommand } from './push-command.ts';
import { receiverCommand } from './receiver-command.ts';
import { stackCommand } from './stack-command.ts';
import { startCommand } from './start-command.ts';
import { subscribersCommand } from './subscribers-command.ts';
import { reportToolError } from './tool-errors.ts';
import { traceCommand } from './trace-command.ts';

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
  ledger         where an event is for every subscriber: delivered, retrying, dead, filtered, not reached
  bench          the full report (bench/results/), or ingress | push | retry | limiter | fleet alone, next to raw baselines

Run \`hookstream <command> --help\` for a command's options.`;

type Command = (argv: readonly string[]) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  stack: stackCommand,
  start: startCommand,
  ingress: ingressCommand,
  push: pushCommand,
  subscribers: subscribersCommand,
  receiver: receiverCommand,
  trace: traceCommand,
  dlq: dlqCommand,
  ledger: ledgerCommand,
  bench: benchCommand,
};

/** Dispatches a command line to its command, which parses its own options; returns the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h')
    return usage(USAGE, name === undefined ? 2 : 0);
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`hookstream: unknown command '${name}'\n\n`);
    return usage(USAGE, 2);
  }
  try {
    return await command(rest);
  } catch (err) {
    // A hookstream error a command did not report itself: reported the same way as the others.
    if (err instanceof HookstreamError) return reportToolError(name, err);
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
