import { DeadLetterReason } from '@hookstream/contracts';
import type { DeadLetter } from '@hookstream/replay';
import { formatAge, segment } from '../format.ts';
import { html, type SafeHtml } from '../safe-html.ts';
import { csrfField, layout } from './layout.ts';

export interface DeadLettersView {
  readonly subscriber: string;
  readonly letters: readonly DeadLetter[];
  /** How many the DLQ holds before filtering. */
  readonly total: number;
  /** The filter as given (query string), to refill the form and carry into the replay. */
  readonly filter: URLSearchParams;
  readonly csrfToken: string;
  readonly nowMs: number;
  /** A filter that did not parse: shown, and nothing listed. */
  readonly problem: string | null;
}

/** A subscriber's DLQ: filter by reason, status, time and event id; pick some; dry-run or replay them. */
export function deadLettersPage(view: DeadLettersView): SafeHtml {
  const base = `/subscribers/${segment(view.subscriber)}`;
  const reasons = new Set(view.filter.getAll('reason'));
  const value = (name: string) => view.filter.get(name) ?? '';
  const carried = [...view.filter.entries()].map(
    ([name, v]) => html`<input type="hidden" name="${name}" value="${v}">`,
  );
  const rows = view.letters.map((l) => {
    const e = l.evidence;
    const at = `${l.location.partition}/${l.location.offset}`;
    return html`<tr data-event-id="${l.eventId ?? ''}">
<td>${l.eventId === null ? '' : html`<input type="checkbox" name="pick" value="${l.eventId}" aria-label="pick ${l.eventId}">`}</td>
<td>${l.eventId === null ? '–' : html`<a href="/events/${segment(l.eventId)}">${l.eventId}</a>`}</td>
<td>${l.eventType ?? '–'}</td>
<td>${e?.reason ?? '?'}</td>
<td>${e === null ? '?' : e.attempts}</td>
<td>${e?.status ?? '–'}</td>
<td>${formatAge(view.nowMs - l.deadLetteredAtMs)}</td>
<td>${e?.replays ?? 0}</td>
<td><a href="${base}/dead-letters/${at}">${l.location.partition}:${l.location.offset}</a></td>
<td class="error">${l.problem ?? ''}</td>
</tr>`;
  });
  return layout(
    { title: `Dead letters of ${view.subscriber}`, csrfToken: view.csrfToken },
    html`<p><a href="${base}">← ${view.subscriber}</a></p>
<form method="get" class="filters" action="${base}/dead-letters">
<fieldset><legend>Filter</legend>
${DeadLetterReason.options.map(
  (r) =>
    html`<label><input type="checkbox" name="reason" value="${r}"${reasons.has(r) ? html` checked` : ''}> ${r}</label>`,
)}
<label>status <input name="status" value="${value('status')}" placeholder="404, 5xx, none" size="8"></label>
<label>since <input name="since" value="${value('since')}" placeholder="30m or RFC 3339" size="12"></label>
<label>until <input name="until" value="${value('until')}" placeholder="RFC 3339 or age" size="12"></label>
<label>event id <input name="event-id" value="${value('event-id')}" size="24"></label>
<button type="submit">Filter</button>
</fieldset>
</form>
${view.problem === null ? '' : html`<p class="error">${view.problem}</p>`}
<p>${view.letters.length} of ${view.total} dead letter(s) match.</p>
${
  view.letters.length === 0
    ? ''
    : html`<form method="post" action="${base}/replay">${csrfField(view.csrfToken)}${carried}
<table id="dead-letters"><thead><tr><th>pick</th><th>event id</th><th>type</th><th>reason</th><th>attempts</th><th>status</th><th>age</th><th>replays</th><th>dlq</th><th>problem</th></tr></thead>
<tbody>${rows}</tbody></table>
<p class="muted">Picked ones only, or every match when none is picked. Each goes back to retry tier 1 with a new attempt budget; the replay log keeps a second replay from sending it again.</p>
<label><input type="checkbox" name="again" value="1"> replay ones already replayed</label>
<button type="submit" name="mode" value="dry-run" id="dry-run">Dry run</button>
<button type="submit" name="mode" value="replay" id="replay">Replay</button>
</form>`
}`,
  );
}
