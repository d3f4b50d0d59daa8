import { readFile } from 'node:fs/promises';

/** A V8 `.cpuprofile`, as `--cpu-prof` and the inspector's Profiler write it (the fields read here). */
interface CpuProfile {
  readonly nodes: readonly {
    readonly id: number;
    readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
    readonly children?: readonly number[];
  }[];
  readonly samples: readonly number[];
  readonly startTime: number;
  /** Microseconds since the previous sample (the first: since startTime). */
  readonly timeDeltas: readonly number[];
}

/** Seconds from the profile's start: only samples in [fromS, toS) count. */
export interface ProfileWindow {
  readonly fromS?: number;
  readonly toS?: number;
}

/** One line of a summary: a name and its share of the profile's samples. */
export interface ProfileShare {
  readonly name: string;
  readonly share: number;
}

export interface ProfileSummary {
  /** Samples counted (in the window), and the profile's length in seconds. */
  readonly samples: number;
  readonly seconds: number;
  /** Share of samples where the thread waited (V8's `(idle)`). */
  readonly idle: number;
  /** Self time by package (node_modules package, workspace package, or Node's internals). */
  readonly packages: readonly ProfileShare[];
  /** Self time by function. */
  readonly self: readonly ProfileShare[];
  /** Inclusive time by function (each function counted once per sample, however deep it recurses). */
  readonly inclusive: readonly ProfileShare[];
}

/** Sums a profile's samples by package and by function, the `top` largest of each. */
export async function summarizeProfile(
  file: string,
  top = 25,
  window: ProfileWindow = {},
): Promise<ProfileSummary> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  const fromUs = (window.fromS ?? 0) * 1e6;
  const toUs = (window.toS ?? Number.POSITIVE_INFINITY) * 1e6;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const hits = new Map<number, number>();
  let total = 0;
  let atUs = 0;
  for (const [i, s] of profile.samples.entries()) {
    atUs += profile.timeDeltas[i] ?? 0;
    if (atUs < fromUs || atUs >= toUs) continue;
    hits.set(s, (hits.get(s) ?? 0) + 1);
    total++;
  }
  const self = new Map<string, number>();
  const packages = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, n: number) => m.set(k, (m.get(k) ?? 0) + n);
  for (const [id, count] of hits) {
    const node = byId.get(id);
    if (node === undefined) continue;
    add(self, functionName(node.callFrame), count);
    add(packages, packageName(node.callFrame), count);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)?.callFrame;
      if (frame === undefined) break;
      const name = functionName(frame);
      if (seen.has(name)) continue;
      seen.add(name);
      add(inclusive, name, count);
    }
  }
  const largest = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, n]) => ({ name, share: total > 0 ? n / total : 0 }));
  return {
    samples: total,
    seconds: Math.round(atUs / 1e5) / 10,
    idle: total > 0 ? (self.get('(idle)') ?? 0) / total : 0,
    packages: largest(packages),
    self: largest(self),
    inclusive: largest(inclusive).filter((s) => s.name !== '(root)'),
  };
}

type Frame = CpuProfile['nodes'][number]['callFrame'];

/** `name path:line`, the path from node_modules/packages/services/bench on. */
function functionName(frame: Frame): string {
  if (frame.url === '') return frame.functionName || '(anonymous)';
  const path = frame.url.replace(/^.*?\/(node_modules|packages|services|bench)\//, '$1/');
  return `${frame.functionName || '(anonymous)'} ${path}:${frame.lineNumber + 1}`;
}

function packageName(frame: Frame): string {
  const url = frame.url;
  if (url === '') return frame.functionName || '(native)';
  const dependency = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (dependency?.[1] !== undefined) return dependency[1];
  const workspace = url.match(/\/(packages|services|bench)\/([^/]+)/);
  if (workspace?.[1] !== undefined && workspace[2] !== undefined)
    return workspace[1] === 'bench' ? 'bench' : `${workspace[1]}/${workspace[2]}`;
  if (url.startsWith('node:')) return url.split('/').slice(0, 2).join('/');
  return url;
}
