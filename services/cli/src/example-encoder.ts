import type { ExampleEncoder } from '@hookstream/management';
import { EventEncoder } from '@hookstream/producer';
import { runtimeConnection } from './runtime-endpoints.ts';

/**
 * The portal's example encoder for a process (the API, the console): the producer's encoding,
 * its registry client started at the first example and kept; a failed start is not kept, so the
 * next example tries again.
 */
export function lazyExampleEncoder(): ExampleEncoder & { close(): Promise<void> } {
  let started: Promise<EventEncoder> | null = null;
  return {
    encode: async (event) => {
      if (started === null) {
        const starting = EventEncoder.start({ registry: runtimeConnection().registry });
        started = starting;
        starting.catch(() => {
          if (started === starting) started = null;
        });
      }
      return (await started).encode(event);
    },
    close: async () => {
      (await started?.catch(() => null))?.close();
    },
  };
}
