import type { ServerResponse } from 'node:http';
import type { SafeHtml } from '@hookstream/console';

/**
 * Headers on every portal answer: no script, nothing cached, and framed only by the origins the
 * operator allows (`frame-ancestors`; none: 'none', and X-Frame-Options DENY for old browsers).
 * The referrer stays within the portal's origin: its URLs carry the link's secret.
 */
export class PortalHeaders {
  readonly #headers: Readonly<Record<string, string>>;

  constructor(frameAncestors: readonly string[]) {
    const ancestors = frameAncestors.length === 0 ? "'none'" : frameAncestors.join(' ');
    this.#headers = {
      'content-security-policy': `default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors ${ancestors}; base-uri 'none'`,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'same-origin',
      'cache-control': 'no-store',
      ...(frameAncestors.length === 0 ? { 'x-frame-options': 'DENY' } : {}),
    };
  }

  html(res: ServerResponse, status: number, page: SafeHtml): void {
    this.send(res, status, page.text, 'text/html; charset=utf-8');
  }

  /** 303: after a POST the browser GETs the page, so a reload never repeats the action. */
  redirect(res: ServerResponse, location: string): void {
    res.writeHead(303, { ...this.#headers, location });
    res.end();
  }

  send(
    res: ServerResponse,
    status: number,
    body: string,
    contentType: string,
    extra: Record<string, string> = {},
  ): void {
    res.writeHead(status, {
      ...this.#headers,
      ...extra,
      'content-type': contentType,
      'content-length': String(Buffer.byteLength(body)),
    });
    res.end(body);
  }
}
