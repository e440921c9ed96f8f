import type { ComponentChildren } from "preact";
import { Empty, Show } from "./states";
import type { Loaded } from "./use-api";

/** One column of a table: its header and how a row shows in it. */
export interface Column<T> {
  header: string;
  cell: (row: T) => ComponentChildren;
}

/** A table of rows, scrolling sideways inside its box on a narrow screen (the page itself does not). */
export function DataTable<T>({
  caption,
  columns,
  rows,
  rowKey,
}: {
  caption: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
}) {
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column.header} scope="col">
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((column) => (
                <td key={column.header} data-label={column.header}>
                  {column.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Previous / next through the pages of a paginated list ({total, page, page_size}). */
export function Pager({
  label,
  total,
  page,
  pageSize,
  onPage,
}: {
  label: string;
  total: number;
  page: number;
  pageSize: number;
  onPage: (page: number) => void;
}) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  if (pages <= 1) return <p class="muted">{total === 1 ? "1 item" : `${total} items`}</p>;
  return (
    <nav class="pager" aria-label={`Pages of ${label}`}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span aria-live="polite">
        Page {page} of {pages} ({total} items)
      </span>
      <button type="button" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}

export interface PageOf<T> {
  items: T[];
  total: number;
  page?: number;
  page_size?: number;
}

/** A list loaded through the API: loading and error states, an empty message, the table and its pager. */
export function ListTable<T>({
  loaded,
  retry,
  what,
  empty,
  columns,
  rowKey,
  onPage,
}: {
  loaded: Loaded<PageOf<T>>;
  retry: () => void;
  what: string;
  empty: string;
  columns: Column<T>[];
  rowKey: (row: T) => string;
  onPage?: (page: number) => void;
}) {
  return (
    <Show
      loaded={loaded}
      what={what}
      retry={retry}
      ready={(list) =>
        list.items.length === 0 ? (
          <Empty>{empty}</Empty>
        ) : (
          <>
            <DataTable caption={what} columns={columns} rows={list.items} rowKey={rowKey} />
            {onPage ? (
              <Pager
                label={what}
                total={list.total}
                page={list.page ?? 1}
                pageSize={list.page_size ?? list.items.length}
                onPage={onPage}
              />
            ) : null}
          </>
        )
      }
    />
  );
}
