import { h, type Child } from './dom';

export interface ConfirmOptions {
  title: string;
  /** What the action does and what it costs, in words: the paid provider calls and any quota it uses. */
  cost: Child;
  confirmLabel: string;
}

/**
 * Asks before an action that spends money or stops something, in a modal <dialog>: focus starts on
 * Cancel (the safe choice), Escape cancels, and focus goes back where it was.
 */
export function confirmAction({ title, cost, confirmLabel }: ConfirmOptions): Promise<boolean> {
  const returnFocus = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  return new Promise((resolve) => {
    const cancel = h('button', { attrs: { type: 'button', value: 'cancel' } }, 'Cancel');
    const confirm = h('button', { class: 'primary', attrs: { type: 'button', value: 'confirm' } }, confirmLabel);
    const dialog = h(
      'dialog',
      { class: 'confirm', attrs: { 'aria-labelledby': 'confirm-title', 'aria-describedby': 'confirm-cost' } },
      h('h2', { attrs: { id: 'confirm-title' } }, title),
      h('div', { attrs: { id: 'confirm-cost' } }, cost),
      h('div', { class: 'actions' }, cancel, confirm),
    );
    const close = (answer: boolean) => {
      dialog.close();
      dialog.remove();
      returnFocus?.focus();
      resolve(answer);
    };
    cancel.addEventListener('click', () => close(false));
    confirm.addEventListener('click', () => close(true));
    dialog.addEventListener('cancel', (event) => {
      event.preventDefault();
      close(false);
    });
    document.body.append(dialog);
    dialog.showModal();
    cancel.focus();
  });
}
