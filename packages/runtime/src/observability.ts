import { Bug } from '@cm/core';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { METRICS, type MetricName } from '@cm/contract';

/** Powertools' service name (a dimension of every metric) and the CloudWatch namespace of the metrics. */
export const SERVICE_NAME = 'content-api';
export const METRICS_NAMESPACE = 'ContentApi';

/** The service's logger (level from POWERTOOLS_LOG_LEVEL); each invocation logs through one of its own at the same level. */
export const logger = new Logger({ serviceName: SERVICE_NAME });

type LoggerOptions = ConstructorParameters<typeof Logger>[0];

/** The levels at which an info line is written. */
const INFO_OR_FINER = new Set(['TRACE', 'DEBUG', 'INFO']);

/**
 * An invocation's logger. Powertools tells a cold start per Logger instance, and these are kept from one
 * invocation to the next: each is told the container's answer when an invocation takes it, as are its children.
 */
class InvocationLogger extends Logger {
  coldStartOfContainer = false;

  protected override getColdStart(): boolean {
    return this.coldStartOfContainer;
  }

  protected override createLogger(options?: LoggerOptions): Logger {
    const child = new InvocationLogger(options);
    child.coldStartOfContainer = this.coldStartOfContainer;
    return child;
  }
}

/** True until the first invocation of a container Lambda started on demand (provisioned ones are warm). */
let containerColdStart = process.env.AWS_LAMBDA_INITIALIZATION_TYPE === 'on-demand';

/** A logger and metrics an invocation keeps while it runs; they go back to `idle` when it ends. */
interface Instruments {
  log: InvocationLogger;
  metrics: Metrics;
  /** What Powertools read of the environment when it made them (metrics on or off). */
  made: string | undefined;
}

/**
 * Loggers and metrics not in use. Making them is most of what observing an invocation costs (each makes
 * a Console and reads the environment: about 0.15 ms, measured), so they are made once and reused: one
 * pair in a Lambda container, which runs one invocation at a time; as many as ran at once on the local
 * stack, where one process serves every function and request.
 */
const idle: Instruments[] = [];

function takeInstruments(): Instruments {
  const made = process.env.POWERTOOLS_METRICS_DISABLED;
  // Powertools reads whether metrics are on when it makes them: a change of it (the tests make one) takes new ones.
  if (idle.length > 0 && idle[idle.length - 1]?.made !== made) idle.length = 0;
  const kept = idle.pop();
  if (kept) return kept;
  const log = new InvocationLogger({ serviceName: SERVICE_NAME });
  return { log, metrics: new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME, logger: log }), made };
}

/**
 * What one invocation logs and measures. Its keys and metrics are its own, so invocations that run
 * side by side (queue records in a batch, the local stack's requests in one process) never mix.
 */
export class Observation {
  /**
   * What the invocation's logger is still to be told (the service's level, the invocation's context and
   * keys): told before its first line, as most invocations log none at the level set (each of these
   * reads the environment in Powertools). Undefined once told, and once the invocation ended.
   */
  private untold: { context?: Context; keys: Record<string, unknown>[] } | undefined;

  private constructor(
    private readonly logger: Logger,
    private readonly metrics: Metrics,
    private readonly instruments?: Instruments,
    context?: Context,
  ) {
    this.untold = context ? { context, keys: [] } : undefined;
  }

  static start(context: Context): Observation {
    const instruments = takeInstruments();
    instruments.log.coldStartOfContainer = containerColdStart;
    containerColdStart = false;
    return new Observation(instruments.log, instruments.metrics, instruments, context);
  }

  /** Structured JSON lines with the Lambda request id and the keys added so far. */
  get log(): Logger {
    this.tell();
    return this.logger;
  }

  /** Tells the logger what it is still to be told, before a line: ours, or a warning Metrics writes through it. */
  private tell(): void {
    const { untold } = this;
    if (!untold) return;
    this.untold = undefined;
    // Set only on a change (the tests make some): a kept logger usually has the service's level already.
    const level = logger.getLevelName();
    if (this.logger.getLevelName() !== level) this.logger.setLogLevel(level);
    if (untold.context) this.logger.addContext(untold.context);
    for (const keys of untold.keys) this.logger.appendKeys(keys);
  }

  /** An info line, only worked out when the service logs at info: most requests' one line ("answered"). */
  info(message: string, attributes: Record<string, unknown>): void {
    if (INFO_OR_FINER.has(logger.getLevelName())) this.log.info(message, attributes);
  }

  /** The same metrics, with a logger that adds `keys` to its lines (one queue record, say). */
  child(keys: Record<string, unknown>): Observation {
    return new Observation(this.log.createChild({ persistentKeys: keys }), this.metrics);
  }

  /** Adds keys to every later line (the site, the tool). */
  keys(keys: Record<string, unknown>): void {
    if (this.untold) this.untold.keys.push(keys);
    else this.logger.appendKeys(keys);
  }

  /** A dimension of every metric of this invocation (the tool of a tool's function). */
  dimension(name: string, value: string): void {
    this.tell();
    this.metrics.addDimension(name, value);
  }

  /** Records a metric; with dimensions of its own it is published at once, apart from the rest. */
  metric(name: MetricName, value = 1, dimensions?: Record<string, string>): void {
    this.tell();
    if (!dimensions) {
      this.metrics.addMetric(name, METRICS[name], value);
      return;
    }
    const single = this.metrics.singleMetric();
    for (const [key, dimension] of Object.entries(dimensions)) single.addDimension(key, dimension);
    single.addMetric(name, METRICS[name], value);
  }

  /**
   * Publishes the invocation's metrics as one EMF line (none when nothing was measured) and gives its
   * logger and metrics back, without this invocation's keys and dimensions, for the next invocation.
   */
  end(): void {
    if (this.metrics.hasStoredMetrics()) this.metrics.publishStoredMetrics();
    const { instruments, untold } = this;
    if (!instruments) return;
    this.untold = undefined;
    this.metrics.clearDimensions();
    // A logger never told this invocation's keys has none of them.
    if (!untold) instruments.log.resetKeys();
    idle.push(instruments);
  }
}

const observations = new WeakMap<Context, Observation>();

/** The Observation of the invocation with this Lambda context (started by `observed`). */
export function observationOf(context: Context): Observation {
  const observation = observations.get(context);
  if (!observation) throw new Bug('no Observation: the handler is not wrapped in observed()');
  return observation;
}

/**
 * middy: starts an Observation per invocation (`onStart` adds what the event tells, such as its
 * route) and ends it (its metrics published) when the invocation ends, also when it fails.
 */
export function observed<E, R>(
  onStart?: (event: E, observation: Observation) => void,
): middy.MiddlewareObj<E, R, Error, Context> {
  const end = async (request: middy.Request<E, R, Error, Context>) => {
    observations.get(request.context)?.end();
    observations.delete(request.context);
  };
  return {
    before: async (request) => {
      const observation = Observation.start(request.context);
      observations.set(request.context, observation);
      onStart?.(request.event, observation);
    },
    after: end,
    onError: end,
  };
}
