import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import {
  LIMITS,
  type Device,
  type FailedCheck,
  type RankRow,
  type ScopeRun,
  type TrackedCadence,
  type TrackedScopeType,
} from '@cm/contract';
import { Bug } from '@cm/core';
import { batchGet, batchWrite, queryAll } from './batch';
import { conditionalUpdate, conditionalWrite } from './conditional';
import { Update } from './update';
import { giveBackClaim, takeClaim } from './claims';
import {
  keywordUnique,
  rankKey,
  rankPartition,
  trackedScopeKey,
  trackingPartition,
  TRACKING_SETTINGS_SK,
  trackingSettingsKey,
} from './keys';
import { decodeCheckItem, decodeTrackedScope, decodeTrackingSettings, type TrackedScope } from './ranks.decoder';

export type { TrackedScope } from './ranks.decoder';

/** A rank row (and a check's claim) outlives its day by this long, as a ledger line does; then TTL deletes it. */
const KEEP_SECONDS = LIMITS.rankRowsKeptDays * 86_400;
const expiresAfter = (day: string) => Math.floor(Date.parse(`${day}T00:00:00.000Z`) / 1000) + KEEP_SECONDS;

/** A keyword's check of a day on a device (desktop when absent), claimed by one run before it is paid for. */
export interface RankClaim {
  siteId: number;
  locale: string;
  keyword: string;
  device?: Device;
  day: string;
  runId: string;
}

/** A keyword checked on a device (desktop when absent). */
interface CheckedKeyword {
  locale: string;
  keyword: string;
  device?: Device;
}

/** A site's rank tracking: its depth and its tracked scopes. */
export interface Tracking {
  depth: number;
  scopes: TrackedScope[];
}

/** Where a check of a day stands: claimed (paid for or being paid for), its row, or failed. */
export type CheckState = { state: 'claimed' } | { state: 'checked'; row: RankRow } | { state: 'failed' };

/** A scope's failed runs its item keeps, newest first: a history's window sees them, and the item stays small. */
const FAILED_RUNS_KEPT = 30;
/** An error is kept this long at most, in characters. */
const ERROR_CHARS = 300;
const bounded = (error: string) => (error.length > ERROR_CHARS ? `${error.slice(0, ERROR_CHARS - 1)}…` : error);

/** Items a history's first Query reads beyond its days: room for the claims among them (a check pending, given back, or of a later day). */
const CLAIMS_ROOM = 8;

/** A keyword's stored checks of a window: its rows, and the checks that failed. */
export interface KeywordChecks {
  rows: RankRow[];
  failed: FailedCheck[];
}

/** Rank tracking: a site's settings and tracked scopes, and each keyword's dated checks. */
export class RankStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** The site's tracking: one Query of its partition (its settings and every tracked scope). */
  async tracking(siteId: number): Promise<Tracking> {
    const items = await queryAll(this.db, {
      TableName: this.table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': trackingPartition(siteId) },
      // Read after track_rankings writes it: the answer lists what was just set.
      ConsistentRead: true,
    });
    let depth: number = LIMITS.rankDepthDefault;
    const scopes: TrackedScope[] = [];
    for (const item of items) {
      if (item.sk === TRACKING_SETTINGS_SK) depth = decodeTrackingSettings(item).depth;
      else {
        const scope = decodeTrackedScope(item);
        if (scope) scopes.push(scope);
      }
    }
    return { depth, scopes };
  }

  /** The site's results per check (one GetItem). */
  async depth(siteId: number): Promise<number> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: trackingSettingsKey(siteId) }));
    return out.Item ? decodeTrackingSettings(out.Item).depth : LIMITS.rankDepthDefault;
  }

  async setDepth(siteId: number, depth: number, now: string): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: { ...trackingSettingsKey(siteId), depth, updated_at: now },
      }),
    );
  }

  /**
   * Tracks a scope at a cadence (one UpdateItem): `since`, the day tracking began (a weekly scope is
   * checked on its weekday), stays what it was for a scope tracked already.
   */
  async track(
    siteId: number,
    scope: { type: TrackedScopeType; id: number },
    setting: { cadence: TrackedCadence; max_keywords: number | null; device?: Device },
    now: Date,
  ): Promise<TrackedScope> {
    const at = now.toISOString();
    const update = new Update()
      .set('type', scope.type)
      .set('id', scope.id)
      .set('cadence', setting.cadence)
      .set('device', setting.device ?? 'desktop')
      .set('max_keywords', setting.max_keywords, { valueKey: 'max' })
      .setIfAbsent('since', at.slice(0, 10), { valueKey: 'day' })
      .setIfAbsent('created_at', at, { valueKey: 'at' })
      .set('updated_at', at, { valueKey: 'at' });
    const out = await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: trackedScopeKey(siteId, scope.type, scope.id),
        ...update.input(),
        ReturnValues: 'ALL_NEW',
      }),
    );
    const tracked = decodeTrackedScope(out.Attributes ?? {});
    if (!tracked) throw new Bug('a scope tracked at a cadence read back as off');
    return tracked;
  }

  /**
   * Records a scope's run of its checks (one UpdateItem, only while the scope is tracked): its last run,
   * and its failed runs, the newest FAILED_RUNS_KEPT (`before`: those it had, as the run read them), a
   * day run again without failing taken out.
   */
  async recordRun(
    siteId: number,
    scope: { type: TrackedScopeType; id: number; failed_runs?: TrackedScope['failed_runs'] },
    run: ScopeRun,
  ): Promise<void> {
    const lastRun = run.error === undefined ? run : { ...run, error: bounded(run.error) };
    const others = (scope.failed_runs ?? []).filter((f) => f.day !== run.day);
    const failedRuns = (lastRun.error === undefined ? others : [{ day: run.day, error: lastRun.error }, ...others])
      .sort((a, b) => b.day.localeCompare(a.day))
      .slice(0, FAILED_RUNS_KEPT);
    const update = new Update()
      .set('last_run', lastRun, { valueKey: 'run' })
      .set('failed_runs', failedRuns, { valueKey: 'failed' });
    // Refused when the scope was stopped while it ran: nothing to record.
    await conditionalUpdate(
      this.db,
      this.table,
      trackedScopeKey(siteId, scope.type, scope.id),
      update.when(update.exists('pk')),
    );
  }

  /** A tracked scope's item (one GetItem), or null when it is not tracked. */
  async trackedScope(siteId: number, scope: { type: TrackedScopeType; id: number }): Promise<TrackedScope | null> {
    const out = await this.db.send(
      new GetCommand({ TableName: this.table, Key: trackedScopeKey(siteId, scope.type, scope.id) }),
    );
    return out.Item ? decodeTrackedScope(out.Item) : null;
  }

  /** Stops tracking a scope: whether it was tracked. */
  async untrack(siteId: number, scope: { type: TrackedScopeType; id: number }): Promise<boolean> {
    const out = await this.db.send(
      new DeleteCommand({
        TableName: this.table,
        Key: trackedScopeKey(siteId, scope.type, scope.id),
        ReturnValues: 'ALL_OLD',
      }),
    );
    return out.Attributes !== undefined;
  }

  /**
   * Claims a keyword's check of a day for `claim.runId` with one conditional put of its row's key:
   * false when another run owns it (it checked, or checks now). A claim given back is taken again.
   */
  async claim(claim: RankClaim, now: Date): Promise<boolean> {
    return takeClaim(this.db, this.table, {
      ...rankKey(claim.siteId, claim.locale, claim.keyword, claim.day, claim.device),
      state: 'claimed',
      run_id: claim.runId,
      claimed_at: now.toISOString(),
      expires_at: expiresAfter(claim.day),
    });
  }

  /** Gives a claim back (nothing was paid for it), so another run may take it: only while `claim.runId` owns it (its row has none). */
  async giveBack(claim: RankClaim, now: Date): Promise<void> {
    await giveBackClaim(
      this.db,
      this.table,
      rankKey(claim.siteId, claim.locale, claim.keyword, claim.day, claim.device),
      claim.runId,
      now,
    );
  }

  /** Stores checks' rows of a site (each replacing its claim), 25 to a request. */
  async put(siteId: number, rows: readonly RankRow[]): Promise<void> {
    await batchWrite(
      this.db,
      this.table,
      rows.map((row) => ({
        PutRequest: {
          Item: {
            ...rankKey(siteId, row.locale, row.keyword, row.day, row.device),
            state: 'checked',
            ...row,
            expires_at: expiresAfter(row.day),
          },
        },
      })),
    );
  }

  /**
   * Marks checks failed, with why (a put each, unless the check's row is stored already): the provider
   * answered no SERP for them, so their day has none, and the history says so.
   */
  async fail(siteId: number, checks: ReadonlyArray<FailedCheck & CheckedKeyword & { keyword: string }>, now: Date) {
    await Promise.all(
      checks.map(async (check) => {
        // Refused when the check's row is stored already: its result stays.
        await conditionalWrite(
          this.db,
          new PutCommand({
            TableName: this.table,
            Item: {
              ...rankKey(siteId, check.locale, check.keyword, check.day, check.device),
              state: 'failed',
              keyword: check.keyword,
              locale: check.locale,
              device: check.device ?? 'desktop',
              day: check.day,
              error: bounded(check.error),
              failed_at: now.toISOString(),
              expires_at: expiresAfter(check.day),
            },
            ConditionExpression: 'attribute_not_exists(#state) OR #state <> :checked',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: { ':checked': 'checked' },
          }),
        );
      }),
    );
  }

  /** What each of these keywords' checks of `day` stand at, by checkKey (absent: none): BatchGetItems of 100. */
  async checksOn(siteId: number, keywords: readonly CheckedKeyword[], day: string): Promise<Map<string, CheckState>> {
    const byPartition = new Map(
      keywords.map((k) => [
        rankPartition(siteId, k.locale, k.keyword, k.device),
        checkKey(k.locale, k.keyword, k.device),
      ]),
    );
    const items = await batchGet(
      this.db,
      this.table,
      keywords.map((k) => rankKey(siteId, k.locale, k.keyword, day, k.device)),
    );
    const out = new Map<string, CheckState>();
    for (const item of items) {
      const key = byPartition.get(String(item.pk));
      if (key === undefined) continue;
      const check = decodeCheckItem(item);
      if (check.state === 'checked') out.set(key, { state: 'checked', row: check.row });
      else if (check.state === 'failed') out.set(key, { state: 'failed' });
      // A claim given back is no check: the day is open again.
      else if (!check.released) out.set(key, { state: 'claimed' });
    }
    return out;
  }

  /**
   * A keyword's last `days` days with a stored check (checked or failed), newest first, whatever the
   * clock says, so days checked ahead of it are there too. A claim (pending, given back, or of a later
   * day) is no check: the Query filters them out, and reads on past them. Its first page reads the
   * newest `days` + CLAIMS_ROOM items (one round trip, unless more claims than that sit among them);
   * each page after it reads twice the items of the one before, until `days` checks or the partition's
   * end. A keyword holds one item a day (kept LIMITS.rankRowsKeptDays), so that is a few pages at most.
   */
  async latest(
    siteId: number,
    locale: string,
    keyword: string,
    days: number,
    device: Device = 'desktop',
  ): Promise<KeywordChecks> {
    const checks: KeywordChecks = { rows: [], failed: [] };
    const found = () => checks.rows.length + checks.failed.length;
    let limit = days + CLAIMS_ROOM;
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.db.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk',
          FilterExpression: '#state IN (:checked, :failed)',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':pk': rankPartition(siteId, locale, keyword, device),
            ':checked': 'checked',
            ':failed': 'failed',
          },
          ScanIndexForward: false,
          Limit: limit,
          ExclusiveStartKey: start,
        }),
      );
      for (const item of (out.Items ?? []).slice(0, days - found())) {
        const check = decodeCheckItem(item);
        if (check.state === 'checked') checks.rows.push(check.row);
        else if (check.state === 'failed') checks.failed.push(check.failed);
      }
      start = out.LastEvaluatedKey;
      limit *= 2;
    } while (start && found() < days);
    return checks;
  }
}

/** The key a check's state is found under in {@link RankStore.checksOn}'s answer (a keyword's on a device). */
export const checkKey = (locale: string, keyword: string, device: Device = 'desktop'): string =>
  device === 'desktop' ? keywordUnique(locale, keyword) : `${device}#${keywordUnique(locale, keyword)}`;
