import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Component, LaunchSpec, PrepareOptions } from '../component.ts';
import { type StackConfig, VERSIONS } from '../config.ts';
import { httpOk } from '../http-probe.ts';
import { runInstallStep } from '../install-step.ts';
import type { Reporter } from '../progress.ts';
import { requireCommand, requireJava } from '../tools.ts';

const ARTIFACT = `io.apicurio:apicurio-registry-app:${VERSIONS.apicurio}:tar.gz:all`;

/** Apicurio Registry 3 with its Confluent-compatible API, schemas kept in an H2 file. */
export class RegistryComponent implements Component {
  readonly name = 'registry';
  readonly required = true;
  readonly background = false;
  readonly version = VERSIONS.apicurio;
  readonly ports: readonly number[];
  readonly endpoints: Readonly<Record<string, string>>;
  readonly logFile: string;
  readonly #config: StackConfig;
  readonly #home: string;
  readonly #dir: string;

  constructor(config: StackConfig) {
    this.#config = config;
    const base = `http://${config.host}:${config.registry.port}`;
    this.ports = [config.registry.port];
    this.endpoints = { confluent: `${base}/apis/ccompat/v7`, api: `${base}/apis/registry/v3` };
    this.#home = join(config.cacheDir, `apicurio-registry-${VERSIONS.apicurio}`);
    this.#dir = join(config.stateDir, 'registry');
    this.logFile = join(config.stateDir, 'logs', 'registry.log');
  }

  get #jar(): string {
    return join(this.#home, `apicurio-registry-app-${VERSIONS.apicurio}-runner.jar`);
  }

  async skipReason(): Promise<string | null> {
    return null;
  }

  async install(report: Reporter): Promise<void> {
    const complete = join(this.#home, '.complete');
    if (existsSync(complete)) return;
    await requireJava(17, 'Apicurio Registry');
    const mvn = await requireCommand('mvn', 'Resolving Apicurio Registry from Maven Central');
    const tar = await requireCommand('tar', 'Unpacking Apicurio Registry');
    const downloads = join(this.#config.cacheDir, 'downloads');
    await rm(this.#home, { recursive: true, force: true });
    await mkdir(this.#home, { recursive: true });
    await runInstallStep(
      {
        component: this.name,
        label: `resolving Apicurio Registry ${VERSIONS.apicurio} from Maven Central (first run only, ~110 MB)`,
        command: mvn,
        args: [
          '-B',
          'dependency:copy',
          `-Dartifact=${ARTIFACT}`,
          `-DoutputDirectory=${downloads}`,
          '-Dtransitive=false',
        ],
        cwd: this.#home,
        logFile: join(this.#home, 'install.log'),
        progressLine: /Downloaded from/,
        progressNoun: 'files downloaded',
      },
      report,
    );
    await runInstallStep(
      {
        component: this.name,
        label: 'unpacking the registry',
        command: tar,
        args: [
          '-xzf',
          join(downloads, `apicurio-registry-app-${VERSIONS.apicurio}-all.tar.gz`),
          '-C',
          this.#home,
        ],
        cwd: this.#home,
        logFile: join(this.#home, 'unpack.log'),
      },
      report,
    );
    await writeFile(complete, `${new Date().toISOString()}\n`);
  }

  async prepare(_report: Reporter, options: PrepareOptions): Promise<LaunchSpec> {
    const java = await requireJava(17, 'Apicurio Registry');
    // Schema ids in a test run's scratch Kafka data point into a scratch database of its own.
    const dbDir = join(this.#dir, options.scratchData ? 'scratch-db' : 'db');
    const db = join(dbDir, 'registry');
    if (options.scratchData) await rm(dbDir, { recursive: true, force: true });
    await mkdir(dbDir, { recursive: true });
    return {
      command: java,
      args: [
        '-Xms128m',
        '-Xmx512m',
        `-Dquarkus.http.host=${this.#config.host}`,
        `-Dquarkus.http.port=${this.#config.registry.port}`,
        // register() from @kafkajs/confluent-schema-registry fails without a global rule.
        '-Dapicurio.rules.global.compatibility=BACKWARD',
        // The default is an in-memory H2; a file keeps schema ids valid for records already
        // in Kafka across a restart of the stack.
        `-Dapicurio.datasource.url=jdbc:h2:file:${db}`,
        '-Dquarkus.log.console.color=false',
        '-jar',
        this.#jar,
      ],
      cwd: this.#dir,
      logFile: this.logFile,
      marker: db,
      ...(options.scratchData ? { scratchDirs: [dbDir] } : {}),
    };
  }

  async isReady(): Promise<boolean> {
    return httpOk(`${this.endpoints.confluent}/subjects`);
  }
}
