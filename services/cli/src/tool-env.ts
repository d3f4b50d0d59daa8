import { userInfo } from 'node:os';
import { DEFAULT_EVENTS_TOPIC, EventsTopicName, HookstreamError } from '@hookstream/contracts';
import { loadStackConfig } from '@hookstream/stack';
import { z } from 'zod';

/**
 * The variables the tools read besides the connection settings (runtime-endpoints.ts), parsed
 * once per process: a bad value stops the command naming the variable, before it does anything.
 */
export const ToolEnv = z.object({
  /** The events topic the tools read (`--topic` wins). */
  HOOKSTREAM_EVENTS_TOPIC: EventsTopicName.default(DEFAULT_EVENTS_TOPIC),
  /** Jaeger's query API for `trace` and the console; default: the local stack's. */
  JAEGER_QUERY_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** The address `hookstream receiver` binds (`--host` wins); 0.0.0.0 inside a container. */
  HOOKSTREAM_RECEIVER_HOST: z.string().min(1).max(255).default('127.0.0.1'),
  /** The console's bearer tokens (parsed by the console, which says what a bad entry is). */
  CONSOLE_TOKENS: z.string().optional(),
  /** Who an operator is, for the `by` of a pause, a replay or a reseal (`--by` wins). */
  USER: z.string().min(1).max(200).optional(),
});
export type ToolEnv = z.infer<typeof ToolEnv>;

let parsed: ToolEnv | undefined;

/** This process's ToolEnv, parsed at its first use. */
export function toolEnv(): ToolEnv {
  parsed ??= parseToolEnv(process.env);
  return parsed;
}

/** Parses the variables; a bad one throws BAD_CONFIG naming it. */
export function parseToolEnv(env: Record<string, string | undefined>): ToolEnv {
  // An empty variable counts as unset, as a shell's `VAR= command` means.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== ''));
  const result = ToolEnv.safeParse(present);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new HookstreamError(
    'BAD_CONFIG',
    `invalid ${issue?.path.join('.') ?? 'environment'}: ${issue?.message ?? 'bad value'}`,
    false,
  );
}

/** Jaeger's query API: JAEGER_QUERY_URL, else the local stack's query port. */
export function jaegerQueryUrl(): string {
  const config = loadStackConfig();
  return toolEnv().JAEGER_QUERY_URL ?? `http://${config.host}:${config.jaeger.queryPort}`;
}

/** The operator's name for records that say who did something. */
export function operatorName(): string {
  const user = toolEnv().USER;
  if (user !== undefined) return user;
  try {
    return userInfo().username || 'unknown';
  } catch {
    // No passwd entry for the uid (some containers).
    return 'unknown';
  }
}

/**
 * Who the audit trail says made a change at the CLI: the OS user ($USER, else the account's
 * name). `--by` and `--operator` say who for a pause or a replay; the trail keeps the account.
 */
export function toolActor(): { readonly kind: 'user'; readonly user: string } {
  return { kind: 'user', user: operatorName() };
}
