import type * as z from 'zod/mini';
import type { WorkerName } from '../queues';
import type { FunctionGrants } from '../grants';
import type { ToolName } from '../tool-heads';

/**
 * A research tool, declared once: its name (its head in tool-heads.ts says its function and kind), its
 * title and description, the schemas of its input and result, what MCP tells of it, and what its
 * function is granted. The registry, its REST route and docs, tools/list and the stack read it.
 */
export interface ToolDeclaration<
  N extends ToolName = ToolName,
  I extends z.ZodMiniType = z.ZodMiniType,
  R extends z.ZodMiniType = z.ZodMiniType,
> {
  name: N;
  /** As an MCP client shows it. */
  title: string;
  description: string;
  input: I;
  result: R;
  mcp?: {
    /** What an agent is told beyond the description, over MCP. */
    note?: string;
    /** Pages by a `cursor` of its own, so MCP's paging of large results leaves it alone. */
    ownCursor?: true;
    /** A client may run it as a task. */
    task?: true;
  };
  grants: FunctionGrants<WorkerName>;
}

/** A tool's declaration, its schemas' types kept (a workflow's input and result are typed from them). */
export const defineTool = <N extends ToolName, I extends z.ZodMiniType, R extends z.ZodMiniType>(
  declaration: ToolDeclaration<N, I, R>,
): ToolDeclaration<N, I, R> => declaration;
