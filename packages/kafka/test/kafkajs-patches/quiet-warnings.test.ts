import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { quietKafkajsTimeoutWarning } from '../../src/kafkajs-patches/quiet-warnings.ts';

describe('quietKafkajsTimeoutWarning', () => {
  it('drops the negative-timeout warning by name and emits every other warning', async () => {
    quietKafkajsTimeoutWarning();
    quietKafkajsTimeoutWarning(); // twice is once
    const seen: string[] = [];
    const onWarning = (w: Error) => seen.push(w.name);
    process.on('warning', onWarning);
    try {
      await new Promise((resolve) => setTimeout(resolve, -1_796_135_756_288));
      process.emitWarning('bad delay', 'TimeoutNegativeWarning');
      const other = once(process, 'warning');
      process.emitWarning('still said', 'SomeOtherWarning');
      const error = Object.assign(new Error('still said too'), { name: 'DeprecationWarning' });
      process.emitWarning(error);
      await other;
      await new Promise((resolve) => setImmediate(resolve));
      expect(seen).toEqual(['SomeOtherWarning', 'DeprecationWarning']);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
