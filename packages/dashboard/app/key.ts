import { h } from './dom';

/* The site's API key: taken from a `#key=` fragment (which never reaches a server) or typed in, kept in sessionStorage only. */

const STORAGE_KEY = 'cm-dashboard-api-key';

/**
 * Moves a `#key=…` fragment into sessionStorage and takes it out of the address bar (and so out of
 * history and bookmarks) at once. Returns the key to use: the fragment's, else the one stored this session.
 */
export function takeKey(): string | null {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const fromFragment = fragment.get('key')?.trim();
  if (fromFragment) {
    sessionStorage.setItem(STORAGE_KEY, fromFragment);
    history.replaceState(null, '', `${location.pathname}${location.search}`);
  }
  return sessionStorage.getItem(STORAGE_KEY);
}

export function saveKey(key: string): void {
  sessionStorage.setItem(STORAGE_KEY, key);
}

export function forgetKey(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}

/** The form that asks for the key, with why it was asked again (`problem`) when a key was refused. */
export function keyForm(onKey: (key: string) => void, problem?: string): HTMLElement {
  const input = h('input', {
    attrs: {
      id: 'api-key',
      name: 'api-key',
      type: 'password',
      autocomplete: 'off',
      required: true,
      spellcheck: 'false',
    },
  });
  const form = h(
    'form',
    {
      class: 'key-form',
      on: {
        submit: (event) => {
          event.preventDefault();
          const key = input.value.trim();
          if (key) onKey(key);
        },
      },
    },
    h('h1', null, 'Content research dashboard'),
    problem ? h('p', { class: 'error', attrs: { role: 'alert' } }, problem) : null,
    h('label', { attrs: { for: 'api-key' } }, "The site's API key"),
    input,
    h(
      'p',
      { class: 'hint' },
      'Kept in this tab only (sessionStorage) and sent to this API as X-API-Key. ',
      h('code', null, 'npm start'),
      ' prints a link that fills it in.',
    ),
    h('button', { class: 'primary', attrs: { type: 'submit' } }, 'Open the dashboard'),
  );
  queueMicrotask(() => input.focus());
  return form;
}
