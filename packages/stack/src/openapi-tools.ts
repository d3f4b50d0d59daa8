import { spawn } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type StackConfig, VERSIONS } from './config.ts';
import { StackError } from './errors.ts';
import type { Reporter } from './progress.ts';
import { completePythonVenv, ensurePythonVenv } from './python-venv.ts';
import { withToolLock } from './tool-lock.ts';

const RESOURCES = join(import.meta.dirname, '../resources/openapi-tools');
/** A run's output kept for its report: the end of it, where both tools sum up. */
const OUTPUT_KEPT = 64 * 1024;
const DEFAULT_SEED = 20261203;

/** What one tool said: passed or not, and its output (the last 64 KiB). */
export interface ToolRun {
  readonly ok: boolean;
  readonly exitCode: number | null;
  readonly output: string;
}

export interface FuzzOptions {
  /** Where the document is served (Schemathesis loads it from there). */
  readonly schemaUrl: string;
  /** The API's base URL, where the document's paths are appended. */
  readonly baseUrl: string;
  /** Sent with every request ("Authorization: Bearer …"). */
  readonly headers: Readonly<Record<string, string>>;
  /** Examples per operation and phase: the run's bound. */
  readonly maxExamples: number;
  /** The whole run's bound, in seconds. */
  readonly maxTimeSeconds: number;
  /** Hypothesis's seed (default: a fixed one, so a failure repeats). */
  readonly seed?: number;
  /**
   * Answers a valid request may get besides 2xx (Schemathesis's positive_data_acceptance takes
   * 401, 403, 404, 409 and 429 by default): a domain's own, such as 412 for a stale If-Match.
   */
  readonly acceptedStatuses?: readonly number[];
  /** Operations left out, as Schemathesis's `--exclude-path-regex`. */
  readonly excludePathRegex?: string;
  /**
   * Fixed parameter values for the operations whose path matches (e.g. a pull subscriber's name,
   * so its routes meet a subscriber that exists rather than answering 404 to every made-up name).
   */
  readonly operations?: readonly FuzzOperation[];
}

/**
 * Schemathesis's `[[operations]]`: for the operations whose path (and method) match, fixed
 * `parameters` ("path.name", "query.wait") and answers a valid request may get besides the run's.
 */
export interface FuzzOperation {
  readonly includePathRegex: string;
  readonly includeMethod?: string;
  readonly parameters?: Readonly<Record<string, string | number>>;
  readonly acceptedStatuses?: readonly number[];
}

export interface OpenApiTools {
  /** openapi-spec-validator on a document file. */
  validate(documentPath: string): Promise<ToolRun>;
  /** Schemathesis with every check on, bounded by `maxExamples` and `maxTimeSeconds`. */
  fuzz(options: FuzzOptions): Promise<ToolRun>;
}

/**
 * openapi-spec-validator and Schemathesis from PyPI, pinned, in a venv in the cache: an
 * independent check of the management API's document and a fuzzer that holds the API to it.
 */
export function ensureOpenApiTools(config: StackConfig, report: Reporter): Promise<OpenApiTools> {
  return withToolLock(config, 'openapi-tools', report, () => prepareOpenApiTools(config, report));
}

async function prepareOpenApiTools(config: StackConfig, report: Reporter): Promise<OpenApiTools> {
  const spec = {
    component: 'openapi-tools',
    purpose: 'Checking the management API against its OpenAPI document',
    dir: join(config.cacheDir, `openapi-tools-${VERSIONS.schemathesis}-${VERSIONS.openapiSpecValidator}`),
    requirements: join(RESOURCES, 'requirements.txt'),
    packages: `schemathesis ${VERSIONS.schemathesis} and openapi-spec-validator ${VERSIONS.openapiSpecValidator}`,
  };
  const venv = await ensurePythonVenv(spec, report);
  if (venv.fresh) await completePythonVenv(spec);
  return {
    validate: (documentPath) => runTool(venv.bin('openapi-spec-validator'), [documentPath], spec.dir),
    // Run in the cache folder: Schemathesis writes its own folder where it runs.
    fuzz: async (options) => {
      const config = join(spec.dir, `config-${process.pid}-${Date.now()}.toml`);
      await writeFile(config, fuzzConfig(options));
      try {
        return await runTool(
          venv.bin('schemathesis'),
          ['--config-file', config, ...fuzzArgs(options)],
          spec.dir,
          {
            NO_COLOR: '1',
          },
        );
      } finally {
        await rm(config, { force: true });
      }
    },
  };
}

/** The statuses a valid request may get: Schemathesis's defaults, and these. */
function expectedStatuses(extra: readonly number[]): string {
  const statuses = ['2xx', '401', '403', '404', '409', '429', ...extra.map(String)];
  // TOML's basic strings take JSON's escapes, so JSON.stringify writes a valid one.
  return `[${statuses.map((s) => JSON.stringify(s)).join(', ')}]`;
}

/** The run's schemathesis.toml: the statuses a valid request may get, and per-operation settings. */
function fuzzConfig(o: FuzzOptions): string {
  const lines = [
    '[checks.positive_data_acceptance]',
    `expected-statuses = ${expectedStatuses(o.acceptedStatuses ?? [])}`,
  ];
  for (const op of o.operations ?? []) {
    lines.push('', '[[operations]]', `include-path-regex = ${JSON.stringify(op.includePathRegex)}`);
    if (op.includeMethod !== undefined) lines.push(`include-method = ${JSON.stringify(op.includeMethod)}`);
    if (op.parameters !== undefined) {
      const values = Object.entries(op.parameters).map(
        ([k, v]) => `${JSON.stringify(k)} = ${JSON.stringify(v)}`,
      );
      lines.push(`parameters = { ${values.join(', ')} }`);
    }
    if (op.acceptedStatuses !== undefined) {
      const statuses = expectedStatuses([...(o.acceptedStatuses ?? []), ...op.acceptedStatuses]);
      lines.push(`checks = { positive_data_acceptance = { expected-statuses = ${statuses} } }`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function fuzzArgs(o: FuzzOptions): string[] {
  if (!Number.isInteger(o.maxExamples) || o.maxExamples < 1 || o.maxExamples > 1000)
    throw new StackError('BAD_ARGUMENT', `openapi-tools: maxExamples must be 1–1000, not ${o.maxExamples}`);
  if (!Number.isInteger(o.maxTimeSeconds) || o.maxTimeSeconds < 1 || o.maxTimeSeconds > 600)
    throw new StackError(
      'BAD_ARGUMENT',
      `openapi-tools: maxTimeSeconds must be 1–600, not ${o.maxTimeSeconds}`,
    );
  const args = [
    'run',
    o.schemaUrl,
    '--url',
    o.baseUrl,
    '--checks',
    'all',
    '--max-examples',
    String(o.maxExamples),
    '--max-time',
    String(o.maxTimeSeconds),
    '--workers',
    '1',
    // A seed makes a failure reproducible; nothing is stored between runs.
    '--seed',
    String(o.seed ?? DEFAULT_SEED),
    '--generation-database',
    'none',
    '--no-color',
  ];
  for (const [name, value] of Object.entries(o.headers)) args.push('--header', `${name}: ${value}`);
  if (o.excludePathRegex !== undefined) args.push('--exclude-path-regex', o.excludePathRegex);
  return args;
}

function runTool(
  command: string,
  args: readonly string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-OUTPUT_KEPT);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('error', (e) =>
      reject(new StackError('TOOL_MISSING', `openapi-tools: cannot run ${command}: ${e.message}`)),
    );
    child.once('close', (code) => resolve({ ok: code === 0, exitCode: code, output }));
  });
}
