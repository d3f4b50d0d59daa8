import type { MessagePayload } from '@hookstream/api-schemas';
import { html, type SafeHtml, segment } from '@hookstream/console';
import type { MessageDetail } from '@hookstream/management';
import { actionButton, type PortalFrame, portalLayout } from './portal-layout.ts';

/** One message: each endpoint's state with a resend button, then every attempt with its answer. */
export function messagePage(
  frame: PortalFrame,
  m: MessageDetail,
  payload: MessagePayload | { readonly mode: 'unavailable'; readonly why: string },
  notice?: string,
): SafeHtml {
  const at = `${frame.base}/messages/${segment(m.eventId)}`;
  const endpoints = m.endpoints.map(
    (e) => html`<tr data-endpoint="${e.subscriber}">
<td>${e.subscriber}</td><td data-field="step">${e.step}</td><td>${e.attempts}</td><td>${e.lastStatus ?? '–'}</td><td>${e.lastAt}</td>
<td>${actionButton(frame, `${at}/resend`, 'Resend', { subscriber: e.subscriber })}</td></tr>`,
  );
  const attempts = m.attempts.map(
    (a) => html`<tr data-attempt="${a.subscriber}:${a.attempt}:${a.step}">
<td>${a.at}</td><td>${a.subscriber}</td><td>${a.attempt}</td><td data-field="step">${a.step}</td>
<td data-field="status">${a.status ?? '–'}</td><td>${a.durationMs === undefined ? '–' : `${Math.round(a.durationMs)} ms`}</td>
<td>${a.outcome ?? ''}</td><td><pre data-field="excerpt">${a.excerpt ?? ''}</pre></td></tr>`,
  );
  return portalLayout(
    frame,
    `Message ${m.eventId}`,
    html`${notice === undefined ? '' : html`<p class="notice" data-field="notice">${notice}</p>`}
<table>
<tr><th>type</th><td>${m.type ?? '–'}</td></tr>
<tr><th>state</th><td class="message-${m.state}" data-field="state">${m.state}</td></tr>
<tr><th>first step</th><td>${m.firstAt}</td></tr>
</table>
${payloadSection(payload)}
<h2>Endpoints</h2>
<table><thead><tr><th>endpoint</th><th>step</th><th>attempts</th><th>last status</th><th>at</th><th></th></tr></thead><tbody>${endpoints}</tbody></table>
<h2>Attempts</h2>
<table><thead><tr><th>at</th><th>endpoint</th><th>attempt</th><th>step</th><th>status</th><th>latency</th><th>outcome</th><th>response excerpt</th></tr></thead><tbody>${attempts}</tbody></table>`,
  );
}

function payloadSection(
  p: MessagePayload | { readonly mode: 'unavailable'; readonly why: string },
): SafeHtml {
  switch (p.mode) {
    case 'none':
      return html``;
    case 'unavailable':
      return html`<h2>Data</h2><p class="muted" data-field="payload">Not shown: ${p.why}</p>`;
    case 'digest':
      return html`<h2>Data</h2><p data-field="payload">${p.bytes} bytes, SHA-256 <code>${p.sha256}</code></p>`;
    case 'full':
      return html`<h2>Data</h2><p class="muted">${p.bytes} bytes, SHA-256 <code>${p.sha256}</code></p><pre data-field="payload">${JSON.stringify(p.data, null, 2)}</pre>`;
  }
}
