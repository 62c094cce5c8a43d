// Node 20 is the supported local runtime (Lambda runs 24); the SDK's upgrade notice is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// The handlers' JSON log lines only from warnings up, and no EMF metric lines: the command prints one line of its own.
process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

import { runScheduleCommand } from './schedule';

// The exit code, not process.exit(): output still queued on a pipe is written before the process ends.
void runScheduleCommand(process.argv.slice(2), {
  log: (line) => console.log(line),
  error: (line) => console.error(line),
}).then((code) => {
  process.exitCode = code;
});
