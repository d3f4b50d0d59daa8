import { z } from 'zod';
import { ConsoleError } from './errors.ts';

/** Tokens shorter than this are refused: the login form is the only thing between a browser and the actions. */
export const MIN_TOKEN_LENGTH = 16;

const Tokens = z
  .string()
  .transform((text) =>
    text
      .split(',')
      .map((t) => t.trim())
      .filter((t) => t !== ''),
  )
  .pipe(
    z
      .array(z.string().min(MIN_TOKEN_LENGTH, `each token at least ${MIN_TOKEN_LENGTH} characters`))
      .min(1, 'at least one token'),
  );

/** CONSOLE_TOKENS: comma-separated; an error names the variable, never a token. */
export function parseConsoleTokens(text: string | undefined): string[] {
  if (text === undefined || text.trim() === '')
    throw new ConsoleError(
      'BAD_CONFIG',
      'CONSOLE_TOKENS is not set: give one or more comma-separated tokens (e.g. openssl rand -base64 24)',
      false,
    );
  const parsed = Tokens.safeParse(text);
  if (!parsed.success)
    throw new ConsoleError(
      'BAD_CONFIG',
      `CONSOLE_TOKENS: ${parsed.error.issues[0]?.message ?? 'invalid'}`,
      false,
    );
  return parsed.data;
}
