import { html, type SafeHtml } from '../safe-html.ts';
import { layout } from './layout.ts';

/** A failed request: what went wrong and whether trying again may help. */
export function errorPage(
  problem: { readonly code: string; readonly message: string; readonly canRetry: boolean },
  csrfToken: string | undefined,
): SafeHtml {
  return layout(
    { title: 'Something went wrong', ...(csrfToken === undefined ? {} : { csrfToken }) },
    html`<p class="error">${problem.code}: ${problem.message}</p>
<p class="muted">${problem.canRetry ? 'This may pass if tried again (Kafka or Jaeger busy or away).' : 'Trying again unchanged will fail the same way.'}</p>`,
  );
}
