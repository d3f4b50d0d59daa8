import { describe, expect, it } from 'vitest';
import { formatTable } from '../src/table.ts';

describe('formatTable', () => {
  it('aligns columns to the widest cell and underlines the header', () => {
    const out = formatTable(
      ['component', 'state'],
      [
        ['kafka', 'running'],
        ['registry', 'stopped'],
      ],
    );
    expect(out.split('\n')).toEqual([
      'component  state',
      '---------  -------',
      'kafka      running',
      'registry   stopped',
    ]);
  });
});
