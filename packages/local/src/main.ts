// Node 20 is the supported local runtime (Lambda runs 24); the SDK's upgrade notice is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// The handlers log JSON lines as on Lambda; their EMF metric lines only when asked for.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

import { Bug } from '@cm/core';
import { parseArgs } from 'node:util';
import { decodeEnvironment, numberVariable } from '@cm/runtime';
import * as z from 'zod/mini';
import { dynamoEngine } from './dynamo';
import { startLocalStack } from './stack';

/**
 * `npm start [-- --memory] [-- --engine dynamodb-local]`: the local stack on PORT (3000), its streaming MCP
 * endpoint on MCP_STREAM_PORT (PORT + 1), with DynamoDB on
 * DYNAMODB_PORT (8000), data under DATA_DIR (.data). The engine is dynalite unless `--engine` or
 * DYNAMO_ENGINE names Amazon DynamoDB Local (which needs Java 17 or later).
 */
const port = numberVariable('a port, a whole number from 0 to 65535', 0, 65_535);
const Ports = z.object({ PORT: port, MCP_STREAM_PORT: port, DYNAMODB_PORT: port });

async function main() {
  const { values } = parseArgs({
    options: { memory: { type: 'boolean', default: false }, engine: { type: 'string' } },
  });
  const ports = decodeEnvironment(Ports, process.env);
  const memory = values.memory;
  const engine = dynamoEngine(values.engine ?? process.env.DYNAMO_ENGINE);
  const dataDir = process.env.DATA_DIR || '.data';
  const stack = await startLocalStack({
    memory,
    dataDir,
    port: ports.PORT ?? 3000,
    ...(ports.MCP_STREAM_PORT === undefined ? {} : { streamPort: ports.MCP_STREAM_PORT }),
    dynamoPort: ports.DYNAMODB_PORT ?? 8000,
    tableName: process.env.TABLE_NAME || 'content',
    engine,
    demoSite: true,
    // RATE_LIMITS=off: no rate rules, for load runs from one address (the benchmark, the crash tests).
    ...(process.env.RATE_LIMITS === 'off' ? { rateRules: [] } : {}),
  });
  const { demo } = stack;
  if (!demo) throw new Bug('The local stack started without the demo site it was asked for');
  console.log(
    [
      `Content API on ${stack.url} (DynamoDB on ${engine} at ${stack.dynamo.endpoint}, table ${stack.tableName}, ${memory ? 'in memory' : `data in ${dataDir}/`})`,
      `Demo site ${stack.demoCreated ? 'created' : `from ${dataDir}/demo-site.json`}: site_id ${demo.site_id}, API key ${demo.api_key}`,
      `Dashboard: ${stack.url}/dashboard#key=${demo.api_key}`,
      `OpenAPI: ${stack.url}/openapi.json`,
      `MCP: ${stack.url}/mcp (streaming, with approval by elicitation: ${stack.mcpStreamUrl}/mcp)`,
    ].join('\n'),
  );
  const stop = async () => {
    await stack.stop();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

const runFor = () =>
  `after ${process.uptime().toFixed(0)} s, RSS ${(process.memoryUsage.rss() / 2 ** 20).toFixed(0)} MB`;
// A stack that dies under load says why, and how far it had come, in its last lines (Node then prints the error and exits).
process.on('uncaughtExceptionMonitor', (_error, origin) =>
  console.error(
    `The local stack is ending on an ${origin === 'unhandledRejection' ? 'unhandled rejection' : 'uncaught exception'} ${runFor()}:`,
  ),
);
process.on('exit', (code) => {
  if (code !== 0) console.error(`The local stack exited with code ${code} ${runFor()}`);
});

main().catch((error: NodeJS.ErrnoException) => {
  if (error.code === 'EADDRINUSE')
    console.error(`A port is in use (${error.message}); set PORT / DYNAMODB_PORT, or stop the other stack.`);
  else console.error(error);
  process.exit(1);
});
