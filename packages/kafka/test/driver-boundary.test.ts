import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The driver knows Kafka only. biome.json refuses the contracts' CloudEvents and tenant names
// here; this finds what an import rule cannot: a header name or a tenant written out.
const SRC = join(import.meta.dirname, '..', 'src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The code without its comments: a comment may say why, the code may not know. */
function codeOf(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

/** What a subscriber's consumption knows and the driver must not. */
const SUBSCRIBER_KNOWLEDGE = [/['"`]ce_[a-z]+/, /tenant/i, /\bCE_HEADER\b/];

function offences(text: string): string[] {
  const code = codeOf(text);
  return SUBSCRIBER_KNOWLEDGE.filter((p) => p.test(code)).map(String);
}

describe('packages/kafka knows no subscriber', () => {
  it('has no CloudEvents header name and no tenant in its code', () => {
    const found = sources(SRC).flatMap((file) =>
      offences(readFileSync(file, 'utf8')).map((p) => `${file}: ${p}`),
    );
    expect(found).toEqual([]);
  });

  it('finds them where they are written, and not in comments', () => {
    expect(offences(`const type = record.headers['ce_type'];`)).toEqual([String(SUBSCRIBER_KNOWLEDGE[0])]);
    expect(offences('if (rider.tenant !== null) return;')).toEqual([String(SUBSCRIBER_KNOWLEDGE[1])]);
    expect(offences('// the first value wins, as in the CloudEvents binding (ce_type, a tenant)')).toEqual(
      [],
    );
    expect(offences('/** a tenant */ const x = 1;')).toEqual([]);
  });
});
