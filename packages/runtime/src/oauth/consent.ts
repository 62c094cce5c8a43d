import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type Provider from 'oidc-provider';
import type { ErrorOut, KoaContextWithOIDC } from 'oidc-provider';
import {
  CONSENT_KEY_ATTEMPTS,
  isOAuthScope,
  OAUTH_SCOPES,
  oauthResources,
  RESOURCE_SCOPES,
  resourceNamed,
  type OAuthScope,
} from '@cm/contract';
import { addressCounted, escapeHtml, redirectTarget } from '@cm/core';
import { apiKeyHash } from '@cm/store';
import { accountIdOf } from '../bearer';
import { getOAuthStore, getSites } from '../services';
import { consentToken, consentTokenMatches } from './secrets';

/*
 * The consent page (docs/api.md#signing-in-the-consent-page): where the site's owner signs in with the
 * site's API key and approves or denies what a client asks for. A plain HTML form, posted to itself;
 * no script. The form carries a token only this page can make (an HMAC of the interaction's id), the
 * interaction is bound to the browser by oidc-provider's cookie (SameSite=Lax), and the key is checked
 * and then forgotten: the grant names the site and the key's hash, so the grant ends with the key.
 */

const CONSENT_PATH = /^\/oauth\/consent\/([^/]+)$/;
/** What an interaction id oidc-provider makes looks like: any other is unknown without a read. */
const INTERACTION_UID = /^[\w-]{1,100}$/;
/** The largest form read: a key and two short fields. */
const FORM_LIMIT_BYTES = 4_096;

const STYLES = [
  'body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f8fafc;color:#0f172a}',
  'main{max-width:34rem;margin:3rem auto;padding:2rem;background:#fff;border:1px solid #cbd5e1;border-radius:.5rem}',
  'h1{font-size:1.4rem;margin-top:0}ul{padding-left:1.2rem}code{background:#f1f5f9;padding:0 .2rem}',
  'label{display:block;font-weight:600;margin-top:1rem}input[type=password]{width:100%;padding:.5rem;font:inherit;box-sizing:border-box}',
  'p.error{color:#b91c1c;font-weight:600}.actions{display:flex;gap:1rem;margin-top:1.5rem}',
  '.unverified{color:#b45309;font-weight:600}',
  'button{font:inherit;padding:.5rem 1.2rem;border-radius:.3rem;border:1px solid #334155;background:#fff;cursor:pointer}',
  'button[value=approve]{background:#1d4ed8;color:#fff;border-color:#1d4ed8}',
].join('');
const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLES).digest('base64')}'`;

/** What the page shows of an authorization request. */
interface Asked {
  uid: string;
  /** The name the client gave itself, if any: no one has checked it. */
  clientName?: string;
  clientId: string;
  redirectUri: string;
  resource: string;
  scopes: OAuthScope[];
}

/** The scopes a request asks of a resource: those it names that the resource has; all of them when it names none. */
function scopesAsked(requested: unknown, offered: readonly OAuthScope[]): OAuthScope[] {
  if (typeof requested !== 'string' || !requested.trim()) return [...offered];
  return requested.split(/\s+/).filter((s): s is OAuthScope => isOAuthScope(s) && offered.includes(s));
}

/**
 * Who the page says is asking, escaped. A client by metadata document is the host that serves it (its
 * `client_id` is that URL); a registered client (DCR) is only the name it chose for itself, marked
 * unverified, and so is the host it will send the browser back to, shown as prominently.
 */
function asker(asked: Asked): { title: string; heading: string; intro: string; returnsTo: string } {
  const returnsTo = redirectTarget(asked.redirectUri).shown;
  const redirectHost = `<strong>${escapeHtml(returnsTo)}</strong>`;
  const calls = asked.clientName
    ? `calls itself “${escapeHtml(asked.clientName)}” <span class="unverified">(a name it chose itself, not verified)</span>`
    : 'gives no name';
  if (URL.canParse(asked.clientId) && new URL(asked.clientId).protocol === 'https:') {
    const host = new URL(asked.clientId).host;
    return {
      returnsTo,
      title: host,
      heading: `Allow <strong>${escapeHtml(host)}</strong> to act for your site?`,
      intro: `The application published at <code>${escapeHtml(asked.clientId)}</code>, which ${calls},`,
    };
  }
  return {
    returnsTo,
    title: `an application that returns to ${returnsTo}`,
    heading: `Allow an application that returns to ${redirectHost} to act for your site?`,
    intro: `An application registered as <code>${escapeHtml(asked.clientId)}</code>, which ${calls},`,
  };
}

/** The page, escaped throughout; `problem` says why the last post was refused. */
function page(asked: Asked, csrf: string, problem?: string): string {
  const who = asker(asked);
  const scopes = asked.scopes
    .map((s) => `<li><code>${escapeHtml(s)}</code>: ${escapeHtml(OAUTH_SCOPES[s])}</li>`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>Allow ${escapeHtml(who.title)}?</title><style>${STYLES}</style></head>
<body><main>
<h1>${who.heading}</h1>
<p>${who.intro} asks to use <code>${escapeHtml(asked.resource)}</code> for your site, and will send your
browser back to <strong>${escapeHtml(who.returnsTo)}</strong>. It asks to:</p>
<ul>${scopes}</ul>
${problem ? `<p class="error" role="alert">${escapeHtml(problem)}</p>` : ''}
<form method="post" action="/oauth/consent/${escapeHtml(asked.uid)}">
<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
<label for="api_key">Your site's API key</label>
<input type="password" id="api_key" name="api_key" autocomplete="off" spellcheck="false" required>
<p>The key signs you in for this approval only; it is not kept, and the access given ends if the key is revoked.</p>
<div class="actions"><button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button></div>
</form></main></body></html>`;
}

/**
 * Answers the page: no cache, no frame (by CSP, and by X-Frame-Options for browsers without
 * frame-ancestors), its own style only, and forms only to itself and (after it) to the client.
 */
function answer(ctx: KoaContextWithOIDC, status: number, html: string, redirectUri?: string): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('cache-control', 'no-store');
  ctx.set('x-content-type-options', 'nosniff');
  ctx.set('x-frame-options', 'DENY');
  ctx.set('referrer-policy', 'no-referrer');
  // A browser checks form-action on the redirects a form's post leads to: back here, then to the client.
  const formAction = ["'self'", ...(redirectUri ? [redirectTarget(redirectUri).source] : [])].join(' ');
  ctx.set(
    'content-security-policy',
    `default-src 'none'; style-src ${STYLE_HASH}; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
  );
  ctx.body = html;
}

/** The message page for a request that cannot be served (an expired or unknown interaction, a forged form). */
const notice = (title: string, text: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><style>${STYLES}</style></head><body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></main></body></html>`;

/**
 * oidc-provider's error page (an authorization request it refuses without sending the browser back, as
 * for a redirect URI that is not the client's): the consent page's, under its policy.
 */
export async function renderError(ctx: KoaContextWithOIDC, out: ErrorOut): Promise<void> {
  const text = `${out.error_description ?? 'The request could not be served'} (${out.error}). Start again from the application that sent you here.`;
  answer(ctx, ctx.status, notice('This sign-in cannot go on', text));
}

/** The form's fields: urlencoded, at most FORM_LIMIT_BYTES. */
async function formOf(req: IncomingMessage): Promise<URLSearchParams | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > FORM_LIMIT_BYTES) return null;
    chunks.push(buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** The consent page's routes, as a middleware of the authorization server (before its own routes). */
export function consentRoutes(provider: Provider, base: string, secret: string) {
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
    const uid = CONSENT_PATH.exec(ctx.path)?.[1];
    if (uid === undefined || (ctx.method !== 'GET' && ctx.method !== 'POST')) return next();
    const expired = () =>
      answer(ctx, 400, notice('This sign-in has expired', 'Start again from the application that sent you here.'));
    if (!INTERACTION_UID.test(uid)) return expired();
    let details: Awaited<ReturnType<Provider['interactionDetails']>>;
    try {
      details = await provider.interactionDetails(ctx.req, ctx.res);
    } catch {
      return expired();
    }
    const { params } = details;
    const clientId = String(params.client_id);
    const client = await provider.Client.find(clientId);
    const named: unknown = Array.isArray(params.resource) ? params.resource[0] : params.resource;
    const indicator = typeof named === 'string' ? named : oauthResources(base).mcp;
    const resourceName = resourceNamed(base, indicator) ?? 'mcp';
    const asked: Asked = {
      uid,
      clientId,
      clientName: client?.clientName,
      redirectUri: String(params.redirect_uri),
      resource: indicator,
      scopes: scopesAsked(params.scope, RESOURCE_SCOPES[resourceName]),
    };
    const csrf = consentToken(secret, uid);
    if (ctx.method === 'GET') return answer(ctx, 200, page(asked, csrf), asked.redirectUri);

    const form = await formOf(ctx.req);
    if (!form || !consentTokenMatches(secret, uid, form.get('csrf')))
      return answer(
        ctx,
        403,
        notice('This form was not sent from the sign-in page', 'Start again from the application that sent you here.'),
      );
    if (form.get('decision') !== 'approve')
      return provider.interactionFinished(
        ctx.req,
        ctx.res,
        { error: 'access_denied', error_description: "The site's owner denied the request" },
        { mergeWithLastSubmission: false },
      );
    const apiKey = form.get('api_key')?.trim() ?? '';
    // Every key posted is counted against its address before it is looked up; a good one is given back.
    const { limit, windowSeconds } = CONSENT_KEY_ATTEMPTS;
    const address = addressCounted(ctx.req.socket.remoteAddress ?? '');
    const now = Math.floor(Date.now() / 1000);
    const window = Math.floor(now / windowSeconds);
    const windowEnd = (window + 1) * windowSeconds;
    if (!(await getOAuthStore().takeKeyAttempt(address, window, limit, windowEnd))) {
      ctx.set('retry-after', String(windowEnd - now));
      const wait = `Too many wrong keys were sent from your address: try again in ${Math.ceil((windowEnd - now) / 60)} minutes.`;
      return answer(ctx, 429, page(asked, csrf, wait), asked.redirectUri);
    }
    const key = apiKey ? await getSites().lookupKey(apiKey) : null;
    if (!key) return answer(ctx, 401, page(asked, csrf, 'That is not a valid API key of a site.'), asked.redirectUri);
    await getOAuthStore().giveBackKeyAttempt(address, window);
    const accountId = accountIdOf(key.site_id, apiKeyHash(apiKey));
    const grant = new provider.Grant({ accountId, clientId });
    grant.addResourceScope(asked.resource, asked.scopes.join(' '));
    // The scope parameter's values are the authorization server's own scopes too (its metadata lists them),
    // and a client may ask for a refresh token the OpenID Connect way (offline_access): granted as asked.
    // `openid` never reaches here (oauth-only.ts): no ID token is issued.
    const standard = (typeof params.scope === 'string' ? params.scope : '')
      .split(/\s+/)
      .filter((s) => isOAuthScope(s) || s === 'offline_access');
    if (standard.length) grant.addOIDCScope(standard.join(' '));
    const grantId = await grant.save();
    await provider.interactionFinished(
      ctx.req,
      ctx.res,
      { login: { accountId, remember: false }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
  };
}
