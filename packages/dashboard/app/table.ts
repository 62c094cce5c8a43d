import { h, replace, type Child } from './dom';

export interface Column<T> {
  label: string;
  cell: (row: T) => Child;
  /** What the column sorts by; a column without it does not sort. Nulls sort last either way. */
  sortBy?: (row: T) => string | number | null;
  numeric?: boolean;
  /** Lets the cell's text wrap (cells keep to one line otherwise, and the table scrolls sideways). */
  wrap?: boolean;
  /** A timestamp, which may break before its time. */
  time?: boolean;
}

export interface TableOptions<T> {
  caption: string;
  columns: Column<T>[];
  rows: readonly T[];
  /** The column (index) and direction the rows start sorted by, when they are not to be shown as given. */
  sorted?: { column: number; descending: boolean };
  rowClass?: (row: T) => string | undefined;
  name?: string;
}

const cellClass = (column: Pick<Column<unknown>, 'numeric' | 'wrap' | 'time'>) =>
  [column.numeric ? 'num' : '', column.wrap ? 'wrap' : '', column.time ? 'time' : ''].join(' ').trim() || undefined;

/**
 * A table whose sortable headers are buttons (keyboard and screen readers reach them) and carry
 * `aria-sort`; a second press reverses the order.
 */
export function dataTable<T>({ caption, columns, rows, sorted, rowClass, name }: TableOptions<T>): HTMLElement {
  let state = sorted;
  const body = h('tbody');
  /** The headers that sort, with their column's index: their `aria-sort` follows the order. */
  const sorting: { th: HTMLElement; index: number }[] = [];
  const headers = columns.map((column, index) => {
    const th = h('th', { class: cellClass(column), attrs: { scope: 'col' } });
    if (!column.sortBy) th.textContent = column.label;
    else {
      sorting.push({ th, index });
      th.append(
        h(
          'button',
          {
            class: 'sort',
            attrs: { type: 'button' },
            on: {
              click: () => {
                state = {
                  column: index,
                  descending: state?.column === index ? !state.descending : Boolean(column.numeric),
                };
                render();
              },
            },
          },
          column.label,
          h('span', { class: 'sort-mark', attrs: { 'aria-hidden': 'true' } }),
        ),
      );
    }
    return th;
  });
  const render = () => {
    const order = [...rows];
    const by = state ? columns[state.column]?.sortBy : undefined;
    if (state && by) {
      const sign = state.descending ? -1 : 1;
      order.sort((a, b) => {
        const [x, y] = [by(a), by(b)];
        if (x === y) return 0;
        if (x === null) return 1;
        if (y === null) return -1;
        return (x < y ? -1 : 1) * sign;
      });
    }
    for (const { th, index } of sorting)
      th.setAttribute('aria-sort', state?.column === index ? (state.descending ? 'descending' : 'ascending') : 'none');
    replace(
      body,
      order.map((row) =>
        h(
          'tr',
          { class: rowClass?.(row) },
          columns.map((column) => h('td', { class: cellClass(column) }, column.cell(row))),
        ),
      ),
    );
  };
  render();
  return h(
    'div',
    { class: 'table-wrap', attrs: { 'data-table': name, role: 'region', 'aria-label': caption, tabindex: 0 } },
    h('table', null, h('caption', null, caption), h('thead', null, h('tr', null, headers)), body),
  );
}
