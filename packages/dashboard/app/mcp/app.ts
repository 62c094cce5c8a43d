import { App } from '@modelcontextprotocol/ext-apps';
import '../styles.css';
import { destroyCharts, mountCharts } from '../charts';
import { h, replace } from '../dom';
import { isFields } from '../replies';

/*
 * What every MCP App shares: it connects to its host by postMessage (ext-apps' App), is handed the tool
 * result there (never calling the API: it has no key), and draws it with the dashboard's own report
 * code. A result it cannot draw (an error, another shape) is said in words instead.
 */

export interface McpAppSpec<T> {
  /** The App's name to its host. */
  name: string;
  /** The tool whose result it draws, named in what it says of a result it cannot draw. */
  tool: string;
  /** Whether a result's structuredContent is the one it draws (the dashboard's guards, replies.ts). */
  is: (content: unknown) => content is T;
  /** The report of a result; `input` is the tool call's arguments, as far as the host sent them. */
  draw: (data: T, input: Record<string, unknown>) => HTMLElement[];
}

/** The error a tool result carries, in words: the API's message (its text content is the error body as JSON). */
function errorOf(content: unknown): string {
  const text = Array.isArray(content)
    ? content.map((item: unknown) => (isFields(item) && typeof item.text === 'string' ? item.text : '')).join(' ')
    : '';
  try {
    const body: unknown = JSON.parse(text);
    if (isFields(body) && typeof body.message === 'string')
      return typeof body.code === 'string' ? `${body.message} (${body.code})` : body.message;
  } catch {
    // Not the API's JSON: the text itself says what happened.
  }
  return text.trim().slice(0, 500) || 'The tool call failed and said nothing more.';
}

/**
 * What a page of a large result says of itself (docs/api.md#mcp-results), in words: the App draws the
 * page it is handed, and says which part of the whole that is, so nothing is left out unsaid.
 */
function pageOf(content: unknown): string | null {
  const page = isFields(content) ? content.page : undefined;
  if (!isFields(page)) return null;
  const { field, offset, returned, total } = page;
  if (typeof offset !== 'number' || typeof returned !== 'number' || typeof total !== 'number') return null;
  return `This is one page of a large result: ${String(field)} ${offset + 1}–${offset + returned} of ${total}. The agent reads the rest with next_cursor, or the whole result at ${String(page.result_uri)}.`;
}

/** Starts the App in the page's #app element, headed by the page's title: waits for its host, then draws each tool result it is handed. */
export function startMcpApp<T>(spec: McpAppSpec<T>): void {
  const host = document.getElementById('app');
  if (!host) throw new Error('The App page has no #app element to draw in');
  const body = h(
    'div',
    { class: 'view', attrs: { 'data-app': spec.name, 'aria-busy': 'true' } },
    h('p', { class: 'loading' }, 'Waiting for the tool result…'),
  );
  replace(host, h('main', { class: 'mcp-app' }, h('h1', null, document.title), body));
  let input: Record<string, unknown> = {};
  /** Counts results, so a slow draw overtaken by a newer result leaves the page to it. */
  let shown = 0;
  const say = (cls: string, message: string) =>
    h('div', { class: cls, attrs: { role: cls === 'error' ? 'alert' : 'status' } }, message);

  const show = async (result: { isError?: boolean; structuredContent?: unknown; content?: unknown }) => {
    const current = ++shown;
    destroyCharts();
    body.setAttribute('aria-busy', 'true');
    if (result.isError) replace(body, say('error', `${spec.tool} failed: ${errorOf(result.content)}`));
    else if (!spec.is(result.structuredContent))
      replace(body, say('error', `This App draws a ${spec.tool} result, and this result is not one it can draw.`));
    else {
      try {
        const paged = pageOf(result.structuredContent);
        replace(body, ...(paged ? [say('note', paged)] : []), ...spec.draw(result.structuredContent, input));
      } catch (error) {
        replace(
          body,
          say('error', `The result could not be drawn: ${error instanceof Error ? error.message : String(error)}`),
        );
      }
    }
    await mountCharts();
    if (current === shown) body.removeAttribute('aria-busy');
  };

  const app = new App({ name: spec.name, version: '1.0.0' }, {}, { autoResize: true });
  // Set before connecting: a host may send the input and result as soon as the handshake ends.
  app.ontoolinput = (params) => {
    input = isFields(params.arguments) ? params.arguments : {};
  };
  app.ontoolresult = (result) => void show(result);
  app.ontoolcancelled = (params) => {
    destroyCharts();
    replace(body, say('error', `The ${spec.tool} call was cancelled${params.reason ? `: ${params.reason}` : ''}.`));
    body.removeAttribute('aria-busy');
  };
  app.connect().catch((error: unknown) => {
    replace(
      body,
      say('error', `The App could not reach its host: ${error instanceof Error ? error.message : String(error)}`),
    );
    body.removeAttribute('aria-busy');
  });
}
