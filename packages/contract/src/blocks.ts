import * as z from 'zod';
import { AbsoluteUrl } from './common';

/*
 * A block (and an inline node) is an object with `_type`. A known type must match its shape; any other
 * `_type` is kept as sent and never rendered (publish reports it in `warnings[]`).
 */

export const Span = z.object({ _type: z.literal('span'), text: z.string() });
export const SourceCitation = z.object({ _type: z.literal('sourceCitation'), id: z.string().min(1) });

const KNOWN_INLINE = { span: Span, sourceCitation: SourceCitation } as const;

const Heading = z.object({ _type: z.literal('heading'), level: z.int().min(1).max(6), text: z.string() });
const Paragraph = z
  .object({
    _type: z.literal('paragraph'),
    text: z.string().optional(),
    children: z.array(z.lazy(() => InlineNode)).optional(),
  })
  .refine((p) => p.text !== undefined || p.children !== undefined, 'a paragraph needs text or children');
const StatBar = z.object({
  _type: z.literal('statBar'),
  stats: z.array(z.object({ value: z.string(), label: z.string() })),
});
const List = z.object({
  _type: z.literal('list'),
  style: z.enum(['bullet', 'number']).optional(),
  items: z.array(z.string()),
});
const Quote = z.object({ _type: z.literal('quote'), text: z.string(), cite: z.string().nullable().optional() });
const Image = z.object({
  _type: z.literal('image'),
  url: AbsoluteUrl,
  alt: z.string(),
  caption: z.string().nullable().optional(),
});
const Callout = z.object({ _type: z.literal('callout'), tone: z.enum(['info', 'warning', 'tip']), text: z.string() });
const Table = z.object({ _type: z.literal('table'), header: z.array(z.string()), rows: z.array(z.array(z.string())) });

export const KNOWN_BLOCKS = {
  heading: Heading,
  paragraph: Paragraph,
  statBar: StatBar,
  list: List,
  quote: Quote,
  image: Image,
  callout: Callout,
  table: Table,
} as const;

export type KnownBlockType = keyof typeof KNOWN_BLOCKS;

function typedObject<T extends Record<string, z.ZodType>>(known: T, kind: string) {
  return z
    .looseObject({ _type: z.string().min(1) })
    .superRefine((value, ctx) => {
      const schema = known[value._type];
      if (!schema) return;
      const result = schema.safeParse(value);
      if (result.success) return;
      for (const issue of result.error.issues) {
        ctx.addIssue({ code: 'custom', message: issue.message, path: [...issue.path] });
      }
    })
    .meta({
      description: `A ${kind}: an object with \`_type\`. Known types: ${Object.keys(known).join(', ')} (each must match its shape); any other type is stored and not rendered.`,
    });
}

export const InlineNode = typedObject(KNOWN_INLINE, 'inline node');
export const Block = typedObject(KNOWN_BLOCKS, 'block');
export const Blocks = z.array(Block);

export type Block = { _type: string; [field: string]: unknown };
export type HeadingBlock = z.infer<typeof Heading>;
export type ParagraphBlock = z.infer<typeof Paragraph>;
export type StatBarBlock = z.infer<typeof StatBar>;
export type ListBlock = z.infer<typeof List>;
export type QuoteBlock = z.infer<typeof Quote>;
export type ImageBlock = z.infer<typeof Image>;
export type CalloutBlock = z.infer<typeof Callout>;
export type TableBlock = z.infer<typeof Table>;
export type InlineNode = { _type: string; [field: string]: unknown };

export const isKnownBlockType = (type: string): type is KnownBlockType => Object.hasOwn(KNOWN_BLOCKS, type);
export const isKnownInlineType = (type: string): boolean => Object.hasOwn(KNOWN_INLINE, type);
