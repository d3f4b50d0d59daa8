import { stackUp } from '@hookstream/stack';
import { renderReports } from './stack-command.ts';

/**
 * `npm start`: the local pipeline. The ingress, pushers and sample receiver join here as
 * they are built; for now it brings the stack up and says so.
 */
export async function startCommand(_argv: readonly string[]): Promise<number> {
  const reports = await stackUp();
  process.stdout.write(`${renderReports(reports)}\n\n`);
  process.stdout.write(
    'The stack is up. The ingress, pushers and sample receiver are not part of `npm start` yet.\n' +
      'Stop everything with: npx hookstream stack down\n',
  );
  return 0;
}
