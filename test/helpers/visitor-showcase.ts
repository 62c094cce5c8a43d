import { article, question, type TestStack } from './local';

/*
 * The pages a reader is shown in the visitor-page tests that look at them whole (the browser test and
 * Lighthouse): an article with the README's blocks, a stat bar, Portable Text lists and links and the
 * other block types, a question page with sources, the site's summary and a reader's answer, and the
 * listing pages that lead to them (the home, a category, a topic, the index of questions).
 */

/** A Portable Text list item. */
const listItem = (style: 'bullet' | 'number', text: string) => ({
  _type: 'block',
  style: 'normal',
  listItem: style,
  children: [{ _type: 'span', text }],
});

/** The showcase's pages by kind, each a path on the test stack. */
export type Showcase = Record<'article' | 'question' | 'home' | 'category' | 'topic' | 'questions', string>;

/** Publishes the showcase on `t`'s demo site and answers its pages' paths. */
export async function publishShowcase(t: TestStack): Promise<Showcase> {
  await t.call(
    'POST',
    '/articles',
    article('marathon-training-plan', {
      title: 'A 16-week marathon training plan',
      excerpt: 'Four months from your first long run to the start line, week by week.',
      category: 'Training',
    }),
  );
  await t.call(
    'POST',
    '/articles',
    article('trail-running-shoes', {
      title: 'Trail running shoes for mud and rock',
      excerpt: 'Lugs, rock plates and drop: what matters off road, and what does not.',
      category: 'Running shoes',
    }),
  );
  const related = (
    await t.call(
      'POST',
      '/questions',
      question('how-much-cushioning', {
        question: 'How much cushioning do running shoes need?',
        meta_description: 'More for long road runs, less for speed work and trails.',
        topics: ['Running shoes'],
      }),
    )
  ).body.id as string;
  await t.call(
    'POST',
    '/articles',
    article('best-running-shoes', {
      title: 'Best running shoes',
      excerpt: 'Start with fit, then cushioning.',
      category: 'Running shoes',
      related_question_ids: [related],
      body: [
        { _type: 'paragraph', text: 'Start with fit, then cushioning. A shoe that fits is one you will run in.' },
        { _type: 'heading', level: 2, text: 'Why cushioning matters' },
        {
          _type: 'statBar',
          stats: [
            { value: '42%', label: 'fewer knee complaints' },
            { value: '8 mm', label: 'typical heel drop' },
            { value: '500 km', label: 'life of a midsole' },
          ],
        },
        {
          _type: 'block',
          style: 'normal',
          children: [
            { _type: 'span', text: 'Read the ', marks: [] },
            { _type: 'span', text: 'fitting guide', marks: ['k1'] },
            { _type: 'span', text: ' before you buy, and ', marks: [] },
            { _type: 'span', text: 'try both feet', marks: ['strong'] },
            { _type: 'span', text: '.', marks: [] },
          ],
          markDefs: [{ _key: 'k1', _type: 'link', href: 'https://example.com/fit' }],
        },
        listItem('bullet', 'Road: more cushioning'),
        listItem('bullet', 'Trail: more grip'),
        listItem('number', 'Measure in the evening'),
        listItem('number', 'Leave a thumb of room'),
        { _type: 'quote', text: 'The best shoe is the one you forget you are wearing.', cite: 'A coach' },
        { _type: 'callout', tone: 'tip', text: 'Replace shoes every 500 to 800 km.' },
        {
          _type: 'table',
          header: ['Shoe', 'Drop', 'Weight'],
          rows: [
            ['Road trainer', '10 mm', '280 g'],
            ['Trail runner', '6 mm', '310 g'],
          ],
        },
        { _type: 'code', language: 'ts', code: 'const km = weeks * 40;\nif (km > 500) replace(shoes);' },
      ],
    }),
  );
  const q = (
    await t.call(
      'POST',
      '/questions',
      question('how-often-replace-shoes', {
        question: 'How often should I replace running shoes?',
        topics: ['Running shoes', 'Care'],
        answer: [
          {
            _type: 'paragraph',
            children: [
              { _type: 'span', text: 'Every 500 to 800 km, sooner when the midsole feels flat' },
              { _type: 'sourceCitation', id: 'src-1' },
              { _type: 'span', text: '.' },
            ],
          },
          { _type: 'list', items: ['Track your distance [src-2]', 'Check the outsole for wear'] },
        ],
        sources: [
          { id: 'src-1', title: 'Running shoe study', url: 'https://example.org/study', accessed_at: '2026-10-01' },
          { id: 'src-2', title: 'Coach handbook', url: 'https://example.org/handbook', accessed_at: '2026-10-02' },
        ],
      }),
    )
  ).body.id as string;
  await t.call('PUT', `/questions/${q}/summary`, { summary: 'About every 500 to 800 km.' });
  await t.call('POST', `/questions/${q}/answers`, {
    author: 'Ann',
    blocks: [{ _type: 'paragraph', text: 'I log every run and replace them at 600 km.' }],
  });
  await t.stack.drain();
  return {
    article: `/sites/${t.siteId}/articles/best-running-shoes`,
    question: `/sites/${t.siteId}/questions/how-often-replace-shoes`,
    home: `/sites/${t.siteId}/`,
    category: `/sites/${t.siteId}/categories/running-shoes`,
    topic: `/sites/${t.siteId}/topics/running-shoes`,
    questions: `/sites/${t.siteId}/questions`,
  };
}
