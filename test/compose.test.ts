import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { loadStackConfig, VERSIONS } from '@hookstream/stack';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..');

interface ComposeService {
  image: string;
  build?: string;
  command?: string[];
  environment?: Record<string, string | number>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
}

interface ComposeFile {
  services: Record<string, ComposeService>;
}

async function composeAvailable(): Promise<boolean> {
  try {
    await run('docker', ['compose', 'version']);
    return true;
  } catch {
    return false;
  }
}

// docker-compose.yml must describe the same stack as `hookstream stack up`.
describe('docker-compose.yml', async () => {
  // merge: the hookstream services share their Kafka/registry/OTLP variables through a YAML anchor.
  const compose = parse(await readFile(resolve(root, 'docker-compose.yml'), 'utf8'), {
    merge: true,
  }) as ComposeFile;
  const service = (name: string): ComposeService => {
    const found = compose.services[name];
    if (!found) throw new Error(`docker-compose.yml has no service '${name}'`);
    return found;
  };
  const defaults = loadStackConfig({});

  it('pins the same server versions as the local stack', () => {
    expect(compose.services.kafka?.image).toBe(`apache/kafka:${VERSIONS.kafka}`);
    expect(compose.services.registry?.image).toBe(`apicurio/apicurio-registry:${VERSIONS.apicurio}`);
    // Jaeger module v1.76.0 is the Jaeger 2.13.0 release.
    expect(VERSIONS.jaeger).toBe('v1.76.0');
    expect(compose.services.jaeger?.image).toBe('jaegertracing/jaeger:2.13.0');
  });

  it('publishes the local stack ports on loopback only', () => {
    const published = Object.values(compose.services).flatMap((s) => s.ports ?? []);
    for (const mapping of published) expect(mapping).toMatch(/^127\.0\.0\.1:/);
    const hostPorts = published.map((p) => Number(p.split(':')[1]));
    expect(hostPorts).toEqual(
      expect.arrayContaining([
        defaults.kafka.port,
        defaults.registry.port,
        defaults.jaeger.otlpHttpPort,
        defaults.jaeger.queryPort,
        defaults.redis.port,
        8080,
        8090,
      ]),
    );
  });

  it('runs the ingress from the shared image on the local ingress port, wired to the other services', () => {
    const ingress = compose.services.ingress as unknown as {
      build: string;
      command: string[];
      environment: Record<string, string>;
      ports: string[];
    };
    expect(ingress.build).toBe('.');
    expect(existsSync(resolve(root, 'Dockerfile'))).toBe(true);
    expect(ingress.command).toEqual(['ingress']);
    expect(ingress.ports).toEqual(['127.0.0.1:8080:8080']);
    expect(ingress.environment.KAFKA_BROKERS).toBe('kafka:19092');
    expect(ingress.environment.REGISTRY_URL).toBe('http://registry:8081/apis/ccompat/v7');
  });

  it('runs the whole pipeline: every service the pipeline needs, each with a healthcheck or a reason', () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      ['ingress', 'jaeger', 'kafka', 'pusher', 'receiver', 'redis', 'registry', 'subscribers'].sort(),
    );
    // The exceptions: tracing is best-effort (spans are exported in the background), and the
    // one-shot registration is waited for by exiting successfully, not by a healthcheck.
    for (const [name, s] of Object.entries(compose.services))
      if (name !== 'jaeger' && name !== 'subscribers') expect(s.healthcheck?.test, name).toBeDefined();
  });

  it('runs the receiver and a pusher from the shared image, wired as the local commands are', async () => {
    const receiver = service('receiver');
    const pusher = service('pusher');
    const ingress = service('ingress');
    for (const s of [receiver, pusher, ingress]) {
      expect([s.build, s.image]).toEqual(['.', 'hookstream:local']);
    }
    // The receiver listens beyond loopback inside its container, on the local stack's port.
    expect(receiver.command).toEqual(['receiver', '--port', '8090']);
    expect(receiver.environment?.HOOKSTREAM_RECEIVER_HOST).toBe('0.0.0.0');
    expect(receiver.ports).toEqual(['127.0.0.1:8090:8090']);
    expect(receiver.healthcheck?.test.join(' ')).toContain('127.0.0.1:8090/healthz');

    // The pusher reads the topic the ingress writes, with the same variables, and shares limits via Redis.
    expect(pusher.environment?.KAFKA_BROKERS).toBe(ingress.environment?.KAFKA_BROKERS);
    expect(pusher.environment?.REGISTRY_URL).toBe(ingress.environment?.REGISTRY_URL);
    expect(pusher.environment?.HOOKSTREAM_EVENTS_TOPIC).toBe(ingress.environment?.INGRESS_TOPIC);
    expect(pusher.environment?.HOOKSTREAM_LIMITER_REDIS).toBe(`redis://redis:${defaults.redis.port}`);
    const healthPort = pusher.environment?.HOOKSTREAM_PUSHER_HEALTH_PORT;
    expect(pusher.healthcheck?.test.join(' ')).toContain(`127.0.0.1:${healthPort}/healthz`);
    expect(pusher.ports).toBeUndefined();
    expect(pusher.depends_on).toMatchObject({
      subscribers: { condition: 'service_completed_successfully' },
      ingress: { condition: 'service_healthy' },
      receiver: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
    });
    // Both ends hold the same secret, so signatures verify.
    expect(pusher.environment?.HOOKSTREAM_SECRET_SAMPLE).toBe(
      receiver.environment?.HOOKSTREAM_RECEIVER_SECRET,
    );

    // The fleet runs what `subscribers apply` registered: a definition pointing at the receiver
    // by its compose hostname and port.
    expect(pusher.command).toEqual(['push', '--all']);
    const registrar = service('subscribers');
    expect(registrar.command?.slice(0, 2)).toEqual(['subscribers', 'apply']);
    const [configArg] = (registrar.command ?? []).slice(2);
    const mount = (registrar.volumes ?? []).find((v) => v.split(':')[1] === configArg);
    expect(mount, 'the definition is mounted where apply reads it').toBeDefined();
    const definition = JSON.parse(await readFile(resolve(root, mount?.split(':')[0] ?? ''), 'utf8')) as {
      url: string;
      allowPrivateNetwork: boolean;
      secret: { env: string };
    };
    expect(definition.url).toBe('http://receiver:8090/');
    expect(definition.allowPrivateNetwork).toBe(true);
    expect(pusher.environment?.[definition.secret.env]).toBeDefined();
  });

  it('ships no credentials: the token and the signing secret are required from the environment', () => {
    const required = /^\$\{(INGRESS_TOKENS|HOOKSTREAM_SAMPLE_SECRET):\?[^}]+\}$/;
    expect(service('ingress').environment?.INGRESS_TOKENS).toMatch(required);
    expect(service('receiver').environment?.HOOKSTREAM_RECEIVER_SECRET).toMatch(required);
    expect(service('pusher').environment?.HOOKSTREAM_SECRET_SAMPLE).toMatch(required);
  });

  it('mounts files that exist in the repository', () => {
    const mounts = Object.values(compose.services).flatMap((s) => s.volumes ?? []);
    for (const mount of mounts.filter((m) => m.startsWith('./'))) {
      expect(existsSync(resolve(root, mount.split(':')[0] ?? ''))).toBe(true);
    }
  });

  it.runIf(await composeAvailable())('passes `docker compose config -q`', async () => {
    // The file requires these from the environment (no shipped credentials).
    const env = {
      ...process.env,
      INGRESS_TOKENS: 'compose-test-token-0123456789',
      HOOKSTREAM_SAMPLE_SECRET: 'whsec_dGVzdA==',
    };
    await run('docker', ['compose', '-f', resolve(root, 'docker-compose.yml'), 'config', '-q'], { env });
  });
});
