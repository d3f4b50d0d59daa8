import { html, type SafeHtml, segment } from '@hookstream/console';
import type { SubscriberItem } from '@hookstream/management';
import { type PortalFrame, portalLayout } from './portal-layout.ts';

export interface EndpointsView {
  readonly items: readonly SubscriberItem[];
  readonly nextCursor: string | null;
  readonly canCreate: boolean;
}

/** The tenant's endpoints (those the link is limited to), with their state. */
export function endpointsPage(frame: PortalFrame, view: EndpointsView): SafeHtml {
  const rows = view.items.map(
    (s) => html`<tr data-endpoint="${s.name}">
<td><a href="${frame.base}/endpoints/${segment(s.name)}">${s.name}</a></td>
<td class="state-${s.state.kind}" data-field="state">${s.state.kind}</td>
<td data-field="breaker">${s.breaker ?? '–'}</td>
<td data-field="dlq">${s.dlqDepth ?? '–'}</td>
</tr>`,
  );
  return portalLayout(
    frame,
    'Endpoints',
    html`${view.canCreate ? html`<p><a href="${frame.base}/endpoints/new">Add an endpoint</a></p>` : ''}
${
  rows.length === 0
    ? html`<p class="muted">No endpoints yet.</p>`
    : html`<table><thead><tr><th>endpoint</th><th>state</th><th>breaker</th><th>dead letters</th></tr></thead><tbody>${rows}</tbody></table>`
}
${view.nextCursor === null ? '' : html`<p><a href="${frame.base}/?cursor=${view.nextCursor}">More</a></p>`}`,
  );
}
