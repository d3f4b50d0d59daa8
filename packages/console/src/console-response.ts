import type { ServerResponse } from 'node:http';
import type { SafeHtml } from './safe-html.ts';

/**
 * Headers on every answer: no script at all (the pages are plain HTML and forms), nothing
 * framed, nothing cached, no referrer carrying event ids to Jaeger or elsewhere. Not
 * `no-referrer`: under it Chromium sends `Origin: null` on the console's own form POSTs, which
 * the Origin check must then refuse.
 */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
} as const;

export function sendHtml(
  res: ServerResponse,
  status: number,
  page: SafeHtml,
  headers: Record<string, string | string[]> = {},
): void {
  send(res, status, page.text, 'text/html; charset=utf-8', headers);
}

export function sendText(res: ServerResponse, status: number, text: string): void {
  send(res, status, `${text}\n`, 'text/plain; charset=utf-8');
}

/** 303: after a POST the browser GETs the page, so a reload never repeats the action. */
export function redirect(
  res: ServerResponse,
  location: string,
  headers: Record<string, string | string[]> = {},
): void {
  res.writeHead(303, { ...SECURITY_HEADERS, ...headers, location });
  res.end();
}

export function send(
  res: ServerResponse,
  status: number,
  body: string,
  contentType: string,
  headers: Record<string, string | string[]> = {},
): void {
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    ...headers,
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}
