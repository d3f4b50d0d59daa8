/**
 * Which Host and Origin headers the console answers. A Host it does not know is refused (DNS
 * rebinding: a page whose name resolves to 127.0.0.1 would otherwise talk to the console as
 * a same-origin page); a POST whose Origin is not the console's own is refused (CSRF, before
 * the token is even looked at).
 */
export class RequestGuard {
  readonly #hosts: ReadonlySet<string>;
  readonly #origins: ReadonlySet<string>;
  readonly #httpsHosts: ReadonlySet<string>;

  constructor(listen: {
    readonly host: string;
    readonly port: number;
    readonly publicOrigins?: readonly string[];
  }) {
    const names = [listen.host];
    // A console on loopback is also reached as localhost (and [::1]).
    if (listen.host === '127.0.0.1' || listen.host === 'localhost' || listen.host === '::1')
      names.push('127.0.0.1', 'localhost', '[::1]');
    const hosts = names.map((n) => `${n.includes(':') && !n.startsWith('[') ? `[${n}]` : n}:${listen.port}`);
    const origins = [...hosts.map((h) => `http://${h}`), ...(listen.publicOrigins ?? [])];
    this.#hosts = new Set([...hosts, ...(listen.publicOrigins ?? []).map((o) => new URL(o).host)]);
    this.#origins = new Set(origins);
    const https = (listen.publicOrigins ?? []).map((o) => new URL(o)).filter((u) => u.protocol === 'https:');
    this.#httpsHosts = new Set(https.map((u) => u.host));
  }

  /**
   * Whether a request came to an https public origin (by its Host): the session cookie is then
   * `Secure`, so the browser never sends it over plain http. A console reached at host:port
   * directly answers over http and cannot set one.
   */
  reachedOverHttps(host: string | undefined): boolean {
    return host !== undefined && this.#httpsHosts.has(host.toLowerCase());
  }

  hostAllowed(host: string | undefined): boolean {
    return host !== undefined && this.#hosts.has(host.toLowerCase());
  }

  /** A POST's Origin: present and the console's own (browsers always send it on a form POST). */
  originAllowed(origin: string | undefined): boolean {
    return origin !== undefined && this.#origins.has(origin.toLowerCase());
  }
}
