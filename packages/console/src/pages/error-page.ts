import { html, type SafeHtml } from '../safe-html.ts';
import { layout } from './layout.ts';

/**
 * A failed request: what went wrong and whether trying again may help. `refreshSeconds`: the page
 * tries again by itself (a page left open, such as the list that reloads itself, would otherwise
 * stay on this one after a moment when Kafka was busy).
 */
export function errorPage(
  problem: { readonly code: string; readonly message: string; readonly canRetry: boolean },
  csrfToken: string | undefined,
  refreshSeconds?: number,
): SafeHtml {
  return layout(
    {
      title: 'Something went wrong',
      ...(csrfToken === undefined ? {} : { csrfToken }),
      ...(refreshSeconds === undefined ? {} : { refreshSeconds }),
    },
    html`<p class="error">${problem.code}: ${problem.message}</p>
<p class="muted">${problem.canRetry ? 'This may pass if tried again (Kafka or Jaeger busy or away).' : 'Trying again unchanged will fail the same way.'}</p>`,
  );
}
