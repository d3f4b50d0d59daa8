import { type HtmlValue, html, type SafeHtml } from '../safe-html.ts';

export interface PageOptions {
  readonly title: string;
  /** Seconds until the browser reloads the page by itself; absent: it does not. */
  readonly refreshSeconds?: number;
  /** The session's CSRF token for the logout form; absent on the login page. */
  readonly csrfToken?: string;
}

/** The page around every view: navigation, logout, and the stylesheet (served by the console, CSP 'self'). */
export function layout(options: PageOptions, body: HtmlValue): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${options.refreshSeconds === undefined ? '' : html`<meta http-equiv="refresh" content="${options.refreshSeconds}">`}
<title>${options.title} · hookstream console</title>
<link rel="stylesheet" href="/console.css">
</head>
<body>
<header>
<a class="brand" href="/">hookstream console</a>
${
  options.csrfToken === undefined
    ? ''
    : html`<nav><a href="/">Subscribers</a> <a href="/catalogue">Event catalogue</a>
<form class="inline" method="get" action="/events"><input name="id" placeholder="event id" aria-label="event id"> <button>Find event</button></form>
<form class="inline" method="post" action="/logout">${csrfField(options.csrfToken)}<button>Log out</button></form></nav>`
}
</header>
<main>
<h1>${options.title}</h1>
${body}
</main>
</body>
</html>
`;
}

/** The hidden field every POST form carries. */
export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="csrf" value="${token}">`;
}

export const STYLESHEET = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 0; color: #1d2330; background: #f6f7f9; }
header { display: flex; gap: 1.5em; align-items: center; padding: .6em 1.2em; background: #1d2330; color: #fff; flex-wrap: wrap; }
header a { color: #fff; text-decoration: none; margin-right: 1em; }
.brand { font-weight: 600; }
main { padding: 1em 1.5em; }
h1 { font-size: 1.4em; margin: .3em 0 .8em; }
h2 { font-size: 1.1em; margin-top: 1.6em; }
table { border-collapse: collapse; background: #fff; margin-bottom: 1em; }
th, td { text-align: left; padding: .3em .7em; border-bottom: 1px solid #e2e5ea; vertical-align: top; }
th { background: #eceff3; font-weight: 600; }
pre { background: #fff; border: 1px solid #e2e5ea; padding: .7em; overflow: auto; max-width: 100%; }
form.inline { display: inline; }
.state-active { color: #1a7f37; font-weight: 600; }
.state-paused { color: #9a6700; font-weight: 600; }
.state-disabled, .breaker-open, .error { color: #cf222e; font-weight: 600; }
.breaker-half-open { color: #9a6700; }
.muted { color: #6a7280; }
.filters label { margin-right: .8em; }
button { cursor: pointer; }
progress { width: 20em; }
`;
