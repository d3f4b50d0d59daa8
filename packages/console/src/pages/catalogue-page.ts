import type { CatalogueEntry } from '../console-backend.ts';
import { segment } from '../format.ts';
import { html, type SafeHtml } from '../safe-html.ts';
import { layout } from './layout.ts';

/** Each event type with its Avro schema (schemas/<type>.avsc) and the subscribers that take it. */
export function cataloguePage(entries: readonly CatalogueEntry[], csrfToken: string): SafeHtml {
  return layout(
    { title: 'Event catalogue', csrfToken },
    html`<table id="catalogue"><tr><th>type</th><th>subject</th><th>subscribers</th></tr>${entries.map(
      (e) =>
        html`<tr data-type="${e.type}"><td><a href="#type-${e.type}">${e.type}</a></td><td>${e.subject}</td><td>${
          e.subscribers.length === 0
            ? html`<span class="muted">none</span>`
            : e.subscribers.map(
                (s, i) => html`${i > 0 ? ', ' : ''}<a href="/subscribers/${segment(s)}">${s}</a>`,
              )
        }</td></tr>`,
    )}</table>
${entries.map(
  (e) => html`<h2 id="type-${e.type}">${e.type}</h2><pre>${JSON.stringify(e.schema, null, 2)}</pre>`,
)}`,
  );
}
