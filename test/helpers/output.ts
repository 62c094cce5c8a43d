import { logger } from '@cm/runtime';

/** A JSON line the handlers wrote: a Powertools log line or an EMF metrics line. */
export type Line = Record<string, any>;

/**
 * Captures what the handlers write to stdout and stderr (Powertools writes there directly), parsed
 * as JSON lines, at `level` and with metrics on, until `stop()`.
 */
export function captureOutput(options: { level?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR'; metrics?: boolean } = {}) {
  const lines: Line[] = [];
  const previousLevel = logger.getLevelName();
  const previousMetrics = process.env.POWERTOOLS_METRICS_DISABLED;
  logger.setLogLevel(options.level ?? 'INFO');
  if (options.metrics) process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  const capture = (stream: NodeJS.WriteStream) =>
    jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      for (const text of String(chunk).split('\n')) {
        if (!text.startsWith('{')) continue;
        try {
          lines.push(JSON.parse(text));
        } catch {
          // not one of the handlers' lines
        }
      }
      return true;
    });
  const spies = [capture(process.stdout), capture(process.stderr)];
  return {
    lines,
    /** The log lines with this message. */
    logs: (message: string) => lines.filter((line) => line.message === message),
    /** The EMF lines' values of a metric, with each line's dimensions. */
    metric: (name: string) =>
      lines
        .filter((line) => line._aws?.CloudWatchMetrics?.[0]?.Metrics?.some((m: { Name: string }) => m.Name === name))
        .map((line) => ({
          value: line[name],
          namespace: line._aws.CloudWatchMetrics[0].Namespace,
          dimensions: line._aws.CloudWatchMetrics[0].Dimensions[0] as string[],
          line,
        })),
    stop() {
      for (const spy of spies) spy.mockRestore();
      logger.setLogLevel(previousLevel);
      if (previousMetrics === undefined) delete process.env.POWERTOOLS_METRICS_DISABLED;
      else process.env.POWERTOOLS_METRICS_DISABLED = previousMetrics;
    },
  };
}
