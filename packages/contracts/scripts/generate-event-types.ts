// Regenerates src/event-types.ts from schemas/*.avsc (run after changing a schema).
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadEventCatalog } from '../src/event-catalog.ts';
import { renderEventTypes } from '../src/event-types-source.ts';

const target = resolve(import.meta.dirname, '../src/event-types.ts');
writeFileSync(target, renderEventTypes(loadEventCatalog()));
process.stdout.write(`wrote ${target}\n`);
