import type { RecordProblem, SubscriberOverview } from '@hookstream/subscribers';
import { formatHeadroomCell } from '@hookstream/subscribers';
import { formatAge, formatCount, segment } from '../format.ts';
import { html, type SafeHtml } from '../safe-html.ts';
import { layout } from './layout.ts';

export interface SubscribersView {
  readonly subscribers: readonly SubscriberOverview[];
  /** Subscribers in the catalog, before the name filter. */
  readonly total: number;
  /** Shown are those whose name contains this; empty: all. */
  readonly query: string;
  readonly problems: readonly RecordProblem[];
  readonly eventsTopic: string;
  readonly csrfToken: string;
  readonly refreshSeconds: number;
  readonly measuredAt: string;
}

/**
 * Every subscriber: state, breaker, lag, oldest unsettled age, retention headroom, DLQ depth, deliveries and success
 * ratio over the last minutes (from its instances' reports), last error; reloads itself.
 */
export function subscribersPage(view: SubscribersView): SafeHtml {
  const rows = view.subscribers.map(
    (s) => html`<tr data-subscriber="${s.name}">
<td><a href="/subscribers/${segment(s.name)}">${s.name}</a></td>
<td class="state-${s.state.kind}" data-field="state">${s.state.kind}</td>
<td class="breaker-${s.breaker ?? 'none'}" data-field="breaker">${s.breaker ?? '–'}</td>
<td data-field="lag">${formatCount(s.lag)}</td>
<td data-field="oldest">${s.oldestUnsettledAgeMs === null ? '–' : formatAge(s.oldestUnsettledAgeMs)}</td>
<td data-field="headroom">${formatHeadroomCell(s.retentionHeadroomSeconds, s.retentionHeadroomBasis)}</td>
<td data-field="dlq">${s.dlqDepth === null ? '–' : html`<a href="/subscribers/${segment(s.name)}/dead-letters">${s.dlqDepth}</a>`}</td>
<td data-field="delivered">${s.recent === null ? '–' : s.recent.delivered}</td>
<td data-field="success">${successRatio(s.recent)}</td>
<td>${s.host}</td>
<td>${s.eventTypes.join(', ')}</td>
<td>${s.instances.length === 0 ? html`<span class="muted">none</span>` : s.instances.join(', ')}</td>
<td class="error" data-field="error">${lastError(s)}</td>
</tr>`,
  );
  return layout(
    { title: 'Subscribers', refreshSeconds: view.refreshSeconds, csrfToken: view.csrfToken },
    html`<p class="muted">Lag on ${view.eventsTopic}, measured ${view.measuredAt}; this page reloads every ${view.refreshSeconds}s.</p>
<form method="get" action="/"><label>name contains <input name="q" value="${view.query}"></label> <button type="submit">Show</button> <span class="muted">${view.subscribers.length} of ${view.total} subscriber(s)</span></form>
${
  view.total === 0
    ? html`<p>No subscribers in the catalog (add some with <code>hookstream subscribers apply</code>).</p>`
    : view.subscribers.length === 0
      ? html`<p>No subscriber's name contains that.</p>`
      : html`<table id="subscribers">
<thead><tr><th>name</th><th>state</th><th>breaker</th><th>lag</th><th>oldest unsettled</th><th>retention headroom</th><th>dlq</th><th>delivered (5 min)</th><th>success</th><th>host</th><th>event types</th><th>instances</th><th>last error</th></tr></thead>
<tbody>${rows}</tbody>
</table>`
}
${
  view.problems.length === 0
    ? ''
    : html`<h2>Unreadable records</h2><table><tr><th>key</th><th>at</th><th>problem</th></tr>${view.problems.map(
        (p) => html`<tr><td>${p.key}</td><td>${p.offset ?? '?'}</td><td>${p.error}</td></tr>`,
      )}</table>`
}`,
  );
}

/** 2xx answers among the HTTP attempts of the last minutes; – before any attempt. */
function successRatio(recent: SubscriberOverview['recent']): string {
  if (recent === null || recent.attempts === 0) return '–';
  return `${((recent.delivered / recent.attempts) * 100).toFixed(recent.delivered === recent.attempts ? 0 : 1)} %`;
}

/** What is known of its last failure: an instance it failed on, else why hookstream disabled it. */
function lastError(s: SubscriberOverview): string {
  const failed = s.failedOn[0];
  if (failed !== undefined) return `${failed.instance}: ${failed.error}`;
  if (s.state.kind === 'disabled') return s.state.reason;
  return '';
}
