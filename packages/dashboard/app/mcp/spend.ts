import { isBudget, isFields, isUsage } from '../replies';
import { spendReport } from '../reports/spend';
import type { Budget, Usage } from '../types';
import { startMcpApp } from './app';

/** get_usage over MCP: the usage report with the site's budget beside it. */
const isUsageWithBudget = (content: unknown): content is Usage & { budget: Budget } =>
  isFields(content) && isBudget(content.budget) && isUsage(content);

/* The spend App: a get_usage result, spend against the budget. */
startMcpApp({
  name: 'spend',
  tool: 'get_usage',
  is: isUsageWithBudget,
  draw: (usage) => spendReport(usage, usage.budget),
});
