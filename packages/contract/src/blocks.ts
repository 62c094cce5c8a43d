import * as z from 'zod/mini';
import { AbsoluteUrl } from './common';

/*
 * A block (and an inline node) is an object with `_type` (spec §2.4); that is all a publish requires of
 * it. The shapes below are what a visitor page renders from. A block of a known type in another shape is
 * stored as sent, rendered as far as it safely can be, and reported in `warnings[]`; a block of any other
 * type is stored as sent and never rendered.
 */

const TypeName = z.string().check(z.minLength(1));

export const Span = z.object({ _type: z.literal('span'), text: z.string(), marks: z.optional(z.array(z.string())) });
export const SourceCitation = z.object({ _type: z.literal('sourceCitation'), id: z.string().check(z.minLength(1)) });

const KNOWN_INLINE = { span: Span, sourceCitation: SourceCitation } as const;

/** Types are looked up as own keys only, so `constructor` or `__proto__` is an unknown type like any other. */
export const isKnownInlineType = (type: string): type is keyof typeof KNOWN_INLINE => Object.hasOwn(KNOWN_INLINE, type);

/** An inline node in the shape that renders. */
const InlineNode = z.looseObject({ _type: TypeName }).check(
  z.superRefine((node, ctx) => {
    if (!isKnownInlineType(node._type)) return;
    const result = KNOWN_INLINE[node._type].safeParse(node);
    for (const issue of result.error?.issues ?? [])
      ctx.addIssue({ code: 'custom', message: issue.message, path: [...issue.path] });
  }),
  z.meta({
    description: `An inline node: an object with \`_type\`. Known types: ${Object.keys(KNOWN_INLINE).join(', ')}; any other type is not rendered.`,
  }),
);

/**
 * A Portable Text block, as editors that write Portable Text send it: `style` (normal, h1–h6, blockquote),
 * spans with decorator marks (strong, em, code, underline, strike-through) and annotation marks that name
 * a `markDefs` entry (`link` with an `href`), and list items (`listItem` bullet or number, `level`).
 */
const PortableTextBlock = z.object({
  _type: z.literal('block'),
  style: z.optional(z.string()),
  children: z.array(InlineNode),
  markDefs: z.optional(z.array(z.looseObject({ _key: z.string(), _type: TypeName }))),
  listItem: z.optional(z.string()),
  level: z.optional(z.int().check(z.minimum(1))),
});

const Heading = z.object({
  _type: z.literal('heading'),
  level: z.int().check(z.minimum(1), z.maximum(6)),
  text: z.string(),
});
const Paragraph = z
  .object({
    _type: z.literal('paragraph'),
    text: z.optional(z.string()),
    children: z.optional(z.array(InlineNode)),
  })
  .check(z.refine((p) => p.text !== undefined || p.children !== undefined, 'a paragraph needs text or children'));
const StatBar = z.object({
  _type: z.literal('statBar'),
  stats: z.array(z.object({ value: z.string(), label: z.string() })),
});
const List = z.object({
  _type: z.literal('list'),
  style: z.optional(z.enum(['bullet', 'number'])),
  items: z.array(z.string()),
});
const Quote = z.object({ _type: z.literal('quote'), text: z.string(), cite: z.optional(z.nullable(z.string())) });
const Image = z.object({
  _type: z.literal('image'),
  url: AbsoluteUrl,
  alt: z.string(),
  caption: z.optional(z.nullable(z.string())),
  /** Intrinsic size in pixels, when known: the browser keeps the image's room before it loads. */
  width: z.optional(z.int().check(z.positive())),
  height: z.optional(z.int().check(z.positive())),
});
export const CALLOUT_TONES = ['info', 'warning', 'tip'] as const;
const Callout = z.object({ _type: z.literal('callout'), tone: z.enum(CALLOUT_TONES), text: z.string() });
const Table = z.object({ _type: z.literal('table'), header: z.array(z.string()), rows: z.array(z.array(z.string())) });
/** Portable Text's code block (as @sanity/code-input writes it): the code verbatim, its language and file name. */
const Code = z.object({
  _type: z.literal('code'),
  code: z.string(),
  language: z.optional(z.nullable(z.string())),
  filename: z.optional(z.nullable(z.string())),
});

/** The shape each known block type renders from (docs/api.md#blocks). */
export const KNOWN_BLOCKS = {
  heading: Heading,
  paragraph: Paragraph,
  statBar: StatBar,
  list: List,
  quote: Quote,
  image: Image,
  callout: Callout,
  table: Table,
  code: Code,
  block: PortableTextBlock,
} as const;

export type KnownBlockType = keyof typeof KNOWN_BLOCKS;

export const Block = z.looseObject({ _type: TypeName }).check(
  z.meta({
    description: `A block: an object with \`_type\`, stored as sent. Known types: ${Object.keys(KNOWN_BLOCKS).join(', ')}; each renders from the shape listed for it, and one in another shape is rendered as far as it can be and reported in \`warnings[]\`. Any other type is not rendered.`,
  }),
);
export const Blocks = z.array(Block);

export type Block = { _type: string; [field: string]: unknown };

export const isKnownBlockType = (type: string): type is KnownBlockType => Object.hasOwn(KNOWN_BLOCKS, type);

/** How a block of a known type differs from the shape it renders from: none for a block of any other type. */
export function blockShapeIssues(block: Block): readonly z.core.$ZodIssue[] {
  if (!isKnownBlockType(block._type)) return [];
  return KNOWN_BLOCKS[block._type].safeParse(block).error?.issues ?? [];
}
