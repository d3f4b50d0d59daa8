import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { uniqueName } from '../support/names.ts';
import { freePortRange } from '../support/ports.ts';

// `npm start` end to end: the real ingress, Kafka, a real pusher process and the sample receiver.
describe('hookstream start --once', () => {
  it('publishes one event of each type through the ingress and sees each accepted at the receiver', async () => {
    const port = await freePortRange(2);
    const result = await runCli(
      [
        'start',
        '--once',
        '--ingress-port',
        String(port),
        '--receiver-port',
        String(port + 1),
        '--topic',
        uniqueName('start'),
        // The catalog is the machine's: a running `npm start` has its own `sample` there.
        '--subscriber',
        uniqueName('start-sample'),
      ],
      process.env,
      150_000,
    );
    expect(result.stderr).not.toContain('hookstream start:');
    expect(result.code).toBe(0);
    const delivered = result.stdout
      .split('\n')
      .filter((l) => l.includes('accepted: signature verified, one effect'));
    expect(delivered.map((l) => l.split(/\s+/)[1])).toEqual([
      'shipment.updated',
      'enrollment.updated',
      'key.revoked',
    ]);
  }, 180_000);
});
