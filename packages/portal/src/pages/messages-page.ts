import { html, type SafeHtml, segment } from '@hookstream/console';
import type { MessageSummary } from '@hookstream/management';
import type { MessageQuery } from '../portal-backend.ts';
import { type PortalFrame, portalLayout } from './portal-layout.ts';

export interface MessagesView {
  readonly query: MessageQuery;
  readonly items: readonly MessageSummary[];
  readonly nextCursor: string | null;
  /** The query string of this page without its cursor, for the next page's link. */
  readonly search: string;
}

const STATES = ['', 'failed', 'pending', 'delivered', 'filtered'] as const;

/** The tenant's recent messages, newest first, each with where it stands for each endpoint. */
export function messagesPage(frame: PortalFrame, view: MessagesView): SafeHtml {
  const q = view.query;
  const rows = view.items.map(
    (m) => html`<tr data-event="${m.eventId}">
<td><a href="${frame.base}/messages/${segment(m.eventId)}">${m.eventId}</a></td>
<td>${m.type ?? '–'}</td>
<td class="message-${m.state}" data-field="state">${m.state}</td>
<td>${m.endpoints.map((e) => html`<div>${e.subscriber}: ${e.step}${e.lastStatus === undefined ? '' : ` (${e.lastStatus})`}</div>`)}</td>
<td>${m.lastAt}</td>
</tr>`,
  );
  return portalLayout(
    frame,
    'Messages',
    html`<form class="filters" method="get" action="${frame.base}/messages">
<label>Event id <input name="eventId" value="${q.eventId ?? ''}"></label>
<label>Type <input name="type" value="${q.types?.[0] ?? ''}"></label>
<label>State <select name="state">${STATES.map((s) => html`<option value="${s}" ${q.state === s || (s === '' && q.state === undefined) ? html`selected` : ''}>${s === '' ? 'any' : s}</option>`)}</select></label>
<label>Since <input name="since" value="${q.since ?? ''}" placeholder="2026-12-01T00:00:00Z"></label>
<label>Until <input name="until" value="${q.until ?? ''}"></label>
${q.subscribers?.length === 1 ? html`<input type="hidden" name="subscriber" value="${q.subscribers[0]}">` : ''}
<button>Find</button></form>
${
  rows.length === 0
    ? html`<p class="muted">No messages.</p>`
    : html`<table><thead><tr><th>event id</th><th>type</th><th>state</th><th>endpoints</th><th>last step</th></tr></thead><tbody>${rows}</tbody></table>`
}
${view.nextCursor === null ? '' : html`<p><a href="${frame.base}/messages?${view.search}${view.search === '' ? '' : '&'}cursor=${view.nextCursor}">Older</a></p>`}`,
  );
}
