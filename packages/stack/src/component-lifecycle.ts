import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Component } from './component.ts';
import type { StackConfig } from './config.ts';
import { StackError } from './errors.ts';
import {
  isOurProcess,
  isPortOpen,
  type PidRecord,
  processStartTime,
  readPidFile,
  removePidFile,
  spawnDetached,
  stopProcess,
  writePidFile,
} from './processes.ts';
import { formatDuration, type Reporter } from './progress.ts';

/*
 * One component's life in a state folder: its pid file, start (install, launch, readiness),
 * version check and stop, and the report that says where it stands. The stack's public calls
 * (stack.ts) run these under the state folder's lock.
 */

export type ComponentState = 'running' | 'starting' | 'stopped' | 'skipped' | 'failed';

export interface ComponentReport {
  readonly name: string;
  readonly state: ComponentState;
  readonly pid: number | null;
  readonly endpoints: Readonly<Record<string, string>>;
  readonly logFile: string;
  /** True when this call started it (false when it was already running). */
  readonly startedNow: boolean;
  /** The running process's version as its start recorded it; null when unpinned or unknown. */
  readonly version: string | null;
  /** Who started the running process (a holder's command and checkout). */
  readonly startedBy?: string;
  readonly note?: string;
}

/** How the components this call starts are marked: by whom, and what happens when it ends. */
export interface StartContext {
  readonly startedBy: string;
  readonly stopWhenIdle: boolean;
  readonly scratchData: boolean;
}

export function pidFile(config: StackConfig, component: Component): string {
  return join(config.stateDir, 'pids', `${component.name}.json`);
}

export async function runningRecord(config: StackConfig, component: Component): Promise<PidRecord | null> {
  const record = await readPidFile(pidFile(config, component));
  return record && (await isOurProcess(record)) ? record : null;
}

export async function upAll(
  config: StackConfig,
  components: readonly Component[],
  report: Reporter,
  start: StartContext,
): Promise<ComponentReport[]> {
  const results = await Promise.allSettled(components.map((c) => upOne(config, c, report, start)));
  const failures: string[] = [];
  const reports = results.map((result, i) => {
    const component = components[i] as Component;
    if (result.status === 'fulfilled') return result.value;
    const message = result.reason instanceof Error ? result.reason.message : String(result.reason);
    if (component.required || result.reason?.code === 'VERSION_MISMATCH') failures.push(message);
    else report(component.name, `WARNING: ${message}; continuing without it`);
    return failedReport(component, message);
  });
  if (failures.length > 0) {
    const first = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    const code = first.reason instanceof StackError ? first.reason.code : 'START_FAILED';
    throw new StackError(code, failures.join('\n'), { cause: first.reason });
  }
  return reports;
}

async function upOne(
  config: StackConfig,
  component: Component,
  report: Reporter,
  start: StartContext,
): Promise<ComponentReport> {
  const started = Date.now();
  const existing = await runningRecord(config, component);
  if (existing) {
    const note = checkVersion(config, component, existing, report);
    report(
      component.name,
      `already running (pid ${existing.pid}${existing.startedBy ? `, started by ${existing.startedBy}` : ''})`,
    );
    if (component.background && !(await component.isReady()))
      return { ...runningReport(component, existing, false, note), state: 'starting' };
    await waitReady(config, component, existing, report, config.readyTimeoutMs);
    return runningReport(component, existing, false, note);
  }
  const skip = await component.skipReason();
  if (skip) {
    report(component.name, `WARNING: skipped: ${skip}`);
    return {
      ...baseReport(component),
      state: 'skipped',
      pid: null,
      startedNow: false,
      version: null,
      note: skip,
    };
  }
  for (const port of component.ports) {
    if (await isPortOpen(config.host, port)) {
      throw new StackError('PORT_TAKEN', await portTakenMessage(config, component, port));
    }
  }
  await component.install(report);
  const spec = await component.prepare(report, { scratchData: start.scratchData });
  const pid = spawnDetached(spec);
  const record: PidRecord = {
    pid,
    startedAt: new Date().toISOString(),
    marker: spec.marker,
    ...(component.version === null ? {} : { version: component.version }),
    startedBy: start.startedBy,
    stopWhenIdle: start.stopWhenIdle,
    ...(spec.scratchDirs === undefined ? {} : { scratchDirs: spec.scratchDirs }),
  };
  await writePidFile(pidFile(config, component), record);
  if (component.background) {
    report(component.name, `started (pid ${pid}) in the background; nothing waits for it`);
    return {
      ...runningReport(component, record, true, (await component.progress?.()) ?? undefined),
      state: 'starting',
    };
  }
  report(component.name, `started (pid ${pid}), waiting until ready…`);
  await waitReady(config, component, record, report, config.readyTimeoutMs);
  report(component.name, `ready in ${formatDuration(Date.now() - started)}: ${describe(component)}`);
  return runningReport(component, record, true);
}

/** A child shows its parent's command line until its exec is done; on a busy machine, a while. */
const EXEC_GRACE_MS = 10_000;

/** True while a just-spawned process lives but does not show its marker yet. */
async function stillExecing(record: PidRecord): Promise<boolean> {
  return (
    Date.now() - Date.parse(record.startedAt) < EXEC_GRACE_MS && (await processStartTime(record.pid)) !== null
  );
}

/** Throws VERSION_MISMATCH, or with HOOKSTREAM_STACK_MISMATCH=use warns and returns a note. */
function checkVersion(
  config: StackConfig,
  component: Component,
  record: PidRecord,
  report: Reporter,
): string | undefined {
  if (component.version === null || record.version === component.version) return undefined;
  const running = `${component.name} ${record.version ?? 'of an unrecorded version'} is running (pid ${record.pid}${
    record.startedBy ? `, started by ${record.startedBy}` : ''
  }), but this checkout pins ${component.version}`;
  if (config.onVersionMismatch === 'refuse') {
    throw new StackError(
      'VERSION_MISMATCH',
      `${running}: stop it once its users are done (\`npx hookstream stack status\` lists them, ` +
        '`npx hookstream stack down` stops it), or set HOOKSTREAM_STACK_MISMATCH=use to run against it',
    );
  }
  report(component.name, `WARNING: ${running}; using it (HOOKSTREAM_STACK_MISMATCH=use)`);
  return `version ${record.version ?? 'unrecorded'}, this checkout pins ${component.version}`;
}

async function portTakenMessage(config: StackConfig, component: Component, port: number): Promise<string> {
  const taken = `${component.name}: port ${port} on ${config.host} is already in use by a process hookstream did not start`;
  // Before stacks were shared, each checkout kept its stack's pid files in its own .hookstream/.
  const legacy = await readPidFile(join(config.workDir, 'pids', `${component.name}.json`));
  if (legacy && (await isOurProcess(legacy))) {
    return (
      `${taken} from ${config.stateDir}: it is this checkout's stack from before stacks were shared ` +
      `(pid ${legacy.pid}, ${config.workDir}/pids); stop it once with ` +
      '`HOOKSTREAM_STATE_DIR=.hookstream npx hookstream stack down`, and the next start uses the shared one'
    );
  }
  return (
    `${taken} from ${config.stateDir}: another program, or a stack with another HOOKSTREAM_STATE_DIR; ` +
    'stop it or choose another port (see docs/deployment.md: Ports)'
  );
}

export async function waitReady(
  config: StackConfig,
  c: Component,
  record: PidRecord,
  report: Reporter,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastNotice = Date.now();
  while (!(await c.isReady())) {
    if (!(await isOurProcess(record)) && !(await stillExecing(record))) {
      await removePidFile(pidFile(config, c));
      throw new StackError(
        'START_FAILED',
        `${c.name} exited during start-up (pid ${record.pid}: ${await whatRuns(record.pid)}); last lines of ` +
          `${c.logFile}:\n${await logTail(c.logFile)}`,
      );
    }
    if (Date.now() > deadline) {
      throw new StackError(
        'NOT_READY',
        `${c.name} did not become ready within ${formatDuration(timeoutMs)} (still running as pid ` +
          `${record.pid}; see ${c.logFile})`,
        { canRetry: true },
      );
    }
    if (Date.now() - lastNotice > (c.background ? 30_000 : 10_000)) {
      const progress = (await c.progress?.()) ?? 'waiting for readiness';
      report(c.name, `  … still ${progress}`);
      lastNotice = Date.now();
    }
    await sleep(250);
  }
}

/** Stops the running components `which` picks, last first (Kafka goes last); returns their names. */
export async function stopComponents(
  config: StackConfig,
  components: readonly Component[],
  report: Reporter,
  graceMs: number | undefined,
  which: (record: PidRecord) => boolean,
): Promise<string[]> {
  const stopped: string[] = [];
  for (const component of [...components].reverse()) {
    const file = pidFile(config, component);
    const record = await readPidFile(file);
    if (!record || !which(record)) continue;
    const outcome = await stopProcess(record, graceMs ?? 30_000);
    if (outcome !== 'gone') report(component.name, `${outcome} (pid ${record.pid})`);
    await removePidFile(file);
    for (const dir of record.scratchDirs ?? []) await rm(dir, { recursive: true, force: true });
    stopped.push(component.name);
  }
  return stopped.reverse();
}

export function baseReport(c: Component) {
  return { name: c.name, endpoints: c.endpoints, logFile: c.logFile };
}

export function runningReport(
  c: Component,
  record: PidRecord,
  startedNow: boolean,
  note?: string,
): ComponentReport {
  return {
    ...baseReport(c),
    state: 'running',
    pid: record.pid,
    startedNow,
    version: record.version ?? null,
    ...(record.startedBy === undefined ? {} : { startedBy: record.startedBy }),
    ...(note === undefined ? {} : { note }),
  };
}

function failedReport(c: Component, note: string): ComponentReport {
  return { ...baseReport(c), state: 'failed', pid: null, startedNow: false, version: null, note };
}

function describe(c: Component): string {
  return Object.entries(c.endpoints)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
}

/** What /proc says of a pid, for an error that claims it is not our process. */
async function whatRuns(pid: number): Promise<string> {
  try {
    const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).replaceAll('\0', ' ').trim();
    return cmdline === '' ? 'no command line (exited)' : `now runs ${cmdline.slice(0, 160)}`;
  } catch (err) {
    return `gone (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`;
  }
}

async function logTail(file: string, lines = 20): Promise<string> {
  try {
    return (await readFile(file, 'utf8')).trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log written)';
  }
}
