import * as z from 'zod/mini';
import { dataForSeoPrice, dataForSeoTaskItems } from '../prices';
import { PROVIDER_TIMEOUTS } from '@cm/contract';
import { errorField, isTimeout, ProviderError } from '../errors';
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
  /** A standard-queue task posted. */
  taskCreated: 20100,
  /** A standard-queue task not done yet: handed to a worker, or still in the queue. */
  taskHanded: 40601,
  taskInQueue: 40602,
} as const;

/**
 * Codes worth another attempt after a pause, by their messages in DataForSEO's error list
 * (docs.dataforseo.com/v3/appendix/errors): "Task execution failed, please try to resubmit the task.",
 * the per-minute rate limit, too many simultaneous queries, "Internal Error.", "3rd Party API Service
 * Unavailable.", "Update in progress. Please try after a few minutes." and "Internal Error - Timeout.".
 * Not 40203 (the daily cost limit lasts until the UTC day ends) nor 50304 ("temporarily unavailable.
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
export const classifyHttp = (status: number): 'transient' | 'terminal' =>
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
  /** When a posted standard-queue task is first collected, in seconds (default: the normal priority's turnaround). */
  taskReadySeconds?: number;
  /** Time limit of one HTTP attempt: connection, answer and body. */
  timeoutMs?: number;
  /** Time limit of every attempt and pause of one task together: no attempt starts, or runs, past it. */
  callTimeoutMs?: number;
  random?: () => number;
}

export interface TaskOutcome<T> {
  /** `empty` and `billed_no_data` carry no result. */
  outcome: 'ok' | 'empty' | 'billed_no_data';
  result: T[];
}

type Attempt =
  | { outcome: 'ok' | 'empty' | 'billed_no_data'; result: unknown[] }
  | { outcome: 'transient' | 'terminal'; message: string; code?: number; timedOut?: boolean };

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

  /**
   * The task's outcome, its results decoded with `result`, the schema of the endpoint's results. Every
   * attempt and pause stays within the call's time limit and stops when the meter's run is given up.
   */
  async task<T>(
    endpoint: string,
    task: Record<string, unknown>,
    meter: Meter,
    result: z.ZodMiniType<T>,
  ): Promise<TaskOutcome<T>> {
    const retries = this.options.retries ?? 3;
    const endsAt = Date.now() + (this.options.callTimeoutMs ?? PROVIDER_TIMEOUTS.dataforseoCallMs);
    let last: Extract<Attempt, { message: string }> = { outcome: 'transient', message: 'no attempt made' };
    let attempts = 0;
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) await pause(Math.min(this.backoff(attempt), Math.max(0, endsAt - Date.now())));
      const left = endsAt - Date.now();
      if (left <= 0 || meter.abandoned) break;
      attempts++;
      const answer = await this.post(endpoint, task, meter, Math.min(left, this.attemptMs));
      if ('result' in answer) return { outcome: answer.outcome, result: results(endpoint, result, answer.result) };
      if (answer.outcome === 'terminal')
        throw new ProviderError(DATAFORSEO, `${endpoint}: ${answer.message}`, false, answer.code);
      last = answer;
    }
    throw new ProviderError(
      DATAFORSEO,
      `${endpoint}: ${last.message} (gave up after ${attempts} attempt${attempts === 1 ? '' : 's'})`,
      true,
      last.code,
      last.timedOut === true,
    );
  }

  private get attemptMs(): number {
    return this.options.timeoutMs ?? PROVIDER_TIMEOUTS.dataforseoAttemptMs;
  }

  private backoff(attempt: number): number {
    const base = this.options.backoffMs ?? 500;
    const ceiling = Math.min(this.options.maxBackoffMs ?? 8000, base * 2 ** attempt);
    return Math.floor((this.options.random ?? Math.random)() * ceiling);
  }

  private async post(
    endpoint: string,
    task: Record<string, unknown>,
    meter: Meter,
    timeoutMs: number,
  ): Promise<Attempt> {
    // Each attempt may be billed, so each reserves the task's list price first (a refusal, or an open breaker, calls no one).
    const price = dataForSeoPrice(endpoint, dataForSeoTaskItems(endpoint, task));
    const hold = await meter.reserve(price, { provider: DATAFORSEO, endpoint });
    const answer = await this.send(endpoint, meter, { method: 'POST', body: JSON.stringify([task]) }, timeoutMs);
    if (!('body' in answer)) {
      meter.unanswered({ provider: DATAFORSEO, endpoint, cost_usd: price }, hold, answer.timedOut);
      return { outcome: 'transient', message: answer.message, timedOut: answer.timedOut };
    }
    const { status, body } = answer;
    // Every attempt is recorded, at the cost the envelope reports: billed failures cost money too.
    const billed = z.safeParse(Billed, body);
    meter.record({ provider: DATAFORSEO, endpoint, cost_usd: billed.success ? billed.data.cost : 0 }, hold);

    if (status !== 200) return { outcome: classifyHttp(status), message: `HTTP ${status}`, code: status };
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

  /**
   * One request within an attempt's time limit (the body is read under it too: a provider that sends
   * headers and then stalls is hanging), its outcome told to the breaker: its status and body, or why
   * it got none.
   */
  async send(
    path: string,
    meter: Meter,
    init: { method: 'GET' | 'POST'; body?: string },
    timeoutMs = this.attemptMs,
  ): Promise<{ status: number; body: unknown } | { message: string; timedOut: boolean }> {
    const limit = meter.attemptLimit(timeoutMs);
    const signal = limit.signal;
    try {
      const response = await fetch(`${this.baseUrl}/v3/${path}`, {
        ...init,
        headers: { authorization: this.authorization, 'content-type': 'application/json' },
        signal,
      });
      const body: unknown = await response.json().catch((error: unknown) => {
        if (signal.aborted) throw error;
        return undefined;
      });
      meter.report(DATAFORSEO, response.status < 500);
      return { status: response.status, body };
    } catch (error) {
      // A run given up (its deadline) cut the attempt: that says nothing of the provider.
      if (!meter.abandoned) meter.report(DATAFORSEO, false);
      const timedOut = signal.aborted || isTimeout(error);
      return {
        message: timedOut ? `no answer within ${timeoutMs} ms` : `request failed: ${errorField(error, 'message')}`,
        timedOut,
      };
    } finally {
      limit.clear();
    }
  }

  private failure(outcome: Classification, code: number, message: string | null | undefined): Attempt {
    return { outcome: outcome === 'transient' ? 'transient' : 'terminal', message: `${code} ${message}`, code };
  }
}
