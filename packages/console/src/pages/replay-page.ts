import type { ReplayJob } from '@hookstream/management';
import type { ReplayItem } from '@hookstream/replay';
import { segment } from '../format.ts';
import { html, type SafeHtml } from '../safe-html.ts';
import { layout } from './layout.ts';

/** A replay's progress while it runs (the page reloads each second), then what it did. */
export function replayPage(job: ReplayJob, csrfToken: string): SafeHtml {
  const s = job.summary;
  const running = job.state === 'running';
  const items = (title: string, list: readonly ReplayItem[], id: string) =>
    list.length === 0
      ? ''
      : html`<h2>${title}</h2><table id="${id}"><tr><th>event id</th><th>dlq record</th><th>detail</th></tr>${list.map(
          (i) => html`<tr><td>${i.eventId ?? '–'}</td><td>${i.dlq}</td><td>${i.detail}</td></tr>`,
        )}</table>`;
  return layout(
    {
      title: `${job.dryRun ? 'Dry run' : 'Replay'} of ${job.subscriber}'s dead letters`,
      csrfToken,
      ...(running ? { refreshSeconds: 1 } : {}),
    },
    html`<p><a href="/subscribers/${segment(job.subscriber)}/dead-letters">← dead letters of ${job.subscriber}</a></p>
<p>Started ${job.startedAt} by ${job.operator}. State: <strong id="replay-state">${job.state}</strong></p>
${
  running
    ? html`<p><progress id="progress" max="${job.total ?? 1}" value="${job.total === null ? 0 : job.done}"></progress> ${job.total === null ? 'reading the DLQ and the replay log…' : `${job.done} of ${job.total} written`}</p>`
    : ''
}
${job.error === null ? '' : html`<p class="error">${job.error}</p>`}
${job.warnings.map((w) => html`<p class="error">warning: ${w}</p>`)}
${
  s === null
    ? ''
    : html`<p id="replay-summary">${s.dryRun ? 'Would replay' : 'Replayed'} ${s.replayed.length} to ${s.topic}; skipped ${s.alreadyReplayed.length} already replayed; ${s.unreplayable.length} unreplayable; ${s.selected} selected${s.dryRun ? ' (dry run: nothing written)' : ` (replay ${s.replayId})`}.</p>
${items(s.dryRun ? 'Would replay' : 'Replayed', s.replayed, 'replayed')}
${items('Already replayed (tick “replay ones already replayed” to send again)', s.alreadyReplayed, 'already')}
${items('Cannot be replayed', s.unreplayable, 'unreplayable')}`
}`,
  );
}
