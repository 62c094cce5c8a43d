import { errorField, isTimeout, ProviderError, UrlRefused } from '../errors';
import { allowedBy, checkedLookup, checkedUrl, guardedPost, readBody, type GuardedBody } from '../guarded-request';
import type { Meter } from '../meter';
import { resolveAll } from '../resolve';

/*
 * One request to Google, through the service's address policy (https only, public addresses only,
 * checked on the very addresses connected to, no redirect followed) and within a time limit that the
 * meter's run shortens: Google's hosts are fixed, but a poisoned resolver must not reach the VPC.
 */

export interface GoogleRequestOptions {
  /** Also allow loopback addresses (127.0.0.0/8, ::1): for local development and tests only. */
  allowLoopback?: boolean;
  /** A CA trusted on top of the system ones (tests: the fixture certificate). */
  ca?: string | Buffer;
  resolve?: (host: string) => Promise<string[]>;
  /** Time limit of one request: connection, answer and body (default 30 s: a page of 25,000 rows is megabytes). */
  timeoutMs?: number;
}

const USER_AGENT = 'content-research-api/0.1 (+search console import)';
const TIMEOUT_MS = 30_000;
/** The largest answer read: 25,000 rows with long URLs and queries stay well under it. */
const MAX_BYTES = 64 * 1024 * 1024;

/** An answer: its status and its body as JSON (undefined when it is not JSON). */
export interface GoogleAnswer {
  status: number;
  body: unknown;
}

/** Posts to Google's APIs as `provider`: an answer whatever its status, or a ProviderError when none came. */
export class GoogleRequests {
  private readonly isAllowed: (address: string) => boolean;

  constructor(
    private readonly provider: string,
    private readonly options: GoogleRequestOptions,
  ) {
    this.isAllowed = allowedBy(options.allowLoopback ?? false);
  }

  async post(url: string, body: GuardedBody, meter: Meter): Promise<GoogleAnswer> {
    const timeoutMs = this.options.timeoutMs ?? TIMEOUT_MS;
    const limit = meter.attemptLimit(timeoutMs);
    try {
      const target = checkedUrl(url, this.isAllowed);
      const lookup = checkedLookup(this.options.resolve ?? resolveAll, this.isAllowed);
      const res = await guardedPost(
        target,
        lookup,
        limit.signal,
        { accept: 'application/json', userAgent: USER_AGENT, ca: this.options.ca },
        body,
      );
      const text = (await readBody(res, MAX_BYTES)).toString('utf8');
      return { status: Number(res.statusCode), body: parsed(text) };
    } catch (error) {
      // An address the policy refuses is the deployment's setting or a resolver's lie: no retry mends it.
      if (error instanceof UrlRefused) throw new ProviderError(this.provider, `${url} refused: ${error.reason}`, false);
      const timedOut = limit.signal.aborted || isTimeout(error);
      const why = timedOut ? `no answer within ${timeoutMs} ms` : `request failed: ${errorField(error, 'message')}`;
      throw new ProviderError(this.provider, `${url}: ${why}`, true, undefined, timedOut);
    } finally {
      limit.clear();
    }
  }
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
