import { html, type SafeHtml } from '../safe-html.ts';
import { layout } from './layout.ts';

/** The token form; `failed` after a wrong token. */
export function loginPage(failed: boolean): SafeHtml {
  return layout(
    { title: 'Log in' },
    html`${failed ? html`<p class="error">That token is not accepted.</p>` : ''}
<form method="post" action="/login">
<label>Console token <input type="password" name="token" autocomplete="current-password" autofocus required></label>
<button type="submit">Log in</button>
</form>
<p class="muted">Tokens are set in CONSOLE_TOKENS where the console runs.</p>`,
  );
}
