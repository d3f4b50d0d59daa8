/** Markup that is already escaped: only `html` and `SafeHtml.join` make one. */
export class SafeHtml {
  readonly text: string;

  private constructor(text: string) {
    this.text = text;
  }

  /** For this module's tag only: every other way in goes through escaping. */
  static trusted(text: string): SafeHtml {
    return new SafeHtml(text);
  }

  /** Pieces of markup joined, with an escaped separator. */
  static join(parts: readonly SafeHtml[], separator = ''): SafeHtml {
    return new SafeHtml(parts.map((p) => p.text).join(escapeHtml(separator)));
  }

  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Text made safe for an element's content and a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c] ?? c);
}

/** What a template may interpolate: text (escaped), numbers, markup, lists of them; null and false render nothing. */
export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

/**
 * The console's one template helper: a tagged template whose every interpolated value is
 * escaped, unless it is SafeHtml made by this same tag. Attribute values must be quoted in the
 * template (`href="${url}"`), which escaping quotes makes safe.
 */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return SafeHtml.trusted(out);
}

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return value.map((v: HtmlValue) => render(v)).join('');
  return escapeHtml(String(value));
}
