import { parseArgs } from 'node:util';
import { bootIngress, IngressConfigError, loadIngressConfig } from '@hookstream/ingress';
import { PublishError } from '@hookstream/producer';

export const INGRESS_USAGE = `Usage: hookstream ingress [--port <port>]

Serves POST /v1/events and /v1/events/batch on 127.0.0.1:8080 (INGRESS_HOST, INGRESS_PORT or --port)
until SIGINT/SIGTERM, then finishes in-flight requests and exits. Needs bearer tokens in
INGRESS_TOKENS or INGRESS_TOKENS_FILE (or INGRESS_DEMO=1 for a local demo). All settings:
docs/ingress.md; TLS, SASL and registry credentials: docs/security.md.`;

/** Runs the ingress until a signal asks it to stop; returns the exit code. */
export async function ingressCommand(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    options: { port: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } },
  });
  if (values.help) {
    process.stdout.write(`${INGRESS_USAGE}\n`);
    return 0;
  }
  const port = values.port;
  let config: ReturnType<typeof loadIngressConfig>;
  try {
    const portNumber = port === undefined ? undefined : Number(port);
    if (
      portNumber !== undefined &&
      !(Number.isInteger(portNumber) && portNumber >= 0 && portNumber <= 65535)
    ) {
      throw new IngressConfigError(`--port: expected a port number, got '${port}'`);
    }
    config = loadIngressConfig(process.env, portNumber === undefined ? {} : { port: portNumber });
  } catch (err) {
    return fail(err);
  }
  let ingress: Awaited<ReturnType<typeof bootIngress>>;
  try {
    ingress = await bootIngress(config);
  } catch (err) {
    return fail(err);
  }
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  process.stderr.write(`hookstream ingress: ${signal}, shutting down\n`);
  await ingress.close();
  return 0;
}

function fail(err: unknown): number {
  if (err instanceof IngressConfigError || err instanceof PublishError) {
    process.stderr.write(`hookstream ingress: ${err.code}: ${err.message}\n`);
    return 1;
  }
  process.stderr.write(
    `hookstream ingress: cannot start: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  return 1;
}
