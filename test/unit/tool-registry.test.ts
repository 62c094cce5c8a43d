import { TOOL_LIST, TOOL_NAMES, TOOLS, toolListing, toolSpec, type ToolInput } from '@cm/contract';
import { tool, type Workflow } from '@cm/runtime';
import { dbDelete, getKeywords } from '@cm/tools';

/*
 * The tool registry is keyed by tool name, and a tool's workflow, handler, listing and route are typed
 * from its entry. The type checks below are part of `npm test`'s typecheck: each @ts-expect-error is an
 * error the compiler must report (were it to accept the line, tsc fails on the unused directive).
 */

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
  expect(typeof tool('get_keywords', getKeywords)).toBe('function');
  expect(typeof tool('db_delete', dbDelete)).toBe('function');

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
