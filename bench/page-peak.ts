import { PAGE_MAX_BYTES, readableText } from '../packages/providers/src/web/page';

/*
 * The research worker's heaviest step alone in a process (`npm run bench` spawns it): the readable
 * text of the largest page url mode reads, all of it markup, as a DOM-heavy page is. Prints the time
 * it took and the process's peak RSS, from which the worker's memory size is chosen (infra/memory.ts).
 */

const paragraph = (i: number) =>
  `<div class="c${i % 7}"><p>Paragraph ${i} with <a href="/p/${i}">a link</a>, <em>some</em> text and <span>spans</span> to read.</p></div>\n`;

async function main() {
  const open = '<!doctype html><html><head><title>The largest page</title></head><body><article>';
  const close = '</article></body></html>';
  const parts: string[] = [];
  let bytes = open.length + close.length;
  for (let i = 0; bytes + paragraph(i).length <= PAGE_MAX_BYTES; i++) {
    parts.push(paragraph(i));
    bytes += paragraph(i).length;
  }
  const html = open + parts.join('') + close;
  const started = process.hrtime.bigint();
  const { text } = await readableText(html, 'text/html');
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const peakMb = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(JSON.stringify({ page_bytes: html.length, text_chars: text.length, ms, peak_rss_mb: peakMb }));
}

void main();
