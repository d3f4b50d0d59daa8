import type { DeadLetter } from '@hookstream/replay';
import { segment } from '../format.ts';
import { html, type SafeHtml } from '../safe-html.ts';
import { layout } from './layout.ts';

/** One dead letter's evidence: why it died, after what, from where; the payload's size only. */
export function deadLetterPage(subscriber: string, letter: DeadLetter, csrfToken: string): SafeHtml {
  const e = letter.evidence;
  const fields: [string, string | number | undefined][] = e
    ? [
        ['event id', e.eventId],
        ['reason', e.reason],
        ['attempts', e.attempts],
        ['last status', e.status],
        ['outcome', e.outcome],
        ['outcome class', e.outcomeClass],
        ['response excerpt', e.excerpt],
        ['first attempt', e.firstAttemptAt],
        ['last attempt', e.lastAttemptAt],
        ['dead-lettered', e.deadLetteredAt],
        ['policy version', e.policyVersion],
        ['origin', `${e.origin.topic}:${e.origin.partition}:${e.origin.offset}`],
        ['replays', e.replays ?? 0],
        ['replay of', e.replayOf],
      ]
    : [];
  return layout(
    {
      title: `Dead letter ${letter.eventId ?? `${letter.location.partition}:${letter.location.offset}`}`,
      csrfToken,
    },
    html`<p><a href="/subscribers/${segment(subscriber)}/dead-letters">← dead letters of ${subscriber}</a>
${letter.eventId === null ? '' : html` · <a href="/events/${segment(letter.eventId)}">its ledger</a>`}</p>
${letter.problem === null ? '' : html`<p class="error">${letter.problem}</p>`}
<table id="evidence">${fields
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => html`<tr><th>${k}</th><td>${v}</td></tr>`)}
<tr><th>type</th><td>${letter.eventType ?? '–'}</td></tr>
<tr><th>tenant</th><td data-field="tenant">${letter.tenant ?? 'none'}</td></tr>
<tr><th>dlq record</th><td>${letter.location.topic}:${letter.location.partition}:${letter.location.offset}</td></tr>
<tr><th>payload</th><td>${letter.value === null ? 'none' : `${letter.value.length} bytes (Avro)`}</td></tr>
</table>
<h2>Headers</h2>
<table>${Object.entries(letter.headers).map(([k, v]) => html`<tr><th>${k}</th><td>${v}</td></tr>`)}</table>`,
  );
}
