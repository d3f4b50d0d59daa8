import { describe, expect, it } from 'vitest';
import {
  credentialForms,
  MIN_CUT_PREFIX_CHARS,
  REDACTED,
  redactCredentials,
  signingSecretForms,
} from '../src/excerpt-redaction.ts';

const token = 'eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXRva2Vu.sig_abc123';
const signature = 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4= v1,Q2F0Y2ggbWUgaWYgeW91IGNhbg+/sdfQ=';
const key = Buffer.from('a signing key of thirty-two byte');
const secret = `whsec_${key.toString('base64')}`;
const basic = `Basic ${Buffer.from('portal-user:hunter2-but-longer').toString('base64')}`;
const apiKey = 'sk_live_5f2b9c0e7d1a4c3b';

const credentials = [
  ...credentialForms(`Bearer ${token}`),
  ...credentialForms(signature),
  ...credentialForms(basic),
  ...credentialForms(apiKey),
  ...signingSecretForms(key),
];

/** No credential, nor any start of one as long as MIN_CUT_PREFIX_CHARS, is left in `text`. */
function expectNoneLeft(text: string): void {
  for (const c of credentials) {
    expect(text).not.toContain(c);
    expect(text).not.toContain(c.slice(0, MIN_CUT_PREFIX_CHARS));
  }
}

describe('redactCredentials', () => {
  it('redacts an echoed Authorization header, whole and its token alone', () => {
    const out = redactCredentials(`{"authorization":"Bearer ${token}","again":"${token}"}`, credentials);
    expect(out).toBe(`{"authorization":"${REDACTED}","again":"${REDACTED}"}`);
  });

  it('redacts a Basic credential, encoded and decoded', () => {
    const out = redactCredentials(`got ${basic}; user portal-user:hunter2-but-longer`, credentials);
    expect(out).toBe(`got ${REDACTED}; user ${REDACTED}`);
  });

  it('redacts the signature header, each v1 signature and each MAC on its own', () => {
    const [first, second] = signature.split(' ');
    const mac = first?.slice(3) ?? '';
    const body = `sig=${signature} one=${second} mac=${mac}`;
    const out = redactCredentials(body, credentials);
    expect(out).toBe(`sig=${REDACTED} one=${REDACTED} mac=${REDACTED}`);
    expectNoneLeft(out);
  });

  it('redacts the signing secret, with and without its whsec_ prefix', () => {
    const out = redactCredentials(`secret ${secret} raw ${key.toString('base64')}`, credentials);
    expect(out).toBe(`secret ${REDACTED} raw ${REDACTED}`);
  });

  it('redacts an outbound header value, also URL-encoded', () => {
    const encoded = encodeURIComponent(signature);
    const out = redactCredentials(`x-api-key=${apiKey}&s=${encoded}`, credentials);
    expect(out).toBe(`x-api-key=${REDACTED}&s=${REDACTED}`);
  });

  it('redacts an excerpt cut in the middle of a credential, from the cut start on', () => {
    for (const cut of [MIN_CUT_PREFIX_CHARS, 12, token.length - 1]) {
      const out = redactCredentials(`{"authorization":"Bearer ${token.slice(0, cut)}`, credentials);
      expect(out).toBe(`{"authorization":"${REDACTED}`);
    }
    const cutSecret = redactCredentials(`echo: ${secret.slice(0, 20)}`, credentials);
    expect(cutSecret).toBe(`echo: ${REDACTED}`);
  });

  it('leaves a start shorter than MIN_CUT_PREFIX_CHARS, and text without credentials, as it is', () => {
    const short = `the end: ${token.slice(0, MIN_CUT_PREFIX_CHARS - 1)}`;
    expect(redactCredentials(short, credentials)).toBe(short);
    expect(redactCredentials('{"ok":true}', credentials)).toBe('{"ok":true}');
    expect(redactCredentials('', credentials)).toBe('');
  });

  it('redacts no value shorter than four characters, which would blank ordinary words', () => {
    expect(redactCredentials('a b c ok', ['ok', 'b'])).toBe('a b c ok');
  });
});
