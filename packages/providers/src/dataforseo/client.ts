import * as z from 'zod/mini';
import { dataForSeoPrice, dataForSeoTaskItems } from '../prices';
import { errorField, ProviderError } from '../errors';
import type { Meter } from '../meter';
import { Billed, Envelope } from './responses.decoder';

export const DATAFORSEO = 'dataforseo';
export const DATAFORSEO_BASE_URL = 'https://api.dataforseo.com';

/** Outcome codes of DataForSEO's `status_code` (in the body, at envelope and task level). */
export const STATUS = {
  ok: 20000,
  /** The search engine failed after DataForSEO's own retries: no data, and the task is billed. */
  searchEngineError: 40101,
  /** Nothing found: an empty answer, not an error. */
  noResults: 40102,
} as const;

/**
 * Codes worth another attempt after a pause, by their messages in DataForSEO's error list
 * (docs.dataforseo.com/v3/appendix/errors): "Task execution failed, please try to resubmit the task.",
 * the per-minute rate limit, too many simultaneous queries, "Internal Error.", "3rd Party API Service
 * Unavailable.", "Update in progress. Please try after a few minutes." and "Internal Error - Timeout.".
 * Not 40203 (the daily cost limit holds until the UTC day ends) nor 50304 ("temporarily unavailable.
 * Please contact support"): no pause of seconds ends them.
 */
const TRANSIENT_CODES = new Set([40103, 40202, 40209, 50000, 50301, 50303, 50401]);

export type Classification = 'ok' | 'empty' | 'billed_no_data' | 'transient' | 'terminal';

/** What a body `status_code` means for the caller. */
export function classify(code: number): Classification {
  if (code === STATUS.ok) return 'ok';
  if (code === STATUS.noResults) return 'empty';
  if (code === STATUS.searchEngineError) return 'billed_no_data';
  if (TRANSIENT_CODES.has(code)) return 'transient';
  return 'terminal';
}

/** What an HTTP status other than 200 means: 5xx and 429 pass, 401 (login), 402 (billing), 404 do not. */
const classifyHttp = (status: number): 'transient' | 'terminal' =>
  status >= 500 || status === 429 ? 'transient' : 'terminal';

export interface DataForSeoOptions {
  login: string;
  password: string;
  baseUrl?: string;
  /** Attempts after the first for transient failures. */
  retries?: number;
  /** Base of the exponential backoff; each pause is a random share of `base × 2^attempt` (full jitter). */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Time limit of one HTTP attempt. */
  timeoutMs?: number;
  random?: () => number;
}

export interface TaskOutcome<T> {
  /** `empty` and `billed_no_data` carry no result. */
  outcome: 'ok' | 'empty' | 'billed_no_data';
  result: T[];
}

type Attempt =
  | { outcome: 'ok' | 'empty' | 'billed_no_data'; result: unknown[] }
  | { outcome: 'transient' | 'terminal'; message: string; code?: number };

/**
 * A task's results in the shape of its endpoint. Results in another shape were billed all the same: they
 * fail the call as worth retrying later, and are not retried now, lest they be billed again.
 */
function results<T>(endpoint: string, schema: z.ZodMiniType<T>, found: readonly unknown[]): T[] {
  const decoded = z.safeParse(z.array(schema), found);
  if (decoded.success) return decoded.data;
  const [issue] = decoded.error.issues;
  const where = issue ? ` at ${issue.path.join('.')}: ${issue.message}` : '';
  throw new ProviderError(DATAFORSEO, `${endpoint}: unreadable result${where}`, true);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * DataForSEO v3 over HTTP: Basic auth, one task per live call, the outcome read from `status_code`
 * in the body (DataForSEO answers HTTP 200 for most failures), retries with jittered backoff for
 * transient codes, and every attempt's `cost` recorded on the meter, billed failures included.
 */
export class DataForSeoClient {
  private readonly authorization: string;
  private readonly baseUrl: string;

  constructor(private readonly options: DataForSeoOptions) {
    this.authorization = `Basic ${Buffer.from(`${options.login}:${options.password}`, 'utf8').toString('base64')}`;
    this.baseUrl = (options.baseUrl ?? DATAFORSEO_BASE_URL).replace(/\/+$/, '');
  }

  /** The task's outcome, its results decoded with `result`, the schema of the endpoint's results. */
  async task<T>(
    endpoint: string,
    task: Record<string, unknown>,
    meter: Meter,
    result: z.ZodMiniType<T>,
  ): Promise<TaskOutcome<T>> {
    const retries = this.options.retries ?? 3;
    let last = '';
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) await pause(this.backoff(attempt));
      const answer = await this.post(endpoint, task, meter);
      if ('result' in answer) return { outcome: answer.outcome, result: results(endpoint, result, answer.result) };
      if (answer.outcome === 'terminal')
        throw new ProviderError(DATAFORSEO, `${endpoint}: ${answer.message}`, false, answer.code);
      last = answer.message;
    }
    throw new ProviderError(DATAFORSEO, `${endpoint}: ${last} (gave up after ${retries + 1} attempts)`, true);
  }

  private backoff(attempt: number): number {
    const base = this.options.backoffMs ?? 500;
    const ceiling = Math.min(this.options.maxBackoffMs ?? 8000, base * 2 ** attempt);
    return Math.floor((this.options.random ?? Math.random)() * ceiling);
  }

  private async post(endpoint: string, task: Record<string, unknown>, meter: Meter): Promise<Attempt> {
    // Each attempt may be billed, so each reserves the task's list price first (a refusal calls no one).
    const hold = await meter.reserve(dataForSeoPrice(endpoint, dataForSeoTaskItems(endpoint, task)));
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}/v3/${endpoint}`, {
        method: 'POST',
        headers: { authorization: this.authorization, 'content-type': 'application/json' },
        body: JSON.stringify([task]),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 25_000),
      });
    } catch (error) {
      meter.release(hold);
      return { outcome: 'transient', message: `request failed: ${errorField(error, 'message')}` };
    }
    const body: unknown = await response.json().catch(() => undefined);
    // Every attempt is recorded, at the cost the envelope reports: billed failures cost money too.
    const billed = z.safeParse(Billed, body);
    meter.record({ provider: DATAFORSEO, endpoint, cost_usd: billed.success ? billed.data.cost : 0 }, hold);

    if (response.status !== 200) {
      return { outcome: classifyHttp(response.status), message: `HTTP ${response.status}`, code: response.status };
    }
    const decoded = z.safeParse(Envelope, body);
    if (!decoded.success) return { outcome: 'transient', message: 'unreadable response' };
    const envelope = decoded.data;
    const top = classify(envelope.status_code);
    // A code means the same at either level: an envelope without tasks may carry the task's own outcome.
    if (top === 'empty' || top === 'billed_no_data') return { outcome: top, result: [] };
    if (top !== 'ok') return this.failure(top, envelope.status_code, envelope.status_message);
    const first = envelope.tasks?.[0];
    if (!first) return { outcome: 'transient', message: 'response without a task' };
    const outcome = classify(first.status_code);
    if (outcome === 'ok') return { outcome, result: first.result ?? [] };
    if (outcome === 'empty' || outcome === 'billed_no_data') return { outcome, result: [] };
    return this.failure(outcome, first.status_code, first.status_message);
  }

  private failure(outcome: Classification, code: number, message: string | null | undefined): Attempt {
    return { outcome: outcome === 'transient' ? 'transient' : 'terminal', message: `${code} ${message}`, code };
  }
}
