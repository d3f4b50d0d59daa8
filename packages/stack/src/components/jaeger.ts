import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Component, LaunchSpec } from '../component.ts';
import { type StackConfig, VERSIONS } from '../config.ts';
import { httpOk } from '../http-probe.ts';
import type { Reporter } from '../progress.ts';
import { requireCommand, whichCommand } from '../tools.ts';

const RESOURCES = join(import.meta.dirname, '../../resources');
const MAIN_PACKAGE = 'github.com/jaegertracing/jaeger/cmd/jaeger';

/** `go build -v` lines: modules fetched, then each package as it compiles. */
const BUILD_PROGRESS = /^go: downloading |^[\w.-]+\.[a-z]+\/\S+$|^[a-z]+(\/[\w.-]+)*$/;

/**
 * Builds Jaeger, then runs it in the same process (exec), so one pid and one marker cover the
 * build and the server: $1 go, $2 partial binary, $3 binary, $4 config, $5 build log. The build
 * runs at a lower CPU priority, so the pipeline it no longer holds back gets the cores first.
 */
const BUILD_THEN_RUN = `set -u
started=$(date +%s)
if ! nice -n 10 "$1" build -v -o "$2" ${MAIN_PACKAGE} >"$5" 2>&1; then
  echo "jaeger: building Jaeger failed; last lines of $5:"; tail -n 20 "$5"; exit 1
fi
mv "$2" "$3"
echo "jaeger: built in $(( $(date +%s) - started )) s"
exec "$3" --config "$4"`;

/**
 * Jaeger v2 built from the Go module proxy. `go install` refuses the module (it has replace
 * directives), so it is built from a small tool module whose go.mod and go.sum are committed
 * under resources/jaeger-tool: the build is pinned and checksummed. The first start builds it
 * for minutes, in the background: nothing waits for Jaeger, and spans wait in each process's
 * bounded buffer until it answers (docs/deployment.md).
 */
export class JaegerComponent implements Component {
  readonly name = 'jaeger';
  readonly required: boolean;
  readonly background = true;
  readonly version = VERSIONS.jaeger;
  readonly ports: readonly number[];
  readonly endpoints: Readonly<Record<string, string>>;
  readonly logFile: string;
  readonly #config: StackConfig;
  readonly #binary: string;
  readonly #build: string;
  readonly #dir: string;

  constructor(config: StackConfig) {
    this.#config = config;
    const { otlpGrpcPort, otlpHttpPort, queryPort, queryGrpcPort } = config.jaeger;
    this.required = config.jaeger.mode === 'on';
    this.ports = [otlpGrpcPort, otlpHttpPort, queryPort, queryGrpcPort];
    this.endpoints = {
      otlpHttp: `http://${config.host}:${otlpHttpPort}`,
      otlpGrpc: `${config.host}:${otlpGrpcPort}`,
      query: `http://${config.host}:${queryPort}`,
    };
    this.#binary = join(config.cacheDir, 'bin', `jaeger-${VERSIONS.jaeger}`);
    this.#build = join(config.cacheDir, 'build', `jaeger-${VERSIONS.jaeger}`);
    this.#dir = join(config.stateDir, 'jaeger');
    this.logFile = join(config.stateDir, 'logs', 'jaeger.log');
  }

  get #buildLog(): string {
    return join(this.#build, 'build.log');
  }

  async skipReason(): Promise<string | null> {
    if (this.#config.jaeger.mode === 'off') return 'disabled by HOOKSTREAM_JAEGER=off';
    if (this.#config.jaeger.mode === 'auto' && !existsSync(this.#binary) && !(await whichCommand('go'))) {
      return 'Go is not installed, so Jaeger cannot be built: traces will not be collected (install Go 1.24+ to get them)';
    }
    return null;
  }

  /** The build is part of the launch (BUILD_THEN_RUN), so that it runs in the background. */
  async install(): Promise<void> {}

  async prepare(report: Reporter): Promise<LaunchSpec> {
    const config = join(this.#dir, 'config.yaml');
    await mkdir(this.#dir, { recursive: true });
    await copyFile(join(RESOURCES, 'jaeger-config.yaml'), config);
    const { otlpGrpcPort, otlpHttpPort, queryPort, queryGrpcPort } = this.#config.jaeger;
    const env = {
      JAEGER_OTLP_GRPC_PORT: String(otlpGrpcPort),
      JAEGER_OTLP_HTTP_PORT: String(otlpHttpPort),
      JAEGER_QUERY_PORT: String(queryPort),
      JAEGER_QUERY_GRPC_PORT: String(queryGrpcPort),
    };
    if (existsSync(this.#binary)) {
      return {
        command: this.#binary,
        args: ['--config', config],
        cwd: this.#dir,
        logFile: this.logFile,
        marker: config,
        env,
      };
    }
    const go = await requireCommand('go', 'Building Jaeger');
    await mkdir(this.#build, { recursive: true });
    await mkdir(join(this.#config.cacheDir, 'bin'), { recursive: true });
    for (const file of ['go.mod', 'go.sum']) {
      await copyFile(join(RESOURCES, 'jaeger-tool', file), join(this.#build, file));
    }
    report(
      this.name,
      `building Jaeger ${VERSIONS.jaeger} from the Go module proxy in the background (first run only, ` +
        `several minutes; log: ${this.#buildLog})`,
    );
    return {
      command: '/bin/sh',
      args: [
        '-c',
        BUILD_THEN_RUN,
        'jaeger-build',
        go,
        `${this.#binary}.partial`,
        this.#binary,
        config,
        this.#buildLog,
      ],
      cwd: this.#build,
      logFile: this.logFile,
      marker: config,
      // The committed go.sum pins every module; never let the build rewrite it.
      env: { ...env, GOFLAGS: '-mod=readonly' },
    };
  }

  async progress(): Promise<string | null> {
    if (existsSync(this.#binary)) return null;
    try {
      const lines = (await readFile(this.#buildLog, 'utf8')).split('\n');
      const done = lines.filter((line) => BUILD_PROGRESS.test(line)).length;
      return `building (${done} modules fetched or packages compiled; log: ${this.#buildLog})`;
    } catch {
      return 'building';
    }
  }

  async isReady(): Promise<boolean> {
    return httpOk(`${this.endpoints.query}/api/services`);
  }
}
