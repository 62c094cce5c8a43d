/*
 * The benchmark's environment, set before any handler module loads: no EMF lines or info logs (they
 * would be measured too), quick sandbox research jobs, and never a real provider: the benchmark's
 * workflow must not spend money, so provider credentials are dropped and the sandbox answers.
 */
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
process.env.SANDBOX_RESEARCH_MS = '50';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
for (const name of [
  'DATAFORSEO_LOGIN',
  'DATAFORSEO_PASSWORD',
  'DATAFORSEO_SECRET',
  'TAVILY_API_KEY',
  'TAVILY_SECRET',
  'PUBLIC_BASE_URL',
])
  delete process.env[name];
