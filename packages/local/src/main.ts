// Node 20 is the supported local runtime (Lambda runs 24); the SDK's upgrade notice is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// The handlers log JSON lines as on Lambda; their EMF metric lines only when asked for.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

import { startLocalStack } from './stack';

/** `npm start [-- --memory]`: the local stack on PORT (3000) with the embedded DynamoDB on DYNAMODB_PORT (8000), data under DATA_DIR (.data). */
async function main() {
  const memory = process.argv.includes('--memory');
  const dataDir = process.env.DATA_DIR || '.data';
  const stack = await startLocalStack({
    memory,
    dataDir,
    port: Number(process.env.PORT ?? 3000),
    dynamoPort: Number(process.env.DYNAMODB_PORT ?? 8000),
    tableName: process.env.TABLE_NAME || 'content',
    demoSite: true,
  });
  const demo = stack.demo!;
  console.log(
    [
      `Content API on ${stack.url} (embedded DynamoDB on ${stack.dynamo.endpoint}, table ${stack.tableName}, ${memory ? 'in memory' : `data in ${dataDir}/`})`,
      `Demo site ${stack.demoCreated ? 'created' : 'from .data/demo-site.json'}: site_id ${demo.site_id}, API key ${demo.api_key}`,
      `Dashboard: ${stack.url}/dashboard#key=${demo.api_key}`,
      `OpenAPI: ${stack.url}/openapi.json`,
    ].join('\n'),
  );
  const stop = async () => {
    await stack.stop();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: NodeJS.ErrnoException) => {
  if (error.code === 'EADDRINUSE') console.error(`A port is in use (${error.message}); set PORT / DYNAMODB_PORT, or stop the other stack.`);
  else console.error(error);
  process.exit(1);
});
