import { html, type SafeHtml, segment } from '@hookstream/console';
import type { SubscriberResource } from '@hookstream/management';
import { actionButton, csrfInput, type PortalFrame, portalLayout } from './portal-layout.ts';

/** The form fields as a definition fills them (empty for a new endpoint). */
export interface EndpointFormValues {
  readonly url: string;
  readonly eventTypes: string;
  readonly filter: string;
  readonly ratePerSecond: string;
}

export function formValuesOf(definition: Record<string, unknown> | null): EndpointFormValues {
  if (definition === null) return { url: '', eventTypes: '', filter: '', ratePerSecond: '50' };
  const rate = definition.rate as { perSecond?: number } | undefined;
  return {
    url: String(definition.url ?? ''),
    eventTypes: ((definition.eventTypes as string[] | undefined) ?? []).join(', '),
    filter: definition.filter === undefined ? '' : JSON.stringify(definition.filter, null, 2),
    ratePerSecond: String(rate?.perSecond ?? 50),
  };
}

function fields(v: EndpointFormValues): SafeHtml {
  return html`<p><label>URL <input name="url" size="60" value="${v.url}" required></label></p>
<p><label>Event types <input name="eventTypes" size="60" value="${v.eventTypes}" placeholder="shipment.updated, key.revoked" required></label></p>
<p><label>Filter (JSON, optional)<br><textarea name="filter" rows="4" cols="60">${v.filter}</textarea></label></p>
<p><label>Requests per second <input name="ratePerSecond" size="8" value="${v.ratePerSecond}"></label></p>`;
}

/** A new endpoint: its name and fields; it gets a managed signing secret, shown once after. */
export function newEndpointPage(frame: PortalFrame, values: EndpointFormValues, name = ''): SafeHtml {
  return portalLayout(
    frame,
    'Add an endpoint',
    html`<form method="post" action="${frame.base}/endpoints">${csrfInput(frame)}
<p><label>Name <input name="name" value="${name}" pattern="[a-z0-9][a-z0-9._\\-]{0,99}" required></label></p>
${fields(values)}
<p><button>Create endpoint</button></p></form>`,
  );
}

export interface EndpointView {
  readonly resource: SubscriberResource;
  /** The types the endpoint takes that the catalogue has: an example can be sent of each. */
  readonly exampleTypes: readonly string[];
  /** What the last action did, shown once above the page. */
  readonly notice?: string | undefined;
}

/** One endpoint: its settings, its state, and (for a manage link) editing and actions. */
export function endpointPage(frame: PortalFrame, view: EndpointView): SafeHtml {
  const r = view.resource;
  const definition = r.definition as unknown as Record<string, unknown>;
  const name = String(definition.name);
  const at = `${frame.base}/endpoints/${segment(name)}`;
  const values = formValuesOf(definition);
  const stateKind = r.state.kind;
  return portalLayout(
    frame,
    `Endpoint ${name}`,
    html`${view.notice === undefined ? '' : html`<p class="notice" data-field="notice">${view.notice}</p>`}
<table>
<tr><th>state</th><td class="state-${stateKind}" data-field="state">${stateKind}</td></tr>
<tr><th>URL</th><td data-field="url">${values.url}</td></tr>
<tr><th>event types</th><td data-field="eventTypes">${values.eventTypes}</td></tr>
<tr><th>filter</th><td><pre>${values.filter || 'none'}</pre></td></tr>
<tr><th>requests per second</th><td>${values.ratePerSecond}</td></tr>
<tr><th>signing secret</th><td>${r.secret === null ? 'none' : 'managed' in r.secret ? html`managed (key ${r.secret.keyId}, since ${r.secret.createdAt})` : 'set by the operator'}</td></tr>
</table>
<p><a href="${frame.base}/messages?subscriber=${segment(name)}">Messages to this endpoint</a></p>
${
  frame.canManage
    ? html`<h2>Actions</h2>
<p>${stateKind === 'paused' || stateKind === 'disabled' ? actionButton(frame, `${at}/resume`, 'Resume') : actionButton(frame, `${at}/pause`, 'Pause')}
${actionButton(frame, `${at}/rotate-secret`, 'Rotate the signing secret')}</p>
${
  view.exampleTypes.length === 0
    ? ''
    : html`<form method="post" action="${at}/send-example">${csrfInput(frame)}<label>Send an example of <select name="type">${view.exampleTypes.map((t) => html`<option>${t}</option>`)}</select></label> <button>Send example</button></form>`
}
<form method="post" action="${at}/recover">${csrfInput(frame)}<label>Send again everything dead-lettered since (UTC) <input name="since" type="datetime-local" required></label> <button>Recover</button></form>
<h2>Edit</h2>
<form method="post" action="${at}">${csrfInput(frame)}<input type="hidden" name="etag" value="${r.etag}">
${fields(values)}
<p><button>Save</button></p></form>`
    : ''
}`,
  );
}

/** A signing secret, once: after a rotation, or right after the endpoint was created. */
export function secretPage(frame: PortalFrame, name: string, secret: string, previous: number): SafeHtml {
  return portalLayout(
    frame,
    `Signing secret of ${name}`,
    html`<p>Copy it now: it is not shown again.</p>
<pre data-field="secret">${secret}</pre>
${previous > 0 ? html`<p class="muted">The previous secret still signs for a grace period, so your receiver can switch over.</p>` : ''}
<p><a href="${frame.base}/endpoints/${segment(name)}">Back to ${name}</a></p>`,
  );
}
