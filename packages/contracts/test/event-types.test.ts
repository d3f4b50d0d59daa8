import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { loadEventCatalog } from '../src/event-catalog.ts';
import type { EventDataByType, ShipmentUpdated } from '../src/event-types.ts';
import { renderEventTypes } from '../src/event-types-source.ts';

describe('event-types.ts', () => {
  it('is what the schemas generate today (run `npm run generate -w @hookstream/contracts` if not)', () => {
    const onDisk = readFileSync(resolve(import.meta.dirname, '../src/event-types.ts'), 'utf8');
    expect(renderEventTypes(loadEventCatalog())).toBe(onDisk);
  });

  it('types each event the way its validator accepts it', () => {
    const validator = loadEventCatalog().get('shipment.updated')?.validator;
    const sample: ShipmentUpdated = { shipment: { id: 's1', status: 'created' } };
    expect(validator?.safeParse(sample).success).toBe(true);
    expectTypeOf<EventDataByType['shipment.updated']>().toEqualTypeOf<ShipmentUpdated>();
    expectTypeOf<z.ZodType>().not.toBeAny();
  });
});
