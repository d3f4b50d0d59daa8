import { KafkajsPatchError } from '../errors.ts';

/** The kafkajs release every patch here was written against and tested with. */
export const PINNED_KAFKAJS = '2.2.4';

/** One replacement of a kafkajs internal. */
export interface KafkajsPatch {
  readonly name: string;
  /**
   * `performance`: hookstream keeps its guarantees without it, only slower (or, for the rejoin
   * barrier, with more duplicates at a rebalance); on any other kafkajs release it is skipped. `correctness`: a guarantee of hookstream rests on it; without it the
   * package refuses to load.
   */
  readonly kind: 'performance' | 'correctness';
  /** Puts it in place (calling it again changes nothing). False: too late, kafkajs holds the original. */
  install(): boolean;
}

/** `skipped`: not tried (another kafkajs release); `lost`: tried too late. */
export type PatchState = 'installed' | 'skipped' | 'lost';

export interface PatchReport {
  readonly kafkajsVersion: string;
  readonly states: ReadonlyMap<string, PatchState>;
}

export interface PatchEnvironment {
  readonly kafkajsVersion: string;
  /**
   * Under test a lost patch is an error: the suite would otherwise measure and pass on kafkajs's
   * own code while production runs the replacement, or the reverse.
   */
  readonly underTest: boolean;
  /** Said at most once per install. */
  readonly warn: (message: string) => void;
}

/**
 * Installs the patches in order, guarded by the kafkajs release: on the pinned one each is put in
 * place; on any other the performance patches are skipped with one warning, and a correctness
 * patch refuses (its replacement was written against internals that may have changed). A patch
 * that comes too late fails under test and outside it when correctness rests on it; otherwise it
 * costs speed, said in one warning.
 */
export function installPatches(patches: readonly KafkajsPatch[], env: PatchEnvironment): PatchReport {
  const states = new Map<string, PatchState>();
  const { kafkajsVersion } = env;
  if (kafkajsVersion !== PINNED_KAFKAJS) {
    const needed = patches.filter((p) => p.kind === 'correctness');
    if (needed.length > 0)
      throw new KafkajsPatchError(
        'KAFKAJS_VERSION_UNSUPPORTED',
        `kafkajs ${kafkajsVersion} is installed, but hookstream's ${names(needed)} patch was written for kafkajs ${PINNED_KAFKAJS} and correctness rests on it: install kafkajs ${PINNED_KAFKAJS}`,
      );
    for (const p of patches) states.set(p.name, 'skipped');
    if (patches.length > 0)
      env.warn(
        `kafkajs ${kafkajsVersion} is installed, not ${PINNED_KAFKAJS}: hookstream's performance patches (${names(patches)}) are skipped and kafkajs runs as shipped`,
      );
    return { kafkajsVersion, states };
  }
  for (const p of patches) states.set(p.name, p.install() ? 'installed' : 'lost');
  const lost = patches.filter((p) => states.get(p.name) === 'lost');
  if (lost.length === 0) return { kafkajsVersion, states };
  const why = `kafkajs had loaded what ${names(lost)} replaces before @hookstream/kafka was imported; import it before anything that uses kafkajs`;
  if (env.underTest || lost.some((p) => p.kind === 'correctness'))
    throw new KafkajsPatchError('KAFKAJS_PATCH_LOST', why);
  env.warn(`${why} (kafkajs runs as shipped there, only slower)`);
  return { kafkajsVersion, states };
}

function names(patches: readonly KafkajsPatch[]): string {
  return patches.map((p) => p.name).join(', ');
}
