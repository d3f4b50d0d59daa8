import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { StackError } from './errors.ts';
import { formatDuration, type Reporter, startTicker } from './progress.ts';

export interface InstallStep {
  readonly component: string;
  /** What a person sees, e.g. "resolving Apache Kafka 4.1.1 from Maven Central". */
  readonly label: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly logFile: string;
  readonly env?: Record<string, string>;
  /** Output lines matching this count as units of progress (downloads, compiled packages). */
  readonly progressLine?: RegExp;
  readonly progressNoun?: string;
  /** Runs the step under `nice -n <value>`: a build in the background yields the cores to the work in front. */
  readonly niceness?: number;
}

/**
 * Runs a download or build to completion, writing its full output to a log file and
 * printing a heartbeat with a running count, since these steps take minutes on a cold machine.
 */
export function runInstallStep(step: InstallStep, report: Reporter): Promise<void> {
  mkdirSync(dirname(step.logFile), { recursive: true });
  const log = createWriteStream(step.logFile, { flags: 'w' });
  const tail: string[] = [];
  let count = 0;
  report(step.component, `${step.label} (log: ${step.logFile})`);
  const stopTicker = startTicker(10_000, (elapsed) => {
    const units = step.progressLine ? `, ${count} ${step.progressNoun ?? 'steps'}` : '';
    report(step.component, `  … still ${step.label.split(' ')[0]} (${formatDuration(elapsed)}${units})`);
  });
  const started = Date.now();

  return new Promise<void>((resolve, reject) => {
    const [command, args] =
      step.niceness === undefined
        ? [step.command, step.args]
        : ['nice', ['-n', String(step.niceness), step.command, ...step.args]];
    const child = spawn(command, args, {
      cwd: step.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...step.env },
    });
    const onData = (chunk: Buffer) => {
      log.write(chunk);
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line) continue;
        if (step.progressLine?.test(line)) count += 1;
        tail.push(line);
        if (tail.length > 15) tail.shift();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('error', (err) => {
      stopTicker();
      log.end();
      reject(
        new StackError('INSTALL_FAILED', `${step.component}: could not run ${step.command}: ${err.message}`),
      );
    });
    child.once('close', (code) => {
      stopTicker();
      log.end();
      if (code === 0) {
        report(step.component, `  done in ${formatDuration(Date.now() - started)}`);
        resolve();
        return;
      }
      reject(
        new StackError(
          'INSTALL_FAILED',
          `${step.component}: ${step.label} failed (exit ${code}); last lines of ${step.logFile}:\n${tail.join('\n')}`,
          { canRetry: true },
        ),
      );
    });
  });
}
