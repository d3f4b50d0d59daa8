import { parseArgs } from 'node:util';
import { StackError } from '@hookstream/stack';
import { BENCH_PUSH_USAGE, benchPushCommand } from './bench-push.ts';
import { pushCommand } from './push-command.ts';
import { receiverCommand } from './receiver-command.ts';
import { STACK_USAGE, stackCommand } from './stack-command.ts';
import { startCommand } from './start-command.ts';

const USAGE = `Usage: hookstream <command> [options]

Commands:
  start          run the local pipeline (today: the stack; services join as they land)
  stack          up | down | status of the local Kafka, schema registry and Jaeger
  bench push     pusher deliveries/s against a raw undici loop (a measurement, not a test)
  push           run one subscriber's pusher (--config <subscriber.json>)
  receiver       a sample subscriber endpoint (signature check, dedupe, misbehaviour on request)

Run \`hookstream <command> --help\` for a command's options.`;

/** Dispatches a command line; returns the process exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  // Commands with options of their own parse the arguments after their name themselves.
  const [first, ...after] = argv;
  switch (first) {
    case 'bench':
      // The pusher's benchmark; other benchmarks dispatch on their own first argument here.
      if (after[0] === 'push') return await benchPushCommand(after.slice(1));
      process.stderr.write(`${BENCH_PUSH_USAGE}\n`);
      return 2;
    case 'push':
      return await pushCommand(after);
    case 'receiver':
      return await receiverCommand(after);
  }
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [command, ...rest] = positionals;
  try {
    switch (command) {
      case 'stack':
        if (values.help) return usage(STACK_USAGE, 0);
        return await stackCommand(rest[0], values.json);
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
