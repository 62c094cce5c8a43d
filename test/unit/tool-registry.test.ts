import {
  FUNCTIONS,
  mcpHintsOf,
  PAID_TOOLS,
  ROUTE_TABLE,
  scopeOfTool,
  toolFunction,
  TOOL_HEADS,
  TOOL_LIST,
  TOOL_NAMES,
  TOOLS,
  toolListing,
  toolSpec,
  type ToolInput,
  DB_DELETE,
  GET_KEYWORDS,
} from '@cm/contract';
import { tool, type Workflow } from '@cm/runtime';
import { dbDelete, getKeywords } from '@cm/tools';

/*
 * The tool registry is keyed by tool name, and a tool's workflow, handler, listing and route are typed
 * from its entry. The type checks below are part of `npm test`'s typecheck: each @ts-expect-error is an
 * error the compiler must report (were it to accept the line, tsc fails on the unused directive).
 */

it('derives every list that names a tool from its head and declaration', () => {
  // Each declaration under its own name, and a function of its own for each tool, in the heads' order.
  for (const name of TOOL_NAMES) expect(TOOLS[name].name).toBe(name);
  const functions = TOOL_NAMES.map(toolFunction);
  expect(new Set(functions).size).toBe(TOOL_NAMES.length);
  expect(FUNCTIONS.filter((fn) => functions.some((tool) => tool === fn))).toEqual(functions);
  // Its route, served by its function.
  const routes = ROUTE_TABLE.filter((route) => route.method === 'POST' && route.path.startsWith('/v1/tools/'));
  expect(routes.map((route) => [route.path, route.fn])).toEqual([
    ...TOOL_NAMES.map((name) => [`/v1/tools/${name}`, toolFunction(name)]),
    ['/v1/tools/{name}', 'tools'],
  ]);
  // What it does decides its hints, the scope it asks of a token and whether it is paid.
  for (const name of TOOL_NAMES) {
    const { kind } = TOOL_HEADS[name];
    expect({
      name,
      paid: PAID_TOOLS.some((paid) => paid === name),
      hints: mcpHintsOf(name),
      scope: scopeOfTool(name),
    }).toEqual({
      name,
      paid: kind === 'paid',
      hints: {
        readOnlyHint: kind === 'read',
        destructiveHint: kind === 'delete',
        idempotentHint: TOOL_HEADS[name].idempotent,
        openWorldHint: kind === 'paid',
      },
      scope: { read: 'read', paid: 'research', write: 'write', delete: 'write' }[kind],
    });
  }
});

it('keys every tool by its name and lists them in TOOL_NAMES order', () => {
  expect(Object.keys(TOOLS).sort()).toEqual([...TOOL_NAMES].sort());
  expect(TOOL_LIST.map((spec) => spec.name)).toEqual([...TOOL_NAMES]);
  expect(toolListing().map((listed) => listed.name)).toEqual([...TOOL_NAMES]);
  for (const spec of TOOL_LIST) expect(toolSpec(spec.name)).toMatchObject({ name: spec.name, input: spec.input });
  expect(toolSpec('research_everything')).toBeUndefined();
  expect(toolSpec('toString')).toBeUndefined();
});

it('types a workflow from its tool: the input it gets, and a result that fits the result schema', () => {
  const input: ToolInput<'db_delete'> = { table: 'cm_topics', id: 1 };
  expect(input.table).toBe('cm_topics');
  // The real workflows fit their tools.
  expect(typeof tool(GET_KEYWORDS, getKeywords)).toBe('function');
  expect(typeof tool(DB_DELETE, dbDelete)).toBe('function');

  // A result without a field the schema requires: refused.
  // @ts-expect-error `deleted` and `cascaded` are missing
  const incomplete: Workflow<'db_delete'> = async (_ctx, input) => ({
    data_source: 'database',
    table: input.table,
    id: input.id,
  });
  // A field of the wrong type (`id` is an integer in the schema): refused.
  // @ts-expect-error the id is a string
  const wrongType: Workflow<'db_delete'> = async (_ctx, input) => ({
    data_source: 'database',
    table: input.table,
    id: String(input.id),
    deleted: true as const,
    cascaded: {},
  });
  // Another tool's workflow: refused, its input and result are another tool's.
  // @ts-expect-error get_keywords's workflow is not db_delete's
  const another: Workflow<'db_delete'> = getKeywords;
  // An input field the tool does not have: refused.
  // @ts-expect-error db_delete's input has no `seeds`
  const unknownInput: Workflow<'db_delete'> = async (_ctx, input) => ({ ...input, seeds: input.seeds });
  expect([incomplete, wrongType, another, unknownInput]).toHaveLength(4);
});
