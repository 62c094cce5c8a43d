/** What `h` takes as children: text is always set as text, never parsed as HTML. */
export type Child = Node | string | number | null | undefined | false | readonly Child[];

export interface Props {
  class?: string;
  /** Attributes set with setAttribute; `style` is refused (the CSP forbids inline styles: use classes or `vars`). */
  attrs?: Record<string, string | number | boolean | null | undefined>;
  /** CSS custom properties set through the CSSOM, which the CSP allows (e.g. a competitor's colour). */
  vars?: Record<string, string>;
  /** Listeners by event type; each gets the Event, which one that needs more narrows (`instanceof`). */
  on?: { [E in keyof HTMLElementEventMap]?: (event: Event) => void };
}

/** An element with its props and children; the only way this app makes DOM from data. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props | null = null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props?.class) el.className = props.class;
  for (const [name, value] of Object.entries(props?.attrs ?? {})) {
    if (name === 'style') throw new Error('inline styles are forbidden by the CSP');
    if (value === false || value === null || value === undefined) continue;
    el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const [name, value] of Object.entries(props?.vars ?? {})) el.style.setProperty(name, value);
  for (const [type, listener] of Object.entries(props?.on ?? {})) if (listener) el.addEventListener(type, listener);
  append(el, children);
  return el;
}

export function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (typeof child === 'string' || typeof child === 'number')
      parent.appendChild(document.createTextNode(String(child)));
    else if (child instanceof Node) parent.appendChild(child);
    else if (child) append(parent, child);
  }
}

/** Replaces everything inside `el` with `children`. */
export function replace(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}
