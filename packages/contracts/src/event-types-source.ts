import { avroToTypeScript } from './avro-typescript.ts';
import type { EventSchema } from './event-catalog.ts';

/** The source of `event-types.ts`: one data type per event type, and the map the typed publish uses. */
export function renderEventTypes(catalog: ReadonlyMap<string, EventSchema>): string {
  const types = [...catalog.values()];
  const blocks = types.map(
    (s) =>
      `/** Data of \`${s.type}\` (schemas/${s.type}.avsc). */\nexport type ${typeName(s)} = ${avroToTypeScript(s.avro)};\n`,
  );
  const map = types.map((s) => `  readonly '${s.type}': ${typeName(s)};`).join('\n');
  return [
    '// Generated from schemas/*.avsc by `npm run generate -w @hookstream/contracts`. Do not edit:',
    '// test/event-types.test.ts fails when this file and the schemas disagree.\n',
    ...blocks,
    `/** Event type name -> the data a producer passes for it. */\nexport interface EventDataByType {\n${map}\n}\n`,
  ].join('\n');
}

function typeName(s: EventSchema): string {
  return String(s.avro.name);
}
