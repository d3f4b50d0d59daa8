import { html, type SafeHtml } from '@hookstream/console';
import type { EventTypeEntry } from '@hookstream/management';
import { type PortalFrame, portalLayout } from './portal-layout.ts';

export interface CatalogueItem {
  readonly entry: EventTypeEntry;
  readonly example: unknown;
}

/** Every event type the link may see: its schema, an example of its data, and which endpoints take it. */
export function cataloguePage(frame: PortalFrame, items: readonly CatalogueItem[]): SafeHtml {
  const sections = items.map(
    ({ entry, example }) => html`<section data-type="${entry.type}">
<h2>${entry.type}</h2>
<p class="muted">taken by: ${entry.subscribers.length === 0 ? 'none of your endpoints' : entry.subscribers.join(', ')}</p>
<details><summary>Schema</summary><pre>${JSON.stringify(entry.schema, null, 2)}</pre></details>
<details open><summary>Example data</summary><pre data-field="example">${JSON.stringify(example, null, 2)}</pre></details>
</section>`,
  );
  return portalLayout(
    frame,
    'Event catalogue',
    sections.length === 0 ? html`<p class="muted">No event types.</p>` : sections,
  );
}
