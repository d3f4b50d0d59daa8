import { type HtmlValue, html, type SafeHtml } from '@hookstream/console';

/** What every page of one link knows: where its pages are, its CSRF token, its tenant and scope. */
export interface PortalFrame {
  /** `/portal/<token>`: every link and form of the page starts with it. */
  readonly base: string;
  readonly csrf: string;
  readonly tenant: string;
  readonly canManage: boolean;
}

export const PORTAL_STYLESHEET_PATH = '/portal/portal.css';

/** The page around every view: the tenant, the four sections, and the stylesheet (CSP 'self'). */
export function portalLayout(frame: PortalFrame, title: string, body: HtmlValue): SafeHtml {
  const b = frame.base;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${frame.tenant} · webhooks</title>
<link rel="stylesheet" href="${PORTAL_STYLESHEET_PATH}">
</head>
<body>
<header>
<span class="brand">Webhooks · ${frame.tenant}</span>
<nav><a href="${b}/">Endpoints</a> <a href="${b}/catalogue">Event catalogue</a> <a href="${b}/messages">Messages</a> <a href="${b}/notices">Notices</a></nav>
<span class="muted">${frame.canManage ? 'manage' : 'read only'}</span>
</header>
<main>
<h1>${title}</h1>
${body}
</main>
</body>
</html>
`;
}

/** The hidden field every POST form carries. */
export function csrfInput(frame: PortalFrame): SafeHtml {
  return html`<input type="hidden" name="csrf" value="${frame.csrf}">`;
}

/** A one-button POST form (pause, resume, resend…), shown only to a link that may manage. */
export function actionButton(
  frame: PortalFrame,
  action: string,
  label: string,
  fields: Record<string, string> = {},
): SafeHtml {
  if (!frame.canManage) return html``;
  const hidden = Object.entries(fields).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`);
  return html`<form class="inline" method="post" action="${action}">${csrfInput(frame)}${hidden}<button>${label}</button></form>`;
}
