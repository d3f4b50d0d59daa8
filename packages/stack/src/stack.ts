import { readFile } from 'node:fs/promises';
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

export type ComponentState = 'running' | 'starting' | 'stopped' | 'skipped' | 'failed';

export interface ComponentReport {
  readonly name: string;
  readonly state: ComponentState;
  readonly pid: number | null;
  readonly endpoints: Readonly<Record<string, string>>;
  readonly logFile: string;
  /** True when this call started it (false when it was already running). */
  readonly startedNow: boolean;
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

/**
 * Brings every component up, installing into the cache first where needed. Components go
 * through install, start and readiness concurrently, so a slow Jaeger build does not hold
 * back Kafka. Idempotent: a running component is only checked for readiness.
 */
export async function stackUp(options: StackOptions = {}): Promise<ComponentReport[]> {
  const config = options.config ?? loadStackConfig();
  const report = options.report ?? consoleReporter;
  const components = selectComponents(config, options);
  const results = await Promise.allSettled(components.map((c) => upOne(config, c, report)));
  const failures: string[] = [];
  const reports = results.map((result, i) => {
    const component = components[i] as Component;
    if (result.status === 'fulfilled') return result.value;
    const message = result.reason instanceof Error ? result.reason.message : String(result.reason);
    if (component.required) failures.push(message);
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

async function upOne(config: StackConfig, component: Component, report: Reporter): Promise<ComponentReport> {
  const started = Date.now();
  const existing = await runningRecord(config, component);
  if (existing) {
    report(component.name, `already running (pid ${existing.pid})`);
    await waitReady(config, component, existing, report);
    return runningReport(component, existing, false, 'already running');
  }
  const skip = await component.skipReason();
  if (skip) {
    report(component.name, `WARNING: skipped: ${skip}`);
    return { ...baseReport(component), state: 'skipped', pid: null, startedNow: false, note: skip };
  }
  for (const port of component.ports) {
    if (await isPortOpen(config.host, port)) {
      throw new StackError(
        'PORT_TAKEN',
        `${component.name}: port ${port} on ${config.host} is already in use by a process hookstream did not ` +
          `start; stop it or choose another port (see README: Ports)`,
      );
    }
  }
  await component.install(report);
  const spec = await component.prepare(report);
  const pid = spawnDetached(spec);
  const record: PidRecord = { pid, startedAt: new Date().toISOString(), marker: spec.marker };
  await writePidFile(pidFile(config, component), record);
  report(component.name, `started (pid ${pid}), waiting until ready…`);
  await waitReady(config, component, record, report);
  report(component.name, `ready in ${formatDuration(Date.now() - started)}: ${describe(component)}`);
  return runningReport(component, record, true);
}

async function waitReady(
  config: StackConfig,
  c: Component,
  record: PidRecord,
  report: Reporter,
): Promise<void> {
  const deadline = Date.now() + config.readyTimeoutMs;
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
        `${c.name} did not become ready within ${formatDuration(config.readyTimeoutMs)} (still running as pid ` +
          `${record.pid}; see ${c.logFile})`,
        { canRetry: true },
      );
    }
    if (Date.now() - lastNotice > 10_000) {
      report(c.name, '  … still waiting for readiness');
      lastNotice = Date.now();
    }
    await sleep(250);
  }
}

/** Stops only processes this stack started (pid file + command-line marker). */
export async function stackDown(options: StackOptions = {}): Promise<ComponentReport[]> {
  const config = options.config ?? loadStackConfig();
  const report = options.report ?? consoleReporter;
  // Reverse order: the trace collector and registry go first, Kafka last.
  const components = [...selectComponents(config, options)].reverse();
  const reports: ComponentReport[] = [];
  for (const component of components) {
    const file = pidFile(config, component);
    const record = await readPidFile(file);
    if (record) {
      const outcome = await stopProcess(record, options.graceMs ?? 30_000);
      if (outcome !== 'gone') report(component.name, `${outcome} (pid ${record.pid})`);
      await removePidFile(file);
    }
    reports.push({ ...baseReport(component), state: 'stopped', pid: null, startedNow: false });
  }
  return reports.reverse();
}

export async function stackStatus(options: StackOptions = {}): Promise<ComponentReport[]> {
  const config = options.config ?? loadStackConfig();
  return Promise.all(
    selectComponents(config, options).map(async (component) => {
      const record = await runningRecord(config, component);
      if (!record)
        return { ...baseReport(component), state: 'stopped' as const, pid: null, startedNow: false };
      const ready = await component.isReady();
      return {
        ...runningReport(component, record, false),
        state: ready ? ('running' as const) : ('starting' as const),
      };
    }),
  );
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
    ...(note === undefined ? {} : { note }),
  };
}

function failedReport(c: Component, note: string): ComponentReport {
  return { ...baseReport(c), state: 'failed', pid: null, startedNow: false, note };
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
