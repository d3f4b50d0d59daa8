import type { IncomingMessage } from 'node:http';
import { ConsoleError } from './errors.ts';

/** Forms are small (a token, a few ids); anything larger is refused before it is buffered. */
const MAX_FORM_BYTES = 64 * 1024;

/** Reads an application/x-www-form-urlencoded body. */
export async function readForm(req: IncomingMessage, limit = MAX_FORM_BYTES): Promise<URLSearchParams> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded')
    throw new ConsoleError('BAD_REQUEST', 'forms are sent as application/x-www-form-urlencoded', false);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new ConsoleError('TOO_LARGE', `the form is larger than ${limit} bytes`, false);
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** The value of one cookie in a Cookie header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
