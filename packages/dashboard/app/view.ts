import type { Api } from './api';

export interface ViewContext {
  api: Api;
  /** The view's own element, empty when render starts. */
  root: HTMLElement;
  /** What follows the view's name in the hash (`#landscape/topic/3` → `['topic', '3']`). */
  params: string[];
  /** Says something to screen readers and sighted users alike (results of actions). */
  announce(message: string): void;
  /**
   * Runs a confirmed action: its result (what it did and cost) or its error is announced in words,
   * and the view is rendered again to show what changed.
   */
  act(run: () => Promise<string>): Promise<void>;
  /** Goes to another hash route of the same view (`#<view>/<params…>`). */
  navigate(params: string[]): void;
}

export interface View {
  id: string;
  label: string;
  title: string;
  render(ctx: ViewContext): Promise<void>;
}
