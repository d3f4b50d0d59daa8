import type { LedgerView } from '@hookstream/management';
import type { LedgerLine } from '@hookstream/replay';
import { segment } from '../format.ts';
import { html, type SafeHtml } from '../safe-html.ts';
import { layout } from './layout.ts';

export interface EventView {
  readonly ledger: LedgerView;
  readonly traceIds: readonly string[];
  readonly jaegerUrl: string;
  readonly csrfToken: string;
}

/** An event's ledger across subscribers (as `hookstream ledger`), and links to its traces in Jaeger. */
export function eventPage(view: EventView): SafeHtml {
  const { ledger } = view;
  const where =
    ledger.origin === null
      ? 'location unknown (neither the attempt log nor the events topic names it)'
      : `${ledger.origin.topic}:${ledger.origin.partition}:${ledger.origin.offset} (found in the ${ledger.foundIn === 'attempt-log' ? 'attempt log' : 'events topic'})`;
  const search = `${view.jaegerUrl}/search?service=hookstream-pusher&tags=${encodeURIComponent(
    JSON.stringify({ 'messaging.message.id': ledger.eventId }),
  )}`;
  return layout(
    { title: `Event ${ledger.eventId}`, csrfToken: view.csrfToken },
    html`<p>At ${where}</p>
<p id="tenant">Tenant: ${ledger.tenant ?? 'none'}</p>
<h2>Traces</h2>
${
  view.traceIds.length === 0
    ? html`<p>No trace found in Jaeger yet: <a id="jaeger-search" href="${search}">search Jaeger</a>.</p>`
    : html`<ul id="traces">${view.traceIds.map(
        (id) => html`<li><a href="${view.jaegerUrl}/trace/${segment(id)}">trace ${id}</a></li>`,
      )}</ul>`
}
<h2>Ledger</h2>
${
  ledger.subscribers.length === 0
    ? html`<p>No subscriber groups (hookstream.sub.*) exist.</p>`
    : html`<table id="ledger"><tr><th>subscriber</th><th>state</th><th>detail</th></tr>${ledger.subscribers.map(
        (l) =>
          html`<tr data-subscriber="${l.subscriber}"><td><a href="/subscribers/${segment(l.subscriber)}">${l.subscriber}</a></td><td data-field="state">${l.ledger.state}</td><td>${detail(l)}</td></tr>`,
      )}</table>`
}`,
  );
}

function detail(line: LedgerLine): string {
  const l = line.ledger;
  const rewind = 'rewind' in l && l.rewind !== undefined ? l.rewind : undefined;
  // As `hookstream ledger` says it: why an event delivered before has a step again.
  const again = rewind === undefined ? '' : ` (sent again by a rewind by ${rewind.by} at ${rewind.at})`;
  switch (l.state) {
    case 'delivered':
      return `at ${l.at}, attempt ${l.attempt}${l.status === undefined ? '' : `, status ${l.status}`}${again}`;
    case 'retrying':
      return `in retry tier ${l.tier}, due ${l.dueAt ?? 'unknown'}, after attempt ${l.attempt}${l.replayed ? ' (replayed)' : ''}${again}`;
    case 'dead-lettered':
      return `reason ${l.reason ?? 'unknown'}, after attempt ${l.attempt}, at ${l.at}${again}`;
    case 'filtered':
      if (l.at !== null)
        return `filtered out at ${l.at}${l.filter === undefined ? '' : ` by its filter's ${l.filter}`}${rewind === undefined ? '' : ` (read again after a rewind by ${rewind.by} at ${rewind.at})`}`;
      return l.tenant !== undefined
        ? `by tenant: its tenant does not take the event's (${l.tenant ?? 'none'}) (passed, committed ${l.committed ?? 'unknown'})`
        : `its eventTypes do not take ${l.eventType ?? 'the event type'} (passed, committed ${l.committed ?? 'unknown'})`;
    case 'not-reached':
      return l.committed === null
        ? 'no committed offset on its partition yet'
        : `not reached (committed ${l.committed})`;
    case 'passed-without-record':
      return `passed (committed ${l.committed}) without an attempt recorded`;
    case 'unknown':
      return 'no attempt recorded';
  }
}
