import type { Component } from './component.ts';
import {
  baseReport,
  type ComponentReport,
  pidFile,
  runningRecord,
  runningReport,
  type StartContext,
  stopComponents,
  upAll,
  waitReady,
} from './component-lifecycle.ts';
import { JaegerComponent } from './components/jaeger.ts';
import { KafkaComponent } from './components/kafka.ts';
import { RedisComponent } from './components/redis.ts';
import { RegistryComponent } from './components/registry.ts';
import { loadStackConfig, type StackConfig } from './config.ts';
import { StackError } from './errors.ts';
import { readPidFile } from './processes.ts';
import { consoleReporter, type Reporter } from './progress.ts';
import { describeHolder, type HoldRequest, type StackHolder, StackHolders } from './stack-holders.ts';
import { withStackLock } from './stack-lock.ts';

export type { ComponentReport, ComponentState } from './component-lifecycle.ts';

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
