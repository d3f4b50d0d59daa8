import { parseArgs } from 'node:util';
import { StackError } from '@hookstream/stack';
import { BENCH_USAGE, benchCommand } from './bench-command.ts';
import { INGRESS_USAGE, ingressCommand } from './ingress-command.ts';
import { STACK_USAGE, stackCommand } from './stack-command.ts';
import { startCommand } from './start-command.ts';

const USAGE = `Usage: hookstream <command> [options]

Commands:
  start          run the local pipeline (today: the stack; services join as they land)
  stack          up | down | status of the local Kafka, schema registry and Jaeger
  ingress        serve the HTTP event intake (POST /v1/events) in front of Kafka
  bench          ingress: throughput and latency of the HTTP ingress next to raw kafkajs

Run \`hookstream <command> --help\` for a command's options.`;

/** Dispatches a command line; returns the process exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
      port: { type: 'string' },
      events: { type: 'string' },
    },
  });
  const [command, ...rest] = positionals;
  try {
    switch (command) {
      case 'stack':
        if (values.help) return usage(STACK_USAGE, 0);
        return await stackCommand(rest[0], values.json);
      case 'ingress':
        return values.help ? usage(INGRESS_USAGE, 0) : await ingressCommand(values.port);
      case 'bench':
        return values.help ? usage(BENCH_USAGE, 0) : await benchCommand(rest[0], values.events, values.json);
      case 'start':
        return await startCommand();
      case undefined:
        return usage(USAGE, values.help ? 0 : 2);
      default:
        process.stderr.write(`hookstream: unknown command '${command}'\n\n`);
        return usage(USAGE, 2);
    }
  } catch (err) {
    if (err instanceof StackError) {
      process.stderr.write(`hookstream: ${err.code}: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}

function usage(text: string, code: number): number {
  (code === 0 ? process.stdout : process.stderr).write(`${text}\n`);
  return code;
}
