import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import {
  definitionFilterProblems,
  parseSubscriberSpec,
  repositoryEventCatalog,
  type SubscriberSpec,
} from '@hookstream/contracts';
import { privateDestinations } from './destination-check.ts';

/** A valid definition and the file it came from. */
export interface DefinitionFile {
  readonly path: string;
  readonly spec: SubscriberSpec;
}

export interface DefinitionProblem {
  readonly path: string;
  readonly error: string;
}

/** More files than this in one apply is a mistake (a wrong directory), not a catalog. */
const MAX_FILES = 10_000;

/**
 * Reads one definition file, or every `*.json` file of a directory (not recursive, sorted), and
 * validates all of them; returns every problem, so an operator fixes them in one go. A `{file}`
 * secret is made absolute against its definition's directory, since the fleet that reads the
 * record does not know where the definition was. Two files naming the same subscriber is a
 * problem of both.
 */
export async function loadDefinitionFiles(
  target: string,
): Promise<{ files: DefinitionFile[]; problems: DefinitionProblem[] }> {
  let paths: string[];
  try {
    const info = await stat(target);
    paths = info.isDirectory()
      ? (await readdir(target))
          .filter((f) => f.endsWith('.json'))
          .sort()
          .map((f) => join(target, f))
      : [target];
  } catch (err) {
    return { files: [], problems: [{ path: target, error: `cannot read: ${(err as Error).message}` }] };
  }
  if (paths.length === 0)
    return { files: [], problems: [{ path: target, error: 'no *.json definition files' }] };
  if (paths.length > MAX_FILES)
    return { files: [], problems: [{ path: target, error: `more than ${MAX_FILES} files` }] };
  const files: DefinitionFile[] = [];
  const problems: DefinitionProblem[] = [];
  for (const path of paths) {
    const one = await loadOne(path);
    if ('error' in one) problems.push(one);
    else files.push(one);
  }
  const byName = new Map<string, string[]>();
  for (const f of files) byName.set(f.spec.name, [...(byName.get(f.spec.name) ?? []), f.path]);
  for (const [name, where] of byName)
    if (where.length > 1)
      for (const path of where)
        problems.push({
          path,
          error: `name: "${name}" is also defined in ${where.filter((p) => p !== path).join(', ')}`,
        });
  return { files, problems };
}

async function loadOne(path: string): Promise<DefinitionFile | DefinitionProblem> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    return { path, error: `cannot read: ${(err as Error).message}` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { path, error: `not JSON: ${(err as Error).message}` };
  }
  const parsed = parseSubscriberSpec(json);
  if (!parsed.ok) return { path, error: parsed.error };
  const spec = parsed.value;
  // A filter that could never be evaluated (a pointer no schema has) is refused here, not met
  // event by event.
  const filterProblems = definitionFilterProblems(spec, repositoryEventCatalog());
  if (filterProblems.length > 0) return { path, error: filterProblems.join('; ') };
  const aimed = privateDestinations(spec);
  if (aimed.length > 0) return { path, error: aimed.map((a) => `${a.path}: ${a.message}`).join('; ') };
  if (spec.secret !== undefined && 'file' in spec.secret && !isAbsolute(spec.secret.file))
    return { path, spec: { ...spec, secret: { file: resolve(dirname(path), spec.secret.file) } } };
  return { path, spec };
}
