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

interface ComposeFile {
  services: Record<string, { image: string; ports?: string[]; volumes?: string[] }>;
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
  const compose = parse(await readFile(resolve(root, 'docker-compose.yml'), 'utf8')) as ComposeFile;
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

  it('mounts files that exist in the repository', () => {
    const mounts = Object.values(compose.services).flatMap((s) => s.volumes ?? []);
    for (const mount of mounts.filter((m) => m.startsWith('./'))) {
      expect(existsSync(resolve(root, mount.split(':')[0] ?? ''))).toBe(true);
    }
  });

  it.runIf(await composeAvailable())('passes `docker compose config -q`', async () => {
    await run('docker', ['compose', '-f', resolve(root, 'docker-compose.yml'), 'config', '-q']);
  });
});
