import type Bottleneck from 'bottleneck';

/** The errors Bottleneck's Lua scripts raise on purpose, each of which it knows how to recover from. */
const SENTINELS: ReadonlySet<string> = new Set(['UNKNOWN_CLIENT', 'SETTINGS_KEY_NOT_FOUND']);

type ScriptCallback = (error: Error | null, replies: unknown) => void;

/** The connection's private hook every script call goes through (bottleneck 2.19.5). */
interface ScriptArgs {
  __scriptArgs__(name: string, id: string, args: unknown[], callback: ScriptCallback): unknown[];
}

/**
 * Bottleneck 2.19.5 recovers from its scripts' two sentinel errors (a client Redis forgot: register
 * it again; settings expired: initialise them again) by comparing the message with `===`. Redis 7
 * prefixes `ERR ` to an error reply that carries no code of its own (bottleneck issue #212), so the
 * recovery never ran: once another instance had cleared a client as unresponsive (10 s without a
 * heartbeat, as on a starved event loop), every job of that limiter failed, and each record it held
 * stayed unsettled until its lane restarted. This gives the sentinels back their bare message on
 * the way to Bottleneck, so its own recovery runs. Any other error passes through unchanged.
 */
export function recognizeBottleneckSentinels(connection: Bottleneck.IORedisConnection): void {
  // The hook is not in Bottleneck's types; its absence after an upgrade fails here, not silently.
  const hooked = connection as unknown as ScriptArgs;
  if (typeof hooked.__scriptArgs__ !== 'function')
    throw new Error(
      'bottleneck: IORedisConnection.__scriptArgs__ is gone; check recognizeBottleneckSentinels',
    );
  const scriptArgs = hooked.__scriptArgs__.bind(connection);
  hooked.__scriptArgs__ = (name, id, args, callback) =>
    scriptArgs(name, id, args, (error, replies) => callback(error === null ? null : bare(error), replies));
}

function bare(error: Error): Error {
  const message = error.message.startsWith('ERR ') ? error.message.slice(4) : error.message;
  if (SENTINELS.has(message)) error.message = message;
  return error;
}
