import { html, type SafeHtml } from '@hookstream/console';
import type { NoticeView } from '../portal-backend.ts';
import { type PortalFrame, portalLayout } from './portal-layout.ts';

/** The tenant's operational notices, newest first: the same ones its endpoints may subscribe to. */
export function noticesPage(frame: PortalFrame, notices: readonly NoticeView[]): SafeHtml {
  const rows = notices.map(
    (n) =>
      html`<tr data-notice="${n.id}"><td>${n.time}</td><td data-field="type">${n.type}</td><td>${n.subscriber ?? ''}</td><td><pre>${JSON.stringify(n.data, null, 2)}</pre></td></tr>`,
  );
  return portalLayout(
    frame,
    'Notices',
    rows.length === 0
      ? html`<p class="muted">No notices.</p>`
      : html`<table><thead><tr><th>time</th><th>type</th><th>endpoint</th><th>data</th></tr></thead><tbody>${rows}</tbody></table>`,
  );
}

/** What went wrong with a request, in the page's frame when the link is known. */
export function problemPage(frame: PortalFrame | null, title: string, message: string): SafeHtml {
  const body = html`<p class="error" data-field="problem">${message}</p>`;
  if (frame !== null) return portalLayout(frame, title, body);
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><link rel="stylesheet" href="/portal/portal.css"></head><body><main><h1>${title}</h1>${body}</main></body></html>`;
}
