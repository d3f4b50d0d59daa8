import { existsSync } from 'node:fs';
import { copyFile, mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { Component, LaunchSpec } from '../component.ts';
import { type StackConfig, VERSIONS } from '../config.ts';
import { StackError } from '../errors.ts';
import { httpOk } from '../http-probe.ts';
import { runInstallStep } from '../install-step.ts';
import type { Reporter } from '../progress.ts';
import { requireCommand, whichCommand } from '../tools.ts';

const RESOURCES = join(import.meta.dirname, '../../resources');
const MAIN_PACKAGE = 'github.com/jaegertracing/jaeger/cmd/jaeger';

/**
 * Jaeger v2 built from the Go module proxy. `go install` refuses the module (it has replace
 * directives), so it is built from a small tool module whose go.mod and go.sum are committed
 * under resources/jaeger-tool: the build is pinned and checksummed.
 */
export class JaegerComponent implements Component {
  readonly name = 'jaeger';
  readonly required: boolean;
  readonly ports: readonly number[];
  readonly endpoints: Readonly<Record<string, string>>;
  readonly logFile: string;
  readonly #config: StackConfig;
  readonly #binary: string;
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
    this.#dir = join(config.stateDir, 'jaeger');
    this.logFile = join(config.stateDir, 'logs', 'jaeger.log');
  }

  async skipReason(): Promise<string | null> {
    if (this.#config.jaeger.mode === 'off') return 'disabled by HOOKSTREAM_JAEGER=off';
    if (this.#config.jaeger.mode === 'auto' && !existsSync(this.#binary) && !(await whichCommand('go'))) {
      return 'Go is not installed, so Jaeger cannot be built: traces will not be collected (install Go 1.24+ to get them)';
    }
    return null;
  }

  async install(report: Reporter): Promise<void> {
    if (existsSync(this.#binary)) return;
    const go = await requireCommand('go', 'Building Jaeger');
    const build = join(this.#config.cacheDir, 'build', `jaeger-${VERSIONS.jaeger}`);
    await mkdir(build, { recursive: true });
    await mkdir(join(this.#config.cacheDir, 'bin'), { recursive: true });
    for (const file of ['go.mod', 'go.sum']) {
      await copyFile(join(RESOURCES, 'jaeger-tool', file), join(build, file));
    }
    const partial = `${this.#binary}.partial`;
    await runInstallStep(
      {
        component: this.name,
        label: `building Jaeger ${VERSIONS.jaeger} from the Go module proxy (first run only, several minutes)`,
        command: go,
        args: ['build', '-v', '-o', partial, MAIN_PACKAGE],
        cwd: build,
        logFile: join(build, 'build.log'),
        // Modules are fetched first ("go: downloading …"), then `go build -v` prints each
        // package as it compiles it; both count as progress.
        progressLine: /^go: downloading |^[\w.-]+\.[a-z]+\/\S+$|^[a-z]+(\/[\w.-]+)*$/,
        progressNoun: 'modules fetched or packages compiled',
        // The committed go.sum pins every module; never let the build rewrite it.
        env: { GOFLAGS: '-mod=readonly' },
      },
      report,
    );
    await rename(partial, this.#binary);
  }

  async prepare(): Promise<LaunchSpec> {
    if (!existsSync(this.#binary)) {
      throw new StackError('START_FAILED', `jaeger: binary missing at ${this.#binary}`);
    }
    const config = join(this.#dir, 'config.yaml');
    await mkdir(this.#dir, { recursive: true });
    await copyFile(join(RESOURCES, 'jaeger-config.yaml'), config);
    const { otlpGrpcPort, otlpHttpPort, queryPort, queryGrpcPort } = this.#config.jaeger;
    return {
      command: this.#binary,
      args: ['--config', config],
      cwd: this.#dir,
      logFile: this.logFile,
      marker: config,
      env: {
        JAEGER_OTLP_GRPC_PORT: String(otlpGrpcPort),
        JAEGER_OTLP_HTTP_PORT: String(otlpHttpPort),
        JAEGER_QUERY_PORT: String(queryPort),
        JAEGER_QUERY_GRPC_PORT: String(queryGrpcPort),
      },
    };
  }

  async isReady(): Promise<boolean> {
    return httpOk(`${this.endpoints.query}/api/services`);
  }
}
