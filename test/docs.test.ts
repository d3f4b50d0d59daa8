import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import {
  BENCH_API_USAGE,
  BENCH_CPU_BASELINE_USAGE,
  BENCH_E2E_USAGE,
  BENCH_FLEET_USAGE,
  BENCH_HANDOFF_USAGE,
  BENCH_LIMITER_USAGE,
  BENCH_LIMITER_WAIT_USAGE,
  BENCH_OUTAGE_USAGE,
  BENCH_PORTAL_USAGE,
  BENCH_PROFILE_USAGE,
  BENCH_PULL_USAGE,
  BENCH_PUSH_USAGE,
  BENCH_RECONCILE_USAGE,
  BENCH_REPORT_USAGE,
  BENCH_RETRY_USAGE,
  BENCH_SPANS_USAGE,
  BENCH_USAGE,
} from '@hookstream/bench';
import {
  CE_HEADER,
  definitionFilterProblems,
  EventFilter,
  filterNames,
  isDataPointer,
  repositoryEventCatalog,
} from '@hookstream/contracts';
import {
  API_USAGE,
  AUDIT_USAGE,
  CONSOLE_USAGE,
  DLQ_USAGE,
  INGRESS_USAGE,
  LEDGER_USAGE,
  MESSAGES_USAGE,
  PORTAL_LINKS_USAGE,
  PULL_USAGE,
  PUSH_USAGE,
  RECEIVER_USAGE,
  RECONCILE_USAGE,
  STACK_USAGE,
  START_USAGE,
  SUBSCRIBERS_USAGE,
  TRACE_USAGE,
} from 'hookstream';
import { describe, expect, it } from 'vitest';

// Keeps the docs true without Kafka: the links resolve, the README stays short, and every
// `hookstream <command> [<sub>] --flag` the docs name is in that command's --help text.

const root = resolve(import.meta.dirname, '..');
const README_MAX_BYTES = 12_288;

/** What `hookstream <command> [<sub>] --help` prints, by command and sub ('' = none). */
const USAGES: Record<string, Record<string, string>> = {
  start: { '': START_USAGE },
  stack: { '': STACK_USAGE, up: STACK_USAGE, down: STACK_USAGE, status: STACK_USAGE },
  ingress: { '': INGRESS_USAGE },
  push: { '': PUSH_USAGE },
  subscribers: Object.fromEntries(
    [
      'apply',
      'list',
      'show',
      'pause',
      'resume',
      'delete',
      'secret',
      'header',
      'credential',
      'check',
      'reseal',
      'rewind',
    ].map((s) => [s, SUBSCRIBERS_USAGE]),
  ),
  receiver: { '': RECEIVER_USAGE },
  trace: { '': TRACE_USAGE },
  dlq: { list: DLQ_USAGE, replay: DLQ_USAGE },
  audit: { '': AUDIT_USAGE },
  ledger: { '': LEDGER_USAGE },
  reconcile: { '': RECONCILE_USAGE },
  console: { '': CONSOLE_USAGE },
  api: { '': API_USAGE },
  pull: { '': PULL_USAGE },
  messages: Object.fromEntries(
    ['list', 'show', 'resend', 'send-example', 'erase'].map((s) => [s, MESSAGES_USAGE]),
  ),
  'portal-links': Object.fromEntries(['create', 'list', 'revoke'].map((s) => [s, PORTAL_LINKS_USAGE])),
  bench: {
    '': BENCH_REPORT_USAGE,
    ingress: BENCH_USAGE,
    push: BENCH_PUSH_USAGE,
    'cpu-baseline': BENCH_CPU_BASELINE_USAGE,
    pull: BENCH_PULL_USAGE,
    e2e: BENCH_E2E_USAGE,
    retry: BENCH_RETRY_USAGE,
    limiter: BENCH_LIMITER_USAGE,
    'limiter-wait': BENCH_LIMITER_WAIT_USAGE,
    fleet: BENCH_FLEET_USAGE,
    outage: BENCH_OUTAGE_USAGE,
    reconcile: BENCH_RECONCILE_USAGE,
    api: BENCH_API_USAGE,
    profile: BENCH_PROFILE_USAGE,
    portal: BENCH_PORTAL_USAGE,
    handoff: BENCH_HANDOFF_USAGE,
    spans: BENCH_SPANS_USAGE,
  },
};
/** Commands whose first argument is their own (a subcommand, or `bench`'s target), not a value. */
const HAS_SUBS = new Set(['stack', 'subscribers', 'dlq', 'bench', 'messages', 'portal-links']);
const ALL_USAGE = Object.values(USAGES)
  .flatMap((subs) => Object.values(subs))
  .join('\n');

interface Doc {
  /** Relative to the repository root, e.g. `docs/contract.md`. */
  readonly path: string;
  readonly text: string;
}

function docs(): Doc[] {
  const pages = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  return ['README.md', ...pages].map((path) => ({ path, text: readFileSync(join(root, path), 'utf8') }));
}

/** Splits Markdown into prose lines and fenced code blocks (``` or ~~~). */
function split(text: string): { prose: string[]; blocks: string[] } {
  const prose: string[] = [];
  const blocks: string[] = [];
  let fence: string | null = null;
  let block: string[] = [];
  for (const line of text.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && marker) {
      fence = marker;
      block = [];
    } else if (fence !== null && marker?.startsWith(fence)) {
      blocks.push(block.join('\n'));
      fence = null;
    } else if (fence !== null) block.push(line);
    else prose.push(line);
  }
  return { prose, blocks };
}

/** Inline code spans of prose lines (a span never crosses a table cell here, so per line). */
function codeSpans(prose: readonly string[]): string[] {
  const spans: string[] = [];
  for (const line of prose)
    for (const m of line.matchAll(/(`+)(.+?)\1/g)) if (m[2] !== undefined) spans.push(m[2].trim());
  return spans;
}

/** Prose with code spans blanked, so links and headings are read from text only. */
function withoutCode(line: string): string {
  return line.replace(/(`+)(.+?)\1/g, (s) => ' '.repeat(s.length));
}

/** GitHub's heading anchors: lowercase, punctuation dropped, each space a hyphen, repeats -1, -2… */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of split(text).prose) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const plain = heading
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/`/g, '')
      .replace(/<[^>]+>/g, '');
    const slug = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

/** Relative link targets (inline `[x](t)`, images, and `[x]: t` definitions), outside code. */
function links(text: string): string[] {
  const out: string[] = [];
  for (const raw of split(text).prose) {
    const line = withoutCode(raw);
    for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) if (m[1]) out.push(m[1]);
    const def = /^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(line)?.[1];
    if (def) out.push(def);
  }
  return out.filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

/** Where a link points, or why it does not. */
function checkLink(doc: Doc, target: string, ignored: ReadonlySet<string>): string | null {
  const hash = target.indexOf('#');
  const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
  const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
  const file = pathPart === '' ? join(root, doc.path) : resolve(root, dirname(doc.path), pathPart);
  const rel = relative(root, file);
  if (rel.startsWith('..')) return `${target}: outside the repository`;
  if (!existsSync(file)) return `${target}: no such file ${rel}`;
  if (ignored.has(rel)) return `${target}: ${rel} is ignored by git, so a clone does not have it`;
  if (anchor === null) return null;
  if (statSync(file).isDirectory() || !file.endsWith('.md'))
    return `${target}: an anchor into a non-Markdown file`;
  const known = anchors(readFileSync(file, 'utf8'));
  return known.has(anchor) ? null : `${target}: no heading #${anchor} in ${rel}`;
}

/** Of these repository paths, the ones git ignores (none when git is not there to ask). */
function gitIgnored(paths: readonly string[]): Set<string> {
  const run = spawnSync('git', ['check-ignore', '--no-index', '--stdin'], {
    cwd: root,
    input: paths.join('\n'),
    encoding: 'utf8',
  });
  if (run.error) return new Set();
  return new Set(run.stdout.split('\n').filter((l) => l !== ''));
}

interface Invocation {
  readonly text: string;
  readonly command: string;
  readonly sub: string;
  readonly flags: readonly string[];
}

/**
 * Every `hookstream <command> …` in a piece of code, up to the end of its shell command (a pipe,
 * `&&`, `;`, a redirect or a `#` comment). Lines ending in `\` continue.
 */
function invocations(code: string): Invocation[] {
  const out: Invocation[] = [];
  for (const line of code.replace(/\\\n/g, ' ').split('\n'))
    for (const m of line.matchAll(/(?<![\w@/.-])hookstream[ \t]+([^\n]*)/g)) {
      const rest = m[1] ?? '';
      const words: string[] = [];
      for (const word of rest.split(/\s+/).filter((w) => w !== '')) {
        if (/^(\||\|\||&&|;|#.*|\d?>.*|<<.*)$/.test(word)) break;
        // A trailing colon: an error line (`hookstream dlq replay: REPLAY_LEASE_HELD: …`).
        words.push(word.replace(/[`),.:]+$/, ''));
      }
      const [command = '', ...args] = words;
      // `hookstream <command> --help`, `npx hookstream …`: a placeholder, not a command.
      if (command === '' || /^(<|-|…|\.\.\.)/.test(command)) continue;
      const first = args[0];
      const sub = HAS_SUBS.has(command) && first !== undefined && !first.startsWith('-') ? first : '';
      const flags = [...args.join(' ').matchAll(/(?<![\w-])--[a-z][a-z0-9-]*/g)].map((f) => f[0]);
      out.push({ text: `hookstream ${words.join(' ')}`, command, sub, flags });
    }
  return out;
}

/** Why a documented invocation is not what the command accepts, or null when it is. */
function checkInvocation(inv: Invocation): string[] {
  const subs = USAGES[inv.command];
  if (subs === undefined) return [`${inv.text}: no command '${inv.command}'`];
  if (inv.sub.startsWith('<') || inv.sub.includes('|')) {
    // `stack <up|down|status>` or `secret show|rotate`: every flag must be in the command's text.
    const all = [...new Set(Object.values(subs))].join('\n');
    return inv.flags.filter((f) => !mentions(all, f)).map((f) => `${inv.text}: ${f} is not an option`);
  }
  const usage = subs[inv.sub];
  // `hookstream dlq` named as a whole: fine, but a flag needs its subcommand.
  if (usage === undefined && inv.sub === '' && inv.flags.length === 0) return [];
  if (usage === undefined) return [`${inv.text}: '${inv.command}' has no '${inv.sub || '(none)'}'`];
  return inv.flags
    .filter((f) => f !== '--help' && !mentions(usage, f))
    .map(
      (f) =>
        `${inv.text}: ${f} is not in \`hookstream ${inv.command}${inv.sub ? ` ${inv.sub}` : ''} --help\``,
    );
}

function mentions(usage: string, flag: string): boolean {
  return new RegExp(`(?<![\\w-])${flag}(?![\\w-])`).test(usage);
}

/** Each table's separator rows (`| --- | --- |`), by the index of the row within the table. */
function tableSeparators(prose: readonly string[]): number[][] {
  const tables: number[][] = [];
  let row = -1;
  for (const line of prose) {
    if (!line.trimStart().startsWith('|')) {
      row = -1;
      continue;
    }
    if (row === -1) tables.push([]);
    row += 1;
    if (/^\s*\|(\s*:?-+:?\s*\|)+\s*$/.test(line)) tables.at(-1)?.push(row);
  }
  return tables;
}

/**
 * Why a documented filter could not hold for any event hookstream's producers write: an attribute
 * neither the ingress nor the producer library sets, or a pointer into no schema's field.
 */
function impossibleFilter(block: string): string[] {
  const json: unknown = JSON.parse(block.trim().startsWith('{') ? block : `{${block}}`);
  const filter = EventFilter.parse((json as { filter?: unknown }).filter);
  const written = new Set<string>(Object.keys(CE_HEADER));
  const attributes = filterNames(filter)
    .filter((n) => !isDataPointer(n.name) && !written.has(n.name))
    .map((n) => `attribute ${n.name} is set by no hookstream producer`);
  const pointers = definitionFilterProblems({ filter, eventTypes: ['*'] }, repositoryEventCatalog());
  return [...attributes, ...pointers];
}

describe('docs', () => {
  const all = docs();
  /** The maintainers' maps, one text: architecture.md and the pages it splits into. */
  const maps = () =>
    all
      .filter((d) => /^docs\/architecture[\w-]*\.md$/.test(d.path))
      .map((d) => d.text)
      .join('\n');

  it('every table has one separator row, under its header: no row of dashes where a value belongs', () => {
    const wrong = all.flatMap((doc) =>
      tableSeparators(split(doc.text).prose)
        .filter((rows) => rows.length !== 1 || rows[0] !== 1)
        .map((rows) => `${doc.path}: a table with separator rows at ${rows.join(', ')}`),
    );
    expect(wrong).toEqual([]);
  });

  it('every filter example could hold: attributes producers set, pointers into the schemas', () => {
    const examples = all.flatMap((doc) =>
      split(doc.text)
        .blocks.filter((b) => b.includes('"filter":'))
        .map((b) => ({ path: doc.path, block: b })),
    );
    expect(examples.length).toBeGreaterThan(0);
    const wrong = examples.flatMap(({ path, block }) => impossibleFilter(block).map((p) => `${path}: ${p}`));
    expect(wrong).toEqual([]);
  });

  it('README.md stays at most 12 KB', () => {
    const bytes = Buffer.byteLength(readFileSync(join(root, 'README.md')));
    expect(bytes, `README.md is ${bytes} bytes`).toBeLessThanOrEqual(README_MAX_BYTES);
  });

  it('README.md links every page of docs/', () => {
    const readme = all.find((d) => d.path === 'README.md');
    const linked = new Set(links(readme?.text ?? '').map((t) => t.split('#')[0]));
    const pages = all.filter((d) => d.path.startsWith('docs/')).map((d) => d.path);
    expect(pages.length).toBeGreaterThan(0);
    expect(pages.filter((p) => !linked.has(p))).toEqual([]);
  });

  it('every relative link resolves to a file in a clone, and every #anchor to a heading', () => {
    const targets = all.flatMap((doc) => links(doc.text).map((target) => ({ doc, target })));
    expect(targets.length).toBeGreaterThan(20);
    const ignored = gitIgnored(
      targets.map(({ doc, target }) =>
        relative(root, resolve(root, dirname(doc.path), decodeURIComponent(target.split('#')[0] ?? ''))),
      ),
    );
    const broken = targets
      .map(({ doc, target }) => {
        const why = checkLink(doc, target, ignored);
        return why === null ? null : `${doc.path}: ${why}`;
      })
      .filter((b) => b !== null);
    expect(broken).toEqual([]);
  });

  it("the maintainers' maps (docs/architecture*.md) name only files and folders that exist", () => {
    const tracked = spawnSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' }).stdout.split('\n');
    const named = codeSpans(split(maps()).prose).filter((span) =>
      /^[\w.-]+(\/[\w.-]+)*\.(ts|md)$|^(packages|services|bench|test)\/[\w./-]*$/.test(span),
    );
    expect(named.length).toBeGreaterThan(40);
    // A path names a file or folder from the root; a bare name or a partial path is a suffix of one.
    const exists = (span: string) =>
      /^(packages|services|bench|test)\//.test(span)
        ? existsSync(join(root, span))
        : tracked.some((file) => file === span || file.endsWith(`/${span}`));
    expect(named.filter((span) => !exists(span))).toEqual([]);
  });

  it("the maintainers' maps cite only names the code declares, and members their class holds", () => {
    const files = spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
      cwd: root,
      encoding: 'utf8',
    }).stdout.split('\n');
    const sources = files
      .filter((f) => /^(packages|services|bench)\/[^/]+\/src\/.*\.ts$/.test(f))
      .map((file) => ({ file, text: readFileSync(join(root, file), 'utf8') }));
    // `EventSelection`, `SubscriberConsumer.#assign`, `gapAt`: a type, a member of one, a function.
    const cited = [
      ...new Set(
        codeSpans(split(maps()).prose).filter((span) =>
          /^(?:[A-Z][a-z]\w*|[a-z]+[A-Z]\w*)(?:\.#?[a-zA-Z]\w*)?$/.test(span),
        ),
      ),
    ];
    expect(cited.length).toBeGreaterThan(60);
    const declaring = (name: string) =>
      sources.filter(({ text }) =>
        new RegExp(`(?:class|interface|type|function|const|enum)\\s+${name}\\b`).test(text),
      );
    // A member: a method, a field or an option, in the class's file (in any file for a bare name).
    const holds = (member: string, where: readonly { text: string }[]) => {
      const held = new RegExp(
        `^\\s*(?:(?:async|get|static|readonly|private)\\s+)*${member.replace('#', '\\#')}\\??\\s*[(=:<]`,
        'm',
      );
      return where.some(({ text }) => held.test(text));
    };
    const missing = cited.filter((span) => {
      const [name = '', member] = span.split('.');
      const declared = declaring(name);
      if (member !== undefined) return declared.length === 0 || !holds(member, declared);
      // A bare lower-case name may also be a key the code writes on the wire (`;openSince=`).
      const written = new RegExp(`[;'"]${name}[='"]`);
      const onWire = sources.some(({ text }) => written.test(text));
      return declared.length === 0 && (/^[A-Z]/.test(name) || !(holds(name, sources) || onWire));
    });
    expect(missing).toEqual([]);
  });

  it('every `hookstream <command> --flag` in code exists in that command’s --help', () => {
    const found = all.flatMap((doc) => {
      const { prose, blocks } = split(doc.text);
      return [...codeSpans(prose), ...blocks].flatMap(invocations).map((inv) => ({ doc, inv }));
    });
    expect(found.length).toBeGreaterThan(30);
    const wrong = found.flatMap(({ doc, inv }) => checkInvocation(inv).map((w) => `${doc.path}: ${w}`));
    expect(wrong).toEqual([]);
  });

  it('every bare `--flag` code span is an option of some hookstream command', () => {
    const wrong = all.flatMap((doc) =>
      codeSpans(split(doc.text).prose)
        .filter((span) => span.startsWith('--'))
        .flatMap((span) => [...span.matchAll(/(?<![\w-])--[a-z][a-z0-9-]*/g)].map((f) => f[0]))
        .filter((flag) => flag !== '--help' && !mentions(ALL_USAGE, flag))
        .map((flag) => `${doc.path}: ${flag}`),
    );
    expect(wrong).toEqual([]);
  });
});
