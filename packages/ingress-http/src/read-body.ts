import type { IncomingMessage } from 'node:http';
import { HttpError } from './http-error.ts';

/**
 * Reads the request body, refusing (413) as soon as it passes the limit, whether the client
 * announced its length or streams it chunked, so an oversized body is never held in memory.
 */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const tooLarge = () => new HttpError(413, 'payload_too_large', `the body exceeds ${limit} bytes`);
  const announced = Number(req.headers['content-length']);
  if (Number.isFinite(announced) && announced > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > limit) throw tooLarge();
    chunks.push(buf);
  }
  return Buffer.concat(chunks, size);
}
