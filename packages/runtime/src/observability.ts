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

/**
 * One invocation's logger. Powertools tells a cold start per Logger instance, so a logger made per
 * invocation would call each one cold: this one is told the container's answer, as are its children.
 */
class InvocationLogger extends Logger {
  constructor(
    private readonly coldStartOfContainer: boolean,
    options: LoggerOptions,
  ) {
    super(options);
  }

  protected override getColdStart(): boolean {
    return this.coldStartOfContainer;
  }

  protected override createLogger(options?: LoggerOptions): Logger {
    return new InvocationLogger(this.coldStartOfContainer, options);
  }
}

/** True until the first invocation of a container Lambda started on demand (provisioned ones are warm). */
let containerColdStart = process.env.AWS_LAMBDA_INITIALIZATION_TYPE === 'on-demand';

/**
 * What one invocation logs and measures. Its keys and metrics are its own, so invocations that run
 * side by side (queue records in a batch, the local stack's requests in one process) never mix.
 */
export class Observation {
  private constructor(
    /** Structured JSON lines with the Lambda request id and the keys added so far. */
    readonly log: Logger,
    private readonly metrics: Metrics,
  ) {}

  static start(context: Context): Observation {
    const log = new InvocationLogger(containerColdStart, {
      serviceName: SERVICE_NAME,
      logLevel: logger.getLevelName(),
    });
    containerColdStart = false;
    log.addContext(context);
    return new Observation(log, new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME, logger: log }));
  }

  /** The same metrics, with a logger that adds `keys` to its lines (one queue record, say). */
  child(keys: Record<string, unknown>): Observation {
    return new Observation(this.log.createChild({ persistentKeys: keys }), this.metrics);
  }

  /** Adds keys to every later line (the site, the tool). */
  keys(keys: Record<string, unknown>): void {
    this.log.appendKeys(keys);
  }

  /** A dimension of every metric of this invocation (the tool of a tool's function). */
  dimension(name: string, value: string): void {
    this.metrics.addDimension(name, value);
  }

  /** Records a metric; with dimensions of its own it is published at once, apart from the rest. */
  metric(name: MetricName, value = 1, dimensions?: Record<string, string>): void {
    if (!dimensions) {
      this.metrics.addMetric(name, METRICS[name], value);
      return;
    }
    const single = this.metrics.singleMetric();
    for (const [key, dimension] of Object.entries(dimensions)) single.addDimension(key, dimension);
    single.addMetric(name, METRICS[name], value);
  }

  /** Publishes the invocation's metrics as one EMF line; none when nothing was measured. */
  flush(): void {
    if (this.metrics.hasStoredMetrics()) this.metrics.publishStoredMetrics();
  }
}

const observations = new WeakMap<Context, Observation>();

/** The Observation of the invocation with this Lambda context (started by `observed`). */
export function observationOf(context: Context): Observation {
  const observation = observations.get(context);
  if (!observation) throw new Error('no Observation: the handler is not wrapped in observed()');
  return observation;
}

/**
 * middy: starts an Observation per invocation (`onStart` adds what the event tells, such as its
 * route) and publishes its metrics when the invocation ends, also when it fails.
 */
export function observed<E, R>(
  onStart?: (event: E, observation: Observation) => void,
): middy.MiddlewareObj<E, R, Error, Context> {
  const flush = async (request: middy.Request<E, R, Error, Context>) => observations.get(request.context)?.flush();
  return {
    before: async (request) => {
      const observation = Observation.start(request.context);
      observations.set(request.context, observation);
      onStart?.(request.event, observation);
    },
    after: flush,
    onError: flush,
  };
}
