import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Component } from './component.ts';
import { JaegerComponent } from './components/jaeger.ts';
import { KafkaComponent } from './components/kafka.ts';
import { RedisComponent } from './components/redis.ts';
import { RegistryComponent } from './components/registry.ts';
import { loadStackConfig, type StackConfig } from './config.ts';
import { StackError } from './errors.ts';
import {
  isOurProcess,
  isPortOpen,
  type PidRecord,
  readPidFile,
  removePidFile,
  spawnDetached,
  stopProcess,
  writePidFile,
} from './processes.ts';
import { consoleReporter, formatDuration, type Reporter } from './progress.ts';
import { describeHolder, type HoldRequest, type StackHolder, StackHolders } from './stack-holders.ts';
import { withStackLock } from './stack-lock.ts';

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

export interface StackOptions {
  readonly config?: StackConfig;
  readonly report?: Reporter;
  /**
   * Limit the call to these components: a test that kills Kafka starts a private one with
   * `only: ['kafka']` and its own ports and state folder; teardown stops only what it started.
   */
  readonly only?: readonly string[];
  /** Run these components instead of the standard stack (e.g. a three-node Kafka cluster). */
  readonly components?: readonly Component[];
  /** `stackDown`: how long a process gets after SIGTERM before SIGKILL (0 kills at once). */
  readonly graceMs?: number;
}

/** What `stack status` shows: the components, and who holds the stack. */
export interface StackStatus {
  readonly components: ComponentReport[];
  readonly holders: StackHolder[];
}

/** A process's (or a terminal's) use of the stack, from `joinStack` until `leaveStack`. */
export interface StackSession {
  readonly reports: ComponentReport[];
  readonly holder: StackHolder;
}

/** What leaving did: what it stopped, and who still holds the stack when it stopped nothing. */
export interface LeaveResult {
  readonly stopped: string[];
  readonly heldBy: StackHolder[];
}

/** How the components this call starts are marked: by whom, and what happens when it ends. */
interface StartContext {
  readonly startedBy: string;
  readonly stopWhenIdle: boolean;
  readonly scratchData: boolean;
}

const LOCK_TIMEOUT_MS = 10 * 60_000;

export function stackComponents(config: StackConfig): Component[] {
  return [
    new KafkaComponent(config),
    new RegistryComponent(config),
    new JaegerComponent(config),
    new RedisComponent(config),
  ];
}

function selectComponents(config: StackConfig, options: StackOptions): readonly Component[] {
  const all = options.components ?? stackComponents(config);
  return options.only === undefined ? all : all.filter((c) => options.only?.includes(c.name));
}

function pidFile(config: StackConfig, component: Component): string {
  return join(config.stateDir, 'pids', `${component.name}.json`);
}

async function runningRecord(config: StackConfig, component: Component): Promise<PidRecord | null> {
  const record = await readPidFile(pidFile(config, component));
  return record && (await isOurProcess(record)) ? record : null;
}

function contextOf(options: StackOptions) {
  const config = options.config ?? loadStackConfig();
  return { config, report: options.report ?? consoleReporter, components: selectComponents(config, options) };
}

/**
 * Brings every component up without taking a hold: for private stacks of one test (their own
 * state folder and ports), stopped with `stackDown`. The shared stack is joined with `joinStack`.
 */
export async function stackUp(options: StackOptions = {}): Promise<ComponentReport[]> {
  const { config, report, components } = contextOf(options);
  const start: StartContext = { startedBy: 'stackUp', stopWhenIdle: false, scratchData: false };
  return withStackLock(config.stateDir, 'stack up', () => upAll(config, components, report, start), {
    report,
    timeoutMs: LOCK_TIMEOUT_MS,
  });
}

/**
 * Takes a hold on the stack and brings up what is not running yet. A component that runs
 * already (started by any checkout into this state folder) is used as it is, once its version
 * is the one this checkout pins. Components go through install, start and readiness
 * concurrently; background components (Jaeger, which may need a build of minutes) are started
 * but not waited for: `waitForComponent` does that for whoever needs them.
 */
export async function joinStack(request: HoldRequest, options: StackOptions = {}): Promise<StackSession> {
  const { config, report, components } = contextOf(options);
  const holders = new StackHolders(config.stateDir);
  return withStackLock(
    config.stateDir,
    request.command,
    async () => {
      const holder = await holders.add(request);
      const start: StartContext = {
        startedBy: `${holder.command} in ${holder.checkout}`,
        stopWhenIdle: request.stopWhenIdle ?? false,
        scratchData: request.scratchData ?? false,
      };
      try {
        return { reports: await upAll(config, components, report, start), holder };
      } catch (err) {
        // A failed join holds nothing, and stops what it started when nobody else uses it.
        await releaseLocked(config, components, holders, holder.id, report, options.graceMs);
        throw err;
      }
    },
    { report, timeoutMs: LOCK_TIMEOUT_MS },
  );
}

/**
 * Gives up a hold. When no other holder is left, the components started by runs that stop what
 * they start (`npm test`) are stopped; what `npm start` or `stack up` started stays up.
 */
export async function leaveStack(holderId: string, options: StackOptions = {}): Promise<LeaveResult> {
  const { config, report, components } = contextOf(options);
  const holders = new StackHolders(config.stateDir);
  return withStackLock(
    config.stateDir,
    'leaving the stack',
    () => releaseLocked(config, components, holders, holderId, report, options.graceMs),
    { report, timeoutMs: LOCK_TIMEOUT_MS },
  );
}

/**
 * `stack down`: gives up this checkout's `stack up` hold, then stops every component unless
 * someone else still holds the stack (force stops them anyway).
 */
export async function releaseAndStop(
  options: StackOptions & { readonly force?: boolean } = {},
): Promise<LeaveResult> {
  const { config, report, components } = contextOf(options);
  const holders = new StackHolders(config.stateDir);
  return withStackLock(
    config.stateDir,
    'stack down',
    async () => {
      const own = await holders.untilDownHolder();
      if (own) await holders.remove(own.id);
      const heldBy = await holders.live();
      if (heldBy.length > 0 && !options.force) return { stopped: [], heldBy };
      const stopped = await stopComponents(config, components, report, options.graceMs, () => true);
      return { stopped, heldBy };
    },
    { report, timeoutMs: LOCK_TIMEOUT_MS },
  );
}

async function releaseLocked(
  config: StackConfig,
  components: readonly Component[],
  holders: StackHolders,
  holderId: string,
  report: Reporter,
  graceMs: number | undefined,
): Promise<LeaveResult> {
  await holders.remove(holderId);
  const heldBy = await holders.live();
  if (heldBy.length > 0) return { stopped: [], heldBy };
  const stopped = await stopComponents(config, components, report, graceMs, (r) => r.stopWhenIdle === true);
  return { stopped, heldBy };
}

async function upAll(
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

async function waitReady(
  config: StackConfig,
  c: Component,
  record: PidRecord,
  report: Reporter,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastNotice = Date.now();
  while (!(await c.isReady())) {
    if (!(await isOurProcess(record))) {
      await removePidFile(pidFile(config, c));
      throw new StackError(
        'START_FAILED',
        `${c.name} exited during start-up; last lines of ${c.logFile}:\n${await logTail(c.logFile)}`,
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

/**
 * Waits until a component of the running stack answers: for a background one (Jaeger, maybe
 * still building) up to HOOKSTREAM_BUILD_TIMEOUT_MIN, reporting progress. Fails at once when it
 * is not running or exits (a failed build), with the last lines of its log.
 */
export async function waitForComponent(
  name: string,
  options: StackOptions & { readonly timeoutMs?: number } = {},
): Promise<ComponentReport> {
  const { config, report, components } = contextOf(options);
  const component = components.find((c) => c.name === name);
  if (!component) throw new StackError('START_FAILED', `the stack has no component ${name}`);
  const record = await readPidFile(pidFile(config, component));
  if (!record) {
    const skip = await component.skipReason();
    throw new StackError('NOT_READY', `${name} is not running${skip ? `: ${skip}` : ''}`);
  }
  await waitReady(config, component, record, report, options.timeoutMs ?? config.buildTimeoutMs);
  return runningReport(component, record, false);
}

/**
 * Stops every component, whoever holds the stack: for private stacks of one test, and for
 * `stack down --force`. Only processes this state folder started are touched (pid file + marker).
 */
export async function stackDown(options: StackOptions = {}): Promise<ComponentReport[]> {
  const { config, report, components } = contextOf(options);
  await withStackLock(
    config.stateDir,
    'stack down',
    () => stopComponents(config, components, report, options.graceMs, () => true),
    { report, timeoutMs: LOCK_TIMEOUT_MS },
  );
  return components.map((c) => ({
    ...baseReport(c),
    state: 'stopped',
    pid: null,
    startedNow: false,
    version: null,
  }));
}

/** Stops the running components `which` picks, last first (Kafka goes last); returns their names. */
async function stopComponents(
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

export async function stackStatus(options: StackOptions = {}): Promise<StackStatus> {
  const { config, components } = contextOf(options);
  const reports = await Promise.all(
    components.map(async (component): Promise<ComponentReport> => {
      const record = await runningRecord(config, component);
      if (!record)
        return { ...baseReport(component), state: 'stopped', pid: null, startedNow: false, version: null };
      if (await component.isReady()) return runningReport(component, record, false);
      const progress = await component.progress?.();
      return {
        ...runningReport(component, record, false),
        state: 'starting',
        ...(progress ? { note: progress } : {}),
      };
    }),
  );
  return { components: reports, holders: await new StackHolders(config.stateDir).live() };
}

/** A line per holder, for messages that say why the stack stays up. */
export function describeHolders(holders: readonly StackHolder[]): string {
  return holders.map((h) => `  ${describeHolder(h)}`).join('\n');
}

function baseReport(c: Component) {
  return { name: c.name, endpoints: c.endpoints, logFile: c.logFile };
}

function runningReport(c: Component, record: PidRecord, startedNow: boolean, note?: string): ComponentReport {
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

async function logTail(file: string, lines = 20): Promise<string> {
  try {
    return (await readFile(file, 'utf8')).trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log written)';
  }
}
