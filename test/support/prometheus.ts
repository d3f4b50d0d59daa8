/** The value of one sample line (`name{labels} value`), or undefined when the series is absent. */
export function sample(
  text: string,
  name: string,
  labels: Record<string, string | number> = {},
): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labelText = line.slice(name.length).split('}')[0] ?? '';
    if (wanted.every((w) => labelText.includes(w))) return Number(line.split(' ').at(-1));
  }
  return undefined;
}

/** GET a /metrics URL; its text. */
export async function scrape(url: string): Promise<string> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  return res.text();
}
