// Node 20 is the supported local runtime (Lambda runs 24); the SDK's upgrade notice is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

import { runSmoke } from './smoke';

// The exit code, not process.exit(): output still queued on a pipe is written before the process ends.
void runSmoke(process.argv.slice(2), { log: (line) => console.log(line), error: (line) => console.error(line) }).then(
  (code) => {
    process.exitCode = code;
  },
);
