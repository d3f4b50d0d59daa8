import { describe, expect, it } from 'vitest';
import { escapeHtml, html, SafeHtml } from '../src/index.ts';

describe('html', () => {
  it('escapes every interpolated text, in content and in quoted attributes', () => {
    const evil = `<script>alert("x")</script>' onmouseover='x' \`&`;
    const out = html`<p title="${evil}">${evil}</p>`.text;
    expect(out).not.toContain('<script>');
    expect(out).not.toMatch(/["'`]\s*onmouseover/);
    expect(out).toBe(
      `<p title="${escapeHtml(evil)}">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onmouseover=&#39;x&#39; &#96;&amp;</p>`,
    );
  });

  it('keeps markup made by html, and escapes inside lists of values', () => {
    const items = ['<a>', 'b&c'].map((t) => html`<li>${t}</li>`);
    expect(html`<ul>${items}</ul>`.text).toBe('<ul><li>&lt;a&gt;</li><li>b&amp;c</li></ul>');
  });

  it('renders numbers, and nothing for null, undefined and false', () => {
    expect(html`${0}|${null}|${undefined}|${false}|${true}|${12.5}`.text).toBe('0||||true|12.5');
  });

  it('does not escape twice, and joins with an escaped separator', () => {
    const once = html`${'&'}`;
    expect(html`${once}`.text).toBe('&amp;');
    expect(SafeHtml.join([html`<b>1</b>`, html`<b>2</b>`], '<br>').text).toBe('<b>1</b>&lt;br&gt;<b>2</b>');
  });

  it('treats a plain object pretending to be markup as text', () => {
    const fake = { text: '<img src=x onerror=alert(1)>' } as unknown as string;
    expect(html`${fake}`.text).toBe('[object Object]');
  });
});
