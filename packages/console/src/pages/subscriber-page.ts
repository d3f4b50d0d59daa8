import type { SubscriberState } from '@hookstream/contracts';
import { describeSecret, formatHeadroomCell } from '@hookstream/subscribers';
import { ATTEMPT_LOG_SCAN_PER_PARTITION, type SubscriberView } from '../console-backend.ts';
import { formatCount, segment } from '../format.ts';
import { publicDefinition } from '../public-definition.ts';
import { html, type SafeHtml } from '../safe-html.ts';
import { csrfField, layout } from './layout.ts';

/** One subscriber: state with pause / resume, its definition without secrets, tiers, ledger, recent attempts. */
export function subscriberPage(view: SubscriberView, csrfToken: string): SafeHtml {
  const { record } = view;
  const name = record.definition.name;
  const base = `/subscribers/${segment(name)}`;
  const action =
    record.state.kind === 'active'
      ? html`<form method="post" action="${base}/pause">${csrfField(csrfToken)}
<label>reason <input name="reason" maxlength="500"></label> <button type="submit" id="pause">Pause</button></form>`
      : html`<form method="post" action="${base}/resume">${csrfField(csrfToken)}<button type="submit" id="resume">Resume</button></form>`;
  return layout(
    { title: `Subscriber ${name}`, csrfToken },
    html`<p>State: <strong class="state-${record.state.kind}" id="state">${record.state.kind}</strong> ${describeState(record.state)}</p>
${action}
<p><a href="${base}/dead-letters">Dead letters</a>: ${view.dlqDepth === null ? 'no DLQ topic yet' : `${view.dlqDepth} record(s)`}</p>
<h2>Definition</h2>
<p>Secret: ${describeSecret(record)}</p>
<p class="muted">Created ${record.createdAt}, updated ${record.updatedAt}.</p>
<pre id="definition">${JSON.stringify(publicDefinition(record), null, 2)}</pre>
<h2>Retry tiers</h2>
<table id="tiers"><tr><th>tier</th><th>topic</th><th>delay</th><th>waiting</th></tr>
${view.tiers.map(
  (t) =>
    html`<tr><td>${t.tier}</td><td>${t.topic}</td><td>${t.delayMs} ms</td><td>${t.exists ? (t.waiting ?? 0) : '(not created)'}</td></tr>`,
)}</table>
<h2>Ledger</h2>
${
  view.ledger === null
    ? html`<p>The events topic does not exist yet.</p>`
    : html`<p id="headroom">Retention headroom: ${formatHeadroomCell(view.retentionHeadroomSeconds, view.retentionHeadroomBasis)}${view.retentionHeadroomError === null ? '' : ` (not measured: ${view.retentionHeadroomError})`}</p>
<table id="ledger"><tr><th>partition</th><th>committed</th><th>end</th><th>lag</th><th>oldest owed</th><th>retention headroom</th></tr>${view.ledger.map(
        (p) =>
          html`<tr data-partition="${p.partition}"><td>${p.partition}</td><td>${p.committed ?? '–'}</td><td>${p.end}</td><td>${formatCount(p.lag)}</td><td>${p.oldestOwedAt ?? '–'}</td><td data-field="headroom">${formatHeadroomCell(p.retentionHeadroomSeconds, p.retentionHeadroomBasis)}</td></tr>`,
      )}</table>`
}
<h2>Recent attempts</h2>
<p class="muted">From ${new Date(view.attemptsSinceMs).toISOString()} on, newest first (at most 50; among the attempt log's newest ${ATTEMPT_LOG_SCAN_PER_PARTITION} records per partition, of up to 100 entries each).</p>
${
  view.attempts.length === 0
    ? html`<p>No attempt recorded in that time.</p>`
    : html`<table id="attempts"><tr><th>at</th><th>event</th><th>step</th><th>attempt</th><th>status</th><th>outcome</th><th>took</th></tr>${view.attempts.map(
        (a) =>
          html`<tr><td>${a.at}</td><td><a href="/events/${segment(a.eventId)}">${a.eventId}</a></td><td>${a.step}${a.tier === undefined ? '' : ` (tier ${a.tier})`}</td><td>${a.attempt}</td><td>${a.status ?? '–'}</td><td>${a.outcome ?? a.deadLetterReason ?? ''}</td><td>${a.durationMs === undefined ? '' : `${Math.round(a.durationMs)} ms`}</td></tr>`,
      )}</table>`
}`,
  );
}

function describeState(state: SubscriberState): string {
  switch (state.kind) {
    case 'active':
      return '';
    case 'paused':
      return `by ${state.by} at ${state.at}${state.reason ? `: ${state.reason}` : ''}`;
    case 'disabled':
      return `by hookstream at ${state.at}: ${state.reason}`;
  }
}
