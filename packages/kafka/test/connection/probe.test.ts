import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
// Through the index, as every caller: the kafkajs patches are in place (no idle-loop warning).
import { probeCluster } from '../../src/index.ts';

describe('probeCluster', () => {
  it('answers null, without hanging, when nothing speaks Kafka on the port', async () => {
    // A TCP listener that never answers: connection succeeds, the metadata request times out.
    const server = createServer(() => undefined);
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const started = Date.now();
    try {
      expect(await probeCluster({ brokers: [`127.0.0.1:${port}`] }, 500)).toBeNull();
    } finally {
      server.close();
    }
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
